"""frame.lax's `gather` and scatters with lax's general dimension numbers, as compositions (see frame.lax).

Covered: `gather`, `scatter`, `scatter_add`, `scatter_sub`, `scatter_mul`, `scatter_min`, `scatter_max`,
`scatter_apply` and `index_take`, with `GatherDimensionNumbers`/`ScatterDimensionNumbers` (batching
dimensions included) and `GatherScatterMode`. No new ops: every window position is spelled out as an
integer index array, one per operand axis that is indexed (axes a window covers whole and no index
touches are moved last and left alone), and the existing `gather` op (numpy's `x[i0, ..., ik]`) reads
them, the `scatter_add`/`scatter` ops (`x.at[...]`'s) write them. So they trace, take traced start
indices (the index arithmetic is then frame ops) and differentiate as those ops do; the indices get no
gradient.

Out-of-bounds windows, as lax: `gather` clamps the start indices so the window fits (CLIP, and
PROMISE_IN_BOUNDS, lax.gather's default, which XLA clamps) or fills the whole window with `fill_value`
(FILL_OR_DROP; NaN for inexact dtypes, the most negative integer for signed ones, True for bool). The
scatters clamp (CLIP) or drop every update of a window that does not fit (FILL_OR_DROP, their default,
and PROMISE_IN_BOUNDS, which XLA drops): a dropped window is sent to a padding row appended to the
operand and cut off again. `unique_indices` and `indices_are_sorted` change no value; `unique_indices`
(or constant indices without duplicates) lets scatter_mul differentiate in its updates, as JAX requires.
Derivatives are those of the clamped/filled/dropped composition, so with PROMISE_IN_BOUNDS and indices
out of bounds they are the clamped gather's and the dropping scatter's (JAX's transpose there switches
to the other behaviour and documents its gradients as incorrect). `scatter_apply` applies `func` to whole
arrays (it must be elementwise), as many times as a position is hit.
Not covered: GatherScatterMode.ONE_HOT, and operand batching dimensions of slice size 0 (lax allows 0 or 1).
"""
from __future__ import annotations

import enum
import math
from typing import Callable, NamedTuple, Sequence

import numpy as _np

from ..errors import ShapeError
from ..frontend import numpy as fnp
from ..frontend.args import _dtype, _shape
from ..frontend.control import fori_loop
from ..tracing import Tracer, bind
from ._common import _array, _operands_same_dtype

__all__ = ["GatherDimensionNumbers", "ScatterDimensionNumbers", "GatherScatterMode", "gather", "scatter",
           "scatter_add", "scatter_sub", "scatter_mul", "scatter_min", "scatter_max", "scatter_apply",
           "index_take"]


class GatherDimensionNumbers(NamedTuple):
    """lax's gather dimension numbers; the index vector is the last axis of `start_indices`."""
    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    """lax's scatter dimension numbers; the index vector is the last axis of `scatter_indices`."""
    update_window_dims: Sequence[int]
    inserted_window_dims: Sequence[int]
    scatter_dims_to_operand_dims: Sequence[int]
    operand_batching_dims: Sequence[int] = ()
    scatter_indices_batching_dims: Sequence[int] = ()


class GatherScatterMode(enum.Enum):
    """How out-of-bounds windows are handled: CLIP clamps the start indices so the window fits;
    FILL_OR_DROP fills a gathered window with the fill value and drops a scattered one;
    PROMISE_IN_BOUNDS promises they do not occur (frame then clamps gathers and drops scatters, as XLA)."""
    CLIP = enum.auto()
    FILL_OR_DROP = enum.auto()
    PROMISE_IN_BOUNDS = enum.auto()

    @staticmethod
    def from_any(s) -> "GatherScatterMode":
        """A mode, or its lax spelling: "clip", "fill"/"drop"/None (FILL_OR_DROP), "promise_in_bounds"."""
        if isinstance(s, GatherScatterMode):
            return s
        if s == "clip":
            return GatherScatterMode.CLIP
        if s is None or s == "fill" or s == "drop":
            return GatherScatterMode.FILL_OR_DROP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        raise ShapeError(f'Unknown gather mode "{s}" (frame covers "clip", "fill", "drop" and "promise_in_bounds")')


# -- checks of the static arguments (lax's, named by function and shapes) -----------------------------
def _ints(name: str, what: str, dims) -> tuple[int, ...]:
    try:
        return tuple(int(d) for d in dims)
    except TypeError:
        raise ShapeError(f"lax.{name}: {what} must be a sequence of ints, got {dims!r}") from None


def _check_dims(name, what, dims, bound, where, ordered=True):
    if ordered and list(dims) != sorted(dims):
        raise ShapeError(f"lax.{name}: {what} {dims} must be sorted ({where})")
    if len(set(dims)) != len(dims):
        raise ShapeError(f"lax.{name}: {what} {dims} must not repeat ({where})")
    if any(not 0 <= d < bound for d in dims):
        raise ShapeError(f"lax.{name}: {what} {dims} must lie in [0, {bound}) ({where})")


def _disjoint(name, what1, dims1, what2, dims2, where):
    if set(dims1) & set(dims2):
        raise ShapeError(f"lax.{name}: {what1} {dims1} and {what2} {dims2} must be disjoint ({where})")


def _batching(name, op_batch, idx_batch, xshape, ishape, where):
    """Checks shared by gather and scatter of the batching dimensions and the index vector."""
    if len(ishape) < 1:
        raise ShapeError(f"lax.{name}: the indices need an index vector axis (the last), got a scalar ({where})")
    _check_dims(name, "operand_batching_dims", op_batch, len(xshape), where)
    _check_dims(name, "indices batching dims", idx_batch, len(ishape) - 1, where, ordered=False)
    if len(op_batch) != len(idx_batch):
        raise ShapeError(f"lax.{name}: operand_batching_dims {op_batch} and the indices batching dims {idx_batch} "
                         f"must be as many ({where})")
    if any(xshape[a] != ishape[b] for a, b in zip(op_batch, idx_batch)):
        raise ShapeError(f"lax.{name}: operand batching dims {op_batch} and indices batching dims {idx_batch} must "
                         f"have the same sizes ({where})")


def _indices(name: str, indices):
    """The indices as int64 (numpy when constant, so their arithmetic stays constant)."""
    if isinstance(indices, Tracer):
        if _np.dtype(indices.dtype).kind not in "iu":
            raise ShapeError(f"lax.{name}: indices must be integers, got a traced {indices.dtype} {indices.shape}")
        return fnp.astype(indices, "int64")
    arr = _np.asarray(indices)
    if arr.dtype.kind not in "iu":
        raise ShapeError(f"lax.{name}: indices must be integers, got {arr.dtype} {arr.shape}")
    return arr.astype(_np.int64)


# -- the shared layout: per-axis index arrays for every window position ------------------------------
class _Layout(NamedTuple):
    perm: tuple[int, ...]       # operand axes, the indexed ones first
    coords: list                # one index array per indexed axis, of shape batch + indexed window sizes
    in_bounds: object           # bool of the batch shape: the window fits (None: known to)
    window_axes: list           # the gather result's axis of each window axis, in operand order
    lead: bool                  # a size-1 leading axis was added (nothing is indexed)


def _layout(xshape, idx, start_map, op_batch, idx_batch, sizes, windowed, drop: bool) -> _Layout:
    """Index arrays reading/writing windows of `sizes` at the (clamped) starts `idx` along `start_map`,
    each batch position's own slice along `op_batch`; with `drop`, windows that do not fit move to a
    padding row past the end of the first indexed axis."""
    traced = isinstance(idx, Tracer)
    xp = fnp if traced else _np
    batch = tuple(_shape(idx)[:-1])
    nb = len(batch)
    untouched = [d for d in windowed if d not in start_map and sizes[d] == xshape[d]]
    indexed = [d for d in range(len(xshape)) if d not in untouched]
    win_indexed = [d for d in windowed if d in indexed]
    full = batch + tuple(sizes[d] for d in win_indexed)
    tail = (1,) * len(win_indexed)

    starts, in_bounds = {}, None
    for k, d in enumerate(start_map):
        s, hi = idx[..., k], xshape[d] - sizes[d]
        ok = xp.logical_and(s >= 0, s <= hi)
        in_bounds = ok if in_bounds is None else xp.logical_and(in_bounds, ok)
        starts[d] = xp.clip(s, 0, max(hi, 0))
    for a, b in zip(op_batch, idx_batch):   # each batch position reads its own slice: no bound to check
        starts[a] = _np.arange(xshape[a]).reshape([-1 if i == b else 1 for i in range(nb)])
    if not traced and in_bounds is not None and in_bounds.all():
        in_bounds = None

    lead = not indexed
    if lead:   # every axis whole: index a new leading axis of size 1 at 0
        indexed, coords = [None], [_np.zeros(full, _np.int64)]
    else:
        coords = []
        for d in indexed:
            c = starts.get(d, _np.zeros((1,) * nb, _np.int64))
            if drop and in_bounds is not None and d == indexed[0]:
                c = xp.where(in_bounds, c, xshape[d])
            c = xp.reshape(c, _shape(c) + tail)
            if d in win_indexed:
                j = win_indexed.index(d)
                c = c + _np.arange(sizes[d]).reshape((1,) * (nb + j) + (-1,) + (1,) * (len(tail) - j - 1))
            coords.append(_np.array(_np.broadcast_to(c, full)) if isinstance(c, _np.ndarray)
                          else fnp.broadcast_to(c, full))
    window_axes = [nb + (win_indexed.index(d) if d in win_indexed else len(win_indexed) + untouched.index(d))
                   for d in windowed]
    perm = tuple(indexed + untouched) if not lead else tuple(range(len(xshape)))
    return _Layout(perm, coords, in_bounds, window_axes, lead)


def _inverse(perm):
    return tuple(int(i) for i in _np.argsort(perm))


# -- gather ---------------------------------------------------------------------------------------
def _default_fill(dtype):
    dtype = _np.dtype(dtype)
    if dtype.kind in "fc":
        return _np.nan
    if dtype.kind == "i":
        return _np.iinfo(dtype).min
    if dtype.kind == "u":
        return _np.iinfo(dtype).max
    return True


def gather(operand, start_indices, dimension_numbers, slice_sizes, *, unique_indices=False,
           indices_are_sorted=False, mode=None, fill_value=None):
    """lax.gather: the windows of `slice_sizes` at `start_indices` (index vector last), laid out by
    `dimension_numbers`; `mode` None is PROMISE_IN_BOUNDS (clamped), as lax.gather's."""
    x = _array(operand)
    idx = _indices("gather", start_indices)
    xshape, ishape = tuple(_shape(x)), tuple(_shape(idx))
    dn = dimension_numbers
    offset, collapsed, start_map = (_ints("gather", w, v) for w, v in (
        ("offset_dims", dn.offset_dims), ("collapsed_slice_dims", dn.collapsed_slice_dims),
        ("start_index_map", dn.start_index_map)))
    op_batch = _ints("gather", "operand_batching_dims", dn.operand_batching_dims)
    idx_batch = _ints("gather", "start_indices_batching_dims", dn.start_indices_batching_dims)
    sizes = _ints("gather", "slice_sizes", slice_sizes)
    where = f"operand {xshape}, indices {ishape}, slice_sizes {sizes}"
    _batching("gather", op_batch, idx_batch, xshape, ishape, where)
    rank, nb = len(xshape), len(ishape) - 1
    _check_dims("gather", "offset_dims", offset, nb + len(offset), where)
    if len(start_map) != ishape[-1]:
        raise ShapeError(f"lax.gather: start_index_map {start_map} needs one entry per index vector component, "
                         f"{ishape[-1]} ({where})")
    _check_dims("gather", "start_index_map", start_map, rank, where, ordered=False)
    _check_dims("gather", "collapsed_slice_dims", collapsed, rank, where)
    _disjoint("gather", "collapsed_slice_dims", collapsed, "operand_batching_dims", op_batch, where)
    _disjoint("gather", "start_index_map", start_map, "operand_batching_dims", op_batch, where)
    if len(sizes) != rank:
        raise ShapeError(f"lax.gather: slice_sizes needs one size per operand axis ({where})")
    if rank != len(offset) + len(collapsed) + len(op_batch):
        raise ShapeError(f"lax.gather: every operand axis must be an offset dim, collapsed or batching: offset_dims "
                         f"{offset}, collapsed_slice_dims {collapsed}, operand_batching_dims {op_batch} ({where})")
    if math.prod(ishape) and any(not 0 <= s <= n for s, n in zip(sizes, xshape)):
        raise ShapeError(f"lax.gather: slice_sizes must lie in [0, operand size] ({where})")
    if any(sizes[d] != 1 for d in (*collapsed, *op_batch)):
        raise ShapeError(f"lax.gather: collapsed_slice_dims {collapsed} and operand_batching_dims {op_batch} need "
                         f"slice size 1 ({where})")
    parsed = GatherScatterMode.from_any(GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else mode)

    windowed = [d for d in range(rank) if d not in collapsed and d not in op_batch]
    lay = _layout(xshape, idx, start_map, op_batch, idx_batch, sizes, windowed, drop=False)
    src = fnp.reshape(x, (1,) + xshape) if lay.lead else fnp.transpose(x, lay.perm)
    g = bind("gather", src, *lay.coords)
    if parsed == GatherScatterMode.FILL_OR_DROP and lay.in_bounds is not None:
        fill = _np.asarray(_default_fill(_dtype(x)) if fill_value is None else fill_value, dtype=_dtype(x))
        mask = fnp.reshape(lay.in_bounds, ishape[:-1] + (1,) * (len(_shape(g)) - nb))
        g = fnp.where(mask, g, fill)
    out, batch_axes = [], iter(range(nb))
    for o in range(nb + len(offset)):
        out.append(lay.window_axes[offset.index(o)] if o in offset else next(batch_axes))
    return fnp.transpose(g, tuple(out)) if out != list(range(len(out))) else g


def index_take(src, idxs, axes):
    """lax.index_take: `src` at the integer arrays `idxs` (one per axis of `axes`, sorted; negative ones
    wrap), the indexed axes replaced by one leading axis."""
    x = _array(src)
    axes = _ints("index_take", "axes", axes)
    idxs = [_indices("index_take", i) for i in idxs]
    if len(idxs) != len(axes) or not idxs:
        raise ShapeError(f"lax.index_take: needs one index array per axis, got {len(idxs)} for axes {axes}")
    traced = any(isinstance(i, Tracer) for i in idxs)
    indices = (fnp.stack if traced else _np.stack)(idxs, 1)
    if any(not 0 <= a < len(_shape(x)) for a in axes):
        raise ShapeError(f"lax.index_take: axes {axes} out of range for src of shape {_shape(x)}")
    indices = indices % _np.array([_shape(x)[a] for a in axes])   # wrap negative indices, as lax does
    sizes = [1 if a in axes else n for a, n in enumerate(_shape(x))]
    dn = GatherDimensionNumbers(offset_dims=tuple(range(1, len(_shape(x)) - len(axes) + 1)),
                                collapsed_slice_dims=tuple(axes), start_index_map=tuple(axes))
    return gather(x, indices, dn, sizes)


# -- scatters -------------------------------------------------------------------------------------
def _scatter(name, kind, operand, scatter_indices, updates, dimension_numbers, unique_indices, mode):
    """The scatters: `kind` is "add" or a mode of the `scatter` op ("set", "mul", "min", "max")."""
    x, u = _operands_same_dtype(name, (operand, updates))
    idx = _indices(name, scatter_indices)
    xshape, ishape, ushape = tuple(_shape(x)), tuple(_shape(idx)), tuple(_shape(u))
    dn = dimension_numbers
    uwd = _ints(name, "update_window_dims", dn.update_window_dims)
    inserted = _ints(name, "inserted_window_dims", dn.inserted_window_dims)
    start_map = _ints(name, "scatter_dims_to_operand_dims", dn.scatter_dims_to_operand_dims)
    op_batch = _ints(name, "operand_batching_dims", dn.operand_batching_dims)
    idx_batch = _ints(name, "scatter_indices_batching_dims", dn.scatter_indices_batching_dims)
    where = f"operand {xshape}, indices {ishape}, updates {ushape}"
    _batching(name, op_batch, idx_batch, xshape, ishape, where)
    rank, nb = len(xshape), len(ishape) - 1
    if len(ushape) != nb + len(uwd):
        raise ShapeError(f"lax.{name}: updates must have rank {nb + len(uwd)} (the indices' batch axes and "
                         f"update_window_dims {uwd}) ({where})")
    _check_dims(name, "update_window_dims", uwd, len(ushape), where)
    _check_dims(name, "inserted_window_dims", inserted, rank, where)
    _disjoint(name, "inserted_window_dims", inserted, "operand_batching_dims", op_batch, where)
    _disjoint(name, "scatter_dims_to_operand_dims", start_map, "operand_batching_dims", op_batch, where)
    if rank != len(uwd) + len(inserted) + len(op_batch):
        raise ShapeError(f"lax.{name}: every operand axis must be an update window, inserted or batching dim: "
                         f"update_window_dims {uwd}, inserted_window_dims {inserted}, operand_batching_dims "
                         f"{op_batch} ({where})")
    if len(start_map) != ishape[-1]:
        raise ShapeError(f"lax.{name}: scatter_dims_to_operand_dims {start_map} needs one entry per index vector "
                         f"component, {ishape[-1]} ({where})")
    _check_dims(name, "scatter_dims_to_operand_dims", start_map, rank, where, ordered=False)
    windowed = [d for d in range(rank) if d not in inserted and d not in op_batch]
    sizes = [1] * rank
    for d, a in zip(windowed, uwd):
        sizes[d] = ushape[a]
    if any(sizes[d] > xshape[d] for d in windowed):
        raise ShapeError(f"lax.{name}: the update windows {tuple(ushape[a] for a in uwd)} must fit the operand's "
                         f"window axes {tuple(xshape[d] for d in windowed)} ({where})")
    scatter_axes = [a for a in range(len(ushape)) if a not in uwd]
    if tuple(ushape[a] for a in scatter_axes) != ishape[:-1]:
        raise ShapeError(f"lax.{name}: the updates' scatter axes {tuple(ushape[a] for a in scatter_axes)} must "
                         f"match the indices' batch shape {ishape[:-1]} ({where})")
    parsed = GatherScatterMode.from_any(mode)
    drop = parsed != GatherScatterMode.CLIP

    lay = _layout(xshape, idx, start_map, op_batch, idx_batch, sizes, windowed, drop=drop)
    dst = fnp.reshape(x, (1,) + xshape) if lay.lead else fnp.transpose(x, lay.perm)
    # the updates in the gather layout: batch axes, then the window axes as `window_axes` places them
    order = [0] * (nb + len(windowed))
    for a, j in zip(scatter_axes, range(nb)):
        order[j] = a
    for a, j in zip(uwd, lay.window_axes):
        order[j] = a
    up = fnp.transpose(u, tuple(order)) if order != list(range(len(order))) else u
    padded = drop and lay.in_bounds is not None
    if padded:   # a row past the end of the first indexed axis receives the dropped windows
        n = len(_shape(dst))
        dst = bind("pad", dst, lo=(0,) * n, hi=(max(sizes[lay.perm[0]], 1),) + (0,) * (n - 1), interior=(0,) * n)
    if kind == "add":
        y = bind("scatter_add", dst, up, *lay.coords)
    else:
        unique = bool(unique_indices) or _distinct(lay, _shape(dst))
        y = bind("scatter", dst, up, *lay.coords, mode=kind, unique=unique)
    if padded:
        y = fnp.slice_axes(y, (0,) * len(_shape(y)), (_shape(x)[lay.perm[0]],) + tuple(_shape(y)[1:]))
    if lay.lead:
        return fnp.reshape(y, xshape)
    return fnp.transpose(y, _inverse(lay.perm)) if lay.perm != tuple(range(rank)) else y


def _distinct(lay: _Layout, shape) -> bool:
    """Whether constant positions are known distinct among the windows kept (dropped ones share the padding)."""
    if any(isinstance(c, Tracer) for c in lay.coords) or isinstance(lay.in_bounds, Tracer):
        return False
    flat = _np.ravel_multi_index(lay.coords, shape[:len(lay.coords)])
    if lay.in_bounds is not None:
        kept = lay.in_bounds.reshape(lay.in_bounds.shape + (1,) * (flat.ndim - lay.in_bounds.ndim))
        flat = flat[_np.broadcast_to(kept, flat.shape)]
    return _np.unique(flat).size == flat.size


def _scatter_function(name: str, kind: str, doc: str):
    def function(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted=False,
                 unique_indices=False, mode=None):
        if kind == "sub":   # operand - updates: a scatter_add of the negated updates
            u = _array(updates)
            return _scatter(name, "add", operand, scatter_indices, -u, dimension_numbers, unique_indices, mode)
        return _scatter(name, kind, operand, scatter_indices, updates, dimension_numbers, unique_indices, mode)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


scatter = _scatter_function("scatter", "set", "lax.scatter: `updates` written into `operand` at the windows "
                            "`dimension_numbers` give (duplicates: one of them, the last here); mode None drops "
                            "windows out of bounds.")
scatter_add = _scatter_function("scatter_add", "add", "lax.scatter_add: `updates` added into `operand` (duplicates "
                                "accumulate); mode None drops windows out of bounds.")
scatter_sub = _scatter_function("scatter_sub", "sub", "lax.scatter_sub: `updates` subtracted from `operand`.")
scatter_mul = _scatter_function("scatter_mul", "mul", "lax.scatter_mul: `operand` multiplied by `updates` (every "
                                "duplicate); its gradient in the updates needs unique indices, as lax's.")
scatter_min = _scatter_function("scatter_min", "min", "lax.scatter_min: the minimum of `operand` and the updates.")
scatter_max = _scatter_function("scatter_max", "max", "lax.scatter_max: the maximum of `operand` and the updates.")


def scatter_apply(operand, scatter_indices, func: Callable, dimension_numbers, *, update_shape=(),
                  indices_are_sorted=False, unique_indices=False, mode=None):
    """lax.scatter_apply: `func` applied at the positions the windows (of `update_shape`) cover, once per
    hit. `func` gets whole arrays here, so it must be elementwise (lax applies it to scalars)."""
    x = _array(operand)
    hits = _scatter("scatter_apply", "add", _np.zeros(_shape(x), _np.int64), scatter_indices,
                    _np.ones(tuple(update_shape), _np.int64), dimension_numbers, unique_indices, mode)
    # a position hit k times gets func k times: step r applies it where more than r hits remain
    def step(r, y):
        return fnp.where(hits > r, func(y), y)
    if isinstance(hits, Tracer):
        return fori_loop(0, fnp.max(hits) if _np.prod(_shape(hits)) else 0, step, x)
    y = x
    for r in range(int(hits.max()) if hits.size else 0):
        y = step(r, y)
    return y
