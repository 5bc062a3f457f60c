"""Elementwise ops: arithmetic with numpy broadcasting, and unary math.

Each op is one `unary(...)`/`binary(...)` call: its numpy kernel and its gradient rule, written
with the same ops users call. Rules that can reuse the forward output do so (tanh, sigmoid,
exp, sqrt), as Paddle's custom VJPs do for stability.
"""
from __future__ import annotations


import numpy as np

from ..ir.types import TensorType
from .. import numpy as fnp
from ..errors import ShapeError
from ..frontend.tracer import bind
from .schema import (ELEMENTWISE, INTERNAL, LINEAR, NodeContext, arity, broadcast_shapes, register_op, require_float,
                     same_dtype, traced_gradient)


def sum_to_shape(g, shape: tuple[int, ...]):
    """Reduce a broadcast gradient back to `shape` (Paddle's `reduce_as`): sum the broadcast axes."""
    if tuple(g.shape) == tuple(shape):
        return g
    lead = len(g.shape) - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(shape) if d == 1 and g.shape[lead + i] != 1)
    if axes:
        g = fnp.sum(g, axis=axes, keepdims=True)
    return fnp.reshape(g, shape)


def _check_operands(op: str, types, operands: str) -> None:
    """`operands`: "float" (float dtypes only), "numeric" (no bool, which numpy refuses too) or "any"."""
    for t in types:
        if operands == "float":
            require_float(op, t)
        elif operands == "numeric" and t.dtype == "bool":
            raise ShapeError(f"op '{op}' does not take bool operands (numpy refuses them too), got {t}")


def _unary_shape(operands: str):
    def shape(ctx: NodeContext):
        arity(ctx.op, ctx, 1)
        _check_operands(ctx.op, ctx.input_types, operands)
        return [ctx.input_types[0]]
    return shape


def unary(name, kernel, rule, operands="float", traits=(), attrs=None, doc=""):
    """Register a one-input elementwise op; `rule(ctx, x, y, gy) -> gx` (None for zero)."""
    return register_op(
        name, shape=_unary_shape(operands), kernel=kernel, num_inputs=1, attrs=attrs, doc=doc,
        traits=(ELEMENTWISE, *traits),
        gradient=traced_gradient(lambda ctx, xs, ys, gys: [rule(ctx, xs[0], ys[0], gys[0])]))


def _binary_shape(operands: str):
    def shape(ctx: NodeContext):
        arity(ctx.op, ctx, 2)
        a, b = ctx.input_types
        dtype = same_dtype(ctx.op, [a, b])
        _check_operands(ctx.op, [a], operands)
        return [TensorType(broadcast_shapes(ctx.op, a.shape, b.shape), dtype, a.device)]
    return shape


def binary(name, kernel, rule, operands="any", traits=(), doc=""):
    """Register a two-input broadcasting op; `rule(a, b, y, gy) -> (ga, gb)` before reduction to input shapes."""

    def gradient(ctx, xs, ys, gys):
        a, b = xs
        ga, gb = rule(a, b, ys[0], gys[0])
        return [None if ga is None else sum_to_shape(ga, a.shape), None if gb is None else sum_to_shape(gb, b.shape)]

    return register_op(name, shape=_binary_shape(operands), kernel=kernel, num_inputs=2, doc=doc,
                       traits=(ELEMENTWISE, *traits), gradient=traced_gradient(gradient))


# -- binary arithmetic ------------------------------------------------------------------------
binary("add", np.add, lambda a, b, y, gy: (gy, gy), traits=(LINEAR,), doc="a + b")
binary("sub", np.subtract, lambda a, b, y, gy: (gy, -gy), operands="numeric", traits=(LINEAR,), doc="a - b")
binary("mul", np.multiply, lambda a, b, y, gy: (gy * b, gy * a), doc="a * b")
# numpy's true division of integers gives floats; frame does not promote, so ints are refused.
binary("div", np.divide, lambda a, b, y, gy: (gy / b, -(gy * y) / b), operands="float", doc="a / b (true division)")

# -- unary math --------------------------------------------------------------------------------
unary("neg", np.negative, lambda ctx, x, y, gy: -gy, operands="numeric", traits=(LINEAR,), doc="-x")
unary("square", np.square, lambda ctx, x, y, gy: gy * (2.0 * x), doc="x * x")
unary("exp", np.exp, lambda ctx, x, y, gy: gy * y, doc="e ** x")
unary("log", np.log, lambda ctx, x, y, gy: gy / x, doc="natural logarithm")
unary("sin", np.sin, lambda ctx, x, y, gy: gy * fnp.cos(x), doc="sine")
unary("cos", np.cos, lambda ctx, x, y, gy: -(gy * fnp.sin(x)), doc="cosine")
# square(y), not y*y: its own derivative is one term, so re-derived graphs grow slower (graph_growth.py).
unary("tanh", np.tanh, lambda ctx, x, y, gy: gy * (1.0 - fnp.square(y)), doc="hyperbolic tangent")
unary("sqrt", np.sqrt, lambda ctx, x, y, gy: (0.5 * gy) / y, doc="square root")


def _sigmoid_kernel(x, out=None):
    # 0.5 + 0.5 tanh(x/2) is the logistic function without overflow in exp(-x) for large |x|;
    # computed step by step in one buffer (`out` when given).
    x = np.asarray(x)
    half = np.asarray(0.5, x.dtype)
    y = np.asarray(np.multiply(half, x, out=out))
    np.tanh(y, out=y)
    np.multiply(half, y, out=y)
    return np.add(half, y, out=y)


unary("sigmoid", _sigmoid_kernel, lambda ctx, x, y, gy: gy * (y * (1.0 - y)), doc="logistic 1 / (1 + e^-x)")
unary("relu", lambda x: np.maximum(x, np.zeros((), x.dtype)),
      lambda ctx, x, y, gy: bind("relu_grad_internal", x, gy), doc="max(x, 0)")


def _pow_grad(ctx, x, y, gy):
    p = ctx.attrs["exponent"]
    if p == 0.0:
        return None
    if p == 1.0:
        return gy
    if p == 2.0:
        return gy * (2.0 * x)
    return gy * (p * fnp.power(x, p - 1.0))


unary("pow", lambda x, exponent: np.power(x, np.asarray(exponent, x.dtype)), _pow_grad,
      attrs={"exponent": ((float, int), True)}, doc="x ** exponent (a Python-number attribute)")
unary("stop_gradient", lambda x: x, lambda ctx, x, y, gy: None, operands="any",
      doc="identity whose gradient is zero")


# -- gradient helper --------------------------------------------------------------------------
def _relu_grad_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 2)
    x, gy = ctx.input_types
    same_dtype(ctx.op, [x, gy])
    if x.shape != gy.shape:
        raise ShapeError(f"op '{ctx.op}': x {x.shape} and gy {gy.shape} must have the same shape")
    return [gy]


# ARCH-068: g_x = 0 (relu'' is zero off the kink and taken as zero on it); g_gy = relu_grad(x, ggx).
register_op("relu_grad_internal", shape=_relu_grad_shape, num_inputs=2,
            kernel=lambda x, gy: np.where(x > 0, gy, np.zeros((), gy.dtype)),
            gradient=traced_gradient(lambda ctx, xs, ys, gys: [None, bind("relu_grad_internal", xs[0], gys[0])]),
            traits=(INTERNAL, ELEMENTWISE, LINEAR), doc="gy where x > 0 else 0")
