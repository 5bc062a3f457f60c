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
- rejection-sampled, with JAX's loops on the same keys (so the same accept/reject decisions and the same numbers
  up to the float kernels, as above): `gamma` and `loggamma` (one key per element, split from the key, and
  Marsaglia and Tsang's loop per element under vmap, JAX's boost for a < 1), and through them `beta`,
  `dirichlet`, `chisquare`, `t`, `generalized_normal` and `ball`; `poisson` (float32 Knuth and transformed
  rejection loops over the whole array) and `binomial` (inversion and BTRS), whose integers equal JAX's except
  where a kernel difference flips a decision: poisson's rejection test compares against -lam + k log lam -
  lgamma(k + 1) in float32, and XLA's float32 lgamma is off by up to ~2e-2 near 1e4 (frame's, scipy's, by ~4e-3),
  so for lam in the thousands some draws differ (below a few hundred the difference is ~1e-4 and flips are rare).
  gamma and everything drawn through it are differentiable in their parameters, by implicit reparameterisation
  (dx/da = -(dP/da)/(dP/dx), P the regularised incomplete gamma function: a series or a continued fraction summed
  with its a-derivative to float64 rounding; second derivatives are refused, as JAX's, by the while loops).

Defaults differ from JAX's in one place: float `dtype` defaults to float64, numpy's (JAX's float32 unless x64 is
on); pass `dtype="float32"` for JAX's default numbers. Integer `dtype` defaults to int64 (JAX's `int` under x64).
"""
from __future__ import annotations

import math

import numpy as _np

from .errors import ShapeError, TraceError
from .frontend import numpy as fnp
from .frontend.args import _dtype, _shape
from .frontend.batching import vmap
from .frontend.control import while_loop
from .frontend.custom import custom_jvp
from .tracing import Tracer, bind

# The special functions the samplers need, as their ops (frame.scipy.special sits beside frame.random, and its
# gaussian_kde draws through frame.random).


def _erfinv(x):
    return bind("erfinv", x)


def _digamma(x):
    return bind("digamma", x)


def _gammaln(x):
    return bind("gammaln", x)


_erf, _softmax = fnp.erf, fnp.softmax

__all__ = ["PRNGKey", "key", "key_data", "split", "fold_in", "bits", "uniform", "normal", "bernoulli", "exponential",
           "gumbel", "categorical", "truncated_normal", "randint", "permutation", "choice", "cauchy", "laplace",
           "logistic", "rademacher", "lognormal", "pareto", "weibull_min", "rayleigh", "maxwell",
           "double_sided_maxwell", "geometric", "triangular", "multivariate_normal", "orthogonal", "gamma", "loggamma",
           "beta", "dirichlet", "chisquare", "t", "generalized_normal", "ball", "poisson", "binomial"]

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


def _sample_shape(shape, fn: str, module: str = "frame.random") -> tuple:
    """`shape` as a tuple of sizes >= 0 (an int is a 1-d shape); a ShapeError naming `module.fn` if not."""
    if isinstance(shape, (int, _np.integer)) and not isinstance(shape, bool):
        shape = (int(shape),)
    try:
        shape = tuple(int(d) for d in shape)
    except TypeError:
        raise ShapeError(f"{module}.{fn}: shape must be a tuple of sizes, got {shape!r}") from None
    if any(d < 0 for d in shape):
        raise ShapeError(f"{module}.{fn}: shape must have sizes >= 0, got {shape}")
    return shape


def _float_dtype(dtype, fn: str, module: str = "frame.random") -> str:
    """`dtype` as float32 or float64 (float64 for None); a ShapeError naming `module.fn` if not."""
    name = _np.dtype(dtype).name if dtype is not None else "float64"
    if name not in _FLOATS:
        raise ShapeError(f"{module}.{fn}: dtype must be float32 or float64, got {name}")
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

    dtype = _float_dtype(dtype, "normal")
    lo = _np.nextafter(_np.array(-1.0, dtype), _np.array(0.0, dtype))
    return _np.array(math.sqrt(2), dtype) * _erfinv(uniform(key, shape, dtype, lo, 1.0))


def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """Normal floats truncated to (lower, upper): jax.random.truncated_normal's inverse-CDF formula, clipped to the
    open interval."""

    dtype = _float_dtype(dtype, "truncated_normal")
    if shape is None:
        shape = _np.broadcast_shapes(_np.shape(lower), _np.shape(upper))
    sqrt2 = _np.array(math.sqrt(2), dtype)
    lower, upper = fnp.astype(lower, dtype), fnp.astype(upper, dtype)
    u = uniform(key, shape, dtype, _erf(lower / sqrt2), _erf(upper / sqrt2))
    inf = _np.array(_np.inf, dtype)
    return fnp.clip(sqrt2 * _erfinv(u), fnp.nextafter(fnp.stop_gradient(lower), inf),
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


# --- gamma and the distributions drawn through it -------------------------------------------------------------
# JAX draws gamma per element: one key per element (split of the key into prod(shape) keys), then Marsaglia and
# Tsang's rejection loop on that key, with an inner loop redrawing the normal until 1 + c x > 0. `_gamma_one` is
# that loop for one element, with JAX's order of splits and draws and its float expressions, so that the same key
# gives the same accept/reject decisions and so the same numbers; `vmap` runs it over the elements (a batched
# while_loop runs until every element has stopped, each keeping its own state).

def _gamma_one(key, alpha, log_space: bool):
    """One Gamma(alpha) draw (its log with `log_space`) from one key, as jax.random's per-element sampler."""
    dtype = _dtype(alpha)
    zero, one, third = (_np.array(v, dtype) for v in (0.0, 1.0, 1.0 / 3.0))
    # alpha < 1 is boosted: Gamma(alpha) ~ Gamma(alpha + 1) U^(1 / alpha)
    boost = alpha >= one
    alpha_orig = alpha
    alpha = fnp.where(boost, alpha, alpha + one)
    d = alpha - third
    c = third / fnp.sqrt(d)

    def rejected(state):
        _, xx, v, u = state
        squeeze = u >= one - _np.array(0.0331, dtype) * (xx * xx)
        return fnp.logical_and(squeeze, fnp.log(u) >= xx * _np.array(0.5, dtype) + d * ((one - v) + fnp.log(v)))

    def redraw_normal(state):
        k, sub = _halves(state[0])
        x = normal(sub, (), dtype)
        return k, x, one + x * c

    def propose(state):
        ks = split(state[0], 3)
        x_key, u_key = ks[1], ks[2]
        _, x, v = while_loop(lambda s: s[2] <= zero, redraw_normal, (x_key, zero, -one))
        return ks[0], x * x, (v * v) * v, uniform(u_key, (), dtype)

    key, boost_key = _halves(key)
    # the start (X, V, U) = (0, 1, 2) is rejected, so the loop draws at least once
    v = while_loop(rejected, propose, (key, zero, one, _np.array(2.0, dtype)))[2]
    if log_space:
        # log U = log1p(-u) (an exponential's negative; JAX's exact expression), skipped where it is 0
        log_u = -exponential(boost_key, (), dtype)
        log_boost = fnp.where(fnp.logical_or(boost, log_u == zero), zero, log_u * (one / alpha_orig))
        return (fnp.log(d) + fnp.log(v)) + log_boost
    u = one - uniform(boost_key, (), dtype)
    return (d * v) * fnp.where(boost, one, fnp.power(u, one / alpha_orig))


_GRAD_MAX_TERMS = 5000   # series terms or continued-fraction steps: enough for a up to ~3e5 (the series needs
#                          ~9 sqrt(a) terms where x is near a); JAX's sampler gradient stops at 2000


def _gamma_log_grad(a, log_x):
    """d log(x) / d a for Gamma(a) draws x (elementwise, float64): the implicit reparameterisation
    dx/da = -(dP/da) / (dP/dx), P(a, x) the regularised lower incomplete gamma function, with dP/dx =
    x^(a-1) e^-x / Gamma(a) dividing out of both of these forms (so nothing under- or overflows):

    - x <= max(1, a), from P = x^a e^-x / Gamma(a+1) S, S = sum_n x^n / ((a+1)...(a+n)):
      d log x / da = -(S (log x - psi(a+1)) + dS/da) / a;
    - otherwise, from Q = 1 - P = x^a e^-x / Gamma(a) F, F = 1/(x+1-a - 1(1-a)/(x+3-a - 2(2-a)/(x+5-a - ...))):
      d log x / da = F (log x - psi(a)) + dF/da; dP/da = -dQ/da there has no cancellation, the series would.
    Both are summed in one vectorised loop each, until every element has converged to float64 rounding."""

    x = fnp.exp(log_x)
    eps = _np.finfo(_np.float64).eps
    cap = _np.array(_GRAD_MAX_TERMS, _np.int64)
    use_series = fnp.logical_or(x <= 1.0, x <= a)
    # each loop sees harmless stand-ins where the other form is used: x = 0 ends the series at once, and
    # (a, x) = (1, 2) makes the fraction converge in a few steps
    xs = fnp.where(use_series, x, 0.0)
    ac, xc = fnp.where(use_series, 1.0, a), fnp.where(use_series, 2.0, x)

    def series_step(state):
        n, t, h, s, ds, _ = state
        n = n + 1
        an = a + fnp.astype(n, "float64")
        h = h - 1.0 / an            # d/da log((a+1)...(a+n))^-1
        t = t * xs / an
        s, ds = s + t, ds + t * h
        return n, t, h, s, ds, fnp.any(fnp.logical_or(t > eps * s, fnp.abs(t * h) > eps * fnp.abs(ds)))

    ones, zeros = fnp.ones_like(a), fnp.zeros_like(a)
    start = (_np.array(0, _np.int64), ones, zeros, ones, zeros, _np.array(True))
    _, _, _, s, ds, _ = while_loop(lambda st: fnp.logical_and(st[5], st[0] < cap), series_step, start)
    g_series = -(s * (log_x - _digamma(a + 1.0)) + ds) / a

    def fraction_step(state):
        # modified Lentz for G = b1 + a2/(b2 + a3/(b3 + ...)), F = 1/G, b_j = x + 2j - 1 - a (derivative -1),
        # a_j = -(j-1)(j-1-a) (derivative j-1); d log G / da = b1'/b1 + sum_j (C_j'/C_j + D_j'/D_j), a sum of
        # terms that shrink as the fraction converges (no cancellation, unlike differentiating A_n / B_n)
        j, c, dd, log_g, dlog_g, lc, ld, _ = state
        j = j + 1
        m = fnp.astype(j, "float64") - 1.0
        aj, daj = -m * (m - ac), m
        bj = xc + (2.0 * m + 1.0) - ac
        dd_new = 1.0 / (bj + aj * dd)
        ld = -dd_new * (-1.0 + dd * (daj + aj * ld))      # D_j' / D_j, from D_j = 1 / (b_j + a_j D_{j-1})
        c_new = bj + aj / c
        lc = (-1.0 + (daj - aj * lc) / c) / c_new         # C_j' / C_j, from C_j = b_j + a_j / C_{j-1}
        delta, step = c_new * dd_new, lc + ld
        busy = fnp.logical_or(fnp.abs(delta - 1.0) > eps, fnp.abs(step) > eps * fnp.abs(dlog_g + step))
        return j, c_new, dd_new, log_g + fnp.log(delta), dlog_g + step, lc, ld, fnp.any(busy)

    b1 = xc + 1.0 - ac
    start = (_np.array(1, _np.int64), b1, zeros, fnp.log(b1), -1.0 / b1, -1.0 / b1, zeros, _np.array(True))
    state = while_loop(lambda st: fnp.logical_and(st[-1], st[0] < cap), fraction_step, start)
    g_fraction = fnp.exp(-state[3]) * (log_x - _digamma(ac) - state[4])
    return fnp.where(use_series, g_series, g_fraction)


def _gamma_draws_fn(log_space, keys, alphas):
    """Gamma(alphas) draws (their logs with `log_space`), one per key: keys (n, 2), alphas (n,)."""
    return vmap(lambda k, al: _gamma_one(k, al, log_space))(keys, alphas)


_gamma_draws = custom_jvp(_gamma_draws_fn, nondiff_argnums=(0,))


def _gamma_draws_jvp(log_space, primals, tangents):
    keys, alphas = primals
    out = _gamma_draws(log_space, keys, alphas)
    a64 = fnp.astype(alphas, "float64")
    g = _gamma_log_grad(a64, fnp.astype(out if log_space else fnp.log(out), "float64"))
    if not log_space:
        g = fnp.where(out == 0, 0.0, g * fnp.astype(out, "float64"))   # dx/da = x d(log x)/da; 0 at x = 0, as JAX
    return out, tangents[1] * fnp.astype(g, _dtype(alphas))


_gamma_draws.defjvp(_gamma_draws_jvp)


def _gamma(key, a, shape, dtype, fn: str, log_space: bool):
    """gamma's and loggamma's draws: a broadcast to `shape`, one key per element from split(key, size), per key
    of a batch (..., 2)."""
    dtype = _float_dtype(dtype, fn)
    k = _keys(key, fn)
    shape = _param_shape(shape, fn, a)
    batch = _shape(k)[:-1]
    size = math.prod(shape)
    a = fnp.broadcast_to(fnp.astype(a, dtype), batch + shape)
    if size == 0 or math.prod(batch) == 0:
        return fnp.zeros(batch + shape, dtype)
    keys = fnp.reshape(split(k, size), (-1, 2))
    return fnp.reshape(_gamma_draws(log_space, keys, fnp.reshape(a, (-1,))), batch + shape)


def gamma(key, a, shape=None, dtype=None):
    """Gamma(a) floats (unit scale): jax.random.gamma's Marsaglia-Tsang rejection loop per element (alpha < 1
    boosted by U^(1/a)), on the same keys and bits; `a` broadcasts to `shape` (its shape when None).
    Differentiable in `a` by implicit reparameterisation, d x / d a = -(dP/da) / (dP/dx) with P the regularised
    incomplete gamma function (a series below max(1, a), a continued fraction above)."""
    return _gamma(key, a, shape, dtype, "gamma", False)


def loggamma(key, a, shape=None, dtype=None):
    """log of Gamma(a) floats, drawn in log space (accurate where a << 1 makes the draws underflow): exp of these
    equals `gamma`'s draws from the same key, as jax.random.loggamma; differentiable in `a`."""
    return _gamma(key, a, shape, dtype, "loggamma", True)


def beta(key, a, b, shape=None, dtype=None):
    """Beta(a, b) floats: G_a / (G_a + G_b) from loggamma draws on split(key)'s halves, scaled by their maximum,
    as jax.random.beta; `a` and `b` broadcast to `shape` and are differentiable."""
    dtype = _float_dtype(dtype, "beta")
    _safe_cast("beta", dtype, a, b)
    shape = _param_shape(shape, "beta", a, b)
    key_a, key_b = _halves(_keys(key, "beta"))
    log_ga = loggamma(key_a, fnp.broadcast_to(fnp.astype(a, dtype), shape), shape, dtype)
    log_gb = loggamma(key_b, fnp.broadcast_to(fnp.astype(b, dtype), shape), shape, dtype)
    top = fnp.maximum(log_ga, log_gb)
    ga, gb = fnp.exp(log_ga - top), fnp.exp(log_gb - top)
    return ga / (ga + gb)


def dirichlet(key, alpha, shape=None, dtype=None):
    """Dirichlet(alpha) vectors along alpha's last axis: softmax of loggamma draws, as jax.random.dirichlet;
    `shape` is the batch shape (alpha.shape[:-1] when None), to which alpha's batch shape must broadcast."""

    dtype = _float_dtype(dtype, "dirichlet")
    ash = _shape(alpha)
    if len(ash) < 1:
        raise ShapeError(f"frame.random.dirichlet: alpha must be at least 1-d (..., n), got shape {ash}")
    shape = ash[:-1] if shape is None else _sample_shape(shape, "dirichlet")
    if not _broadcasts_to(ash[:-1], shape):
        raise ShapeError(f"frame.random.dirichlet: alpha's batch shape {ash[:-1]} does not broadcast to shape {shape}")
    return _softmax(loggamma(key, fnp.astype(alpha, dtype), shape + ash[-1:], dtype), axis=-1)


def chisquare(key, df, shape=None, dtype=None):
    """Chi-square floats of `df` degrees of freedom: 2 exp(loggamma(df / 2)), as jax.random.chisquare;
    differentiable in `df`."""
    dtype = _float_dtype(dtype, "chisquare")
    _safe_cast("chisquare", dtype, df)
    shape = _param_shape(shape, "chisquare", df)
    two = _np.array(2.0, dtype)
    return fnp.exp(loggamma(key, fnp.astype(df, dtype) / two, shape, dtype)) * two


def t(key, df, shape=None, dtype=None):
    """Student's t floats of `df` degrees of freedom: z sqrt((df/2) / G), z normal and G ~ Gamma(df/2) on
    split(key)'s halves, as jax.random.t; differentiable in `df`."""
    dtype = _float_dtype(dtype, "t")
    _safe_cast("t", dtype, df)
    shape = _param_shape(shape, "t", df)
    key_n, key_g = _halves(_keys(key, "t"))
    z = normal(key_n, shape, dtype)
    half_df = fnp.astype(df, dtype) / _np.array(2.0, dtype)
    return z * fnp.sqrt(half_df / gamma(key_g, half_df, shape, dtype))


def generalized_normal(key, p, shape=(), dtype=None):
    """Generalised normal floats, density proportional to exp(-|x|^p): a random sign times G^(1/p), G ~ Gamma(1/p),
    as jax.random.generalized_normal (p a scalar; differentiable)."""
    dtype = _float_dtype(dtype, "generalized_normal")
    shape = _sample_shape(shape, "generalized_normal")
    if _shape(p) != ():
        raise ShapeError(f"frame.random.generalized_normal: p must be a scalar, got shape {_shape(p)}")
    k_gamma, k_sign = _halves(_keys(key, "generalized_normal"))
    inv_p = 1 / fnp.astype(p, _inexact(p))
    g = gamma(k_gamma, inv_p, shape, dtype)
    return rademacher(k_sign, shape, dtype) * g ** fnp.astype(inv_p, dtype)


def ball(key, d, p=2, shape=(), dtype=None):
    """Uniform points in the unit l_p ball of dimension `d`, shape `shape` + (d,): generalised normal g over
    (sum |g|^p + e)^(1/p), e exponential (Barthe, Guedon, Mendelson and Naor), as jax.random.ball."""
    dtype = _float_dtype(dtype, "ball")
    d = _static_int(d, "ball", "d")
    if d < 0:
        raise ShapeError(f"frame.random.ball: d must be >= 0, got {d}")
    shape = _sample_shape(shape, "ball")
    k_g, k_e = _halves(_keys(key, "ball"))
    g = generalized_normal(k_g, p, shape + (d,), dtype)
    e = exponential(k_e, shape, dtype)
    return g / ((fnp.sum(fnp.abs(g) ** p, axis=-1) + e) ** (1 / p))[..., None]


# --- poisson and binomial ---------------------------------------------------------------------------------------
# JAX draws these with whole-array rejection loops on one key (every element redraws until all have stopped), two
# algorithms each run on the same key and selected between. A batch of keys is a vmap of that, as in JAX (each
# key's loop stops on its own: extra rounds would change the rejection loops' results).


def _per_key(key, fn: str, draw, out_shape: tuple, dtype: str):
    """draw(one key) for a key (2,), or vmapped over a batch of keys (..., 2)."""
    k = _keys(key, fn)
    batch = _shape(k)[:-1]
    if batch and math.prod(batch) == 0:
        return fnp.zeros(batch + out_shape, dtype)
    # the rejected proposals may divide by zero or take logs of negatives (as in JAX, where unused): quiet when
    # the loops run eagerly
    with _np.errstate(divide="ignore", invalid="ignore"):
        if not batch:
            return draw(k)
        return fnp.reshape(vmap(draw)(fnp.reshape(k, (-1, 2))), batch + out_shape)


def _poisson_knuth(key, lam, shape, dtype):
    """Knuth's: multiply uniforms (add their logs) until the product falls below exp(-lam); the count before."""
    def step(c):
        k, key, log_prod = c
        key, sub = _halves(key)
        k = fnp.where(log_prod > -lam, k + 1, k)
        return k, key, log_prod + fnp.log(uniform(sub, shape, "float32"))

    start = (fnp.zeros(shape, dtype), key, fnp.zeros(shape, "float32"))
    k = while_loop(lambda c: fnp.any(c[2] > -lam), step, start)[0]
    return fnp.astype(k - 1, dtype)


def _poisson_rejection(key, lam, shape, dtype):
    """Hormann's transformed rejection (PTRS), with JAX's float32 constants and expressions."""

    log_lam = fnp.log(lam)
    b = 0.931 + 2.53 * fnp.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def step(c):
        k_out, accepted, key = c
        ks = split(key, 3)
        u = uniform(ks[1], shape, "float32") - 0.5
        v = uniform(ks[2], shape, "float32")
        u_shifted = 0.5 - fnp.abs(u)
        k = fnp.floor((2 * a / u_shifted + b) * u + lam + 0.43)
        s = fnp.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t_ = -lam + k * log_lam - _gammaln(k + 1)
        accept1 = fnp.logical_and(u_shifted >= 0.07, v <= v_r)
        reject = fnp.logical_or(k < 0, fnp.logical_and(u_shifted < 0.013, v > u_shifted))
        accept = fnp.logical_or(accept1, fnp.logical_and(fnp.logical_not(reject), s <= t_))
        return fnp.where(accept, k, k_out), fnp.logical_or(accepted, accept), ks[0]

    start = (fnp.full(shape, -1.0, "float32"), fnp.zeros(shape, "bool"), key)
    k = while_loop(lambda c: fnp.any(fnp.logical_not(c[1])), step, start)[0]
    return fnp.astype(k, dtype)


def poisson(key, lam, shape=None, dtype=int):
    """Poisson(lam) integers (int64 by default), as jax.random.poisson: lam in float32 (JAX's), Knuth's product of
    uniforms below lam = 10 and Hormann's transformed rejection above, both loops on the key, 0 where lam = 0."""
    dtype = _int_dtype(dtype, "poisson")
    shape = _param_shape(shape, "poisson", lam)
    lam = fnp.astype(fnp.broadcast_to(lam, shape), "float32")

    def draw(k):
        use_knuth = fnp.logical_or(fnp.isnan(lam), lam < 10)
        knuth = _poisson_knuth(k, fnp.where(use_knuth, lam, 0.0), shape, dtype)
        rejection = _poisson_rejection(k, fnp.where(use_knuth, 1e5, lam), shape, dtype)
        return fnp.astype(fnp.where(lam == 0, 0, fnp.where(use_knuth, knuth, rejection)), dtype)

    return _per_key(key, "poisson", draw, shape, dtype)


_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                  0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                  0.00925546218271273, 0.00833056343336287)   # log k! - Stirling's log k! for k = 0..9


def _stirling_tail(k):
    """log k! minus Stirling's approximation: the table up to k = 9, else its series 1/12 - ... in 1/(k+1) -- at
    k clipped to 9, as JAX evaluates it (so JAX's numbers)."""
    table = _np.array(_STIRLING_TAIL, _dtype(k))
    clipped = fnp.clip(k, 0.0, 9.0)
    kp1sq = (clipped + 1) * (clipped + 1)
    approx = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (clipped + 1)
    return fnp.where(k <= 9, fnp.take(table, fnp.astype(fnp.floor(clipped), "int32")), approx)


def _binomial_inversion(key, count, prob, shape, dtype):
    """Successes as the number of geometric waiting times that fit in `count` trials."""
    log1m_prob = fnp.log1p(-prob)

    def step(c):
        num_geom, geom_sum, key = c
        sub, key = _halves(key)                      # JAX's order here: the first half draws
        num_geom = fnp.where(geom_sum <= count, num_geom + 1, num_geom)
        geom = fnp.ceil(fnp.log(uniform(sub, shape, _dtype(prob))) / log1m_prob)
        return num_geom, geom_sum + geom, key

    zeros = fnp.zeros(shape, _dtype(prob))
    k = while_loop(lambda c: fnp.any(c[1] <= count), step, (zeros, zeros, key))[0]
    return fnp.astype(k - 1, dtype)


def _btrs(key, count, prob, shape, dtype):
    """Hormann's transformed rejection with squeeze (BTRS), with JAX's constants and expressions."""
    stddev = fnp.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = fnp.floor((count + 1) * prob)

    def step(carry):
        k_out, accepted, key = carry
        ks = split(key, 3)
        u = uniform(ks[1], shape, _dtype(prob))
        v = uniform(ks[2], shape, _dtype(prob))
        u = u - 0.5
        us = 0.5 - fnp.abs(u)
        accept1 = fnp.logical_and(us >= 0.07, v <= v_r)
        k = fnp.floor((2 * a / us + b) * u + c)
        reject = fnp.logical_or(k < 0, k > count)
        v = fnp.log(v * alpha / (a / (us * us) + b))
        ub = ((m + 0.5) * fnp.log((m + 1) / (r * (count - m + 1)))
              + (count + 1) * fnp.log((count - m + 1) / (count - k + 1))
              + (k + 0.5) * fnp.log(r * (count - k + 1) / (k + 1))
              + _stirling_tail(m) + _stirling_tail(count - m) - _stirling_tail(k) - _stirling_tail(count - k))
        accept = fnp.logical_or(accept1, fnp.logical_and(fnp.logical_not(reject), v <= ub))
        return fnp.where(accept, k, k_out), fnp.logical_or(accepted, accept), ks[0]

    start = (fnp.full(shape, -1.0, _dtype(prob)), fnp.zeros(shape, "bool"), key)
    k = while_loop(lambda c: fnp.any(fnp.logical_not(c[1])), step, start)[0]
    return fnp.astype(k, dtype)


def binomial(key, n, p, shape=None, dtype=None):
    """Binomial(n, p) counts as floats (float64 by default), as jax.random.binomial: on min(p, 1 - p), inversion
    by geometric waiting times where n min(p, 1-p) <= 10 and BTRS rejection above, both loops on the key; nan for
    n < 0 or bad p, inf for n = inf."""
    dtype = _float_dtype(dtype, "binomial")
    shape = _param_shape(shape, "binomial", n, p)
    pdt = _inexact(p)
    prob = fnp.broadcast_to(fnp.astype(p, pdt), shape)
    count = fnp.broadcast_to(fnp.astype(n, pdt), shape)

    def draw(k):
        p_lt_half = prob < 0.5
        q = fnp.where(p_lt_half, prob, 1.0 - prob)
        count_nan_or_neg = fnp.logical_or(fnp.isnan(count), count < 0.0)
        count_inf = fnp.isinf(count)
        q_is_nan, q_neg = fnp.isnan(q), q < 0.0
        q = fnp.where(fnp.logical_or(q_is_nan, q_neg), fnp.full_like(q, 0.01), q)
        use_inversion = fnp.logical_or(count_nan_or_neg, count * q <= 10.0)
        whole = fnp.floor(count)
        inversion = _binomial_inversion(k, fnp.where(use_inversion, whole, 0.0), q, shape, dtype)
        rejection = _btrs(k, fnp.where(use_inversion, 1e4, whole), fnp.where(use_inversion, 0.5, q), shape, dtype)
        samples = fnp.where(use_inversion, inversion, rejection)
        invalid = fnp.logical_or(fnp.logical_or(q_neg, q_is_nan), count_nan_or_neg)
        samples = fnp.where(invalid, _np.array(_np.nan, dtype), samples)
        samples = fnp.where(fnp.logical_and(count_inf, fnp.logical_not(invalid)), _np.array(_np.inf, dtype), samples)
        keep = fnp.logical_or(fnp.logical_or(p_lt_half, count_nan_or_neg), fnp.logical_or(q_is_nan, count_inf))
        return fnp.where(keep, samples, fnp.astype(whole, dtype) - samples)

    return _per_key(key, "binomial", draw, shape, dtype)
