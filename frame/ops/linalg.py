"""Linear algebra: `matmul` (2-D and batched, numpy batch broadcasting), either operand read transposed."""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..ir.types import TensorType
from ..tracing import bind, traced_gradient
from .elementwise import sum_to_shape
from ..ir.registry import NodeContext, arity, broadcast_shapes, register_op, same_dtype


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


def _shape(ctx: NodeContext):
    arity(ctx.op, ctx, 2)
    return [matmul_type(ctx.op, *ctx.input_types, a_t=ctx.attr("transpose_a", False),
                        b_t=ctx.attr("transpose_b", False))]


def _kernel(a, b, transpose_a=False, transpose_b=False):
    return np.matmul(np.swapaxes(a, -1, -2) if transpose_a else a, np.swapaxes(b, -1, -2) if transpose_b else b)


def _numpy(e, a, b):
    t = ".swapaxes(-1, -2)"
    return (f"{e.fn(np.matmul)}({a}{t if e.attrs.get('transpose_a') else ''}, "
            f"{b}{t if e.attrs.get('transpose_b') else ''}{e.out})")


def _jax(J, a, b, transpose_a=False, transpose_b=False):
    return J.jnp.matmul(J.jnp.swapaxes(a, -1, -2) if transpose_a else a, J.jnp.swapaxes(b, -1, -2) if transpose_b else b)


def _matmul(x, y, x_t: bool, y_t: bool):
    """matmul with only the flags that are set (a plain matmul has no attrs, as users bind it)."""
    return bind("matmul", x, y, **{k: True for k, on in (("transpose_a", x_t), ("transpose_b", y_t)) if on})


def _grad(ctx, xs, ys, gys):
    # C = op(A) op(B), op transposing when the flag says so (ARCH-068: the gradients are matmuls
    # again, read transposed, so every order of derivative stays in this one op).
    a, b = xs
    gy = gys[0]
    a_t, b_t = ctx.attr("transpose_a", False), ctx.attr("transpose_b", False)
    ga = _matmul(b, gy, b_t, True) if a_t else _matmul(gy, b, False, not b_t)
    gb = _matmul(gy, a, True, a_t) if b_t else _matmul(a, gy, not a_t, False)
    return [sum_to_shape(ga, a.shape), sum_to_shape(gb, b.shape)]


# Gradients read their operands transposed inside np.matmul (`swapaxes` is a view): no transpose is
# materialised (seed v0 list).
register_op("matmul", shape=_shape, kernel=_kernel, num_inputs=2,
            attrs={"transpose_a": ((bool,), False), "transpose_b": ((bool,), False)},
            gradient=traced_gradient(_grad),
            doc="op(a) @ op(b) over the last two axes, op transposing them when transpose_a/transpose_b; "
                "batch axes broadcast",
            numpy=_numpy, numpy_out=True, jax=_jax, frontend=["matmul"], operators=["__matmul__", "__rmatmul__"],
            ufuncs=["matmul"], zero_operands=[0, 1])
