"""`frame.random`: jax.random's functional random numbers, bit for bit (threefry2x32, JAX's default
partitionable layout; the ops are in frame/ops/random.py).

A key is an int64 array of shape (2,) holding JAX's two uint32 words (`PRNGKey(0)` is [0, 0], as
`jax.random.key_data(jax.random.PRNGKey(0))`; frame has no unsigned dtype); `split(key, n)` gives (n, 2), and
functions take keys of shape (..., 2) as a batch, as `jax.vmap` over keys does. Keys may be traced: a
`frame.function` taking a key draws inside its graph, the same numbers every run for the same key, and `vmap`
over keys batches the draws. `uniform` (with traced, differentiable `minval`/`maxval`), `normal`, `bernoulli`,
`exponential`, `gumbel`, `categorical`, `truncated_normal`, `randint`-free (see below) follow jax.random's formulas
on the same bits: uniform bits equal JAX's exactly; normal and truncated_normal go through erfinv, whose
frame kernel (scipy's) and XLA's approximation differ in the last bits.

Defaults differ from JAX's in one place: `dtype` defaults to float64, numpy's (JAX's float32 unless x64 is on);
pass `dtype="float32"` for JAX's default numbers. `randint`, `permutation` and `choice` are not provided (JAX
draws them with integer arithmetic frame's graph lacks: unsigned shifts and 64-bit multiplication).
"""
from __future__ import annotations

import math

import numpy as _np

from .errors import ShapeError
from .frontend import numpy as fnp
from .frontend.args import _dtype, _shape
from .tracing import Tracer, bind

__all__ = ["PRNGKey", "key", "key_data", "split", "fold_in", "bits", "uniform", "normal", "bernoulli", "exponential",
           "gumbel", "categorical", "truncated_normal"]

_FLOATS = ("float32", "float64")


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
