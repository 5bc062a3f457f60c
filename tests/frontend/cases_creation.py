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
