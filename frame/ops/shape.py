"""Shape ops: `reshape`, `transpose`, `broadcast_to`, `concat`, `slice` and its adjoint `pad`, `rev`."""
from __future__ import annotations

import math

import numpy as np

from ..errors import ShapeError
from ..ir.types import Dim, TensorType, broadcast_dims, is_symbolic_shape
from ..tracing import prim, traced_gradient
from . import rows_rules
from .batching_rules import lead, traced_batch
from .elementwise import sum_to_shape
from ..ir.registry import LINEAR, VIEW, NodeContext, arity, normalize_axis, register_op, same_dtype


def _with_shape(t: TensorType, shape) -> TensorType:
    return TensorType(tuple(shape), t.dtype, t.device)


# -- reshape ------------------------------------------------------------------------------------
def _reshape_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 1)
    (x,) = ctx.input_types
    shape = ctx.attrs["shape"]
    if x.is_symbolic or is_symbolic_shape(shape):
        return [_with_shape(x, _symbolic_reshape(x, shape))]
    if any(not isinstance(d, int) or d < 0 for d in shape) or int(np.prod(shape, dtype=np.int64)) != x.size:
        raise ShapeError(f"op 'reshape': cannot reshape {x.shape} ({x.size} elements) into {shape}")
    return [_with_shape(x, shape)]


def _symbolic_reshape(x: TensorType, shape) -> tuple:
    """The target shape of a reshape with symbolic dimensions: its element count (a polynomial in the
    symbols) must equal the operand's for every size, and one -1 takes the exact quotient
    (`(n, 4)` into `(-1, 2)` is `(2*n, 2)`; into `(3, -1)` it is refused: 4*n/3 is no polynomial)."""
    if any(not isinstance(d, (int, Dim)) or isinstance(d, bool) or type(d) is int and d < -1 for d in shape) \
            or list(shape).count(-1) > 1:
        raise ShapeError(f"op 'reshape': {shape} is not a shape (ints, symbolic dimensions, one -1 at most)")
    if -1 in shape:
        known = math.prod(d for d in shape if not (type(d) is int and d == -1))
        rest = x.size.exact_div(known) if isinstance(x.size, Dim) else (x.size // known if known != 0 and type(known) is int
                                                                        and x.size % known == 0 else None)
        if rest is None:
            raise ShapeError(f"op 'reshape': cannot reshape {x.shape} ({x.size} elements) into {shape}: "
                             f"{x.size} is not known to be a multiple of {known} for every size of the symbols")
        shape = tuple(rest if type(d) is int and d == -1 else d for d in shape)
    if math.prod(shape) != x.size:
        raise ShapeError(f"op 'reshape': cannot reshape {x.shape} ({x.size} elements) into {shape} "
                         f"({math.prod(shape)} elements) for every size of the symbols")
    return tuple(shape)


register_op("reshape", shape=_reshape_shape, num_inputs=1, attrs={"shape": ((tuple,), True)}, traits=(LINEAR, VIEW),
            kernel=lambda x, shape: np.reshape(x, shape),
            gradient=traced_gradient(lambda ctx, xs, ys, gys: [prim.reshape(gys[0], shape=tuple(xs[0].shape))]),
            batch=traced_batch(lambda ctx, xs, bs, n: [prim.reshape(xs[0], shape=(n, *ctx.attrs["shape"]))]),
            rows=rows_rules.reshape, doc="same elements, new shape (row-major)",
            numpy=lambda e, x: f"{x}.reshape({e.attrs['shape']!r})", jax="jnp.reshape",
            frontend=["reshape", "expand_dims", "squeeze"])


# -- transpose ----------------------------------------------------------------------------------
def _transpose_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 1)
    (x,) = ctx.input_types
    perm = ctx.attrs["perm"]
    if sorted(perm) != list(range(x.rank)):
        raise ShapeError(f"op 'transpose': perm {perm} is not a permutation of the axes of {x.shape}")
    return [_with_shape(x, [x.shape[p] for p in perm])]


register_op("transpose", shape=_transpose_shape, num_inputs=1, attrs={"perm": ((tuple,), True)},
            traits=(LINEAR, VIEW), kernel=lambda x, perm: np.transpose(x, perm),
            gradient=traced_gradient(
                lambda ctx, xs, ys, gys: [prim.transpose(gys[0], perm=tuple(np.argsort(ctx.attrs["perm"]).tolist()))]),
            batch=traced_batch(lambda ctx, xs, bs, n: [prim.transpose(xs[0], perm=(0, *[p + 1 for p in ctx.attrs["perm"]]))]),
            rows=rows_rules.transpose, doc="permute axes: out.shape[i] = x.shape[perm[i]]",
            numpy=lambda e, x: f"{x}.transpose({e.attrs['perm']!r})", jax=lambda J, x, perm: J.jnp.transpose(x, perm),
            frontend=["transpose", "swapaxes"])


# -- broadcast_to -------------------------------------------------------------------------------
def _broadcast_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 1)
    (x,) = ctx.input_types
    shape = ctx.attrs["shape"]
    try:
        ok = tuple(broadcast_dims(ctx.op, x.shape, shape)) == tuple(shape)
    except ShapeError:
        ok = False
    if not ok:
        raise ShapeError(f"op 'broadcast_to': cannot broadcast {x.shape} to {shape}")
    return [_with_shape(x, shape)]


register_op("broadcast_to", shape=_broadcast_shape, num_inputs=1, attrs={"shape": ((tuple,), True)},
            traits=(LINEAR, VIEW), kernel=lambda x, shape: np.broadcast_to(x, shape),
            gradient=traced_gradient(lambda ctx, xs, ys, gys: [sum_to_shape(gys[0], xs[0].shape)]),
            batch=traced_batch(lambda ctx, xs, bs, n: [
                prim.broadcast_to(lead(xs[0], len(ctx.attrs["shape"])), shape=(n, *ctx.attrs["shape"]))]),
            rows=rows_rules.broadcast_to, doc="numpy broadcasting to `shape`",
            numpy=lambda e, x: f"{e.fn(np.broadcast_to)}({x}, {e.attrs['shape']!r})", jax="jnp.broadcast_to",
            frontend=["broadcast_to"])


# -- concat -------------------------------------------------------------------------------------
def _concat_shape(ctx: NodeContext):
    if not ctx.input_types:
        raise ShapeError("op 'concat' needs at least one operand")
    first = ctx.input_types[0]
    same_dtype("concat", ctx.input_types)
    if first.rank == 0:   # normalize_axis accepts axis 0 of a scalar; concat has no axis to join along
        raise ShapeError(f"op 'concat' needs operands of rank >= 1, got shapes "
                         f"{', '.join(str(u.shape) for u in ctx.input_types)}")
    axis = normalize_axis("concat", ctx.attrs["axis"], first.rank)
    for t in ctx.input_types[1:]:
        if t.rank != first.rank or any(a != b for i, (a, b) in enumerate(zip(t.shape, first.shape)) if i != axis):
            raise ShapeError(f"op 'concat': shapes {', '.join(str(u.shape) for u in ctx.input_types)} "
                             f"differ outside axis {axis}")
    shape = list(first.shape)
    shape[axis] = sum(t.shape[axis] for t in ctx.input_types)
    return [_with_shape(first, shape)]


def _concat_grad(ctx, xs, ys, gys):
    axis = ctx.attrs["axis"] % xs[0].ndim
    gy, out, offset = gys[0], [], 0
    for x in xs:
        starts, stops = [0] * x.ndim, list(gy.shape)
        starts[axis], stops[axis] = offset, offset + x.shape[axis]
        whole = tuple(x.shape) == tuple(gy.shape)   # one operand: its gradient is gy itself
        out.append(gy if whole else prim.slice(gy, starts=tuple(starts), stops=tuple(stops), steps=(1,) * x.ndim))
        offset += x.shape[axis]
    return out


register_op("concat", shape=_concat_shape, attrs={"axis": ((int,), True)}, traits=(LINEAR,),
            kernel=lambda *xs, axis: np.concatenate(xs, axis=axis),
            gradient=traced_gradient(_concat_grad), doc="join operands along `axis`", rows=rows_rules.concat,
            jax=lambda J, *xs, axis: J.jnp.concatenate(xs, axis=axis),
            frontend=["concatenate", "concat", "stack", "hstack", "vstack", "column_stack"])


# -- slice --------------------------------------------------------------------------------------
_SLICE_ATTRS = {"starts": ((tuple,), True), "stops": ((tuple,), True), "steps": ((tuple,), True)}


def _slice_out_shape(op: str, shape, starts, stops, steps):
    if not (len(starts) == len(stops) == len(steps) == len(shape)):
        raise ShapeError(f"op '{op}': starts/stops/steps {starts}/{stops}/{steps} must each have rank {len(shape)} "
                         f"entries for shape {shape}")
    out = []
    for d, a, b, s in zip(shape, starts, stops, steps):
        if not (isinstance(s, int) and s > 0 and 0 <= a <= b <= d):
            raise ShapeError(f"op '{op}': slice {a}:{b}:{s} is invalid for an axis of size {d} in shape {shape}")
        if isinstance(a, Dim) or isinstance(b, Dim) or isinstance(d, Dim):
            if s != 1:   # ceil((b - a) / s) of a symbol is no polynomial
                raise ShapeError(f"op '{op}': slice {a}:{b}:{s} of the symbolic axis {d} in shape {shape} needs step 1")
            out.append(b - a)
        else:
            out.append(len(range(a, b, s)))
    return tuple(out)


def _slice_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 1)
    (x,) = ctx.input_types
    a = ctx.attrs
    return [_with_shape(x, _slice_out_shape(ctx.op, x.shape, a["starts"], a["stops"], a["steps"]))]


def _index(starts, stops, steps):
    return tuple(slice(a, b, s) for a, b, s in zip(starts, stops, steps))


register_op("slice", shape=_slice_shape, num_inputs=1, attrs=_SLICE_ATTRS, traits=(LINEAR, VIEW),
            kernel=lambda x, starts, stops, steps: x[_index(starts, stops, steps)],
            gradient=traced_gradient(lambda ctx, xs, ys, gys: [_slice_adjoint(gys[0], xs[0].shape, **ctx.attrs)]),
            batch=traced_batch(lambda ctx, xs, bs, n: [prim.slice(xs[0], starts=(0, *ctx.attrs["starts"]),
                                                                  stops=(n, *ctx.attrs["stops"]), steps=(1, *ctx.attrs["steps"]))]),
            doc="basic slicing x[starts:stops:steps] per axis (positive steps)", rows=rows_rules.slice_,
            numpy=lambda e, x: f"{x}[{e.fn(_index(**e.attrs))}]",
            jax=lambda J, x, starts, stops, steps: x[_index(starts, stops, steps)],
            frontend=["slice_axes", "getitem"], operators=["__getitem__"])


# -- pad (lax.pad with zeros): `lo` zeros before, `hi` after, `interior` between elements, per axis
_PAD_ATTRS = {"lo": ((tuple,), True), "hi": ((tuple,), True), "interior": ((tuple,), True)}


def _padded(d: int, lo: int, hi: int, interior: int) -> int:
    if interior == 0:   # the common case, free of max() for a symbolic d
        return lo + hi + d
    return lo + hi + d + max(d - 1, 0) * interior


def _pad_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 1)
    (x,) = ctx.input_types
    lo, hi, interior = (ctx.attrs[k] for k in ("lo", "hi", "interior"))
    if not (len(lo) == len(hi) == len(interior) == x.rank) or any(
            not isinstance(p, int) or p < 0 for p in (*lo, *hi, *interior)):
        raise ShapeError(f"op 'pad': lo/hi/interior {lo}/{hi}/{interior} must be {x.rank} non-negative ints each "
                         f"for shape {x.shape}")
    return [_with_shape(x, tuple(_padded(*t) for t in zip(x.shape, lo, hi, interior)))]


def _pad_index(shape, lo, interior):
    """Where `x` sits in its padded result: per axis lo, lo + (interior + 1), ..."""
    return tuple(slice(a, a + max(d - 1, 0) * (i + 1) + 1 if d else a, i + 1) for d, a, i in zip(shape, lo, interior))


def _pad_kernel(x, lo, hi, interior):
    out = np.zeros(tuple(_padded(*t) for t in zip(x.shape, lo, hi, interior)), dtype=x.dtype)
    out[_pad_index(x.shape, lo, interior)] = x
    return out


def _pad_adjoint(ctx, xs, ys, gys):
    index = _pad_index(xs[0].shape, ctx.attrs["lo"], ctx.attrs["interior"])
    return [prim.slice(gys[0], starts=tuple(s.start for s in index), stops=tuple(s.stop for s in index),
                       steps=tuple(s.step for s in index))]


def _slice_adjoint(gy, shape, starts, stops, steps):
    """slice's gradient: gy padded back into zeros of the input's shape."""
    counts = gy.shape
    # step 1: d - (a + n), the same for every n >= 0, and free of max() for symbolic sizes
    hi = tuple(d - (a + n) if s == 1 else d - (a + max(n - 1, 0) * s + (1 if n else 0))
               for d, a, n, s in zip(shape, starts, counts, steps))
    return prim.pad(gy, lo=tuple(starts), hi=hi, interior=tuple(s - 1 for s in steps))


register_op("pad", shape=_pad_shape, kernel=_pad_kernel, num_inputs=1, attrs=_PAD_ATTRS, traits=(LINEAR,),
            gradient=traced_gradient(_pad_adjoint), rows=rows_rules.pad,
            batch=traced_batch(lambda ctx, xs, bs, n: [prim.pad(xs[0], **{k: (0, *ctx.attrs[k]) for k in _PAD_ATTRS})]),
            doc="zeros around and between the elements: `lo`/`hi` before/after and `interior` between, per axis "
                "(lax.pad with zero); the adjoint of slice",
            jax=lambda J, x, lo, hi, interior: J.lax.pad(x, J.jnp.zeros((), x.dtype), list(zip(lo, hi, interior))),
            frontend=["pad"])


# -- rev (lax.rev): reverse the order of the elements along `axes` ------------------------------
def _rev_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 1)
    (x,) = ctx.input_types
    axes = ctx.attrs["axes"]
    if any(not isinstance(a, int) or not 0 <= a < x.rank for a in axes) or len(set(axes)) != len(axes):
        raise ShapeError(f"op 'rev': axes {axes} must be distinct axes in [0, {x.rank}) of shape {x.shape}")
    return [x]


def _rev_index(rank, axes):
    return tuple(slice(None, None, -1) if a in axes else slice(None) for a in range(rank))


register_op("rev", shape=_rev_shape, num_inputs=1, attrs={"axes": ((tuple,), True)}, traits=(LINEAR, VIEW),
            kernel=lambda x, axes: x[_rev_index(x.ndim, axes)],
            gradient=traced_gradient(lambda ctx, xs, ys, gys: [prim.rev(gys[0], axes=ctx.attrs["axes"])]),
            doc="the elements in reverse order along `axes` (lax.rev); its own adjoint",
            numpy=lambda e, x: f"{x}[{e.fn(_rev_index(e.in_types[0].rank, e.attrs['axes']))}]",
            jax=lambda J, x, axes: J.lax.rev(x, axes), frontend=["flip"])
