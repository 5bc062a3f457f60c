"""`frame.scipy.special`: the special functions differentiable code uses, with scipy.special's names and
semantics and JAX's derivatives (the set jax.scipy.special users reach for).

`gammaln`, `digamma`, `polygamma`, `erfinv`, `i0e`, `i1e`, `ndtri`, `log_ndtr`, `erfcx`, `exp1`, `expi`, `dawsn`,
`spence` are ops (frame/ops/math.py: scipy's kernels, derivatives that differentiate again: gammaln' = digamma,
polygamma(n)' = polygamma(n + 1), i0e' = i1e - sign(x) i0e, ndtri, log_ndtr, erfcx and dawsn by their outputs); `erf`, `erfc`, `expit`, `logsumexp`,
`softmax`, `log_softmax` are frame.numpy's; the rest are compositions: `logit`, `xlogy`, `xlog1py`, `entr`,
`rel_entr`, `kl_div`, `ndtr` (JAX's erf/erfc split, accurate in both tails), `betaln`, `multigammaln`, `i0`, `i1`
(i0e, i1e times e^|x|), `gamma` (gammasgn times exp(gammaln)), `gammasgn`, `loggamma` (real arguments only),
`beta`, `factorial`, `comb`, `poch`, `boxcox`, `boxcox1p`. `gammainc`, `gammaincc`, `betainc`, `zeta` are ops
differentiable in their last operand only: a derivative in a shape parameter (or zeta's exponent) raises
`GradientError` naming the op and the operand, never a silent zero. Integer and bool arguments compute in float64, as
scipy's ufuncs do (bools in float32 where scipy's float32 loop comes first: ndtri, poch, comb, boxcox, boxcox1p,
betainc, zeta; in all but comb a Python number next to float32 stays float32 too; gammainc and gammaincc are float32
only when every operand is). Where a formula has a removable or limiting case (xlogy at x = 0, entr at 0), the other branch
is evaluated at a safe point, so its derivative is finite too (no NaN leaking through `where`); at the poles of
Gamma the compositions give scipy's values (inf, 0 or nan) by such branches. `bernoulli` (static n), `expn` (static
integer n), `sici`, `bessel_jn` (static v) and `hyp1f1` are compositions by JAX's algorithms (series, continued
fractions and recurrences unrolled with fixed term counts, so they trace and differentiate to any order). Gamma ratios through exp(gammaln)
lose relative accuracy as eps |gammaln|: about 1e-13 for arguments near 150 (scipy multiplies exactly where it can).
`fresnel` (series and the continued fraction of erfc, scipy has no JAX counterpart), `owens_t` (Gauss-Legendre
quadrature and Owen's identity) and `hyp2f1` (Taylor series, Euler's and Pfaff's transformations, the 1 - x
transformation and its logarithmic form) are compositions with their derivatives attached by `custom_jvp` (exact
to any order); `sph_harm_y` (static n_max, as JAX's) is a composition by the normalised Legendre recurrences.
`wofz` is not here: an accurate Faddeeva function over the whole complex plane is a project of its own.
"""
from __future__ import annotations

import math

import numpy as _np

from ..errors import ShapeError, TraceError
from ..frontend import numpy as fnp
from ..frontend.custom import custom_jvp
from ..frontend.args import _dtype, _int, _shape
from ..frontend.numpy_creation import as_operand
from ..frontend.numpy_math import _inexact as _float   # scipy's ufuncs: bool and ints as float64
from ..tracing import Tracer, bind, is_weak_scalar

__all__ = ["gammaln", "digamma", "psi", "polygamma", "erf", "erfc", "erfinv", "expit", "logit", "log_expit", "xlogy",
           "xlog1py", "entr", "rel_entr", "kl_div", "ndtr", "betaln", "multigammaln", "logsumexp", "softmax", "log_softmax",
           "i0e", "i1e", "i0", "i1", "ndtri", "log_ndtr", "erfcx", "exp1", "expi", "dawsn", "spence", "gamma",
           "gammasgn", "loggamma", "beta",
           "factorial", "comb", "poch", "boxcox", "boxcox1p", "gammainc", "gammaincc", "betainc", "zeta",
           "bernoulli", "expn", "sici", "bessel_jn", "hyp1f1", "fresnel", "owens_t", "hyp2f1",
           "sph_harm_y"]


def gammaln(x):
    """log |Gamma(x)|."""
    return bind("gammaln", _float(x))


def digamma(x):
    """psi(x) = Gamma'(x) / Gamma(x)."""
    return bind("digamma", _float(x))


psi = digamma


def polygamma(n, x):
    """The `n`-th derivative of digamma at `x` (`n` a concrete int >= 0)."""
    n = _int(n, "polygamma", "n")
    if n < 0:
        raise ShapeError(f"frame.scipy.special.polygamma: n must be >= 0, got {n}")
    return bind("polygamma", _float(x), n=n)


def erf(x):
    """The error function."""
    return fnp.erf(_float(x))


def erfc(x):
    """1 - erf(x), accurate where erf(x) is near 1."""
    return fnp.erfc(_float(x))


def erfinv(x):
    """The inverse of erf on (-1, 1) (+-inf at +-1)."""
    return bind("erfinv", _float(x))


def expit(x):
    """The logistic function 1 / (1 + e^-x)."""
    return fnp.sigmoid(_float(x))


def logit(p):
    """log(p / (1 - p)), the inverse of expit; as scipy, log1p(s) - log1p(-s) with s = 2 p - 1 for p in
    [0.3, 0.65], where the ratio's form loses relative accuracy (the result is near 0)."""
    p = _float(p)
    middle = (p >= 0.3) & (p <= 0.65)
    s = 2.0 * (fnp.where(middle, p, 0.5) - 0.5)
    outer = fnp.where(middle, 0.1, p)    # each branch evaluated at a point where it is finite
    return fnp.where(middle, fnp.log1p(s) - fnp.log1p(-s), fnp.log(outer / (1.0 - outer)))


def log_expit(x):
    """log(expit(x)) = min(x, 0) - log1p(e^-|x|), accurate in both tails (scipy's log_expit)."""
    x = _float(x)
    return fnp.minimum(x, 0.0) - fnp.log1p(fnp.exp(-fnp.abs(x)))


def xlogy(x, y):
    """x log(y), and 0 where x = 0 (whatever y)."""
    x, y = _float(x), _float(y)
    zero = x == 0
    return fnp.where(zero, 0.0, x * fnp.log(fnp.where(zero, 1.0, y)))


def xlog1py(x, y):
    """x log(1 + y), and 0 where x = 0 (whatever y)."""
    x, y = _float(x), _float(y)
    zero = x == 0
    return fnp.where(zero, 0.0, x * fnp.log1p(fnp.where(zero, 0.0, y)))


def entr(x):
    """-x log(x) for x > 0, 0 at 0, -inf below."""
    x = _float(x)
    positive = x > 0
    inner = -x * fnp.log(fnp.where(positive, x, 1.0))
    return fnp.where(positive, inner, fnp.where(x == 0, 0.0, -_np.inf))


def rel_entr(x, y):
    """x log(x / y) for x, y > 0; 0 for x = 0 and y >= 0; inf otherwise."""
    x, y = _float(x), _float(y)
    both = (x > 0) & (y > 0)
    inner = x * fnp.log(fnp.where(both, x, 1.0) / fnp.where(both, y, 1.0))
    return fnp.where(both, inner, fnp.where((x == 0) & (y >= 0), 0.0, _np.inf))


def kl_div(x, y):
    """x log(x / y) - x + y for x, y > 0; y for x = 0 and y >= 0; inf otherwise."""
    x, y = _float(x), _float(y)
    both = (x > 0) & (y > 0)
    inner = x * fnp.log(fnp.where(both, x, 1.0) / fnp.where(both, y, 1.0)) - x + y
    return fnp.where(both, inner, fnp.where((x == 0) & (y >= 0), y, _np.inf))


_HALF_SQRT2 = 0.5 * math.sqrt(2.0)


def ndtr(x):
    """The standard normal CDF, by erf near 0 and erfc in the tails (JAX's split), accurate in both tails."""
    x = _float(x)
    z = fnp.abs(x) * _HALF_SQRT2
    tails = fnp.where(x > 0, 2.0 - fnp.erfc(z), fnp.erfc(z))
    return 0.5 * fnp.where(z < _HALF_SQRT2, 1.0 + fnp.erf(x * _HALF_SQRT2), tails)


def betaln(a, b):
    """log |B(a, b)| = gammaln(a) + gammaln(b) - gammaln(a + b)."""
    a, b = _float(a), _float(b)
    return gammaln(a) + gammaln(b) - gammaln(a + b)


def multigammaln(a, d):
    """The log of the multivariate gamma function of dimension `d` (a concrete int >= 1)."""
    d = _int(d, "multigammaln", "d")
    if d < 1:
        raise ShapeError(f"frame.scipy.special.multigammaln: d must be >= 1, got {d}")
    a = _float(a)
    total = d * (d - 1) / 4.0 * math.log(math.pi)
    for j in range(d):
        total = total + gammaln(a - j / 2.0)
    return total


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """log(sum(exp(a))) over `axis`, computed stably (`b` and `return_sign` are not supported)."""
    return fnp.logsumexp(_float(a), axis=axis, b=b, keepdims=keepdims, return_sign=return_sign)


def _over(fn, x, axis):
    """`fn` along `axis`, or over every element of `x` (flattened, then shaped back) for None."""
    x = _float(x)
    if axis is not None:
        return fn(x, axis=axis)
    return fnp.reshape(fn(fnp.reshape(x, (-1,)), axis=0), _shape(x))


def softmax(x, axis=None):
    """exp(x) / sum(exp(x)) over `axis` (None: over every element, as scipy's default)."""
    return _over(fnp.softmax, x, axis)


def log_softmax(x, axis=None):
    """x - logsumexp(x) over `axis` (None: over every element)."""
    return _over(fnp.log_softmax, x, axis)


# -- Bessel, normal distribution, erfcx: ops ----------------------------------------------------------------
def i0e(x):
    """The exponentially scaled modified Bessel function of order 0, e^-|x| I0(x)."""
    return bind("i0e", _float(x))


def i1e(x):
    """The exponentially scaled modified Bessel function of order 1, e^-|x| I1(x)."""
    return bind("i1e", _float(x))


def i0(x):
    """The modified Bessel function of order 0, i0e(x) e^|x| (inf past float range, nan at +-inf, as scipy)."""
    return fnp.i0(_float(x))


def i1(x):
    """The modified Bessel function of order 1, i1e(x) e^|x|."""
    x = _float(x)
    return i1e(x) * fnp.exp(fnp.abs(x))


def ndtri(p):
    """The inverse of `ndtr` on (0, 1): -inf and inf at 0 and 1, nan outside."""
    return bind("ndtri", _float_f(p))


def log_ndtr(x, series_order=3):
    """log(ndtr(x)), accurate in both tails. `series_order` (JAX's, an int in [0, 30]) is only checked: scipy's
    kernel needs no asymptotic series order."""
    series_order = _int(series_order, "log_ndtr", "series_order")
    if not 0 <= series_order <= 30:
        raise ShapeError(f"op 'log_ndtr': series_order must be in [0, 30], got {series_order}")
    return bind("log_ndtr", _float(x))


def erfcx(x):
    """The scaled complementary error function e^(x^2) erfc(x), without overflow for large x (real x only)."""
    return bind("erfcx", _float(x))


def exp1(x):
    """The exponential integral E1(x) = int_x^inf e^-t / t dt (inf at 0, nan for x < 0 as scipy's real kernel)."""
    return bind("exp1", _float_f(x))


def expi(x):
    """The exponential integral Ei(x) (-inf at 0)."""
    return bind("expi", _float_f(x))


def dawsn(x):
    """Dawson's integral e^(-x^2) int_0^x e^(t^2) dt."""
    return bind("dawsn", _float(x))


def spence(z):
    """Spence's function int_1^z log(t) / (1 - t) dt for z >= 0 (scipy's convention; nan below 0)."""
    return bind("spence", _float_f(z))


# -- Gamma and its relatives: compositions ------------------------------------------------------------------
def _float_f(x):
    """`x` as scipy's ufuncs whose float32 loop comes first see it (ndtri, poch, boxcox, binom): bools as float32."""
    x = as_operand(x)
    return fnp.astype(x, "float32") if _dtype(x) == "bool" else _float(x)


def _floats(*xs, f_first=False, weak=False):
    """The operands of a binary scipy ufunc in one float dtype, as its loop search picks it: bools and ints in
    float64, bools in float32 where the float32 loop comes first (`f_first`); a Python number, also one traced as a
    weak value, takes the other operand's dtype if `weak` (NEP 50: poch, boxcox) and counts as float64 otherwise."""
    xs = [as_operand(x) for x in xs]
    is_weak = [is_weak_scalar(x) or isinstance(x, Tracer) and x.weak for x in xs]   # np.float64 is not weak
    xs = [_float_f(x) if f_first else _float(x) for x in xs]
    strong = [x for x, w in zip(xs, is_weak) if not (weak and w)] or xs
    dtype = fnp.result_type(*[_np.asarray(x) if isinstance(x, float) else x for x in strong])
    # + 0 makes a traced weak value an ordinary one (converting it keeps it weak, and unary ops widen it)
    return [x + _np.zeros((), dtype) if isinstance(x, Tracer) and x.weak else fnp.astype(x, dtype) for x in xs]


def _pole(x):
    """Where x is a pole of Gamma: 0, -1, -2, ..."""
    return (x <= 0) & (x == fnp.floor(x))


def _parity(m):
    """(-1)^m for an integer-valued m, in m's dtype."""
    one = fnp.ones_like(m)
    return fnp.where(fnp.mod(m, 2.0) == 0, one, -one)


def gammasgn(x):
    """The sign of Gamma(x): 1 or -1 (-1 at -0.0), nan at the negative integers, -inf and nan."""
    x = _float(x)
    one, floor = fnp.ones_like(x), fnp.floor(x)
    negative = x < 0
    minus = (negative & (fnp.mod(floor, 2.0) != 0)) | ((x == 0) & fnp.signbit(x))
    return fnp.where((negative & (x == floor)) | fnp.isnan(x), _np.nan, fnp.where(minus, -one, one))


def gamma(x):
    """The gamma function, gammasgn(x) exp(gammaln(x)) (real x): +-inf at +-0, nan at the negative integers."""
    x = _float(x)
    return gammasgn(x) * fnp.exp(gammaln(x))


def loggamma(x):
    """log Gamma(x) for real x >= 0 (inf at 0), and nan for x < 0, where scipy's real loggamma is nan too (its
    principal branch is complex there); complex arguments (scipy's principal branch) are not supported."""
    x = _float(x)
    ok = x >= 0
    return fnp.where(ok, gammaln(fnp.where(ok, x, 1.0)), _np.nan)


def _lbeta(a, b):
    """(sign, log|B(a, b)|) away from the poles of Gamma(a), Gamma(b), by scipy's two branches: for
    |a| > 1e6 |b| and a > 1e6 (either order) its asymptotic series, free of gammaln(a + b) - gammaln(a)'s
    cancellation; else gammaln's, where a pole of Gamma(a + b) gives log 0 = -inf with the sign of Gamma(a) Gamma(b)."""
    big, small = fnp.where(fnp.abs(a) < fnp.abs(b), b, a), fnp.where(fnp.abs(a) < fnp.abs(b), a, b)
    asym = (fnp.abs(big) > 1e6 * fnp.abs(small)) & (big > 1e6)
    big_, small_ = fnp.where(asym, big, 2e6), fnp.where(asym, small, 1.0)
    c = small_ * (1.0 - small_)
    series = (gammaln(small_) - small_ * fnp.log(big_) + c / (2.0 * big_) + c * (1.0 - 2.0 * small_) / (12.0 * big_ ** 2)
              - c * c / (12.0 * big_ ** 3))
    a_, b_ = fnp.where(asym, 1.0, a), fnp.where(asym, 1.0, b)
    ab_pole = _pole(a_ + b_)
    sign = gammasgn(a_) * gammasgn(b_) * fnp.where(ab_pole, 1.0, gammasgn(a_ + b_))
    return fnp.where(asym, gammasgn(small_), sign), fnp.where(asym, series, betaln(a_, b_))


def _beta_regular(a, b):
    sign, log = _lbeta(a, b)
    return sign * fnp.exp(log)


def beta(a, b):
    """B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b), with scipy's values at the poles: for a (else b) a
    non-positive integer n and the other argument m, (-1)^m B(1 - n - m, m) if m is an integer with
    1 - n - m > 0, else inf."""
    a, b = _floats(a, b)
    a_pole, b_pole = _pole(a), _pole(b)
    pole = a_pole | b_pole
    n, m = fnp.where(a_pole, a, b), fnp.where(a_pole, b, a)
    finite = pole & (m == fnp.floor(m)) & (1.0 - n - m > 0)
    inner = finite & (m > 0)   # else m is a pole too, and scipy's B(1 - n - m, m) is inf
    reflected = _beta_regular(fnp.where(inner, 1.0 - n - m, 1.0), fnp.where(inner, m, 1.0))
    at_pole = fnp.where(finite, _parity(m) * fnp.where(inner, reflected, _np.inf), _np.inf)
    return fnp.where(pole, at_pole, _beta_regular(fnp.where(pole, 1.0, a), fnp.where(pole, 1.0, b)))


def factorial(n, exact=False):
    """n! = Gamma(n + 1) for n >= 0, 0 for n < 0 (nan stays nan), as float64 as scipy gives arrays; exact=True
    (Python integers) is not supported, as in JAX."""
    if exact:
        raise ShapeError("op 'factorial': exact=True (arbitrary-precision integers) is not supported; use exact=False")
    n = _float(n)   # computed in n's float dtype, then float64, as scipy's arrays
    negative = n < 0
    return fnp.astype(fnp.where(negative, 0.0, fnp.exp(gammaln(fnp.where(negative, 0.0, n) + 1.0))), "float64")


def _binom(n, k):
    """scipy's binom for real n, k: Gamma(n + 1) / (Gamma(k + 1) Gamma(n - k + 1)), nan for a negative integer n,
    and 0 where Gamma(k + 1) or Gamma(n - k + 1) has a pole."""
    undefined = _pole(n) & (n < 0)
    zero = _pole(k + 1.0) | _pole(n - k + 1.0)
    safe = undefined | zero
    n, k = fnp.where(safe, 1.0, n), fnp.where(safe, 0.0, k)
    sign = gammasgn(n + 1.0) * gammasgn(k + 1.0) * gammasgn(n - k + 1.0)
    value = sign * fnp.exp(gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0))
    return fnp.where(undefined, _np.nan, fnp.where(zero, 0.0, value))


def comb(N, k, *, exact=False, repetition=False):
    """The number of combinations of N things taken k at a time, scipy's binom(N, k) for 0 <= k <= N and 0
    otherwise; with `repetition`, binom(N + k - 1, k) (1 for k = 0, N >= 0), for any real N, k as scipy.
    exact=True (Python integers) is not supported, as in JAX."""
    if exact:
        raise ShapeError("op 'comb': exact=True (arbitrary-precision integers) is not supported; use exact=False")
    N, k = _floats(N, k, f_first=True)   # scipy's comb makes Python numbers arrays: not weak
    if repetition:
        return fnp.where((k == 0) & (N >= 0), 1.0, _binom(N + k - 1.0, k))
    valid = (k <= N) & (N >= 0) & (k >= 0)
    return fnp.where(valid, _binom(fnp.where(valid, N, 1.0), fnp.where(valid, k, 0.0)), 0.0)


def poch(z, m):
    """The rising factorial (z)_m = Gamma(z + m) / Gamma(z), 1 for m = 0, with scipy's values at the poles: inf
    where only z + m is one, 0 where only z is, (-1)^m (1 - z - m)_m where both are. For large z scipy uses an
    asymptotic series; the ratio here loses accuracy as eps |gammaln(z)| (about 1e-10 at z = 1e5)."""
    z, m = _floats(z, m, f_first=True, weak=True)
    z_pole, s_pole = _pole(z), _pole(z + m)
    both, one = z_pole & s_pole, z_pole != s_pole
    z_ = fnp.where(both, 1.0 - z - m, fnp.where(one, 1.0, z))
    m_ = fnp.where(one, 0.0, m)
    ratio = gammasgn(z_ + m_) * gammasgn(z_) * fnp.exp(gammaln(z_ + m_) - gammaln(z_))
    value = fnp.where(both, _parity(m_) * ratio, fnp.where(s_pole, _np.inf, fnp.where(z_pole, 0.0, ratio)))
    return fnp.where(m == 0, 1.0, value)


_EXPM1_MAX = 709.78   # scipy's bound on lmbda log(x) for expm1 (e^709.78 is near float64's largest)


def _boxcox(log_x, lmbda, as_log):
    """scipy's Box-Cox branches over log_x = log(x) or log1p(x): log_x where `as_log` (lmbda near 0);
    expm1(lmbda log_x) / lmbda; past the bound sign(lmbda) exp(lmbda log_x - log|lmbda|) - 1 / lmbda."""
    lam = fnp.where(as_log, 1.0, lmbda)
    t = lam * log_x
    big = t >= _EXPM1_MAX
    direct = fnp.expm1(fnp.where(big, 0.0, t)) / lam
    scaled = fnp.sign(lam) * fnp.exp(fnp.where(big, t, 0.0) - fnp.log(fnp.abs(lam))) - 1.0 / lam
    return fnp.where(as_log, log_x, fnp.where(big, scaled, direct))


def boxcox(x, lmbda):
    """The Box-Cox transformation (x^lmbda - 1) / lmbda, log(x) for |lmbda| < 1e-19 (scipy's branches)."""
    x, lmbda = _floats(x, lmbda, f_first=True, weak=True)
    return _boxcox(fnp.log(x), lmbda, fnp.abs(lmbda) < 1e-19)


def boxcox1p(x, lmbda):
    """The Box-Cox transformation of 1 + x, ((1 + x)^lmbda - 1) / lmbda, log1p(x) for |lmbda| < 1e-19 or
    |log1p(x)| < 1e-289 (scipy's branches)."""
    x, lmbda = _floats(x, lmbda, f_first=True, weak=True)
    log_x = fnp.log1p(x)
    huge = min(1e273, float(_np.finfo(_dtype(x)).max))   # in float32 every finite lmbda (1e273 would overflow)
    small = (fnp.abs(lmbda) < 1e-19) | ((fnp.abs(log_x) < 1e-289) & (fnp.abs(lmbda) < huge))
    return _boxcox(log_x, lmbda, small)


# -- incomplete gamma and beta, Hurwitz zeta: ops differentiable in their last operand only -------------------
def gammainc(a, x):
    """The regularised lower incomplete gamma function P(a, x) (scipy's kernel and values: 0 at x = 0, nan for a < 0
    or x < 0). Differentiable in `x` to any order (x^(a-1) e^-x / Gamma(a), as JAX's); a derivative in `a` raises
    GradientError (no closed form; JAX's igamma_grad_a has no frame counterpart). Float32 only when both are."""
    return bind("gammainc", *_floats(a, x))


def gammaincc(a, x):
    """The regularised upper incomplete gamma function Q(a, x) = 1 - P(a, x), accurate where P is near 1.
    Differentiable in `x` only, as `gammainc`."""
    return bind("gammaincc", *_floats(a, x))


def betainc(a, b, x):
    """The regularised incomplete beta function I_x(a, b) (scipy's kernel and values). Differentiable in `x` to any
    order (x^(a-1) (1-x)^(b-1) / B(a, b), as JAX's); a derivative in `a` or `b` raises GradientError, as JAX's does."""
    return bind("betainc", *_floats(a, b, x, f_first=True, weak=True))


def zeta(x, q=None):
    """The Hurwitz zeta function sum_n (n + q)^-x (scipy's kernel and values; nan for x < 1). Differentiable in `q`
    to any order (-x zeta(x + 1, q)); a derivative in `x` raises GradientError. `q=None` (Riemann's zeta) is not
    supported, as in JAX: zeta(x, 1.0) is Riemann's for x > 1."""
    if q is None:
        raise ShapeError("op 'zeta': q=None (Riemann's zeta) is not supported, as in JAX; pass q (zeta(x, 1.0) is "
                         "Riemann's zeta for x > 1)")
    return bind("zeta", *_floats(x, q, f_first=True, weak=True))


# -- Bernoulli numbers, exponential and trigonometric integrals, Bessel J, 1F1: compositions ---------------------
def bernoulli(n):
    """The Bernoulli numbers B_0 .. B_n (B_1 = -1/2) as a float64 array of n + 1 values (`n` a concrete int >= 0):
    the even ones from B_2m = (-1)^(m+1) 2 (2m)! zeta(2m) / (2 pi)^2m (JAX's formula), the odd ones past B_1 zero.
    JAX sums zeta(2m) to k = 49 only, which leaves B_4 wrong by 8e-8 relative; here zeta is the Hurwitz zeta op."""
    n = _int(n, "bernoulli", "n")
    if n < 0:
        raise ShapeError(f"frame.scipy.special.bernoulli: n must be >= 0, got {n}")
    b = _np.zeros(n + 1)
    b[:3] = [1.0, -0.5, 1.0 / 6.0][:n + 1]
    m = _np.arange(4, n + 1, 2, dtype=float)
    if not m.size:
        return fnp.asarray(b)
    # 2 (2m)! / (2 pi)^2m with its sign, as a running product (no factorial overflow)
    ratio = _np.cumprod(-(m - 1.0) * m / (4.0 * math.pi ** 2)) / math.pi ** 2
    even = _np.asarray(ratio * zeta(m, 1.0))
    b[4::2] = even
    return fnp.asarray(b)


def _expn_series(n, x):
    """E_n(x) for 0 < x <= 1 by its power series (A&S 5.1.12): (-x)^(n-1) / (n-1)! (psi(n) - log x) minus
    sum_{k != n-1} (-x)^k / (k - n + 1) k!; 30 terms reach float64's epsilon at x = 1."""
    psi_n = -_np.euler_gamma + sum(1.0 / i for i in range(1, n))
    total, term = (0.0 if n == 1 else 1.0 / (1.0 - n)), 1.0   # k = 0 (absent for n = 1: the log term's k)
    for k in range(1, 30):
        term = term * (-x) / k
        if k != n - 1:
            total = total + term / (k - n + 1.0)
    return (-x) ** (n - 1) * (psi_n - fnp.log(x)) / math.factorial(n - 1) - total


def _expn_fraction(n, x, terms=100):
    """E_n(x) for x > 1 by its continued fraction (A&S 5.1.22) e^-x / (x + n / (1 + 1 / (x + (n+1) / (1 + 2 / (x
    + ...))))), evaluated from the bottom up; 60 levels reach float64's epsilon at x = 1 for every n."""
    t = x
    for k in range(terms, 0, -1):
        t = x + (n + k - 1.0) / (1.0 + k / t)
    return fnp.exp(-x) / t


def expn(n, x):
    """The generalised exponential integral E_n(x) = int_1^inf e^(-x t) / t^n dt for a concrete int n >= 0 (JAX's
    n may be an array: here it fixes the series' terms): e^-x / x for n = 0, inf at x = 0 for n <= 1 and 1 / (n -
    1) else, nan for x < 0. Cephes' branches as JAX's: the power series for x <= 1, the continued fraction
    above, the asymptotic expansion for n >= 5000. Differentiable in x to any order (E_n' = -E_(n-1))."""
    n = _int(n, "expn", "n")
    if n < 0:
        raise ShapeError(f"frame.scipy.special.expn: n must be >= 0, got {n}")
    x = _float(x)
    positive = x > 0
    x_ = fnp.where(positive, x, 1.0)    # each branch evaluated where it is finite
    if n == 0:
        value = fnp.exp(-x_) / x_
    elif n >= 5000:
        # E_n(x) ~ e^-x / (x + n) (1 + n / (x + n)^2 + n (n - 2x) / (x + n)^4 + ...), Cephes' three terms
        s = x_ + n
        y = 1.0 / (s * s)
        value = (1.0 + y * (n + y * (n * (n - 2.0 * x_) + y * n * (6.0 * x_ * x_ - 8.0 * n * x_ + n * n))))
        value = value * fnp.exp(-x_) / s
    else:
        small = x_ <= 1.0
        value = fnp.where(small, _expn_series(n, fnp.where(small, x_, 1.0)),
                          _expn_fraction(n, fnp.where(small, 2.0, x_)))
    at_zero = _np.inf if n <= 1 else 1.0 / (n - 1.0)
    return fnp.where(positive, value, fnp.where(x == 0, at_zero, _np.nan))


def _sici_series(x):
    """(Si, Ci - log x) for 0 <= x <= 4 by their power series; 30 terms reach float64's epsilon at 4."""
    t = -x * x
    si, ci, term = x, _np.euler_gamma, fnp.ones_like(x)    # term: (-x^2)^k / (2k)!
    for k in range(1, 30):
        term = term * t / ((2.0 * k - 1.0) * (2.0 * k))
        si = si + term * x / ((2.0 * k + 1.0) ** 2)
        ci = ci + term / (2.0 * k)
    return si, ci


def _sici_fraction(x, terms=60):
    """(Si, Ci) for x > 4 from E1(ix) = -Ci(x) + i (Si(x) - pi/2), E1(z) = e^-z / (z + 1 - 1 / (z + 3 - 4 / (z + 5
    - ...))) (A&S 5.1.22's even part) evaluated from the bottom up in real and imaginary parts; 60 levels reach
    float64's epsilon at x = 4."""
    re, im = fnp.full_like(x, 2.0 * terms + 1.0), x
    for k in range(terms, 0, -1):    # t = z + 2k - 1 - k^2 / t, z = i x
        d = re * re + im * im
        re, im = 2.0 * k - 1.0 - k * k * re / d, x + k * k * im / d
    d = re * re + im * im
    h_re, h_im = re / d, -im / d     # 1 / t
    c, s = fnp.cos(x), fnp.sin(x)    # e^-ix = c - i s
    e_re, e_im = c * h_re + s * h_im, c * h_im - s * h_re
    return 0.5 * math.pi + e_im, -e_re


def sici(x):
    """The sine and cosine integrals (Si(x), Ci(x)), Si = int_0^x sin t / t dt, Ci = gamma + log x + int_0^x (cos t
    - 1) / t dt, for real x as JAX's: Si odd, Ci(-x) = Ci(x) (scipy's real part), Ci(0) = -inf, Ci(-inf) = nan.
    Split at |x| = 4 as Cephes: the power series below, the continued fraction of E1(ix) above (where Cephes
    and JAX use rational fits of the auxiliary functions); (pi/2, 0) at inf. Differentiable to any order."""
    x = _float(x)
    a = fnp.abs(x)
    small, finite = a <= 4.0, fnp.isfinite(a)
    si_s, ci_s = _sici_series(fnp.where(small, a, 1.0))
    si_f, ci_f = _sici_fraction(fnp.where(small | ~finite, 5.0, a))
    log_a = fnp.log(fnp.where(a > 0, a, 1.0))
    si = fnp.where(small, si_s, fnp.where(finite, si_f, 0.5 * math.pi))
    ci = fnp.where(small, fnp.where(a > 0, ci_s + log_a, -_np.inf), fnp.where(finite, ci_f, 0.0))
    return fnp.sign(x) * si, fnp.where(x == -_np.inf, _np.nan, ci)


def bessel_jn(z, *, v, n_iter=50):
    """The Bessel functions J_0 .. J_v of real `z` (`v` and `n_iter` concrete ints), an array of shape (v + 1,
    *z.shape), as JAX's: Miller's backward recurrence J_(k-1) = 2k J_k / z - J_(k+1) from k = n_iter + 1 (J = 0,
    1e-16 there), normalised by J_0 + 2 J_2 + 2 J_4 + ... = 1 (Zhang and Jin's BJNDD). `n_iter` must exceed |z|
    comfortably (JAX's rule of thumb: int(0.5 log10(6.28 + n) - n log10(1.36 + |z| / n)) > 20); nan at z = 0, as JAX."""
    v = _int(v, "bessel_jn", "v")
    n_iter = _int(n_iter, "bessel_jn", "n_iter")
    if v < 0 or n_iter < v:
        raise ShapeError(f"frame.scipy.special.bessel_jn: need 0 <= v <= n_iter, got v={v}, n_iter={n_iter}")
    z = _float(z)
    if _dtype(z).startswith("complex"):
        raise ShapeError(f"frame.scipy.special.bessel_jn: complex z is not supported, got {_dtype(z)}")
    upper, current = fnp.zeros_like(z), fnp.full_like(z, 1e-16)
    values, norm = [None] * (n_iter + 1), fnp.zeros_like(z)
    for k in range(n_iter, -1, -1):
        upper, current = current, 2.0 * (k + 1.0) * current / z - upper
        values[k] = current
        if k % 2 == 0:
            norm = norm + 2.0 * current
    return fnp.stack(values[:v + 1]) / (norm - values[0])


_HYP1F1_TERMS = 250   # JAX's cap on the terms of either series


def _hyp1f1_sum(first, ratio):
    """1 + sum of the terms first, first * ratio(1), ... while a term exceeds eps times the partial sum (JAX's
    stopping rule, per element: a finished element adds no more terms), at most 250 terms."""
    eps = float(_np.finfo(_dtype(first)).eps)
    total, term, going = 1.0, first, fnp.ones_like(first) > 0
    for k in range(1, _HYP1F1_TERMS):
        going = going & (fnp.abs(term) > eps * fnp.abs(total))
        total = total + fnp.where(going, term, 0.0)
        term = term * ratio(k)
    return total


def hyp1f1(a, b, x):
    """Kummer's confluent hypergeometric function 1F1(a; b; x) = sum_k (a)_k / (b)_k x^k / k! for real a, b, x as
    JAX's (Pearson, Olver and Porter 2014): the Taylor series for |x| < 100, else the large-x expansion Gamma(b) /
    Gamma(a) e^x x^(a-b) sum_k (b-a)_k (1-a)_k / k! x^-k (for x > 0); 1 for a = 0 (scipy: nan at a = b = 0), e^x
    for a = b, inf for b = 0. Like JAX's, inaccurate where the terms cancel (large negative x) or a, b are large."""
    a, b, x = _floats(a, b, x)
    b_zero, same = b == 0, a == b
    b = fnp.where(b_zero, 1.0, b)   # b = 0's inf is set below; the series stay finite there
    near = fnp.abs(x) < 100.0
    xs, xa = fnp.where(near, x, 0.0), fnp.where(near, 200.0, x)   # each series where it is finite
    series = _hyp1f1_sum(a / b * xs, lambda k: (a + k) / (b + k) * xs / (k + 1.0))
    asym = _hyp1f1_sum((b - a) * (1.0 - a) / xa, lambda k: (b - a + k) * (1.0 - a + k) / (k + 1.0) / xa)
    asym = gamma(b) / gamma(a) * fnp.exp(xa) * xa ** (a - b) * asym
    value = fnp.where(near, series, asym)
    return fnp.where(a == 0, 1.0, fnp.where(same, fnp.exp(x), fnp.where(b_zero, _np.inf, value)))


# -- Fresnel integrals, Owen's T: compositions with their derivatives attached (custom_jvp) -------------------
def _fresnel_phase(x):
    """(x^2 mod 4) for x >= 0, so that cos/sin(pi/2 (x^2 mod 4)) are accurate for large x: with x = n + f (n =
    round(x), f exact), x^2 = n^2 + 2 n f + f^2 and n^2 = n mod 2 (mod 4); only 2 n f rounds, by eps n, which the
    amplitude 1 / (pi x) of the large-x terms scales back to eps. Its derivative is 2x (round is flat)."""
    n = fnp.round(x)
    f = x - n
    odd = n - 2.0 * fnp.floor(0.5 * n)
    p = 2.0 * n * f
    return odd + (p - 4.0 * fnp.round(0.25 * p)) + f * f


def _fresnel_series(x):
    """(S, C) for 0 <= x <= 1.6 from C + iS = x sum_k (i u)^k / (k! (2k + 1)), u = pi x^2 / 2 (<= 4.03: the
    largest term is 11, so cancellation costs a few ulps); 30 terms reach float64's epsilon."""
    u = 0.5 * math.pi * x * x
    s, c, term = fnp.zeros_like(x), fnp.ones_like(x), fnp.ones_like(x)    # term: u^k / k!
    for k in range(1, 30):
        term = term * u / k
        part = term / (2.0 * k + 1.0)
        if k % 4 == 0:
            c = c + part
        elif k % 4 == 1:
            s = s + part
        elif k % 4 == 2:
            c = c - part
        else:
            s = s - part
    return x * s, x * c


def _fresnel_fraction(x, terms=45):
    """(S, C) for x >= 1.6 from C + iS = (1 + i)/2 erf(sqrt(pi)/2 (1 - i) x) = (1 + i)/2 - x e^(i pi x^2/2) / d,
    d the even continued fraction of erfc, d = t + 1 - 1*2 / (t + 5 - 3*4 / (t + 9 - ...)) with t = 2z^2 = -i pi x^2,
    evaluated from the bottom up in real and imaginary parts; 40 levels reach float64's epsilon at x = 1.6. Past x
    = 1e8, x / d = i / (pi x) to float64 precision (and x^2 would overflow)."""
    huge = x > 1e8
    xs = fnp.where(huge, 2.0, x)
    im_t = -math.pi * xs * xs
    re, im = fnp.full_like(xs, 4.0 * terms + 1.0), im_t
    for k in range(terms, 0, -1):    # d <- t + 4k - 3 - (2k - 1) 2k / d
        m = (2.0 * k - 1.0) * (2.0 * k) / (re * re + im * im)
        re, im = 4.0 * k - 3.0 - m * re, im_t + m * im
    norm = re * re + im * im
    q_re = fnp.where(huge, 0.0, xs * re / norm)               # q = x / d
    q_im = fnp.where(huge, 1.0 / (math.pi * fnp.where(huge, x, 1.0)), -xs * im / norm)
    theta = 0.5 * math.pi * _fresnel_phase(x)
    c, s = fnp.cos(theta), fnp.sin(theta)
    return 0.5 - (s * q_re + c * q_im), 0.5 - (c * q_re - s * q_im)


def _fresnel_value(x):
    a = fnp.abs(x)
    small, finite = a <= 1.6, fnp.isfinite(a)
    s_s, c_s = _fresnel_series(fnp.where(small, a, 1.0))
    s_f, c_f = _fresnel_fraction(fnp.where(small | ~finite, 2.0, a))
    s = fnp.where(small, s_s, fnp.where(finite, s_f, 0.5))
    c = fnp.where(small, c_s, fnp.where(finite, c_f, 0.5))
    sign = fnp.sign(x)    # odd functions; nan stays nan
    return sign * s, sign * c


_fresnel = custom_jvp(_fresnel_value)


@_fresnel.defjvp
def _fresnel_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    theta = 0.5 * math.pi * _fresnel_phase(fnp.abs(x))     # S' = sin(pi x^2 / 2), C' = cos(pi x^2 / 2)
    return _fresnel(x), (fnp.sin(theta) * t, fnp.cos(theta) * t)


def fresnel(x):
    """The Fresnel integrals (S(x), C(x)) = (int_0^x sin(pi t^2 / 2) dt, int_0^x cos(pi t^2 / 2) dt) of real x, in
    scipy's order (JAX has none): odd, (+-1/2, +-1/2) at +-inf. The power series for |x| <= 1.6, the continued
    fraction of erfc((1 - i) sqrt(pi) x / 2) above, with pi x^2 / 2 reduced exactly mod 2 pi so large x stay
    accurate (scipy's values to about 1e-15). Derivatives are attached (S' = sin(pi x^2 / 2), C' = cos(pi x^2 /
    2)), so they are exact to any order."""
    x = _float(x)
    if _dtype(x).startswith("complex"):
        raise ShapeError(f"frame.scipy.special.fresnel: complex x is not supported, got {_dtype(x)}")
    return _fresnel(x)


# Gauss-Legendre nodes and weights on [0, 1] for Owen's T integral (30 points: float64's epsilon for every h, a
# once the integral is cut where the Gaussian factor drops below e^-40)
_OWENS_NODES, _OWENS_WEIGHTS = _np.polynomial.legendre.leggauss(30)
_OWENS_NODES, _OWENS_WEIGHTS = 0.5 * (_OWENS_NODES + 1.0), 0.5 * _OWENS_WEIGHTS


def _owens_t_value(h, a):
    h, abs_a = fnp.abs(h), fnp.abs(a)
    big = abs_a > 1.0
    # T(h, a) for |a| > 1 from T(|a| h, 1 / |a|) (Owen's identity, below); the integral is over [0, a'] <= 1
    a_r = fnp.where(big, 1.0 / fnp.where(big, abs_a, 1.0), abs_a)
    ah = fnp.where(h == 0, 0.0, abs_a) * h                           # inf * 0 would be nan
    h_r = fnp.where(big, fnp.where(fnp.isinf(abs_a), 0.0, ah), h)   # a' = 0 there: T = 0 for any h'
    # T(h, a) = 1/2pi int_0^a e^(-h^2 (1 + u^2) / 2) / (1 + u^2) du, cut at u = 9 / h (the rest < e^-40 relative)
    b = fnp.minimum(a_r, fnp.where(h_r > 0, 9.0 / fnp.where(h_r > 0, h_r, 1.0), _np.inf))
    u2 = (b[..., None] * _OWENS_NODES) ** 2
    f = fnp.exp(-0.5 * (h_r * h_r)[..., None] * (1.0 + u2)) / (1.0 + u2)
    t = b * fnp.sum(f * _OWENS_WEIGHTS, axis=-1) / (2.0 * math.pi)
    # T(h, a) = (Phi_c(h) + Phi_c(a h)) / 2 - Phi_c(h) Phi_c(a h) - T(a h, 1 / a) for h >= 0, a > 1
    e1, e2 = fnp.erfc(h / math.sqrt(2.0)), fnp.erfc(ah / math.sqrt(2.0))
    t = fnp.where(big, 0.25 * (e1 + e2 - e1 * e2) - t, t)
    return fnp.where(fnp.isnan(h) | fnp.isnan(a), _np.nan, fnp.sign(a) * t)


_owens_t = custom_jvp(_owens_t_value)


@_owens_t.defjvp
def _owens_t_jvp(primals, tangents):
    (h, a), (dh, da) = primals, tangents
    # dT/dh = -e^(-h^2/2) erf(a h / sqrt 2) / (2 sqrt(2 pi)), dT/da = e^(-(1 + a^2) h^2 / 2) / (2 pi (1 + a^2))
    d_h = -fnp.exp(-0.5 * h * h) * fnp.erf(a * h / math.sqrt(2.0)) / (2.0 * math.sqrt(2.0 * math.pi))
    d_a = fnp.exp(-0.5 * (1.0 + a * a) * h * h) / (2.0 * math.pi * (1.0 + a * a))
    return _owens_t(h, a), d_h * dh + d_a * da


def owens_t(h, a):
    """Owen's T function T(h, a) = 1/2pi int_0^a e^(-h^2 (1 + x^2) / 2) / (1 + x^2) dx of real h, a (even in h, odd
    in a): 30-point Gauss-Legendre quadrature of that integral for |a| <= 1, cut where the integrand is below
    e^-40 of its value at 0 (JAX: 13 points, Patefield and Tandy's T5), Owen's identity T(h, a) = (Phi_c(h) +
    Phi_c(a h)) / 2 - Phi_c(h) Phi_c(a h) - T(a h, 1/a) for |a| > 1. scipy's values to about 1e-13 relative
    (e^(-h^2/2)'s own rounding at large h). Derivatives in both arguments are attached (JAX's formulas), so they are
    exact to any order."""
    h, a = _floats(h, a)
    h, a = fnp.broadcast_arrays(h, a)
    return _owens_t(h, a)


# -- Gauss's hypergeometric function 2F1: a composition with its derivatives attached (custom_jvp) ------------
_HYP2F1_TERMS = 150   # the Taylor series at |x| <= 3/4 (and terminating polynomials up to degree 149)
_HYP2F1_NEAR_TERMS = 40   # the series in 1 - x <= 1/4


def _hyp2f1_taylor(a, b, c, x, terms=_HYP2F1_TERMS):
    """sum_k (a)_k (b)_k / (c)_k x^k / k! to a fixed number of terms (150 reach float64's epsilon at |x| = 3/4 for
    moderate parameters; JAX stops per element, which saves nothing in a graph); a non-positive integer a makes
    the terms exactly 0 past k = -a, so polynomials come out exact."""
    total, term = fnp.ones_like(x), fnp.ones_like(x)
    for k in range(terms):
        term = term * ((a + k) * (b + k) / ((c + k) * (k + 1.0)) * x)
        total = total + term
    return total


_EPS = float(_np.finfo(_np.float64).eps)


def _gamma_quotient(num, den):
    """prod Gamma(num) / prod Gamma(den) through gammaln (no overflow of the parts); 0 where a den is a pole."""
    sign, log = 1.0, 0.0
    pole = None
    for z in num:
        sign, log = sign * gammasgn(z), log + gammaln(z)
    for z in den:
        p = _pole(z)
        z = fnp.where(p, 0.5, z)
        pole = p if pole is None else pole | p
        sign, log = sign * gammasgn(z), log - gammaln(z)
    return fnp.where(pole, 0.0, sign * fnp.exp(log))


def _hyp2f1_transform(a, b, c, s):
    """2F1(a, b; c; 1 - s) for non-integer d = c - a - b by the 1 - x transformation (A&S 15.3.6):
    Gamma(c) Gamma(d) / (Gamma(c-a) Gamma(c-b)) 2F1(a, b; 1-d; s) + s^d Gamma(c) Gamma(-d) / (Gamma(a) Gamma(b))
    2F1(c-a, c-b; 1+d; s). Near-integer d cancels: relative error about eps / dist(d, Z)."""
    d = c - a - b
    first = _gamma_quotient([c, d], [c - a, c - b]) * _hyp2f1_taylor(a, b, 1.0 - d, s, _HYP2F1_NEAR_TERMS)
    second = _gamma_quotient([c, -d], [a, b]) * _hyp2f1_taylor(c - a, c - b, 1.0 + d, s, _HYP2F1_NEAR_TERMS)
    return first + s ** d * second


def _hyp2f1_log(a, b, c, s, m):
    """2F1(a, b; a + b + m; 1 - s) for an integer m >= 0 (A&S 15.3.10, 15.3.11: the limit of 15.3.6, with log s):
    Gamma(m) Gamma(c) / (Gamma(a+m) Gamma(b+m)) sum_{n<m} (a)_n (b)_n / (n! (1-m)_n) s^n - (-s)^m Gamma(c) /
    (Gamma(a) Gamma(b)) sum_n (a+m)_n (b+m)_n / (n! (n+m)!) s^n (log s - psi(n+1) - psi(n+m+1) + psi(a+n+m) +
    psi(b+n+m)); the psi's by their recurrence psi(z + 1) = psi(z) + 1/z. For s <= 1/4, 40 terms of each sum."""
    positive = m > 0
    finite = fnp.ones_like(s)
    u = fnp.ones_like(s)
    for n in range(1, _HYP2F1_NEAR_TERMS):    # the finite sum: its terms stop at n = m - 1
        live = n < m
        u = u * fnp.where(live, (a + n - 1.0) * (b + n - 1.0) / (n * fnp.where(live, n - m, 1.0)) * s, 0.0)
        finite = finite + u
    m_safe = fnp.where(positive, m, 1.0)
    finite = fnp.where(positive, _gamma_quotient([m_safe, c], [a + m, b + m]) * finite, 0.0)
    log_s = fnp.log(s)
    psi_1, psi_m = -_np.euler_gamma + 0.0 * s, digamma(m + 1.0)
    psi_a, psi_b = digamma(a + m), digamma(b + m)
    v = fnp.exp(-gammaln(m + 1.0))
    total = v * (log_s - psi_1 - psi_m + psi_a + psi_b)
    for n in range(1, _HYP2F1_NEAR_TERMS):
        v = v * (a + m + n - 1.0) * (b + m + n - 1.0) / (n * (n + m)) * s
        psi_1, psi_m = psi_1 + 1.0 / n, psi_m + 1.0 / (n + m)
        psi_a, psi_b = psi_a + 1.0 / (a + m + n - 1.0), psi_b + 1.0 / (b + m + n - 1.0)
        total = total + v * (log_s - psi_1 - psi_m + psi_a + psi_b)
    sign = 1.0 - 2.0 * fnp.mod(m, 2.0)    # (-1)^m
    return finite - sign * s ** m * _gamma_quotient([c], [a, b]) * total


def _neg_int(z):
    """z a non-positive integer to JAX's tolerance (50 eps): the series in z terminates."""
    return (z <= 0) & (fnp.abs(z - fnp.round(z)) < 50.0 * _EPS)


def _hyp2f1_general(a, b, c, x):
    """2F1 for x < 1 and d = c - a - b > -1: for x < 0 Pfaff's transformation (1 - x)^-p 2F1(p, c - q; c; x / (x -
    1)) with p the smaller (or the terminating) one of a, b, to the argument y in (0, 1) and d' = q - p >= 0; the
    Taylor series for y <= 3/4 or a terminating series, else the 1 - y transformation (non-integer d) or its
    logarithmic limit (integer d)."""
    neg = x < 0
    a_first = _neg_int(a) | (~_neg_int(b) & (a <= b))
    p, q = fnp.where(a_first, a, b), fnp.where(a_first, b, a)
    x_neg = fnp.where(neg, x, -1.0)
    y = fnp.where(neg, x_neg / (x_neg - 1.0), x)
    prefactor = fnp.where(neg, (1.0 - x_neg) ** -p, 1.0)
    A, B = fnp.where(neg, p, a), fnp.where(neg, c - q, b)
    swap = _neg_int(B) & ~_neg_int(A)    # the terminating parameter first
    A, B = fnp.where(swap, B, A), fnp.where(swap, A, B)
    d = c - A - B
    near = (y > 0.75) & ~_neg_int(A)
    integer = fnp.abs(d - fnp.round(d)) < 50.0 * _EPS
    taylor = _hyp2f1_taylor(A, B, c, fnp.where(near, 0.0, y))
    s = fnp.where(near, 1.0 - y, 0.5)
    A_, B_ = fnp.where(near, A, 0.5), fnp.where(near, B, 0.25)    # harmless parameters where unused
    c_t = fnp.where(near & ~integer, c, 1.25)
    c_l = fnp.where(near & integer, c, 1.75)
    m = fnp.where(near & integer, fnp.round(d), 1.0)
    transform = _hyp2f1_transform(A_, B_, c_t, s)
    logarithmic = _hyp2f1_log(A_, B_, A_ + B_ + m, s, m)
    return prefactor * fnp.where(near, fnp.where(integer, logarithmic, transform), taylor)


def _hyp2f1_value(a, b, c, x):
    d, s = c - a - b, 1.0 - x
    below = x < 1
    # Euler: 2F1(a, b; c; x) = (1 - x)^d 2F1(c - a, c - b; c; x), then d' = -d >= 1 (not for a polynomial: the
    # factor (1 - x)^d would cancel against the other polynomial's smallness)
    euler = (d <= -1) & below & ~(_neg_int(a) | _neg_int(b))
    a2, b2 = fnp.where(euler, c - a, a), fnp.where(euler, c - b, b)
    c_pole = _pole(c)
    safe = below & ~c_pole
    c_safe = fnp.where(safe, c, 1.5)
    x_safe = fnp.where(safe, x, 0.0)
    general = fnp.where(euler, fnp.where(below, s, 1.0) ** d, 1.0) * _hyp2f1_general(a2, b2, c_safe, x_safe)
    c_gauss = fnp.where(c_pole, 1.5, c)
    gauss = fnp.where(d > 0, _gamma_quotient([c_gauss, fnp.where(d > 0, d, 1.0)], [c - a, c - b]), _np.inf)
    s_safe = fnp.where(below, s, 1.0)
    value = fnp.where(below & (b == c), s_safe ** -a, fnp.where(below & (a == c), s_safe ** -b, general))
    value = fnp.where(x > 1, _np.inf, fnp.where(x == 1, gauss, value))
    value = fnp.where(c_pole, _np.inf, value)
    one = (x == 0) | (((a == 0) | (b == 0)) & (c != 0))
    return fnp.where(one, 1.0, value)


def _hyp2f1_parameter_series(a, b, c, x, terms=150):
    """(d/da, d/db, d/dc) 2F1 as JAX's: the Taylor series with each term times psi(a + k) - psi(a) (b the same, c:
    psi(c) - psi(c + k)), these as running sums of 1/(a + j); exact for the series, so accurate where it converges
    (|x| <= 3/4 or so, as the value's Taylor branch; JAX: 250 terms at most)."""
    zero = fnp.zeros_like(x)
    total_a, total_b, total_c, term = zero, zero, zero, fnp.ones_like(x)
    sum_a, sum_b, sum_c = zero, zero, zero
    for k in range(terms):
        sum_a, sum_b, sum_c = sum_a + 1.0 / (a + k), sum_b + 1.0 / (b + k), sum_c - 1.0 / (c + k)
        term = term * ((a + k) * (b + k) / ((c + k) * (k + 1.0)) * x)
        total_a, total_b, total_c = total_a + term * sum_a, total_b + term * sum_b, total_c + term * sum_c
    return total_a, total_b, total_c


_hyp2f1 = custom_jvp(_hyp2f1_value)


@_hyp2f1.defjvp
def _hyp2f1_jvp(primals, tangents):
    (a, b, c, x), (ta, tb, tc, tx) = primals, tangents
    out = _hyp2f1(a, b, c, x)
    tangent = fnp.zeros_like(x) if tx is None else a * b / c * _hyp2f1(a + 1.0, b + 1.0, c + 1.0, x) * tx
    if not (ta is None and tb is None and tc is None):    # None: a zero tangent
        for d, t in zip(_hyp2f1_parameter_series(a, b, c, x), (ta, tb, tc)):
            tangent = tangent if t is None else tangent + d * t
    return out, tangent


def hyp2f1(a, b, c, x):
    """Gauss's hypergeometric function 2F1(a, b; c; x) = sum_k (a)_k (b)_k / (c)_k x^k / k! for real arguments and x
    <= 1, with JAX's special cases: 1 at x = 0 or a or b = 0 (c != 0), inf where c is a non-positive integer, for x
    > 1, and at x = 1 for c - a - b <= 0; Gauss's sum Gamma(c) Gamma(c-a-b) / (Gamma(c-a) Gamma(c-b)) at x = 1;
    (1 - x)^-a where b = c (and a, b swapped). Else Euler's transformation for c - a - b <= -1 and Pfaff's for x <
    0 (to 0 < y < 1), then the Taylor series (y <= 3/4; terminating series of degree < 200 for any y) or the 1 - y
    transformation and its logarithmic form for integer c - a - b (JAX: the Taylor series to x = 0.9). The
    derivative in x, a b / c 2F1(a+1, b+1; c+1; x), is attached, so any order in x is exact; those in a, b, c are
    JAX's series (accurate for |x| up to about 3/4). Gamma ratios through gammaln: about 1e-13 relative for
    parameters near 100; c - a - b within 1e-3 of an integer (but not one) loses eps / distance."""
    a, b, c, x = _floats(a, b, c, x)
    a, b, c, x = fnp.broadcast_arrays(a, b, c, x)
    return _hyp2f1(a, b, c, x)


# -- spherical harmonics ------------------------------------------------------------------------------------------
def sph_harm_y(n, m, theta, phi, diff_n=0, n_max=None):
    """The spherical harmonics Y_n^m(theta, phi) = sqrt((2n + 1) / 4pi (n - m)! / (n + m)!) P_n^m(cos theta) e^(i m
    phi) (P_n^m with the Condon-Shortley phase), theta the polar and phi the azimuthal angle, as scipy's (arguments
    broadcast; 0 where |m| > n) and JAX's (`n_max`, a concrete int, bounds n: larger n are clipped to it; needed
    when n is traced, else max(n)). Complex128 (complex64 for float32 angles). The normalised Legendre functions by
    their stable three-term recurrences in the degree, one per (degree, order) up to n_max, each picked where (n,
    |m|) matches (so the cost grows as n_max^2); Y_n^-m = (-1)^m conj(Y_n^m). Differentiable in theta and phi to
    any order. `diff_n` (scipy's derivatives) is not supported beyond 0, as in JAX."""
    if diff_n not in (0, None):
        raise ShapeError(f"frame.scipy.special.sph_harm_y: diff_n={diff_n!r} is not supported (only 0, as in JAX)")
    if n_max is None:
        if isinstance(n, Tracer):
            raise TraceError("frame.scipy.special.sph_harm_y: n is traced, so its maximum is not known: pass n_max "
                             "(a concrete int >= max(n))")
        n_np = _np.asarray(n)
        n_max = int(n_np.max()) if n_np.size else 0
    n_max = _int(n_max, "sph_harm_y", "n_max")
    if n_max < 0:
        raise ShapeError(f"frame.scipy.special.sph_harm_y: n_max must be >= 0, got {n_max}")
    for name, v in (("n", n), ("m", m)):
        if not isinstance(v, Tracer) and not _np.issubdtype(_np.asarray(v).dtype, _np.integer):
            vals = _np.asarray(v, dtype=float)
            if not _np.all(vals == _np.round(vals)):
                raise ShapeError(f"frame.scipy.special.sph_harm_y: {name} must hold integers, got {v!r}")
    theta, phi = _floats(theta, phi)
    n, m = fnp.minimum(_float(n), float(n_max)), _float(m)
    n, m, theta, phi = fnp.broadcast_arrays(n, m, theta, phi)
    n, m = fnp.astype(n, _dtype(theta)), fnp.astype(m, _dtype(theta))
    k = fnp.abs(m)
    x, y = fnp.cos(theta), fnp.sin(theta)
    legendre = fnp.zeros_like(theta)
    diagonal = fnp.full_like(theta, 1.0 / math.sqrt(4.0 * math.pi))    # normalised P_j^j
    for j in range(n_max + 1):
        if j > 0:
            diagonal = -math.sqrt((2.0 * j + 1.0) / (2.0 * j)) * y * diagonal
        previous, current = fnp.zeros_like(theta), diagonal
        legendre = legendre + fnp.where((n == j) & (k == j), current, 0.0)
        for l in range(j + 1, n_max + 1):
            # P_l^j = a_l (x P_(l-1)^j - P_(l-2)^j / a_(l-1)), a_l = sqrt((4 l^2 - 1) / (l^2 - j^2)) (normalised)
            a_l = math.sqrt((4.0 * l * l - 1.0) / (l * l - j * j))
            a_prev = math.sqrt((4.0 * (l - 1) ** 2 - 1.0) / ((l - 1) ** 2 - j * j)) if l - 1 > j else _np.inf
            previous, current = current, a_l * (x * current - previous / a_prev)
            legendre = legendre + fnp.where((n == l) & (k == j), current, 0.0)
    # Y_n^-k = (-1)^k conj(Y_n^k): the same Legendre factor times (-1)^k e^(-i k phi) = (-1)^k e^(i m phi)
    sign = fnp.where((m < 0) & (fnp.mod(k, 2.0) == 1), -1.0, 1.0)
    angle = m * phi
    return fnp.exp(1j * angle) * (sign * legendre)
