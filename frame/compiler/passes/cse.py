"""Stage `cse`: common-subexpression elimination.

Two nodes with the same op, the same operands and equal attrs compute the same values; the
later one is dropped and its uses read the earlier one. Side-effect ops are never merged.
"""
from __future__ import annotations

from ...ir.graph import Graph, Value
from ...ir.printer import format_attr
from ...ops.schema import SIDE_EFFECT, get


def _key(node, vmap) -> tuple:
    attrs = tuple(sorted((k, format_attr(v) if not hasattr(v, "tobytes") else (v.dtype.str, v.shape, v.tobytes()))
                         for k, v in node.attrs.items()))
    return node.op, tuple(id(vmap[v]) for v in node.inputs), attrs


def cse(graph: Graph, options=None) -> Graph:
    out = Graph(graph.name)
    vmap: dict[Value, Value] = {v: out.add_input(v.type) for v in graph.inputs}
    seen: dict[tuple, list[Value]] = {}
    for node in graph.nodes:
        if get(node.op).has(SIDE_EFFECT):
            results = out.add_node(node.op, [vmap[v] for v in node.inputs], node.attrs).outputs
        else:
            key = _key(node, vmap)
            results = seen.get(key)
            if results is None:
                results = seen[key] = out.add_node(node.op, [vmap[v] for v in node.inputs], node.attrs).outputs
        vmap.update(zip(node.outputs, results))
    for v in graph.outputs:
        out.mark_output(vmap[v])
    return out
