"""Neural-network composite ops: `softplus`, `gelu`, `softmax`, `log_softmax`, `layer_norm`.

Each op is one block with a decomposition into primitives (Paddle's `DecompInterface`, seed 003
§3) and a direct gradient rule (a "custom VJP") that reuses the forward output where that is
cheaper or more stable than differentiating the decomposition. They have no kernel of their own:
eager calls and constant folding run the decomposition (`schema.decomposition_kernel`), so a
graph gives bit-identical results whether the `decompose` stage expands the op or not.

The softmax family's stabilising shift is `stop_gradient(max(x, axis, keepdims=True))`, general
ops: the shift cancels exactly in softmax / log_softmax, so stopping its gradient leaves the
composite's derivative unchanged (jax.nn.softmax stops the gradient of its max the same way).
"""
from __future__ import annotations

import math

from ..errors import ShapeError
from ..tracing import prim, traced_decomposition, traced_gradient
from ..ir.registry import ELEMENTWISE, NodeContext, arity, normalize_axis, register_op, require_float


def _float_unary_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 1)
    require_float(ctx.op, ctx.input_types[0])
    return [ctx.input_types[0]]


def _axes_of(op: str, axes: tuple, rank: int) -> tuple[int, ...]:
    if not axes or any(not isinstance(a, int) or not 0 <= a < rank for a in axes) or list(axes) != sorted(set(axes)):
        raise ShapeError(f"op '{op}': axes {axes} must be non-empty, distinct, sorted and in [0, {rank}) "
                         f"for rank {rank}")
    return tuple(axes)


def _axis_shape(ctx: NodeContext):
    """Shape rule of the softmax family: one float operand of rank >= 1 and an in-range `axis`."""
    arity(ctx.op, ctx, 1)
    (x,) = ctx.input_types
    require_float(ctx.op, x)
    if x.rank == 0:
        raise ShapeError(f"op '{ctx.op}' needs an operand of rank >= 1, got shape {x.shape}")
    normalize_axis(ctx.op, ctx.attrs["axis"], x.rank)
    return [x]


def _shift(x, axis: int):
    """x's max along `axis` (keepdims), gradient stopped. Over an empty axis there is nothing to shift
    (the result is empty) and `max` would refuse the reduction, as np.max does: no shift then."""
    if x.shape[axis] == 0:
        return 0.0
    return prim.stop_gradient(prim.max(x, axes=(axis,), keepdims=True))


# -- softplus -----------------------------------------------------------------------------------
def _softplus_decomposition(ctx, x):
    # max(x, 0) + log(1 + exp(-|x|)) without overflow. -|x| is -max(-x, 0) - max(x, 0): exact for
    # finite x (one term is zero) and -inf at both infinities, where x - 2 max(x, 0) gave inf - inf.
    r = prim.relu(x)
    return r + prim.log(1.0 + prim.exp(-prim.relu(-x) - r))


register_op("softplus", shape=_float_unary_shape, num_inputs=1, traits=(ELEMENTWISE,),
            decomposition=traced_decomposition(_softplus_decomposition),
            # d/dx softplus = sigmoid(x): smooth everywhere, unlike the relu inside the decomposition.
            gradient=traced_gradient(lambda ctx, xs, ys, gys: [gys[0] * prim.sigmoid(xs[0])]),
            doc="log(1 + e^x), computed without overflow", jax="nn.softplus", frontend=["softplus"])


# -- gelu (tanh form) ---------------------------------------------------------------------------
GELU_C = math.sqrt(2.0 / math.pi)
GELU_A = 0.044715


# x^3 as square(x) * x, like the gradient rule: np.power(x, 3.0) took ~15 ns an element in float32
# (a quarter of an FNO training step in gelus), and the product is exact ops that fuse natively.
def _gelu_decomposition(ctx, x):
    inner = GELU_C * (x + GELU_A * (prim.square(x) * x))
    return 0.5 * x * (1.0 + prim.tanh(inner))


def _gelu_grad(ctx, xs, ys, gys):
    # d/dx [x/2 (1 + t)] with t = tanh(c (x + a x^3)):  (1 + t)/2 + x/2 (1 - t^2) c (1 + 3 a x^2).
    x, gy = xs[0], gys[0]
    t = prim.tanh(GELU_C * (x + GELU_A * (prim.square(x) * x)))   # the forward's t: CSE merges the two
    # x * x and 0.5 + 0.5 t, unlike the decomposition's square(x) and 1 + t, so CSE does not make the forward's
    # kernel export them for the backward (two more activation-sized arrays written and read again: an FNO2d
    # step at 85^2 moved ~0.9 of ~5.8 GB less); the backward's kernel recomputes them from x and t.
    dt = (0.5 + 0.5 * t) + (0.5 * GELU_C) * x * (1.0 - t * t) * (1.0 + (3.0 * GELU_A) * (x * x))
    return [gy * dt]


register_op("gelu", shape=_float_unary_shape, num_inputs=1, traits=(ELEMENTWISE,),
            decomposition=traced_decomposition(_gelu_decomposition), gradient=traced_gradient(_gelu_grad),
            doc="0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (the tanh form)",
            jax=lambda J, x: J.nn.gelu(x, approximate=True), frontend=["gelu"])


# -- softmax ------------------------------------------------------------------------------------
def _softmax_decomposition(ctx, x):
    axis = ctx.attrs["axis"] % x.ndim
    e = prim.exp(x - _shift(x, axis))
    return e / prim.sum(e, axes=(axis,), keepdims=True)


def _softmax_grad(ctx, xs, ys, gys):
    # Reuses y: gx = y (gy - sum(gy y)) along the axis.
    y, gy = ys[0], gys[0]
    axis = ctx.attrs["axis"] % y.ndim
    return [y * (gy - prim.sum(gy * y, axes=(axis,), keepdims=True))]


register_op("softmax", shape=_axis_shape, num_inputs=1, attrs={"axis": ((int,), True)},
            decomposition=traced_decomposition(_softmax_decomposition), gradient=traced_gradient(_softmax_grad),
            doc="exp(x) / sum(exp(x)) along `axis`, shifted by the max for stability",
            jax="nn.softmax", frontend=["softmax"])


# -- log_softmax --------------------------------------------------------------------------------
def _log_softmax_decomposition(ctx, x):
    axis = ctx.attrs["axis"] % x.ndim
    d = x - _shift(x, axis)
    return d - prim.log(prim.sum(prim.exp(d), axes=(axis,), keepdims=True))


def _log_softmax_grad(ctx, xs, ys, gys):
    # Reuses y (Paddle's custom VJP): gx = gy - exp(y) sum(gy) along the axis.
    y, gy = ys[0], gys[0]
    axis = ctx.attrs["axis"] % y.ndim
    return [gy - prim.exp(y) * prim.sum(gy, axes=(axis,), keepdims=True)]


register_op("log_softmax", shape=_axis_shape, num_inputs=1,
            attrs={"axis": ((int,), True)}, decomposition=traced_decomposition(_log_softmax_decomposition),
            gradient=traced_gradient(_log_softmax_grad), doc="x - log(sum(exp(x))) along `axis`, computed stably",
            jax="nn.log_softmax", frontend=["log_softmax"])


# -- layer_norm ---------------------------------------------------------------------------------
def _layer_norm_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 1)
    (x,) = ctx.input_types
    require_float(ctx.op, x)
    _axes_of(ctx.op, ctx.attrs["axes"], x.rank)
    eps = ctx.attrs["eps"]
    if not eps >= 0.0:
        raise ShapeError(f"op '{ctx.op}': eps must be >= 0, got {eps}")
    return [x]


def _layer_norm_decomposition(ctx, x):
    axes = ctx.attrs["axes"]
    d = x - prim.mean(x, axes=axes, keepdims=True)
    var = prim.mean(d * d, axes=axes, keepdims=True)
    return d / prim.sqrt(var + ctx.attrs["eps"])


def _layer_norm_grad(ctx, xs, ys, gys):
    # With y = (x - mu) r, r = 1/sqrt(var + eps):  gx = r (gy - mean(gy) - y mean(gy y)) over the axes.
    x, y, gy = xs[0], ys[0], gys[0]
    axes = ctx.attrs["axes"]
    d = x - prim.mean(x, axes=axes, keepdims=True)
    std = prim.sqrt(prim.mean(d * d, axes=axes, keepdims=True) + ctx.attrs["eps"])
    centred = gy - prim.mean(gy, axes=axes, keepdims=True) - y * prim.mean(gy * y, axes=axes, keepdims=True)
    return [centred / std]


def _layer_norm_jax(J, x, axes, eps):
    centred = x - J.jnp.mean(x, axis=axes, keepdims=True)
    return centred / J.jnp.sqrt(J.jnp.var(x, axis=axes, keepdims=True) + J.jnp.asarray(eps, x.dtype))


register_op("layer_norm", shape=_layer_norm_shape, num_inputs=1,
            attrs={"axes": ((tuple,), True), "eps": ((float,), True)},
            decomposition=traced_decomposition(_layer_norm_decomposition), gradient=traced_gradient(_layer_norm_grad),
            doc="(x - mean) / sqrt(var + eps) over `axes` (normalisation only, no affine parameters)",
            jax=_layer_norm_jax, frontend=["layer_norm"])
