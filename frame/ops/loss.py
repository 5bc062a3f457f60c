"""Losses: `mse_loss` as its own op with kernel and gradient (ARCH-064)."""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..ir.types import TensorType
from ..tracing import element_count, prim, traced_gradient
from .batching_rules import traced_batch
from ..ir.registry import NodeContext, arity, register_op, require_float, same_dtype


def _mse_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 2)
    pred, target = ctx.input_types
    same_dtype(ctx.op, [pred, target])
    require_float(ctx.op, pred)
    if pred.shape != target.shape:
        raise ShapeError(f"op 'mse_loss': pred {pred.shape} and target {target.shape} must have the same shape")
    return [TensorType((), pred.dtype, pred.device)]


def _mse_kernel(pred, target):
    d = pred - target
    return np.asarray(np.mean(d * d), dtype=pred.dtype)


def _mse_grad(ctx, xs, ys, gys):
    # d/dpred = 2 (pred - target) / N * gy, written with general ops so that it differentiates again.
    count = element_count(xs[0])   # a traced scalar for symbolic sizes
    scale = 2.0 / max(count, 1) if isinstance(count, int) else 2.0 / count
    g = (xs[0] - xs[1]) * (gys[0] * scale)
    return [g, -g]


def _mse_batch(ctx, xs, batched, size):
    # One mean per example, over every axis but the batch axis, of d * d as the kernel computes it (a
    # shared operand broadcasts against the batched one: they have one per-example shape).
    d = xs[0] - xs[1]
    return [prim.mean(d * d, axes=tuple(range(1, d.ndim)))]


register_op("mse_loss", shape=_mse_shape, kernel=_mse_kernel, num_inputs=2, gradient=traced_gradient(_mse_grad),
            batch=traced_batch(_mse_batch),
            doc="mean((pred - target)**2) over all elements",
            jax=lambda J, pred, target: J.jnp.mean(J.jnp.square(pred - target)), frontend=["mse_loss"])
