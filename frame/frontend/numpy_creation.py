"""frame.numpy's array creation: `zeros`/`ones`/`empty`/`full` (and `_like`), `arange`, `linspace`, `eye`,
`identity`, `array`/`asarray`, and index arrays made from shapes (`indices`, `ix_`, `unravel_index`, ...).

Inside traced code, what does not depend on a traced value is a numpy constant (zeros, `arange`, `eye`,
`zeros_like` of a tracer: the shape is static), exactly as numpy makes it. Traced values enter only
through `full`'s fill value (broadcast), `linspace`'s end points, and the elements of `array`/`asarray`
(stacked into one traced value, in numpy's promoted dtype, cast with `convert`), and index arithmetic
(`ix_`, `unravel_index`, `ravel_multi_index`) on traced indices.
"""
from __future__ import annotations

import math

import numpy as _np

from ..errors import ShapeError, TraceError
from ..ir.types import broadcast_dims, canonical_dtype
from ..tracing import Tracer, prim
from .args import _axis, _int, _ints, _shape

__all__ = ['asarray', 'array', 'zeros', 'ones', 'empty', 'full', 'zeros_like', 'ones_like', 'empty_like', 'full_like',
           'logspace', 'geomspace', 'tri', 'tril_indices', 'triu_indices', 'diag_indices', 'indices', 'arange', 'linspace', 'eye', 'identity',
           'ix_', 'diag_indices_from', 'tril_indices_from', 'triu_indices_from', 'mask_indices', 'unravel_index',
           'ravel_multi_index', 'fromfunction', 'ascontiguousarray', 'asfortranarray']


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


# -- index arrays from shapes, and index arithmetic ----------------------------------------------
def ix_(*args) -> tuple:
    """numpy's `ix_`: an open mesh of the 1-d index inputs, the k-th one along axis k of len(args).
    A boolean input stands for its nonzero positions, so it must be concrete (a traced mask raises
    TraceError); traced integer inputs are reshaped."""
    out = []
    for k, x in enumerate(args):
        if not isinstance(x, (Tracer, _np.ndarray)):
            x = asarray(x)
            if isinstance(x, _np.ndarray) and x.size == 0:   # an empty list indexes nothing: ints, as numpy's
                x = x.astype(_np.intp)
        if len(_shape(x)) != 1:
            raise ShapeError(f"op 'ix_': argument {k} must be 1-d (a cross index), got shape {_shape(x)}")
        if x.dtype == _np.bool_:
            if isinstance(x, Tracer):
                raise TraceError(f"op 'ix_': argument {k} is a traced boolean mask, whose nonzero positions (and so "
                                 "the result shape) depend on traced values; pass it concrete or as integer indices")
            x = x.nonzero()[0]
        out.append(prim.reshape(x, shape=(1,) * k + (_shape(x)[0],) + (1,) * (len(args) - k - 1)))
    return tuple(out)


def _square_shape(arr, op: str, rank: int | None = None) -> tuple[int, ...]:
    """`arr`'s shape for the `*_indices_from` functions: static, of rank `rank` (None: >= 2, all sides equal)."""
    shape = _shape(arr)
    if any(not isinstance(d, (int, _np.integer)) for d in shape):
        raise ShapeError(f"op '{op}': needs a static shape, got {shape}")
    if rank is not None and len(shape) != rank:
        raise ShapeError(f"op '{op}': input array must be {rank}-d, got shape {shape}")
    if rank is None and (len(shape) < 2 or len(set(shape)) > 1):
        raise ShapeError(f"op '{op}': input array must be at least 2-d with all sides equal, got shape {shape}")
    return shape


def diag_indices_from(arr) -> tuple:
    """numpy's `diag_indices_from`: `diag_indices` of arr's (static) shape, numpy constants."""
    shape = _square_shape(arr, "diag_indices_from")
    return _np.diag_indices(shape[0], len(shape))


def tril_indices_from(arr, k: int = 0) -> tuple:
    """numpy's `tril_indices_from`: `tril_indices` of a 2-d arr's (static) shape, numpy constants."""
    n, m = _square_shape(arr, "tril_indices_from", 2)
    return _np.tril_indices(n, _int(k, "tril_indices_from", "k"), m)


def triu_indices_from(arr, k: int = 0) -> tuple:
    """numpy's `triu_indices_from`: `triu_indices` of a 2-d arr's (static) shape, numpy constants."""
    n, m = _square_shape(arr, "triu_indices_from", 2)
    return _np.triu_indices(n, _int(k, "triu_indices_from", "k"), m)


def mask_indices(n, mask_func, k=0) -> tuple:
    """numpy's `mask_indices`: the nonzero positions of `mask_func(ones((n, n), int), k)` (numpy
    constants; `mask_func` such as `triu` must give a concrete result on a concrete array)."""
    n = _int(n, "mask_indices", "n")
    if n < 0:
        raise ShapeError(f"op 'mask_indices': n must be non-negative, got {n}")
    mask = mask_func(_np.ones((n, n), int), k)
    if _has_tracer(mask):
        raise TraceError("op 'mask_indices': mask_func returned a traced value; the positions fix the result "
                         "shape, so the mask must be concrete")
    return _np.nonzero(_np.asarray(mask) != 0)


def _index_operand(x, op: str):
    """A traced (or partly traced) index operand as an int64 tracer: numpy's intp arithmetic."""
    x = asarray(x)
    if _np.dtype(x.dtype).kind not in "iub":
        raise ShapeError(f"op '{op}': indices must be integers, got {_np.dtype(x.dtype).name}")
    return _cast(x, "int64")


def unravel_index(indices, shape, order="C") -> tuple:
    """numpy's `unravel_index`: the coordinates (int64 arrays) in `shape` of the flat `indices`, in
    row-major ('C') or column-major ('F') order. Concrete indices are checked as numpy does; traced
    ones cannot be, so as in jax.numpy a negative index counts from the end and one out of bounds
    gives the nearest valid coordinates (the first or last element)."""
    dims = _ints(shape, "unravel_index", "shape")
    if not _has_tracer(indices):
        try:
            return _np.unravel_index(indices, dims, order)
        except (ValueError, TypeError) as e:
            raise ShapeError(f"op 'unravel_index': {e}") from None
    if order not in ("C", "F") or any(d < 0 for d in dims):
        raise ShapeError(f"op 'unravel_index': needs order 'C' or 'F' and a shape of non-negative sizes, got "
                         f"order {order!r} and shape {dims}")
    rest = _index_operand(indices, "unravel_index")
    if 0 in dims:
        if rest.size:
            raise ShapeError(f"op 'unravel_index': shape {dims} has no elements, so no index is in bounds")
        return tuple(_np.zeros(rest.shape, _np.int64) for _ in dims)
    coordinates = {}
    for k in (reversed(range(len(dims))) if order == "C" else range(len(dims))):
        coordinates[k], rest = rest % dims[k], rest // dims[k]
    # What is left is 0 in bounds, -1 for a negative index in bounds, else out of bounds on one side.
    return tuple(prim.where(rest > 0, dims[k] - 1, prim.where(rest < -1, 0, coordinates[k])) for k in range(len(dims)))


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """numpy's `ravel_multi_index`: the flat (int64) index of the coordinate arrays `multi_index`
    (broadcast together) in an array of shape `dims`, row-major ('C') or column-major ('F').
    `mode` (one, or one per axis): 'raise' refuses indices out of bounds, 'wrap' wraps them and 'clip'
    clips them. 'raise' checks values, so as in jax.numpy it needs concrete indices: traced ones
    raise TraceError, asking for 'wrap' or 'clip'."""
    dims = _ints(dims, "ravel_multi_index", "dims")
    if not _has_tracer(multi_index):
        try:
            return _np.ravel_multi_index(multi_index, dims, mode, order)
        except (ValueError, TypeError) as e:
            raise ShapeError(f"op 'ravel_multi_index': {e}") from None
    if isinstance(multi_index, Tracer):
        multi_index = [multi_index[i] for i in range(_shape(multi_index)[0] if _shape(multi_index) else 0)]
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    if len(multi_index) != len(dims) or len(modes) != len(dims) or order not in ("C", "F") or \
            any(m not in ("raise", "wrap", "clip") for m in modes):
        raise ShapeError(f"op 'ravel_multi_index': needs one index array and one mode ('raise', 'wrap' or 'clip') "
                         f"per size in dims {dims} and order 'C' or 'F', got {len(multi_index)} index arrays, "
                         f"mode {mode!r} and order {order!r}")
    if "raise" in modes:
        raise TraceError("op 'ravel_multi_index': mode='raise' checks the index values, which traced indices do "
                         "not have while tracing; use mode='wrap' or mode='clip' (as jax.numpy requires)")
    index = [_index_operand(i, "ravel_multi_index") for i in multi_index]
    batch = broadcast_dims("ravel_multi_index", *(_shape(i) for i in index))
    if 0 in dims:
        if math.prod(batch):
            raise ShapeError(f"op 'ravel_multi_index': dims {dims} have no elements, so no index is valid")
        return _np.zeros(batch, _np.int64)
    index = [i % d if m == "wrap" else prim.minimum(prim.maximum(i, 0), d - 1) for i, d, m in zip(index, dims, modes)]
    strides = [math.prod(dims[k + 1:]) if order == "C" else math.prod(dims[:k]) for k in range(len(dims))]
    flat = index[0] * strides[0]
    for i, s in zip(index[1:], strides[1:]):
        flat = flat + i * s
    return flat if _shape(flat) == batch else prim.broadcast_to(flat, shape=batch)


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """numpy's `fromfunction`: `function(*indices(shape, dtype), **kwargs)`. The index arrays are numpy
    constants; `function` may compute with traced values it closes over."""
    return function(*indices(shape, dtype=dtype), **kwargs)


def ascontiguousarray(a, dtype=None):
    """numpy's `ascontiguousarray`: `asarray(a, dtype)` with at least one axis (a scalar becomes shape
    (1,)). Memory layout is the backend's business, so it changes nothing else."""
    out = asarray(a, dtype)
    return out if _shape(out) else prim.reshape(out, shape=(1,))


def asfortranarray(a, dtype=None):
    """numpy's `asfortranarray`: `asarray(a, dtype)` with at least one axis (a scalar becomes shape
    (1,)). Memory layout is the backend's business, so it changes nothing else."""
    return ascontiguousarray(a, dtype)
