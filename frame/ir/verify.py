"""Graph verification, rules V1..V7 (SPEC §3), and V8 for regions. Verification is a pass like any other.

V8: a graph-valued attribute (a region: the body of a `cond`, `scan` or `while`, or of a fused or
custom-rule node) is a graph of its own that must verify by V1..V8 itself. It is closed: a node of
the region reading a value of the enclosing graph breaks V2 (used before it is defined) or V7
(owned by another graph) inside the region, reported with the node and attribute that hold it.
How the region's inputs and outputs must match the node's operands and results is the op's shape
rule's to say (V4)."""
from __future__ import annotations

from ..errors import FrameError, VerifyError
from .graph import Graph, Value
from .registry import NodeContext, find


def _where(node, i: int) -> str:
    return f"node {i} ('{node.op}')"


def verify(graph: Graph) -> Graph:
    """Check V1..V7 and return the graph unchanged; raise `VerifyError(rule, ...)` on the first violation."""

    defined: set[Value] = set()
    for v in graph.inputs:
        if v in defined:
            raise VerifyError("V1", f"graph input {v} is defined twice")
        if v.graph is not graph:
            raise VerifyError("V7", f"graph input {v} belongs to another graph")
        defined.add(v)
    for i, node in enumerate(graph.nodes):
        if node.graph is not graph:
            raise VerifyError("V7", f"{_where(node, i)} is owned by another graph")
        for j, v in enumerate(node.inputs):
            if v not in defined:
                raise VerifyError("V2", f"{_where(node, i)}: operand {j} ({v}) is used before it is defined")
        schema = find(node.op)
        if schema is None:
            raise VerifyError("V3", f"{_where(node, i)}: op '{node.op}' is not registered")
        try:
            schema.check_attrs(node.attrs)
        except FrameError as e:
            raise VerifyError("V5", f"{_where(node, i)}: {e}") from None
        try:
            expected = schema.shape_infer(NodeContext(node.op, [v.type for v in node.inputs], node.attrs))
        except FrameError as e:
            raise VerifyError("V4", f"{_where(node, i)}: shape rule rejects the operands: {e}") from None
        for key in sorted(node.attrs):
            region = node.attrs[key]
            if isinstance(region, Graph):
                try:
                    verify(region)
                except VerifyError as e:
                    raise VerifyError("V8", f"{_where(node, i)}: region '{key}' (@{region.name}) breaks {e}") from None
        actual = [v.type for v in node.outputs]
        if expected != actual:
            raise VerifyError(
                "V4", f"{_where(node, i)}: outputs typed ({', '.join(map(str, actual))}) but the shape rule "
                f"gives ({', '.join(map(str, expected))})")
        for v in node.outputs:
            if v in defined:
                raise VerifyError("V1", f"{_where(node, i)}: value {v} is defined more than once")
            if v.node is not node:
                raise VerifyError("V1", f"{_where(node, i)}: output {v} names another defining node")
            defined.add(v)
    for k, v in enumerate(graph.outputs):
        if v not in defined:
            raise VerifyError("V6", f"graph output {k} ({v}) is not a value of this graph")
    return graph
