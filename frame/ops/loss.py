"""Losses: `mse_loss` as its own op with kernel and gradient (ARCH-064), and its gradient helper."""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..ir.types import TensorType
from ..tracing import bind, prim, traced_gradient
from ..ir.registry import INTERNAL, NodeContext, arity, register_op, require_float, same_dtype


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
    g = bind("mse_loss_grad_internal", xs[0], xs[1], gys[0])
    return [g, -g]


register_op("mse_loss", shape=_mse_shape, kernel=_mse_kernel, num_inputs=2, gradient=traced_gradient(_mse_grad),
            doc="mean((pred - target)**2) over all elements",
            jax=lambda J, pred, target: J.jnp.mean(J.jnp.square(pred - target)), frontend=["mse_loss"])


def _mse_grad_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 3)
    pred, target, gy = ctx.input_types
    _mse_shape(NodeContext("mse_loss", [pred, target]))
    if gy.shape != () or gy.dtype != pred.dtype:
        raise ShapeError(f"op '{ctx.op}': gy must be a {pred.dtype} scalar, got {gy}")
    return [pred]


def _mse_grad_kernel(pred, target, gy):
    n = max(pred.size, 1)
    return ((pred - target) * (gy * (2.0 / n))).astype(pred.dtype, copy=False)


# ARCH-068: g_pred = (2/N) gy * gg ; g_target = -g_pred ; g_gy = sum((2/N) (pred - target) * gg).
def _mse_grad_grad(ctx, xs, ys, gys):
    pred, target, gy = xs
    gg = gys[0]
    scale = 2.0 / max(int(np.prod(pred.shape, dtype=np.int64)), 1)
    g_pred = gg * (gy * scale)
    return [g_pred, -g_pred, prim.sum((pred - target) * gg, axes=tuple(range(pred.ndim)), keepdims=False) * scale]


register_op("mse_loss_grad_internal", shape=_mse_grad_shape, kernel=_mse_grad_kernel, num_inputs=3,
            traits=(INTERNAL,), gradient=traced_gradient(_mse_grad_grad),
            doc="2 (pred - target) / N * gy (the gradient of mse_loss w.r.t. pred)",
            jax=lambda J, pred, target, gy: (pred - target) * (gy * (2.0 / max(pred.size, 1))), zero_operands=[2])
