"""numpy-agreement cases for frame.numpy's bit packing (numpy_names.py). numpy's bytes and bits are uint8, which
frame does not carry; frame gives the same values in int32, so the reference is numpy's result as int32."""
import numpy as np

from tests.frontend.numpy_cases import NumpyCase, uniform


def _packbits(a, **kwargs):
    return np.packbits(a, **kwargs).astype(np.int32)


def _unpackbits(a, **kwargs):
    return np.unpackbits(np.asarray(a).astype(np.uint8), **kwargs).astype(np.int32)


def _bytes(rng, shape, dtype="int64"):
    return rng.integers(0, 256, shape).astype(dtype)


CASES = [
    *[NumpyCase("packbits", make, kw, label=lb, reference=_packbits) for make, kw, lb in [
        (lambda rng: (uniform(rng, (3, 11), "bool"),), {}, "bool-flat"),
        (lambda rng: (uniform(rng, (3, 11), "bool"),), {"axis": 1}, "bool-axis1"),
        (lambda rng: (uniform(rng, (9, 2, 3), "int32"),), {"axis": 0, "bitorder": "little"}, "int32-axis0-little"),
        (lambda rng: (uniform(rng, (2, 16), "int64"),), {"axis": -1}, "int64-exact-bytes"),
        (lambda rng: (uniform(rng, (), "bool"),), {}, "rank0"),
        (lambda rng: (uniform(rng, (0, 3), "bool"),), {"axis": 0}, "empty-axis"),
        (lambda rng: (uniform(rng, (2, 0), "int32"),), {}, "empty-flat")]],
    *[NumpyCase("unpackbits", make, kw, label=lb, reference=_unpackbits) for make, kw, lb in [
        (lambda rng: (_bytes(rng, (2, 3)),), {}, "flat"),
        (lambda rng: (_bytes(rng, (2, 3), "int32"),), {"axis": 1, "bitorder": "little"}, "axis1-little"),
        (lambda rng: (_bytes(rng, (3, 2)),), {"axis": 0, "count": 5}, "count-short"),
        (lambda rng: (_bytes(rng, (3, 2)),), {"axis": 0, "count": 30}, "count-past-end"),
        (lambda rng: (_bytes(rng, (3, 2)),), {"axis": -1, "count": -3}, "count-negative"),
        (lambda rng: (np.array([-1, -128, 300, 2**40 + 5]),), {}, "low-byte"),   # numpy's astype(uint8) byte
        (lambda rng: (uniform(rng, (4,), "bool"),), {}, "bool"),
        (lambda rng: (_bytes(rng, (0, 2)),), {"axis": 0}, "empty")]],
]
