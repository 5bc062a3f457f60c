"""Stage `decompose`: replace composite ops by their decompositions into primitives.

Paddle's program-level decomposition (seed 003 §3.4): every node whose op has a `DecomposeFn`
(and is not black-listed in the options) is replaced by the decomposition's graph, inlined with
its inputs bound to the node's operands; decompositions that use other composites are expanded
again. Each expansion must give exactly the node's output types (`check_decomp_outputs`), and
`only_primitives` fails if a composite op is left (Paddle's `FLAGS_prim_check_ops`).

`expand_composites` is shared with `build_backward_graph`, which differentiates a composite op
without its own gradient rule through its decomposition.
"""
from __future__ import annotations

from typing import Callable

from ...errors import ShapeError, VerifyError
from ...ir.clone import expand_nodes
from ...ir.graph import Graph, Node, Value, symbolic_refusal
from ...ir.registry import NodeContext, OpSchema, get


def check_decomp_outputs(node: Node, outputs: list[Value]) -> None:
    """A decomposition must give the node's outputs exactly: same count, shapes and dtypes."""
    want = [v.type for v in node.outputs]
    got = [v.type for v in outputs]
    if want != got:
        raise VerifyError("decompose", f"decomposition of '{node.op}' gives ({', '.join(map(str, got))}) but the op "
                          f"produces ({', '.join(map(str, want))})")


def expand_composites(graph: Graph, select: Callable[[OpSchema], bool]) -> Graph:
    """Inline the decomposition of every node whose schema `select` accepts (recursively); `graph` is kept.

    Returns `graph` itself when no node is selected.
    """
    schemas = [get(n.op) for n in graph.nodes]
    if not any(s.decomposition is not None and select(s) for s in schemas):
        return graph
    schema_of = dict(zip(graph.nodes, schemas))

    def expansion(node: Node) -> Graph | None:
        schema = schema_of[node]
        if schema.decomposition is not None and select(schema):
            ctx = NodeContext(node.op, [v.type for v in node.inputs], node.attrs)
            try:
                micro = schema.decomposition(ctx)
            except (ShapeError, TypeError) as e:   # a decomposition needing concrete sizes names the op and symbol
                refusal = symbolic_refusal(node.op, ctx.input_types, node.attrs, e)
                if refusal is e:
                    raise
                raise refusal from None
            return expand_composites(micro, select)
        return None

    return expand_nodes(graph, expansion, check_decomp_outputs)


def decompose(graph: Graph, options=None) -> Graph:
    """Expand composite ops (except `options.decompose_blacklist`); with `only_primitives`, insist none is left."""
    blacklist = frozenset(getattr(options, "decompose_blacklist", ()) or ())
    out = expand_composites(graph, lambda schema: schema.name not in blacklist)
    if getattr(options, "only_primitives", False):
        left = sorted({n.op for n in out.nodes if get(n.op).decomposition is not None})
        if left:
            raise VerifyError("decompose", f"composite ops remain after decomposition: {', '.join(left)}")
    return out
