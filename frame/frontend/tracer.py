"""Tracing Python functions into graphs.

A `Tracer` stands for a `Value` of the graph being traced. Ops called on tracers append nodes
(`bind`); ops called on plain numpy data run their kernel at once, so `frame.numpy` also works
eagerly. Traces nest: a transform such as `frame.grad` traces its function in a child frame.
A tracer of an enclosing frame used inside a child frame is *captured*: it becomes an extra
input of the child graph, and when the child's (derived) graph is inlined back, the capture is
bound to the outer value again. That is what lets `grad(grad(f))` and closures over outer
tracers work without any tape (ARCH-067).

The stack of active traces is per thread (a `contextvars.ContextVar`), so several threads can
trace at once; a tracer is only usable in the thread (context) whose trace created it.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Iterator, Sequence

import numpy as np

from ..errors import FrameError, ShapeError, TraceError
from ..ir.graph import Graph, Value
from ..ir.types import TensorType, canonical_dtype
from ..ops.schema import NodeContext, get
from .pytree import tree_flatten, tree_unflatten


class ShapeDtype:
    """An abstract example argument for tracing: only a shape and a dtype (like `jax.ShapeDtypeStruct`)."""

    def __init__(self, shape, dtype="float32"):
        self.shape, self.dtype = tuple(shape), canonical_dtype(dtype)

    def __repr__(self):
        return f"ShapeDtype({self.shape}, {self.dtype!r})"


class TraceFrame:
    """One level of tracing: the graph being built, its parent, and the outer tracers it captured."""

    def __init__(self, graph: Graph, parent: "TraceFrame | None"):
        self.graph, self.parent = graph, parent
        self.captures: list[Tracer] = []          # outer tracers, in the order of the extra inputs
        self._captured: dict[int, Value] = {}     # id(outer Value) -> inner input Value
        self._constants: dict[int, tuple[Any, Value]] = {}

    def capture(self, outer: "Tracer") -> Value:
        key = id(outer.value)
        if key not in self._captured:
            self._captured[key] = self.graph.add_input(outer.value.type)
            self.captures.append(outer)
        return self._captured[key]

    def constant(self, array: np.ndarray) -> Value:
        hit = self._constants.get(id(array))
        if hit is not None and hit[0] is array:
            return hit[1]
        value = self.graph.add_node("constant", [], {"value": array}).output
        self._constants[id(array)] = (array, value)  # keep `array` alive so its id stays unique
        return value


# The active traces of this thread/context, innermost last. An immutable tuple, so a context
# never sees another's pushes (a mutable default would be shared by every thread).
_TRACE_STACK: ContextVar[tuple[TraceFrame, ...]] = ContextVar("frame_trace_stack", default=())


def trace_stack() -> tuple[TraceFrame, ...]:
    """The traces active in the calling thread, outermost first."""
    return _TRACE_STACK.get()


def current_frame() -> TraceFrame | None:
    stack = _TRACE_STACK.get()
    return stack[-1] if stack else None


def is_tracing() -> bool:
    return bool(_TRACE_STACK.get())


@contextmanager
def _active(frame: TraceFrame) -> Iterator[TraceFrame]:
    """Make `frame` the innermost trace of this thread while the block runs."""
    token = _TRACE_STACK.set(_TRACE_STACK.get() + (frame,))
    try:
        yield frame
    finally:
        _TRACE_STACK.reset(token)


COMPARISON_HINT = (
    "comparison operators (==, !=, <, <=, >, >=) are not supported on traced values yet (frame has no "
    "comparison ops), and Python control flow cannot depend on traced values. Build masks with numpy "
    "outside the traced function and pass them in as arrays; use `is` to test whether two tracers are "
    "the same object.")


def comparison_error(symbol: str, what) -> TraceError:
    """The error for `a <symbol> b` on traced values (`what` describes the traced operand)."""
    return TraceError(f"'{symbol}' on {what}: {COMPARISON_HINT}")


def _comparison(symbol: str):
    def compare(self, other):
        raise comparison_error(symbol, f"a traced {self.type}")
    compare.__name__ = f"comparison {symbol}"
    return compare


class Tracer:
    """A traced value. Supports the numpy operators; Python control flow on it raises `TraceError`."""

    __slots__ = ("value", "frame")
    __array_priority__ = 1000

    def __init__(self, value: Value, frame: TraceFrame):
        self.value, self.frame = value, frame

    # -- static information
    @property
    def type(self) -> TensorType:
        return self.value.type

    @property
    def shape(self) -> tuple[int, ...]:
        return self.value.type.shape

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(self.value.type.dtype)

    @property
    def ndim(self) -> int:
        return self.value.type.rank

    @property
    def size(self) -> int:
        return self.value.type.size

    def __len__(self):
        if not self.shape:
            raise TraceError("len() of a rank-0 traced value")
        return self.shape[0]

    def __repr__(self):
        return f"Tracer({self.value.type})"

    # -- no concrete values while tracing
    def _concrete(self, what: str):
        raise TraceError(
            f"{what} needs the concrete value of a traced {self.type}, which does not exist while tracing: "
            "Python control flow cannot depend on traced values. Compute both branches and combine them "
            "with arithmetic, or pass the value as a static Python number.")

    def __bool__(self):
        self._concrete("bool()/if/while")

    def __float__(self):
        self._concrete("float()")

    def __int__(self):
        self._concrete("int()")

    def __index__(self):
        self._concrete("using it as an index")

    # Comparisons raise rather than fall back to identity (a silent False made masks zero).
    __eq__, __ne__ = _comparison("=="), _comparison("!=")
    __lt__, __le__, __gt__, __ge__ = _comparison("<"), _comparison("<="), _comparison(">"), _comparison(">=")
    __hash__ = object.__hash__  # identity: tracers stay usable as dict keys and set members

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """numpy ufuncs on tracers (`ndarray + tracer`, `np.sin(tracer)`) map to frame ops where one exists."""
        from .numpy import apply_numpy_ufunc
        return apply_numpy_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        """numpy functions on tracers (`np.sum(tracer)`) run frame.numpy's function of the same name."""
        from .numpy import apply_numpy_function
        return apply_numpy_function(func, args, kwargs)

    def __array__(self, *args, **kwargs):
        raise TraceError(f"numpy function called on a traced {self.type}: use frame.numpy (fnp) inside traced code")

    def __iter__(self):
        if not self.shape:
            raise TraceError("iteration over a rank-0 traced value")
        return (self[i] for i in range(self.shape[0]))

    # -- operators (defined in frame.frontend.numpy, attached there to avoid an import cycle)


def _is_weak_scalar(x) -> bool:
    """Python numbers are weakly typed (NEP 50, as in numpy 2 and JAX); numpy scalars are not."""
    return isinstance(x, (bool, int, float)) and not isinstance(x, np.generic)  # np.float64 subclasses float


def _weak_dtype(x, others: Sequence) -> str:
    """The dtype a Python number takes next to the tensor operands: numpy 2's rule (NEP 50).

    A Python number adopts the tensor's dtype when its kind fits (bool < int < float): `x * 2.0`
    stays float32. Otherwise it gets numpy's default of its own kind, as numpy computes it: an int
    next to a bool tensor is int64, a float next to an int or bool tensor float64 (and since frame
    does not promote, the op then names both dtypes instead of computing different numbers).
    """
    kind = 0 if isinstance(x, bool) else 1 if isinstance(x, int) else 2
    for o in others:
        if isinstance(o, (Tracer, np.ndarray)):
            dt = o.value.type.dtype if isinstance(o, Tracer) else canonical_dtype(o.dtype)
            tensor_kind = 0 if dt == "bool" else 2 if dt.startswith("float") else 1
            return dt if kind <= tensor_kind else ("int64", "float64")[kind - 1]
    return canonical_dtype(np.asarray(x).dtype)


def _scalar_array(x, dtype: str | None) -> np.ndarray:
    try:
        return np.asarray(x, dtype=dtype)
    except OverflowError:
        raise ShapeError(f"the Python number {x!r} does not fit the operand dtype {dtype}") from None


def lift(x, frame: TraceFrame, dtype: str | None = None) -> Value:
    """The `Value` in `frame` that stands for `x` (a tracer, numpy array or Python scalar)."""
    if isinstance(x, Tracer):
        if x.frame is frame:
            return x.value
        if not any(f is x.frame for f in _TRACE_STACK.get()):
            raise TraceError(f"a tracer ({x.type}) leaked out of a finished trace, or belongs to a trace running in "
                             "another thread: it cannot be used here. Return values from traced functions instead "
                             "of storing tracers.")
        return frame.capture(x)
    if isinstance(x, np.ndarray):
        return frame.constant(x)
    if _is_weak_scalar(x) or isinstance(x, np.generic):
        return frame.graph.add_node("constant", [], {"value": _scalar_array(x, dtype)}).output
    raise TraceError(f"cannot use a {type(x).__name__} as an operand in traced code")


def _as_array(x, dtype: str | None = None) -> np.ndarray:
    if isinstance(x, np.ndarray):
        return x
    if _is_weak_scalar(x) or isinstance(x, np.generic):
        return _scalar_array(x, dtype)
    try:
        return np.asarray(x)
    except Exception:
        raise TraceError(f"cannot use a {type(x).__name__} as an operand") from None


def bind(op: str, *operands, **attrs):
    """Apply `op` to operands: add a node when any operand is traced, otherwise run its kernel now."""
    schema = get(op)
    weak = [(_weak_dtype(x, operands) if _is_weak_scalar(x) else None) for x in operands]
    traced = any(isinstance(x, Tracer) for x in operands)
    if traced:
        frame = current_frame()
        if frame is None:
            raise TraceError(f"op '{op}' got a tracer outside of any trace: the tracer leaked out of its finished "
                             "trace, or belongs to a trace running in another thread")
        values = [lift(x, frame, dt) for x, dt in zip(operands, weak)]
        node = frame.graph.add_node(op, values, attrs)
        outs = [Tracer(v, frame) for v in node.outputs]
    else:
        arrays = [_as_array(x, dt) for x, dt in zip(operands, weak)]
        try:
            types = [TensorType.of(a) for a in arrays]
        except ShapeError as e:
            raise ShapeError(f"op '{op}': {e}") from None
        ctx = NodeContext(op, types, dict(attrs))
        schema.check_attrs(ctx.attrs)
        out_types = schema.shape_infer(ctx)
        result = schema.kernel(*arrays, **attrs)
        outs = list(result) if len(out_types) != 1 else [result]
        outs = [np.asarray(o, dtype=t.dtype) for o, t in zip(outs, out_types)]
    if len(outs) == 1:
        return outs[0]
    return tuple(outs) if outs else None


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
                     "frame.ShapeDtype or nested lists/tuples/dicts of those")


class TraceResult:
    """What tracing produced: the graph, the output pytree structure and the outer tracers captured."""

    def __init__(self, graph: Graph, in_tree, out_tree, captures: list[Tracer], aux=None):
        self.graph, self.in_tree, self.out_tree, self.captures, self.aux = graph, in_tree, out_tree, captures, aux


def trace_function(fn, args: tuple, name: str | None = None, kwargs: dict | None = None) -> TraceResult:
    """Trace `fn(*args)` in a new frame. Graph inputs: flattened leaves of args, then captures."""
    leaves, in_tree = tree_flatten(args)
    graph = Graph(name or getattr(fn, "__name__", "fn").replace("<", "").replace(">", ""))
    frame = TraceFrame(graph, current_frame())
    inputs = [Tracer(graph.add_input(example_type(leaf)), frame) for leaf in leaves]
    with _active(frame):
        out = fn(*tree_unflatten(in_tree, inputs), **(kwargs or {}))
        out_leaves, out_tree = tree_flatten(out)
        for leaf in out_leaves:
            graph.mark_output(lift(leaf, frame))
    return TraceResult(graph, in_tree, out_tree, frame.captures)


def trace_rule(graph: Graph, body, *value_lists, zero_types=None) -> list[Value]:
    """Run `body` over tracers for the given input values of `graph`; mark and return its outputs.

    Used to build gradient micro-graphs and decompositions. A `None` result becomes a zero
    constant of `zero_types[i]`. Rules must be self-contained: capturing outer tracers is an error.
    """
    frame = TraceFrame(graph, None)
    with _active(frame):
        results = body(*[[Tracer(v, frame) for v in vs] for vs in value_lists])
        outs = []
        for i, r in enumerate(results):
            if r is None:
                t = zero_types[i]
                r = np.zeros(t.shape, dtype=t.dtype)
            outs.append(lift(r, frame))
    if frame.captures:
        raise FrameError(f"rule for graph '{graph.name}' captured outer traced values; rules must be self-contained")
    for v in outs:
        graph.mark_output(v)
    return outs


def trace(fn, *example_args, name: str | None = None) -> Graph:
    """Trace `fn` on example arguments into a `Graph`.

    Example arguments are numpy arrays, Python scalars, `frame.ShapeDtype(shape, dtype)`, or
    nested lists/tuples/dicts of those. Graph inputs are the flattened leaves in order; outputs
    are the flattened leaves of the result. Closed-over numpy arrays become `constant` nodes.
    """
    return trace_function(fn, example_args, name).graph


def inline_into_current(graph: Graph, operands: Sequence) -> list:
    """Inline `graph` into the innermost trace with its inputs bound to `operands`; return tracers."""
    from ..ir.clone import inline_graph

    frame = current_frame()
    values = [lift(x, frame) for x in operands]
    return [Tracer(v, frame) for v in inline_graph(frame.graph, graph, values)]
