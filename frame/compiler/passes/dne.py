"""Stage `dne`: dead-node elimination. Keeps every node an output depends on, and side-effect ops."""
from __future__ import annotations

from ...ir.clone import copy_nodes
from ...ir.graph import Graph, Value
from ...ir.registry import SIDE_EFFECT, get


def dne(graph: Graph, options=None) -> Graph:
    live: set[Value] = set(graph.outputs)
    keep = []
    for node in reversed(graph.nodes):
        if get(node.op).has(SIDE_EFFECT) or any(v in live for v in node.outputs):
            keep.append(node)
            live.update(node.inputs)
    if len(keep) == len(graph.nodes):
        return graph
    keep.reverse()
    out = Graph(graph.name)
    vmap: dict[Value, Value] = {v: out.add_input(v.type) for v in graph.inputs}
    copy_nodes(out, keep, vmap)
    for v in graph.outputs:
        out.mark_output(vmap[v])
    return out
