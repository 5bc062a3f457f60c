"""Counter-based random numbers: JAX's threefry2x32 PRNG as ops, so random draws live in the graph (a traced,
compiled or vmapped function takes a key and gets the same numbers every run) and equal jax.random's bit for bit.

A key is an int64 array of shape (..., 2) holding JAX's two uint32 words (frame has no unsigned dtype); leading
axes are a batch of keys, each drawn from independently, as `jax.vmap` over keys gives. The ops, all of keys
only (integers: no derivative), with jax.random's default (partitionable) threefry:

- `random_split` (attr `shape`): new keys (..., *shape, 2), the hash of the key with the counter 0, 1, ...
  over `shape` as a 64-bit index split into (hi, lo) words;
- `random_fold_in` (key, data): the hash of the key with the counter (0, data mod 2^32);
- `random_bits` (attr `shape`): 32 random bits per element, int64 in [0, 2^32): the two hash words xored;
- `random_uniform` (attrs `shape`, `dtype`): floats in [0, 1), the top mantissa bits of 32 (float32) or 64
  (float64: the two words joined) random bits under the exponent of 1, minus 1;
- `random_randint` (keys, minval, maxval; attrs `shape`, `dtype` int32 or int64): integers in [minval, maxval),
  jax.random.randint's algorithm, whose unsigned arithmetic (two draws of 32 or 64 bits from the key split in
  two, reduced mod the span with a 2^nbits mod span multiplier) frame's graph has no dtype for, so it lives in
  the kernel; minval and maxval are int64 of the output's full shape (..., *shape), clipped to `dtype`'s range.

frame.random builds uniform, normal, bernoulli, ... on these with JAX's formulas.
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..ir.registry import NodeContext, register_op
from ..ir.types import TensorType
from ..tracing import bind, traced_gradient
from .batching_rules import materialize, traced_batch

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = np.uint32(0x1BD11BDA)


def _rotate_left(x, r: int):
    return (x << np.uint32(r)) | (x >> np.uint32(32 - r))


def threefry2x32(k1, k2, x1, x2):
    """The Threefry-2x32 hash (20 rounds) of counters (x1, x2) under keys (k1, k2); uint32 arrays broadcast."""
    with np.errstate(over="ignore"):
        ks = (k1, k2, k1 ^ k2 ^ _PARITY)
        x = [x1 + ks[0], x2 + ks[1]]
        for i in range(5):
            for r in _ROTATIONS[i % 2]:
                x[0] = x[0] + x[1]
                x[1] = _rotate_left(x[1], r) ^ x[0]
            x[0] = x[0] + ks[(i + 1) % 3]
            x[1] = x[1] + ks[(i + 2) % 3] + np.uint32(i + 1)
    return x[0], x[1]


def _words(keys: np.ndarray, shape: tuple):
    """The key words broadcast against the counters of `shape`: k1, k2 of shape (..., 1, ..., 1)."""
    k = keys.astype(np.uint32)
    pad = (1,) * len(shape)
    return k[..., 0].reshape(k.shape[:-1] + pad), k[..., 1].reshape(k.shape[:-1] + pad)


def _hash_counters(keys: np.ndarray, shape: tuple):
    """Both hash words of every key with the 64-bit counters 0 .. prod(shape) - 1 laid out over `shape`."""
    index = np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.uint64).reshape(shape)
    hi, lo = (index >> np.uint64(32)).astype(np.uint32), (index & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    return threefry2x32(*_words(keys, shape), hi, lo)


def _split_kernel(keys, shape):
    b1, b2 = _hash_counters(keys, tuple(shape))
    return np.stack([b1, b2], axis=-1).astype(np.int64)


def _fold_in_kernel(keys, data):
    words = np.asarray(data).astype(np.int64).astype(np.uint32)   # mod 2^32, as jnp.asarray(data, 'uint32')
    k = keys.astype(np.uint32)
    b1, b2 = threefry2x32(k[..., 0], k[..., 1], np.zeros_like(words), words)
    return np.stack([b1, b2], axis=-1).astype(np.int64)


def _bits_kernel(keys, shape):
    b1, b2 = _hash_counters(keys, tuple(shape))
    return (b1 ^ b2).astype(np.int64)


_FLOAT_LAYOUT = {"float32": (np.uint32, 9, 0x3F800000), "float64": (np.uint64, 12, 0x3FF0000000000000)}


def _uniform_kernel(keys, shape, dtype):
    b1, b2 = _hash_counters(keys, tuple(shape))
    uint, shift, one = _FLOAT_LAYOUT[dtype]
    bits = b1 ^ b2 if uint is np.uint32 else (b1.astype(np.uint64) << np.uint64(32)) | b2.astype(np.uint64)
    mantissa = (bits >> uint(shift)) | uint(one)
    return mantissa.view(dtype) - np.array(1.0, dtype)


_INT_LAYOUT = {"int32": (np.uint32, 32), "int64": (np.uint64, 64)}


def _draw_bits(keys, shape, nbits: int):
    """jax.random.bits of width 32 (the hash words xored) or 64 (the words joined, high first)."""
    b1, b2 = _hash_counters(keys, shape)
    if nbits == 32:
        return b1 ^ b2
    return (b1.astype(np.uint64) << np.uint64(32)) | b2.astype(np.uint64)


def _rem(x, n):
    # XLA's unsigned remainder by 0 is x itself (numpy's is 0): a span that wrapped to 0 means the full range
    return np.where(n == 0, x, x % np.maximum(n, 1))


def _randint_kernel(keys, minval, maxval, shape, dtype):
    shape = tuple(shape)
    uint, nbits = _INT_LAYOUT[dtype]
    info = np.iinfo(dtype)
    minval, maxval = np.asarray(minval, np.int64), np.asarray(maxval, np.int64)
    out_of_range = maxval > info.max            # e.g. maxval 2^31 for int32: the span is one larger
    lo = np.clip(minval, info.min, info.max).astype(dtype)
    hi = np.clip(maxval, info.min, info.max).astype(dtype)
    sub = _split_kernel(keys, (2,))             # the key split in two: high draw, low draw
    higher, lower = _draw_bits(sub[..., 0, :], shape, nbits), _draw_bits(sub[..., 1, :], shape, nbits)
    with np.errstate(over="ignore"):
        span = hi.astype(uint) - lo.astype(uint)                     # maxval - minval mod 2^nbits
        span = np.where(hi <= lo, uint(1), span)                     # an empty range gives minval
        span = np.where(out_of_range & (hi > lo), span + uint(1), span)
        # 2^nbits mod span without overflow, as (2^(nbits/2) mod span)^2 mod span (wrapping as XLA's uint does)
        multiplier = _rem(np.full(span.shape, 2 ** (nbits // 2), uint), span)
        multiplier = _rem(multiplier * multiplier, span)
        offset = _rem(_rem(higher, span) * multiplier + _rem(lower, span), span)
        return np.asarray(lo + offset.astype(dtype), dtype)


# -- shapes --------------------------------------------------------------------------------------
def _keys(ctx: NodeContext) -> TensorType:
    k = ctx.input_types[0]
    if k.dtype not in ("int64", "int32") or k.rank < 1 or k.shape[-1] != 2:
        raise ShapeError(f"op '{ctx.op}': keys must be int64 of shape (..., 2) (frame.random.PRNGKey), got {k}")
    return k


def _sample_shape(ctx: NodeContext) -> tuple:
    shape = ctx.attrs["shape"]
    if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
        raise ShapeError(f"op '{ctx.op}': shape must be a tuple of sizes >= 0, got {shape!r}")
    return tuple(shape)


def _split_shape(ctx):
    k = _keys(ctx)
    return [TensorType(k.shape[:-1] + _sample_shape(ctx) + (2,), "int64", k.device)]


def _fold_in_shape(ctx):
    k, data = _keys(ctx), ctx.input_types[1]
    if data.dtype not in ("int64", "int32", "bool") or data.shape != k.shape[:-1]:
        raise ShapeError(f"op 'random_fold_in': data must be integers of the keys' batch shape {k.shape[:-1]}, got "
                         f"{data}")
    return [k]


def _bits_shape(ctx):
    k = _keys(ctx)
    return [TensorType(k.shape[:-1] + _sample_shape(ctx), "int64", k.device)]


def _uniform_shape(ctx):
    k = _keys(ctx)
    dtype = ctx.attrs["dtype"]
    if dtype not in _FLOAT_LAYOUT:
        raise ShapeError(f"op 'random_uniform': dtype must be float32 or float64, got {dtype!r}")
    return [TensorType(k.shape[:-1] + _sample_shape(ctx), dtype, k.device)]


def _randint_shape(ctx):
    k = _keys(ctx)
    dtype, out = ctx.attrs["dtype"], k.shape[:-1] + _sample_shape(ctx)
    if dtype not in _INT_LAYOUT:
        raise ShapeError(f"op 'random_randint': dtype must be int32 or int64, got {dtype!r}")
    for name, t in zip(("minval", "maxval"), ctx.input_types[1:]):
        if t.dtype != "int64" or t.shape != out:
            raise ShapeError(f"op 'random_randint': {name} must be int64 of the output's shape {out}, got {t}")
    return [TensorType(out, dtype, k.device)]


# -- JAX lowerings: jax.random on the wrapped key data, vmapped over the batch of keys ------------------------
def _per_key(J, keys, draw):
    keys = J.jnp.asarray(keys).astype("uint32")
    batch = keys.shape[:-1]
    flat = keys.reshape((-1, 2))
    out = J.jax.vmap(lambda k: draw(J.jax.random.wrap_key_data(k, impl="threefry2x32")))(flat)
    return out.reshape(batch + out.shape[1:])


def _split_jax(J, keys, shape):
    return _per_key(J, keys, lambda k: J.jax.random.key_data(J.jax.random.split(k, tuple(shape)))).astype("int64")


def _fold_in_jax(J, keys, data):
    keys = J.jnp.asarray(keys).astype("uint32")
    batch = keys.shape[:-1]
    out = J.jax.vmap(lambda k, d: J.jax.random.key_data(J.jax.random.fold_in(
        J.jax.random.wrap_key_data(k, impl="threefry2x32"), d)))(keys.reshape((-1, 2)),
                                                                  J.jnp.asarray(data).reshape(-1).astype("uint32"))
    return out.reshape(batch + (2,)).astype("int64")


def _bits_jax(J, keys, shape):
    return _per_key(J, keys, lambda k: J.jax.random.bits(k, tuple(shape), "uint32")).astype("int64")


def _uniform_jax(J, keys, shape, dtype):
    return _per_key(J, keys, lambda k: J.jax.random.uniform(k, tuple(shape), dtype))


def _randint_jax(J, keys, minval, maxval, shape, dtype):
    keys = J.jnp.asarray(keys).astype("uint32")
    batch, shape = keys.shape[:-1], tuple(shape)
    n = int(np.prod(batch, dtype=np.int64))
    out = J.jax.vmap(lambda k, lo, hi: J.jax.random.randint(J.jax.random.wrap_key_data(k, impl="threefry2x32"), shape,
                                                            lo, hi, dtype))(
        keys.reshape((n, 2)), J.jnp.reshape(minval, (n,) + shape), J.jnp.reshape(maxval, (n,) + shape))
    return out.reshape(batch + shape)


_NO_DERIVATIVE = traced_gradient(lambda ctx, xs, ys, gys: [None] * len(xs))   # integer keys and data
_SHAPE_ATTR = {"shape": ((tuple,), True)}
# leading axes of the keys (and fold_in's data) are a batch already: vmap adds one more, each key drawn alone
_BATCH = traced_batch(lambda ctx, xs, batched, size: [bind(ctx.op, *[materialize(x, b, size) for x, b in
                                                                      zip(xs, batched)], **ctx.attrs)])

register_op("random_split", shape=_split_shape, kernel=_split_kernel, num_inputs=1, attrs=_SHAPE_ATTR,
            gradient=_NO_DERIVATIVE, batch=_BATCH, jax=_split_jax,
            doc="new keys (..., *shape, 2) from keys (..., 2) (jax.random.split, threefry2x32)")
register_op("random_fold_in", shape=_fold_in_shape, kernel=_fold_in_kernel, num_inputs=2,
            gradient=_NO_DERIVATIVE, batch=_BATCH, jax=_fold_in_jax,
            doc="keys (..., 2) folded with integer data (...) (jax.random.fold_in)")
register_op("random_bits", shape=_bits_shape, kernel=_bits_kernel, num_inputs=1, attrs=_SHAPE_ATTR,
            gradient=_NO_DERIVATIVE, batch=_BATCH, jax=_bits_jax,
            doc="32 random bits per element as int64 in [0, 2^32) (jax.random.bits with uint32)")
register_op("random_uniform", shape=_uniform_shape, kernel=_uniform_kernel, num_inputs=1,
            attrs={**_SHAPE_ATTR, "dtype": ((str,), True)}, gradient=_NO_DERIVATIVE, batch=_BATCH, jax=_uniform_jax,
            doc="floats in [0, 1) of `dtype` (float32 or float64), jax.random.uniform's bits")
register_op("random_randint", shape=_randint_shape, kernel=_randint_kernel, num_inputs=3,
            attrs={**_SHAPE_ATTR, "dtype": ((str,), True)}, gradient=_NO_DERIVATIVE, batch=_BATCH, jax=_randint_jax,
            doc="integers in [minval, maxval) of `dtype` (int32 or int64), jax.random.randint's algorithm")
