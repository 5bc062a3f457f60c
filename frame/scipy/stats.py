"""`frame.scipy.stats`: probability distributions as jax.scipy.stats lays them out, one namespace per
distribution (`stats.norm.logpdf(x, loc=0, scale=1)`), with scipy.stats's values and conventions.

Every function is a composition of frame.numpy and frame.scipy.special, so it traces and differentiates (any
order) in its values and parameters. Arguments broadcast as numpy's; lists, Python numbers, ints and bools are
taken as scipy.stats takes them: every result is float64, as scipy promotes every real dtype with float64
(except `dirichlet`, which keeps float32 as scipy's does). Univariate functions follow scipy's rv_continuous /
rv_discrete rules: nan for invalid parameters (scale <= 0, a shape parameter outside its range) or a nan point;
outside the support logpdf is -inf, pdf 0, cdf 0 or 1 (sf 1 or 0); ppf(0) and ppf(1) are the ends of the
support, nan outside [0, 1]; discrete pmfs are 0 off the integers. Masked-out entries are evaluated at a point
inside the support, so their derivatives are 0, never nan.

Where scipy's own formula is a plain log or difference of its others (laplace's logpdf, expon's logcdf, ...)
the accurate form is used (log1p, log(1 - e^-t) by two branches), which agrees with scipy where scipy is
accurate and stays finite in the far tails where scipy's underflows. Gamma ratios (t, beta, binom, nbinom,
betabinom) are differences of gammaln, as jax's, with relative errors about eps |gammaln|: 1e-14 for moderate
parameters, 1e-12 for binom.pmf at n = 1000, 4e-10 for t.logpdf at df = 1e6, where scipy's Boost kernels and
asymptotic series stay at eps.
The cdfs of gamma, chi2, beta and gennorm are frame.scipy.special's gammainc / gammaincc / betainc ops, which
differentiate in x only: their derivatives in the shape parameters (a, df, b, beta) raise GradientError naming
the op (JAX has igamma_grad_a for gamma's a; frame has no counterpart). poisson.cdf is gammaincc(k + 1, mu),
differentiable in mu. Not provided: the inverse cdfs needing gammaincinv / betaincinv / ndtri_exp (gamma.ppf,
truncnorm.ppf, ...), cdfs JAX has not either (t, vonmises, binom, ...); jax's poisson.entropy.

Multivariate: `multivariate_normal` (scipy's mean=None / cov=1 defaults, cov a scalar, a diagonal vector or
(..., n, n) matrices, Cholesky and a triangular solve; allow_singular=True is refused; a matrix that is not
positive definite raises LinAlgError as cholesky does; stacks of means and matrices broadcast, as in JAX) and
`dirichlet` (components on axis 0 as scipy's; where scipy raises for a point off the simplex, the density is
-inf there, as JAX's, and nan for alpha <= 0, so traced and concrete arguments agree). Results have the batch
shape (jax's), not scipy's squeezed one. `multinomial` (logpmf, pmf: log n! + sum(x log p - log x!), with
scipy 1.17's reading of p's last entry as 1 - the sum of the others where p does not sum to 1).

Sample statistics: `mode` (scipy's ModeResult) and `rankdata` compare every pair of values along the axis
(n^2 work and memory per slice), which keeps their shapes static, so they trace; `sem` is std / sqrt(n).
`gaussian_kde` is a class as jax's and scipy's (evaluate/pdf/logpdf, integrate_gaussian, integrate_box_1d,
integrate_kde, resample with a frame.random key), its kernel covariance and densities compositions of
frame.numpy, so they differentiate in the data, weights and points. Only nan_policy='propagate'.
"""
from __future__ import annotations

import collections
import functools
import inspect
import math
import operator
import types

import numpy as _np

from ..errors import ShapeError
from ..frontend import numpy as fnp
from ..frontend.args import _dtype, _int, _ndim, _shape
from ..tracing import Tracer
from . import linalg as _linalg
from . import special as _special

__all__ = ["norm", "multivariate_normal", "uniform", "expon", "laplace", "logistic", "cauchy", "t", "gamma", "beta",
           "chi2", "dirichlet", "vonmises", "truncnorm", "gumbel_l", "gumbel_r", "pareto", "gennorm", "wrapcauchy",
           "poisson", "bernoulli", "binom", "geom", "nbinom", "betabinom", "multinomial", "mode", "ModeResult",
           "rankdata", "sem", "gaussian_kde"]

_inf, _nan = _np.inf, _np.nan
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_REAL = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
         "float64"}


# -- operands --------------------------------------------------------------------------------------------------
def _real(op, name, value):
    """`value` as an array of real numbers (lists of traced values stacked), or a ShapeError naming it."""
    try:
        value = fnp.asarray(value)
    except ShapeError as e:
        raise ShapeError(f"op '{op}': {name} must be an array of real numbers, got {type(value).__name__} ({e})") \
            from None
    if _dtype(value) not in _REAL:
        raise ShapeError(f"op '{op}': {name} must be real numbers, got {_dtype(value)}")
    return value


def _cast(value, dtype="float64"):
    """`value` as an array of `dtype`."""
    return fnp.astype(value, dtype)


def _floats(op, names, values):
    """The operands in float64 (scipy.stats promotes every real dtype with float64); their shapes must broadcast."""
    out = [_cast(_real(op, n, v)) for n, v in zip(names, values)]
    try:
        fnp.broadcast_shapes(*map(_shape, out))
    except (ShapeError, ValueError):
        shapes = ", ".join(f"{n} {_shape(v)}" for n, v in zip(names, out))
        raise ShapeError(f"op '{op}': the shapes of {shapes} do not broadcast") from None
    return out


# -- scipy's rv_continuous / rv_discrete rules, over standardised kernels -------------------------------------
class _Dist:
    """A univariate distribution as scipy.stats defines one: kernels of the standardised point z = (x - loc) /
    scale and the shape parameters (scipy's `_pdf`, `_logcdf`, ...), the parameter check (default: every
    parameter > 0, as scipy's), the support [lo, hi] (constants or functions of the parameters), a `point` in
    the support where masked-out entries are evaluated and `safe` parameter values for invalid entries."""

    def __init__(self, name, params=(), *, check=None, lo=-_inf, hi=_inf, point=0.0, safe=None, **kernels):
        self.name, self.params, self.lo, self.hi, self.point = name, params, lo, hi, point
        self.check = check or (lambda *ps: functools.reduce(operator.and_, (p > 0 for p in ps)))
        self.safe = safe or (1.0,) * len(params)
        self.kernels = kernels
        # scipy's defaults: pdf = exp(logpdf) (scipy's distributions here define it so), log(pdf), log(pmf),
        # and its log cdf / log sf by two branches about the median
        for plain, log in (("pdf", "logpdf"), ("pmf", "logpmf")):
            if log in kernels:
                kernels.setdefault(plain, lambda *a, log=log: fnp.exp(kernels[log](*a)))
            if plain in kernels:
                kernels.setdefault(log, lambda *a, plain=plain: fnp.log(kernels[plain](*a)))
        for log, near, far in (("logcdf", "cdf", "sf"), ("logsf", "sf", "cdf")):
            if near in kernels:
                kernels.setdefault(log, functools.partial(_log_tail, kernels[near], kernels.get(far)))

    def at(self, value, params):
        return value(*params) if callable(value) else value

    def valid(self, params):
        """(the parameter check, the parameters with `safe` values where it fails)."""
        ok = self.check(*params) if params else True
        return ok, [fnp.where(ok, p, s) for p, s in zip(params, self.safe)]


def _log_tail(near, far, z, *ps):
    """scipy's default log cdf (log sf): log(cdf) below the median, log1p(-sf) above it (the other way round
    for the log sf), accurate in both tails; below the median is where cdf < 1/2 (scipy asks its ppf)."""
    p = near(z, *ps)
    if far is None:
        return fnp.log(p)
    here = p < 0.5
    return fnp.where(here, fnp.log(fnp.where(here, p, 0.5)), fnp.log1p(-fnp.where(here, 0.5, far(z, *ps))))


def _standard(dist, x, params, loc, scale):
    ok, ps = dist.valid(params)
    ok = ok & (scale > 0)
    s = fnp.where(ok, scale, 1.0)
    return ok, ps, s, (x - loc) / s


def _density(dist, method, x, params, loc, scale):
    """pdf / logpdf: the kernel on the closed support, 0 / -inf outside it, nan for bad parameters or a nan x."""
    ok, ps, s, z = _standard(dist, x, params, loc, scale)
    inside = ok & (z >= dist.at(dist.lo, ps)) & (z <= dist.at(dist.hi, ps))
    value = dist.kernels[method](fnp.where(inside, z, dist.at(dist.point, ps)), *ps)
    value = value - fnp.log(s) if method == "logpdf" else value / s
    outside = -_inf if method == "logpdf" else 0.0
    return fnp.where(inside, value, fnp.where(ok & ~fnp.isnan(z), outside, _nan))


def _tail(dist, method, x, params, loc, scale):
    """cdf / logcdf / sf / logsf: the kernel on the open support; at or past an end 0 or 1 (their logs)."""
    ok, ps, s, z = _standard(dist, x, params, loc, scale)
    lo, hi = dist.at(dist.lo, ps), dist.at(dist.hi, ps)
    inside = ok & (z > lo) & (z < hi)
    value = dist.kernels[method](fnp.where(inside, z, dist.at(dist.point, ps)), *ps)
    full = (z >= hi) if method in ("cdf", "logcdf") else (z <= lo)
    one, zero = (0.0, -_inf) if method.startswith("log") else (1.0, 0.0)
    return fnp.where(inside, value, fnp.where(ok & ~fnp.isnan(z), fnp.where(full, one, zero), _nan))


def _end(dist, end, ps, s, loc):
    """An end of the support, scaled: an infinite constant as is (its product with scale would make a nan
    derivative)."""
    value = dist.at(end, ps)
    return value if isinstance(value, float) and math.isinf(value) else value * s + loc


def _quantile(dist, method, q, params, loc, scale):
    """ppf / isf: the kernel on (0, 1), the ends of the support at 0 and 1, nan elsewhere."""
    ok, ps = dist.valid(params)
    ok = ok & (scale > 0) & (loc == loc)
    s = fnp.where(ok, scale, 1.0)
    inner = ok & (q > 0) & (q < 1)
    value = dist.kernels[method](fnp.where(inner, q, 0.5), *ps) * s + loc
    low, high = (q == 0, q == 1) if method == "ppf" else (q == 1, q == 0)
    return fnp.where(inner, value, fnp.where(ok & low, _end(dist, dist.lo, ps, s, loc),
                                             fnp.where(ok & high, _end(dist, dist.hi, ps, s, loc), _nan)))


def _unit(p):
    """scipy's clip of a discrete pmf or cdf to [0, 1] (by where: the derivative passes whole at the bounds)."""
    return fnp.where(p > 1.0, 1.0, fnp.where(p < 0.0, 0.0, p))


def _mass(dist, method, k, params, loc):
    """pmf / logpmf: the kernel at the integers of the support, 0 / -inf elsewhere, nan for bad parameters."""
    ok, ps = dist.valid(params)
    k = k - loc
    inside = ok & (k >= dist.at(dist.lo, ps)) & (k <= dist.at(dist.hi, ps)) & (fnp.floor(k) == k)
    value = dist.kernels[method](fnp.where(inside, k, dist.at(dist.point, ps)), *ps)
    value, outside = (value, -_inf) if method == "logpmf" else (_unit(value), 0.0)
    return fnp.where(inside, value, fnp.where(ok & ~fnp.isnan(k), outside, _nan))


def _discrete_cdf(dist, method, k, params, loc):
    """scipy's rv_discrete.cdf: the kernel at finite k in [lo, hi), 1 from hi on, 0 below lo."""
    ok, ps = dist.valid(params)
    k = k - loc
    hi = dist.at(dist.hi, ps)
    inside = ok & (k >= dist.at(dist.lo, ps)) & (k < hi) & fnp.isfinite(k)
    value = _unit(dist.kernels["cdf"](fnp.where(inside, k, dist.at(dist.point, ps)), *ps))
    return fnp.where(inside, value, fnp.where(ok & ~fnp.isnan(k), fnp.where(k >= hi, 1.0, 0.0), _nan))


def _discrete_ppf(dist, method, q, params, loc):
    """scipy's rv_discrete.ppf: the least k with cdf(k) >= q; lo - 1 at q = 0, hi at q = 1, nan outside [0, 1]."""
    ok, ps = dist.valid(params)
    ok = ok & (loc == loc)
    inner = ok & (q > 0) & (q < 1)
    value = dist.kernels["ppf"](fnp.where(inner, q, 0.5), *ps) + loc
    return fnp.where(inner, value, fnp.where(ok & (q == 0), dist.at(dist.lo, ps) - 1.0 + loc,
                                             fnp.where(ok & (q == 1), dist.at(dist.hi, ps) + loc, _nan)))


_CONTINUOUS = {"pdf": _density, "logpdf": _density, "cdf": _tail, "logcdf": _tail, "sf": _tail, "logsf": _tail,
               "ppf": _quantile, "isf": _quantile}
_DISCRETE = {"pmf": _mass, "logpmf": _mass, "cdf": _discrete_cdf, "ppf": _discrete_ppf}


def _method(dist, method, first, scale=True, discrete=False):
    """`dist.method(first, *params, loc=0[, scale=1])` with scipy's signature and rules."""
    names = (first,) + dist.params + (("loc", "scale") if scale else ("loc",))
    P = inspect.Parameter
    signature = inspect.Signature([P(n, P.POSITIONAL_OR_KEYWORD, default={"loc": 0, "scale": 1}.get(n, P.empty))
                                   for n in names])
    impl = (_DISCRETE if discrete else _CONTINUOUS)[method]
    op = f"{dist.name}.{method}"

    def fn(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        x, *rest = _floats(op, names, list(bound.arguments.values()))
        if scale:
            return impl(dist, method, x, rest[:-2], *rest[-2:])
        return impl(dist, method, x, rest[:-1], rest[-1])

    fn.__signature__ = signature
    fn.__name__, fn.__qualname__, fn.__module__ = method, op, __name__
    what = {"pdf": "probability density", "logpdf": "log of the probability density", "cdf": "cumulative distribution",
            "logcdf": "log of the cdf", "sf": "survival function 1 - cdf", "logsf": "log of the survival function",
            "ppf": "quantile (inverse of the cdf)", "isf": "inverse of the survival function",
            "pmf": "probability mass", "logpmf": "log of the probability mass"}[method]
    fn.__doc__ = f"The {what} of `{dist.name}`, as scipy.stats.{dist.name}.{method} (float64, scipy's conventions)."
    return fn


def _namespace(name, doc, **functions):
    """A distribution's functions as one namespace object, as jax.scipy.stats's modules (`norm.pdf(x)`)."""
    space = types.ModuleType(f"{__name__}.{name}", doc)
    for key, fn in functions.items():
        setattr(space, key, fn)
    space.__all__ = list(functions)
    return space


def _univariate(dist, doc, methods, scale=True, discrete=False):
    """The namespace of `dist` with `methods`, their first argument named as scipy's: q, k or x."""
    first = {m: "q" if m in ("ppf", "isf") else ("k" if discrete else "x") for m in methods}
    return _namespace(dist.name, doc, **{m: _method(dist, m, first[m], scale, discrete) for m in methods})


# -- small compositions ----------------------------------------------------------------------------------------
def _log1mexp(t):
    """log(1 - e^-t) for t >= 0, accurate for small and large t (log(-expm1(-t)) below log 2, else log1p(-e^-t))."""
    small = t < math.log(2.0)
    below, above = fnp.where(small, t, 1.0), fnp.where(small, 1.0, t)
    return fnp.where(small, fnp.log(-fnp.expm1(-below)), fnp.log1p(-fnp.exp(-above)))


def _norm_logpdf(z):
    return -0.5 * z * z - _LOG_SQRT_2PI


def _cauchy_ppf(q):
    """Boost's Cauchy quantile -1 / tan(pi q'), q' = q - 1 above 1/2; at q = 1/2 its linearisation pi (q - 1/2),
    exactly 0 there with the right derivatives."""
    half = q == 0.5
    q_ = fnp.where(half, 0.25, fnp.where(q > 0.5, q - 1.0, q))
    return fnp.where(half, math.pi * (q - 0.5), -1.0 / fnp.tan(math.pi * q_))


def _laplace_cdf(z):
    e = 0.5 * fnp.exp(-fnp.abs(z))
    return fnp.where(z > 0, 1.0 - e, e)


def _laplace_logcdf(z):
    return fnp.where(z > 0, fnp.log1p(-0.5 * fnp.exp(-fnp.abs(z))), -fnp.abs(z) - math.log(2.0))


def _laplace_ppf(q):
    return fnp.where(q > 0.5, -fnp.log(2.0 * (1.0 - q)), fnp.log(2.0 * q))


def _t_logpdf(z, df):
    """scipy's: log poch(df/2, 1/2) - log(df pi) / 2 - (df + 1)/2 log1p(z^2 / df), the normal's at df = inf."""
    infinite = fnp.isinf(df)
    d = fnp.where(infinite, 1.0, df)
    t = (_special.gammaln(0.5 * d + 0.5) - _special.gammaln(0.5 * d) - 0.5 * (fnp.log(d) + math.log(math.pi))
         - 0.5 * (d + 1.0) * fnp.log1p(z * z / d))
    return fnp.where(infinite, _norm_logpdf(z), t)


def _cosm1(z):
    """cos(z) - 1 without cancellation near 0."""
    s = fnp.sin(0.5 * z)
    return -2.0 * s * s


def _log_diff(log_p, log_q):
    """log(e^log_p - e^log_q) for log_p > log_q."""
    return log_p + _log1mexp(log_p - log_q)


def _log_gauss_mass(a, b):
    """log(ndtr(b) - ndtr(a)) for a < b, as scipy's truncnorm: in the left tail for b <= 0 (the right one by
    symmetry for a > 0), log1p(-ndtr(a) - ndtr(-b)) across 0. Each branch sees safe arguments elsewhere."""
    left, right = b <= 0, a > 0
    central = ~(left | right)
    la, lb = fnp.where(left, a, -2.0), fnp.where(left, b, -1.0)
    ra, rb = fnp.where(right, a, 1.0), fnp.where(right, b, 2.0)
    ca, cb = fnp.where(central, a, -1.0), fnp.where(central, b, 1.0)
    in_left = _log_diff(_special.log_ndtr(lb), _special.log_ndtr(la))
    in_right = _log_diff(_special.log_ndtr(-ra), _special.log_ndtr(-rb))
    across = fnp.log1p(-_special.ndtr(ca) - _special.ndtr(-cb))
    return fnp.where(left, in_left, fnp.where(right, in_right, across))


def _truncnorm_logcdf(z, a, b, flip=False):
    """scipy's: log mass(a, z) - log mass(a, b), or log1p(-sf) near 1 (cancellation); `flip`: the logsf."""
    mass = _log_gauss_mass(a, b)
    near, far = (_log_gauss_mass(z, b), _log_gauss_mass(a, z)) if flip else (_log_gauss_mass(a, z),
                                                                             _log_gauss_mass(z, b))
    value, other = near - mass, far - mass
    big = value > -0.1
    return fnp.where(big, fnp.log1p(-fnp.exp(fnp.where(big, other, -1.0))), value)


def _truncnorm_point(a, b):
    return fnp.clip(0.0, a, b)


# -- continuous distributions ----------------------------------------------------------------------------------
norm = _univariate(
    _Dist("norm", logpdf=_norm_logpdf, pdf=lambda z: fnp.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi),
          cdf=_special.ndtr, logcdf=_special.log_ndtr, sf=lambda z: _special.ndtr(-z),
          logsf=lambda z: _special.log_ndtr(-z), ppf=_special.ndtri, isf=lambda q: -_special.ndtri(q)),
    "The normal distribution N(loc, scale^2).",
    ["pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"])

uniform = _univariate(
    _Dist("uniform", lo=0.0, hi=1.0, point=0.5, pdf=lambda z: fnp.ones_like(z), logpdf=lambda z: fnp.zeros_like(z),
          cdf=lambda z: z, sf=lambda z: 1.0 - z, logsf=lambda z: fnp.log1p(-z), ppf=lambda q: q, isf=lambda q: 1.0 - q),
    "The uniform distribution on [loc, loc + scale].",
    ["pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"])

expon = _univariate(
    _Dist("expon", lo=0.0, point=1.0, logpdf=lambda z: -z, pdf=lambda z: fnp.exp(-z), cdf=lambda z: -fnp.expm1(-z),
          logcdf=_log1mexp, sf=lambda z: fnp.exp(-z), logsf=lambda z: -z, ppf=lambda q: -fnp.log1p(-q),
          isf=lambda q: -fnp.log(q)),
    "The exponential distribution on [loc, inf) with mean loc + scale.",
    ["pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"])

laplace = _univariate(
    _Dist("laplace", logpdf=lambda z: -fnp.abs(z) - math.log(2.0), pdf=lambda z: 0.5 * fnp.exp(-fnp.abs(z)),
          cdf=_laplace_cdf, logcdf=_laplace_logcdf, sf=lambda z: _laplace_cdf(-z),
          logsf=lambda z: _laplace_logcdf(-z), ppf=_laplace_ppf, isf=lambda q: -_laplace_ppf(q)),
    "The Laplace (double exponential) distribution.",
    ["pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"])

logistic = _univariate(
    _Dist("logistic", logpdf=lambda z: -fnp.abs(z) - 2.0 * fnp.log1p(fnp.exp(-fnp.abs(z))),
          cdf=_special.expit, logcdf=_special.log_expit, sf=lambda z: _special.expit(-z),
          logsf=lambda z: _special.log_expit(-z),
          ppf=_special.logit, isf=lambda q: -_special.logit(q)),
    "The logistic distribution.",
    ["pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"])


def _cauchy_logpdf(z):
    """scipy's: -log(pi) - log1p(z^2) for |z| < 1, else -log(pi) - 2 log|z| - log1p(1/z^2) (no overflow)."""
    a = fnp.abs(z)
    small = a < 1.0
    near, big = fnp.where(small, a, 0.0), fnp.where(small, 1.0, a)
    far = 2.0 * fnp.log(big) + fnp.log1p((1.0 / big) ** 2)
    return -math.log(math.pi) - fnp.where(small, fnp.log1p(near * near), far)


cauchy = _univariate(
    _Dist("cauchy", pdf=lambda z: 1.0 / math.pi / (1.0 + z * z), logpdf=_cauchy_logpdf,
          cdf=lambda z: fnp.arctan2(1.0, -z) / math.pi, sf=lambda z: fnp.arctan2(1.0, z) / math.pi,
          ppf=_cauchy_ppf, isf=lambda q: -_cauchy_ppf(q)),
    "The Cauchy distribution.",
    ["pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"])

t = _univariate(
    _Dist("t", ("df",), logpdf=_t_logpdf),
    "Student's t distribution with `df` degrees of freedom (df = inf: the normal).",
    ["pdf", "logpdf"])

gamma = _univariate(
    _Dist("gamma", ("a",), lo=0.0, point=1.0,
          logpdf=lambda z, a: _special.xlogy(a - 1.0, z) - z - _special.gammaln(a),
          cdf=lambda z, a: _special.gammainc(a, z), sf=lambda z, a: _special.gammaincc(a, z)),
    "The gamma distribution with shape `a` (and scale `scale`).",
    ["pdf", "logpdf", "cdf", "logcdf", "sf", "logsf"])

beta = _univariate(
    _Dist("beta", ("a", "b"), lo=0.0, hi=1.0, point=0.5,
          logpdf=lambda z, a, b: (_special.xlog1py(b - 1.0, -z) + _special.xlogy(a - 1.0, z)
                                  - _special.betaln(a, b)),
          cdf=lambda z, a, b: _special.betainc(a, b, z), sf=lambda z, a, b: _special.betainc(b, a, 1.0 - z)),
    "The beta distribution on [loc, loc + scale] with shapes `a`, `b`.",
    ["pdf", "logpdf", "cdf", "logcdf", "sf", "logsf"])

chi2 = _univariate(
    _Dist("chi2", ("df",), lo=0.0, point=1.0,
          logpdf=lambda z, df: (_special.xlogy(0.5 * df - 1.0, z) - 0.5 * z - _special.gammaln(0.5 * df)
                                - math.log(2.0) * df / 2.0),
          cdf=lambda z, df: _special.gammainc(0.5 * df, 0.5 * z),
          sf=lambda z, df: _special.gammaincc(0.5 * df, 0.5 * z)),
    "The chi-squared distribution with `df` degrees of freedom.",
    ["pdf", "logpdf", "cdf", "logcdf", "sf", "logsf"])

vonmises = _univariate(
    _Dist("vonmises", ("kappa",), check=lambda kappa: kappa >= 0,
          pdf=lambda z, k: fnp.exp(k * _cosm1(z)) / (2.0 * math.pi * _special.i0e(k)),
          logpdf=lambda z, k: k * _cosm1(z) - math.log(2.0 * math.pi) - fnp.log(_special.i0e(k))),
    "The von Mises distribution with concentration `kappa` >= 0 (its density is periodic over the real line, as "
    "scipy's).",
    ["pdf", "logpdf"])

truncnorm = _univariate(
    _Dist("truncnorm", ("a", "b"), check=lambda a, b: a < b, lo=lambda a, b: a, hi=lambda a, b: b,
          point=_truncnorm_point, safe=(-1.0, 1.0),
          logpdf=lambda z, a, b: _norm_logpdf(z) - _log_gauss_mass(a, b),
          logcdf=_truncnorm_logcdf, logsf=lambda z, a, b: _truncnorm_logcdf(z, a, b, flip=True),
          cdf=lambda z, a, b: fnp.exp(_truncnorm_logcdf(z, a, b)),
          sf=lambda z, a, b: fnp.exp(_truncnorm_logcdf(z, a, b, flip=True))),
    "The normal distribution truncated to [a, b] in standard units (x in [loc + a scale, loc + b scale]).",
    ["pdf", "logpdf", "cdf", "logcdf", "sf", "logsf"])

gumbel_r = _univariate(
    _Dist("gumbel_r", logpdf=lambda z: -z - fnp.exp(-z), cdf=lambda z: fnp.exp(-fnp.exp(-z)),
          logcdf=lambda z: -fnp.exp(-z), sf=lambda z: -fnp.expm1(-fnp.exp(-z)), logsf=lambda z: _log1mexp(fnp.exp(-z)),
          ppf=lambda q: -fnp.log(-fnp.log(q)), isf=lambda q: -fnp.log(-fnp.log1p(-q))),
    "The right-skewed Gumbel (extreme value type I) distribution.",
    ["pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"])

gumbel_l = _univariate(
    _Dist("gumbel_l", logpdf=lambda z: z - fnp.exp(z), cdf=lambda z: -fnp.expm1(-fnp.exp(z)),
          logcdf=lambda z: _log1mexp(fnp.exp(z)), sf=lambda z: fnp.exp(-fnp.exp(z)), logsf=lambda z: -fnp.exp(z),
          ppf=lambda q: fnp.log(-fnp.log1p(-q)), isf=lambda q: fnp.log(-fnp.log(q))),
    "The left-skewed Gumbel distribution.",
    ["pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"])

pareto = _univariate(
    _Dist("pareto", ("b",), lo=1.0, point=2.0, pdf=lambda z, b: b * z ** (-b - 1.0),
          logpdf=lambda z, b: fnp.log(b) - (b + 1.0) * fnp.log(z), cdf=lambda z, b: 1.0 - z ** -b,
          logcdf=lambda z, b: fnp.log1p(-(z ** -b)), sf=lambda z, b: z ** -b, logsf=lambda z, b: -b * fnp.log(z),
          ppf=lambda q, b: (1.0 - q) ** (-1.0 / b), isf=lambda q, b: q ** (-1.0 / b)),
    "The Pareto distribution with shape `b` on [loc + scale, inf).",
    ["pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"])

def _gennorm_cdf(z, b):
    """scipy's: (1/2 + c) - c gammaincc(1/b, |z|^b), c = sign(z) / 2 (1/2 + c first: no cancellation)."""
    c = 0.5 * fnp.sign(z)
    return (0.5 + c) - c * _special.gammaincc(1.0 / b, fnp.abs(z) ** b)


gennorm = _univariate(
    _Dist("gennorm", ("beta",), point=1.0,
          logpdf=lambda z, b: fnp.log(0.5 * b) - _special.gammaln(1.0 / b) - fnp.abs(z) ** b,
          cdf=_gennorm_cdf, sf=lambda z, b: _gennorm_cdf(-z, b)),
    "The generalized normal distribution with shape `beta` (2: the normal with variance 1/2, 1: the Laplace).",
    ["pdf", "logpdf", "cdf", "logcdf", "sf", "logsf"])


def _wrapcauchy_cdf(z, c):
    """scipy's: arctan(cr tan(z/2)) / pi below pi, 1 - arctan(cr tan((2 pi - z)/2)) / pi above, cr = (1+c)/(1-c)."""
    cr = (1.0 + c) / (1.0 - c)
    low = z < math.pi
    below = fnp.arctan(cr * fnp.tan(0.5 * fnp.where(low, z, 1.0))) / math.pi
    above = 1.0 - fnp.arctan(cr * fnp.tan(0.5 * (2.0 * math.pi - fnp.where(low, 4.0, z)))) / math.pi
    return fnp.where(low, below, above)


wrapcauchy = _univariate(
    _Dist("wrapcauchy", ("c",), check=lambda c: (c > 0) & (c < 1), hi=2.0 * math.pi, lo=0.0, point=math.pi,
          safe=(0.5,), pdf=lambda z, c: (1.0 - c * c) / (2.0 * math.pi * (1.0 + c * c - 2.0 * c * fnp.cos(z))),
          cdf=_wrapcauchy_cdf),
    "The wrapped Cauchy distribution on [0, 2 pi] with shape 0 < c < 1.",
    ["pdf", "logpdf", "cdf"])


# -- discrete distributions ------------------------------------------------------------------------------------
def _integral(n):
    return fnp.floor(n) == n


def _binom_logpmf(k, n, p):
    k = fnp.floor(k)
    comb = _special.gammaln(n + 1.0) - (_special.gammaln(k + 1.0) + _special.gammaln(n - k + 1.0))
    return comb + _special.xlogy(k, p) + _special.xlog1py(n - k, -p)


_unit_p = lambda p: (p >= 0) & (p <= 1)  # noqa: E731

poisson = _univariate(
    _Dist("poisson", ("mu",), check=lambda mu: mu >= 0, lo=0.0,
          logpmf=lambda k, mu: _special.xlogy(k, mu) - _special.gammaln(k + 1.0) - mu,
          cdf=lambda k, mu: _special.gammaincc(fnp.floor(k) + 1.0, mu)),
    "The Poisson distribution with mean `mu` >= 0.",
    ["pmf", "logpmf", "cdf"], scale=False, discrete=True)

bernoulli = _univariate(
    _Dist("bernoulli", ("p",), check=_unit_p, lo=0.0, hi=1.0, safe=(0.5,),
          pmf=lambda k, p: fnp.where(k == 1, p, 1.0 - p),
          logpmf=lambda k, p: _special.xlogy(k, p) + _special.xlog1py(1.0 - k, -p),
          cdf=lambda k, p: 1.0 - p, ppf=lambda q, p: fnp.where(q <= 1.0 - p, 0.0, 1.0)),
    "The Bernoulli distribution: 1 with probability p, else 0.",
    ["pmf", "logpmf", "cdf", "ppf"], scale=False, discrete=True)

binom = _univariate(
    _Dist("binom", ("n", "p"), check=lambda n, p: (n >= 0) & _integral(n) & _unit_p(p), lo=0.0,
          hi=lambda n, p: n, safe=(1.0, 0.5), logpmf=_binom_logpmf),
    "The binomial distribution: successes in n trials of probability p.",
    ["pmf", "logpmf"], scale=False, discrete=True)

geom = _univariate(
    _Dist("geom", ("p",), check=lambda p: (p > 0) & (p <= 1), lo=1.0, point=1.0, safe=(0.5,),
          pmf=lambda k, p: (1.0 - p) ** (k - 1.0) * p, logpmf=lambda k, p: _special.xlog1py(k - 1.0, -p) + fnp.log(p),
          cdf=lambda k, p: -fnp.expm1(fnp.log1p(-p) * fnp.floor(k))),
    "The geometric distribution: the number of trials up to the first success, on 1, 2, ...",
    ["pmf", "logpmf", "cdf"], scale=False, discrete=True)

nbinom = _univariate(
    _Dist("nbinom", ("n", "p"), check=lambda n, p: (n > 0) & (p > 0) & (p <= 1), lo=0.0, safe=(1.0, 0.5),
          logpmf=lambda k, n, p: (_special.gammaln(n + k) - _special.gammaln(k + 1.0) - _special.gammaln(n)
                                  + n * fnp.log(p) + _special.xlog1py(k, -p))),
    "The negative binomial distribution: failures before the n-th success of probability p.",
    ["pmf", "logpmf"], scale=False, discrete=True)


def _betabinom_logpmf(k, n, a, b):
    k = fnp.floor(k)
    comb = -fnp.log(n + 1.0) - _special.betaln(n - k + 1.0, k + 1.0)
    return comb + _special.betaln(k + a, n - k + b) - _special.betaln(a, b)


betabinom = _univariate(
    _Dist("betabinom", ("n", "a", "b"), check=lambda n, a, b: (n >= 0) & _integral(n) & (a > 0) & (b > 0), lo=0.0,
          hi=lambda n, a, b: n, logpmf=_betabinom_logpmf),
    "The beta-binomial distribution: binom(n, p) with p drawn from beta(a, b).",
    ["pmf", "logpmf"], scale=False, discrete=True)


# -- multivariate ----------------------------------------------------------------------------------------------
def _mvn_logpdf(op, x, mean, cov, allow_singular):
    if allow_singular:
        raise ShapeError(f"op '{op}': allow_singular=True (a singular covariance) is not supported; pass False")
    x, cov = (_cast(_real(op, n, v)) for n, v in (("x", x), ("cov", cov)))
    mean = None if mean is None else _cast(_real(op, "mean", mean))
    if mean is not None and _ndim(mean):
        n = _shape(mean)[-1]
    else:
        n = _shape(cov)[-1] if _ndim(cov) else 1
    mean = fnp.zeros(n) if mean is None else mean
    if n == 1 and _ndim(x) <= 1:   # scipy's reading: points of a one-dimensional distribution
        x = fnp.reshape(x, _shape(x) + (1,))
    if _ndim(x) == 0 or _shape(x)[-1] != n:
        raise ShapeError(f"op '{op}': x must have the distribution's {n} components on its last axis, got shape "
                         f"{_shape(x)} (mean {_shape(mean)}, cov {_shape(cov)})")
    if _ndim(cov) == 1 and _shape(cov) != (n,) or _ndim(cov) >= 2 and _shape(cov)[-2:] != (n, n):
        raise ShapeError(f"op '{op}': cov must be a scalar, a diagonal ({n},) or ({n}, {n}) matrices for a mean of "
                         f"{n} components, got shape {_shape(cov)}")
    try:
        batch = fnp.broadcast_shapes(_shape(x)[:-1], _shape(mean)[:-1], _shape(cov)[:-2])
    except (ShapeError, ValueError):
        raise ShapeError(f"op '{op}': the batch shapes of x {_shape(x)}, mean {_shape(mean)} and cov {_shape(cov)} "
                         "do not broadcast") from None
    dev = x - mean
    if _ndim(cov) <= 1:   # cov I or diag(cov): nan where it is not positive (scipy raises)
        positive = cov > 0
        c = fnp.where(positive, cov, 1.0)
        maha = fnp.sum(dev * dev / c, axis=-1)
        logdet = n * fnp.log(c) if _ndim(cov) == 0 else fnp.sum(fnp.log(c), axis=-1)
        ok = positive if _ndim(cov) == 0 else fnp.all(positive, axis=-1)
    else:
        L = _linalg.cholesky(cov, lower=True)
        y = _linalg.solve_triangular(L, fnp.expand_dims(dev, -1), lower=True)[..., 0]
        maha = fnp.sum(y * y, axis=-1)
        logdet = 2.0 * fnp.sum(fnp.log(fnp.diagonal(L, axis1=-2, axis2=-1)), axis=-1)
        ok = True
    value = -0.5 * (n * math.log(2.0 * math.pi) + logdet + maha)
    return fnp.broadcast_to(fnp.where(ok, value, _nan), batch)


def _logpdf_mvn(x, mean=None, cov=1, allow_singular=False):
    """The log density of the multivariate normal N(mean, cov) at points `x` (components on the last axis), as
    scipy.stats.multivariate_normal.logpdf: mean None is zeros, cov a scalar (cov I), a vector (its diagonal)
    or (..., n, n) matrices; stacks of means and matrices broadcast as JAX's. The result has x's batch shape
    (scipy squeezes size-1 axes). allow_singular=True is not supported."""
    return _mvn_logpdf("multivariate_normal.logpdf", x, mean, cov, allow_singular)


def _pdf_mvn(x, mean=None, cov=1, allow_singular=False):
    """The density of the multivariate normal N(mean, cov), exp(multivariate_normal.logpdf)."""
    return fnp.exp(_mvn_logpdf("multivariate_normal.pdf", x, mean, cov, allow_singular))


def _named(space, **functions):
    """`functions` renamed as `space`'s (their help shows `space.name`), for `_namespace`."""
    for name, fn in functions.items():
        fn.__name__, fn.__qualname__, fn.__module__ = name, f"{space}.{name}", __name__
    return functions


multivariate_normal = _namespace("multivariate_normal", "The multivariate normal distribution.",
                                 **_named("multivariate_normal", logpdf=_logpdf_mvn, pdf=_pdf_mvn))


def _dirichlet_logpdf(op, x, alpha):
    x, alpha = _real(op, "x", x), _real(op, "alpha", alpha)
    # scipy computes in the operands' dtype: float32 stays float32, everything else float64
    single = {_dtype(x), _dtype(alpha)} <= {"float16", "float32"}
    dtype = "float32" if single else "float64"
    x, alpha = _cast(x, dtype), _cast(alpha, dtype)
    if _ndim(alpha) != 1:
        raise ShapeError(f"op '{op}': alpha must be one-dimensional, got shape {_shape(alpha)}")
    K = _shape(alpha)[0]
    if _ndim(x) == 0 or _shape(x)[0] not in (K, K - 1):
        raise ShapeError(f"op '{op}': x must have {K} or {K - 1} components on its first axis for alpha of shape "
                         f"{_shape(alpha)}, got shape {_shape(x)}")
    if _shape(x)[0] == K - 1:
        x = fnp.concatenate([x, 1.0 - fnp.sum(x, axis=0, keepdims=True)], axis=0)
    a = fnp.reshape(alpha, (K,) + (1,) * (_ndim(x) - 1))
    ok = fnp.all(alpha > 0)
    a = fnp.where(ok, a, 1.0)
    # scipy's simplex check (it raises off the simplex): entries in [0, 1] summing to 1 within 1e-9
    simplex = (fnp.all((x >= 0) & (x <= 1), axis=0) & (fnp.abs(fnp.sum(x, axis=0) - 1.0) <= 1e-9))
    xs = fnp.where(simplex, x, 1.0 / K)
    lnB = fnp.sum(_special.gammaln(a), axis=0) - _special.gammaln(fnp.sum(a, axis=0))
    value = fnp.sum(_special.xlogy(a - 1.0, xs), axis=0) - lnB
    return fnp.where(ok, fnp.where(simplex, value, -_inf), _nan)


def _logpdf_dirichlet(x, alpha):
    """The log density of the Dirichlet distribution with concentrations `alpha` (K,) at `x` (K or K - 1
    components on axis 0, the last then 1 - their sum), as scipy.stats.dirichlet.logpdf; -inf off the simplex
    (entries in [0, 1] summing to 1 within 1e-9) and nan for alpha <= 0, where scipy raises; float32 stays."""
    return _dirichlet_logpdf("dirichlet.logpdf", x, alpha)


def _pdf_dirichlet(x, alpha):
    """The density of the Dirichlet distribution, exp(dirichlet.logpdf)."""
    return fnp.exp(_dirichlet_logpdf("dirichlet.pdf", x, alpha))


dirichlet = _namespace("dirichlet", "The Dirichlet distribution.",
                       **_named("dirichlet", logpdf=_logpdf_dirichlet, pdf=_pdf_dirichlet))


def _pmf_multinomial_args(op, x, n, p):
    x, n, p = (_cast(_real(op, name, v)) for name, v in (("x", x), ("n", n), ("p", p)))
    if _ndim(x) == 0 or _ndim(p) == 0 or _shape(x)[-1] != _shape(p)[-1]:
        raise ShapeError(f"op '{op}': x and p must have the k categories on their last axis, got shapes "
                         f"{_shape(x)} and {_shape(p)}")
    try:
        fnp.broadcast_shapes(_shape(x)[:-1], _shape(n), _shape(p)[:-1])
    except (ShapeError, ValueError):
        raise ShapeError(f"op '{op}': the batch shapes of x {_shape(x)}, n {_shape(n)} and p {_shape(p)} (categories "
                         "last) do not broadcast") from None
    return x, n, p


def _multinomial_logpmf(op, x, n, p):
    x, n, p = _pmf_multinomial_args(op, x, n, p)
    # scipy 1.17's reading of p: where it does not sum to 1 within 10 eps its last entry is taken as 1 - the
    # sum of the others (scipy warns); n is truncated to an integer; nan for p outside [0, 1] or n < 0
    rest = p[..., :-1]
    off = fnp.abs(1.0 - fnp.sum(p, axis=-1, keepdims=True)) > 10 * _np.finfo(_np.float64).eps
    p = fnp.concatenate([rest, fnp.where(off, 1.0 - fnp.sum(rest, axis=-1, keepdims=True), p[..., -1:])], axis=-1)
    n = fnp.trunc(n)
    ok = ~(fnp.any((p < 0) | (p > 1), axis=-1) | (n < 0))
    p, n = fnp.where(fnp.expand_dims(ok, -1), p, 0.5), fnp.where(ok, n, 0.0)
    # the mass is 0 (log -inf) off the lattice: a count negative or not an integer, or counts not summing to n
    counts = fnp.all((x >= 0) & (fnp.floor(x) == x), axis=-1) & (fnp.sum(x, axis=-1) == n)
    xs = fnp.where(fnp.expand_dims(counts, -1), x, 0.0)
    value = _special.gammaln(n + 1.0) + fnp.sum(_special.xlogy(xs, p) - _special.gammaln(xs + 1.0), axis=-1)
    return fnp.where(ok, fnp.where(counts, value, -_inf), _nan)


def _logpmf_multinomial(x, n, p):
    """The log mass of the multinomial distribution of n trials over categories of probabilities p at the
    counts x (categories on the last axis; x, n and p broadcast), as scipy.stats.multinomial.logpmf:
    log n! + sum(x log p - log x!); -inf off the lattice (x negative or fractional, or sum(x) != n), nan for
    n < 0 or p outside [0, 1]. As scipy 1.17, n is truncated to an integer, and where p does not sum to 1
    (within 10 eps) its last entry is taken as 1 - the sum of the others (scipy 1.18 will give nan)."""
    return _multinomial_logpmf("multinomial.logpmf", x, n, p)


def _pmf_multinomial(x, n, p):
    """The mass of the multinomial distribution, exp(multinomial.logpmf)."""
    return fnp.exp(_multinomial_logpmf("multinomial.pmf", x, n, p))


multinomial = _namespace("multinomial", "The multinomial distribution.",
                         **_named("multinomial", logpmf=_logpmf_multinomial, pmf=_pmf_multinomial))


# -- sample statistics -----------------------------------------------------------------------------------------
ModeResult = collections.namedtuple("ModeResult", ["mode", "count"])


def _propagate(op, nan_policy):
    if nan_policy != "propagate":
        raise ShapeError(f"op '{op}': only nan_policy='propagate' is supported, got {nan_policy!r}")


def _on_last(op, a, axis):
    """(a with `axis` moved last (flattened for None), the axis as a non-negative int or None)."""
    if axis is None:
        return fnp.reshape(a, (-1,)), None
    axis = _int(axis, op, "axis")
    if not -_ndim(a) <= axis < max(_ndim(a), 1) or _ndim(a) == 0 and axis not in (0, -1):
        raise ShapeError(f"op '{op}': axis {axis} is out of range for shape {_shape(a)}")
    if _ndim(a) == 0:
        return fnp.reshape(a, (1,)), 0
    axis %= _ndim(a)
    return fnp.moveaxis(a, axis, -1), axis


def _equal(x):
    """(..., n, n): entry (i, j) is x_i == x_j, nan equal to nan (scipy's mode and ranks count nans alike)."""
    xi, xj = fnp.expand_dims(x, -1), fnp.expand_dims(x, -2)
    same = xi == xj
    if _np.dtype(_dtype(x)).kind == "f":
        same = same | (fnp.isnan(xi) & fnp.isnan(xj))
    return same


def mode(a, axis=0, nan_policy="propagate", keepdims=False):
    """The most frequent value along `axis` (the smallest of equally frequent ones; axis None: of the
    flattened array) and its count, as scipy.stats.mode's ModeResult(mode, count); nans count as one value.
    Counting compares each value with every other (n^2 comparisons per slice), so the shapes are static
    and it traces; the mode differentiates as the entry it picks. An empty axis is refused (scipy: nan)."""
    _propagate("mode", nan_policy)
    a = _real("mode", "a", a)
    shape = _shape(a)
    x, ax = _on_last("mode", a, axis)
    if _shape(x)[-1] == 0:
        raise ShapeError(f"op 'mode': the axis must not be empty, got shape {shape} and axis {axis}")
    s = fnp.sort(x, axis=-1)
    counts = fnp.sum(fnp.astype(_equal(s), "int64"), axis=-1)
    first = fnp.argmax(counts, axis=-1, keepdims=True)   # the first of the most frequent in sorted order
    value = fnp.take_along_axis(s, first, axis=-1)[..., 0]
    count = fnp.take_along_axis(counts, first, axis=-1)[..., 0]
    if keepdims:
        kept = (1,) * len(shape) if ax is None else shape[:ax] + (1,) + shape[ax + 1:]
        value, count = fnp.reshape(value, kept), fnp.reshape(count, kept)
    return ModeResult(value, count)


def rankdata(a, method="average", *, axis=None, nan_policy="propagate"):
    """The ranks (1 to n) of a's values along `axis` (None: of the flattened array), ties resolved by `method`:
    'average' (float64), 'min', 'max', 'dense' (consecutive over distinct values), 'ordinal' (ties in the
    order of appearance), as scipy.stats.rankdata. A slice holding a nan ranks as nan throughout
    (nan_policy 'propagate'). Ranks count pairwise comparisons (n^2 per slice), so the shapes are static;
    they are piecewise constant (derivative 0). Dtypes: scipy's int64 for the other methods, float64 when
    a concrete float array holds a nan; traced float arrays always give float64, as JAX's."""
    if method not in ("average", "min", "max", "dense", "ordinal"):
        raise ShapeError(f"op 'rankdata': method must be 'average', 'min', 'max', 'dense' or 'ordinal', got "
                         f"{method!r}")
    _propagate("rankdata", nan_policy)
    a = _real("rankdata", "a", a)
    x, ax = _on_last("rankdata", a, axis)
    xi, xj = fnp.expand_dims(x, -1), fnp.expand_dims(x, -2)
    same = _equal(x)
    below = fnp.sum(fnp.astype(xj < xi, "int64"), axis=-1)
    ties = fnp.sum(fnp.astype(same, "int64"), axis=-1)
    n = _shape(x)[-1]
    if method == "average":
        ranks = fnp.astype(below, "float64") + (fnp.astype(ties, "float64") + 1.0) / 2.0
    elif method == "min":
        ranks = below + 1
    elif method == "max":
        ranks = below + ties
    elif method == "ordinal":   # ties broken by position: equal values before i
        ranks = below + fnp.sum(fnp.astype(same & _np.tri(n, n, -1, dtype=bool), "int64"), axis=-1) + 1
    else:   # dense: distinct values below x_i, each counted at its first appearance
        first = ~fnp.any(same & _np.tri(n, n, -1, dtype=bool).T, axis=-2)
        ranks = fnp.sum(fnp.astype((xj < xi) & fnp.expand_dims(first, -2), "int64"), axis=-1) + 1
    if _np.dtype(_dtype(x)).kind == "f":
        nan = fnp.any(fnp.isnan(x), axis=-1, keepdims=True)
        if isinstance(x, Tracer) or method == "average" or bool(_np.any(nan)):
            ranks = fnp.where(nan, _nan, fnp.astype(ranks, "float64"))
    return ranks if ax is None else fnp.moveaxis(ranks, -1, ax)


def sem(a, axis=0, ddof=1, nan_policy="propagate", *, keepdims=False):
    """The standard error of the mean along `axis` (None: of all values), std(a, ddof) / sqrt(n), as
    scipy.stats.sem (float64; nan propagates)."""
    _propagate("sem", nan_policy)
    a = _cast(_real("sem", "a", a))
    x, ax = _on_last("sem", a, axis)
    n = _shape(x)[-1]
    value = fnp.std(x, axis=-1, ddof=ddof) / math.sqrt(n)
    if keepdims:
        shape = _shape(a)
        value = fnp.reshape(value, (1,) * len(shape) if ax is None else shape[:ax] + (1,) + shape[ax + 1:])
    return value


class gaussian_kde:
    """A Gaussian kernel density estimate of the points `dataset` (d, n) (a 1-d array: n points of one
    dimension), with `weights` (n,) (normalised; default equal) and the bandwidth factor `bw_method`: 'scott'
    (default) neff^(-1/(d+4)), 'silverman' (neff (d+2)/4)^(-1/(d+4)), a number, or a function of the kde;
    neff = 1 / sum(w^2). The kernel covariance is the weighted sample covariance (unbiased for the weights,
    as numpy.cov's aweights) times factor^2. Everything is a composition of frame.numpy (the covariance's
    Cholesky factor and triangular solves), so it traces and differentiates in the data, the weights and the
    points; as jax.scipy.stats.gaussian_kde and scipy.stats.gaussian_kde."""

    def __init__(self, dataset, bw_method=None, weights=None):
        data = _cast(_real("gaussian_kde", "dataset", dataset))
        if _ndim(data) == 1:
            data = fnp.reshape(data, (1, -1))
        if _ndim(data) != 2:
            raise ShapeError(f"op 'gaussian_kde': dataset must be (d, n) points, got shape {_shape(data)}")
        self.dataset = data
        self.d, self.n = _shape(data)
        if self.n < 2 or self.d > self.n:
            raise ShapeError(f"op 'gaussian_kde': dataset needs more points than dimensions (and 2 at least), got "
                             f"shape {_shape(data)}")
        if weights is None:
            w = fnp.full((self.n,), 1.0 / self.n)
        else:
            w = _cast(_real("gaussian_kde", "weights", weights))
            if _shape(w) != (self.n,):
                raise ShapeError(f"op 'gaussian_kde': weights must be ({self.n},) for dataset {_shape(data)}, got "
                                 f"shape {_shape(w)}")
            w = w / fnp.sum(w)
        self.weights = w
        self.neff = 1.0 / fnp.sum(w * w)
        self.set_bandwidth(bw_method)

    def scotts_factor(self):
        return self.neff ** (-1.0 / (self.d + 4))

    def silverman_factor(self):
        return (self.neff * (self.d + 2.0) / 4.0) ** (-1.0 / (self.d + 4))

    covariance_factor = scotts_factor

    def set_bandwidth(self, bw_method=None):
        """The bandwidth factor as __init__'s `bw_method`, and the kernel covariance from it."""
        if bw_method is None or bw_method == "scott":
            self.covariance_factor = self.scotts_factor
        elif bw_method == "silverman":
            self.covariance_factor = self.silverman_factor
        elif callable(bw_method):
            self.covariance_factor = lambda: bw_method(self)
        elif isinstance(bw_method, str):
            raise ShapeError(f"op 'gaussian_kde': bw_method must be 'scott', 'silverman', a number or a callable, "
                             f"got {bw_method!r}")
        else:
            factor = bw_method
            self.covariance_factor = lambda: factor
        self.factor = self.covariance_factor()
        mean = fnp.matmul(self.dataset, self.weights)
        dev = self.dataset - fnp.expand_dims(mean, -1)
        data_cov = fnp.matmul(dev * self.weights, fnp.swapaxes(dev, 0, 1)) / (1.0 - fnp.sum(self.weights ** 2))
        self.covariance = data_cov * self.factor ** 2
        self.inv_cov = _linalg.inv(self.covariance)

    def _points(self, points, op):
        x = _cast(_real(op, "points", points))
        x = fnp.reshape(x, (1, -1)) if _ndim(x) <= 1 else x
        if _ndim(x) != 2:
            raise ShapeError(f"op '{op}': points must be (d, m) for d = {self.d}, got shape {_shape(x)}")
        if _shape(x)[0] != self.d:
            if _shape(x)[0] == 1 and _shape(x)[1] == self.d:   # scipy's reading: one point given as a row
                return fnp.reshape(x, (self.d, 1))
            raise ShapeError(f"op '{op}': points must be (d, m) for d = {self.d}, got shape {_shape(x)}")
        return x

    def _log_kernels(self, points, cov, op):
        """log N(points_j; dataset_i, cov): (n, m), by the Cholesky factor of cov."""
        L = _linalg.cholesky(cov, lower=True)
        diff = fnp.expand_dims(self.dataset, -1) - fnp.expand_dims(points, -2)   # (d, n, m)
        z = _linalg.solve_triangular(L, fnp.reshape(diff, (self.d, -1)), lower=True)
        maha = fnp.reshape(fnp.sum(z * z, axis=0), _shape(diff)[1:])
        log_norm = -self.d * _LOG_SQRT_2PI - fnp.sum(fnp.log(fnp.diagonal(L)))
        return log_norm - 0.5 * maha

    def evaluate(self, points):
        """The density at `points` (d, m) (or one point as (d,) or (1, d)): (m,)."""
        x = self._points(points, "gaussian_kde.evaluate")
        return fnp.matmul(self.weights, fnp.exp(self._log_kernels(x, self.covariance, "gaussian_kde.evaluate")))

    __call__ = evaluate

    def pdf(self, x):
        """The density at `x`: evaluate(x)."""
        return self.evaluate(x)

    def logpdf(self, x):
        """The log density at `x`, by logsumexp over the kernels (finite far in the tails)."""
        x = self._points(x, "gaussian_kde.logpdf")
        logs = self._log_kernels(x, self.covariance, "gaussian_kde.logpdf")
        return _special.logsumexp(logs + fnp.expand_dims(fnp.log(self.weights), -1), axis=0)

    def integrate_gaussian(self, mean, cov):
        """The integral of the density times the normal density N(mean, cov): sum_i w_i N(mean; x_i, cov +
        the kernel covariance)."""
        mean = _cast(_real("gaussian_kde.integrate_gaussian", "mean", mean))
        cov = _cast(_real("gaussian_kde.integrate_gaussian", "cov", cov))
        if _shape(mean) not in ((self.d,), (1, self.d)) and not (self.d == 1 and _ndim(mean) == 0) or \
                _shape(cov) != (self.d, self.d):
            raise ShapeError(f"op 'gaussian_kde.integrate_gaussian': mean ({self.d},) and cov ({self.d}, {self.d}) "
                             f"expected, got shapes {_shape(mean)} and {_shape(cov)}")
        point = fnp.reshape(mean, (self.d, 1))
        logs = self._log_kernels(point, cov + self.covariance, "gaussian_kde.integrate_gaussian")[:, 0]
        return fnp.sum(self.weights * fnp.exp(logs))

    def integrate_box_1d(self, low, high):
        """The probability of [low, high] for a one-dimensional kde: sum_i w_i (Phi((high - x_i) / s) -
        Phi((low - x_i) / s)), s the kernel's standard deviation."""
        if self.d != 1:
            raise ShapeError(f"op 'gaussian_kde.integrate_box_1d': the kde must be one-dimensional, got d = {self.d}")
        low, high = _floats("gaussian_kde.integrate_box_1d", ("low", "high"), (low, high))
        s = fnp.sqrt(self.covariance[0, 0])
        x = self.dataset[0]
        return fnp.sum(self.weights * (_special.ndtr((high - x) / s) - _special.ndtr((low - x) / s)))

    def integrate_kde(self, other):
        """The integral of the product of this density and `other`'s (a gaussian_kde of the same d)."""
        if other.d != self.d:
            raise ShapeError(f"op 'gaussian_kde.integrate_kde': the kdes must have the same d, got {self.d} and "
                             f"{other.d}")
        logs = self._log_kernels(other.dataset, self.covariance + other.covariance, "gaussian_kde.integrate_kde")
        return fnp.sum(fnp.exp(logs) * fnp.expand_dims(self.weights, -1) * other.weights)

    def resample(self, key, shape=()):
        """Draws from the density with frame.random's `key`: data points picked by their weights, plus
        N(0, covariance) noise; shape (d,) + shape (jax.scipy's signature and layout)."""
        from .. import random as _random
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        pick, noise = _random.split(key)
        index = _random.choice(pick, self.n, shape=shape, p=self.weights)
        eps = _random.multivariate_normal(noise, fnp.zeros(self.d), self.covariance, shape=shape)   # shape + (d,)
        return fnp.take(self.dataset, index, axis=1) + fnp.moveaxis(eps, -1, 0)
