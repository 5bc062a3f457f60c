"""frame.numpy's sorting, searching and order statistics: `sort`, `argsort`, `lexsort`, `searchsorted`, `digitize`,
`interp`, `median`, `quantile`, `percentile` and their NaN-ignoring forms, and counting into bins
(`bincount`, `histogram`, by comparisons: static result lengths, traced values).

Everything stands on one op, the stable `argsort` (frame/ops/reduce.py): `sort` gathers by its
indices, so its derivative is the gather's (the cotangent goes back to where each value came from,
as in JAX). The order statistics sort along the reduced axes and pick elements at the indices numpy
computes from `q` (concrete or traced), so their derivatives flow to the picked elements. `searchsorted`
counts comparisons (O(len(a) * v.size) work, fine for the tables of a model, not for a million-row
index). NaNs sort last, as in numpy; a slice holding one has NaN for its median and quantiles, while
the nan-forms read each slice's non-NaN values (its first `count`, with per-slice indices).
"""
from __future__ import annotations

import builtins
import math

import numpy as _np

from ..errors import ShapeError
from ..tracing import Tracer, bind
from .args import _axes, _axis, _dtype, _ndim, _shape
from .numpy_creation import as_operand
from .numpy_logic import astype, where
from .numpy_reduce import _refuse
from .numpy_shape import expand_dims, getitem, moveaxis, ravel, reshape, take, take_along_axis

__all__ = ["sort", "argsort", "lexsort", "searchsorted", "digitize", "interp", "median", "quantile", "percentile",
           "nanmedian", "nanquantile", "nanpercentile", "bincount", "histogram"]

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


def histogram(a, bins=10, range=None, density: bool = False, weights=None):  # noqa: A002  (numpy's name)
    """numpy's `histogram`: counts (int64, or summed `weights`) of `a` (flattened) in `bins` (a count, or
    increasing edges), the last bin closed, values outside `range` left out; with `density`, divided by
    the total and the bin widths. Returns (hist, bin_edges). Edges from a traced `a`'s min and max when
    neither `range` nor edges are given."""
    a = ravel(as_operand(a))
    weights = None if weights is None else ravel(as_operand(weights))
    if isinstance(bins, (int, _np.integer)) and not isinstance(bins, bool):
        if bins < 1:
            raise ShapeError(f"frame.numpy.histogram: bins must be a positive int, got {bins}")
        if range is not None:
            lo, hi = (float(v) for v in range)
            if lo > hi:
                raise ShapeError(f"frame.numpy.histogram: max must be larger than min in range {range}")
        elif isinstance(a, Tracer):   # edges in a's float dtype (float64 for ints), as numpy's
            wide = a if _dtype(a).startswith("float") else astype(a, "float64")
            lo, hi = bind("min", wide, axes=(0,), keepdims=False), bind("max", wide, axes=(0,), keepdims=False)
        else:   # numpy's: a's own min and max (numpy scalars, so the edges are computed in a's dtype)
            lo, hi = (_np.min(a), _np.max(a)) if _np.size(a) else (0, 1)
        if not isinstance(lo, Tracer) and lo == hi:     # numpy widens an empty range by 1/2 each side
            lo, hi = lo - 0.5, hi + 0.5
        elif isinstance(lo, Tracer):
            same = lo == hi
            lo, hi = where(same, lo - 0.5, lo), where(same, hi + 0.5, hi)
        if isinstance(lo, Tracer):
            edges = lo + (hi - lo) * (_np.arange(bins + 1) / bins).astype(_dtype(lo))
        else:   # numpy's edges: a linspace in the result type of the range and a, a float one
            bin_type = _np.result_type(lo, hi, _np.dtype(_dtype(a)))
            if bin_type.kind in "iub":
                bin_type = _np.result_type(bin_type, float)
            edges = _np.linspace(lo, hi, bins + 1, dtype=bin_type)
    else:
        edges = as_operand(bins)
        if _ndim(edges) != 1 or _shape(edges)[0] < 2:
            raise ShapeError(f"frame.numpy.histogram: bins must be an int or at least 2 increasing edges, got "
                             f"shape {_shape(edges)}")
        if not isinstance(edges, Tracer) and _np.any(_np.diff(edges) < 0):
            raise ShapeError("frame.numpy.histogram: bins must increase monotonically")
    n = _shape(edges)[0] - 1
    index = searchsorted(edges, a, "right") - 1
    last = getitem(edges, -1)
    index = where(a == last, n - 1, index)                  # the last bin is closed on the right
    present = (a >= getitem(edges, 0)) & (a <= last)
    hist = _counts(index, n, weights, present)
    if density:
        widths = getitem(edges, slice(1, None)) - getitem(edges, slice(None, -1))
        hist = astype(hist, "float64") / widths / bind("sum", hist, axes=(0,), keepdims=False)
    return hist, edges
