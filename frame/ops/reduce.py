"""Reductions: `sum` and `mean` over axes."""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..ir.types import TensorType
from ..tracing import prim, traced_decomposition, traced_gradient
from ..ir.registry import LINEAR, NodeContext, arity, register_op, require_float

_AXES_ATTRS = {"axes": ((tuple,), True), "keepdims": ((bool,), False)}


def _check_axes(op: str, axes: tuple, rank: int) -> None:
    if any(not isinstance(a, int) or not 0 <= a < rank for a in axes) or len(set(axes)) != len(axes) \
            or list(axes) != sorted(axes):
        raise ShapeError(f"op '{op}': axes {axes} must be distinct, sorted and in [0, {rank}) for rank {rank}")


def reduced_shape(shape, axes, keepdims) -> tuple[int, ...]:
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def sum_dtype(dtype: str) -> str:
    """numpy's accumulator for sums: bool and int32 add up in int64 (np.sum's rule)."""
    return "int64" if dtype in ("bool", "int32") else dtype


def _reduce_shape(float_only: bool):
    def shape(ctx: NodeContext):
        arity(ctx.op, ctx, 1)
        (x,) = ctx.input_types
        if float_only:
            require_float(ctx.op, x)
        axes = ctx.attrs["axes"]
        _check_axes(ctx.op, axes, x.rank)
        return [TensorType(reduced_shape(x.shape, axes, ctx.attrs.get("keepdims", False)), sum_dtype(x.dtype),
                           x.device)]
    return shape


def _expand(gy, x_shape, axes):
    """gy copied along the reduced axes back to x_shape (the gradient of sum): broadcast_to, after a
    reshape putting the reduced axes back as size 1 unless they are leading or kept (keepdims)."""
    if gy.ndim != len(x_shape) and tuple(axes) != tuple(range(len(axes))):
        gy = prim.reshape(gy, shape=reduced_shape(x_shape, axes, True))
    return prim.broadcast_to(gy, shape=tuple(x_shape))


def _sum_kernel(x, axes, keepdims=False):
    if not axes:
        # A sum over no axes is the identity (as `canonicalize` rewrites it); np.sum would add +0
        # and turn -0.0 into +0.0.
        return np.array(x, dtype=sum_dtype(x.dtype.name))
    return np.asarray(np.sum(x, axis=axes, keepdims=keepdims))


def _sum_numpy(e, x):
    if not e.attrs["axes"] and e.in_types[0] == e.out_type:   # the identity, like the kernel
        return f"{e.fn(np.positive)}({x}{e.out})"
    return f"{e.fn(np.add.reduce)}({x}, axis={e.attrs['axes']!r}, keepdims={bool(e.attrs.get('keepdims'))}{e.out})"


register_op(
    "sum", shape=_reduce_shape(False), num_inputs=1, attrs=_AXES_ATTRS, traits=(LINEAR,), kernel=_sum_kernel,
    gradient=traced_gradient(lambda ctx, xs, ys, gys: [_expand(gys[0], xs[0].shape, ctx.attrs["axes"])]),
    doc="sum over `axes` (sorted, non-negative); keepdims keeps them as size 1",
    numpy=_sum_numpy, numpy_out=True, jax=lambda J, x, axes, keepdims=False: J.jnp.sum(x, axis=axes, keepdims=keepdims),
    frontend=["sum"])


def _mean_grad(ctx, xs, ys, gys):
    axes = ctx.attrs["axes"]
    count = int(np.prod([xs[0].shape[a] for a in axes], dtype=np.int64))
    return [_expand(gys[0], xs[0].shape, axes) * (1.0 / max(count, 1))]


def _mean_decomposition(ctx, x):
    # sum / count, as np.mean computes it, including 0/0 = nan over empty axes (count is not
    # clamped to 1 here).
    axes = ctx.attrs["axes"]
    count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    return prim.sum(x, axes=axes, keepdims=bool(ctx.attrs.get("keepdims", False))) / float(count)


register_op(
    "mean", shape=_reduce_shape(True), num_inputs=1, attrs=_AXES_ATTRS, traits=(LINEAR,),
    gradient=traced_gradient(_mean_grad), decomposition=traced_decomposition(_mean_decomposition),
    doc="arithmetic mean over `axes`",
    jax=lambda J, x, axes, keepdims=False: J.jnp.mean(x, axis=axes, keepdims=keepdims), frontend=["mean"])
