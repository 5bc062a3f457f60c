"""frame.numpy's set routines (numpy's doc grouping): `unique` and numpy 2's `unique_values`,
`unique_counts`, `unique_inverse`, `unique_all`; `isin`; `union1d`, `intersect1d`, `setdiff1d`, `setxor1d`.

`isin` compares every element with every test element (a broadcast `==`, O(n * m) work), so it traces.
The others return one element per distinct value, so their length depends on the values: concrete
operands are computed by numpy itself; traced ones need jax.numpy's `size=` (a static length: the first
`size` sorted results, the slots past their count holding `fill_value`), else TraceError naming the
function. That form stands on the stable argsort (equal values side by side, the first occurrence
first) and nonzero's static form (numpy_sort.py); values flow through gathers, so they differentiate.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as _np

from ..errors import ShapeError
from ..tracing import Tracer, bind
from .args import _axis, _dtype, _ndim, _shape
from .numpy_creation import asarray
from .numpy_logic import astype, where
from .numpy_reduce import argmax, cumsum
from .numpy_shape import concatenate, expand_dims, getitem, moveaxis, ravel, reshape, take
from .numpy_sort import _filled, _first_true, _needs_size, _static_size, argsort, lexsort

__all__ = ["unique", "unique_values", "unique_counts", "unique_inverse", "unique_all", "isin", "union1d",
           "intersect1d", "setdiff1d", "setxor1d"]


class UniqueAllResult(NamedTuple):
    """`unique_all`'s result, as numpy's."""
    values: object
    indices: object
    inverse_indices: object
    counts: object


class UniqueCountsResult(NamedTuple):
    """`unique_counts`' result, as numpy's."""
    values: object
    counts: object


class UniqueInverseResult(NamedTuple):
    """`unique_inverse`'s result, as numpy's."""
    values: object
    inverse_indices: object


class _Distinct(NamedTuple):
    values: object     # the first `size` distinct values (slices along the axis), sorted, then padding
    valid: object      # whether each slot holds one
    index: object      # where each first occurs in the operand
    inverse: object    # the slot of each element (slice) of the operand (None unless asked)
    counts: object     # how many times each occurs, 0 for padding (None unless asked)


def _distinct(op: str, ar, axis, equal_nan: bool, size: int, fill_value, inverse=False, counts=False) -> _Distinct:
    """unique's static-length form: the slices of `ar` along `axis` (None: its elements) sorted
    lexicographically (stable), a group starting where a slice differs from the one before, the first
    `size` groups kept. Padding: `fill_value`, else the smallest value, as jax.numpy pads."""
    shape = _shape(ar)
    flat = axis is None or len(shape) == 1    # numpy's 1-d case: NaNs may be equal, inverse shaped like ar
    moved = ravel(ar) if axis is None else moveaxis(ar, axis, 0)
    n, rest = _shape(moved)[0], _shape(moved)[1:]
    if n == 0 and size and fill_value is None:
        raise ShapeError(f"op '{op}': the operand is empty: no smallest value to pad {size} slots with; give "
                         "fill_value=")
    rows = reshape(moved, (n, math.prod(rest)))
    columns = [getitem(rows, (slice(None), j)) for j in range(_shape(rows)[1])]
    perm = lexsort(columns[::-1]) if columns else _np.arange(n)   # the first column most significant
    aux = take(rows, perm, axis=0)
    if n:
        later, earlier = getitem(aux, slice(1, None)), getitem(aux, slice(None, -1))
        differs = bind("not_equal", later, earlier)
        if equal_nan and flat and _dtype(ar)[:5] in ("float", "compl"):   # NaNs sort last: one group
            differs = differs & ~(bind("isnan", later) & bind("isnan", earlier))
        starts = concatenate([_np.ones(1, bool), bind("any", differs, axes=(1,), keepdims=False)])
    else:
        starts = _np.zeros(0, bool)
    bounds, held = _first_true(starts, size + 1)   # one slot more: where the last kept group ends
    first, valid = getitem(bounds, slice(0, size)), getitem(held, slice(0, size))
    values = take(aux, first, axis=0) if n else _np.zeros((size,) + _shape(rows)[1:], _dtype(ar))
    if fill_value is not None:
        values = _filled(values, valid, fill_value)
    values = reshape(values, (size,) + rest)
    values = values if axis is None else moveaxis(values, 0, axis)
    index = take(perm, first) if n else _np.zeros(size, _np.int64)
    group = tally = None
    if inverse:   # each element's group, read back in the operand's order (argsort(perm) inverts perm)
        group = take(cumsum(starts) - 1, argsort(perm)) if n else _np.zeros(0, _np.int64)
        group = reshape(group, shape) if flat else group
    if counts:    # the distance to the next group's start (to the end, n, from the last group)
        bounds = where(held, bounds, n)
        tally = getitem(bounds, slice(1, None)) - getitem(bounds, slice(None, -1))
    return _Distinct(values, valid, index, group, tally)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True,
           sorted=True, size=None, fill_value=None):  # noqa: A002  (numpy's name)
    """numpy's `unique`: the sorted distinct elements of `ar` (flattened), or its distinct slices along
    `axis`; with the indices of their first occurrences, the inverse (the position of each element's value:
    `ar`'s shape for axis None) and the counts (int64). `equal_nan`: all NaNs are one value. Always
    sorted (`sorted=False` allows that). A traced `ar` needs jax.numpy's `size=` (the first `size`
    values; the slots past their count hold `fill_value`, default the smallest value, with index of the
    smallest and count 0); TraceError without it."""
    return _unique("unique", ar, return_index, return_inverse, return_counts, axis, equal_nan, size, fill_value)


def _unique(op: str, ar, return_index, return_inverse, return_counts, axis, equal_nan, size, fill_value):
    ar = asarray(ar)
    if axis is not None:
        axis = _axis(axis, _ndim(ar), op)
    if size is None:
        if isinstance(ar, Tracer):
            _needs_size(op, "ar" if op == "unique" else "x")
        return _np.unique(ar, return_index, return_inverse, return_counts, axis, equal_nan=equal_nan)
    d = _distinct(op, ar, axis, equal_nan, _static_size(op, size), fill_value, return_inverse, return_counts)
    out = (d.values,) + ((d.index,) if return_index else ()) + ((d.inverse,) if return_inverse else ()) + \
        ((d.counts,) if return_counts else ())
    return out if len(out) > 1 else out[0]


def unique_values(x, *, size=None, fill_value=None):
    """numpy 2's `unique_values`: `unique(x, equal_nan=False)` (every NaN its own value). Sorted, which
    numpy allows (its order is unspecified); traced `x` needs `size=`, as `unique`."""
    return _unique("unique_values", x, False, False, False, None, False, size, fill_value)


def unique_counts(x, *, size=None, fill_value=None):
    """numpy 2's `unique_counts`: (values, counts) of `unique(x, equal_nan=False)`, named as numpy's."""
    return UniqueCountsResult(*_unique("unique_counts", x, False, False, True, None, False, size, fill_value))


def unique_inverse(x, *, size=None, fill_value=None):
    """numpy 2's `unique_inverse`: (values, inverse_indices, of x's shape) of `unique(x, equal_nan=False)`."""
    return UniqueInverseResult(*_unique("unique_inverse", x, False, True, False, None, False, size, fill_value))


def unique_all(x, *, size=None, fill_value=None):
    """numpy 2's `unique_all`: (values, indices, inverse_indices, counts) of `unique(x, equal_nan=False)`."""
    return UniqueAllResult(*_unique("unique_all", x, True, True, True, None, False, size, fill_value))


_ISIN_KINDS = (None, "sort", "table")


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """numpy's `isin`: whether each element of `element` equals some element of `test_elements` (bool, of
    element's shape; NaN is in nothing), or the opposite with `invert`. Compares every pair (a broadcast
    `==`), so both may be traced; `assume_unique` and `kind` change nothing but numpy's checks."""
    if kind not in _ISIN_KINDS:
        raise ShapeError(f"op 'isin': kind must be None, 'sort' or 'table', got {kind!r}")
    element, test = asarray(element), ravel(asarray(test_elements))
    if kind == "table" and any(_dtype(x)[:3] not in ("int", "boo") for x in (element, test)):
        raise ShapeError(f"op 'isin': the 'table' kind is only for bool or integer arrays, got {_dtype(element)} and "
                         f"{_dtype(test)}; use 'sort' or None")
    found = bind("any", bind("equal", expand_dims(element, -1), test), axes=(_ndim(element),), keepdims=False)
    return bind("logical_not", found) if invert else found


def _pair(op: str, ar1, ar2, size, promote=True):
    """Both operands flattened (in their common dtype, when `promote`); TraceError for traced ones without
    `size`, which the caller then computes with numpy."""
    ar1, ar2 = asarray(ar1), asarray(ar2)
    if size is None and (isinstance(ar1, Tracer) or isinstance(ar2, Tracer)):
        _needs_size(op, "ar1 and ar2")
    if promote and size is not None:
        dtype = _np.result_type(_dtype(ar1), _dtype(ar2)).name
        ar1, ar2 = astype(ar1, dtype), astype(ar2, dtype)
    return ravel(ar1), ravel(ar2)


def _kept(op: str, values, keep, size: int, fill_value):
    """The first `size` of the sorted `values` where `keep`; padding `fill_value` (default: the smallest
    kept value, 0 when there is none, as jax.numpy pads). Also the slots' positions and validity."""
    pick, valid = _first_true(keep, size)
    if _shape(values)[0] == 0:
        return _filled(_np.zeros(size, _dtype(values)), valid, 0 if fill_value is None else fill_value), pick, valid
    out = take(values, pick)
    if fill_value is None and size:
        fill_value = where(getitem(valid, 0), getitem(out, 0), 0)
    return _filled(out, valid, 0 if fill_value is None else fill_value), pick, valid


def union1d(ar1, ar2, *, size=None, fill_value=None):
    """numpy's `union1d`: the sorted distinct values of both (flattened). Traced operands need jax.numpy's
    `size=` (padding `fill_value`, default the smallest value), as `unique`."""
    ar1, ar2 = _pair("union1d", ar1, ar2, size)
    if size is None:
        return _np.union1d(ar1, ar2)
    return _distinct("union1d", concatenate([ar1, ar2]), None, True, _static_size("union1d", size), fill_value).values


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None, fill_value=None):
    """numpy's `intersect1d`: the sorted values in both (flattened; NaN in neither), with `return_indices`
    the index of each one's first occurrence in `ar1` and in `ar2`. Traced operands need jax.numpy's
    `size=` (padding `fill_value`, default the smallest result, 0 for none; padded indices are the sizes
    of ar1 and ar2, as jax.numpy's); `assume_unique` is a promise numpy may use, not needed here."""
    ar1, ar2 = _pair("intersect1d", ar1, ar2, size)
    if size is None:
        return _np.intersect1d(ar1, ar2, assume_unique, return_indices)
    size = _static_size("intersect1d", size)
    d = _distinct("intersect1d", ar1, None, True, _shape(ar1)[0], 0)
    values, pick, valid = _kept("intersect1d", d.values, d.valid & isin(d.values, ar2), size, fill_value)
    if not return_indices:
        return values
    n1, n2 = _shape(ar1)[0], _shape(ar2)[0]
    first1 = take(d.index, pick) if n1 else _np.zeros(size, _np.int64)
    # the first equal element of ar2: argmax of the equality row (padding slots are replaced below)
    first2 = argmax(bind("equal", expand_dims(values, -1), ar2), axis=-1) if n2 else _np.zeros(size, _np.int64)
    return values, where(valid, first1, n1), where(valid, first2, n2)


def setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """numpy's `setdiff1d`: the sorted distinct values of `ar1` not in `ar2` (with `assume_unique`, ar1's
    values in their own order, as numpy). Traced operands need jax.numpy's `size=` (padding `fill_value`,
    default 0, as jax.numpy's)."""
    ar1, ar2 = _pair("setdiff1d", ar1, ar2, size, promote=False)
    if size is None:
        return _np.setdiff1d(ar1, ar2, assume_unique)
    size = _static_size("setdiff1d", size)
    fill_value = 0 if fill_value is None else fill_value
    if assume_unique:
        return _kept("setdiff1d", ar1, ~isin(ar1, ar2), size, fill_value)[0]
    d = _distinct("setdiff1d", ar1, None, True, _shape(ar1)[0], 0)
    return _kept("setdiff1d", d.values, d.valid & ~isin(d.values, ar2), size, fill_value)[0]


def setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """numpy's `setxor1d`: the sorted values in exactly one of the two (flattened; a NaN in each is kept
    twice, as numpy keeps it). Traced operands need jax.numpy's `size=` (padding `fill_value`, default the
    smallest result, 0 for none); `assume_unique` is a promise numpy may use, not needed here."""
    ar1, ar2 = _pair("setxor1d", ar1, ar2, size)
    if size is None:
        return _np.setxor1d(ar1, ar2, assume_unique)
    size = _static_size("setxor1d", size)
    d1 = _distinct("setxor1d", ar1, None, True, _shape(ar1)[0], 0)
    d2 = _distinct("setxor1d", ar2, None, True, _shape(ar2)[0], 0)
    values = concatenate([d1.values, d2.values])
    keep = concatenate([d1.valid & ~isin(d1.values, ar2), d2.valid & ~isin(d2.values, ar1)])
    order = lexsort([values, ~keep])    # the kept values first, sorted (the two sets share none)
    return _kept("setxor1d", take(values, order), take(keep, order), size, fill_value)[0]
