"""frame.numpy's sorting, searching and order statistics: `sort`, `argsort`, `lexsort`, `sort_complex`,
`partition`, `argpartition`, `searchsorted`, `digitize`, `interp`, `median`, `quantile`, `percentile` and
their NaN-ignoring forms; where the nonzero elements are (`nonzero`, `flatnonzero`, `argwhere`, `extract`);
and counting into bins (`bincount`, `histogram`, `histogram_bin_edges`, `histogram2d`, `histogramdd`, by
comparisons: static result lengths, traced values).

Everything stands on one op, the stable `argsort` (frame/ops/reduce.py): `sort` gathers by its
indices, so its derivative is the gather's (the cotangent goes back to where each value came from,
as in JAX); a full sort is one of the partitions numpy's `partition` allows. The order statistics sort
along the reduced axes and pick elements at the indices numpy computes from `q` (concrete or traced), so
their derivatives flow to the picked elements. `searchsorted` counts comparisons (O(len(a) * v.size) work,
fine for the tables of a model, not for a million-row index). NaNs sort last, as in numpy; a slice holding
one has NaN for its median and quantiles, while the nan-forms read each slice's non-NaN values (its first
`count`, with per-slice indices). How many elements are nonzero depends on the values: concrete operands
give numpy's result, traced ones take jax.numpy's `size=` (a static length: the stable argsort of the
zero test puts the nonzero positions first, in order; slots past the count hold `fill_value`).
"""
from __future__ import annotations

import builtins
import math

import numpy as _np

from ..errors import ShapeError, TraceError
from ..tracing import Tracer, bind
from .args import _axes, _axis, _dtype, _int, _ints, _ndim, _shape
from .numpy_creation import as_operand, asarray
from .numpy_logic import _truth, astype, where
from .numpy_reduce import _refuse
from .numpy_shape import (concatenate, expand_dims, getitem, moveaxis, ravel, reshape, stack, take, take_along_axis,
                          transpose)

__all__ = ["sort", "argsort", "lexsort", "sort_complex", "partition", "argpartition", "searchsorted", "digitize",
           "interp", "median", "quantile", "percentile", "nanmedian", "nanquantile", "nanpercentile", "nonzero",
           "flatnonzero", "argwhere", "extract", "bincount", "histogram", "histogram_bin_edges", "histogram2d",
           "histogramdd"]

_SORT_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")


def _sort_args(op: str, a, axis, kind, order):
    _refuse(op, order=order)
    if kind not in _SORT_KINDS:
        raise ShapeError(f"frame.numpy.{op}: kind must be one of {', '.join(map(str, _SORT_KINDS[1:]))}, got {kind!r}")
    if axis is None:
        return ravel(a), 0
    return a, _axis(axis, _ndim(a), op)


def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    """numpy's `argsort`: the indices (int64) that sort `a` along `axis` (None: flattened). Always
    stable (ties in order of appearance, NaNs last), which every numpy `kind` allows; no derivative."""
    if _ndim(a) == 0:   # numpy sorts a 0-d array as its flattened self
        axis = None
    a, axis = _sort_args("argsort", a, axis, kind, order)
    return bind("argsort", a, axis=axis)


def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    """numpy's `sort`: `a` sorted ascending along `axis` (None: flattened), NaNs last. Differentiable:
    the cotangent of each sorted element goes to the element it came from."""
    a, axis = _sort_args("sort", a, axis, kind, order)
    return take_along_axis(a, bind("argsort", a, axis=axis), axis)


def lexsort(keys, axis: int = -1):
    """numpy's `lexsort`: the indices (int64) that sort by the last key first, ties broken by the one before,
    ... (a stable sort per key, from the first key to the last). `keys`: a sequence of arrays of one
    shape, or a 2-d+ array whose rows are the keys."""
    keys = [as_operand(k) for k in keys] if isinstance(keys, (list, tuple)) else \
        [getitem(keys, i) for i in range(_shape(keys)[0])]
    if not keys:
        raise ShapeError("frame.numpy.lexsort: needs at least one key")
    shape = _shape(keys[0])
    if any(_shape(k) != shape for k in keys):
        raise ShapeError(f"frame.numpy.lexsort: all keys need one shape, got {[_shape(k) for k in keys]}")
    axis = _axis(axis, len(shape), "lexsort")
    order = None
    for key in keys:   # least significant first: each stable pass keeps the order of the passes before
        if order is None:
            order = bind("argsort", key, axis=axis)
        else:
            order = take_along_axis(order, bind("argsort", take_along_axis(key, order, axis), axis=axis), axis)
    return order


def sort_complex(a):
    """numpy's `sort_complex`: `a` sorted along its last axis (complex values by real part, then imaginary
    part, NaNs last), as complex: complex64 stays, other dtypes give complex128, as numpy's."""
    a = as_operand(a)
    if _ndim(a) == 0:
        raise ShapeError("op 'sort_complex': a 0-d array has no axis to sort")
    out = "complex64" if _dtype(a) == "complex64" or _np.dtype(_dtype(a)).char in "bhBH" else "complex128"
    return astype(sort(a, axis=-1), out)


def _partition_args(op: str, a, kth, axis, kind, order):
    """`a` (flattened for axis None or 0-d) and its axis, once numpy's checks of `kind` and `kth` pass."""
    _refuse(op, order=order)
    if kind != "introselect":
        raise ShapeError(f"op '{op}': kind must be 'introselect', got {kind!r}")
    a = as_operand(a)
    if axis is None or (op == "argpartition" and _ndim(a) == 0):   # numpy's argpartition of a 0-d array is flat
        a, axis = ravel(a), 0
    axis = _axis(axis, _ndim(a), op)
    if isinstance(kth, Tracer):
        raise TraceError(f"op '{op}': kth must be static ints, not a traced value")
    n = _shape(a)[axis]
    for k in _ints(kth.tolist() if isinstance(kth, _np.ndarray) else kth, op, "kth"):
        if not -n <= k < n:
            raise ShapeError(f"op '{op}': kth(={k}) out of bounds ({n}) for axis {axis} of shape {_shape(a)}")
    return a, axis


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """numpy's `partition`: each `kth` element of `a` along `axis` (None: flattened) where sorting puts it,
    smaller ones before, larger after. frame sorts the whole axis (stable), one of the orders numpy allows;
    differentiable as `sort`."""
    a, axis = _partition_args("partition", a, kth, axis, kind, order)
    return sort(a, axis=axis)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """numpy's `argpartition`: indices (int64) that partition `a` along `axis` at `kth`; frame gives the
    stable sorting permutation (`argsort`), one of the answers numpy allows."""
    a, axis = _partition_args("argpartition", a, kth, axis, kind, order)
    return argsort(a, axis=axis)


def _real_operands(op: str, *xs) -> None:
    for x in xs:
        if (_dtype(x) or "").startswith("complex"):
            raise ShapeError(f"frame.numpy.{op}: complex operands are not supported (got {_dtype(x)})")


def searchsorted(a, v, side="left", sorter=None):
    """numpy's `searchsorted`: for each element of `v`, the index (int64) at which inserting it keeps the
    1-d `a` sorted (side "left": before equal elements, "right": after them; NaNs order last). `sorter`
    is the permutation that sorts `a`, when `a` itself is not sorted."""
    if side not in ("left", "right"):
        raise ShapeError(f"frame.numpy.searchsorted: side must be 'left' or 'right', got {side!r}")
    a, v = as_operand(a), as_operand(v)
    if _ndim(a) != 1:
        raise ShapeError(f"frame.numpy.searchsorted: a must be 1-d, got shape {_shape(a)}")
    _real_operands("searchsorted", a, v)
    if sorter is not None:
        a = take(a, sorter)
    rank = _ndim(v)
    table, values = reshape(a, (1,) * rank + _shape(a)), expand_dims(v, -1)
    if side == "left":     # how many elements of a sort before v
        before = table < values
        if _is_float(a) or _is_float(v):
            before = before | (bind("isnan", values) & ~bind("isnan", table))
    else:                  # how many sort before v or equal it
        before = table <= values
        if _is_float(v):
            before = before | bind("isnan", values)
    return bind("sum", before, axes=(rank,), keepdims=False)


def _is_float(x) -> bool:
    return (_dtype(x) or "").startswith("float")


def interp(x, xp, fp, left=None, right=None, period=None):
    """numpy's `interp`: the piecewise-linear interpolant through (`xp`, `fp`) at `x` (`xp` increasing,
    1-d); `left`/`right` (default `fp[0]`/`fp[-1]`) outside. float64 (complex128 for complex `fp`) as in
    numpy; differentiable in `x`, `xp` and `fp`. `period` is not supported."""
    _refuse("interp", period=period)
    x, xp, fp = as_operand(x), as_operand(xp), as_operand(fp)
    if _ndim(xp) != 1 or _shape(xp) != _shape(fp) or _shape(xp)[0] == 0:
        raise ShapeError(f"frame.numpy.interp: xp and fp must be 1-d of one nonzero length, got shapes "
                         f"{_shape(xp)} and {_shape(fp)}")
    _real_operands("interp", x, xp)
    out = "complex128" if (_dtype(fp) or "").startswith("complex") else "float64"
    x, xp, fp = astype(x, "float64"), astype(xp, "float64"), astype(fp, out)
    n = _shape(xp)[0]
    first, last = getitem(fp, 0), getitem(fp, -1)
    if n == 1:
        y = first + 0 * x
    else:   # numpy's formula on the interval [xp[j], xp[j + 1]] holding x
        j = _clip_index(searchsorted(xp, x, "right") - 1, n - 2)
        x0, x1, f0, f1 = take(xp, j), take(xp, j + 1), take(fp, j), take(fp, j + 1)
        y = (f1 - f0) / (x1 - x0) * (x - x0) + f0
        y = where(x == x0, f0, where(x == getitem(xp, -1), last, y))
    y = where(x < getitem(xp, 0), first if left is None else left, y)
    return astype(where(x > getitem(xp, -1), last if right is None else right, y), out)


def _clip_index(j, hi: int):
    return bind("maximum", bind("minimum", j, hi), 0)


def _sorted_last(a, axis, op: str, dtype=None):
    """`a` (in `dtype`, when given) with the `axis` axes moved to the end, flattened into one and sorted;
    the count along it; the kept axes' sizes; and the shape keepdims gives."""
    a = as_operand(a)
    if _dtype(a) == "bool" or _dtype(a).startswith("complex"):
        raise ShapeError(f"frame.numpy.{op}: needs real numbers, got {_dtype(a)}")
    if dtype is not None:
        a = astype(a, dtype)
    shape = _shape(a)
    axes = _axes(axis, len(shape), op)
    kept = tuple(d for i, d in enumerate(shape) if i not in axes)
    n = math.prod(shape[i] for i in axes)
    if n == 0:
        raise ShapeError(f"frame.numpy.{op}: the axes {axes} of shape {shape} hold no elements")
    moved = moveaxis(a, axes, tuple(range(len(kept), len(shape)))) if axes else a
    ordered = sort(reshape(moved, kept + (n,)), axis=-1)
    return ordered, n, kept, tuple(1 if i in axes else d for i, d in enumerate(shape))


def _nan_where_nan(value, ordered, extra: int):
    """NaN where the slice held one (sorted last), as numpy's order statistics give."""
    if not _dtype(ordered).startswith("float"):
        return value
    last = getitem(ordered, (Ellipsis, -1))
    return where(reshape(bind("isnan", last), _shape(last) + (1,) * extra), _np.nan, value)


_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(a, q, axis, method: str, keepdims: bool, op: str, skip_nans: bool = False):
    """numpy's quantile: the interpolating methods in numpy's result dtype (`a`'s and q's by numpy 2's
    promotion, a Python number taking `a`'s dtype; integers as float64), the others in `a`'s dtype.
    With `skip_nans` (nanquantile), each slice's count of non-NaN values (sorted first) replaces its
    length, so the indices are per slice; an all-NaN slice gives NaN."""
    if method not in _METHODS:
        raise ShapeError(f"frame.numpy.{op}: method must be one of {', '.join(_METHODS)}, got {method!r}")
    if not isinstance(q, (Tracer, int, float)):
        q = _np.asarray(q)
    if method in ("lower", "higher", "nearest"):
        dtype = None
    else:
        wide = "float64" if _dtype(a) in ("bool", "int32", "int64") else _dtype(a)
        dtype = _np.result_type(wide, q.dtype if isinstance(q, Tracer) else q).name
    if isinstance(q, Tracer):
        q = astype(q, "float64")
    else:   # a concrete q is checked as numpy checks it (a traced one cannot be)
        q = _np.asarray(q, dtype=_np.float64)
        if not _np.all((q >= 0) & (q <= 1)):
            raise ShapeError(f"frame.numpy.{op}: quantiles must be in the range [0, 1], got {q.tolist()}")
    # the difference of neighbours in a's dtype, then the weight in the result's, as numpy's _lerp computes
    integers = dtype is not None and _dtype(a) in ("int32", "int64")
    ordered, n, kept, kept_dims = _sorted_last(a, axis, op, "float64" if integers else None)
    q_rank = len(_shape(q))
    skip_nans = skip_nans and _dtype(ordered).startswith("float")
    if skip_nans:   # per-slice counts, laid out to broadcast against q: kept + (1,) * q_rank
        present = bind("sum", bind("logical_not", bind("isnan", ordered)), axes=(len(kept),), keepdims=False)
        count = reshape(astype(present, "float64"), kept + (1,) * q_rank)
    else:
        count = float(n)
    # numpy's virtual index and weight per method (numpy arithmetic where all is concrete, ops otherwise)
    virtual = q * (count - 1.0)
    rounded = bind({"lower": "floor", "higher": "ceil", "nearest": "rint"}.get(method, "floor"), virtual)
    gamma = virtual - rounded if method in ("linear", "midpoint") else virtual * 0.0
    if method == "midpoint":
        gamma = where(gamma == 0, 0.0, 0.5)
    last = astype(count - 1.0, "int64") if skip_nans else n - 1   # the last index read (per slice for nan-forms)
    lo = _clip_index(astype(rounded, "int64"), last)
    hi = _clip_index(lo + 1, last)
    if skip_nans:   # indices per slice: gathered along the last axis, kept + q.shape
        pick = lambda i: reshape(take_along_axis(ordered, reshape(i, kept + (-1,)), axis=-1), kept + _shape(q))  # noqa: E731
        below, above = pick(lo), pick(hi)
    else:
        below, above = take(ordered, lo, axis=-1), take(ordered, hi, axis=-1)   # kept + q.shape
    if dtype is None:    # lower, higher, nearest: the element itself
        value = below
    else:                # numpy's _lerp: from the lower end below t = 0.5, from the upper end from there on (in
        # the result dtype: a float32 a with a float64 q array gives float64, the neighbours' difference in float32)
        weight, diff = astype(gamma, dtype), above - below
        value = where(weight >= 0.5, above - diff * (1 - weight), below + diff * weight)
    if not skip_nans:    # an all-NaN slice of a nan-variant gives NaN by itself (its elements are NaN)
        value = _nan_where_nan(value, ordered, q_rank)
    if q_rank and kept:   # q's axes lead, as in numpy
        value = moveaxis(value, tuple(range(len(kept), len(kept) + q_rank)), tuple(range(q_rank)))
    return reshape(value, _shape(q) + (kept_dims if keepdims else kept))


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    """numpy's `quantile` of `a` over `axis` at `q` in [0, 1] (a number or an array: its shape leads the
    result's; it may be traced); methods linear (default), lower, higher, midpoint, nearest. Integers
    give float64; a slice holding a NaN gives NaN. Differentiable in `a` (and, for linear, in `q`)."""
    _refuse("quantile", out=out, weights=weights)
    return _quantile(a, q, axis, method, keepdims, "quantile")


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    """numpy's `percentile`: `quantile` at `q / 100`."""
    _refuse("percentile", out=out, weights=weights)
    hundred = _np.dtype(_dtype(a)).type(100) if _dtype(a).startswith("float") else 100   # numpy's divisor
    return _quantile(a, q / hundred if isinstance(q, Tracer) else _np.true_divide(q, hundred), axis, method, keepdims,
                     "percentile")


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """numpy's `median` over `axis`: the middle element of each sorted slice, the mean of the two middle
    ones for an even count. Integers give float64; a slice holding a NaN gives NaN."""
    _refuse("median", out=out)
    ordered, n, kept, kept_dims = _sorted_last(a, axis, "median",
                                               "float64" if _dtype(a) in ("int32", "int64") else None)
    lo, hi = getitem(ordered, (Ellipsis, (n - 1) // 2)), getitem(ordered, (Ellipsis, n // 2))
    value = _nan_where_nan(lo if n % 2 else (lo + hi) / 2, ordered, 0)
    return reshape(value, kept_dims if keepdims else kept)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    """numpy's `nanquantile`: `quantile` of the non-NaN values of each slice (NaN for an all-NaN slice)."""
    _refuse("nanquantile", out=out, weights=weights)
    return _quantile(a, q, axis, method, keepdims, "nanquantile", skip_nans=True)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    """numpy's `nanpercentile`: `nanquantile` at `q / 100`."""
    _refuse("nanpercentile", out=out, weights=weights)
    hundred = _np.dtype(_dtype(a)).type(100) if _dtype(a).startswith("float") else 100
    return _quantile(a, q / hundred if isinstance(q, Tracer) else _np.true_divide(q, hundred), axis, method, keepdims,
                     "nanpercentile", skip_nans=True)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """numpy's `nanmedian`: the median of the non-NaN values of each slice (NaN for an all-NaN slice)."""
    _refuse("nanmedian", out=out)
    if not _dtype(a).startswith("float"):
        return median(a, axis, keepdims=keepdims)
    return _quantile(a, 0.5, axis, "midpoint", keepdims, "nanmedian", skip_nans=True)


def digitize(x, bins, right: bool = False):
    """numpy's `digitize`: the index (int64) of the bin of each `x` in the monotonic 1-d `bins` (increasing, or
    decreasing when concrete), `bins[i-1] <= x < bins[i]` (`right`: `bins[i-1] < x <= bins[i]`)."""
    side = "left" if right else "right"   # numpy's: the arguments of searchsorted are the other way round
    if _ndim(bins) != 1:
        raise ShapeError(f"frame.numpy.digitize: bins must be 1-d, got shape {_shape(bins)}")
    n = _shape(bins)[0]
    if not isinstance(bins, Tracer):
        bins = _np.asarray(bins)
        steps = _np.diff(bins)
        if not (_np.all(steps >= 0) or _np.all(steps <= 0)):
            raise ShapeError("frame.numpy.digitize: bins must be monotonically increasing or decreasing")
        if _np.all(steps <= 0) and not _np.all(steps == 0):
            return n - searchsorted(bins[::-1], x, side=side)
        return searchsorted(bins, x, side=side)
    # traced bins: numpy's direction test (last below first means decreasing), decided per call
    decreasing = getitem(bins, -1) < getitem(bins, 0) if n > 1 else False
    return where(decreasing, n - searchsorted(getitem(bins, slice(None, None, -1)), x, side=side),
                 searchsorted(bins, x, side=side))


# -- where the nonzero elements are: lengths set by the values, static with size= -----------------
def _static_size(op: str, size) -> int:
    if isinstance(size, Tracer):
        raise TraceError(f"op '{op}': size must be a static int (the result's length), not a traced value")
    size = _int(size, op, "size")
    if size < 0:
        raise ShapeError(f"op '{op}': size must be non-negative, got {size}")
    return size


def _needs_size(op: str, names: str):
    raise TraceError(f"op '{op}': the result's length depends on the values of the traced {names}; give size= "
                     f"(a static length) and fill_value=, as jax.numpy.{op} takes")


def _first_true(mask, size: int):
    """The positions (int64) of the first `size` True entries of the 1-d bool `mask`, in order (0 past the
    last one), and whether each of the `size` slots holds one: nonzero with a static length."""
    n = _shape(mask)[0]
    order = bind("argsort", bind("logical_not", mask), axis=0)   # stable: the True positions first, in order
    order = getitem(order, slice(0, size)) if size <= n else concatenate([order, _np.zeros(size - n, _np.int64)])
    valid = bind("less", _np.arange(size), bind("sum", mask, axes=(0,), keepdims=False))
    return where(valid, order, 0), valid


def _filled(values, valid, fill_value):
    """`values` where `valid` (one flag per leading index), else `fill_value`, in the values' dtype (as
    jax.numpy casts the fill value)."""
    valid = reshape(valid, _shape(valid) + (1,) * (_ndim(values) - 1))
    return astype(where(valid, values, fill_value), _dtype(values))


def _unravel(index, shape):
    """The row-major coordinates, one int64 array per axis, of the flat positions `index` in `shape`."""
    if math.prod(shape) == 0:   # nothing to point at: every slot is padding, its index 0
        return [index] * len(shape)
    coords = []
    for i, d in enumerate(shape):
        stride = math.prod(shape[i + 1:])
        c = bind("floor_divide", index, stride) if stride > 1 else index
        coords.append(bind("mod", c, d) if i else c)
    return coords


def _nonzero(op: str, a, size, fill_value):
    """nonzero's static-length form: per axis of `a`, the indices of its first `size` nonzero elements."""
    size, shape = _static_size(op, size), _shape(a)
    fills = tuple(fill_value) if isinstance(fill_value, (tuple, list)) else \
        (0 if fill_value is None else fill_value,) * len(shape)
    if len(fills) != len(shape):
        raise ShapeError(f"op '{op}': fill_value needs one value per axis of a {shape}, got {len(fills)}")
    index, valid = _first_true(ravel(_truth(a)), size)
    return tuple(_filled(c, valid, f) for c, f in zip(_unravel(index, shape), fills))


def nonzero(a, *, size=None, fill_value=None):
    """numpy's `nonzero`: per axis of `a`, the indices (int64) of its nonzero elements in row-major order.
    Their number depends on the values: a traced `a` needs jax.numpy's `size=` (the first `size`, the
    slots past the count holding `fill_value`: 0 by default, a number or one per axis); TraceError
    without it. A 0-d `a` is refused, as numpy 2 refuses it."""
    a = as_operand(a)
    if _ndim(a) == 0:
        raise ShapeError("op 'nonzero': a 0-d array has no axes to index; use atleast_1d(a), as numpy 2 asks")
    if size is None:
        if isinstance(a, Tracer):
            _needs_size("nonzero", "a")
        return _np.nonzero(a)
    return _nonzero("nonzero", a, size, fill_value)


def flatnonzero(a, *, size=None, fill_value=None):
    """numpy's `flatnonzero`: the indices (int64) of the nonzero elements of `a` flattened; a traced `a`
    needs jax.numpy's `size=` (slots past the count hold `fill_value`, default 0)."""
    a = as_operand(a)
    if size is None:
        if isinstance(a, Tracer):
            _needs_size("flatnonzero", "a")
        return _np.flatnonzero(a)
    return _nonzero("flatnonzero", ravel(a), size, fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
    """numpy's `argwhere`: the indices (int64) of the nonzero elements of `a`, one row each (shape (count,
    a.ndim)); a traced `a` needs jax.numpy's `size=` (rows past the count hold `fill_value`, default 0).
    A 0-d `a` has no columns: numpy's one row when it is nonzero, `size` rows with size=."""
    a = as_operand(a)
    if size is None:
        if isinstance(a, Tracer):
            _needs_size("argwhere", "a")
        return _np.argwhere(a)
    if _ndim(a) == 0:
        return _np.zeros((_static_size("argwhere", size), 0), _np.int64)
    return stack(_nonzero("argwhere", a, size, fill_value), axis=1)


def extract(condition, arr, *, size=None, fill_value=0):
    """numpy's `extract`: the elements of `arr` (flattened) where `condition` (flattened) is nonzero. A
    concrete condition fixes the length, so `arr` may be traced (derivatives flow to the picked elements);
    a traced condition needs jax.numpy's `size=` (the first `size` picks, the slots past the count holding
    `fill_value`, default 0). As in numpy, a condition longer than `arr` must be False past its end
    (checked when concrete; a traced one's extra entries are ignored)."""
    condition, arr = ravel(as_operand(condition)), ravel(as_operand(arr))
    n = builtins.min(_shape(condition)[0], _shape(arr)[0])
    if not isinstance(condition, Tracer):
        past = _np.flatnonzero(condition)
        past = past[past >= n]
        if past.size:
            raise ShapeError(f"op 'extract': condition is true at index {past[0]}, out of bounds for arr of "
                             f"size {_shape(arr)[0]}")
        if size is None:
            return take(arr, _np.flatnonzero(condition))
    elif size is None:
        _needs_size("extract", "condition")
    size = _static_size("extract", size)
    index, valid = _first_true(getitem(_truth(condition), slice(0, n)), size)
    if n == 0:    # nothing to pick from: every slot is fill_value
        return _filled(_np.zeros(size, _dtype(arr)), valid, fill_value)
    return _filled(take(getitem(arr, slice(0, n)), index), valid, fill_value)


def _counts(index, length: int, weights, present=None):
    """How many elements (or how much weight) fall in each of `length` bins: a one-hot sum over `index`."""
    hits = bind("equal", expand_dims(index, -1), _np.arange(length))
    if present is not None:
        hits = hits & expand_dims(present, -1)
    if weights is None:
        return bind("sum", hits, axes=tuple(range(len(_shape(hits)) - 1)), keepdims=False)
    mass = where(hits, expand_dims(weights, -1), 0)
    return bind("sum", mass, axes=tuple(range(len(_shape(mass)) - 1)), keepdims=False)


def bincount(x, weights=None, minlength: int = 0, *, length: int | None = None):
    """numpy's `bincount` of the non-negative ints `x` (1-d): int64 counts, or the sums of `weights`
    (float64). The result's length is max(x) + 1 (at least `minlength`) for concrete `x`; traced `x`
    needs `length=` (JAX's argument), and values beyond it are not counted, as in JAX."""
    x, weights = as_operand(x), as_operand(weights)
    if _ndim(x) != 1 or _dtype(x) not in ("int32", "int64", "bool"):
        raise ShapeError(f"frame.numpy.bincount: x must be a 1-d array of non-negative ints, got {_dtype(x)}"
                         f"{list(_shape(x))}")
    if length is None:
        if isinstance(x, Tracer):
            raise ShapeError("frame.numpy.bincount: the result's length depends on the values; give length= for "
                             "traced x")
        if _np.size(x) and _np.min(x) < 0:
            raise ShapeError("frame.numpy.bincount: x must be non-negative, as numpy requires")
        length = builtins.max(int(_np.max(x)) + 1 if _np.size(x) else 0, minlength)
    if weights is not None:
        weights = astype(weights, "float64") if not (_dtype(weights) or "").startswith("complex") else weights
    return _counts(astype(x, "int64"), length, weights)


def _weights(op: str, a, weights):
    """numpy's check of `weights` (a's shape), flattened."""
    if weights is None:
        return None
    weights = asarray(weights)
    if _shape(weights) != _shape(a):
        raise ShapeError(f"op '{op}': weights should have the same shape as a, got {_shape(weights)} and {_shape(a)}")
    return ravel(weights)


def _outer_edges(op: str, a, range):  # noqa: A002  (numpy's name)
    """numpy's outer edges of equal bins over the 1-d `a`: `range` as given, else a's min and max (for a
    traced `a` traced ones, in its float dtype), widened by 1/2 each side when they are equal."""
    if range is not None:
        if isinstance(range, Tracer) or not hasattr(range, "__len__") or len(range) != 2:
            raise ShapeError(f"op '{op}': range must be a pair (min, max), got {range!r}")
        lo, hi = range
        if isinstance(lo, Tracer) or isinstance(hi, Tracer):
            raise TraceError(f"op '{op}': range must be static numbers, not traced values")
        if lo > hi:
            raise ShapeError(f"op '{op}': max must be larger than min in range {tuple(range)}")
        if not (_np.isfinite(lo) and _np.isfinite(hi)):
            raise ShapeError(f"op '{op}': supplied range of [{lo}, {hi}] is not finite")
    elif _shape(a)[0] == 0:
        lo, hi = 0, 1
    elif isinstance(a, Tracer):
        wide = a if _dtype(a).startswith("float") else astype(a, "float64")
        lo, hi = bind("min", wide, axes=(0,), keepdims=False), bind("max", wide, axes=(0,), keepdims=False)
        same = lo == hi
        return where(same, lo - 0.5, lo), where(same, hi + 0.5, hi)
    else:   # numpy scalars of a's dtype: they set the edges' dtype
        lo, hi = _np.min(a), _np.max(a)
        if not (_np.isfinite(lo) and _np.isfinite(hi)):
            raise ShapeError(f"op '{op}': autodetected range of [{lo}, {hi}] is not finite")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return lo, hi


def _equal_edges(lo, hi, bins: int, dtype=None):
    """numpy's `linspace(lo, hi, bins + 1, dtype=dtype)`; for traced ends in their dtype, computed as numpy
    does: `i * step + lo`, the last edge `hi` itself (so the maximum falls in the closed last bin)."""
    if not isinstance(lo, Tracer):
        return _np.linspace(lo, hi, bins + 1, dtype=dtype)
    step = (hi - lo) / bins
    return concatenate([step * _np.arange(bins, dtype=_dtype(lo)) + lo, reshape(hi, (1,))])


def _edge_array(op: str, bins, what: str):
    edges = as_operand(bins)
    if _ndim(edges) != 1 or _shape(edges)[0] == 0:
        raise ShapeError(f"op '{op}': {what} must be an int or a 1-d array of edges, got shape {_shape(edges)}")
    if not isinstance(edges, Tracer) and _np.any(_np.diff(edges) < 0):
        raise ShapeError(f"op '{op}': {what} must increase monotonically, when an array")
    return edges


def _is_count(bins) -> bool:
    """Whether `bins` (or one dimension's entry) is a count, numpy's 0-d case, rather than edges."""
    return isinstance(bins, str) or (not isinstance(bins, (list, tuple)) and _ndim(bins) == 0)


def _bin_count(op: str, bins, what: str) -> int:
    if isinstance(bins, str):
        raise ShapeError(f"op '{op}': bin estimators such as {what}={bins!r} are not supported; give a count or edges")
    n = _int(bins, op, what)
    if n < 1:
        raise ShapeError(f"op '{op}': {what} must be positive, when an integer, got {n}")
    return n


def _bin_edges(op: str, a, bins, range):  # noqa: A002
    """numpy's edges for the histogram of the 1-d `a`: `bins` equal bins (in the float dtype of the range
    and `a`), or the increasing edges `bins` as given."""
    if _is_count(bins):
        n = _bin_count(op, bins, "bins")
        lo, hi = _outer_edges(op, a, range)
        if isinstance(lo, Tracer):
            return _equal_edges(lo, hi, n)
        bin_type = _np.result_type(lo, hi, _np.dtype(_dtype(a)))
        if bin_type.kind in "iub":
            bin_type = _np.result_type(bin_type, float)
        edges = _equal_edges(lo, hi, n, bin_type)
        if _np.any(edges[:-1] >= edges[1:]):
            raise ShapeError(f"op '{op}': too many bins for the data range: cannot make {n} finite-sized bins")
        return edges
    return _edge_array(op, bins, "bins")


def _bin_index(x, edges):
    """The bin (int64) of each `x` among the increasing `edges` (numpy's: `edges[i] <= x < edges[i + 1]`,
    the last bin closed) and whether it falls in one (NaNs and values outside do not)."""
    n, last = _shape(edges)[0] - 1, getitem(edges, -1)
    index = where(x == last, n - 1, searchsorted(edges, x, "right") - 1)
    return index, (x >= getitem(edges, 0)) & (x <= last)


def histogram(a, bins=10, range=None, density: bool = False, weights=None):  # noqa: A002  (numpy's name)
    """numpy's `histogram`: counts (int64, or summed `weights`) of `a` (flattened) in `bins` (a count, or
    increasing edges), the last bin closed, values outside `range` left out; with `density`, divided by
    the total and the bin widths. Returns (hist, bin_edges). Edges from a traced `a`'s min and max when
    neither `range` nor edges are given. Bin estimators (bins='auto', ...) are not supported."""
    a = asarray(a)
    weights = _weights("histogram", a, weights)
    a = ravel(a)
    edges = _bin_edges("histogram", a, bins, range)
    index, present = _bin_index(a, edges)
    hist = _counts(index, _shape(edges)[0] - 1, weights, present)
    if density:
        widths = getitem(edges, slice(1, None)) - getitem(edges, slice(None, -1))
        hist = astype(hist, "float64") / widths / bind("sum", hist, axes=(0,), keepdims=False)
    return hist, edges


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    """numpy's `histogram_bin_edges`: the edges `histogram(a, bins, range)` uses (`weights` are only
    checked: numpy reads them for bin estimators, which frame does not support)."""
    a = asarray(a)
    _weights("histogram_bin_edges", a, weights)
    return _bin_edges("histogram_bin_edges", ravel(a), bins, range)


def _histogramdd(op: str, columns, bins, range, density, weights):  # noqa: A002
    """numpy's histogramdd of the D 1-d `columns` (one dtype, one length N): float64 counts of shape
    (bins_0, ..., bins_D-1) and the list of edges."""
    d, n = len(columns), _shape(columns[0])[0]
    if _is_count(bins):
        bins = [bins] * d
    elif isinstance(bins, Tracer):
        bins = [getitem(bins, i) for i in builtins.range(_shape(bins)[0])]
    if len(bins) != d:
        raise ShapeError(f"op '{op}': the dimension of bins must be equal to the dimension of the sample ({d}), "
                         f"got {len(bins)}")
    if range is None:
        range = [None] * d
    elif len(range) != d:
        raise ShapeError(f"op '{op}': range argument must have one entry per dimension ({d}), got {len(range)}")
    if weights is not None:
        weights = asarray(weights)
        if _shape(weights) != (n,) or (_dtype(weights) or "").startswith("complex"):
            raise ShapeError(f"op '{op}': weights must be {n} real numbers, one per sample, got "
                             f"{_dtype(weights)}{list(_shape(weights))}")
        weights = astype(weights, "float64")   # numpy's bincount sums in float64
    edges, index, present = [], None, None
    for i, (column, b, r) in enumerate(zip(columns, bins, range)):
        if _is_count(b):   # numpy's linspace in its own dtype: that of the range or the data
            edges.append(_equal_edges(*_outer_edges(op, column, r), _bin_count(op, b, f"bins[{i}]")))
        else:
            edges.append(_edge_array(op, b, f"bins[{i}]"))
        j, inside = _bin_index(column, edges[-1])   # the row-major index of the bin over all dimensions
        index, present = (j, inside) if i == 0 else (index * (_shape(edges[-1])[0] - 1) + j, present & inside)
    dims = tuple(_shape(e)[0] - 1 for e in edges)
    hist = astype(reshape(_counts(index, math.prod(dims), weights, present), dims), "float64")
    if density:
        total = bind("sum", hist, axes=tuple(builtins.range(d)), keepdims=False)
        for i, e in enumerate(edges):
            widths = getitem(e, slice(1, None)) - getitem(e, slice(None, -1))
            hist = hist / reshape(widths, tuple(-1 if k == i else 1 for k in builtins.range(d)))
        hist = hist / total
    return hist, edges


def histogramdd(sample, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """numpy's `histogramdd`: float64 counts (or summed `weights`) of the N points of `sample` (an (N, D)
    array, or a sequence of D coordinate arrays) in the bins of each dimension (`bins`: a count, edges,
    or one of those per dimension), the last bin of each closed; returns (hist, [edges per dimension]).
    `density` divides by the total and the bin volumes. Edges from a traced sample's min and max when
    neither `range` nor edges are given."""
    if isinstance(sample, (list, tuple)):   # numpy: atleast_2d(sample).T, the sequence's arrays as columns
        sample = asarray(sample)
        sample = transpose(reshape(sample, (1, math.prod(_shape(sample)))) if _ndim(sample) < 2 else sample)
    else:
        sample = asarray(sample)
        sample = reshape(sample, (math.prod(_shape(sample)), 1)) if _ndim(sample) < 2 else sample
    if _ndim(sample) != 2 or _shape(sample)[1] == 0:
        raise ShapeError(f"op 'histogramdd': sample must be an (N, D) array or D arrays of N coordinates, got "
                         f"shape {_shape(sample)}")
    columns = [getitem(sample, (slice(None), i)) for i in builtins.range(_shape(sample)[1])]
    return _histogramdd("histogramdd", columns, bins, range, density, weights)


def histogram2d(x, y, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """numpy's `histogram2d`: `histogramdd` of the points (x, y); `bins` is a count or edges for both
    axes, or a pair of those. Returns (hist, x_edges, y_edges)."""
    x, y = asarray(x), asarray(y)
    if _ndim(x) != 1 or _shape(x) != _shape(y):
        raise ShapeError(f"op 'histogram2d': x and y must be 1-d of the same length, got shapes {_shape(x)} and "
                         f"{_shape(y)}")
    if not _is_count(bins) and (len(bins) if isinstance(bins, (list, tuple)) else _shape(bins)[0]) not in (1, 2):
        bins = [bins, bins]   # numpy's rule: any other length is the edges of both axes
    dtype = _np.result_type(_dtype(x), _dtype(y)).name
    hist, (x_edges, y_edges) = _histogramdd("histogram2d", [astype(x, dtype), astype(y, dtype)], bins, range,
                                            density, weights)
    return hist, x_edges, y_edges
