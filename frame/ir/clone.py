"""The single shared graph copier (ARCH-060 ②: runtime and autodiff use this one implementation)."""
from __future__ import annotations

from typing import Sequence

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
