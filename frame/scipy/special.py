"""`frame.scipy.special`: the special functions differentiable code uses, with scipy.special's names and
semantics and JAX's derivatives (the set jax.scipy.special users reach for).

`gammaln`, `digamma`, `polygamma`, `erfinv` are ops (frame/ops/math.py: scipy's kernels, derivatives that
differentiate again: gammaln' = digamma, polygamma(n)' = polygamma(n + 1)); `erf`, `erfc`, `expit`,
`logsumexp`, `softmax`, `log_softmax` are frame.numpy's; the rest are compositions: `logit`, `xlogy`,
`xlog1py`, `entr`, `rel_entr`, `kl_div`, `ndtr` (JAX's erf/erfc split, accurate in both tails),
`betaln`, `multigammaln`. Integer and bool arguments compute in float64, as scipy's ufuncs do. Where a
formula has a removable or limiting case (xlogy at x = 0, entr at 0), the other branch is evaluated at a
safe point, so its derivative is finite too (no NaN leaking through `where`).
"""
from __future__ import annotations

import math

import numpy as _np

from ..errors import ShapeError
from ..frontend import numpy as fnp
from ..frontend.args import _int, _shape
from ..frontend.numpy_math import _inexact as _float   # scipy's ufuncs: bool and ints as float64
from ..tracing import bind

__all__ = ["gammaln", "digamma", "psi", "polygamma", "erf", "erfc", "erfinv", "expit", "logit", "xlogy", "xlog1py",
           "entr", "rel_entr", "kl_div", "ndtr", "betaln", "multigammaln", "logsumexp", "softmax", "log_softmax"]


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
    """log(p / (1 - p)), the inverse of expit."""
    p = _float(p)
    return fnp.log(p / (1.0 - p))


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
