"""Reductions: `sum` and `mean` over axes, and `sum_grad_internal`, their gradient's expansion."""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..ir.types import TensorType
from ..tracing import bind, prim, traced_decomposition, traced_gradient
from .schema import INTERNAL, LINEAR, VIEW, NodeContext, arity, register_op, require_float

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
    return bind("sum_grad_internal", gy, input_shape=tuple(x_shape), axes=tuple(axes))


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
    # sum / count, as np.mean computes it: the decomposed graph gives the kernel's bits exactly,
    # including 0/0 = nan over empty axes (count is not clamped to 1 here).
    axes = ctx.attrs["axes"]
    count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    return prim.sum(x, axes=axes, keepdims=bool(ctx.attrs.get("keepdims", False))) / float(count)


register_op(
    "mean", shape=_reduce_shape(True), num_inputs=1, attrs=_AXES_ATTRS, traits=(LINEAR,),
    gradient=traced_gradient(_mean_grad), decomposition=traced_decomposition(_mean_decomposition),
    doc="arithmetic mean over `axes`",
    jax=lambda J, x, axes, keepdims=False: J.jnp.mean(x, axis=axes, keepdims=keepdims), frontend=["mean"])


def _sum_grad_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 1)
    (gy,) = ctx.input_types
    shape, axes = tuple(ctx.attrs["input_shape"]), tuple(ctx.attrs["axes"])
    _check_axes(ctx.op, axes, len(shape))
    # keepdims is recovered from gy's rank (ARCH-068): both legal gy shapes are accepted, nothing is guessed.
    if gy.shape not in (reduced_shape(shape, axes, False), reduced_shape(shape, axes, True)):
        raise ShapeError(f"op '{ctx.op}': gy {gy.shape} is not sum({shape}, axes={axes}) with or without keepdims")
    return [TensorType(shape, gy.dtype, gy.device)]


def _sum_grad_kernel(gy, input_shape, axes):
    if gy.ndim != len(input_shape):
        gy = np.expand_dims(gy, axes)
    return np.broadcast_to(gy, input_shape)


def _sum_grad_grad(ctx, xs, ys, gys):
    (gy,) = xs
    keepdims = len(gy.shape) == len(ctx.attrs["input_shape"])
    return [prim.sum(gys[0], axes=ctx.attrs["axes"], keepdims=keepdims)]


def _sum_grad_numpy(e, gy):
    shape, axes = tuple(e.attrs["input_shape"]), tuple(e.attrs["axes"])
    if e.in_types[0].rank != len(shape):   # gy came from sum(keepdims=False): put the reduced axes back
        gy = f"{gy}.reshape({tuple(1 if i in axes else d for i, d in enumerate(shape))!r})"
    return f"{e.fn(np.broadcast_to)}({gy}, {shape!r})"


register_op("sum_grad_internal", shape=_sum_grad_shape, kernel=_sum_grad_kernel, num_inputs=1,
            attrs={"input_shape": ((tuple,), True), "axes": ((tuple,), True)}, traits=(INTERNAL, LINEAR, VIEW),
            gradient=traced_gradient(_sum_grad_grad),
            doc="copies gy along the reduced axes back to input_shape (the gradient of sum)",
            numpy=_sum_grad_numpy,
            jax=lambda J, gy, input_shape, axes: J.jnp.broadcast_to(
                J.jnp.expand_dims(gy, axes) if gy.ndim != len(input_shape) else gy, input_shape))
