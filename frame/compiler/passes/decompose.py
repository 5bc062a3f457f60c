"""Stage `decompose`: replace composite ops by their decompositions into primitives.

Each node whose op has a `DecomposeFn` (and is not black-listed in the options) is replaced by
the decomposition's graph, inlined with its inputs bound to the node's operands. The
decomposition must produce exactly the node's output types (`check_decomp_outputs`).
"""
from __future__ import annotations

from ...errors import VerifyError
from ...ir.clone import inline_graph
from ...ir.graph import Graph, Node, Value
from ...ops.schema import NodeContext, get


def check_decomp_outputs(node: Node, outputs: list[Value]) -> None:
    """A decomposition must give the node's outputs exactly: same count, shapes and dtypes."""
    want = [v.type for v in node.outputs]
    got = [v.type for v in outputs]
    if want != got:
        raise VerifyError("decompose", f"decomposition of '{node.op}' gives ({', '.join(map(str, got))}) but the op "
                          f"produces ({', '.join(map(str, want))})")


def decompose(graph: Graph, options=None) -> Graph:
    blacklist = set(getattr(options, "decompose_blacklist", ()) or ())
    if not any(get(n.op).decomposition is not None and n.op not in blacklist for n in graph.nodes):
        return graph
    out = Graph(graph.name)
    vmap: dict[Value, Value] = {v: out.add_input(v.type) for v in graph.inputs}
    for node in graph.nodes:
        schema = get(node.op)
        operands = [vmap[v] for v in node.inputs]
        if schema.decomposition is not None and node.op not in blacklist:
            sub = schema.decomposition(NodeContext(node.op, [v.type for v in node.inputs], node.attrs))
            sub = decompose(sub, options)  # composites may decompose into other composites
            results = inline_graph(out, sub, operands)
            check_decomp_outputs(node, results)
        else:
            results = out.add_node(node.op, operands, node.attrs).outputs
        vmap.update(zip(node.outputs, results))
    for v in graph.outputs:
        out.mark_output(vmap[v])
    if getattr(options, "only_primitives", False):
        left = sorted({n.op for n in out.nodes if get(n.op).decomposition is not None})
        if left:
            raise VerifyError("decompose", f"composite ops remain after decomposition: {', '.join(left)}")
    return out
