"""`frame.random`: jax.random's functional random numbers, bit for bit (threefry2x32, JAX's default
partitionable layout; the ops are in frame/ops/random.py).

A key is an int64 array of shape (2,) holding JAX's two uint32 words (`PRNGKey(0)` is [0, 0], as
`jax.random.key_data(jax.random.PRNGKey(0))`; frame has no unsigned dtype); `split(key, n)` gives (n, 2), and
functions take keys of shape (..., 2) as a batch, as `jax.vmap` over keys does (`permutation` and `choice` take
one key: vmap them over keys). Keys may be traced: a `frame.function` taking a key draws inside its graph, the
same numbers every run for the same key, and `vmap` over keys batches the draws.

Covered, with jax.random's formulas on the same bits (what JAX computes under jax_enable_x64):
- integers, bit for bit: `bits`, `randint` (JAX's span/multiplier algorithm in unsigned arithmetic, inside the
  `random_randint` op's kernel), `rademacher`, `bernoulli`, `categorical`, `permutation`, `choice` (with or without
  `p` and replacement);
- floats: `uniform` (bit for bit; traced, differentiable `minval`/`maxval`), and its transforms `normal`,
  `truncated_normal`, `exponential`, `gumbel`, `cauchy`, `laplace`, `logistic`, `lognormal`, `pareto`,
  `weibull_min`, `rayleigh`, `maxwell`, `double_sided_maxwell`, `geometric`, `triangular`,
  `multivariate_normal` (cholesky, eigh, svd) and `orthogonal`. These equal JAX's up to the float kernels: frame's
  log, tan, erfinv, QR, ... are numpy's, scipy's and LAPACK's, XLA's its own approximations, which differ in the
  last bits (a few ulp in float64; XLA's float32 erf_inv up to ~1.5e-6 relative in the tails).

Left out: gamma, beta, dirichlet, chisquare, t, poisson, binomial, loggamma, generalized_normal and ball (which
draws through gamma): JAX draws them with rejection loops whose per-element iteration counts fix the numbers,
and frame does not reproduce those loops, so any version here would not be JAX's numbers.

Defaults differ from JAX's in one place: float `dtype` defaults to float64, numpy's (JAX's float32 unless x64 is
on); pass `dtype="float32"` for JAX's default numbers. Integer `dtype` defaults to int64 (JAX's `int` under x64).
"""
from __future__ import annotations

import math

import numpy as _np

from .errors import ShapeError, TraceError
from .frontend import numpy as fnp
from .frontend.args import _dtype, _shape
from .tracing import Tracer, bind

__all__ = ["PRNGKey", "key", "key_data", "split", "fold_in", "bits", "uniform", "normal", "bernoulli", "exponential",
           "gumbel", "categorical", "truncated_normal", "randint", "permutation", "choice", "cauchy", "laplace",
           "logistic", "rademacher", "lognormal", "pareto", "weibull_min", "rayleigh", "maxwell",
           "double_sided_maxwell", "geometric", "triangular", "multivariate_normal", "orthogonal"]

_FLOATS = ("float32", "float64")
_INTS = ("int32", "int64")


def PRNGKey(seed) -> _np.ndarray:
    """The key of an integer seed: its 64 bits as (high word, low word), as jax.random.PRNGKey with x64 (and
    without it for seeds in [0, 2^31))."""
    if isinstance(seed, (bool, _np.bool_)) or not isinstance(seed, (int, _np.integer)):
        raise ShapeError(f"frame.random.PRNGKey: the seed must be an integer, got {type(seed).__name__} {seed!r}")
    word = int(seed) & 0xFFFFFFFFFFFFFFFF
    return _np.array([word >> 32, word & 0xFFFFFFFF], dtype=_np.int64)


key = PRNGKey


def key_data(keys):
    """The keys' words (frame's keys are their data already): as jax.random.key_data."""
    return _keys(keys, "key_data")


def _keys(keys, fn: str):
    if not isinstance(keys, Tracer):
        k = _np.asarray(keys)   # frame's int64 words, or JAX's uint32 key data
        if k.dtype.kind not in "iu" or k.ndim < 1 or k.shape[-1] != 2:
            raise ShapeError(f"frame.random.{fn}: keys must be integers of shape (..., 2) (frame.random.PRNGKey), got "
                             f"{k.dtype}{list(k.shape)}")
        if k.size and (k.min() < 0 or k.max() > 0xFFFFFFFF):
            raise ShapeError(f"frame.random.{fn}: key words must lie in [0, 2^32), got {k.min()}..{k.max()}")
        return k.astype(_np.int64)
    if _dtype(keys) not in ("int64", "int32") or len(_shape(keys)) < 1 or _shape(keys)[-1] != 2:
        raise ShapeError(f"frame.random.{fn}: keys must be int64 of shape (..., 2), got {keys.type}")
    return keys


def _sample_shape(shape, fn: str) -> tuple:
    if isinstance(shape, (int, _np.integer)) and not isinstance(shape, bool):
        shape = (int(shape),)
    try:
        shape = tuple(int(d) for d in shape)
    except TypeError:
        raise ShapeError(f"frame.random.{fn}: shape must be a tuple of sizes, got {shape!r}") from None
    if any(d < 0 for d in shape):
        raise ShapeError(f"frame.random.{fn}: shape must have sizes >= 0, got {shape}")
    return shape


def _float_dtype(dtype, fn: str) -> str:
    name = _np.dtype(dtype).name if dtype is not None else "float64"
    if name not in _FLOATS:
        raise ShapeError(f"frame.random.{fn}: dtype must be float32 or float64, got {name}")
    return name


def _int_dtype(dtype, fn: str) -> str:
    name = _np.dtype(int if dtype is None else dtype).name
    if name not in _INTS:
        raise ShapeError(f"frame.random.{fn}: dtype must be int32 or int64, got {name}")
    return name


def _inexact(x) -> str:
    """x's float dtype, float64 for ints and bools (JAX's promote_dtypes_inexact under x64)."""
    return _dtype(x) if _dtype(x) in _FLOATS else "float64"


def _broadcasts_to(small: tuple, shape: tuple) -> bool:
    return len(small) <= len(shape) and all(d in (1, s) for d, s in zip(small[::-1], shape[::-1]))


def _param_shape(shape, fn: str, *params) -> tuple:
    """`shape`, or the parameters' broadcast shape when None; the parameters must broadcast to `shape`."""
    shapes = [_shape(p) for p in params]
    try:
        joint = _np.broadcast_shapes(*shapes)
    except ValueError:
        raise ShapeError(f"frame.random.{fn}: the parameters' shapes {shapes} do not broadcast together") from None
    if shape is None:
        return joint
    shape = _sample_shape(shape, fn)
    if not _broadcasts_to(joint, shape):
        raise ShapeError(f"frame.random.{fn}: the parameters' shapes {shapes} do not broadcast to shape {shape}")
    return shape


def _safe_cast(fn: str, dtype: str, *params):
    """JAX refuses parameters that `dtype` cannot hold exactly (a float64 array for float32 draws); Python
    numbers are weak and always fit."""
    for p in params:
        if isinstance(p, (int, float)) and not isinstance(p, bool):
            continue
        if _dtype(p) is not None and not _np.can_cast(_dtype(p), dtype, "safe"):
            raise ShapeError(f"frame.random.{fn}: cannot safely cast a parameter of dtype {_dtype(p)} to {dtype}")


def _one_key(key, fn: str):
    k = _keys(key, fn)
    if _shape(k) != (2,):
        raise ShapeError(f"frame.random.{fn}: takes one key of shape (2,), got shape {_shape(k)}; vmap it over a "
                         f"batch of keys")
    return k


def _halves(key):
    """The two keys of split(key): JAX's `k1, k2 = split(key)`."""
    pair = split(key)
    return pair[..., 0, :], pair[..., 1, :]


def _static_int(x, fn: str, what: str) -> int:
    if isinstance(x, Tracer):
        raise TraceError(f"frame.random.{fn}: {what} must be a concrete integer (it fixes the output's shape), got "
                         f"traced {x.type}")
    return int(x)


def split(key, num=2):
    """`num` new keys (an int or a shape), shape (..., *num, 2): jax.random.split."""
    return bind("random_split", _keys(key, "split"), shape=_sample_shape(num, "split"))


def fold_in(key, data):
    """The key folded with integer `data` (taken mod 2^32): jax.random.fold_in."""
    k = _keys(key, "fold_in")
    if isinstance(data, Tracer):
        if _dtype(data) not in ("int64", "int32", "bool"):
            raise ShapeError(f"frame.random.fold_in: data must be integers, got {data.type}")
        d = fnp.astype(data, "int64")
    else:
        d = _np.asarray(data)
        if d.dtype.kind not in "iub":
            raise ShapeError(f"frame.random.fold_in: data must be integers, got {d.dtype}")
        d = d.astype(_np.int64)   # wraps mod 2^64, which keeps the value mod 2^32 the op takes
    return bind("random_fold_in", k, fnp.broadcast_to(d, _shape(k)[:-1]))


def bits(key, shape=()):
    """32 random bits per element as int64 in [0, 2^32): jax.random.bits with dtype uint32."""
    return bind("random_bits", _keys(key, "bits"), shape=_sample_shape(shape, "bits"))


def _unit(key, shape, dtype: str, fn: str):
    return bind("random_uniform", _keys(key, fn), shape=_sample_shape(shape, fn), dtype=dtype)


def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0):
    """Uniform floats in [minval, maxval): jax.random.uniform's bits and formula, max(minval, u (maxval - minval)
    + minval); differentiable in `minval` and `maxval`, which broadcast against `shape`."""
    dtype = _float_dtype(dtype, "uniform")
    u = _unit(key, shape, dtype, "uniform")
    lo, hi = fnp.astype(minval, dtype), fnp.astype(maxval, dtype)
    return fnp.maximum(lo, u * (hi - lo) + lo)


def normal(key, shape=(), dtype=None):
    """Standard normal floats: sqrt(2) erfinv(u), u uniform in (-1, 1), as jax.random.normal."""
    from .scipy.special import erfinv

    dtype = _float_dtype(dtype, "normal")
    lo = _np.nextafter(_np.array(-1.0, dtype), _np.array(0.0, dtype))
    return _np.array(math.sqrt(2), dtype) * erfinv(uniform(key, shape, dtype, lo, 1.0))


def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """Normal floats truncated to (lower, upper): jax.random.truncated_normal's inverse-CDF formula, clipped to the
    open interval."""
    from .scipy.special import erf, erfinv

    dtype = _float_dtype(dtype, "truncated_normal")
    if shape is None:
        shape = _np.broadcast_shapes(_np.shape(lower), _np.shape(upper))
    sqrt2 = _np.array(math.sqrt(2), dtype)
    lower, upper = fnp.astype(lower, dtype), fnp.astype(upper, dtype)
    u = uniform(key, shape, dtype, erf(lower / sqrt2), erf(upper / sqrt2))
    inf = _np.array(_np.inf, dtype)
    return fnp.clip(sqrt2 * erfinv(u), fnp.nextafter(fnp.stop_gradient(lower), inf),
                    fnp.nextafter(fnp.stop_gradient(upper), -inf))


def bernoulli(key, p=0.5, shape=None):
    """Booleans, True with probability `p`: uniform(key, shape, p's dtype) < p, as jax.random.bernoulli."""
    p = fnp.asarray(p)
    dtype = _dtype(p) if _dtype(p) in _FLOATS else "float64"
    if shape is None:
        shape = _shape(p)
    return uniform(key, shape, dtype) < p


def exponential(key, shape=(), dtype=None):
    """Exponential floats of rate 1: -log1p(-u), as jax.random.exponential."""
    dtype = _float_dtype(dtype, "exponential")
    return -fnp.log1p(-uniform(key, shape, dtype))


def gumbel(key, shape=(), dtype=None):
    """Standard Gumbel floats: -log(-log(u)), u uniform in [tiny, 1), as jax.random.gumbel's default mode."""
    dtype = _float_dtype(dtype, "gumbel")
    return -fnp.log(-fnp.log(uniform(key, shape, dtype, _np.finfo(dtype).tiny, 1.0)))


def categorical(key, logits, axis: int = -1, shape=None):
    """Category indices drawn with probabilities softmax(logits) along `axis` (with replacement): argmax of logits
    plus Gumbel noise, as jax.random.categorical."""
    logits = fnp.asarray(logits)
    dtype = _dtype(logits) if _dtype(logits) in _FLOATS else "float64"
    rank = len(_shape(logits))
    if not -rank <= axis < rank:
        raise ShapeError(f"frame.random.categorical: axis {axis} is out of range for logits of shape "
                         f"{_shape(logits)}")
    axis = axis % rank
    batch = _shape(logits)[:axis] + _shape(logits)[axis + 1:]
    shape = batch if shape is None else _sample_shape(shape, "categorical")
    if shape[len(shape) - len(batch):] != batch:
        raise ShapeError(f"frame.random.categorical: shape {shape} must end with the logits' batch shape {batch}")
    prefix = shape[:len(shape) - len(batch)]
    noise_shape = prefix + batch[:axis] + (_shape(logits)[axis],) + batch[axis:]
    expanded = fnp.reshape(logits, (1,) * len(prefix) + _shape(logits))
    return fnp.argmax(gumbel(key, noise_shape, dtype) + expanded, axis=len(prefix) + axis)


def randint(key, shape, minval, maxval, dtype=int):
    """Integers in [minval, maxval) of int `dtype` (int64 by default), as jax.random.randint: minval and maxval
    (broadcasting against `shape`) clipped to the dtype's range, minval where maxval <= minval."""
    k, dtype = _keys(key, "randint"), _int_dtype(dtype, "randint")
    shape = _param_shape(shape, "randint", minval, maxval)
    full = _shape(k)[:-1] + shape
    lo, hi = (fnp.broadcast_to(fnp.astype(v, "int64"), full) for v in (minval, maxval))
    return bind("random_randint", k, lo, hi, shape=shape, dtype=dtype)


def _shuffle(key, x, axis: int):
    """jax.random's shuffle: rounds of a stable sort of `x` along `axis` by fresh 32-bit random keys, as many rounds
    as make a tie in every round unlikely (ceil(3 ln n / ln(2^32 - 1)))."""
    size = int(_np.prod(_shape(x), dtype=_np.int64))
    rounds = int(_np.ceil(3 * _np.log(max(1, size)) / _np.log(2.0 ** 32 - 1)))
    for _ in range(rounds):
        key, sub = _halves(key)
        x = fnp.take_along_axis(x, fnp.argsort(bits(sub, _shape(x)), axis=axis), axis=axis)
    return x


def permutation(key, x, axis=0, independent=False):
    """A random permutation of arange(x) (an integer x) or of `x` along `axis` (every slice the same way, or each
    on its own with `independent`), as jax.random.permutation: stable sorts by random 32-bit keys, so equal to
    JAX's bit for bit (ties between keys are broken by position in both)."""
    key = _one_key(key, "permutation")
    if not _shape(x):
        if _dtype(x) not in _INTS or isinstance(x, bool):
            raise ShapeError(f"frame.random.permutation: x must be an integer or at least 1-dimensional, got "
                             f"{_dtype(x)} {x!r}")
        return _shuffle(key, fnp.arange(_static_int(x, "permutation", "x")), 0)
    rank = len(_shape(x))
    if not -rank <= axis < rank:
        raise ShapeError(f"frame.random.permutation: axis {axis} is out of range for x of shape {_shape(x)}")
    axis %= rank
    if independent or rank == 1:
        return _shuffle(key, fnp.asarray(x), axis)
    return fnp.take(x, _shuffle(key, fnp.arange(_shape(x)[axis]), 0), axis=axis)


def choice(key, a, shape=(), replace=True, p=None, axis=0):
    """Draws from arange(a) (an integer a) or from `a`'s slices along `axis`, as jax.random.choice: with
    replacement a randint (or, with `p`, the inverse CDF of p's cumulative sum); without, the first draws of a
    permutation (or, with `p`, the top of Gumbel noise plus log p). Differentiable in a float `a` (a gather)."""
    key = _one_key(key, "choice")
    shape = _sample_shape(shape, "choice")
    arr = fnp.asarray(a)
    if not _shape(arr):
        if _dtype(arr) not in _INTS:
            raise ShapeError(f"frame.random.choice: a must be an integer or an array, got {_dtype(arr)}")
        n_inputs = _static_int(a, "choice", "a")
    else:
        rank = len(_shape(arr))
        if not -rank <= axis < rank:
            raise ShapeError(f"frame.random.choice: axis {axis} is out of range for a of shape {_shape(arr)}")
        axis %= rank
        n_inputs = _shape(arr)[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return _np.zeros(shape, _dtype(arr))     # JAX's result for no draws, whatever a's shape
    if n_inputs <= 0:
        raise ShapeError(f"frame.random.choice: a must be greater than 0 unless no samples are taken, got "
                         f"{n_inputs} items")
    if not replace and n_draws > n_inputs:
        raise ShapeError(f"frame.random.choice: cannot take a larger sample (size {n_draws}) than the population "
                         f"(size {n_inputs}) with replace=False")
    scalar = not _shape(arr)
    if p is None:
        if replace:
            ind = randint(key, shape, 0, n_inputs)
            result = ind if scalar else fnp.take(arr, ind, axis=axis)
        else:
            perm = permutation(key, n_inputs if scalar else arr, axis)
            result = perm[(slice(None),) * (0 if scalar else axis) + (slice(n_draws),)]
    else:
        p = fnp.astype(p, _inexact(p))
        if _shape(p) != (n_inputs,):
            raise ShapeError(f"frame.random.choice: p must be None or 1-D of a's length along the axis, "
                             f"({n_inputs},); got shape {_shape(p)}")
        if replace:
            cumulative = fnp.cumsum(p)
            r = cumulative[-1] * (1 - uniform(key, shape, _dtype(p)))
            ind = fnp.searchsorted(cumulative, r)
        else:
            # Gumbel top-k: the n_draws largest of log p + noise, larger first and ties by position (as top_k)
            with _np.errstate(divide="ignore"):   # p = 0: log p = -inf, never drawn
                g = gumbel(key, (n_inputs,), _dtype(p)) + fnp.log(p)
            ind = fnp.argsort(-g)[:n_draws]
        result = ind if scalar else fnp.take(arr, ind, axis=axis)
    return fnp.reshape(result, shape if scalar else _shape(arr)[:axis] + shape + _shape(arr)[axis + 1:])


def cauchy(key, shape=(), dtype=None):
    """Standard Cauchy floats: tan(pi (u - 1/2)), u uniform in [eps, 1), as jax.random.cauchy."""
    dtype = _float_dtype(dtype, "cauchy")
    u = uniform(key, shape, dtype, _np.finfo(dtype).eps, 1.0)
    return fnp.tan(_np.array(_np.pi, dtype) * (u - _np.array(0.5, dtype)))


def laplace(key, shape=(), dtype=None):
    """Standard Laplace floats: sign(u) log1p(-|u|), u uniform in [-1 + epsneg, 1), as jax.random.laplace."""
    dtype = _float_dtype(dtype, "laplace")
    u = uniform(key, shape, dtype, -1.0 + _np.finfo(dtype).epsneg, 1.0)
    return fnp.sign(u) * fnp.log1p(-fnp.abs(u))


def logistic(key, shape=(), dtype=None):
    """Standard logistic floats: log(u) - log1p(-u), u uniform in [tiny, 1), as jax.random.logistic."""
    dtype = _float_dtype(dtype, "logistic")
    u = uniform(key, shape, dtype, _np.finfo(dtype).tiny, 1.0)
    return fnp.log(u) - fnp.log1p(-u)


def rademacher(key, shape=(), dtype=int):
    """-1 or +1 with equal probability, in `dtype` (int64 by default; a float dtype too): 2 bernoulli(0.5) - 1,
    as jax.random.rademacher."""
    name = _np.dtype(int if dtype is None else dtype).name
    if name not in _INTS + _FLOATS:
        raise ShapeError(f"frame.random.rademacher: dtype must be int32, int64, float32 or float64, got {name}")
    b = fnp.astype(bernoulli(key, 0.5, _sample_shape(shape, "rademacher")), name)
    return fnp.astype(2 * b - 1, name)


def lognormal(key, sigma=1.0, shape=None, dtype=None):
    """Log-normal floats: exp(sigma z), z standard normal, as jax.random.lognormal; `sigma` broadcasts to `shape`
    (its shape when None) and is differentiable."""
    dtype = _float_dtype(dtype, "lognormal")
    shape = _param_shape(shape, "lognormal", sigma)
    _safe_cast("lognormal", dtype, sigma)
    return fnp.exp(normal(key, shape, dtype) * fnp.astype(sigma, dtype))


def pareto(key, b, shape=None, dtype=None):
    """Pareto floats of shape parameter b: exp(e / b), e exponential, as jax.random.pareto."""
    dtype = _float_dtype(dtype, "pareto")
    shape = _param_shape(shape, "pareto", b)
    _safe_cast("pareto", dtype, b)
    return fnp.exp(exponential(key, shape, dtype) / fnp.astype(b, dtype))


def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """Weibull floats: scale (-log1p(-u))^(1/concentration), the inverse CDF, as jax.random.weibull_min."""
    dtype = _float_dtype(dtype, "weibull_min")
    shape = _param_shape(shape, "weibull_min", scale, concentration)
    u = uniform(key, shape, dtype)
    return fnp.power(-fnp.log1p(-u), 1.0 / fnp.astype(concentration, dtype)) * fnp.astype(scale, dtype)


def rayleigh(key, scale=1.0, shape=None, dtype=None):
    """Rayleigh floats: scale sqrt(-2 log u), as jax.random.rayleigh."""
    dtype = _float_dtype(dtype, "rayleigh")
    shape = _param_shape(shape, "rayleigh", scale)
    _safe_cast("rayleigh", dtype, scale)
    u = uniform(key, shape, dtype)
    return fnp.astype(scale, dtype) * fnp.sqrt(fnp.log(u) * _np.array(-2.0, dtype))


def maxwell(key, shape=(), dtype=None):
    """Maxwell floats: the length of a standard normal 3-vector, as jax.random.maxwell."""
    dtype = _float_dtype(dtype, "maxwell")
    z = normal(key, _sample_shape(shape, "maxwell") + (3,), dtype)
    return fnp.sqrt(fnp.sum(z * z, axis=-1))


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    """Maxwell floats with a random sign, scaled and shifted: as jax.random.double_sided_maxwell, whose output
    shape is `shape` (the parameters' shape when empty) followed by the parameters' broadcast shape."""
    dtype = _float_dtype(dtype, "double_sided_maxwell")
    shape = _sample_shape(shape, "double_sided_maxwell")
    params = _param_shape(None, "double_sided_maxwell", loc, scale)
    shape = (shape or params) + params
    k_maxwell, k_sign = _halves(_keys(key, "double_sided_maxwell"))
    return rademacher(k_sign, shape, dtype) * maxwell(k_maxwell, shape, dtype) * scale + loc


def geometric(key, p, shape=None, dtype=int):
    """Geometric integers >= 1 (trials to the first success): floor(log u / log1p(-p)) + 1, u uniform (0 taken
    as 1) in p's float dtype, as jax.random.geometric."""
    dtype = _int_dtype(dtype, "geometric")
    shape = _param_shape(shape, "geometric", p)
    p = fnp.astype(p, _inexact(p))
    u = uniform(key, shape, _dtype(p))
    u = fnp.where(u == 0, _np.array(1.0, _dtype(p)), u)
    return fnp.astype(fnp.floor(fnp.log(u) / fnp.log1p(-p)) + 1, dtype)


def triangular(key, left, mode, right, shape=None, dtype=None):
    """Triangular floats on [left, right] peaking at mode: the two-piece inverse CDF, as jax.random.triangular;
    differentiable in left, mode and right."""
    dtype = _float_dtype(dtype, "triangular")
    shape = _param_shape(shape, "triangular", left, mode, right)
    _safe_cast("triangular", dtype, left, mode, right)
    left, mode, right = (fnp.broadcast_to(fnp.astype(v, dtype), shape) for v in (left, mode, right))
    fc = (mode - left) / (right - left)
    u = uniform(key, shape, dtype)
    below = left + fnp.sqrt(u * (right - left) * (mode - left))
    above = right - fnp.sqrt((1 - u) * (right - left) * (right - mode))
    return fnp.where(u < fc, below, above)


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method="cholesky"):
    """Normal vectors mean + F z with F F^T = cov (F: the Cholesky factor, or U sqrt(s) of eigh/svd), z standard
    normal of shape `shape` + (n,), as jax.random.multivariate_normal; differentiable in mean and cov. `shape`
    defaults to the broadcast of mean's and cov's batch shapes."""
    if method not in ("cholesky", "eigh", "svd"):
        raise ShapeError(f"frame.random.multivariate_normal: method must be 'cholesky', 'eigh' or 'svd', got "
                         f"{method!r}")
    common = "float32" if _inexact(mean) == _inexact(cov) == "float32" else "float64"
    mean, cov = fnp.astype(mean, common), fnp.astype(cov, common)
    dtype = common if dtype is None else _float_dtype(dtype, "multivariate_normal")
    ms, cs = _shape(mean), _shape(cov)
    if len(ms) < 1 or len(cs) < 2 or cs[-2:] != (ms[-1], ms[-1]):
        raise ShapeError(f"frame.random.multivariate_normal: needs mean (..., n) and cov (..., n, n), got mean "
                         f"{ms} and cov {cs}")
    try:
        batch = _np.broadcast_shapes(ms[:-1], cs[:-2])
    except ValueError:
        raise ShapeError(f"frame.random.multivariate_normal: the batch shapes of mean {ms} and cov {cs} do not "
                         f"broadcast together") from None
    if shape is None:
        shape = batch
    else:
        shape = _sample_shape(shape, "multivariate_normal")
        if not _broadcasts_to(batch, shape):
            raise ShapeError(f"frame.random.multivariate_normal: the batch shapes of mean {ms} and cov {cs} do not "
                             f"broadcast to shape {shape}")
    if method == "svd":
        u, s, _ = fnp.linalg.svd(cov)
        factor = u * fnp.sqrt(s[..., None, :])
    elif method == "eigh":
        w, v = fnp.linalg.eigh(cov)
        factor = v * fnp.sqrt(w[..., None, :])
    else:
        factor = fnp.linalg.cholesky(cov)
    z = normal(key, shape + ms[-1:], dtype)
    return mean + fnp.einsum("...ij,...j->...i", factor, z)


def orthogonal(key, n, shape=(), dtype=None, m=None):
    """Haar-random (n, m) matrices with orthonormal columns or rows (m = n: orthogonal): Q of the QR of a normal
    matrix, its columns' signs fixed by R's diagonal, as jax.random.orthogonal."""
    dtype = _float_dtype(dtype, "orthogonal")
    n = _static_int(n, "orthogonal", "n")
    m = n if m is None else _static_int(m, "orthogonal", "m")
    if n < 0 or m < 0:
        raise ShapeError(f"frame.random.orthogonal: n and m must be >= 0, got {n} and {m}")
    z = normal(key, _sample_shape(shape, "orthogonal") + (max(n, m), min(n, m)), dtype)
    q, r = fnp.linalg.qr(z)
    x = q * fnp.expand_dims(fnp.sign(fnp.diagonal(r, axis1=-2, axis2=-1)), -2)
    return fnp.matrix_transpose(x) if n < m else x
