"""frame.numpy's array creation: `zeros`/`ones`/`empty`/`full` (and `_like`), `arange`, `linspace`, `eye`,
`identity`, `array`/`asarray`.

Inside traced code, what does not depend on a traced value is a numpy constant (zeros, `arange`, `eye`,
`zeros_like` of a tracer: the shape is static), exactly as numpy makes it. Traced values enter only
through `full`'s fill value (broadcast), `linspace`'s end points, and the elements of `array`/`asarray`
(stacked into one traced value, in numpy's promoted dtype, cast with `convert`).
"""
from __future__ import annotations

import numpy as _np

from ..errors import ShapeError, TraceError
from ..ir.types import canonical_dtype
from ..tracing import Tracer, prim
from .args import _axis, _int, _ints, _shape

__all__ = ['asarray', 'array', 'zeros', 'ones', 'empty', 'full', 'zeros_like', 'ones_like', 'empty_like', 'full_like',
           'logspace', 'geomspace', 'tri', 'tril_indices', 'triu_indices', 'diag_indices', 'indices', 'arange', 'linspace', 'eye', 'identity']


def _dtype(dtype, default="float64") -> str:
    return default if dtype is None else canonical_dtype(dtype)


def _cast(x, dtype: str | None):
    """`x` in `dtype` (None: as it is): numpy's astype for arrays, the `convert` op for tracers."""
    if dtype is None or _np.dtype(x.dtype).name == dtype:
        return x
    return prim.convert(x, dtype=dtype) if isinstance(x, Tracer) else _np.asarray(x).astype(dtype)


def _static(name: str, **values) -> None:
    for what, v in values.items():
        if _has_tracer(v):
            raise TraceError(f"fnp.{name}: {what} must be static numbers, not traced values: the result's "
                             "shape would depend on them")


def _shape_arg(shape, name: str) -> tuple[int, ...]:
    _static(name, shape=shape)
    dims = _ints(shape, name, "shape")
    if any(d < 0 for d in dims):
        raise ShapeError(f"fnp.{name}: negative dimensions are not allowed, got shape {dims}")
    return dims


def zeros(shape, dtype=None):
    """A numpy array of zeros (float64 unless `dtype`), as numpy.zeros."""
    return _np.zeros(_shape_arg(shape, "zeros"), _dtype(dtype))


def ones(shape, dtype=None):
    """A numpy array of ones (float64 unless `dtype`), as numpy.ones."""
    return _np.ones(_shape_arg(shape, "ones"), _dtype(dtype))


def empty(shape, dtype=None):
    """numpy.empty, filled with zeros so that results never depend on leftover memory."""
    return zeros(shape, dtype)


def full(shape, fill_value, dtype=None):
    """An array of `shape` filled with `fill_value` (numpy.full); a traced fill value is broadcast to `shape`."""
    shape = _shape_arg(shape, "full")
    if isinstance(fill_value, Tracer):
        return prim.broadcast_to(_cast(fill_value, None if dtype is None else canonical_dtype(dtype)), shape=shape)
    out = _np.full(shape, fill_value, dtype=None if dtype is None else canonical_dtype(dtype))
    canonical_dtype(out.dtype)
    return out


def _like(a, dtype, shape, name: str) -> tuple[tuple[int, ...], str]:
    # _shape refuses ragged lists before the dtype is taken
    a_shape = _shape(a)
    own = a.type.dtype if isinstance(a, Tracer) else canonical_dtype(_np.asarray(a).dtype)
    return (a_shape if shape is None else _shape_arg(shape, name)), _dtype(dtype, own)


def zeros_like(a, dtype=None, shape=None):
    """Zeros of `a`'s shape and dtype (or the given ones): a numpy constant, also for a traced `a`."""
    return _np.zeros(*_like(a, dtype, shape, "zeros_like"))


def ones_like(a, dtype=None, shape=None):
    """Ones of `a`'s shape and dtype (or the given ones): a numpy constant, also for a traced `a`."""
    return _np.ones(*_like(a, dtype, shape, "ones_like"))


def empty_like(a, dtype=None, shape=None):
    """numpy.empty_like, filled with zeros (see `empty`)."""
    return zeros_like(a, dtype, shape)


def full_like(a, fill_value, dtype=None, shape=None):
    """`full` of `a`'s shape and dtype (or the given ones); a traced fill value is cast and broadcast."""
    shape, dtype = _like(a, dtype, shape, "full_like")
    if isinstance(fill_value, Tracer):
        return prim.broadcast_to(_cast(fill_value, dtype), shape=shape)
    return _np.full(shape, fill_value, dtype)


def arange(start, stop=None, step=None, dtype=None):
    """numpy.arange: evenly spaced values in [start, stop), numpy's length and dtype rules (static arguments)."""
    _static("arange", start=start, stop=stop, step=step)
    try:
        out = _np.arange(start, stop, step, dtype=None if dtype is None else canonical_dtype(dtype))
    except (TypeError, ValueError, ZeroDivisionError) as e:
        raise ShapeError(f"fnp.arange({start!r}, {stop!r}, {step!r}): {e}") from None
    canonical_dtype(out.dtype)
    return out


def linspace(start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False, dtype=None, axis: int = 0):
    """numpy.linspace: `num` evenly spaced values from `start` to `stop` (included unless `endpoint=False`).

    `start` and `stop` may be traced (and arrays: the samples run along the new axis `axis`): the
    values are `i * step + start` as numpy computes them, the last one `stop` itself; derivatives
    flow to both end points."""
    num = _int(num, "linspace", "num")
    if num < 0:
        raise ShapeError(f"fnp.linspace: number of samples, {num}, must be non-negative")
    if not (isinstance(start, Tracer) or isinstance(stop, Tracer)):
        return _np.linspace(start, stop, num, endpoint=endpoint, retstep=retstep,
                            dtype=None if dtype is None else canonical_dtype(dtype), axis=axis)
    batch = _np.broadcast_shapes(_shape(start), _shape(stop))
    axis = _axis(axis, len(batch) + 1, "linspace")
    work = _np.result_type(*[x.dtype if isinstance(x, Tracer) else x for x in (start, stop)], float(num)).name
    start, stop = (_cast(x, work) if isinstance(x, Tracer) else _np.asarray(x, work) for x in (start, stop))
    div = num - 1 if endpoint else num
    t = _np.arange(num, dtype=work).reshape((num,) + (1,) * len(batch))
    delta = stop - start
    step = delta / float(div) if div > 0 else _np.full(batch, _np.nan, work)
    # numpy's formula: i * step + start (i * delta + start for a single sample), the last sample stop itself
    y = (t * step if div > 0 else t * delta) + start
    if endpoint and num > 1:
        y = prim.where((_np.arange(num) == num - 1).reshape(t.shape), prim.broadcast_to(stop, shape=y.shape), y)
    if axis != 0:
        y = prim.transpose(y, perm=tuple(range(1, axis + 1)) + (0,) + tuple(range(axis + 1, len(batch) + 1)))
    if dtype is not None and not _np.issubdtype(canonical_dtype(dtype), _np.inexact):
        y = prim.floor(y)   # numpy floors before an integer cast (convert truncates)
    y = _cast(y, None if dtype is None else canonical_dtype(dtype))
    return (y, step) if retstep else y


def logspace(start, stop, num: int = 50, endpoint: bool = True, base=10.0, dtype=None, axis: int = 0):
    """numpy.logspace: `base ** linspace(start, stop, num, endpoint)` (start and stop may be traced)."""
    if not any(isinstance(v, Tracer) for v in (start, stop, base)):
        return _np.logspace(start, stop, num, endpoint=endpoint, base=base,
                            dtype=None if dtype is None else canonical_dtype(dtype), axis=axis)
    if isinstance(base, Tracer) or _np.ndim(base) or _shape(start) or _shape(stop):
        raise TraceError("fnp.logspace: traced start/stop must be scalars and base a number")
    y = prim.power(_np.asarray(base, _np.float64), linspace(start, stop, num, endpoint=endpoint, axis=axis))
    return _cast(y, None if dtype is None else canonical_dtype(dtype))


def geomspace(start, stop, num: int = 50, endpoint: bool = True, dtype=None, axis: int = 0):
    """numpy.geomspace: `num` values spaced evenly on a log scale from `start` to `stop` (static arguments)."""
    _static("geomspace", start=start, stop=stop)
    try:
        return _np.geomspace(start, stop, num, endpoint=endpoint, dtype=None if dtype is None else canonical_dtype(dtype),
                             axis=axis)
    except ValueError as e:
        raise ShapeError(f"fnp.geomspace({start!r}, {stop!r}): {e}") from None


def _static_indices(name: str):
    """numpy's index-array maker `name`: its arguments are shapes and offsets, so the result is a numpy
    constant (arrays of a traced value's indices are its shape's, known while tracing)."""
    numpy_fn = getattr(_np, name)

    def function(*args, **kwargs):
        _static(name, **{f"argument {i}": a for i, a in enumerate(args)}, **kwargs)
        try:
            return numpy_fn(*args, **kwargs)
        except (TypeError, ValueError) as e:
            raise ShapeError(f"fnp.{name}: {e}") from None
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"numpy.{name} (static arguments; the result is a numpy constant)"
    return function


tri, tril_indices, triu_indices, diag_indices, indices = (
    _static_indices(n) for n in ("tri", "tril_indices", "triu_indices", "diag_indices", "indices"))


def eye(N, M=None, k: int = 0, dtype=None):
    """numpy.eye: an N x M array with ones on the k-th diagonal (a numpy constant)."""
    _static("eye", N=N, M=M, k=k)
    N = _int(N, "eye", "N")
    M = N if M is None else _int(M, "eye", "M")
    if N < 0 or M < 0:
        raise ShapeError(f"fnp.eye: negative dimensions are not allowed, got N={N}, M={M}")
    return _np.eye(N, M, _int(k, "eye", "k"), dtype=_dtype(dtype))


def identity(n, dtype=None):
    """numpy.identity: the n x n identity (a numpy constant)."""
    return eye(n, dtype=dtype)


def _has_tracer(x) -> bool:
    return isinstance(x, Tracer) or (isinstance(x, (list, tuple)) and any(_has_tracer(e) for e in x))


def _leaves(x) -> list:
    return [l for e in x for l in _leaves(e)] if isinstance(x, (list, tuple)) else [x]


def _stack(x, dtype: str):
    """A nested list/tuple with tracers as one traced value of `dtype`: elements cast, stacked along new axes."""
    if not isinstance(x, (list, tuple)):
        x = _cast(x if isinstance(x, Tracer) else _np.asarray(x), dtype)
        return x if isinstance(x, Tracer) else _np.asarray(x, dtype)
    parts = [_stack(e, dtype) for e in x]
    shapes = {tuple(_shape(p)) for p in parts}
    if len(shapes) != 1:
        raise ShapeError(f"fnp.asarray: the elements of a nested sequence must have one shape, got {sorted(shapes)}")
    (shape,) = shapes
    return prim.concat(*[prim.reshape(p, shape=(1, *shape)) for p in parts], axis=0)


def asarray(a, dtype=None):
    """`a` as an array (numpy.asarray): tracers pass through (cast with `convert` for another `dtype`);
    nested lists holding tracers become one traced value in numpy's promoted dtype of their elements."""
    if dtype is not None:
        dtype = canonical_dtype(dtype)
    if isinstance(a, Tracer):
        return _cast(a, dtype)
    if _has_tracer(a):
        if isinstance(a, (list, tuple)) and not a:
            return _np.asarray(a, dtype or "float64")
        leaves = _leaves(a)
        # numpy's array coercion: the result type of the elements' dtypes, Python numbers as their
        # default dtype (not weakly: np.asarray([np.float32(1), 1.0]) is float64)
        promoted = _np.result_type(*[l.dtype if isinstance(l, Tracer) else _np.asarray(l).dtype for l in leaves]).name
        return _stack(a, dtype or canonical_dtype(promoted))
    try:
        out = _np.asarray(a, dtype=dtype)
    except (TypeError, ValueError, OverflowError) as e:
        raise ShapeError(f"fnp.asarray: cannot make a {dtype or 'numeric'} array of {type(a).__name__} {a!r} ({e})") from None
    canonical_dtype(out.dtype)
    return out


def as_operand(x):
    """numpy's array_like for an operand: lists and tuples become arrays (tracers inside them stacked);
    arrays, tracers and Python numbers stay as they are (a Python number keeps its weak dtype)."""
    return asarray(x) if isinstance(x, (list, tuple)) else x


def array(object, dtype=None):
    """numpy.array: like `asarray` (traced values are never aliased, so copying changes nothing)."""
    out = asarray(object, dtype)
    return _np.array(out) if isinstance(out, _np.ndarray) and out is object else out
