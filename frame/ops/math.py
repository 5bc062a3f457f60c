"""Elementwise math beyond arithmetic: trigonometric, hyperbolic, exponential and logarithmic
functions, rounding, division with remainder, special functions (issue 14 item 3).

Each op is one `unary(...)`/`binary(...)` block (frame/ops/elementwise.py). Gradient rules are
JAX's (the oracle), written with ops that have rules themselves, so they differentiate again.
Ops that claim a numpy ufunc take its dtype rule (`np.tan` of ints computes in float64, `np.floor`
of ints stays int). C expressions only where C computes numpy's bits for every input: rounding,
fmod, 1/x and |x| are exact in IEEE arithmetic; the transcendental functions are not correctly
rounded in every libm, so they stay numpy calls between native kernels.
"""
from __future__ import annotations

import math

import numpy as np

from ..ir.registry import ELEMENTWISE, NodeContext, arity, register_op, require_float, same_dtype
from ..ir.types import TensorType, broadcast_dims
from ..tracing import prim, traced_gradient
from .elementwise import binary, sum_to_shape, unary, zero_derivative, zero_derivatives

LN2, LN10 = math.log(2.0), math.log(10.0)


# -- trigonometric and hyperbolic ------------------------------------------------------------------
def _float_unary(name, rule, doc, lax=None, aliases=(), c=None):
    """A float op that is numpy's ufunc `name`: numpy kernel and emission, jnp lowering, `lax` import."""
    unary(name, getattr(np, name), rule, doc=doc, numpy=name, c=c, jax=f"jnp.{name}",
          jax_imports=[lax] if lax else [], frontend=[name, *aliases], ufuncs=[name])


_float_unary("tan", lambda ctx, x, y, gy: gy * (1.0 + prim.square(y)), "tangent", "tan")
_float_unary("arcsin", lambda ctx, x, y, gy: gy / prim.sqrt(1.0 - prim.square(x)), "inverse sine", "asin", ["asin"])
_float_unary("arccos", lambda ctx, x, y, gy: -gy / prim.sqrt(1.0 - prim.square(x)), "inverse cosine", "acos",
             ["acos"])
_float_unary("arctan", lambda ctx, x, y, gy: gy / (1.0 + prim.square(x)), "inverse tangent", "atan", ["atan"])
_float_unary("sinh", lambda ctx, x, y, gy: gy * prim.cosh(x), "hyperbolic sine", "sinh")
_float_unary("cosh", lambda ctx, x, y, gy: gy * prim.sinh(x), "hyperbolic cosine", "cosh")
_float_unary("arcsinh", lambda ctx, x, y, gy: gy / prim.sqrt(prim.square(x) + 1.0), "inverse hyperbolic sine",
             "asinh", ["asinh"])
# (x - 1)(x + 1) and (1 - x)(1 + x), not x^2 -+ 1: accurate near the branch points, as JAX writes them.
_float_unary("arccosh", lambda ctx, x, y, gy: gy / prim.sqrt((x - 1.0) * (x + 1.0)), "inverse hyperbolic cosine",
             "acosh", ["acosh"])
_float_unary("arctanh", lambda ctx, x, y, gy: gy / ((1.0 - x) * (1.0 + x)), "inverse hyperbolic tangent", "atanh",
             ["atanh"])

# -- exponentials and logarithms -------------------------------------------------------------------
_float_unary("log1p", lambda ctx, x, y, gy: gy / (1.0 + x), "log(1 + x), accurate for small x", "log1p")
_float_unary("expm1", lambda ctx, x, y, gy: gy * (y + 1.0), "exp(x) - 1, accurate for small x", "expm1")
_float_unary("exp2", lambda ctx, x, y, gy: gy * (y * LN2), "2 ** x", "exp2")
_float_unary("log2", lambda ctx, x, y, gy: gy / (x * LN2), "base-2 logarithm")
# JAX's rule, gy / (3 y^2): infinite at 0, as the cube root's slope is
_float_unary("cbrt", lambda ctx, x, y, gy: gy * ((1.0 / 3.0) * prim.pow(y, exponent=-2.0)), "the real cube root",
             "cbrt")
_float_unary("log10", lambda ctx, x, y, gy: gy / (x * LN10), "base-10 logarithm")
# IEEE division is correctly rounded, in C as in numpy.
_float_unary("reciprocal", lambda ctx, x, y, gy: -(gy * prim.square(y)), "1 / x", c="(({t})1 / {0})")
# fabs is float |x| (ints compute in float64, as numpy's fabs); clearing the sign bit is exact.
_float_unary("fabs", lambda ctx, x, y, gy: gy * prim.sign(x), "absolute value |x| of a float", c="fabs{f}({0})")


# -- special functions: scipy's kernels, loaded on first use (frame imports without scipy loaded) ------
def _special(name):
    def kernel(*xs, out=None):
        from scipy import special
        return getattr(special, name)(*xs, out=out)
    kernel.__name__ = kernel.__qualname__ = f"{name}_kernel"
    return kernel


def _special_unary(name, rule, doc):
    kernel = _special(name)
    unary(name, kernel, rule, doc=doc, numpy=lambda e, x: f"{e.fn(kernel)}({x}{e.out})", numpy_out=True,
          jax=f"lax.{name}", jax_imports=[name], frontend=[name])


TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_special_unary("erf", lambda ctx, x, y, gy: gy * (TWO_OVER_SQRT_PI * prim.exp(-prim.square(x))), "error function")
_special_unary("erfc", lambda ctx, x, y, gy: -(gy * (TWO_OVER_SQRT_PI * prim.exp(-prim.square(x)))),
               "complementary error function 1 - erf(x)")


# Log-gamma and its derivatives: gammaln' = digamma = polygamma(0, .) and polygamma(n, .)' = polygamma(n + 1, .),
# so every order differentiates again (JAX: lax.lgamma, lax.digamma, lax.polygamma). Not numpy functions:
# frame.scipy.special names them, as jax.scipy.special does.
def _special_op(name, scipy_name, rule, doc, jax, jax_imports=(), attrs=None):
    kernel = _special(scipy_name) if attrs is None else None
    if attrs is None:
        unary(name, kernel, rule, doc=doc, numpy=lambda e, x: f"{e.fn(kernel)}({x}{e.out})", numpy_out=True,
              jax=jax, jax_imports=list(jax_imports))
    else:
        unary(name, _polygamma_kernel, rule, attrs=attrs, doc=doc, jax=jax, jax_imports=list(jax_imports))


# scipy's Hurwitz zeta (polygamma's n >= 1) steps a negative q up one unit at a time, so its time grows with |x|:
# 1.4 s at x = -1e8 - 0.5, days near -1e15. Far left, the reflection formula psi^(n)(x) = (-1)^n psi^(n)(1 - x)
# - pi^(n+1) cot^(n)(pi x) gives it at once, with cot^(n) a polynomial in cot and cot taken at the exact
# fractional part of x (scipy's own loop is kept nearer zero, where it is fast and the more accurate).
_REFLECT_BELOW = -1e4


def _cot_derivative(n):
    """Coefficients of d^n/dz^n cot z as a polynomial in c = cot z (cot' = -(1 + c^2))."""
    from numpy.polynomial import polynomial as P
    p = np.array([0.0, 1.0])
    for _ in range(n):
        p = -P.polymul(P.polyder(p), [1.0, 0.0, 1.0])
    return p


def _polygamma_kernel(x, n):
    from scipy import special
    far = (x < _REFLECT_BELOW) & (x != np.round(x)) if n > 0 else False
    out = np.asarray(special.polygamma(n, np.where(far, 1.0, x)), dtype=np.float64)
    if np.any(far):
        xf = np.asarray(x, dtype=np.float64)[far]
        cot = 1.0 / np.tan(np.pi * (xf - np.round(xf)))
        out[far] = ((-1) ** n * special.polygamma(n, 1.0 - xf)
                    - np.pi ** (n + 1) * np.polynomial.polynomial.polyval(cot, _cot_derivative(n)))
    return np.asarray(out, dtype=x.dtype)


_special_op("gammaln", "gammaln", lambda ctx, x, y, gy: gy * prim.digamma(x), "log |Gamma(x)|", "lax.lgamma",
            ["lgamma"])
_special_op("digamma", "digamma", lambda ctx, x, y, gy: gy * prim.polygamma(x, n=1),
            "the digamma function Gamma'(x) / Gamma(x)", "lax.digamma", ["digamma"])
_special_op("polygamma", None, lambda ctx, x, y, gy: gy * prim.polygamma(x, n=ctx.attrs["n"] + 1),
            "the n-th derivative of digamma (attribute n >= 0)",
            lambda J, x, n: J.lax.polygamma(J.jnp.full_like(x, n), x), attrs={"n": ((int,), True)})
_special_op("erfinv", "erfinv", lambda ctx, x, y, gy: gy * (math.sqrt(math.pi) / 2.0 * prim.exp(prim.square(y))),
            "the inverse error function on (-1, 1)", "lax.erf_inv", ["erf_inv"])


# Exponentially scaled Bessel functions e^-|x| I0(x), e^-|x| I1(x) with JAX's rules: i0e' = i1e - sign(x) i0e,
# i1e' = i0e - i1e (sign(x) + 1/x), whose limit 1/2 is taken for |x| <= eps (the formula at a safe x there,
# so its own derivative stays finite).
def _i1e_grad(ctx, x, y, gy):
    eps = float(np.finfo(x.dtype).eps)
    away = prim.greater(prim.abs(x), eps)
    safe = prim.where(away, x, eps)
    return gy * prim.where(away, prim.i0e(safe) - y * (prim.sign(safe) + 1.0 / safe), 0.5)


_special_op("i0e", "i0e", lambda ctx, x, y, gy: gy * (prim.i1e(x) - prim.sign(x) * y),
            "the exponentially scaled modified Bessel function e^-|x| I0(x)", "lax.bessel_i0e", ["bessel_i0e"])
_special_op("i1e", "i1e", _i1e_grad, "the exponentially scaled modified Bessel function e^-|x| I1(x)",
            "lax.bessel_i1e", ["bessel_i1e"])
# The normal distribution's inverse CDF, log CDF and erfcx, by their outputs y: ndtri' = sqrt(2 pi) e^(y^2 / 2);
# log_ndtr' = e^(-x^2 / 2 - y) / sqrt(2 pi), in one exponent so it neither overflows nor underflows in the
# lower tail (JAX's rule); erfcx' = 2 x y - 2 / sqrt(pi). JAX composes them (no primitive to import).
SQRT_2PI = math.sqrt(2.0 * math.pi)
_special_op("ndtri", "ndtri", lambda ctx, x, y, gy: gy * (SQRT_2PI * prim.exp(0.5 * prim.square(y))),
            "the inverse of the standard normal CDF on (0, 1)", "jax.scipy.special.ndtri")
_special_op("log_ndtr", "log_ndtr",
            lambda ctx, x, y, gy: gy * prim.exp(-0.5 * prim.square(x) - y - math.log(SQRT_2PI)),
            "the log of the standard normal CDF, accurate in both tails", "jax.scipy.special.log_ndtr")
_special_op("erfcx", "erfcx", lambda ctx, x, y, gy: gy * (2.0 * x * y - TWO_OVER_SQRT_PI),
            "the scaled complementary error function e^(x^2) erfc(x)", "jax.scipy.special.erfcx")
# Exponential integrals, Dawson's integral and Spence's dilogarithm (scipy's kernels; JAX composes them):
# exp1' = -e^-x / x, expi' = e^x / x, dawsn' = 1 - 2 x dawsn(x), spence(z)' = log(z) / (1 - z), which near z = 1
# cancels: there (|z - 1| < 1e-3) its series -(1 - u/2 + u^2/3 - ...) in u = z - 1, exact to rounding and right
# in every derivative at z = 1 (the quotient at a safe z there, so its own derivatives stay finite).
# JAX's exp1 cannot be differentiated twice (its jvp rule trips over its own tracer, jax 0.10.2): E1(x) = -Ei(-x)
# for x > 0, and JAX's expi can; so exp1 lowers to that. JAX's spence derivative is wrong from z = 1 on (0 at 1,
# nan at 2): spence lowers to JAX's values with frame's derivative rule (checked by central differences).
_special_op("exp1", "exp1", lambda ctx, x, y, gy: -(gy * (prim.exp(-x) / x)),
            "the exponential integral E1(x) = int_x^inf e^-t / t dt (x > 0)",
            lambda J, x: -J.jax.scipy.special.expi(-x))
_special_op("expi", "expi", lambda ctx, x, y, gy: gy * (prim.exp(x) / x),
            "the exponential integral Ei(x) = -int_-x^inf e^-t / t dt", "jax.scipy.special.expi")
_special_op("dawsn", "dawsn", lambda ctx, x, y, gy: gy * (1.0 - 2.0 * x * y),
            "Dawson's integral e^(-x^2) int_0^x e^(t^2) dt", "jax.scipy.special.dawsn")


def _spence_slope(z, xp):
    """spence'(z) = log(z) / (1 - z) in `xp` (frame's prim or jax.numpy: both have less, abs, where, log)."""
    u = z - 1.0
    near = xp.less(xp.abs(u), 1e-3)
    series = -(1.0 + u * (-1.0 / 2 + u * (1.0 / 3 + u * (-1.0 / 4 + u * (1.0 / 5 + u * (-1.0 / 6 + u / 7))))))
    safe = xp.where(near, 2.0, z)
    return xp.where(near, series, xp.log(safe) / (1.0 - safe))


def _spence_grad(ctx, z, y, gy):
    return gy * _spence_slope(z, prim)


def _spence_jax(J, z):
    @J.jax.custom_jvp
    def spence(z):
        return J.jax.scipy.special.spence(z)

    @spence.defjvp
    def spence_jvp(primals, tangents):
        (z,), (t,) = primals, tangents
        return spence(z), t * _spence_slope(z, J.jnp)

    return spence(z)


_special_op("spence", "spence", _spence_grad, "Spence's function int_1^z log(t) / (1 - t) dt (z >= 0)",
            _spence_jax)


def _sinc_grad(ctx, x, y, gy):
    # sinc'(x) = (cos(pi x) - sinc(x)) / x, which cancels catastrophically near 0; there (|x| < 0.01) its
    # Maclaurin series -pi^2 x / 3 + pi^4 x^3 / 30 - pi^6 x^5 / 840, accurate to 1e-13 and exact at 0 with
    # its own derivatives to the fifth (JAX's sinc rule is exact at 0 too).
    near = prim.less(prim.abs(x), 0.01)
    x2 = prim.square(x)
    series = x * (-math.pi ** 2 / 3.0 + x2 * (math.pi ** 4 / 30.0 - x2 * (math.pi ** 6 / 840.0)))
    return gy * prim.where(near, series, (prim.cos(math.pi * x) - y) / prim.where(near, 1.0, x))


unary("sinc", np.sinc, _sinc_grad, doc="normalised sinc sin(pi x) / (pi x), 1 at 0", jax="jnp.sinc",
      frontend=["sinc"])

# -- rounding: exact in C; numpy keeps ints and bools as they are (rint computes them in float) --------
for _name, _doc, _lax, _aliases in [("floor", "largest integer <= x", "floor", ()),
                                    ("ceil", "smallest integer >= x", "ceil", ()),
                                    ("trunc", "x rounded toward zero", None, ("fix",))]:
    unary(_name, getattr(np, _name), zero_derivative, operands="real", doc=_doc, numpy=_name, c=f"{_name}{{f}}({{0}})",
          jax=f"jnp.{_name}", jax_imports=[_lax] if _lax else [], frontend=[_name, *_aliases], ufuncs=[_name])
# rint rounds half to even, in C (default rounding mode) as in numpy; fnp.round builds on it.
unary("rint", np.rint, zero_derivative, doc="x rounded to the nearest integer, half to even", numpy="rint",
      c="rint{f}({0})", jax="jnp.rint", frontend=["rint"], ufuncs=["rint"])


# -- binary ------------------------------------------------------------------------------------------
def _atan2_grad(a, b, y, gy):
    r = prim.square(a) + prim.square(b)
    return gy * (b / r), -(gy * (a / r))


binary("arctan2", np.arctan2, _atan2_grad, operands="float", doc="angle of the point (x2, x1): arctan(x1 / x2) "
       "in the right quadrant", numpy="arctan2", jax="jnp.arctan2", jax_imports=["atan2"],
       frontend=["arctan2", "atan2"], ufuncs=["arctan2"])
binary("hypot", np.hypot, lambda a, b, y, gy: (gy * (a / y), gy * (b / y)), operands="float",
       doc="sqrt(x1^2 + x2^2) without overflow", numpy="hypot", jax="jnp.hypot", frontend=["hypot"],
       ufuncs=["hypot"])
# exp(a - y) <= 1 with y = logaddexp(a, b): the stable form of e^a / (e^a + e^b).
binary("logaddexp", np.logaddexp, lambda a, b, y, gy: (gy * prim.exp(a - y), gy * prim.exp(b - y)),
       operands="float", doc="log(exp(x1) + exp(x2)), computed stably", numpy="logaddexp", jax="jnp.logaddexp",
       frontend=["logaddexp"], ufuncs=["logaddexp"])
binary("logaddexp2", np.logaddexp2, lambda a, b, y, gy: (gy * prim.exp2(a - y), gy * prim.exp2(b - y)),
       operands="float", doc="log2(2**x1 + 2**x2), computed stably", numpy="logaddexp2", jax="jnp.logaddexp2",
       frontend=["logaddexp2"], ufuncs=["logaddexp2"])


# Division with remainder. Integers as numpy: a zero divisor gives 0 (numpy warns); floats: nan/inf.
def _remainder_grad(quotient):
    """d/da = 1, d/db = -quotient(a, b): JAX's rules of rem (quotient trunc(a / b)) and remainder (floor)."""
    def rule(a, b, y, gy):
        if not y.type.is_float:
            return None, None
        return gy, -(gy * quotient(a, b))
    return rule


binary("floor_divide", np.floor_divide, zero_derivatives, operands="real", doc="floor(x1 / x2), as numpy's //",
       numpy="floor_divide", jax="jnp.floor_divide", frontend=["floor_divide"],
       operators=["__floordiv__", "__rfloordiv__"], ufuncs=["floor_divide"])
# Both jump where the quotient does: their derivative rule (1 in x1) holds between jumps only, so Taylor mode refuses them.
binary("mod", np.remainder, _remainder_grad(lambda a, b: prim.floor_divide(a, b)), operands="real",
       doc="remainder of floor division, with the sign of the divisor (numpy's mod / remainder)", numpy="remainder",
       jax="jnp.remainder", frontend=["mod", "remainder"], operators=["__mod__", "__rmod__"], ufuncs=["remainder"],
       taylor="not analytic")
# C's fmod is exact (the remainder of truncated division is representable); lax.rem imports as it
# (jax_rules_math: integer rem is refused, XLA gives the dividend for a zero divisor where numpy gives 0).
binary("fmod", np.fmod, _remainder_grad(lambda a, b: prim.trunc(a / b)), operands="real",
       doc="remainder of truncated division, with the sign of the dividend (C's fmod)", numpy="fmod",
       c="fmod{f}({0}, {1})", jax="jnp.fmod", frontend=["fmod"], ufuncs=["fmod"],
       taylor="not analytic")


def _power_grad(a, b, y, gy):
    # JAX's rules of lax.pow with a float exponent: d/da = b a^(b-1) (nan at a == b == 0, as in JAX);
    # d/db = log(a) a^b, with log(1) where a == 0 (0 there: 0^b is flat for b > 0).
    db = prim.log(prim.where(prim.equal(a, 0.0), 1.0, a)) * y
    return gy * (b * prim.power(a, b - 1.0)), gy * db


# fnp.power, `**` and np.power dispatch here for an array or traced exponent (a Python number: `pow`).
binary("power", np.power, _power_grad, operands="float", promote=(0, 1),
       doc="x1 ** x2 with an array exponent, broadcasting", numpy="power", jax="jnp.power",
       frontend=["power", "pow"])


# -- special functions differentiable in some operands only ------------------------------------------------
# The regularised incomplete gamma and beta functions and Hurwitz's zeta have no closed-form derivative in their
# shape parameters (JAX has igamma_grad_a, a series of its own, and refuses betainc's): `no_derivative` names
# those operands, whose rules give None, and every derivative transform refuses them by name (frame/ir/registry.py).
def _jax_in_double(name):
    """The JAX lowering: jax.scipy.special's `name` (it broadcasts, as lax's do not; zeta's carries JAX's
    derivative), in float64 where JAX has it (x64 mode) and rounded to the operands' dtype, as scipy's float32
    gammainc, gammaincc and zeta loops compute in double and round (XLA's float32 kernels are less accurate;
    scipy's float32 betainc, Boost's in float, and XLA's are both off by up to ~1e-5)."""
    def lower(J, *xs):
        wide = J.jax.dtypes.canonicalize_dtype(np.float64)
        return getattr(J.jax.scipy.special, name)(*(x.astype(wide) for x in xs)).astype(xs[0].dtype)
    return lower


def _scipy_binary(name, rule, doc, no_derivative, jax_import=None):
    kernel = _special(name)
    binary(name, kernel, rule, operands="float", doc=doc, no_derivative=no_derivative,
           numpy=lambda e, a, b: f"{e.fn(kernel)}({a}, {b}{e.out})", numpy_out=True,
           jax=_jax_in_double(name), jax_imports=[jax_import] if jax_import else [])


def _xlog(c, x, log=prim.log, safe=1.0):
    """c log(x) (or c log1p(x)), 0 where c == 0 whatever x: x^0 = 1 also at x = 0. log's operand is made safe
    there, so the derivatives of the branch not taken stay finite (no nan through `where`)."""
    zero = prim.equal(c, 0.0)
    return prim.where(zero, 0.0, c * log(prim.where(zero, safe, x)))


def _gamma_density(a, x):
    """d/dx gammainc(a, x) = x^(a-1) e^-x / Gamma(a), as exp((a - 1) log x - x - gammaln(a)) (JAX's rule), but
    exact at a = 1, x = 0 (1; JAX's (a - 1) log x is nan there). Other edges as JAX: 0 or inf at x = 0."""
    return prim.exp(_xlog(a - 1.0, x) - x - prim.gammaln(a))


_SHAPE_A = "a, the shape: no closed form; JAX differentiates igamma in a by a series of its own, igamma_grad_a"
_scipy_binary("gammainc", lambda a, x, y, gy: (None, gy * _gamma_density(a, x)),
              "the regularised lower incomplete gamma function P(a, x) (scipy's gammainc; derivative in x only)",
              {0: _SHAPE_A}, "igamma")
_scipy_binary("gammaincc", lambda a, x, y, gy: (None, -(gy * _gamma_density(a, x))),
              "the regularised upper incomplete gamma function Q(a, x) = 1 - P(a, x) (derivative in x only)",
              {0: _SHAPE_A}, "igammac")
# zeta(x, q) = sum_n (n + q)^-x: d/dq = -x zeta(x + 1, q). JAX wraps lax.zeta (which has no derivative) in a
# custom_jvp: from_jax imports the primitive, and the wrapper with inline_custom_derivatives=True.
_scipy_binary("zeta", lambda x, q, y, gy: (None, -(gy * (x * prim.zeta(x + 1.0, q)))),
              "the Hurwitz zeta function zeta(x, q) = sum_n (n + q)^-x (derivative in q only)",
              {0: "x, the exponent: no closed form"}, "zeta")


def _ternary_float_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 3)
    dtype = same_dtype(ctx.op, ctx.input_types)
    require_float(ctx.op, ctx.input_types[0])
    a, b, x = ctx.input_types
    return [TensorType(broadcast_dims(ctx.op, a.shape, b.shape, x.shape), dtype, a.device)]


def _betainc_grad(ctx, xs, ys, gys):
    # d/dx I_x(a, b) = x^(a-1) (1-x)^(b-1) / B(a, b), in logs (JAX's rule, log B by gammaln), exact where a or
    # b is 1 at x = 0 or 1 as _xlog makes it.
    a, b, x = xs
    log_beta = prim.gammaln(a) + prim.gammaln(b) - prim.gammaln(a + b)
    density = prim.exp(_xlog(a - 1.0, x) + _xlog(b - 1.0, -x, prim.log1p, 0.0) - log_beta)
    return [None, None, sum_to_shape(gys[0] * density, x.shape)]


_betainc_kernel = _special("betainc")
# JAX's primitive is regularized_incomplete_beta, which lax.betainc binds.
register_op("betainc", shape=_ternary_float_shape, kernel=_betainc_kernel, num_inputs=3, traits=(ELEMENTWISE,),
            gradient=traced_gradient(_betainc_grad),
            no_derivative={0: "a: no closed form; JAX refuses it too", 1: "b: no closed form; JAX refuses it too"},
            doc="the regularised incomplete beta function I_x(a, b) (scipy's betainc; derivative in x only)",
            numpy=lambda e, a, b, x: f"{e.fn(_betainc_kernel)}({a}, {b}, {x}{e.out})", numpy_out=True,
            jax=_jax_in_double("betainc"), jax_imports=["regularized_incomplete_beta"])
