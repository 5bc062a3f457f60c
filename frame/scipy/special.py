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
Gamma the compositions give scipy's values (inf, 0 or nan) by such branches. Gamma ratios through exp(gammaln)
lose relative accuracy as eps |gammaln|: about 1e-13 for arguments near 150 (scipy multiplies exactly where it can).
"""
from __future__ import annotations

import math

import numpy as _np

from ..errors import ShapeError
from ..frontend import numpy as fnp
from ..frontend.args import _dtype, _int, _shape
from ..frontend.numpy_creation import as_operand
from ..frontend.numpy_math import _inexact as _float   # scipy's ufuncs: bool and ints as float64
from ..tracing import Tracer, bind, is_weak_scalar

__all__ = ["gammaln", "digamma", "psi", "polygamma", "erf", "erfc", "erfinv", "expit", "logit", "log_expit", "xlogy",
           "xlog1py", "entr", "rel_entr", "kl_div", "ndtr", "betaln", "multigammaln", "logsumexp", "softmax", "log_softmax",
           "i0e", "i1e", "i0", "i1", "ndtri", "log_ndtr", "erfcx", "exp1", "expi", "dawsn", "spence", "gamma",
           "gammasgn", "loggamma", "beta",
           "factorial", "comb", "poch", "boxcox", "boxcox1p", "gammainc", "gammaincc", "betainc", "zeta"]


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
