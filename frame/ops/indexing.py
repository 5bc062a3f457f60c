"""Indexing ops: gather and scatter (integer-array indexing, take, functional updates `x.at[...]`).

Both take the index arrays as integer operands, one per leading axis of `x` they index, all of
one shape `B` (the frontend broadcasts them): `gather(x, i0, ..., ik-1)` is numpy's
`x[i0, ..., ik-1]`, of shape `B + x.shape[k:]`; the scatters write `updates` of that shape back
into a copy of `x` at those positions. Negative indices count from the end, as in numpy;
an index out of range raises `ShapeError` when the kernel runs. The indices get no gradient.

- `scatter_add`: `np.add.at`, duplicates accumulate; gather's adjoint and gather is its.
- `scatter` with `mode` "set" (`out[idx] = updates`: of duplicates the last write wins, as in
  numpy; JAX leaves it unspecified, and its derivative, like JAX's, reaches only the update
  that was written), "mul", "min" or "max" (`np.multiply.at`/`np.minimum.at`/`np.maximum.at`:
  every duplicate takes part). Their gradients follow JAX's: min/max share a tie evenly between
  the values equal to the result; mul's gradient to the updates needs `unique=True`
  (the frontend sets it for constant indices without duplicates), as JAX's scatter_mul does.
"""
from __future__ import annotations

import numpy as np

from ..errors import GradientError, ShapeError
from ..ir.registry import LINEAR, NodeContext, register_op
from ..ir.types import TensorType
from ..tracing import bind, prim, traced_gradient
from .batching_rules import batch_positions, materialize, traced_batch


def _index_types(op: str, x: TensorType, indices) -> tuple[int, ...]:
    """The common shape of the index operands, after checking they are ints of one shape, at most rank(x)."""
    if not indices or len(indices) > x.rank:
        raise ShapeError(f"op '{op}': needs 1 to {x.rank} index operands for an operand of shape {x.shape}, "
                         f"got {len(indices)}")
    if any(t.dtype not in ("int32", "int64") for t in indices) or len({t.shape for t in indices}) != 1:
        raise ShapeError(f"op '{op}': index operands must be int32/int64 arrays of one shape, got "
                         f"{', '.join(str(t) for t in indices)}")
    return indices[0].shape


def _gather_shape(ctx: NodeContext):
    x, *indices = ctx.input_types
    batch = _index_types(ctx.op, x, indices)
    return [TensorType(batch + x.shape[len(indices):], x.dtype, x.device)]


def _checked(op: str, x: np.ndarray, indices):
    """`indices` as a numpy index into `x`, refusing out-of-range entries by name."""
    for axis, i in enumerate(indices):
        if i.size and (i.min() < -x.shape[axis] or i.max() >= x.shape[axis]):
            bad = i[(i < -x.shape[axis]) | (i >= x.shape[axis])].flat[0]
            raise ShapeError(f"op '{op}': index {bad} is out of bounds for axis {axis} with size {x.shape[axis]}")
    return tuple(indices)


def _zeros(t) -> np.ndarray:
    return np.zeros(t.shape, t.dtype)


def _indexing_batch(ctx, xs, batched, size):
    """gather and the scatters batched: the index operands get the batch axis (broadcast when shared), and
    a batched `x` (a scatter's `x` and updates always) one more leading index, each example's position, so
    every example reads and writes its own slice (duplicates stay within an example, in numpy's order)."""
    n_data = 1 if ctx.op == "gather" else 2
    data = xs[:n_data]
    indices = [materialize(i, b, size) for i, b in zip(xs[n_data:], batched[n_data:])]
    per_example = ctx.input_types[n_data]
    if ctx.op == "gather" and not batched[0]:
        return [prim.gather(data[0], *indices)]
    positions = batch_positions(size, per_example.shape, per_example.dtype)
    return [bind(ctx.op, *[materialize(d, b, size) for d, b in zip(data, batched)], positions, *indices, **ctx.attrs)]


register_op("gather", shape=_gather_shape, kernel=lambda x, *indices: x[_checked("gather", x, indices)],
            traits=(LINEAR,), zero_operands=(0,), batch=traced_batch(_indexing_batch),
            gradient=traced_gradient(lambda ctx, xs, ys, gys: [prim.scatter_add(_zeros(xs[0]), gys[0], *xs[1:]),
                                                               *[None] * (len(xs) - 1)]),
            doc="x[i0, ..., ik-1] for integer arrays i0.. of one shape indexing the first k axes (numpy's rules)",
            jax=lambda J, x, *indices: J.jnp.asarray(x)[tuple(indices)], frontend=["take", "take_along_axis"])


def _scatter_shape(ctx: NodeContext):
    x, updates, *indices = ctx.input_types
    batch = _index_types(ctx.op, x, indices)
    want = batch + x.shape[len(indices):]
    if updates.shape != want or updates.dtype != x.dtype:
        raise ShapeError(f"op '{ctx.op}': updates {updates} must be {x.dtype}{list(want)} for operand {x} "
                         f"indexed by {len(indices)} index array(s) of shape {batch}")
    mode = ctx.attrs.get("mode")
    if mode is not None and mode not in _SCATTER_UFUNCS:
        raise ShapeError(f"op 'scatter': mode {mode!r} is not one of {', '.join(_SCATTER_UFUNCS)}")
    return [x]


def _scatter_add_kernel(x, updates, *indices):
    out = x.copy()
    np.add.at(out, _checked("scatter_add", x, indices), updates)
    return out


register_op("scatter_add", shape=_scatter_shape, kernel=_scatter_add_kernel, traits=(LINEAR,),
            batch=traced_batch(_indexing_batch),
            gradient=traced_gradient(lambda ctx, xs, ys, gys: [gys[0], prim.gather(gys[0], *xs[2:]),
                                                               *[None] * (len(xs) - 2)]),
            doc="x with `updates` added at [i0, ..., ik-1] (np.add.at: duplicates accumulate); gather's adjoint",
            jax=lambda J, x, updates, *indices: J.jnp.asarray(x).at[tuple(indices)].add(updates))


_SCATTER_UFUNCS = {"set": None, "mul": np.multiply, "min": np.minimum, "max": np.maximum}


def _scatter_kernel(x, updates, *indices, mode, unique=False):
    out, index = x.copy(), _checked("scatter", x, indices)
    if mode == "set":
        out[index] = updates
    else:
        _SCATTER_UFUNCS[mode].at(out, index, updates)
    return out


def _scatter_grad(ctx, xs, ys, gys):
    x, updates, *indices = xs
    (y,), (gy,) = ys, gys
    mode, none = ctx.attrs["mode"], [None] * len(indices)
    if mode == "set":
        # Only the update that was written gets a derivative: scatter each update's position in the
        # update list, gather back which one landed there, and compare with its own position.
        ids = np.arange(updates.size, dtype=np.int64).reshape(updates.shape)
        written = prim.gather(prim.scatter(np.full(x.shape, -1, np.int64), ids, *indices, mode="set"), *indices)
        won = prim.convert(prim.equal(written, ids), dtype=x.type.dtype)
        return [prim.scatter(gy, _zeros(updates), *indices, mode="set"), prim.gather(gy, *indices) * won, *none]
    if mode == "mul":
        if not ctx.attrs.get("unique", False):
            raise GradientError("op 'scatter' (mode 'mul'): the derivative needs unique indices (as JAX's "
                                "scatter_mul); use constant indices without duplicates")
        return [prim.scatter(gy, updates, *indices, mode="mul", unique=True), prim.gather(gy * x, *indices), *none]
    # min/max (JAX's rule): the result at a position is shared evenly by the operand and the updates
    # equal to it.
    hit_x = prim.convert(prim.equal(x, y), dtype=x.type.dtype)
    hit_u = prim.convert(prim.equal(updates, prim.gather(y, *indices)), dtype=x.type.dtype)
    share = gy / prim.scatter_add(hit_x, hit_u, *indices)   # >= 1: the result is one of the values
    return [share * hit_x, prim.gather(share, *indices) * hit_u, *none]


register_op("scatter", shape=_scatter_shape, kernel=_scatter_kernel,
            attrs={"mode": ((str,), True), "unique": ((bool,), False)}, gradient=traced_gradient(_scatter_grad),
            batch=traced_batch(_indexing_batch),
            doc="x with `updates` written at [i0, ..., ik-1]: mode 'set' (the last duplicate wins), "
                "'mul', 'min' or 'max' (np.<ufunc>.at: every duplicate combines)",
            jax=lambda J, x, updates, *indices, mode, unique=False: getattr(
                J.jnp.asarray(x).at[tuple(indices)], {"set": "set", "mul": "multiply", "min": "min", "max": "max"}[mode])(
                updates, unique_indices=unique))
