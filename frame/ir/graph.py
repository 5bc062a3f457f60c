"""SSA graph IR: `Value`, `Node`, `Graph` (SPEC §3).

A graph owns an ordered list of inputs, nodes in topological order and an ordered list of
outputs. Nodes are appended through `Graph.add_node`, which runs the op's shape rule, so every
value's type is known the moment it exists.
"""
from __future__ import annotations

from typing import Any, Iterable, Sequence

import numpy as np

from ..errors import ShapeError
from .registry import NodeContext, get
from .types import Dim, TensorType, attr_is_symbolic, shape_symbols


class Value:
    """An SSA value: its `type`, the `node` that defines it (None for a graph input) and its output `index`."""

    __slots__ = ("type", "node", "index", "graph")

    def __init__(self, type: TensorType, node: "Node | None", index: int, graph: "Graph"):
        self.type, self.node, self.index, self.graph = type, node, index, graph

    @property
    def shape(self) -> tuple[int, ...]:
        return self.type.shape

    @property
    def dtype(self) -> str:
        return self.type.dtype

    def __repr__(self) -> str:
        where = f"{self.node.op}#{self.index}" if self.node is not None else f"input#{self.index}"
        return f"Value({self.type}, {where})"


class Node:
    """One operation: `op` name, operand `inputs`, immutable `attrs` and result `outputs`."""

    __slots__ = ("op", "inputs", "attrs", "outputs", "graph")

    def __init__(self, op: str, inputs: list[Value], attrs: dict[str, Any], graph: "Graph"):
        self.op, self.inputs, self.attrs, self.graph = op, inputs, attrs, graph
        self.outputs: list[Value] = []

    @property
    def output(self) -> Value:
        """The single result of a one-output node."""
        if len(self.outputs) != 1:
            raise ShapeError(f"op '{self.op}' has {len(self.outputs)} outputs, not 1")
        return self.outputs[0]

    def __repr__(self) -> str:
        return f"Node({self.op}, {len(self.inputs)} in, {len(self.outputs)} out)"


def freeze_attr(value):
    """Attrs are immutable: lists become tuples, numpy scalars become Python scalars, arrays are made read-only."""
    if isinstance(value, np.ndarray):
        if value.flags.writeable:
            value = value.copy()
            value.flags.writeable = False
        return value
    if isinstance(value, (list, tuple)):
        return tuple(freeze_attr(v) for v in value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


class Graph:
    """A function in SSA form. Build it with `add_input`, `add_node` and `mark_output`."""

    def __init__(self, name: str = "main"):
        self.name = name
        self.inputs: list[Value] = []
        self.nodes: list[Node] = []
        self.outputs: list[Value] = []

    def add_input(self, type: TensorType) -> Value:
        if not isinstance(type, TensorType):
            raise ShapeError(f"Graph.add_input expects a TensorType, got {type!r}")
        value = Value(type, None, len(self.inputs), self)
        self.inputs.append(value)
        return value

    def add_node(self, op: str, inputs: Sequence[Value], attrs: dict[str, Any] | None = None) -> Node:
        """Append a node; its output types come from the op's shape rule (which also validates operands)."""
        schema = get(op)
        inputs = list(inputs)
        for i, v in enumerate(inputs):
            if not isinstance(v, Value):
                raise ShapeError(f"op '{op}': operand {i} is {type(v).__name__}, not a Value")
        attrs = {k: freeze_attr(v) for k, v in (attrs or {}).items()}
        schema.check_attrs(attrs)
        try:
            out_types = schema.shape_infer(NodeContext(op, [v.type for v in inputs], attrs))
        except (ShapeError, TypeError) as e:
            raise symbolic_refusal(op, [v.type for v in inputs], attrs, e) from None
        node = Node(op, inputs, attrs, self)
        node.outputs = [Value(t, node, i, self) for i, t in enumerate(out_types)]
        self.nodes.append(node)
        return node

    def mark_output(self, value: Value) -> None:
        if not isinstance(value, Value):
            raise ShapeError(f"Graph.mark_output expects a Value, got {type(value).__name__}")
        self.outputs.append(value)

    # Convenience for building graphs by hand and in tests.
    def constant(self, value, dtype=None) -> Value:
        return self.add_node("constant", [], {"value": np.asarray(value, dtype=dtype)}).output

    def full(self, type: TensorType, value) -> Value:
        """A value of `type` filled with `value` (a scalar, or an array broadcasting to the type's shape):
        a constant, or for a symbolic shape (whose size is only known at a call) the value's constant
        broadcast to it."""
        if not type.is_symbolic:
            return self.add_node("constant", [], {"value": np.full(type.shape, value, type.dtype)}).output
        scalar = self.add_node("constant", [], {"value": np.asarray(value, dtype=type.dtype)}).output
        return self.add_node("broadcast_to", [scalar], {"shape": type.shape}).output

    def __str__(self) -> str:
        from .printer import print_graph

        return print_graph(self)

    def __repr__(self) -> str:
        return f"<Graph {self.name}: {len(self.inputs)} inputs, {len(self.nodes)} nodes, {len(self.outputs)} outputs>"

    def users(self) -> dict[Value, list[Node]]:
        """Map each value to the nodes that consume it (in order)."""
        out: dict[Value, list[Node]] = {}
        for node in self.nodes:
            for v in node.inputs:
                out.setdefault(v, []).append(node)
        return out


def symbolic_refusal(op: str, in_types, attrs: dict, error: Exception) -> Exception:
    """`error` from op `op`'s shape rule, reworded when symbolic dimensions are involved so that it names
    the op, the operands and the symbols (a rule that needs concrete sizes refuses a symbol this way)."""
    symbolic = [(i, t) for i, t in enumerate(in_types) if t.is_symbolic]
    symbols = sorted({s for _, t in symbolic for s in shape_symbols(t.shape)} |
                     {s for v in attrs.values() if attr_is_symbolic(v) for s in _attr_symbols(v)})
    if not symbols:
        return error
    if isinstance(error, ShapeError) and f"op '{op}'" in str(error):
        return error
    operands = ", ".join(f"operand {i}: {t}" for i, t in symbolic) or "its attributes"
    return ShapeError(f"op '{op}' cannot handle the symbolic dimension(s) {', '.join(symbols)} ({operands}): {error}")


def _attr_symbols(value):
    if isinstance(value, tuple):
        return [s for v in value for s in _attr_symbols(v)]
    return list(value.symbols) if isinstance(value, Dim) else []


def outputs_depending_on(graph: Graph, marked: Sequence[bool]) -> list[bool]:
    """Which outputs of `graph` depend on an input marked True (one forward sweep)."""
    reached = {v for v, m in zip(graph.inputs, marked) if m}
    for node in graph.nodes:
        if any(v in reached for v in node.inputs):
            reached.update(node.outputs)
    return [v in reached for v in graph.outputs]


def is_symbolic_graph(graph: Graph) -> bool:
    """Whether a graph input has a symbolic dimension (every symbolic value derives from one: constants
    are concrete)."""
    return any(v.type.is_symbolic for v in graph.inputs)


def iter_values(graph: Graph) -> Iterable[Value]:
    yield from graph.inputs
    for node in graph.nodes:
        yield from node.outputs
