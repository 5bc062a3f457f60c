"""The forward-sweep rewriter shared by `canonicalize`, `fold` and `simplify`.

A pass is a rule `rule(rw, node, operands) -> list[Value] | None` applied to each node in
topological order. `operands` are the node's inputs already mapped into the new graph, so a
rule sees (and can match on) rewritten producers: one sweep reaches a fixed point for rules that
only look backwards. Returning None copies the node unchanged (no shape inference: the source
graph already verified its types). Each node is visited once, so a pass is linear in graph size.
"""
from __future__ import annotations

import weakref
from typing import Callable

import numpy as np

from ...ir.graph import Graph, Node, Value
from ...ir.registry import SIDE_EFFECT, get
from ...ir.types import TensorType

Rule = Callable[["Rewriter", Node, list[Value]], "list[Value] | None"]


class Rewriter:
    """Builds the rewritten graph: `emit` new nodes, make `constant`s, or `keep` a node as it is."""

    def __init__(self, graph: Graph):
        self.source = graph
        self.graph = Graph(graph.name)
        self.vmap: dict[Value, Value] = {v: self.graph.add_input(v.type) for v in graph.inputs}
        self.changed = False

    def emit(self, op: str, inputs: list[Value], attrs: dict | None = None) -> list[Value]:
        """Append a new node (its shape rule runs) and return its outputs."""
        return self.graph.add_node(op, inputs, attrs).outputs

    def constant(self, array: np.ndarray) -> Value:
        return self.graph.add_node("constant", [], {"value": array}).output

    def splat(self, value, type: TensorType) -> Value:
        """A constant of `type` with every element `value`, stored as a zero-stride view (no memory per element);
        for a symbolic type, a scalar constant broadcast to it (`Graph.full`)."""
        if type.is_symbolic:
            return self.graph.full(type, value)
        return self.constant(np.broadcast_to(np.asarray(value, dtype=type.dtype), type.shape))

    def keep(self, node: Node, operands: list[Value]) -> list[Value]:
        copy = Node(node.op, operands, node.attrs, self.graph)
        copy.outputs = [Value(v.type, copy, v.index, self.graph) for v in node.outputs]
        self.graph.nodes.append(copy)
        return copy.outputs

    def same_type_or_broadcast(self, v: Value, type: TensorType) -> Value:
        """`v` itself when it already has `type`, else `broadcast_to(v, type.shape)` (same elements)."""
        if v.type == type:
            return v
        return self.emit("broadcast_to", [v], {"shape": type.shape})[0]


def rewrite(graph: Graph, rule: Rule) -> Graph:
    """Apply `rule` to every node in one forward sweep; return `graph` itself when nothing changed."""
    rw = Rewriter(graph)
    vmap = rw.vmap
    for node in graph.nodes:
        operands = [vmap[v] for v in node.inputs]
        results = rule(rw, node, operands)
        if results is None:
            results = rw.keep(node, operands)
        else:
            rw.changed = True
        vmap.update(zip(node.outputs, results))
    if not rw.changed:
        return graph
    for v in graph.outputs:
        rw.graph.mark_output(vmap[v])
    return rw.graph


# -- facts shared by the passes ---------------------------------------------------------------------
def has_effects(node: Node) -> bool:
    """Whether `node` has side effects: its op has the SIDE_EFFECT trait, or one of its regions (the
    bodies of `cond`, `scan`, `while`) holds such a node. Passes never remove, merge or fold it."""
    if get(node.op).has(SIDE_EFFECT):
        return True
    return any(isinstance(v, Graph) and _region_has_effects(v) for v in node.attrs.values()) if node.attrs else False


def _region_has_effects(body: Graph) -> bool:
    try:
        hit = _EFFECTS.get(body)
    except TypeError:   # an unfrozen body is not hashable: no memo
        return any(has_effects(n) for n in body.nodes)
    if hit is None:
        hit = _EFFECTS[body] = any(has_effects(n) for n in body.nodes)
    return hit


_EFFECTS: "weakref.WeakKeyDictionary[Graph, bool]" = weakref.WeakKeyDictionary()


# -- constant facts shared by the passes -----------------------------------------------------------
def constant_value(v: Value) -> np.ndarray | None:
    """The array of a `constant` producer, or None."""
    node = v.node
    if node is not None and node.op == "constant":
        return node.attrs["value"]
    return None


# id(constant array) -> (weak reference to it, its splat element). Keyed by the array, which
# every copy of a constant node shares (attrs are immutable and copied by reference), and weak,
# so the memo keeps neither arrays nor graphs alive: keyed by node, it held every intermediate
# graph of the pipeline (a node refers to its graph) until 100,000 entries had accumulated.
_SPLATS: dict[int, tuple[weakref.ref, object]] = {}


def splat_value(v: Value):
    """The single element value of a constant whose elements are all equal (a Python scalar), or None.

    Memoised per constant array: zero-stride splats are recognised in O(1), others scanned once.
    """
    node = v.node
    if node is None or node.op != "constant":
        return None
    a = node.attrs["value"]
    key = id(a)
    hit = _SPLATS.get(key)
    if hit is not None and hit[0]() is a:
        return hit[1]
    if a.size == 0:
        result = None
    elif all(s == 0 for s in a.strides):
        result = a.flat[0].item()
    else:
        first = a.flat[0]
        result = first.item() if bool((a == first).all()) else None
    _SPLATS[key] = (weakref.ref(a, lambda _, key=key: _SPLATS.pop(key, None)), result)
    return result


def is_splat(v: Value, x) -> bool:
    """True when `v` is a constant whose every element equals `x` (NaN never matches)."""
    s = splat_value(v)
    return s is not None and s == x
