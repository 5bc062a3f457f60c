"""numpy-agreement cases for frame.numpy's selection, clipping and casting (numpy_logic.py)."""
import numpy as np

from tests.frontend.numpy_cases import BROADCAST_SHAPES, UNARY_SHAPES, NumpyCase, uniform

DTYPES = ["bool", "int32", "int64", "float16", "float32", "float64"]


def _mask(rng, shape):
    return rng.random(shape) < 0.5


def _complex_specials(dtype):
    """nan, +-inf and finite values in every combination of real and imaginary part."""
    parts = np.array([np.nan, np.inf, -np.inf, 1.5, -0.0])
    z = np.empty((5, 5), dtype)
    z.real, z.imag = parts[:, None], parts[None, :]   # (1j * inf would make a nan real part)
    return z


CASES = [
    *[NumpyCase("where", lambda rng, a=a, b=b: (_mask(rng, a), uniform(rng, a), uniform(rng, b)), label=label, wrt=(1, 2))
      for a, b, label in BROADCAST_SHAPES],
    *[NumpyCase("where", lambda rng, d=d: (_mask(rng, (2, 3)), uniform(rng, (2, 3), d), uniform(rng, (3,), "float32")),
                label=f"{d}-f32") for d in DTYPES],
    *[NumpyCase("where", lambda rng, c=c: (c, uniform(rng, (2, 3)), 0.5), label=f"python-{c}", wrt=(1,))
      for c in (True, False, 0, 2.5)],
    NumpyCase("where", lambda rng: (uniform(rng, (2, 3), "int64"), 1.5, uniform(rng, (3,))), label="int-cond",
              wrt=(2,)),
    NumpyCase("select", lambda rng: ([uniform(rng, (4,)) > 0.3, uniform(rng, (4,)) < 0], [uniform(rng, (4,)), 2.0]),
              {"default": -1.0}, label="two"),
    *[NumpyCase("clip", lambda rng, s=s: (uniform(rng, s, lo=-2, hi=2), -0.5, 1.0), label=label, wrt=(0,))
      for s, label in UNARY_SHAPES],
    NumpyCase("clip", lambda rng: (uniform(rng, (3, 4), lo=-2, hi=2), uniform(rng, (4,)) - 1, uniform(rng, (3, 1)) + 1),
              label="array-bounds", wrt=(0, 1, 2)),
    NumpyCase("clip", lambda rng: (uniform(rng, (5,), "int32"), None, 2), label="int-upper"),
    NumpyCase("clip", lambda rng: (uniform(rng, (5,), "float32"), 0.25, None), label="f32-lower"),
    NumpyCase("clip", lambda rng: (np.array([0.0, 1.0, 2.0]), 1.5, 0.5), label="min-above-max"),
    NumpyCase("nan_to_num", lambda rng: (np.array([np.nan, np.inf, -np.inf, 1.5, -0.0]),), label="f64"),
    NumpyCase("nan_to_num", lambda rng: (np.array([np.nan, np.inf, -np.inf, 1.5], np.float32),),
              {"nan": 7.0, "posinf": 9.0, "neginf": -9.0}, label="f32-values"),
    NumpyCase("nan_to_num", lambda rng: (uniform(rng, (3,), "int64"),), label="int"),
    NumpyCase("nan_to_num", lambda rng: (uniform(rng, (2, 3)),), label="finite", wrt=(0,)),
    # complex: the real and imaginary parts are replaced separately
    NumpyCase("nan_to_num", lambda rng: (_complex_specials("complex128"),), label="c128"),
    NumpyCase("nan_to_num", lambda rng: (_complex_specials("complex64"),), {"nan": 7.0, "posinf": 9.0, "neginf": -9.0},
              label="c64-values"),
    NumpyCase("nan_to_num", lambda rng: (uniform(rng, (0, 2), "complex128"),), label="c128-empty"),
    # abs of complex values: the modulus, in the parts' real dtype (the real cases are the op's OpCases)
    *[NumpyCase("abs", lambda rng, s=s: (uniform(rng, s, "complex128"),), label=f"c128-{lb}") for s, lb in UNARY_SHAPES],
    NumpyCase("absolute", lambda rng: (uniform(rng, (2, 3), "complex64"),), label="c64"),
    NumpyCase("abs", lambda rng: (_complex_specials("complex128"),), label="c128-specials"),
    *[NumpyCase("astype", lambda rng, d=d: (uniform(rng, (2, 3), lo=-3, hi=3), d), label=f"f64-{d}",
                reference=lambda x, d: x.astype(d)) for d in DTYPES],
    *[NumpyCase("astype", lambda rng, d=d: (uniform(rng, (4,), d), "float32"), label=f"{d}-f32",
                reference=lambda x, d: x.astype(d)) for d in DTYPES],
    NumpyCase("astype", lambda rng: (uniform(rng, (0, 2)), "float32"), label="empty", reference=lambda x, d: x.astype(d)),
    *[NumpyCase(name, lambda rng: (_mask(rng, (3, 4)), _mask(rng, (4,))), label="bool")
      for name in ("bitwise_and", "bitwise_or", "bitwise_xor")],
    NumpyCase("invert", lambda rng: (_mask(rng, (3, 2)),), label="bool"),
    NumpyCase("bitwise_not", lambda rng: (_mask(rng, (0, 2)),), label="empty"),
]
_EDGES = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.5, -2.0, 1e-9])

CASES += [
    NumpyCase("isclose", lambda rng: (_EDGES, _EDGES + 1e-7), label="specials"),
    NumpyCase("isclose", lambda rng: (_EDGES, _EDGES), {"equal_nan": True}, label="equal-nan"),
    NumpyCase("isclose", lambda rng: (uniform(rng, (3, 4)), uniform(rng, (4,))), {"rtol": 0.5, "atol": 0.1},
              label="broadcast"),
    NumpyCase("isclose", lambda rng: (uniform(rng, (5,), "int64"), uniform(rng, (5,), "int64")), {"atol": 1},
              label="int64"),
    NumpyCase("isclose", lambda rng: (uniform(rng, (5,), "float32"), 0.5), {"atol": 0.3}, label="float32-scalar"),
    *[NumpyCase("allclose", make, kw, label=lb) for make, kw, lb in [
        (lambda rng: (_EDGES, _EDGES), {}, "nan"), (lambda rng: (_EDGES, _EDGES), {"equal_nan": True}, "equal-nan"),
        (lambda rng: (uniform(rng, (3,)), uniform(rng, (3,)) + 1e-9), {}, "close")]],
    *[NumpyCase("array_equal", make, kw, label=lb) for make, kw, lb in [
        (lambda rng: (_EDGES, _EDGES.copy()), {}, "nan"), (lambda rng: (_EDGES, _EDGES.copy()), {"equal_nan": True}, "equal-nan"),
        (lambda rng: (uniform(rng, (2, 3), "int32"), uniform(rng, (3,), "int32")), {}, "shapes"),
        (lambda rng: (np.arange(4), np.arange(4)), {}, "equal")]],
]
