"""numpy-agreement cases for frame.numpy's array creation (frame/frontend/numpy_creation.py).

Array arguments are traced in the compiled runs: `full`'s fill value and `linspace`'s end points
then enter as traced values (broadcast; computed by numpy's formula), `*_like`'s operand as a traced
value whose shape and dtype alone matter.
"""
import numpy as np

from tests.frontend.numpy_cases import UNARY_SHAPES, NumpyCase, uniform

DTYPES = ["float64", "float32", "int32", "int64", "bool", "complex128"]


def _scalar(value, dtype="float64"):
    return lambda rng: (np.asarray(value, dtype),)


CASES = [
    *[NumpyCase(name, lambda rng, s=s: (s,), {"dtype": dt}, label=f"{s}-{dt}")
      for name in ("zeros", "ones") for s in [(3, 4), (), (0, 2), 5] for dt in (None, "float32", "int64", "bool")],
    NumpyCase("empty", lambda rng: ((2, 3),), reference=np.zeros, label="zeros"),
    NumpyCase("empty_like", lambda rng: (uniform(rng, (2, 3), "int32"),), reference=np.zeros_like, label="zeros"),
    *[NumpyCase(name, lambda rng, s=s, dt=dt: (uniform(rng, s, dt),), label=f"{s}-{dt}")
      for name in ("zeros_like", "ones_like") for s, _ in UNARY_SHAPES for dt in DTYPES],
    *[NumpyCase(name, lambda rng: (uniform(rng, (2, 3)),), {"dtype": "int32", "shape": (4,)}, label="overrides")
      for name in ("zeros_like", "ones_like")],
    *[NumpyCase("full", lambda rng, v=v: ((2, 3), v), kw, label=lb) for v, kw, lb in
      [(1.5, {}, "float"), (2, {}, "int"), (True, {}, "bool"), (2.5, {"dtype": "float32"}, "dtype")]],
    NumpyCase("full", lambda rng: ((2, 3), uniform(rng, ())), label="traced-fill", wrt=(1,)),
    NumpyCase("full", lambda rng: ((0, 3), uniform(rng, ())), label="traced-fill-empty"),
    NumpyCase("full", lambda rng: ((2, 3), uniform(rng, (3,))), label="traced-row", wrt=(1,)),
    NumpyCase("full_like", lambda rng: (uniform(rng, (2, 2), "int32"), uniform(rng, ())), label="traced-fill-cast"),
    NumpyCase("full_like", lambda rng: (uniform(rng, (2, 2)), 3.0), {"shape": (3,)}, label="shape"),
    *[NumpyCase("arange", lambda rng, a=a: a, kw, label=lb) for a, kw, lb in
      [((5,), {}, "stop"), ((1, 7, 2), {}, "step"), ((1.0, 2.0, 0.25), {}, "float"), ((5, 1, -1), {}, "negative"),
       ((3,), {"dtype": "float32"}, "dtype"), ((0,), {}, "empty"), ((2.5,), {}, "float-stop")]],
    *[NumpyCase("linspace", lambda rng, a=a: a, kw, label=lb) for a, kw, lb in
      [((0.0, 1.0), {}, "default"), ((-2.0, 3.0, 7), {"endpoint": False}, "open"), ((1, 5, 5), {}, "ints"),
       ((0.0, 1.0, 1), {}, "one"), ((0.0, 1.0, 0), {}, "none"), ((0.0, 10.0, 6), {"dtype": "int64"}, "int-dtype"),
       ((np.zeros(2), np.ones(2), 3), {"axis": 0}, "arrays")]],
    NumpyCase("linspace", lambda rng: (uniform(rng, ()), uniform(rng, ()) + 2.0, 6), label="traced", wrt=(0, 1)),
    NumpyCase("linspace", lambda rng: (uniform(rng, ()), 3.0, 5), {"endpoint": False}, label="traced-open", wrt=(0,)),
    NumpyCase("linspace", lambda rng: (uniform(rng, (), "float32"), np.asarray(2.0, "float32"), 4), label="traced-f32"),
    NumpyCase("linspace", lambda rng: (uniform(rng, ()), 4.0, 6), {"dtype": "int64"}, label="traced-int"),
    *[NumpyCase("eye", lambda rng, a=a: a, kw, label=lb) for a, kw, lb in
      [((3,), {}, "square"), ((2, 4), {}, "wide"), ((4, 3, 1), {}, "k1"), ((3, 3, -2), {}, "k-2"),
       ((3,), {"dtype": "int32"}, "int32"), ((0,), {}, "empty")]],
    *[NumpyCase("identity", lambda rng, n=n: (n,), {"dtype": dt}, label=f"{n}-{dt}") for n in (1, 3) for dt in (None, "float32")],
    *[NumpyCase(name, lambda rng, s=s, dt=dt: (uniform(rng, s, dt),), label=f"{s}-{dt}")
      for name in ("asarray", "array") for s, _ in UNARY_SHAPES for dt in ("float64", "int32")],
    NumpyCase("asarray", lambda rng: (uniform(rng, (2, 3)),), {"dtype": "float32"}, label="cast"),
    NumpyCase("asarray", lambda rng: (uniform(rng, (2, 3), "int64"),), {"dtype": "float64"}, label="int-to-float"),
    NumpyCase("asarray", lambda rng: ([[1, 2], [3, 4]],), label="list"),
    NumpyCase("asarray", lambda rng: ([1.5, 2],), {"dtype": "float32"}, label="list-dtype"),
]
CASES += [
    *[NumpyCase("logspace", lambda rng, a=a: a, kw, label=lb) for a, kw, lb in
      [((0, 2, 5), {}, "decades"), ((0, 3, 4), {"base": 2.0, "endpoint": False}, "base2-open"),
       ((1, -1, 3), {"dtype": "float32"}, "float32")]],
    NumpyCase("logspace", lambda rng: (uniform(rng, ()), 2.0, 4), label="traced", wrt=(0,)),
]
CASES += [
    *[NumpyCase("geomspace", lambda rng, a=a: a, kw, label=lb) for a, kw, lb in
      [((1, 1000, 4), {}, "decades"), ((-1, -16, 5), {}, "negative"), ((2, 32, 4), {"endpoint": False, "dtype": "float32"},
                                                                       "open-float32")]],
]
CASES += [
    *[NumpyCase(name, lambda rng, a=a: a, kw, label=lb) for name, a, kw, lb in [
        ("tri", (3,), {}, "square"), ("tri", (2, 4, 1), {"dtype": "int32"}, "k1-int32"),
        ("tril_indices", (4,), {}, "n4"), ("tril_indices", (3, -1, 4), {}, "k-m"),
        ("triu_indices", (4, 1), {}, "k1"), ("diag_indices", (3,), {}, "n3"), ("diag_indices", (2, 3), {}, "ndim3"),
        ("indices", ((2, 3),), {}, "2d")]],
]
CASES += [
    # ix_: array arguments are traced in the compiled run (reshaped); boolean masks must be concrete, so they are lists
    *[NumpyCase("ix_", lambda rng, a=a: a, label=lb) for a, lb in [
        ((np.array([1, 2]), np.array([0, 3, 1], np.int32)), "ints"), (([True, False, True], np.array([2])), "mask"),
        ((np.array([0, 4]),), "one"), (([], np.zeros(0, np.int32)), "empty"), ((), "none"),
        ((np.array([1, -1]), np.array([0]), np.array([2, 0, 1])), "three")]],
    *[NumpyCase(name, lambda rng, s=s: (uniform(rng, s),), kw, label=lb) for name, s, kw, lb in [
        ("diag_indices_from", (3, 3), {}, "2d"), ("diag_indices_from", (2, 2, 2), {}, "3d"),
        ("diag_indices_from", (0, 0), {}, "empty"), ("tril_indices_from", (3, 4), {}, "wide"),
        ("tril_indices_from", (4, 3), {"k": -1}, "k-1"), ("triu_indices_from", (3, 3), {"k": 1}, "k1"),
        ("triu_indices_from", (0, 2), {}, "empty")]],
    *[NumpyCase("mask_indices", lambda rng, a=a: a, label=lb) for a, lb in [
        ((4, np.triu), "triu"), ((3, np.tril, -1), "tril-k"), ((0, np.triu), "empty")]],
    *[NumpyCase("unravel_index", lambda rng, i=i, s=s: (i, s), kw, label=lb) for i, s, kw, lb in [
        (np.array([1, 5, 0, 3]), (2, 3), {}, "C"), (np.array([[1, 23], [0, 7]], np.int32), (2, 3, 4), {"order": "F"}, "F-int32"),
        (np.array(4), (2, 3), {}, "scalar"), (np.zeros(0, np.int64), (2, 3), {}, "empty"), (np.array([0, 2]), (3,), {}, "1d"),
        (np.array([0, 1]), (1, 2, 1), {}, "size1"), (5, 6, {}, "int-shape")]],
    # multi_index as a tuple stays concrete (numpy's 'raise' check runs); as a 2-d array it is traced ('wrap', 'clip')
    *[NumpyCase("ravel_multi_index", lambda rng, m=m, d=d: (m, d), kw, label=lb) for m, d, kw, lb in [
        ((np.array([1, 2]), np.array([0, 3])), (3, 4), {}, "raise"),
        ((np.array([1, 2]), np.array([[0], [3]])), (3, 4), {"order": "F"}, "raise-F-broadcast"),
        (np.array([[1, 2, -1, 7], [0, 5, 2, -9]]), (3, 4), {"mode": "wrap"}, "wrap"),
        (np.array([[1, 2, -1, 7], [0, 5, 2, -9]], np.int32), (3, 4), {"mode": "clip", "order": "F"}, "clip-F-int32"),
        (np.array([[1, 2, -1], [0, 5, 2], [3, 0, 1]]), (2, 3, 4), {"mode": ("clip", "wrap", "clip")}, "per-axis"),
        (np.zeros((2, 0), np.int64), (3, 4), {"mode": "wrap"}, "empty"), (np.array([[4], [2]]), (1, 3), {"mode": "clip"}, "size1")]],
    *[NumpyCase("fromfunction", lambda rng, s=s: (lambda i, j: i * 10 + j, s), kw, label=lb) for s, kw, lb in [
        ((2, 3), {}, "float"), ((2, 3), {"dtype": int}, "int"), ((0, 2), {}, "empty")]],
    NumpyCase("fromfunction", lambda rng: (lambda i, scale: scale * i, (4,)), {"scale": 2.5}, label="kwargs"),
    *[NumpyCase(name, lambda rng, s=s, dt=dt: (uniform(rng, s, dt),), kw, label=f"{s}-{dt}-{kw}", wrt=(0,) if dt == "float64" else ())
      for name in ("ascontiguousarray", "asfortranarray") for s in [(2, 3), (), (0, 2)] for dt in ("float64", "int32", "bool")
      for kw in ({}, {"dtype": "float32"})],
    *[NumpyCase(name, lambda rng: ([[1, 2], [3, 4]],), label="list") for name in ("ascontiguousarray", "asfortranarray")],
]
