"""The single shared graph copier (ARCH-060 ②: runtime and autodiff use this one implementation)."""
from __future__ import annotations

from typing import Callable, Sequence

from .graph import Graph, Node, Value


def copy_nodes(target: Graph, nodes: Sequence[Node], value_map: dict[Value, Value]) -> None:
    """Append copies of `nodes` to `target`, reading operands through `value_map` and extending it.

    Types are copied, not re-inferred: the source graph already verified them, and re-running
    every shape rule would make cloning large derived graphs needlessly slow.
    """
    for node in nodes:
        copy = Node(node.op, [value_map[v] for v in node.inputs], node.attrs, target)
        copy.outputs = [Value(v.type, copy, v.index, target) for v in node.outputs]
        target.nodes.append(copy)
        for old, new in zip(node.outputs, copy.outputs):
            value_map[old] = new


def clone_graph(graph: Graph, value_map: dict[Value, Value] | None = None) -> Graph:
    """A structurally identical copy of `graph`; fills `value_map` (source value -> copy) when given."""
    value_map = {} if value_map is None else value_map
    copy = Graph(graph.name)
    for v in graph.inputs:
        value_map[v] = copy.add_input(v.type)
    copy_nodes(copy, graph.nodes, value_map)
    for v in graph.outputs:
        copy.mark_output(value_map[v])
    return copy


def inline_graph(target: Graph, source: Graph, arguments: Sequence[Value]) -> list[Value]:
    """Copy `source`'s nodes into `target` with its inputs bound to `arguments`; return its outputs there."""
    if len(arguments) != len(source.inputs):
        raise ValueError(f"inline_graph: {source.name} takes {len(source.inputs)} inputs, got {len(arguments)}")
    value_map = dict(zip(source.inputs, arguments))
    copy_nodes(target, source.nodes, value_map)
    return [value_map[v] for v in source.outputs]


def expand_nodes(graph: Graph, expansion: Callable[[Node], "Graph | None"],
                 check: Callable[[Node, list[Value]], None] | None = None) -> Graph:
    """A copy of `graph` in which each node that `expansion` maps to a graph is replaced by that
    graph inlined on the node's operands (`check(node, results)` then runs on its results); other
    nodes are copied (the `decompose` stage)."""
    out = Graph(graph.name)
    value_map: dict[Value, Value] = {v: out.add_input(v.type) for v in graph.inputs}
    for node in graph.nodes:
        sub = expansion(node)
        if sub is None:
            copy_nodes(out, [node], value_map)
            continue
        results = inline_graph(out, sub, [value_map[v] for v in node.inputs])
        if check is not None:
            check(node, results)
        value_map.update(zip(node.outputs, results))
    for v in graph.outputs:
        out.mark_output(value_map[v])
    return out
