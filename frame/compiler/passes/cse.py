"""Stage `cse`: common-subexpression elimination.

Two nodes with the same op, the same operands and equal attrs compute the same values; the
later one is dropped and its uses read the earlier one. Equal constants (same dtype, shape and
bytes; splats by their element) merge too. Side-effect ops (and region ops whose bodies hold one) are never merged;
region ops merge when their bodies print the same (attrs compare by text). One forward sweep
with a hash table: linear in the graph size.
"""
from __future__ import annotations

import hashlib

import numpy as np

from ...ir.graph import Graph, Node, Value
from ...ir.printer import format_attr
from .rewrite import has_effects, splat_value


def _constant_key(node: Node) -> tuple:
    a = node.attrs["value"]
    splat = splat_value(node.outputs[0])
    if splat is not None:
        return ("splat", a.dtype.str, a.shape, repr(splat))
    digest = hashlib.sha1(np.ascontiguousarray(a).tobytes()).hexdigest()
    return ("dense", a.dtype.str, a.shape, digest)


def _key(node: Node, operands: list[Value]) -> tuple:
    if node.op == "constant":
        return ("constant", _constant_key(node))
    attrs = tuple(sorted((k, format_attr(v)) for k, v in node.attrs.items())) if node.attrs else ()
    return node.op, tuple(map(id, operands)), attrs


def cse(graph: Graph, options=None) -> Graph:
    """Merge duplicate nodes; `graph` is not modified (returned as is when nothing merges)."""
    out = Graph(graph.name)
    vmap: dict[Value, Value] = {v: out.add_input(v.type) for v in graph.inputs}
    seen: dict[tuple, list[Value]] = {}
    merged = False
    for node in graph.nodes:
        operands = [vmap[v] for v in node.inputs]
        key = None if has_effects(node) else _key(node, operands)
        results = seen.get(key) if key is not None else None
        if results is None:
            copy = Node(node.op, operands, node.attrs, out)
            copy.outputs = [Value(v.type, copy, v.index, out) for v in node.outputs]
            out.nodes.append(copy)
            results = copy.outputs
            if key is not None:
                seen[key] = results
        else:
            merged = True
        vmap.update(zip(node.outputs, results))
    if not merged:
        return graph
    for v in graph.outputs:
        out.mark_output(vmap[v])
    return out
