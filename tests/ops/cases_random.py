"""Op cases for the threefry2x32 random ops (frame/ops/random.py). The references lay the counters out one
element at a time with Python loops around the op module's hash (which tests/frontend/test_random.py holds to
Random123's known-answer vectors, and the ops to jax.random bit for bit); keys are random words, batched too.
`random_randint`'s reference redoes jax.random.randint's unsigned arithmetic with Python integers reduced
mod 2^nbits by hand. Integer keys: no derivatives (wrt=())."""
from __future__ import annotations

import numpy as np

from frame.ops.random import threefry2x32
from tests.ops.cases import OpCase, _ins


def _keys(*batch):
    return lambda rng, dt: rng.integers(0, 2 ** 32, batch + (2,), dtype=np.int64)


def _hash(key, index: int):
    words = [np.uint32(w) for w in key]
    return threefry2x32(words[0], words[1], np.uint32(index >> 32), np.uint32(index & 0xFFFFFFFF))


def _per_element(keys, shape, value):
    """value(key, flat index) at every key of the batch and every element of `shape`."""
    out = np.empty(keys.shape[:-1] + tuple(shape), dtype=object)
    for b in np.ndindex(*keys.shape[:-1]):
        for i, e in enumerate(np.ndindex(*shape)):
            out[b + e] = value(keys[b], i)
    return out


def _split(keys, shape):
    pairs = _per_element(keys, shape, lambda k, i: [int(w) for w in _hash(k, i)])
    return np.array(pairs.tolist(), dtype=np.int64).reshape(keys.shape[:-1] + tuple(shape) + (2,))


def _bits(keys, shape):
    return _per_element(keys, shape, lambda k, i: int(np.bitwise_xor(*_hash(k, i)))).astype(np.int64)


def _uniform(keys, shape, dtype):
    def value(k, i):
        hi, lo = (int(w) for w in _hash(k, i))
        if dtype == "float32":
            return ((hi ^ lo) >> 9) / 2.0 ** 23          # the top 23 bits as the fraction of [0, 1)
        return (((hi << 32) | lo) >> 12) / 2.0 ** 52
    return _per_element(keys, shape, value).astype(dtype)


def _fold_in(keys, data):
    out = np.empty(keys.shape, dtype=np.int64)
    for b in np.ndindex(*keys.shape[:-1]):
        words = [np.uint32(w) for w in keys[b]]
        out[b] = [int(w) for w in threefry2x32(words[0], words[1], np.uint32(0), np.uint32(int(data[b]) % 2 ** 32))]
    return out


def _randint(keys, minval, maxval, shape, dtype):
    nbits = {"int32": 32, "int64": 64}[dtype]
    info, wrap = np.iinfo(dtype), 2 ** nbits

    def value(key, i, lo, hi):
        sub = [_hash(key, j) for j in (0, 1)]                   # split(key) into the high and the low draw
        draw = []
        for k in sub:
            w1, w2 = (int(w) for w in _hash(k, i))
            draw.append(w1 ^ w2 if nbits == 32 else (w1 << 32) | w2)
        clip_lo, clip_hi = min(max(lo, info.min), info.max), min(max(hi, info.min), info.max)
        span = (clip_hi - clip_lo) % wrap
        if clip_hi <= clip_lo:
            span = 1
        elif hi > info.max:
            span = (span + 1) % wrap
        rem = (lambda x: x % span) if span else (lambda x: x)   # XLA: x rem 0 is x
        multiplier = rem(rem(2 ** (nbits // 2)) ** 2 % wrap)
        offset = rem((rem(draw[0]) * multiplier % wrap + rem(draw[1])) % wrap)
        out = (clip_lo + offset) % wrap
        return out - wrap if out > info.max else out

    out = np.empty(keys.shape[:-1] + tuple(shape), dtype=object)
    for b in np.ndindex(*keys.shape[:-1]):
        for i, e in enumerate(np.ndindex(*shape)):
            out[b + e] = value(keys[b], i, int(minval[b + e]), int(maxval[b + e]))
    return out.astype(dtype)


def _bounds(shape, lo, hi):
    return lambda rng, dt: rng.integers(lo, hi, shape, dtype=np.int64)


CASES = [
    OpCase("random_split", _ins(_keys()), _split, {"shape": (3,)}, wrt=(), label="one-key"),
    OpCase("random_split", _ins(_keys(2)), _split, {"shape": (2, 2)}, wrt=(), label="batched"),
    OpCase("random_bits", _ins(_keys()), _bits, {"shape": (2, 3)}, wrt=(), label="one-key"),
    OpCase("random_bits", _ins(_keys(3)), _bits, {"shape": (4,)}, wrt=(), label="batched"),
    OpCase("random_uniform", _ins(_keys()), _uniform, {"shape": (2, 3), "dtype": "float64"}, wrt=(), label="f64"),
    OpCase("random_uniform", _ins(_keys(2)), _uniform, {"shape": (5,), "dtype": "float32"}, wrt=(), label="f32"),
    OpCase("random_fold_in", _ins(_keys(), lambda rng, dt: np.array(2 ** 33 + 7, np.int64)), _fold_in, wrt=(),
           label="one-key-wide-data"),
    OpCase("random_fold_in", _ins(_keys(3), lambda rng, dt: rng.integers(-5, 2 ** 40, (3,), dtype=np.int64)),
           _fold_in, wrt=(), label="batched"),
    OpCase("random_randint", _ins(_keys(), _bounds((2, 3), -50, 50), _bounds((2, 3), -50, 2 ** 40)), _randint,
           {"shape": (2, 3), "dtype": "int32"}, wrt=(), label="int32"),
    OpCase("random_randint", _ins(_keys(2), _bounds((2, 4), -2 ** 62, 0), _bounds((2, 4), -9, 2 ** 62)), _randint,
           {"shape": (4,), "dtype": "int64"}, wrt=(), label="int64-batched"),
]
