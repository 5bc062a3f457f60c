"""Elementwise ops: arithmetic with numpy broadcasting, and unary math.

Each op is one `unary(...)`/`binary(...)` call: its numpy kernel and its gradient rule, written
with the same ops users call. Rules that can reuse the forward output do so (tanh, sigmoid,
exp, sqrt), as Paddle's custom VJPs do for stability.
"""
from __future__ import annotations


import numpy as np

from ..errors import ShapeError
from ..ir.types import TensorType, broadcast_dims
from ..tracing import prim, traced_gradient
from ..ir.registry import (BILINEAR, BROADCASTING, COMMUTATIVE, ELEMENTWISE, LINEAR, VIEW, NodeContext, arity,
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
    """`operands`: "float" (float dtypes only), "inexact" (float or complex: the holomorphic functions,
    whose rules are JAX's complex convention as written), "numeric" (no bool, which numpy refuses
    too), "real" (anything but complex: floor, abs), "integral" (integers and bools: the bitwise ops),
    "integer" (integers only: shifts) or "any"."""
    for t in types:
        if operands == "float":
            require_float(op, t)
        elif operands == "inexact" and not t.is_inexact:
            raise ShapeError(f"op '{op}' needs a float or complex operand, got {t}")
        elif operands == "numeric" and t.dtype == "bool":
            raise ShapeError(f"op '{op}' does not take bool operands (numpy refuses them too), got {t}")
        elif operands == "real" and t.is_complex:
            raise ShapeError(f"op '{op}' does not take complex operands, got {t}")
        elif operands == "integral" and (t.is_inexact):
            raise ShapeError(f"op '{op}' takes integer or bool operands (numpy refuses floats too), got {t}")
        elif operands == "integer" and (t.is_inexact or t.dtype == "bool"):
            raise ShapeError(f"op '{op}' takes integer operands, got {t}")


def _unary_shape(operands: str, out_dtype: str | None = None):
    def shape(ctx: NodeContext):
        arity(ctx.op, ctx, 1)
        _check_operands(ctx.op, ctx.input_types, operands)
        (x,) = ctx.input_types
        return [x if out_dtype is None else TensorType(x.shape, out_dtype, x.device)]
    return shape


def unary(name, kernel, rule, operands="float", traits=(), attrs=None, doc="", out_dtype=None, **facts):
    """Register a one-input elementwise op; `rule(ctx, x, y, gy) -> gx` (None for zero).

    `out_dtype`: the result's dtype when it is not the operand's ("bool" for predicates).
    `facts` are the backend and frontend fields of `OpSchema`."""
    return register_op(
        name, shape=_unary_shape(operands, out_dtype), kernel=kernel, num_inputs=1, attrs=attrs, doc=doc,
        traits=(ELEMENTWISE, *traits),
        gradient=traced_gradient(lambda ctx, xs, ys, gys: [rule(ctx, xs[0], ys[0], gys[0])]), **facts)


def _binary_shape(operands: str, out_dtype: str | None):
    def shape(ctx: NodeContext):
        arity(ctx.op, ctx, 2)
        a, b = ctx.input_types
        dtype = same_dtype(ctx.op, [a, b])
        _check_operands(ctx.op, [a], operands)
        return [TensorType(broadcast_dims(ctx.op, a.shape, b.shape), out_dtype or dtype, a.device)]
    return shape


def binary(name, kernel, rule, operands="any", traits=(), doc="", out_dtype=None, **facts):
    """Register a two-input broadcasting op; `rule(a, b, y, gy) -> (ga, gb)` before reduction to input shapes.

    Mixed operand dtypes are promoted by numpy's rule for the op's ufunc before the op is applied
    (`frame.tracing.bind`), so the op itself sees equal dtypes. `out_dtype` as for `unary`.
    `facts` are the backend and frontend fields of `OpSchema`."""

    def gradient(ctx, xs, ys, gys):
        a, b = xs
        ga, gb = rule(a, b, ys[0], gys[0])
        return [None if ga is None else sum_to_shape(ga, a.shape), None if gb is None else sum_to_shape(gb, b.shape)]

    return register_op(name, shape=_binary_shape(operands, out_dtype), kernel=kernel, num_inputs=2, doc=doc,
                       traits=(ELEMENTWISE, BROADCASTING, *traits), gradient=traced_gradient(gradient), **facts)


# -- binary arithmetic ------------------------------------------------------------------------
binary("add", np.add, lambda a, b, y, gy: (gy, gy), traits=(LINEAR, COMMUTATIVE), doc="a + b",
       numpy="add", c="({0} + {1})", jax="jnp.add", jax_imports=["add"], frontend=["add"],
       operators=["__add__", "__radd__"], ufuncs=["add"])
binary("sub", np.subtract, lambda a, b, y, gy: (gy, -gy), operands="numeric", traits=(LINEAR,), doc="a - b",
       numpy="subtract", c="({0} - {1})", jax="jnp.subtract", jax_imports=["sub"], frontend=["subtract"],
       operators=["__sub__", "__rsub__"], ufuncs=["subtract"])
binary("mul", np.multiply, lambda a, b, y, gy: (gy * b, gy * a), traits=(COMMUTATIVE, BILINEAR), doc="a * b",
       numpy="multiply", c="({0} * {1})", jax="jnp.multiply", jax_imports=["mul"], frontend=["multiply"],
       operators=["__mul__", "__rmul__"], ufuncs=["multiply"])
# numpy's true division of integers gives floats; frame does not promote, so ints are refused.
binary("div", np.divide, lambda a, b, y, gy: (gy / b, -(gy * y) / b), operands="inexact", doc="a / b (true division)",
       numpy="divide", c="({0} / {1})", jax="jnp.divide", jax_imports=["div"], frontend=["divide", "true_divide"],
       operators=["__truediv__", "__rtruediv__"], ufuncs=["divide", "true_divide"],
       # y = a / b: b y = a, so y_k = (a_k - sum_{j>=1} b_j y_{k-j}) / b_0 (the derivation nests 1/b K deep)
       taylor=lambda ctx, k, xs, ys: [(xs[0][k] - sum(xs[1][j] * ys[0][k - j] for j in range(1, k + 1))) / xs[1][0]])

# -- unary math --------------------------------------------------------------------------------
unary("neg", np.negative, lambda ctx, x, y, gy: -gy, operands="numeric", traits=(LINEAR,), doc="-x",
      numpy="negative", c="(-{0})", jax="jnp.negative", jax_imports=["neg"], frontend=["negative"],
      operators=["__neg__"], ufuncs=["negative"])
unary("square", np.square, lambda ctx, x, y, gy: gy * (2.0 * x), operands="inexact", doc="x * x",
      numpy="square", c="({0} * {0})", jax=lambda J, x: x * x, jax_imports=["square"], frontend=["square"],
      ufuncs=["square"],
      # The Cauchy product, each cross term once: half the nodes of the derivation from 2x (tanh's series uses it).
      taylor=lambda ctx, k, xs, ys: [2 * sum(xs[0][j] * xs[0][k - j] for j in range((k + 1) // 2))
                                     + (xs[0][k // 2] * xs[0][k // 2] if k % 2 == 0 else 0)])
# exp, log, sin, cos and tanh are not correctly rounded in every library, so no C expression
# gives numpy's bits for them: they stay numpy calls between native kernels.
unary("exp", np.exp, lambda ctx, x, y, gy: gy * y, operands="inexact", doc="e ** x",
      numpy="exp", jax="jnp.exp", jax_imports=["exp"], frontend=["exp"], ufuncs=["exp"])
unary("log", np.log, lambda ctx, x, y, gy: gy / x, operands="inexact", doc="natural logarithm",
      numpy="log", jax="jnp.log", jax_imports=["log"], frontend=["log"], ufuncs=["log"])
unary("sin", np.sin, lambda ctx, x, y, gy: gy * prim.cos(x), operands="inexact", doc="sine",
      numpy="sin", jax="jnp.sin", jax_imports=["sin"], frontend=["sin"], ufuncs=["sin"])
unary("cos", np.cos, lambda ctx, x, y, gy: -(gy * prim.sin(x)), operands="inexact", doc="cosine",
      numpy="cos", jax="jnp.cos", jax_imports=["cos"], frontend=["cos"], ufuncs=["cos"])
# square(y), not y*y: its own derivative is one term, so re-derived graphs grow slower (graph_growth.py).
unary("tanh", np.tanh, lambda ctx, x, y, gy: gy * (1.0 - prim.square(y)), operands="inexact", doc="hyperbolic tangent",
      numpy="tanh", jax="jnp.tanh", jax_imports=["tanh"], frontend=["tanh"], ufuncs=["tanh"])
# IEEE sqrt is correctly rounded, in C as in numpy.
unary("sqrt", np.sqrt, lambda ctx, x, y, gy: (0.5 * gy) / y, operands="inexact", doc="square root",
      numpy="sqrt", c="sqrt{f}({0})", jax="jnp.sqrt", jax_imports=["sqrt"], frontend=["sqrt"], ufuncs=["sqrt"])


def _sigmoid_kernel(x, out=None):
    # scipy's expit: 1 / (1 + e^-x) for x >= 0 and e^x / (1 + e^x) below, with e^-|x| in (0, 1] so
    # nothing overflows and both tails keep their relative accuracy (0.5 + 0.5 tanh(x / 2) gave 0 for
    # x < -37 in float64 and lost digits long before).
    x = np.asarray(x)
    e = np.exp(-np.abs(x))
    return np.divide(np.where(x < 0, e, np.asarray(1, x.dtype)), e + np.asarray(1, x.dtype), out=out)


unary("sigmoid", _sigmoid_kernel, lambda ctx, x, y, gy: gy * (y * (1.0 - y)), doc="logistic 1 / (1 + e^-x)",
      numpy=lambda e, x: f"{e.fn(_sigmoid_kernel)}({x}{e.out})", numpy_out=True, jax="nn.sigmoid",
      jax_imports=["logistic"], frontend=["sigmoid"])
# In C: x when x > 0 or nan, else 0, as np.maximum(x, 0) gives (so relu(-0.0) is +0.0). jax.nn.relu's
# custom JVP takes 0 at the kink, as frame's rule does.
unary("relu", lambda x: np.maximum(x, np.zeros((), x.dtype)),
      lambda ctx, x, y, gy: prim.where(prim.greater(x, 0.0), gy, 0.0), doc="max(x, 0)",
      numpy=lambda e, x: f"{e.fn(np.maximum)}({x}, {e.scalar(0)}{e.out})", numpy_out=True,
      c="(({0} > 0 || {0} != {0}) ? {0} : ({t})0)", jax="nn.relu", frontend=["relu"])
# |x| of any operand; a complex z gives its modulus in the real dtype of its parts, as numpy.
def _abs_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 1)
    (x,) = ctx.input_types
    return [TensorType(x.shape, np.zeros((), x.dtype).real.dtype.name, x.device)]


def _abs_grad(ctx, xs, ys, gys):
    # Real x: sign(x), 0 at the kink (sign's own derivative is zero; JAX's select(x >= 0, g, -g) takes 1
    # there). Complex z: JAX's rule in its convention (frame/ops/complex.py), g conj(z) / |z| with |z| = 0
    # read as 1 (JAX's _replace_zero): 0 at z = 0, and the rule's own derivative there is JAX's too.
    (z,), (y,), (g,) = xs, ys, gys
    if not z.type.is_complex:
        return [g * prim.sign(z)]
    return [prim.convert(g / prim.where(prim.equal(y, 0.0), 1.0, y), dtype=z.dtype.name) * prim.conj(z)]


# fabs clears the sign bit, as numpy does; `c` holds for float operands only (c_dtypes' default), so
# a complex operand is a numpy call between native kernels.
register_op("abs", shape=_abs_shape, kernel=np.absolute, num_inputs=1, traits=(ELEMENTWISE,),
            gradient=traced_gradient(_abs_grad), doc="absolute value |x| (the modulus of a complex x)",
            numpy="absolute", c="fabs{f}({0})", jax="jnp.abs", jax_imports=["abs"], frontend=["abs", "absolute"],
            operators=["__abs__"], ufuncs=["absolute"])


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
      frontend=["stop_gradient"], taylor="zero")


# -- predicates, comparisons and logic: bool results, zero derivatives ------------------------------
def zero_derivative(ctx, x, y, gy):
    return None


def zero_derivatives(a, b, y, gy):
    return None, None


unary("sign", np.sign, zero_derivative, operands="numeric", doc="-1, 0 or 1 by the sign of x (nan for nan)",
      numpy="sign", jax="jnp.sign", jax_imports=["sign"], frontend=["sign"], ufuncs=["sign"])
for _name, _doc, _imports in [("isnan", "x is nan", []), ("isinf", "x is +inf or -inf", []),
                              ("isfinite", "x is neither inf nor nan", ["is_finite"])]:
    unary(_name, getattr(np, _name), zero_derivative, operands="any", out_dtype="bool", doc=_doc,
          numpy=_name, jax=f"jnp.{_name}", jax_imports=_imports, frontend=[_name], ufuncs=[_name])
unary("logical_not", np.logical_not, zero_derivative, operands="any", out_dtype="bool", doc="not x (x != 0)",
      numpy="logical_not", jax="jnp.logical_not", frontend=["logical_not"], ufuncs=["logical_not"])

# Comparisons back the Tracer's ==, !=, <, ... (reflected forms come from Python swapping the operands).
for _name, _symbol, _lax, _dunder, _traits in [
        ("equal", "==", "eq", "__eq__", (COMMUTATIVE,)), ("not_equal", "!=", "ne", "__ne__", (COMMUTATIVE,)),
        ("less", "<", "lt", "__lt__", ()), ("less_equal", "<=", "le", "__le__", ()),
        ("greater", ">", "gt", "__gt__", ()), ("greater_equal", ">=", "ge", "__ge__", ())]:
    binary(_name, getattr(np, _name), zero_derivatives, out_dtype="bool", traits=_traits, doc=f"a {_symbol} b",
           numpy=_name, jax=f"jnp.{_name}", jax_imports=[_lax], frontend=[_name], operators=[_dunder], ufuncs=[_name])
for _word in ("and", "or", "xor"):
    _name = f"logical_{_word}"
    binary(_name, getattr(np, _name), zero_derivatives, out_dtype="bool", traits=(COMMUTATIVE,),
           doc=f"a {_word} b (truth values: nonzero is true)", numpy=_name, jax=f"jnp.{_name}",
           frontend=[_name], ufuncs=[_name])


# Bitwise ops, numpy's: on integers bit by bit (two's complement), on bools the logical ops; so `&`, `|`,
# `^`, `~`, `<<`, `>>` and numpy's bitwise ufuncs are these for every dtype numpy allows them on.
for _word in ("and", "or", "xor"):
    _name = f"bitwise_{_word}"
    binary(_name, getattr(np, _name), zero_derivatives, operands="integral", traits=(COMMUTATIVE,),
           doc=f"a {_word} b bit by bit (logical {_word} on bools)", numpy=_name, jax=f"jnp.{_name}",
           jax_imports=[_word], frontend=[_name], operators=[f"__{_word}__", f"__r{_word}__"], ufuncs=[_name])
unary("bitwise_not", np.invert, zero_derivative, operands="integral", doc="~x: every bit flipped (not x on bools)",
      numpy="invert", jax="jnp.invert", jax_imports=["not"], frontend=["invert", "bitwise_not", "bitwise_invert"],
      operators=["__invert__"], ufuncs=["invert"])
# numpy's shifts: a count >= the width (or negative) gives 0, or -1 for a negative value shifted right, as
# lax's shift_left and shift_right_arithmetic do.
for _name, _lax, _dunder, _symbol in (("left_shift", "shift_left", "lshift", "<<"),
                                      ("right_shift", "shift_right_arithmetic", "rshift", ">>")):
    binary(_name, getattr(np, _name), zero_derivatives, operands="integer", doc=f"a {_symbol} b (arithmetic shift)",
           numpy=_name, jax=f"jnp.{_name}", jax_imports=[_lax], frontend=[_name, f"bitwise_{_name}"],
           operators=[f"__{_dunder}__", f"__r{_dunder}__"], ufuncs=[_name])


def _population_count(x):
    """1 bits of each element in two's complement, in x's dtype (lax's; numpy's bitwise_count counts |x|)."""
    x = np.asarray(x)
    return np.bitwise_count(x.view(f"u{x.dtype.itemsize}")).astype(x.dtype)


unary("population_count", _population_count, zero_derivative, operands="integer",
      doc="the number of 1 bits of x in two's complement (lax.population_count)",
      numpy=lambda e, x: f"{e.fn(_population_count)}({x})", jax="lax.population_count",
      jax_imports=["population_count"], frontend=["population_count"])


# maximum/minimum: numpy's values (nan propagates); the derivative is JAX's, split evenly at ties.
def _extremum_rule(wins):
    def rule(a, b, y, gy):
        half = prim.where(prim.equal(a, b), 0.5 * gy, 0.0)
        return prim.where(wins(a, b), gy, half), prim.where(wins(b, a), gy, half)
    return rule


binary("maximum", np.maximum, _extremum_rule(prim.greater), doc="elementwise max (nan wins)",
       numpy="maximum", jax="jnp.maximum", jax_imports=["max"], frontend=["maximum"], ufuncs=["maximum"])
binary("minimum", np.minimum, _extremum_rule(prim.less), doc="elementwise min (nan wins)",
       numpy="minimum", jax="jnp.minimum", jax_imports=["min"], frontend=["minimum"], ufuncs=["minimum"])
# Forward only in x1 (a step); d/dx2 is 1 where x1 == 0, where x2 is the value.
binary("heaviside", np.heaviside, lambda a, b, y, gy: (None, prim.where(prim.equal(a, 0.0), gy, 0.0)),
       operands="float", doc="0 where x1 < 0, x2 where x1 == 0, 1 where x1 > 0", numpy="heaviside",
       jax="jnp.heaviside", frontend=["heaviside"], ufuncs=["heaviside"])


# -- where and convert --------------------------------------------------------------------------------
def _where_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 3)
    cond, a, b = ctx.input_types
    if cond.dtype != "bool":
        raise ShapeError(f"op 'where': the condition must be bool, got {cond}")
    dtype = same_dtype(ctx.op, [a, b])
    return [TensorType(broadcast_dims(ctx.op, cond.shape, a.shape, b.shape), dtype, a.device)]


def _where_grad(ctx, xs, ys, gys):
    cond, a, b = xs
    gy = gys[0]
    if not ys[0].type.is_inexact:
        return [None, None, None]
    return [None, sum_to_shape(prim.where(cond, gy, 0.0), a.shape), sum_to_shape(prim.where(cond, 0.0, gy), b.shape)]


register_op("where", shape=_where_shape, kernel=np.where, num_inputs=3, gradient=traced_gradient(_where_grad),
            traits=(ELEMENTWISE,), promote=(1, 2), doc="a where cond, else b (cond bool; the three broadcast)",
            # Taylor mode: linear in the two values for a fixed condition (a differentiated condition is refused).
            jax="jnp.where", taylor="linear")


def _convert_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 1)
    (x,) = ctx.input_types
    return [TensorType(x.shape, ctx.attrs["dtype"], x.device)]


def _convert_grad(ctx, xs, ys, gys):
    # Real and complex values pass the cotangent back in the input's dtype; integers and bools have none.
    # A real-to-complex cast sends back the cotangent's real part (JAX's transpose), taken explicitly:
    # numpy's complex-to-real astype would take it too, but with a ComplexWarning on every call.
    x, y = xs[0].type, ys[0].type
    if not (x.is_inexact and y.is_inexact):
        return [None]
    g = prim.real(gys[0]) if y.is_complex and not x.is_complex else gys[0]
    return [g if g.dtype == x.dtype else prim.convert(g, dtype=x.dtype)]


register_op("convert", shape=_convert_shape, kernel=lambda x, dtype: np.asarray(x).astype(dtype), num_inputs=1,
            attrs={"dtype": ((str,), True)}, gradient=traced_gradient(_convert_grad), traits=(ELEMENTWISE,),
            doc="x cast to `dtype` (numpy's astype: unsafe casting, floats to ints truncate)",
            jax=lambda J, x, dtype: J.lax.convert_element_type(x, J.jnp.dtype(dtype)), taylor="linear")
