"""`frame.numpy`: frame's ops under numpy names. They trace on tracers and run eagerly on numpy data.

Functions that are one op applied to its operands (`add`, `exp`, `matmul`, `mse_loss`, `fft.rfft`,
...) are generated from the registry's `frontend` facts, with the op's doc as docstring; those
that normalise their arguments (axes, shapes, indices, exponents) are written here. When this
module loads it registers its functions with the tracing core, which routes `Tracer` operators,
numpy ufuncs and numpy functions on tracers to them.
"""
from __future__ import annotations

import builtins
import inspect
import math
import operator
from types import SimpleNamespace

import numpy as _np

from ..errors import ShapeError, TraceError
from ..ir.types import canonical_dtype
from ..ops import all_ops
from ..tracing import Tracer, attach_frontend, bind

pi = math.pi
e = math.e
float32, float64, int64 = _np.float32, _np.float64, _np.int64
ndarray = _np.ndarray

# The hand-written names; the generated ones are appended below.
__all__ = ["pi", "e", "float32", "float64", "int64", "power", "sum", "mean", "reshape", "transpose", "swapaxes",
           "broadcast_to", "concatenate", "expand_dims", "squeeze", "slice_axes", "getitem", "debug_print", "asarray",
           "zeros_like", "ones_like", "fft", "softmax", "log_softmax", "layer_norm"]


def _shape(x) -> tuple[int, ...]:
    if isinstance(x, Tracer):
        return x.shape
    try:
        return _np.shape(x)
    except ValueError:  # a ragged nested list
        raise TraceError(f"cannot use a ragged {type(x).__name__} as an array operand") from None


def _int(value, op: str, what: str) -> int:
    """`value` as an int, by numpy's rule (anything with `__index__`; not floats or strings)."""
    try:
        return operator.index(value)
    except TypeError:
        raise ShapeError(f"op '{op}': {what} must be an integer, got {type(value).__name__} {value!r}") from None


def _ints(values, op: str, what: str) -> tuple[int, ...]:
    """An int or a sequence of ints (a shape, axes, a permutation) as a tuple."""
    if isinstance(values, (list, tuple)):
        return tuple(_int(v, op, what) for v in values)
    return (_int(values, op, what),)


def _ndim(x) -> int:
    return len(_shape(x))


# -- elementwise -------------------------------------------------------------------------------
def power(x, p):
    """`x ** p` for a Python-number exponent `p` (a traced exponent is not supported by the `pow` op).

    A numpy scalar or 0-d array exponent must have `x`'s dtype: numpy would widen the result otherwise.
    """
    if isinstance(p, Tracer) or isinstance(p, _np.ndarray) and p.ndim > 0:
        raise TraceError("fnp.power: the exponent must be a Python number; for a traced exponent use fnp.exp(p * fnp.log(x))")
    if isinstance(p, (_np.generic, _np.ndarray)):
        if _np.dtype(p.dtype) != getattr(x, "dtype", None):
            raise ShapeError(f"op 'pow': the exponent's dtype {p.dtype} differs from the base's "
                             f"{getattr(x, 'dtype', type(x).__name__)}; frame does not promote")
    elif isinstance(p, bool) or not isinstance(p, (int, float)):
        raise ShapeError(f"op 'pow': the exponent must be a number, got {type(p).__name__} {p!r}")
    return bind("pow", x, exponent=float(p))


# -- reductions --------------------------------------------------------------------------------
def _axes(axis, rank: int, op: str) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(rank))
    if isinstance(axis, list):  # numpy's rule: an int or a tuple of ints
        raise ShapeError(f"op '{op}': axis must be an int or a tuple of ints, got a list {axis}")
    axes = _ints(axis, op, "axis")
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise ShapeError(f"op '{op}': axis {a} is out of range for rank {rank}")
        out.append(a % rank)
    if len(set(out)) != len(out):
        raise ShapeError(f"op '{op}': repeated axis in {axes}")
    return tuple(sorted(out))


def _axis(axis, rank: int, op: str) -> int:
    """One axis (an int, by numpy's rule) normalised to [0, rank)."""
    a = _int(axis, op, "axis")
    if not -rank <= a < rank:
        raise ShapeError(f"op '{op}': axis {a} is out of range for rank {rank}")
    return a % rank


def sum(x, axis=None, keepdims: bool = False):  # noqa: A001 - numpy name
    return bind("sum", x, axes=_axes(axis, _ndim(x), "sum"), keepdims=bool(keepdims))


def mean(x, axis=None, keepdims: bool = False):
    return bind("mean", x, axes=_axes(axis, _ndim(x), "mean"), keepdims=bool(keepdims))


# -- shape ops ---------------------------------------------------------------------------------
def reshape(x, shape):
    shape = _ints(shape, "reshape", "the new shape")
    src = _shape(x)
    size = int(_np.prod(src, dtype=_np.int64))
    if shape.count(-1) > 1 or any(d < -1 for d in shape):
        raise ShapeError(f"op 'reshape': {shape} is not a shape (one -1 at most, other sizes >= 0)")
    if -1 in shape:
        known = int(_np.prod([d for d in shape if d != -1], dtype=_np.int64))
        if known == 0 or size % known:
            raise ShapeError(f"op 'reshape': cannot reshape {src} into {shape}")
        shape = tuple(size // known if d == -1 else d for d in shape)
    return bind("reshape", x, shape=shape)


def transpose(x, axes=None):
    rank = _ndim(x)
    perm = tuple(range(rank))[::-1] if axes is None else _ints(axes, "transpose", "axes")
    if sorted(a % rank if -rank <= a < rank else a for a in perm) != list(range(rank)):
        raise ShapeError(f"op 'transpose': axes {perm} are not a permutation of the {rank} axes of {_shape(x)}")
    return bind("transpose", x, perm=tuple(a % rank for a in perm))


def swapaxes(x, axis1: int, axis2: int):
    rank = _ndim(x)
    a, b = (_axis(axis, rank, "swapaxes") for axis in (axis1, axis2))
    perm = list(range(rank))
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(x, perm)


def broadcast_to(x, shape):
    return bind("broadcast_to", x, shape=_ints(shape, "broadcast_to", "the shape"))


def concatenate(xs, axis: int | None = 0):
    """numpy's `concatenate`; `axis=None` flattens every operand first."""
    if isinstance(xs, (Tracer, _np.ndarray)) or not hasattr(xs, "__iter__"):
        raise ShapeError(f"op 'concat': needs a sequence of arrays, got {type(xs).__name__}")
    xs = list(xs)
    if not xs:
        raise ShapeError("op 'concat': needs at least one operand")
    if axis is None:
        return bind("concat", *(reshape(x, (-1,)) for x in xs), axis=0)
    rank = _ndim(xs[0])
    if rank == 0:
        raise ShapeError("op 'concat': zero-dimensional operands cannot be concatenated")
    return bind("concat", *xs, axis=_axis(axis, rank, "concat"))


def expand_dims(x, axis: int):
    shape = list(_shape(x))
    axis = _axis(axis, len(shape) + 1, "expand_dims")
    shape.insert(axis, 1)
    return reshape(x, shape)


def squeeze(x, axis=None):
    shape = _shape(x)
    axes = [i for i, d in enumerate(shape) if d == 1] if axis is None else list(_axes(axis, len(shape), "squeeze"))
    for a in axes:
        if shape[a] != 1:
            raise ShapeError(f"op 'squeeze': axis {a} of {shape} has size {shape[a]}, not 1")
    return reshape(x, [d for i, d in enumerate(shape) if i not in axes])


def slice_axes(x, starts, stops, steps=None):
    """Basic slicing: `x[starts[i]:stops[i]:steps[i]]` along every axis (steps positive)."""
    steps = tuple(steps) if steps is not None else (1,) * len(starts)
    return bind("slice", x, starts=tuple(starts), stops=tuple(stops), steps=steps)


def getitem(x, index):
    """`x[index]` for basic indices: ints, slices with positive steps, `None` and `...`."""
    shape = _shape(x)
    index = index if isinstance(index, tuple) else (index,)
    if any(isinstance(i, (Tracer, _np.ndarray, list)) for i in index):
        raise TraceError("only basic indexing (ints, slices, None, ...) is supported on traced values")
    if builtins.sum(1 for i in index if i is Ellipsis) > 1:
        raise ShapeError(f"an index can only have a single ellipsis, got {index}")
    n_real = builtins.sum(1 for i in index if i is not None and i is not Ellipsis)
    if n_real > len(shape):
        raise ShapeError(f"too many indices ({n_real}) for a value of shape {shape}")
    if Ellipsis in index:
        k = index.index(Ellipsis)
        index = index[:k] + (slice(None),) * (len(shape) - n_real) + index[k + 1:]
    else:
        index = index + (slice(None),) * (len(shape) - n_real)
    starts, stops, steps, out_shape = [], [], [], []
    axis = 0
    for i in index:
        if i is None:
            out_shape.append(1)
            continue
        dim = shape[axis]
        if isinstance(i, slice):
            try:
                start, stop, step = slice(*(None if v is None else _int(v, "getitem", "a slice bound")
                                            for v in (i.start, i.stop, i.step))).indices(dim)
            except ValueError:  # a zero step
                raise ShapeError(f"slice {i} has step 0") from None
            if step <= 0:
                raise TraceError(f"slice {i} has a non-positive step; only positive steps are supported")
            n = len(range(start, stop, step))
            starts.append(start), stops.append(max(stop, start)), steps.append(step)
            out_shape.append(n)
        else:
            try:
                k = operator.index(i)
            except TypeError:
                raise ShapeError(f"only integers, slices, None and ... are valid indices, got "
                                 f"{type(i).__name__} {i!r}") from None
            if not -dim <= k < dim:
                raise ShapeError(f"index {k} is out of bounds for axis {axis} with size {dim}")
            k %= dim
            starts.append(k), stops.append(k + 1), steps.append(1)
        axis += 1
    y = x
    if (tuple(starts), tuple(steps)) != ((0,) * len(shape), (1,) * len(shape)) or tuple(stops) != tuple(shape):
        y = slice_axes(x, starts, stops, steps)
    if tuple(out_shape) != tuple(_shape(y)):
        y = reshape(y, out_shape)
    return y



# -- neural-network composites (frame.ops.nn) ----------------------------------------------------
def softmax(x, axis: int = -1):
    """`exp(x) / sum(exp(x))` along `axis` (stable: shifted by the max)."""
    return bind("softmax", x, axis=_axis(axis, _ndim(x), "softmax"))


def log_softmax(x, axis: int = -1):
    """`x - log(sum(exp(x)))` along `axis`, computed stably."""
    return bind("log_softmax", x, axis=_axis(axis, _ndim(x), "log_softmax"))


def layer_norm(x, axis=-1, eps: float = 1e-5):
    """`(x - mean) / sqrt(var + eps)` over `axis` (an int or a tuple); no affine parameters."""
    return bind("layer_norm", x, axes=_axes(axis, _ndim(x), "layer_norm"), eps=float(eps))


# -- side effects ------------------------------------------------------------------------------
def debug_print(fmt: str, x):
    """Print `fmt.format(value)` when the compiled graph runs (like `jax.debug.print`)."""
    if not isinstance(fmt, str):
        raise ShapeError(f"op 'debug_print': the format must be a str, got {type(fmt).__name__} {fmt!r}")
    bind("debug_print", x, fmt=fmt)


# -- constants ---------------------------------------------------------------------------------
def asarray(x, dtype=None):
    """`x` as an array: tracers pass through (a dtype change of a traced value is not supported yet)."""
    if dtype is not None:
        dtype = canonical_dtype(dtype)
    if isinstance(x, Tracer):
        if dtype is not None and dtype != x.type.dtype:
            raise TraceError(f"fnp.asarray: casting a traced {x.type} to {dtype} is not supported yet (no cast op)")
        return x
    try:
        a = _np.asarray(x, dtype=dtype)
    except (TypeError, ValueError, OverflowError) as e:
        raise ShapeError(f"fnp.asarray: cannot make a {dtype or 'numeric'} array of {type(x).__name__} {x!r} ({e})") from None
    canonical_dtype(a.dtype)
    return a


def _like_dtype(x) -> str:
    # callers take _shape(x) first, which already refuses ragged lists
    return x.type.dtype if isinstance(x, Tracer) else canonical_dtype(_np.asarray(x).dtype)


def zeros_like(x):
    return _np.zeros(_shape(x), dtype=_like_dtype(x))


def ones_like(x):
    return _np.ones(_shape(x), dtype=_like_dtype(x))


# -- fft -----------------------------------------------------------------------------------------
def irfft(spectrum, n: int | None = None):
    """Inverse of `rfft`: packed spectrum `(..., m, 2)` to a real signal `(..., n)` along the last axis.

    `n` defaults to `2*(m-1)` like `numpy.fft.irfft`; the spectrum must have exactly `n//2+1` bins.
    The imaginary parts of the DC and (even n) Nyquist bins are ignored, as numpy does.
    """
    try:
        shape = spectrum.shape if isinstance(spectrum, Tracer) else _np.shape(spectrum)
    except ValueError:  # a ragged list
        raise ShapeError(f"fnp.fft.irfft: cannot use a ragged {type(spectrum).__name__} as a spectrum") from None
    if n is None:
        if len(shape) < 2:
            raise ShapeError(f"fnp.fft.irfft: the packed spectrum needs shape (..., m, 2), got {tuple(shape)}")
        n = 2 * (shape[-2] - 1)
    if isinstance(n, bool) or not isinstance(n, (int, _np.integer)):
        raise ShapeError(f"fnp.fft.irfft: n must be an int, got {type(n).__name__} {n!r}")
    return bind("irfft", spectrum, n=int(n))


fft = SimpleNamespace(irfft=irfft)  # fft.rfft is generated below
del irfft  # frame.numpy has it under fft only, as numpy does


def _numpy_name(func) -> str:
    module = getattr(func, "__module__", None) or "numpy"
    return f"{module}.{func.__name__}"


def _numpy_counterparts() -> dict:
    """numpy's (non-ufunc) functions that frame.numpy implements under the same name."""
    table = {}
    for name in __all__:
        ours, theirs = globals().get(name), getattr(_np, name, None)
        if callable(ours) and callable(theirs) and not isinstance(theirs, _np.ufunc):
            table[theirs] = ours
    return table


def _is_default(value, default) -> bool:
    if value is default:
        return True
    # Only plain Python values are compared: `==` on an array or tracer is no yes/no answer.
    return type(value) in (bool, int, float, str) and type(value) is type(default) and value == default


def apply_numpy_function(func, args, kwargs):
    """`Tracer.__array_function__`: `np.f(...)` on traced values runs `frame.numpy.f` when it exists.

    numpy's arguments are bound to numpy's signature; after the array argument, each one must be
    a parameter of frame.numpy's function too (passed by name) or be left at numpy's default.
    """
    name = _numpy_name(func)
    ours = _COUNTERPARTS.get(func)
    if ours is None:
        raise TraceError(f"{name} is not supported on traced values; frame.numpy has no {func.__name__}")
    try:
        bound = inspect.signature(func).bind(*args, **kwargs).arguments
    except TypeError as e:
        raise TraceError(f"{name}: {e}") from None
    (first, array), *rest = bound.items()
    numpy_params, ours_params = inspect.signature(func).parameters, inspect.signature(ours).parameters
    passed, unsupported = {}, []
    for param, value in rest:
        if param in ours_params:
            passed[param] = value
        elif not _is_default(value, numpy_params[param].default):
            unsupported.append(param)
    if unsupported:
        supported = ", ".join(list(ours_params)[1:]) or "no other arguments"
        raise TraceError(f"{name} on traced values does not support the argument(s) {', '.join(unsupported)} "
                         f"(frame.numpy.{ours.__name__} takes {supported})")
    return ours(array, **passed)


# -- generated from the registry: one-op functions, frame.numpy's part of the Tracer -----------
def _op_function(schema, name: str):
    """`name(*operands)`: op `schema` applied to its operands, documented by the op's doc."""

    def function(*operands):
        return bind(schema.name, *operands)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = schema.doc
    params = ("x",) if schema.num_inputs == 1 else tuple("abc"[:schema.num_inputs or 0])
    function.__signature__ = inspect.Signature(
        [inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in params] if params else
        [inspect.Parameter("operands", inspect.Parameter.VAR_POSITIONAL)])
    return function


def _frontend_functions() -> dict:
    """Every `frontend` name of every op -> its function here ("fft.rfft" dotted), generating the missing ones."""
    functions = {}
    for schema in all_ops():
        for dotted in schema.frontend:
            space, _, name = dotted.rpartition(".")
            namespace = vars(fft) if space == "fft" else globals()
            if name not in namespace:
                namespace[name] = _op_function(schema, name)
                if not space:
                    __all__.append(name)
            functions[dotted] = namespace[name]
    return functions


def _rpow(x, base):
    if isinstance(base, Tracer):
        raise TraceError("a traced exponent is not supported by '**'; use fnp.exp(p * fnp.log(x))")
    return bind("exp", bind("mul", x, math.log(base)))  # fnp.exp(fnp.multiply(x, log(base)))


attach_frontend(_frontend_functions(), apply_numpy_function)
Tracer.__rpow__ = _rpow
Tracer.T = property(lambda self: transpose(self))
Tracer.reshape = lambda self, *shape: reshape(self, shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape)
Tracer.sum = lambda self, axis=None, keepdims=False: sum(self, axis, keepdims)
Tracer.mean = lambda self, axis=None, keepdims=False: mean(self, axis, keepdims)
Tracer.transpose = lambda self, *axes: transpose(self, axes if axes else None)
_COUNTERPARTS = _numpy_counterparts()
