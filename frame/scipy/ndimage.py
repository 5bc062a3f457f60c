"""`frame.scipy.ndimage`: `map_coordinates` as jax.scipy.ndimage offers it (orders 0 and 1).

The value at a point is a weighted sum over the grid nodes around it: order 0 takes the nearest node (the
coordinate rounded half away from zero, as JAX does), order 1 the 2**ndim corners of the enclosing cell
with the multilinear weights. Nodes outside the input are mapped back into it by `mode`, with JAX's
meaning of the modes: 'nearest', 'mirror' and 'reflect' as scipy documents them, 'wrap' as scipy's
'grid-wrap' and 'constant' as scipy's 'grid-constant' (nodes outside contribute `cval`). Everything is
frame.numpy (floor, gathers by advanced indexing, where, arithmetic), so the result traces and
differentiates in `input` (and `cval`) and, at order 1, in `coordinates` (piecewise: the weights are linear
in the coordinate within a cell; at order 0 the derivative in the coordinates is zero).
"""
from __future__ import annotations

import itertools

import numpy as _np

from ..errors import ShapeError
from ..frontend import numpy as fnp
from ..frontend.args import _dtype, _int, _shape
from ..tracing import Tracer

__all__ = ["map_coordinates"]

_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")
_OP = "frame.scipy.ndimage.map_coordinates"


def _round_half_away(x):
    """x rounded half away from zero (lax.round's rule; numpy's round is half to even). trunc(x) and
    x - trunc(x) are exact, so no addition of 0.5 can round a value just below a half up."""
    t = fnp.trunc(x)
    return t + fnp.where(fnp.abs(x - t) >= 0.5, fnp.sign(x), fnp.zeros_like(x))


def _mirror(index, size: int):
    """Mirror about the end nodes (period 2 (size - 1)): a triangle wave in the integer index."""
    s = size - 1
    if s == 0:                       # one node: every index is that node
        return fnp.zeros_like(index)
    return fnp.abs(fnp.mod(index + s, 2 * s) - s)


def _reflect(index, size: int):
    """Reflect about the edges half a node beyond the end nodes (period 2 size): node i of the doubled
    grid 2 i + 1 mirrored on a grid of 2 size + 1 nodes, halved back."""
    return fnp.floor_divide(_mirror(2 * index + 1, 2 * size + 1) - 1, 2)


_FIXERS = {
    "constant": lambda index, size: fnp.clip(index, 0, size - 1),   # in range for the gather; masked after
    "nearest": lambda index, size: fnp.clip(index, 0, size - 1),
    "wrap": lambda index, size: fnp.mod(index, size),
    "mirror": _mirror,
    "reflect": _reflect,
}


def _coordinate_list(coordinates, ndim: int):
    if isinstance(coordinates, (list, tuple)):
        coords = [fnp.asarray(c) for c in coordinates]
    else:                            # an array (or traced value) of shape (ndim, ...): one coordinate a row
        coords = fnp.asarray(coordinates)
        coords = [coords[j] for j in range(_shape(coords)[0])] if len(_shape(coords)) else [coords]
    if len(coords) != ndim:
        raise ShapeError(f"{_OP}: coordinates must be a sequence of input.ndim = {ndim} arrays, got "
                         f"{len(coords)} (shapes {[_shape(c) for c in coords]})")
    return coords


def map_coordinates(input, coordinates, order, mode="constant", cval=0.0):
    """`input` interpolated at the points whose j-th coordinates are `coordinates[j]` (all of one shape,
    or broadcastable), with `order` 0 (nearest node) or 1 (multilinear), points beyond the edges handled
    by `mode` ('constant', 'nearest', 'wrap', 'mirror', 'reflect'; JAX's meanings, see the module
    docstring). The result has the coordinates' shape and input's dtype (integer inputs: rounded half away
    from zero)."""
    if isinstance(order, bool) or not isinstance(order, (int, _np.integer)) or order not in (0, 1):
        raise ShapeError(f"{_OP}: order must be 0 or 1 (as in jax.scipy.ndimage), got {order!r}")
    if not isinstance(mode, str) or mode not in _MODES:
        raise ShapeError(f"{_OP}: mode must be one of {_MODES} (as in jax.scipy.ndimage), got {mode!r}")
    x = fnp.asarray(input)
    dtype = _np.dtype(_dtype(x))
    shape = _shape(x)
    coords = _coordinate_list(coordinates, len(shape))
    if len(shape) == 0:
        raise ShapeError(f"{_OP}: input must have at least one dimension, got shape ()")
    try:
        coords = list(fnp.broadcast_arrays(*coords))
    except ShapeError:
        raise ShapeError(f"{_OP}: the coordinate arrays must broadcast together, got shapes "
                         f"{[_shape(c) for c in coords]}") from None
    cval = fnp.astype(fnp.asarray(cval), dtype.name)
    sizes = [_int(n, _OP, "an input dimension") for n in shape]

    # per axis: the (index, in-range, weight) of each node that contributes
    nodes = []
    for c, size in zip(coords, sizes):
        integer = _np.dtype(_dtype(c)).kind in "biu"
        if order == 0:
            index = c if integer else _round_half_away(c)
            pairs = [(fnp.astype(index, "int64"), None)]
        else:
            if integer:              # as numpy's floor would: the weights in float64
                c = fnp.astype(c, "float64")
            lower = fnp.floor(c)
            upper_w = c - lower      # d(weight)/dc = +-1: floor's derivative is zero
            index = fnp.astype(lower, "int64")
            pairs = [(index, 1 - upper_w), (index + 1, upper_w)]
        axis_nodes = []
        for index, weight in pairs:
            valid = (index >= 0) & (index < size) if mode == "constant" else None
            axis_nodes.append((_FIXERS[mode](index, size), valid, weight))
        nodes.append(axis_nodes)

    total = None
    for corner in itertools.product(*nodes):
        indices, valids, weights = zip(*corner)
        value = fnp.getitem(x, tuple(indices))   # x may be a numpy array and the indices traced
        valids = [v for v in valids if v is not None]
        if valids:
            ok = valids[0]
            for v in valids[1:]:
                ok = ok & v
            value = fnp.where(ok, value, cval)
        weights = [w for w in weights if w is not None]
        for w in weights:
            value = value * w
        total = value if total is None else total + value
    if dtype.kind in "biu":
        total = _round_half_away(total)
    return fnp.astype(total, dtype.name)
