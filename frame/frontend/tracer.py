"""Tracing user functions into graphs: example arguments, pytrees of inputs and outputs, `trace`.

The tracer itself (`Tracer`, the trace stack, `bind`) is the tracing core, `frame.tracing`.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..errors import TraceError
from ..ir.clone import inline_graph
from ..ir.graph import Graph
from ..ir.types import TensorType, canonical_dtype
# bind and is_tracing are re-exported: code above the frontend reaches the tracer through this module.
from ..tracing import TraceFrame, Tracer, active, bind, current_frame, is_tracing, is_weak_scalar, lift  # noqa: F401
from .pytree import tree_flatten, tree_unflatten


class ShapeDtype:
    """An abstract example argument for tracing: only a shape and a dtype (like `jax.ShapeDtypeStruct`)."""

    def __init__(self, shape, dtype="float32"):
        self.shape, self.dtype = tuple(shape), canonical_dtype(dtype)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __eq__(self, other):
        return isinstance(other, ShapeDtype) and (self.shape, self.dtype) == (other.shape, other.dtype)

    def __hash__(self):
        return hash((self.shape, self.dtype))

    def __repr__(self):
        return f"ShapeDtype({self.shape}, {self.dtype!r})"


def example_type(leaf) -> TensorType:
    """The input type a leaf of an example argument stands for."""
    if isinstance(leaf, Tracer):
        return leaf.type
    if isinstance(leaf, ShapeDtype):
        return TensorType(leaf.shape, leaf.dtype)
    if isinstance(leaf, TensorType):
        return leaf
    if isinstance(leaf, (np.ndarray, np.generic, bool, int, float)):
        return TensorType.of(leaf)
    raise TraceError(f"cannot trace an argument of type {type(leaf).__name__}: use numpy arrays, Python scalars, "
                     "frame.ShapeDtype or nested lists/tuples/dicts of those (a class of your own is a leaf unless "
                     "registered with frame.tree_util.register_dataclass or register_pytree_node)")


class TraceResult:
    """What tracing produced: the graph, the output pytree structure and the outer tracers captured."""

    def __init__(self, graph: Graph, in_tree, out_tree, captures: list[Tracer], aux=None):
        self.graph, self.in_tree, self.out_tree, self.captures, self.aux = graph, in_tree, out_tree, captures, aux


def trace_function(fn, args: tuple, name: str | None = None, kwargs: dict | None = None) -> TraceResult:
    """Trace `fn(*args)` in a new frame. Graph inputs: flattened leaves of args, then captures."""
    leaves, in_tree = tree_flatten(args)
    graph = Graph(name or getattr(fn, "__name__", "fn").replace("<", "").replace(">", ""))
    frame = TraceFrame(graph, current_frame())
    # Python numbers trace as weak values: they take their partners' dtype, as the numbers would.
    inputs = [Tracer(graph.add_input(example_type(leaf)), frame, is_weak_scalar(leaf)) for leaf in leaves]
    with active(frame):
        out = fn(*tree_unflatten(in_tree, inputs), **(kwargs or {}))
        out_leaves, out_tree = tree_flatten(out)
        for leaf in out_leaves:
            graph.mark_output(lift(leaf, frame))
    return TraceResult(graph, in_tree, out_tree, frame.captures)


def trace(fn, *example_args, name: str | None = None) -> Graph:
    """Trace `fn` on example arguments into a `Graph`.

    Example arguments are numpy arrays, Python scalars, `frame.ShapeDtype(shape, dtype)`, or
    nested lists/tuples/dicts of those. Graph inputs are the flattened leaves in order; outputs
    are the flattened leaves of the result. Closed-over numpy arrays become `constant` nodes.
    """
    return trace_function(fn, example_args, name).graph


def inline_into_current(graph: Graph, operands: Sequence) -> list:
    """Inline `graph` into the innermost trace with its inputs bound to `operands`; return tracers."""
    frame = current_frame()
    values = [lift(x, frame) for x in operands]
    return [Tracer(v, frame) for v in inline_graph(frame.graph, graph, values)]
