"""The tracing core: `Tracer`, the per-thread trace stack, `bind`, and the tracing of op rules.

A `Tracer` stands for a `Value` of the graph being traced. Ops called on tracers append nodes
(`bind`); ops called on plain numpy data run their kernel at once, so `frame.numpy` also works
eagerly. Traces nest: a transform such as `frame.grad` traces its function in a child frame.
A tracer of an enclosing frame used inside a child frame is *captured*: it becomes an extra
input of the child graph, and when the child's (derived) graph is inlined back, the capture is
bound to the outer value again. That is what lets `grad(grad(f))` and closures over outer
tracers work without any tape (ARCH-067).

The stack of active traces is per thread (a `contextvars.ContextVar`), so several threads can
trace at once; a tracer is only usable in the thread (context) whose trace created it.

This module sits below the op families (README's layering), whose rules run on tracers through
`bind`, `prim` and the `Tracer` operators, derived from the registry's `operators` and `ufuncs`
facts. frame.numpy, above, registers its functions here when it loads (`attach_frontend`): `x ** p`
gets `power`'s checks, `x[i]` `getitem`'s and `np.sum(tracer)` frame.numpy's `sum` that way.
"""
from __future__ import annotations

import functools
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from .errors import FrameError, GradientError, ShapeError, TraceError
from .ir.graph import Graph, Value
from .ir.types import DTYPES, Dim, TensorType
from .ir.printer import attrs_key
from .ir.registry import DecomposeFn, GradientFn, NodeContext, OpSchema, all_ops, find, get


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


def current_frame() -> TraceFrame | None:
    stack = _TRACE_STACK.get()
    return stack[-1] if stack else None


def is_tracing() -> bool:
    return bool(_TRACE_STACK.get())


@contextmanager
def active(frame: TraceFrame) -> Iterator[TraceFrame]:
    """Make `frame` the innermost trace of this thread while the block runs."""
    token = _TRACE_STACK.set(_TRACE_STACK.get() + (frame,))
    try:
        yield frame
    finally:
        _TRACE_STACK.reset(token)


class Tracer:
    """A traced value. Supports the numpy operators; Python control flow on it raises `TraceError`."""

    __slots__ = ("value", "frame", "weak")
    __array_priority__ = 1000

    def __init__(self, value: Value, frame: TraceFrame, weak: bool = False):
        # weak: it stands for a Python number (a function argument, or computed from those only),
        # so it takes its partner's dtype in mixed operations, as the number itself would (NEP 50).
        self.value, self.frame, self.weak = value, frame, weak

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

    # == and friends are the comparison ops (installed from the registry), so hashing stays by identity:
    # tracers remain usable as dict keys and set members.
    __hash__ = object.__hash__

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """numpy ufuncs on tracers (`ndarray + tracer`, `np.sin(tracer)`) map to the op claiming that ufunc."""
        return _apply_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        """numpy functions on tracers (`np.sum(tracer)`) run frame.numpy's function of the same name."""
        return _FRONTEND["array_function"](func, args, kwargs)

    def __array__(self, *args, **kwargs):
        raise TraceError(f"numpy function called on a traced {self.type}: use frame.numpy (fnp) inside traced code")

    def __setitem__(self, index, value):
        # Traced values are immutable, as JAX arrays are: an in-place write has no place in a pure graph.
        raise TraceError(f"traced values are immutable: `x[...] = v` on a traced {self.type} cannot be recorded; "
                         "write `x = x.at[index].set(v)` (or .add/.multiply/.min/.max), which returns the updated copy")

    def __iter__(self):
        if not self.shape:
            raise TraceError("iteration over a rank-0 traced value")
        return (self[i] for i in range(self.shape[0]))

    def __pos__(self):
        return self

    # The operators backed by ops are installed from the registry (`install_operators`).


def is_weak_scalar(x) -> bool:
    """Python numbers are weakly typed (NEP 50, as in numpy 2 and JAX); numpy scalars are not."""
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic)  # np.float64 is a float


def _dtype_or_kind(x):
    """What numpy's promotion sees of an operand: a dtype, or for weak values the Python type."""
    if isinstance(x, Tracer):
        return _WEAK_KIND[x.value.type.dtype] if x.weak else np.dtype(x.value.type.dtype)
    if is_weak_scalar(x):
        return type(x)
    if isinstance(x, np.ndarray):
        return x.dtype
    try:
        return np.asarray(x).dtype
    except Exception:  # not an array (a ragged list, an object): `lift`/`_as_array` name it
        return None


_WEAK_KIND = {"bool": bool, "int32": int, "int64": int, "float16": float, "float32": float, "float64": float,
              "complex64": complex, "complex128": complex}


def _weak_dtype(kind, others: Sequence) -> str:
    """The dtype a Python number of `kind` takes next to the tensor operands, by numpy 2's rule
    (NEP 50): the tensor's dtype when the kind fits (bool < int < float < complex), else numpy's
    default of its own kind."""
    rank = {bool: 0, int: 1, float: 2, complex: 3}
    for o in others:
        if not isinstance(o, type):
            dt = np.dtype(o)
            tensor_rank = 0 if dt.kind == "b" else 3 if dt.kind == "c" else 2 if dt.kind == "f" else 1
            return dt.name if rank[kind] <= tensor_rank else ("bool", "int64", "float64", "complex128")[rank[kind]]
    return ("bool", "int64", "float64", "complex128")[rank[kind]]


def _one_inexact_dtype(operands: Sequence) -> bool:
    """Whether the operands are strong tracers of one float or complex dtype, which numpy's resolution
    leaves as they are (it changes dtypes only when they differ, or for ints and bools)."""
    dtypes = {x.value.type.dtype if isinstance(x, Tracer) and not x.weak else None for x in operands}
    return len(dtypes) == 1 and next(iter(dtypes)) in _INEXACT


_INEXACT = frozenset({"float16", "float32", "float64", "complex64", "complex128"})


def operand_dtypes(schema: OpSchema, operands: Sequence) -> list[str | None]:
    """The dtype each operand must have for `schema` (None: a tensor left as it is).

    numpy's promotion rule, applied before the op: an op claiming a ufunc takes the dtypes that
    ufunc's own type resolution gives (`np.divide` of ints computes in float64, `np.add` of int32
    and float32 in float64, `x_f32 * 2.0` stays float32); an op with `promote` positions brings
    those to their `np.result_type`; `to_float` positions holding ints or bools compute in float64
    (numpy.linalg's rule). Python numbers (and weak tracers) are weak: they adopt their
    partners' dtype when its kind fits. Operands numpy refuses are left alone, for the op's shape
    rule to name them.
    """
    if not schema.to_float and _one_inexact_dtype(operands):
        return [None] * len(operands)   # the common case while tracing: nothing for numpy to promote
    kinds = [_dtype_or_kind(x) for x in operands]
    if any(k is None or not isinstance(k, type) and k.kind not in "biufc" for k in kinds):
        return [None] * len(operands)   # not numbers (strings, objects): the shape rule names them
    positions = schema.promote or (range(len(operands)) if schema.ufuncs else ())
    want: list = [None] * len(operands)
    ufunc = getattr(np, schema.ufuncs[0], None) if schema.ufuncs else None
    if isinstance(ufunc, np.ufunc) and ufunc.nin == len(operands) and ufunc.signature is None:
        # Only Python numbers (weak kinds): numpy computes them as arrays of their default dtypes
        # (np.not_equal(0, 0) is an int64 comparison; resolve_dtypes of two `int`s is an object loop).
        seen = kinds if any(not isinstance(k, type) for k in kinds) else [np.dtype(_weak_dtype(k, [])) for k in kinds]
        try:
            want = [d.name for d in ufunc.resolve_dtypes(tuple(seen) + (None,) * ufunc.nout)[:ufunc.nin]]
        except (TypeError, ValueError, np.exceptions.DTypePromotionError):
            pass
        lacking = sorted({w for w in want if w is not None and w not in DTYPES})
        if lacking:   # numpy's loop is for a dtype frame lacks (bool << bool, bool % bool: int8)
            raise ShapeError(f"op '{schema.name}': numpy computes operands of "
                             f"{', '.join(k.__name__ if isinstance(k, type) else str(k) for k in kinds)} in "
                             f"{', '.join(lacking)}, a dtype frame does not have")
    elif positions:
        try:
            common = np.result_type(*[kinds[i] if not isinstance(kinds[i], type) else kinds[i](0)
                                      for i in positions]).name
            want = [common if i in positions else None for i in range(len(operands))]
        except (TypeError, np.exceptions.DTypePromotionError):
            pass
    for i in schema.to_float:
        if i < len(kinds) and not isinstance(kinds[i], type) and kinds[i].kind in "biu":
            want[i] = "float64"
    tensors = [k for k in kinds if not isinstance(k, type)]
    # A weak operand outside the promoted positions (where's condition) keeps its own kind's dtype.
    return [w if w is not None or not isinstance(k, type) else
            _weak_dtype(k, [] if schema.promote and i not in schema.promote else tensors)
            for i, (w, k) in enumerate(zip(want, kinds))]


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
    if is_weak_scalar(x) or isinstance(x, np.generic):
        return frame.graph.add_node("constant", [], {"value": _scalar_array(x, dtype)}).output
    raise TraceError(f"cannot use a {type(x).__name__} as an operand in traced code")


def _as_array(x, dtype: str | None = None) -> np.ndarray:
    if isinstance(x, np.ndarray):
        return x
    if is_weak_scalar(x) or isinstance(x, np.generic):
        return _scalar_array(x, dtype)
    try:
        return np.asarray(x)
    except Exception:
        raise TraceError(f"cannot use a {type(x).__name__} as an operand") from None


def bind(op: str, *operands, **attrs):
    """Apply `op` to operands: add a node when any operand is traced, otherwise run its kernel now."""
    schema = get(op)
    dtypes = operand_dtypes(schema, operands)
    traced = any(isinstance(x, Tracer) for x in operands)
    if traced:
        frame = current_frame()
        if frame is None:
            raise TraceError(f"op '{op}' got a tracer outside of any trace: the tracer leaked out of its finished "
                             "trace, or belongs to a trace running in another thread")
        values = [lift(x, frame, dt) for x, dt in zip(operands, dtypes)]
        values = [v if dt is None or v.type.dtype == dt else frame.graph.add_node("convert", [v], {"dtype": dt}).output
                  for v, dt in zip(values, dtypes)]
        node = frame.graph.add_node(op, values, attrs)
        weak = all(is_weak_scalar(x) or isinstance(x, Tracer) and x.weak for x in operands)
        outs = [Tracer(v, frame, weak) for v in node.outputs]
    else:
        arrays = [_as_array(x, dt) for x, dt in zip(operands, dtypes)]
        arrays = [a if dt is None or a.dtype.name == dt else a.astype(dt) for a, dt in zip(arrays, dtypes)]
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


def trace_rule(graph: Graph, body, *value_lists, zero_types=None) -> list[Value]:
    """Run `body` over tracers for the given input values of `graph`; mark and return its outputs.

    Used to build gradient micro-graphs and decompositions. A `None` result becomes a zero
    constant of `zero_types[i]`. Rules must be self-contained: capturing outer tracers is an error.
    """
    frame = TraceFrame(graph, None)
    with active(frame):
        results = body(*[[Tracer(v, frame) for v in vs] for vs in value_lists])
        outs = []
        for i, r in enumerate(results):
            if r is None:
                t = zero_types[i]
                if t.is_symbolic:   # no constant has a symbolic shape: a broadcast zero stands for it
                    outs.append(graph.full(t, 0))
                    continue
                r = np.zeros(t.shape, dtype=t.dtype)
            outs.append(lift(r, frame))
    if frame.captures:
        raise FrameError(f"rule for graph '{graph.name}' captured outer traced values; rules must be self-contained")
    for v in outs:
        graph.mark_output(v)
    return outs


def full(t: TensorType, value):
    """An array of type `t` filled with `value` (a scalar or an array broadcasting to `t`'s shape), as
    `np.full`; for a symbolic `t` (only traced code meets one) a traced broadcast of the value in the
    innermost trace. Seeds of derivative transforms (a direction of ones, one-hot directions) use it."""
    if not t.is_symbolic:
        return np.full(t.shape, value, dtype=t.dtype)
    frame = current_frame()
    if frame is None:
        raise TraceError(f"an array of the symbolic type {t} exists only while tracing")
    return Tracer(frame.graph.full(t, value), frame)


def element_count(x, axes=None, dtype=None):
    """How many elements `x` has along `axes` (all by default), as a divisor for means: a Python int for
    concrete sizes, and for symbolic ones (frame.ir.types.Dim) a traced scalar of `dtype` (x's by
    default) computed at each call, `sum(broadcast_to(1, sizes))` (exact below 2**24 in float32), as
    Paddle's dynamic-shape mean reads its divisor from the shape at run time (seed 003 §6)."""
    shape = x.shape
    axes = tuple(range(len(shape))) if axes is None else tuple(axes)
    sizes = tuple(shape[a] for a in axes)
    if not any(isinstance(d, Dim) for d in sizes):
        return int(np.prod(sizes, dtype=np.int64))
    frame = current_frame()
    if frame is None or not isinstance(x, Tracer):
        raise TraceError(f"element_count of symbolic sizes {sizes} needs a traced array")
    dtype = dtype or x.value.type.dtype
    one = frame.graph.add_node("constant", [], {"value": np.asarray(1, dtype=dtype)}).output
    ones = frame.graph.add_node("broadcast_to", [one], {"shape": sizes}).output
    total = frame.graph.add_node("sum", [ones], {"axes": tuple(range(len(sizes))), "keepdims": False}).output
    return Tracer(total, frame)


class _Primitives:
    """`prim.<op>(*operands, **attrs)` is `bind("<op>", *operands, **attrs)`: every registered op under
    its own name, attributes as keywords, no argument normalisation. Rules use it (they sit below
    frame.numpy); `prim.sum(g, axes=(0,), keepdims=True)`."""

    def __getattr__(self, op: str):
        if find(op) is None:
            raise AttributeError(f"no op '{op}' is registered")
        return functools.partial(bind, op)


prim = _Primitives()


# ---------------------------------------------------------------------------------------------
# Operators and numpy dispatch, derived from the registry

# frame.numpy's functions by name and its numpy-function dispatcher, registered by frame.numpy when
# it loads (this module sits below it and cannot import it; `import frame` always loads it).
_FRONTEND: dict[str, Any] = {"functions": {}, "array_function": None, "ufuncs": {}}
_INSTALLED: set[str] = set()            # the Tracer operators install_operators set
_UFUNC_OPS: dict[str, OpSchema] = {}    # numpy ufunc name -> the op that claims it


def attach_frontend(functions: dict[str, Callable], array_function: Callable,
                    ufuncs: dict[str, Callable] | None = None) -> None:
    """Register frame.numpy: `functions` (frame.numpy name -> function, "fft.rfft" dotted) back
    the operators and ufuncs of the ops naming them in their `frontend` facts; `ufuncs` (numpy
    ufunc name -> function) the ufuncs no op claims, which frame.numpy composes (`np.modf`);
    `array_function` handles `Tracer.__array_function__`."""
    _FRONTEND.update(functions=dict(functions), array_function=array_function, ufuncs=dict(ufuncs or {}))


def _entry(schema: OpSchema, name: str) -> Callable:
    """What an operator or ufunc `name` of `schema` calls: frame.numpy's function for it (the op's
    frontend name equal to `name`, else its first one), so `**` gets `power`'s checks and `[]`
    `getitem`'s index handling; `bind` of the op when frame.numpy has none."""
    names = schema.frontend
    fn = _FRONTEND["functions"].get(name if name in names else names[0]) if names else None
    return fn or functools.partial(bind, schema.name)


_BINARY = {"add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor", "lshift",
           "rshift", "lt", "le", "gt", "ge", "eq", "ne"}
_OPERAND_TYPES = (Tracer, np.ndarray, np.generic, int, float, complex, bool, list, tuple)


def _defers(other, reflected: str) -> bool:
    """Whether a binary operator should return NotImplemented for `other`, as numpy's do: an
    object that opts out of numpy (`__array_ufunc__ = None`) or a foreign type defining the
    reflected operator gets its own turn (`x + q` calls `q.__radd__(x)`)."""
    if isinstance(other, _OPERAND_TYPES):
        return False
    return getattr(type(other), "__array_ufunc__", False) is None or hasattr(type(other), reflected)


def _operator(schema: OpSchema, dunder: str) -> Callable:
    forward = "__" + dunder[3:]
    if dunder.startswith("__r") and forward in schema.operators:   # reflected: `2 - x` is sub(2, x)
        name = forward.strip("_")

        def operator(self, other):
            if _defers(other, forward):
                return NotImplemented
            return _entry(schema, name)(other, self)
    elif dunder.strip("_") in _BINARY:
        name = dunder.strip("_")
        reflected = {"lt": "__gt__", "le": "__ge__", "gt": "__lt__", "ge": "__le__", "eq": "__eq__",
                     "ne": "__ne__"}.get(name, f"__r{name}__")

        def operator(self, other):
            if _defers(other, reflected):
                return NotImplemented
            return _entry(schema, name)(self, other)
    else:
        name = dunder.strip("_")

        def operator(self, *operands):
            return _entry(schema, name)(self, *operands)
    operator.__name__ = operator.__qualname__ = dunder
    return operator


def install_operators() -> None:
    """Give `Tracer` the operators, and numpy ufuncs on tracers the ops, that the registry's blocks
    claim (`operators`, `ufuncs`). Run by frame.ops once its families are registered; run it again
    after registering an op with operators later."""
    for dunder in _INSTALLED:
        delattr(Tracer, dunder)
    _INSTALLED.clear()
    _UFUNC_OPS.clear()
    for schema in all_ops():
        for dunder in schema.operators:
            setattr(Tracer, dunder, _operator(schema, dunder))
            _INSTALLED.add(dunder)
        _UFUNC_OPS.update(dict.fromkeys(schema.ufuncs, schema))


def _apply_ufunc(ufunc, method: str, inputs, kwargs):
    """`Tracer.__array_ufunc__`: a numpy ufunc call on traced operands, as the op claiming that ufunc."""
    name = f"numpy.{ufunc.__name__}"
    if method != "__call__":
        raise TraceError(f"{name}.{method} is not supported on traced values: use frame.numpy "
                         "(e.g. fnp.sum for numpy.add.reduce) inside traced code")
    schema = _UFUNC_OPS.get(ufunc.__name__)
    composed = _FRONTEND["ufuncs"].get(ufunc.__name__)
    if schema is None and composed is None:
        raise TraceError(f"{name} is not supported on traced values; frame.numpy has no {ufunc.__name__}")
    if kwargs:
        raise TraceError(f"{name} on traced values does not support the argument(s) {', '.join(sorted(kwargs))}")
    return (_entry(schema, ufunc.__name__) if schema is not None else composed)(*inputs)


# ---------------------------------------------------------------------------------------------
# Micro-graphs from Python rules

def _memoised(trace: Callable, rule: Callable) -> Callable:
    """`ctx -> trace(rule, ctx)`, traced once per (op, input types, attrs) and kept."""
    graphs: dict[tuple, Graph] = {}

    def micro_graph(ctx: NodeContext):
        key = (ctx.op, tuple(ctx.input_types), attrs_key(ctx.attrs))
        graph = graphs.get(key)
        if graph is None:
            graph = graphs[key] = trace(rule, ctx)
        return graph

    micro_graph.rule = rule
    return micro_graph


def traced_gradient(rule: Callable) -> GradientFn:
    """Turn `rule(ctx, xs, ys, gys) -> [gx or None, ...]` into a GradientFn returning a micro-graph.

    The micro-graph's inputs are `[x..., y..., gy...]` (all declared, used or not) and its outputs
    one gradient per forward input; `None` stands for a zero of that input's type. Micro-graphs
    are memoised per (op, input types, attrs): the rule is traced once per signature.
    """
    return _memoised(_trace_gradient, rule)


def _trace_gradient(rule, ctx: NodeContext) -> Graph:
    out_types = ctx.output_types
    graph = Graph(f"{ctx.op}_grad")
    xs = [graph.add_input(t) for t in ctx.input_types]
    ys = [graph.add_input(t) for t in out_types]
    gys = [graph.add_input(t) for t in out_types]

    def body(xs, ys, gys):
        gxs = rule(ctx, xs, ys, gys)
        if len(gxs) != len(xs):
            raise GradientError(f"gradient rule of '{ctx.op}' returned {len(gxs)} gradients for {len(xs)} inputs")
        return gxs

    outs = trace_rule(graph, body, xs, ys, gys, zero_types=ctx.input_types)
    for i, (v, t) in enumerate(zip(outs, ctx.input_types)):
        if v.type != t:
            raise GradientError(f"gradient rule of '{ctx.op}' gives input {i} a gradient of type {v.type}, expected {t}")
    return graph


def traced_jvp(rule: Callable) -> Callable:
    """Turn `rule(ctx, xs, ys, txs) -> [ty or None, ...]` into a forward-mode rule `(ctx, mask) -> micro-graph`.

    `mask[i]` says whether input i has a tangent; `txs[i]` is None where it has not (a zero). The
    micro-graph's inputs are `[x..., y..., tx for each masked input]` and its outputs one tangent
    per forward output, None standing for a zero of that output's type. Memoised per
    (op, input types, attrs, mask) like gradient micro-graphs.
    """
    graphs: dict[tuple, Graph] = {}

    def micro_graph(ctx: NodeContext, mask: tuple[bool, ...]):
        key = (ctx.op, tuple(ctx.input_types), attrs_key(ctx.attrs), tuple(mask))
        graph = graphs.get(key)
        if graph is None:
            graph = graphs[key] = _trace_jvp(rule, ctx, tuple(mask))
        return graph

    micro_graph.rule = rule
    return micro_graph


def _trace_jvp(rule, ctx: NodeContext, mask: tuple[bool, ...]) -> Graph:
    out_types = ctx.output_types
    graph = Graph(f"{ctx.op}_jvp")
    xs = [graph.add_input(t) for t in ctx.input_types]
    ys = [graph.add_input(t) for t in out_types]
    txs = [graph.add_input(t) for t, m in zip(ctx.input_types, mask) if m]

    def body(xs, ys, txs):
        it = iter(txs)
        tangents = [next(it) if m else None for m in mask]
        tys = rule(ctx, xs, ys, tangents)
        if len(tys) != len(ys):
            raise GradientError(f"forward rule of '{ctx.op}' returned {len(tys)} tangents for {len(ys)} outputs")
        return tys

    outs = trace_rule(graph, body, xs, ys, txs, zero_types=out_types)
    for i, (v, t) in enumerate(zip(outs, out_types)):
        if v.type.shape != t.shape or v.type.dtype != t.dtype:
            raise GradientError(f"forward rule of '{ctx.op}' gives output {i} a tangent of type {v.type}, expected {t}")
    return graph


def traced_decomposition(rule: Callable) -> DecomposeFn:
    """Turn `rule(ctx, *xs) -> y or [ys]` into a DecomposeFn returning a graph `[x...] -> [y...]`,
    memoised per (op, input types, attrs) like gradient micro-graphs."""
    return _memoised(_trace_decomposition, rule)


def _trace_decomposition(rule, ctx: NodeContext) -> Graph:
    graph = Graph(f"{ctx.op}_decomp")
    xs = [graph.add_input(t) for t in ctx.input_types]

    def body(xs):
        out = rule(ctx, *xs)
        return list(out) if isinstance(out, (list, tuple)) else [out]

    trace_rule(graph, body, xs)
    return graph
