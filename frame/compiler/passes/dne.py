"""Stage `dne`: dead-node elimination. Keeps every node an output depends on, and side-effect ops
(also a region op whose body has one: `has_effects`)."""
from __future__ import annotations

from ...ir.clone import copy_nodes
from ...ir.graph import Graph, Value
from .rewrite import has_effects


def dne(graph: Graph, options=None) -> Graph:
    live: set[Value] = set(graph.outputs)
    keep = []
    for node in reversed(graph.nodes):
        if has_effects(node) or any(v in live for v in node.outputs):
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
