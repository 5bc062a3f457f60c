"""Elementwise ops: arithmetic with numpy broadcasting, and unary math.

Each op is one `unary(...)`/`binary(...)` call: its numpy kernel and its gradient rule, written
with the same ops users call. Rules that can reuse the forward output do so (tanh, sigmoid,
exp, sqrt), as Paddle's custom VJPs do for stability.
"""
from __future__ import annotations


import numpy as np

from ..errors import ShapeError
from ..ir.types import TensorType
from ..tracing import bind, prim, traced_gradient
from ..ir.registry import (BROADCASTING, COMMUTATIVE, ELEMENTWISE, INTERNAL, LINEAR, VIEW, NodeContext, arity,
                     broadcast_shapes, register_op, require_float, same_dtype)


def sum_to_shape(g, shape: tuple[int, ...]):
    """Reduce a broadcast gradient back to `shape` (Paddle's `reduce_as`): sum the broadcast axes."""
    if tuple(g.shape) == tuple(shape):
        return g
    lead = len(g.shape) - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(shape) if d == 1 and g.shape[lead + i] != 1)
    if axes:
        g = prim.sum(g, axes=axes, keepdims=True)
    return prim.reshape(g, shape=tuple(shape))


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


def unary(name, kernel, rule, operands="float", traits=(), attrs=None, doc="", **facts):
    """Register a one-input elementwise op; `rule(ctx, x, y, gy) -> gx` (None for zero).

    `facts` are the backend and frontend fields of `OpSchema`."""
    return register_op(
        name, shape=_unary_shape(operands), kernel=kernel, num_inputs=1, attrs=attrs, doc=doc,
        traits=(ELEMENTWISE, *traits),
        gradient=traced_gradient(lambda ctx, xs, ys, gys: [rule(ctx, xs[0], ys[0], gys[0])]), **facts)


def _binary_shape(operands: str):
    def shape(ctx: NodeContext):
        arity(ctx.op, ctx, 2)
        a, b = ctx.input_types
        dtype = same_dtype(ctx.op, [a, b])
        _check_operands(ctx.op, [a], operands)
        return [TensorType(broadcast_shapes(ctx.op, a.shape, b.shape), dtype, a.device)]
    return shape


def binary(name, kernel, rule, operands="any", traits=(), doc="", **facts):
    """Register a two-input broadcasting op; `rule(a, b, y, gy) -> (ga, gb)` before reduction to input shapes.

    `facts` are the backend and frontend fields of `OpSchema`."""

    def gradient(ctx, xs, ys, gys):
        a, b = xs
        ga, gb = rule(a, b, ys[0], gys[0])
        return [None if ga is None else sum_to_shape(ga, a.shape), None if gb is None else sum_to_shape(gb, b.shape)]

    return register_op(name, shape=_binary_shape(operands), kernel=kernel, num_inputs=2, doc=doc,
                       traits=(ELEMENTWISE, BROADCASTING, *traits), gradient=traced_gradient(gradient), **facts)


# -- binary arithmetic ------------------------------------------------------------------------
binary("add", np.add, lambda a, b, y, gy: (gy, gy), traits=(LINEAR, COMMUTATIVE), doc="a + b",
       numpy="add", c="({0} + {1})", jax="jnp.add", jax_imports=["add"], frontend=["add"],
       operators=["__add__", "__radd__"], ufuncs=["add"])
binary("sub", np.subtract, lambda a, b, y, gy: (gy, -gy), operands="numeric", traits=(LINEAR,), doc="a - b",
       numpy="subtract", c="({0} - {1})", jax="jnp.subtract", jax_imports=["sub"], frontend=["subtract"],
       operators=["__sub__", "__rsub__"], ufuncs=["subtract"])
binary("mul", np.multiply, lambda a, b, y, gy: (gy * b, gy * a), traits=(COMMUTATIVE,), doc="a * b",
       numpy="multiply", c="({0} * {1})", jax="jnp.multiply", jax_imports=["mul"], frontend=["multiply"],
       operators=["__mul__", "__rmul__"], ufuncs=["multiply"])
# numpy's true division of integers gives floats; frame does not promote, so ints are refused.
binary("div", np.divide, lambda a, b, y, gy: (gy / b, -(gy * y) / b), operands="float", doc="a / b (true division)",
       numpy="divide", c="({0} / {1})", jax="jnp.divide", jax_imports=["div"], frontend=["divide", "true_divide"],
       operators=["__truediv__", "__rtruediv__"], ufuncs=["divide", "true_divide"])

# -- unary math --------------------------------------------------------------------------------
unary("neg", np.negative, lambda ctx, x, y, gy: -gy, operands="numeric", traits=(LINEAR,), doc="-x",
      numpy="negative", c="(-{0})", jax="jnp.negative", jax_imports=["neg"], frontend=["negative"],
      operators=["__neg__"], ufuncs=["negative"])
unary("square", np.square, lambda ctx, x, y, gy: gy * (2.0 * x), doc="x * x",
      numpy="square", c="({0} * {0})", jax=lambda J, x: x * x, jax_imports=["square"], frontend=["square"],
      ufuncs=["square"])
# exp, log, sin, cos and tanh are not correctly rounded in every library, so no C expression
# gives numpy's bits for them: they stay numpy calls between native kernels.
unary("exp", np.exp, lambda ctx, x, y, gy: gy * y, doc="e ** x",
      numpy="exp", jax="jnp.exp", jax_imports=["exp"], frontend=["exp"], ufuncs=["exp"])
unary("log", np.log, lambda ctx, x, y, gy: gy / x, doc="natural logarithm",
      numpy="log", jax="jnp.log", jax_imports=["log"], frontend=["log"], ufuncs=["log"])
unary("sin", np.sin, lambda ctx, x, y, gy: gy * prim.cos(x), doc="sine",
      numpy="sin", jax="jnp.sin", jax_imports=["sin"], frontend=["sin"], ufuncs=["sin"])
unary("cos", np.cos, lambda ctx, x, y, gy: -(gy * prim.sin(x)), doc="cosine",
      numpy="cos", jax="jnp.cos", jax_imports=["cos"], frontend=["cos"], ufuncs=["cos"])
# square(y), not y*y: its own derivative is one term, so re-derived graphs grow slower (graph_growth.py).
unary("tanh", np.tanh, lambda ctx, x, y, gy: gy * (1.0 - prim.square(y)), doc="hyperbolic tangent",
      numpy="tanh", jax="jnp.tanh", jax_imports=["tanh"], frontend=["tanh"], ufuncs=["tanh"])
# IEEE sqrt is correctly rounded, in C as in numpy.
unary("sqrt", np.sqrt, lambda ctx, x, y, gy: (0.5 * gy) / y, doc="square root",
      numpy="sqrt", c="sqrt{f}({0})", jax="jnp.sqrt", jax_imports=["sqrt"], frontend=["sqrt"], ufuncs=["sqrt"])


def _sigmoid_kernel(x, out=None):
    # 0.5 + 0.5 tanh(x/2) is the logistic function without overflow in exp(-x) for large |x|;
    # computed step by step in one buffer (`out` when given).
    x = np.asarray(x)
    half = np.asarray(0.5, x.dtype)
    y = np.asarray(np.multiply(half, x, out=out))
    np.tanh(y, out=y)
    np.multiply(half, y, out=y)
    return np.add(half, y, out=y)


unary("sigmoid", _sigmoid_kernel, lambda ctx, x, y, gy: gy * (y * (1.0 - y)), doc="logistic 1 / (1 + e^-x)",
      numpy=lambda e, x: f"{e.fn(_sigmoid_kernel)}({x}{e.out})", numpy_out=True, jax="nn.sigmoid",
      jax_imports=["logistic"], frontend=["sigmoid"])
# In C: x when x > 0 or nan, else 0, as np.maximum(x, 0) gives (so relu(-0.0) is +0.0). jax.nn.relu's
# custom JVP takes 0 at the kink, as frame's rule does.
unary("relu", lambda x: np.maximum(x, np.zeros((), x.dtype)),
      lambda ctx, x, y, gy: bind("relu_grad_internal", x, gy), doc="max(x, 0)",
      numpy=lambda e, x: f"{e.fn(np.maximum)}({x}, {e.scalar(0)}{e.out})", numpy_out=True,
      c="(({0} > 0 || {0} != {0}) ? {0} : ({t})0)", jax="nn.relu", frontend=["relu"])
# |x|: its derivative is sign(x), 0 at the kink as in JAX, built from relu's gradient helper so that
# it is differentiable again (d/dx is zero off the kink). fabs clears the sign bit, as numpy does.
unary("abs", np.absolute, lambda ctx, x, y, gy: prim.relu_grad_internal(x, gy) - prim.relu_grad_internal(-x, gy),
      operands="numeric", doc="absolute value |x|", numpy="absolute", c="fabs{f}({0})", jax="jnp.abs",
      jax_imports=["abs"], frontend=["abs", "absolute"], operators=["__abs__"], ufuncs=["absolute"])


def _pow_grad(ctx, x, y, gy):
    p = ctx.attrs["exponent"]
    if p == 0.0:
        return None
    if p == 1.0:
        return gy
    if p == 2.0:
        return gy * (2.0 * x)
    return gy * (p * prim.pow(x, exponent=p - 1.0))


def _pow_jax(J, x, exponent):
    # Integral exponents go through integer_pow, exactly defined for negative bases (as np.power is).
    if float(exponent).is_integer():
        return J.lax.integer_pow(x, int(exponent))
    return J.jnp.power(x, J.jnp.asarray(exponent, x.dtype))


unary("pow", lambda x, exponent: np.power(x, np.asarray(exponent, x.dtype)), _pow_grad,
      attrs={"exponent": ((float, int), True)}, doc="x ** exponent (a Python-number attribute)",
      numpy=lambda e, x: f"{e.fn(np.power)}({x}, {e.scalar(e.attrs['exponent'])}{e.out})", numpy_out=True,
      jax=_pow_jax, frontend=["power"], operators=["__pow__"], ufuncs=["power"])
unary("stop_gradient", lambda x: x, lambda ctx, x, y, gy: None, operands="any",
      doc="identity whose gradient is zero", traits=(VIEW,),
      numpy=lambda e, x: x, c="{0}", jax="lax.stop_gradient", jax_imports=["stop_gradient"],
      frontend=["stop_gradient"])


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
            traits=(INTERNAL, ELEMENTWISE, LINEAR), doc="gy where x > 0 else 0",
            c="({0} > 0 ? {1} : ({t})0)", jax=lambda J, x, gy: J.jnp.where(x > 0, gy, J.jnp.zeros((), gy.dtype)),
            zero_operands=[0, 1])
