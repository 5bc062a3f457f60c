"""Linear algebra: `matmul` (2-D and batched, numpy batch broadcasting) and its two gradient helpers.

The helpers compute `gy @ b^T` and `a^T @ gy` by reading the operand transposed inside the kernel
(`swapaxes` is a view): no transpose is materialised (seed v0 list).
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..ir.types import TensorType
from ..tracing import bind, traced_gradient
from .elementwise import sum_to_shape
from .schema import INTERNAL, NodeContext, arity, broadcast_shapes, register_op, same_dtype


def matmul_type(op: str, a: TensorType, b: TensorType, a_t: bool = False, b_t: bool = False) -> TensorType:
    """Type of `op(a, b)` where a/b are read transposed in their last two axes when a_t/b_t."""
    dtype = same_dtype(op, [a, b])
    if a.rank < 2 or b.rank < 2:
        raise ShapeError(f"op '{op}' needs operands of rank >= 2, got {a.shape} and {b.shape}")
    m, k = (a.shape[-1], a.shape[-2]) if a_t else (a.shape[-2], a.shape[-1])
    k2, n = (b.shape[-1], b.shape[-2]) if b_t else (b.shape[-2], b.shape[-1])
    if k != k2:
        raise ShapeError(f"op '{op}': inner dimensions differ for shapes {a.shape} and {b.shape} ({k} vs {k2})")
    batch = broadcast_shapes(op, a.shape[:-2], b.shape[:-2])
    return TensorType(batch + (m, n), dtype, a.device)


def _shape(a_t: bool, b_t: bool):
    def shape(ctx: NodeContext):
        arity(ctx.op, ctx, 2)
        return [matmul_type(ctx.op, *ctx.input_types, a_t=a_t, b_t=b_t)]
    return shape


def _matmul_grad(ctx, xs, ys, gys):
    a, b = xs
    gy = gys[0]
    return [sum_to_shape(bind("matmul_grad_lhs_internal", gy, b), a.shape),
            sum_to_shape(bind("matmul_grad_rhs_internal", a, gy), b.shape)]


register_op("matmul", shape=_shape(False, False), kernel=np.matmul, num_inputs=2,
            gradient=traced_gradient(_matmul_grad), doc="a @ b over the last two axes, batch axes broadcast",
            numpy="matmul", jax="jnp.matmul", frontend=["matmul"], operators=["__matmul__", "__rmatmul__"],
            ufuncs=["matmul"], zero_operands=[0, 1])


# matmul_grad_lhs_internal(gy, b) = gy @ b^T. ARCH-068: g_gy = gga @ b ; g_b = (gga^T @ gy) = rhs_internal(gga, gy).
def _lhs_grad(ctx, xs, ys, gys):
    gy, b = xs
    gga = gys[0]
    return [sum_to_shape(bind("matmul", gga, b), gy.shape),
            sum_to_shape(bind("matmul_grad_rhs_internal", gga, gy), b.shape)]


register_op("matmul_grad_lhs_internal", shape=_shape(False, True), num_inputs=2, traits=(INTERNAL,),
            kernel=lambda gy, b: np.matmul(gy, np.swapaxes(b, -1, -2)),
            gradient=traced_gradient(_lhs_grad), doc="gy @ b^T (the matmul gradient w.r.t. its left operand)",
            numpy=lambda e, gy, b: f"{e.fn(np.matmul)}({gy}, {b}.swapaxes(-1, -2){e.out})", numpy_out=True,
            jax=lambda J, gy, b: J.jnp.matmul(gy, J.jnp.swapaxes(b, -1, -2)), zero_operands=[0, 1])


# matmul_grad_rhs_internal(a, gy) = a^T @ gy. ARCH-068: g_a = gy @ ggb^T = lhs_internal(gy, ggb) ; g_gy = a @ ggb.
def _rhs_grad(ctx, xs, ys, gys):
    a, gy = xs
    ggb = gys[0]
    return [sum_to_shape(bind("matmul_grad_lhs_internal", gy, ggb), a.shape),
            sum_to_shape(bind("matmul", a, ggb), gy.shape)]


register_op("matmul_grad_rhs_internal", shape=_shape(True, False), num_inputs=2, traits=(INTERNAL,),
            kernel=lambda a, gy: np.matmul(np.swapaxes(a, -1, -2), gy),
            gradient=traced_gradient(_rhs_grad), doc="a^T @ gy (the matmul gradient w.r.t. its right operand)",
            numpy=lambda e, a, gy: f"{e.fn(np.matmul)}({a}.swapaxes(-1, -2), {gy}{e.out})", numpy_out=True,
            jax=lambda J, a, gy: J.jnp.matmul(J.jnp.swapaxes(a, -1, -2), gy), zero_operands=[0, 1])
