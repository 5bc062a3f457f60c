"""`from_jax` rules for shape and indexing (gather, scatter, ...): JAX primitives that are not one frame op.

`TRANSLATIONS`: primitive -> rule(importer, eqn, *operands) -> Value or [Value] (see jax_import);
`PARAMETERS`: primitive -> the audit of each of its parameters (jax_audit's vocabulary). Both are
merged into jax_import's tables.

gather and the scatters import in the forms jnp's indexing produces (`x[idx]`, `x[:, idx]`,
`x[i, j]`, `take_along_axis`, `x.at[idx].set/add/multiply/min/max`): every indexed operand axis
is collapsed (a window of size 1; batching axes, as take_along_axis makes, index with a ramp) and
every other axis is taken whole. That is frame's `gather(x, i0, ...)` over the indexed axes moved
to the front; windowed gathers (a slice of size > 1 at a computed start) are refused by name.
Indices out of range follow JAX's `mode`: with `clip` each index is clamped into its axis; with
`fill`/`drop` (FILL_OR_DROP: `jnp.take`'s default, and every `jax.ops.segment_*`) a gather reads the
fill value there and a scatter drops that update (negative indices included: JAX never wraps them).
Drops are built from frame ops: the out-of-range updates go to one extra slot past the end of each
indexed axis, which is sliced off. With `promise_in_bounds` frame's kernels raise for an index past
the end.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..errors import FrameError
from .jax_audit import checked, implemented, irrelevant

_MODE = implemented("clip clamps the indices, fill/drop masks them (the gather's fill value, the scatter's extra "
                    "slot); promise_in_bounds leaves them to frame's kernels, which raise past the end")
_HINTS = irrelevant("a promise about the indices (sorted, unique) that lets XLA choose a faster algorithm")


def _index_operands(imp, indices, batching_pairs):
    """The index operands of frame's gather/scatter: each column of `indices` (index vector last),
    then for each (operand axis, index batch axis) pair a ramp along that batch axis."""
    batch, k = indices.type.shape[:-1], indices.type.shape[-1]
    columns = []
    for c in range(k):
        starts, stops = [0] * len(batch) + [c], list(batch) + [c + 1]
        column = imp.node("slice", [indices], starts=tuple(starts), stops=tuple(stops), steps=(1,) * (len(batch) + 1))
        columns.append(imp.reshape(column, batch))
    dtype = np.dtype(indices.type.dtype)
    for _, axis in batching_pairs:
        ramp = np.arange(batch[axis], dtype=dtype).reshape([-1 if a == axis else 1 for a in range(len(batch))])
        columns.append(imp.constant(np.broadcast_to(ramp, batch)))
    return columns


def _front(imp, x, axes):
    """`x` with `axes` moved to the front (the others keep their order); the permutation."""
    perm = tuple(axes) + tuple(a for a in range(x.type.rank) if a not in axes)
    return (x if perm == tuple(range(len(perm))) else imp.node("transpose", [x], perm=perm)), perm


def _whole_windows(x, axes, sizes, indexed, what):
    """Refuse a windowed access: indexed axes need windows of size 1, the others the whole axis."""
    for a in range(x.type.rank):
        want = 1 if a in indexed else x.type.shape[a]
        if int(sizes[a]) != want:
            raise FrameError(f"{what} reads a window of size {sizes[a]} along operand axis {a} (of size "
                             f"{x.type.shape[a]}); frame imports gathers and scatters that index single positions "
                             "and take the other axes whole (jnp indexing), not windows at computed starts")
    if sorted(axes) != sorted(indexed):
        raise FrameError(f"{what} indexes operand axes {sorted(indexed)} but collapses {sorted(axes)}")


def _gather(imp, eqn, x, indices):
    dn = eqn.params["dimension_numbers"]
    pairs = list(zip(dn.operand_batching_dims, dn.start_indices_batching_dims))
    indexed = [int(a) for a in dn.start_index_map] + [int(a) for a, _ in pairs]
    _whole_windows(x, [*dn.collapsed_slice_dims, *dn.operand_batching_dims], eqn.params["slice_sizes"], indexed,
                   "this gather")
    front, _ = _front(imp, x, indexed)
    columns = _index_operands(imp, indices, pairs)
    columns, valid = _apply_mode(imp, eqn, columns, front.type.shape, drop_to_end=False)
    y = imp.node("gather", [front, *columns])
    if valid is not None:   # FILL_OR_DROP: out-of-range rows read the fill value
        rows = valid.type.shape
        mask = imp.reshape(valid, rows + (1,) * (y.type.rank - len(rows)))
        fill = imp.constant(np.asarray(_fill_value(eqn, y.type.dtype), dtype=y.type.dtype))
        y = imp.node("where", [mask, y, fill])
    # JAX's output: the window (whole, uncollapsed) axes at offset_dims, the index batch axes elsewhere.
    n_batch, offset = indices.type.rank - 1, [int(d) for d in dn.offset_dims]
    batch_axes, window_axes = iter(range(n_batch)), iter(range(n_batch, y.type.rank))
    perm = tuple(next(window_axes) if p in offset else next(batch_axes) for p in range(y.type.rank))
    return y if perm == tuple(range(len(perm))) else imp.node("transpose", [y], perm=perm)


def _scatter(mode: str | None):
    def rule(imp, eqn, x, indices, updates):
        dn = eqn.params["dimension_numbers"]
        pairs = list(zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims))
        indexed = [int(a) for a in dn.scatter_dims_to_operand_dims] + [int(a) for a, _ in pairs]
        window = [int(d) for d in dn.update_window_dims]
        sizes = [1 if a in indexed else None for a in range(x.type.rank)]
        for a, d in zip([a for a in range(x.type.rank) if a not in indexed], window):
            sizes[a] = updates.type.shape[d]
        _whole_windows(x, [*dn.inserted_window_dims, *dn.operand_batching_dims], sizes, indexed, "this scatter")
        front, perm = _front(imp, x, indexed)
        order = tuple(d for d in range(updates.type.rank) if d not in window) + tuple(window)
        values = updates if order == tuple(range(len(order))) else imp.node("transpose", [updates], perm=order)
        columns = _index_operands(imp, indices, pairs)
        shape = front.type.shape
        columns, valid = _apply_mode(imp, eqn, columns, shape, drop_to_end=True)
        if valid is not None:   # FILL_OR_DROP: dropped updates land in one extra slot per indexed axis
            k = len(columns)
            front = imp.node("pad", [front], lo=(0,) * len(shape), hi=(1,) * k + (0,) * (len(shape) - k),
                             interior=(0,) * len(shape))
        operands = [front, values, *columns]
        if mode is None:
            y = imp.node("scatter_add", operands)
        else:
            y = imp.node("scatter", operands, mode=mode, unique=bool(eqn.params["unique_indices"]))
        if valid is not None:
            y = imp.node("slice", [y], starts=(0,) * len(shape), stops=tuple(shape), steps=(1,) * len(shape))
        back = tuple(int(i) for i in np.argsort(perm))
        return y if back == tuple(range(len(back))) else imp.node("transpose", [y], perm=back)
    return rule


def _mode_name(eqn) -> str:
    mode = eqn.params.get("mode")
    return str(getattr(mode, "name", mode)).upper()


def _apply_mode(imp, eqn, columns, shape, drop_to_end: bool):
    """The index columns under JAX's out-of-range `mode` (operand axis a of size shape[a] is indexed
    by columns[a]), and for FILL_OR_DROP the boolean mask of in-range rows (else None). CLIP clamps
    each column into [0, size - 1]; FILL_OR_DROP sends an out-of-range row to index 0 (a gather,
    whose value is then masked) or to index `size` (a scatter's extra slot, `drop_to_end`)."""
    name = _mode_name(eqn)
    if "CLIP" in name:
        clamped = []
        for a, column in enumerate(columns):
            dtype = column.type.dtype
            low = imp.node("maximum", [column, imp.constant(np.asarray(0, dtype))])
            clamped.append(imp.node("minimum", [low, imp.constant(np.asarray(shape[a] - 1, dtype))]))
        return clamped, None
    if "FILL" not in name and "DROP" not in name:
        return columns, None
    valid = None
    for a, column in enumerate(columns):
        dtype = column.type.dtype
        inside = imp.node("logical_and", [imp.node("greater_equal", [column, imp.constant(np.asarray(0, dtype))]),
                                          imp.node("less", [column, imp.constant(np.asarray(shape[a], dtype))])])
        valid = inside if valid is None else imp.node("logical_and", [valid, inside])
    safe = []
    for a, column in enumerate(columns):
        target = imp.constant(np.asarray(shape[a] if drop_to_end else 0, column.type.dtype))
        safe.append(imp.node("where", [valid, column, target]))
    return safe, valid


def _fill_value(eqn, dtype: str):
    """A FILL_OR_DROP gather's value for out-of-range rows: `fill_value`, else JAX's defaults (NaN
    for inexact types, the most negative value for signed integers, the largest for unsigned,
    True for booleans)."""
    fill = eqn.params.get("fill_value")
    if fill is not None:
        return fill
    dt = np.dtype(dtype)
    if dt.kind in "fc":
        return np.nan
    if dt.kind == "b":
        return True
    return np.iinfo(dt).min if dt.kind == "i" else np.iinfo(dt).max


def _rev(imp, eqn, x):
    return imp.node("rev", [x], axes=tuple(sorted(int(a) for a in eqn.params["dimensions"])))


def _dynamic_slice(imp, eqn, x, *starts):
    known = [imp.known(s) for s in starts]
    if any(k is None for k in known):
        raise FrameError("frame's slice needs constant starts; this dynamic_slice's starts are computed")
    sizes = [int(s) for s in eqn.params["slice_sizes"]]
    # JAX clamps each start into [0, dim - size] so that the slice stays inside the operand.
    lo = [int(np.clip(int(k), 0, d - n)) for k, d, n in zip(known, x.type.shape, sizes)]
    return imp.node("slice", [x], starts=tuple(lo), stops=tuple(a + n for a, n in zip(lo, sizes)),
                    steps=(1,) * len(sizes))


def _split(imp, eqn, x):
    axis, out, start = int(eqn.params["axis"]), [], 0
    for size in (int(s) for s in eqn.params["sizes"]):
        starts, stops = [0] * x.type.rank, list(x.type.shape)
        starts[axis], stops[axis] = start, start + size
        out.append(imp.node("slice", [x], starts=tuple(starts), stops=tuple(stops), steps=(1,) * x.type.rank))
        start += size
    return out


def _scatter_combiner(expected: str | None):
    """update_jaxpr: the combining function JAX records; frame reproduces add/mul/min/max/set by the primitive."""
    def accepts(value, eqn):
        if value is None:
            return True
        body = getattr(value, "jaxpr", value)
        return expected is not None and [e.primitive.name for e in body.eqns] == [expected]
    return checked("the function combining an update with the operand: the primitive's own (add, mul, min, "
                   "max, or none for set)", accepts)


def _scatter_audit(combiner: str | None) -> dict:
    return {"dimension_numbers": implemented("ScatterDimensionNumbers, read by the rule: single positions on the "
                                             "indexed axes and batching axes, the other axes whole (else refused)"),
            "indices_are_sorted": _HINTS, "unique_indices": implemented("mul's derivative to the updates needs it, "
                                                                        "as in JAX; a hint otherwise"),
            "mode": _MODE, "update_jaxpr": _scatter_combiner(combiner),
            "update_consts": checked("constants of the combining function; the built-in combiners have none",
                                     lambda value, eqn: not value)}


TRANSLATIONS: dict[str, Callable] = {
    "gather": _gather, "scatter-add": _scatter(None), "scatter": _scatter("set"), "scatter-mul": _scatter("mul"),
    "scatter-min": _scatter("min"), "scatter-max": _scatter("max"), "rev": _rev, "dynamic_slice": _dynamic_slice,
    "split": _split,
}
PARAMETERS: dict[str, dict] = {
    "gather": {"dimension_numbers": implemented("GatherDimensionNumbers (offset_dims, collapsed_slice_dims, "
                                                "start_index_map, batching dims), read by the rule, which refuses "
                                                "windows"),
               "slice_sizes": implemented("checked by the rule: 1 on indexed axes, the whole axis elsewhere"),
               "indices_are_sorted": _HINTS, "unique_indices": _HINTS, "mode": _MODE,
               "fill_value": irrelevant("the value read at out-of-range indices, which frame refuses")},
    "scatter-add": _scatter_audit("add"), "scatter": _scatter_audit(None), "scatter-mul": _scatter_audit("mul"),
    "scatter-min": _scatter_audit("min"), "scatter-max": _scatter_audit("max"),
    "rev": {"dimensions": implemented("frame's rev over the same axes")},
    "dynamic_slice": {"slice_sizes": implemented("frame's slice of that size at the (constant, clamped) starts")},
    "split": {"axis": implemented("the axis cut"), "sizes": implemented("the pieces' sizes, in order")},
}
