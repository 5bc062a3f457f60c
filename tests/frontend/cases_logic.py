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
    # on integers, bit by bit; mixed integer dtypes promote as numpy's do
    *[NumpyCase(name, lambda rng: (rng.integers(-99, 99, (3, 4)), rng.integers(-99, 99, 4).astype("int32")),
                label="int-mixed") for name in ("bitwise_and", "bitwise_or", "bitwise_xor")],
    NumpyCase("invert", lambda rng: (rng.integers(-99, 99, (3, 2)).astype("int32"),), label="int32"),
    NumpyCase("left_shift", lambda rng: (rng.integers(-99, 99, (2, 3)), 3), label="int-by-scalar"),
    NumpyCase("right_shift", lambda rng: (rng.integers(-2**40, 2**40, 5), rng.integers(0, 66, 5)), label="int"),
    # numpy's bitwise_count is uint8; frame has no unsigned dtypes and keeps the operand's
    NumpyCase("bitwise_count", lambda rng: (rng.integers(-2**62, 2**62, (2, 3)),),
              reference=lambda x: np.bitwise_count(x).astype(x.dtype)),
    NumpyCase("bitwise_count", lambda rng: (rng.integers(-2**31, 2**31, 5).astype("int32"),), label="int32",
              reference=lambda x: np.bitwise_count(x).astype(x.dtype)),
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


# -- choose, compress, piecewise -----------------------------------------------------------------------
def _indices(rng, shape, n, lo=0):
    return rng.integers(lo, n, shape)


def _pieces(x):
    """A piecewise function's arguments for x: conditions (the later wins), functions and constants."""
    return [x < -0.3, x > 0.2, x > 0.6], [lambda v: -v, lambda v: v * v, 0.25, lambda v: 2.0 * v + 1.0]


CASES += [
    # mode='raise' checks a's values: a list keeps `a` concrete in the compiled run too
    NumpyCase("choose", lambda rng: (_indices(rng, (3, 4), 3).tolist(), [uniform(rng, (3, 4)), uniform(rng, (4,)), 2.5]),
              label="raise"),
    NumpyCase("choose", lambda rng: (_indices(rng, (3, 4), 3).tolist(), uniform(rng, (3, 3, 4))), label="raise-array",
              wrt=(1,)),
    NumpyCase("choose", lambda rng: (_indices(rng, (2, 1), 7, -7), uniform(rng, (3, 4))), {"mode": "wrap"},
              label="wrap-broadcast", wrt=(1,)),
    NumpyCase("choose", lambda rng: (_indices(rng, (3, 4), 5, -3), uniform(rng, (2, 1, 4))), {"mode": "clip"},
              label="clip", wrt=(1,)),
    NumpyCase("choose", lambda rng: (_indices(rng, (4,), 2).astype("int32"), [uniform(rng, (4,), "int32"),
                                                                             uniform(rng, (4,), "float32")]),
              {"mode": "wrap"}, label="int32-float32"),
    NumpyCase("choose", lambda rng: (_mask(rng, (2, 3)), [uniform(rng, (3,), "int64"), 7]), {"mode": "clip"},
              label="bool-index"),
    NumpyCase("choose", lambda rng: (np.zeros((0, 3), "int64"), uniform(rng, (2, 3))), {"mode": "wrap"}, label="empty"),
    NumpyCase("choose", lambda rng: (np.array(1), uniform(rng, (3,))), {"mode": "clip"}, label="rank0"),
    *[NumpyCase("compress", make, kw, label=lb, wrt=wrt) for make, kw, lb, wrt in [
        (lambda rng: ([1, 0, 1], uniform(rng, (3, 4))), {"axis": 0}, "axis0", (1,)),
        (lambda rng: ([True, False, True, True], uniform(rng, (3, 4))), {"axis": -1}, "negative-axis", (1,)),
        (lambda rng: ([0, 1, 2.5], uniform(rng, (2, 3))), {}, "flattened-short", (1,)),
        (lambda rng: ([False, False], uniform(rng, (2, 3), "int32")), {"axis": 0}, "none", ()),
        (lambda rng: ([True], uniform(rng, (1, 0))), {"axis": 0}, "empty", ()),
        (lambda rng: ([True, False], uniform(rng, (2,), "bool")), {}, "bool", ())]],
    NumpyCase("piecewise", lambda rng: (lambda x: (x, *_pieces(x)))(uniform(rng, (3, 4))), label="otherwise", wrt=(0,)),
    NumpyCase("piecewise", lambda rng: (lambda x: (x, _pieces(x)[0], _pieces(x)[1][:3]))(uniform(rng, (7,))),
              label="zero-elsewhere", wrt=(0,)),
    NumpyCase("piecewise", lambda rng: (lambda x: (x, np.stack(_pieces(x)[0]), _pieces(x)[1]))(uniform(rng, (6,))),
              label="traced-conditions", wrt=(0,)),
    NumpyCase("piecewise", lambda rng: (lambda x: (x, x > 0, [lambda v, k: k * v, 1.5], 3.0))(uniform(rng, (5,))),
              label="one-condition-args", wrt=(0,)),
    NumpyCase("piecewise", lambda rng: (lambda x: (x, [x < 0], [lambda v, k=1.0: k * v]))(uniform(rng, (2, 3))),
              {"k": -2.0}, label="keywords", wrt=(0,)),
    NumpyCase("piecewise", lambda rng: (np.array(-0.5), [True, False], [lambda v: v - 1, 4.0]), label="rank0", wrt=(0,)),
    NumpyCase("piecewise", lambda rng: (lambda x: (x, [x < 0, x > 2], [2.7, lambda v: v * 3]))(uniform(rng, (6,), "int64")),
              label="int64"),
    NumpyCase("piecewise", lambda rng: (lambda x: (x, [x < 0], [lambda v: -v]))(uniform(rng, (0, 2))), label="empty"),
]

# -- tests of values and of objects -----------------------------------------------------------------------
_OBJECTS = [("array", lambda rng: uniform(rng, (2, 3))), ("rank0", lambda rng: np.array(1.5)),
            ("complex-array", lambda rng: uniform(rng, (3,), "complex64")), ("float", lambda rng: 2.5),
            ("complex", lambda rng: 1j), ("numpy-scalar", lambda rng: np.float32(1.0)), ("list", lambda rng: [1, 2j]),
            ("str", lambda rng: "abc"), ("empty", lambda rng: uniform(rng, (0,)))]

CASES += [
    *[NumpyCase("array_equiv", make, label=lb) for make, lb in [
        (lambda rng: (np.arange(3), np.tile(np.arange(3), (2, 1))), "broadcast-equal"),
        (lambda rng: (np.arange(3), np.array([[0, 1, 2], [0, 1, 3]])), "broadcast-differ"),
        (lambda rng: (np.arange(3), np.arange(4)), "no-broadcast"),
        (lambda rng: (_EDGES, _EDGES.copy()), "nan"),
        (lambda rng: (uniform(rng, (0, 3)), uniform(rng, (3,))), "empty"),
        (lambda rng: (np.float32([1.5, 2.0]), [1.5, 2.0]), "float32-list")]],
    *[NumpyCase(name, make, label=lb) for name in ("isneginf", "isposinf") for make, lb in [
        (lambda rng: (_EDGES,), "float64"), (lambda rng: (_EDGES.astype("float32"),), "float32"),
        (lambda rng: (uniform(rng, (2, 3), "int64"),), "int64"), (lambda rng: (uniform(rng, (3,), "bool"),), "bool"),
        (lambda rng: (-np.inf,), "number"), (lambda rng: (uniform(rng, (0, 2)),), "empty")]],
    *[NumpyCase(name, make, label=lb) for name in ("isreal", "iscomplex") for make, lb in [
        (lambda rng: (np.array([1 + 0j, 2j, np.nan + 0j, -0.0 + 0j, 1e-300j]),), "complex128"),
        (lambda rng: (uniform(rng, (2, 3), "complex64"),), "complex64"),
        (lambda rng: (_EDGES,), "float64"), (lambda rng: (uniform(rng, (2, 3), "int32"),), "int32"),
        (lambda rng: (3.0,), "number"), (lambda rng: ([1, 2j],), "list")]],
    *[NumpyCase(name, lambda rng, make=make: (make(rng),), label=lb)
      for name in ("isrealobj", "iscomplexobj", "isscalar", "iterable") for lb, make in _OBJECTS],
]
