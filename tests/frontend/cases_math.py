"""numpy-agreement cases for frame.numpy's elementwise math: the hand-written `power`/`pow` (a number,
0-d or array exponent) and `round`/`around`, and the generated functions over broadcasting, empty and
size-1 shapes and each dtype numpy computes them in (ints promote to float64 as numpy's ufuncs do,
rounding and floor division keep them)."""
import numpy as np
from scipy import special

from tests.frontend.numpy_cases import BROADCAST_SHAPES, UNARY_SHAPES, NumpyCase, uniform


def _un(name, lo, hi, dtypes, reference=None):
    """`name` over UNARY_SHAPES in float64 (derivatives checked on the non-empty ones) and over `dtypes`."""
    return [*[NumpyCase(name, lambda rng, s=s: (uniform(rng, s, lo=lo, hi=hi),), label=lb, reference=reference,
                        wrt=(0,)) for s, lb in UNARY_SHAPES],
            *[NumpyCase(name, lambda rng, d=d: (uniform(rng, (2, 3), d, lo=lo, hi=hi),), label=d, reference=reference)
              for d in dtypes]]


def _bin(name, lo, hi, b_lo, b_hi, dtypes, wrt=(0, 1)):
    """`name` over BROADCAST_SHAPES in float64 and over `dtypes` (a pair of names: mixed operands)."""
    def args(rng, a, b, da="float64", db="float64"):
        return uniform(rng, a, da, lo=lo, hi=hi), uniform(rng, b, db, lo=b_lo, hi=b_hi)
    return [*[NumpyCase(name, lambda rng, a=a, b=b: args(rng, a, b), label=lb, wrt=wrt) for a, b, lb in BROADCAST_SHAPES],
            *[NumpyCase(name, lambda rng, d=d: args(rng, (2, 3), (3,), *((d, d) if isinstance(d, str) else d)),
                        label="-".join([d] if isinstance(d, str) else d)) for d in dtypes]]


def _divisors(rng, shape, dtype):
    """|b| in [0.5, 2] of both signs (ints: nonzero in [-4, 4])."""
    b = uniform(rng, shape, dtype, lo=0.5, hi=2.0) * rng.choice([-1, 1], shape).astype(dtype)
    return np.where(b == 0, np.asarray(3, dtype), b).astype(dtype)


def _division(name):
    def args(rng, a, b, dtype="float64"):
        return uniform(rng, a, dtype, lo=-3.0, hi=3.0), _divisors(rng, b, dtype)
    return [*[NumpyCase(name, lambda rng, a=a, b=b: args(rng, a, b), label=lb, wrt=(0, 1))
              for a, b, lb in BROADCAST_SHAPES],
            *[NumpyCase(name, lambda rng, d=d: args(rng, (2, 3), (3,), d), label=d)
              for d in ("float32", "int32", "int64")],
            NumpyCase(name, lambda rng: (uniform(rng, (2, 3), "int32", lo=-2, hi=2), uniform(rng, (3,), "float32")),
                      label="int32-float32")]


def _powers(name):
    return [
        *[NumpyCase(name, lambda rng, a=a, b=b: (uniform(rng, a, lo=0.2, hi=2.0), uniform(rng, b, lo=-2.0, hi=2.0)),
                    label=lb, wrt=(0, 1)) for a, b, lb in BROADCAST_SHAPES],
        NumpyCase(name, lambda rng: (uniform(rng, (2, 3), "float32", lo=0.2, hi=2.0),
                                     uniform(rng, (3,), "float32", lo=-2.0, hi=2.0)), label="float32"),
        NumpyCase(name, lambda rng: (uniform(rng, (2, 3), "float32", lo=0.2, hi=2.0),
                                     uniform(rng, (3,), "int32", lo=-0.6, hi=0.6)), label="float32-int32"),
        NumpyCase(name, lambda rng: (uniform(rng, (3, 4), lo=-2.0, hi=2.0), 3), label="int-exponent", wrt=(0,)),
        NumpyCase(name, lambda rng: (uniform(rng, (3, 4), lo=0.2, hi=2.0), -1.5), label="float-exponent", wrt=(0,)),
        NumpyCase(name, lambda rng: (uniform(rng, (0, 2), lo=0.2, hi=2.0), 2.0), label="empty-number", wrt=(0,)),
        NumpyCase(name, lambda rng: (uniform(rng, (3,), lo=0.2, hi=2.0), np.array(0.5)), label="0d-exponent"),
        NumpyCase(name, lambda rng: (2.0, uniform(rng, (2, 3))), label="number-base", wrt=(1,)),
        NumpyCase(name, lambda rng: (uniform(rng, (3,), lo=0.2, hi=2.0), [1.0, 2.0, -0.5]), label="list-exponent"),
    ]


def _rounds(name):
    shaped = [NumpyCase(name, lambda rng, s=s: (uniform(rng, s, lo=-50.0, hi=50.0),), {"decimals": d},
                        label=f"{lb}-{d}", wrt=(0,)) for s, lb in UNARY_SHAPES for d in (0, 2, -1)]
    typed = [NumpyCase(name, lambda rng, dt=dt: (uniform(rng, (3, 4), dt, lo=-60.0, hi=60.0),), {"decimals": d},
                       label=f"{dt}-{d}") for dt in ("float32", "int32", "int64") for d in (0, 1, -1, -2)]
    ties = NumpyCase(name, lambda rng: (np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.125, 0.375, 1e300, np.inf, np.nan]),),
                     {"decimals": 2}, label="ties")
    halves = NumpyCase(name, lambda rng: (np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -0.0]),), label="half-to-even")
    return shaped + typed + [ties, halves, NumpyCase(name, lambda rng: (np.array([15, 25, -35, 45]),), {"decimals": -1},
                                                     label="int-ties")]


CASES = [
    *_un("tan", -1.2, 1.2, ("float32", "int32")),
    *_un("arcsin", -0.2, 0.2, ("float32", "int32")), *_un("arccos", -0.2, 0.2, ("float32",)),
    *_un("arctan", -2.0, 2.0, ("float32", "int64")),
    *_un("sinh", -2.0, 2.0, ("float32", "int32")), *_un("cosh", -2.0, 2.0, ("float32",)),
    *_un("arcsinh", -3.0, 3.0, ("float32", "int32")), *_un("arccosh", 1.2, 3.0, ("float32", "int64")),
    *_un("arctanh", -0.9, 0.9, ("float32",)),
    *_un("log1p", -0.5, 2.0, ("float32", "int32")), *_un("expm1", -1.0, 1.0, ("float32", "int32")),
    *_un("exp2", -2.0, 2.0, ("float32", "int64")),
    *_un("log2", 0.2, 3.0, ("float32", "int32")), *_un("log10", 0.2, 3.0, ("float32", "int32")),
    *_un("reciprocal", 0.5, 2.0, ("float32",)), *_un("fabs", 0.2, 2.0, ("float32", "int32")),
    *_un("erf", -2.0, 2.0, ("float32",), reference=special.erf),
    *_un("erfc", -2.0, 2.0, ("float32",), reference=special.erfc),
    *_un("sinc", -2.0, 2.0, ("float32",)),
    *[c for name in ("floor", "ceil", "trunc", "fix", "rint")
      for c in _un(name, -3.0, 3.0, ("float32", "int32", "int64", "bool") if name != "rint" else ("float32", "int32"))],
    *_bin("arctan2", -1.0, 1.0, -1.0, 1.0, ("float32", ("int32", "float32"))),
    *_bin("hypot", -1.0, 1.0, -1.0, 1.0, ("float32",)),
    *_bin("logaddexp", -2.0, 2.0, -2.0, 2.0, ("float32",)),
    *_bin("logaddexp2", -2.0, 2.0, -2.0, 2.0, ("float32",)),
    *_division("mod"), *_division("remainder"), *_division("fmod"), *_division("floor_divide"),
    *_powers("power"), *_powers("pow"), *_rounds("round"), *_rounds("around"),
]
_SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.5, -2.0])


def _signed(rng, shape, dtype="float64"):
    """|x| in [0.2, 1] of both signs: away from cbrt's infinite derivative and copysign's kink at 0."""
    return (uniform(rng, shape, lo=0.2, hi=1.0) * rng.choice([-1.0, 1.0], shape)).astype(dtype)


def _knots(n):
    return np.cumsum(np.linspace(0.5, 1.5, n))


CASES += [
    *_bin("float_power", 0.5, 2.0, -2.0, 2.0, ("float32", "int64", ("int64", "float32"))),
    *[NumpyCase(name, lambda rng, s=s: (_signed(rng, s),), label=lb, wrt=(0,))
      for name in ("cbrt", "deg2rad", "radians", "rad2deg", "degrees") for s, lb in UNARY_SHAPES if 0 not in s],
    *[NumpyCase(name, lambda rng, d=d: (uniform(rng, (2, 3), d),), label=d)
      for name in ("cbrt", "deg2rad", "radians", "rad2deg", "degrees") for d in ("float32", "int32", "int64")],
    NumpyCase("cbrt", lambda rng: (np.array([-27.0, 8.0, 0.0, -0.0, np.inf]),), label="exact"),
    *[NumpyCase("signbit", lambda rng, d=d: (uniform(rng, (3, 4), d),), label=d)
      for d in ("float64", "float32", "int32", "int64", "bool")],
    NumpyCase("signbit", lambda rng: (_SPECIALS,), label="specials"),
    NumpyCase("copysign", lambda rng: (_signed(rng, (3, 4)), _signed(rng, (4,))), label="row", wrt=(0,)),
    NumpyCase("copysign", lambda rng: (_SPECIALS, _SPECIALS[::-1]), label="specials"),
    NumpyCase("copysign", lambda rng: (uniform(rng, (2, 3), "int64"), -1), label="int"),
    NumpyCase("copysign", lambda rng: (uniform(rng, (2, 3), "float32"), np.float32(-0.0)), label="float32"),
    *[NumpyCase(name, lambda rng: (uniform(rng, (3, 4)), uniform(rng, (4,))), label="row", wrt=(0, 1))
      for name in ("fmax", "fmin")],
    *[NumpyCase(name, lambda rng: (_SPECIALS, _SPECIALS[::-1]), label="specials") for name in ("fmax", "fmin")],
    *[NumpyCase(name, lambda rng: (uniform(rng, (2, 3), "int32"), 0), label="int32") for name in ("fmax", "fmin")],
    *[NumpyCase("diff", make, kw, label=lb, wrt=(0,) if diff else ()) for make, kw, lb, diff in [
        (lambda rng: (uniform(rng, (3, 5)),), {}, "last", True),
        (lambda rng: (uniform(rng, (4, 3)),), {"n": 2, "axis": 0}, "n2-axis0", True),
        (lambda rng: (uniform(rng, (3, 4)),), {"prepend": 0.0, "append": np.ones((3, 2))}, "prepend-append", True),
        (lambda rng: (uniform(rng, (3,)),), {"n": 0}, "n0", True),
        (lambda rng: (uniform(rng, (2, 4), "bool"),), {}, "bool", False),
        (lambda rng: (uniform(rng, (2, 4), "int32"),), {"axis": 0}, "int32", False),
        (lambda rng: (uniform(rng, (0, 3)),), {}, "empty", False)]],
    *[NumpyCase("gradient", make, kw, label=lb, wrt=(0,) if diff else ()) for make, kw, lb, diff in [
        (lambda rng: (uniform(rng, (4, 5)),), {}, "unit", True),
        (lambda rng: (uniform(rng, (4, 5)), 0.5, 2.0), {}, "spacings", True),
        (lambda rng: (uniform(rng, (4, 5)), 0.3), {"axis": 1}, "axis", True),
        (lambda rng: (uniform(rng, (4, 5)), _knots(4), _knots(5) ** 2), {}, "coordinates", True),
        (lambda rng: (uniform(rng, (4, 5)),), {"edge_order": 2}, "edge2", True),
        (lambda rng: (uniform(rng, (4, 5)), _knots(4), _knots(5) ** 2), {"edge_order": 2}, "edge2-coordinates", True),
        (lambda rng: (uniform(rng, (6,)), np.arange(6) * 0.25), {}, "uniform-coordinates", True),
        (lambda rng: (uniform(rng, (2, 3)),), {"axis": 0}, "two-points", True),
        (lambda rng: (uniform(rng, (3, 4), "int32"),), {}, "int32", False),
        (lambda rng: (uniform(rng, (3, 4), "float32"), 0.1), {"axis": -1}, "float32", False)]],
    *[NumpyCase("trapezoid", make, kw, label=lb, wrt=wrt) for make, kw, lb, wrt in [
        (lambda rng: (uniform(rng, (3, 5)),), {}, "unit", (0,)),
        (lambda rng: (uniform(rng, (4, 3)),), {"dx": 0.1, "axis": 0}, "dx", (0,)),
        (lambda rng: (uniform(rng, (3, 5)), _knots(5)), {}, "x-1d", (0, 1)),
        (lambda rng: (uniform(rng, (3, 5)), np.cumsum(uniform(rng, (3, 5), lo=0.1, hi=1.0), axis=0)), {"axis": 0},
         "x-nd", (0, 1)),
        (lambda rng: (uniform(rng, (2, 4), "int32"),), {}, "int32", ()),
        (lambda rng: (uniform(rng, (3, 1)),), {}, "one-point", ())]],
    *[NumpyCase("cross", make, kw, label=lb, wrt=(0, 1) if diff else ()) for make, kw, lb, diff in [
        (lambda rng: (uniform(rng, (4, 3)), uniform(rng, (3,))), {}, "3d-broadcast", True),
        (lambda rng: (uniform(rng, (4, 2)), uniform(rng, (4, 2))), {}, "2d", True),
        (lambda rng: (uniform(rng, (4, 2)), uniform(rng, (4, 3))), {}, "2-3", True),
        (lambda rng: (uniform(rng, (3, 3)), uniform(rng, (2,))), {}, "3-2", True),
        (lambda rng: (uniform(rng, (3, 4)), uniform(rng, (3,))), {"axisa": 0, "axisc": 0}, "axes", True),
        (lambda rng: (uniform(rng, (2, 3), "int64"), uniform(rng, (2, 3), "int64")), {}, "int64", False)]],
    *[NumpyCase("polyval", make, label=lb, wrt=(0, 1) if diff else ()) for make, lb, diff in [
        (lambda rng: (uniform(rng, (4,)), uniform(rng, (2, 3))), "array", True),
        (lambda rng: (uniform(rng, (3,)), 0.7), "scalar-x", False),
        (lambda rng: (np.array([3, 1, 2]), uniform(rng, (5,), "int64")), "int", False),
        (lambda rng: (uniform(rng, (1,)), uniform(rng, (3,))), "constant", True),
        # a (deg + 1, k) p: k polynomials broadcast against x, as numpy's loop over p's rows gives
        (lambda rng: (uniform(rng, (5, 3)), uniform(rng, (2, 3))), "batched-p", True)]],
]
CASES += [
    *[NumpyCase(name, lambda rng, n=n, m=m, d=d: (uniform(rng, (n,), d), uniform(rng, (m,), d)), {"mode": mode},
                label=f"{n}x{m}-{mode}-{d}", wrt=(0, 1) if d == "float64" else ())
      for name in ("convolve", "correlate") for n, m in [(6, 3), (3, 5)] for mode in ("full", "same", "valid")
      for d in ("float64", "int32")],
    NumpyCase("correlate", lambda rng: (uniform(rng, (5,), "complex128"), uniform(rng, (3,), "complex128")), label="complex"),
]
def _wrapped_phase(rng, shape):
    """Angles in (-pi, pi] of a phase that drifts by up to 4 radians a step: unwrap has jumps to undo."""
    return np.angle(np.exp(1j * np.cumsum(rng.uniform(-2.0, 4.0, shape), axis=-1)))


CASES += [
    *[NumpyCase("unwrap", lambda rng: (_wrapped_phase(rng, (3, 12)),), kw, label=lb, wrt=(0,))
      for kw, lb in [({}, "default"), ({"axis": 0}, "axis0"), ({"discont": 4.0}, "discont"), ({"period": 6.0}, "period")]],
    NumpyCase("unwrap", lambda rng: (np.array([0.0, np.pi, 2 * np.pi + 0.1, -np.pi]),), label="half-period"),
    *[NumpyCase("vander", lambda rng, d=d: (uniform(rng, (4,), d),), kw, label=f"{lb}-{d}", wrt=(0,) if d == "float64" else ())
      for kw, lb in [({}, "square"), ({"N": 3}, "N3"), ({"increasing": True}, "increasing"), ({"N": 0}, "N0")]
      for d in ("float64", "int64")],
]
# -- quotients, fractions and powers of two (divmod, modf, ldexp, frexp), positive, ediff1d, real_if_close ---
_FLOATS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.5, -2.0, -2.5, 3.0, 0.75, -1e-310, 5e-324, 1.7e308])
_EXPONENTS = np.array([0, 1, -1, 3, -1074, 1023, -1100, 2000, -2200, 5000, -5000, 60, -60])


def _away_from_integers(rng, shape, dtype="float64"):
    """Values in (-4, 4) at least 0.1 from an integer: modf's parts are smooth there."""
    return (rng.integers(-4, 4, shape) + rng.uniform(0.1, 0.9, shape)).astype(dtype)


CASES += [
    # two results: no derivative check of empty operands (the harness sums one result)
    *[NumpyCase(c.name, c.make_args, label=c.label, wrt=() if c.label == "empty" else c.wrt) for c in _division("divmod")],
    *[NumpyCase("modf", lambda rng, s=s: (_away_from_integers(rng, s),), label=lb, wrt=() if 0 in s else (0,))
      for s, lb in UNARY_SHAPES],
    NumpyCase("modf", lambda rng: (_FLOATS,), label="specials"),
    *[NumpyCase("modf", lambda rng, d=d: (uniform(rng, (2, 3), d, lo=-3.0, hi=3.0),), label=d)
      for d in ("float32", "int32", "int64", "bool")],
    NumpyCase("ldexp", lambda rng: (uniform(rng, (3, 4)), rng.integers(-5, 5, (4,))), label="row", wrt=(0,)),
    NumpyCase("ldexp", lambda rng: (uniform(rng, (2, 1, 4)), rng.integers(-5, 5, (3, 1)).astype("int32")),
              label="both-int32", wrt=(0,)),
    NumpyCase("ldexp", lambda rng: (uniform(rng, ()), rng.integers(-5, 5, (2, 3))), label="rank0", wrt=(0,)),
    NumpyCase("ldexp", lambda rng: (uniform(rng, (0, 3)), rng.integers(-5, 5, (3,))), label="empty", wrt=(0,)),
    NumpyCase("ldexp", lambda rng: (np.repeat(_FLOATS, 13), np.tile(_EXPONENTS, 13)), label="specials"),
    NumpyCase("ldexp", lambda rng: (rng.standard_normal(200) * 2.0 ** rng.integers(-1074, 1024, 200),
                                    rng.integers(-2200, 2200, 200)), label="subnormal-overflow"),
    NumpyCase("ldexp", lambda rng: (uniform(rng, (2, 3), "float32"), rng.integers(-160, 160, (3,))), label="float32"),
    NumpyCase("ldexp", lambda rng: (uniform(rng, (2, 3), "int32"), 3), label="int32-number"),
    NumpyCase("ldexp", lambda rng: (uniform(rng, (4,), "bool"), np.arange(4)), label="bool"),
    NumpyCase("ldexp", lambda rng: (1.5, np.arange(-3, 3)), label="number"),
    *[NumpyCase("frexp", lambda rng, s=s: (uniform(rng, s, lo=-50.0, hi=50.0),), label=lb, wrt=(0,) if lb == "2d" else ())
      for s, lb in UNARY_SHAPES],
    NumpyCase("frexp", lambda rng: (_FLOATS,), label="specials"),
    NumpyCase("frexp", lambda rng: (np.concatenate([np.ldexp(1.0, np.arange(-1074, 1024)),
                                                    np.nextafter(np.ldexp(1.0, np.arange(-1074, 1024)), 0)]),),
              label="powers-of-two"),
    NumpyCase("frexp", lambda rng: (rng.standard_normal(300) * 2.0 ** rng.integers(-1074, 1023, 300),), label="wide"),
    NumpyCase("frexp", lambda rng: (np.float32([1e-45, 3e-39, 3.4e38, -0.0, np.inf, 0.75, 6.0]),), label="float32"),
    NumpyCase("frexp", lambda rng: (np.float16([6e-8, 3e-5, 65504, -0.0, np.inf, 0.75, 6.0]),), label="float16"),
    *[NumpyCase("frexp", lambda rng, d=d: (uniform(rng, (2, 3), d),), label=d) for d in ("int32", "int64", "bool")],
    *[NumpyCase("positive", lambda rng, s=s: (uniform(rng, s),), label=lb, wrt=(0,) if lb == "2d" else ())
      for s, lb in UNARY_SHAPES],
    *[NumpyCase("positive", lambda rng, d=d: (uniform(rng, (2, 3), d),), label=d)
      for d in ("float32", "int32", "int64", "complex128")],
    NumpyCase("positive", lambda rng: (_FLOATS,), label="specials"),
    NumpyCase("positive", lambda rng: ([1, -2],), label="list"),
    *[NumpyCase("ediff1d", make, label=lb, wrt=wrt) for make, lb, wrt in [
        (lambda rng: (uniform(rng, (3, 4)),), "2d", (0,)),
        (lambda rng: (uniform(rng, (5,)), uniform(rng, (2,)), uniform(rng, (1, 2))), "ends", (0, 1, 2)),
        (lambda rng: (uniform(rng, (1,)), None, uniform(rng, (3,))), "one-element", (0, 2)),
        (lambda rng: (uniform(rng, (0, 2)), 1.5), "empty", ()),
        (lambda rng: (uniform(rng, (), "int64"), [1, 2]), "rank0-int", ()),
        (lambda rng: (uniform(rng, (4,), "int32"), 7, np.arange(2)), "int32", ()),
        (lambda rng: (uniform(rng, (2, 3), "float32"), 2.5, np.arange(2)), "float32", ())]],
    NumpyCase("real_if_close", lambda rng: (uniform(rng, (2, 3)),), label="real"),
    NumpyCase("real_if_close", lambda rng: (uniform(rng, (3,), "int32"),), label="int32"),
    NumpyCase("real_if_close", lambda rng: ([1.5 + 1e-15j, -2.0],), label="close"),   # lists: concrete
    NumpyCase("real_if_close", lambda rng: ([1.5 + 1e-12j, -2.0],), label="not-close"),
    NumpyCase("real_if_close", lambda rng: ([1.5 + 1e-12j, -2.0],), {"tol": 1e-11}, label="absolute-tol"),
    NumpyCase("real_if_close", lambda rng: (np.array([1.5 + 1e-6j], np.complex64).tolist(),), label="list-complex"),
]

# -- polynomials, windows and the matrix-vector gufuncs -----------------------------------------------------------
CASES += [
    *[NumpyCase("poly", make, label=lb, wrt=wrt) for make, lb, wrt in [
        (lambda rng: (uniform(rng, (4,)),), "roots", (0,)),
        (lambda rng: (uniform(rng, (1,)),), "one", (0,)),
        (lambda rng: (uniform(rng, (3,), "float32"),), "float32", ()),
        (lambda rng: (uniform(rng, (3,), "int64"),), "int64", ()),
        (lambda rng: (uniform(rng, (0,)),), "none", ()),
        (lambda rng: ([1 + 2j, 1 - 2j, 0.5],), "conjugate-pairs", ()),
        (lambda rng: ([1 + 2j, 0.5],), "complex", ()),
        # a matrix's characteristic polynomial (eigenvalue derivatives: tests/frontend/test_eig.py)
        (lambda rng: (uniform(rng, (4, 4)),), "matrix", ()),
        (lambda rng: (uniform(rng, (3, 3), "float32"),), "matrix-float32", ()),
        (lambda rng: (np.eye(3, dtype=int),), "matrix-int", ())]],
    # roots: always complex (as jax.numpy; numpy's dtype depends on whether every root is real)
    *[NumpyCase("roots", make, kw, label=lb, reference=lambda p, **kw: np.roots(p).astype(
        np.complex64 if np.asarray(p).dtype == np.float32 else np.complex128), rtol=1e-10, atol=1e-12)
      for make, kw, lb in [
          # arrays are traced under frame.function, where zeros cannot be stripped (jax.numpy's flag; none here)
          (lambda rng: (uniform(rng, (5,), lo=0.5),), {"strip_zeros": False}, "quartic"),
          (lambda rng: (uniform(rng, (4,), "float32", lo=0.5),), {"strip_zeros": False}, "float32"),
          # lists stay concrete: numpy's stripping
          (lambda rng: ([1, -3, 2],), {}, "real-roots-int-list"),
          (lambda rng: ([0.0, 0.0, 2.0, 0.0, 1.0, 0.0, 0.0],), {}, "stripped-zeros"),
          (lambda rng: ([3.0],), {}, "constant"), (lambda rng: ([0.0, 0.0],), {}, "zero"),
          (lambda rng: ([1.0, 0.0],), {}, "zero-root")]],
    *[NumpyCase(name, make, label=lb, wrt=wrt) for name in ("polyadd", "polysub") for make, lb, wrt in [
        (lambda rng: (uniform(rng, (3,)), uniform(rng, (5,))), "shorter-first", (0, 1)),
        (lambda rng: (uniform(rng, (4,)), uniform(rng, (2,))), "shorter-second", (0, 1)),
        (lambda rng: (uniform(rng, (3,)), uniform(rng, (3,))), "equal", (0, 1)),
        (lambda rng: (2.0, uniform(rng, (3,))), "number", (1,)),
        (lambda rng: (uniform(rng, (3,), "int32"), uniform(rng, (2,), "int64")), "int", ()),
        (lambda rng: (uniform(rng, (3,), "float32"), uniform(rng, (4,), "int32")), "float32-int32", ())]],
    *[NumpyCase("polymul", make, label=lb, wrt=wrt) for make, lb, wrt in [
        (lambda rng: (uniform(rng, (3,)), uniform(rng, (5,))), "floats", (0, 1)),
        (lambda rng: (uniform(rng, (1,)), uniform(rng, (2,))), "short", (0, 1)),
        (lambda rng: (uniform(rng, (3,), "int32"), uniform(rng, (2,), "float32")), "int32-float32", ()),
        (lambda rng: ([0, 0, 1, 2], [0.0, 3.0]), "leading-zeros", ()),     # lists: concrete, trimmed as numpy
        (lambda rng: ([0, 0], uniform(rng, (2,))), "zero", ())]],
    *[NumpyCase("polyder", make, kw, label=lb, wrt=wrt) for make, kw, lb, wrt in [
        (lambda rng: (uniform(rng, (5,)),), {}, "first", (0,)),
        (lambda rng: (uniform(rng, (5,)), 3), {}, "third", (0,)),
        (lambda rng: (uniform(rng, (3,)),), {"m": 4}, "past-the-degree", ()),
        (lambda rng: (uniform(rng, (3,)), 0), {}, "m0", ()),
        (lambda rng: (uniform(rng, (4,), "float32"),), {}, "float32", ()),
        (lambda rng: (uniform(rng, (4,), "int32"), 2), {}, "int32", ()),
        (lambda rng: (uniform(rng, (0,)),), {}, "empty", ())]],
    *[NumpyCase("polyint", make, kw, label=lb, wrt=wrt) for make, kw, lb, wrt in [
        (lambda rng: (uniform(rng, (4,)),), {}, "first", (0,)),
        (lambda rng: (uniform(rng, (4,)), 2, uniform(rng, (2,))), {}, "constants", (0, 2)),
        (lambda rng: (uniform(rng, (3,)), 3, np.array(1.5)), {}, "one-constant", (0, 2)),
        (lambda rng: (uniform(rng, (3,)), 0), {}, "m0", ()),
        (lambda rng: (uniform(rng, (3,), "float32"),), {"k": np.float32(2.0)}, "float32", ()),
        (lambda rng: (uniform(rng, (3,), "int64"),), {"m": 2, "k": [1, 2, 3]}, "int64", ()),
        (lambda rng: (uniform(rng, (0,)),), {}, "empty", ())]],
]


def _fit_points(rng, n=9, dtype="float64"):
    return np.linspace(-1.0, 1.0, n).astype(dtype), uniform(rng, (n,), dtype)


CASES += [
    *[NumpyCase("polyfit", make, kw, label=lb, wrt=wrt, rtol=1e-10, atol=1e-12) for make, kw, lb, wrt in [
        (lambda rng: (*_fit_points(rng), 3), {}, "cubic", (0, 1)),
        (lambda rng: (np.linspace(-1.0, 1.0, 7), uniform(rng, (7, 2)), 2), {}, "columns", (0, 1)),
        (lambda rng: (*_fit_points(rng), 2, None, False, uniform(rng, (9,), lo=0.5, hi=1.5)), {}, "weights", (0, 1, 5)),
        (lambda rng: (*_fit_points(rng), 0), {}, "constant", (1,)),
        (lambda rng: (*_fit_points(rng), 2), {"full": True}, "full", ()),
        (lambda rng: (*_fit_points(rng), 2), {"rcond": 1e-3, "full": True}, "rcond", ()),
        (lambda rng: (*_fit_points(rng), 2), {"cov": True}, "cov", (1,)),
        (lambda rng: (np.linspace(-1.0, 1.0, 7), uniform(rng, (7, 3)), 2), {"cov": True}, "cov-columns", ()),
        (lambda rng: (*_fit_points(rng), 2), {"cov": "unscaled"}, "cov-unscaled", ()),
        (lambda rng: (*_fit_points(rng, 9, "float32"), 2), {"full": True}, "float32", ()),
        (lambda rng: (np.arange(6), np.arange(6) ** 2, 2), {}, "int", ())]],
    *[NumpyCase(name, lambda rng, m=m: (m,), label=str(m)) for name in ("hamming", "hanning", "blackman", "bartlett")
      for m in (-2, 0, 1, 2, 7, 12)],
    *[NumpyCase("kaiser", lambda rng, m=m, b=b: (m, b), label=f"{m}-{b}") for m, b in ((0, 5.0), (1, 5.0), (8, 0.0),
                                                                                     (9, 8.6), (12, 14.0))],
    *[NumpyCase("i0", make, label=lb, wrt=wrt, rtol=1e-14) for make, lb, wrt in [
        (lambda rng: (uniform(rng, (3, 4), lo=-30.0, hi=30.0),), "wide", (0,)),
        (lambda rng: (np.array([0.0, -0.0, 1e-300, 700.0, -700.0, np.inf, -np.inf, np.nan]),), "edges", ()),
        (lambda rng: (uniform(rng, (2, 3), "float32", lo=-5.0, hi=5.0),), "float32", ()),
        (lambda rng: (uniform(rng, (4,), "int64"),), "int", ()),
        (lambda rng: (uniform(rng, (0, 2)),), "empty", ())]],
    *[NumpyCase("matvec", make, label=lb, wrt=wrt) for make, lb, wrt in [
        (lambda rng: (uniform(rng, (3, 4)), uniform(rng, (4,))), "plain", (0, 1)),
        (lambda rng: (uniform(rng, (2, 1, 3, 4)), uniform(rng, (5, 4))), "batch-broadcast", (0, 1)),
        (lambda rng: (uniform(rng, (3, 4)), uniform(rng, (2, 4))), "vector-batch", (0, 1)),
        (lambda rng: (uniform(rng, (0, 3, 2)), uniform(rng, (2,))), "empty", ()),
        (lambda rng: (uniform(rng, (3, 0)), uniform(rng, (0,))), "empty-contraction", ()),
        (lambda rng: (uniform(rng, (2, 3), "int32"), uniform(rng, (3,), "int64")), "int", ()),
        (lambda rng: (uniform(rng, (2, 3), "bool"), uniform(rng, (3,), "bool")), "bool", ()),
        (lambda rng: (uniform(rng, (2, 3), "complex128"), uniform(rng, (3,), "complex128")), "complex", ()),
        (lambda rng: (uniform(rng, (2, 3), "float32"), uniform(rng, (3,), "float32")), "float32", ())]],
    *[NumpyCase("vecmat", make, label=lb, wrt=wrt) for make, lb, wrt in [
        (lambda rng: (uniform(rng, (3,)), uniform(rng, (3, 4))), "plain", (0, 1)),
        (lambda rng: (uniform(rng, (5, 3)), uniform(rng, (2, 1, 3, 4))), "batch-broadcast", (0, 1)),
        (lambda rng: (uniform(rng, (0, 3)), uniform(rng, (3, 2))), "empty", ()),
        (lambda rng: (uniform(rng, (3,), "int64"), uniform(rng, (3, 2), "int32")), "int", ()),
        (lambda rng: (uniform(rng, (2, 3), "complex128"), uniform(rng, (3, 2), "complex128")), "complex", ()),
        (lambda rng: (uniform(rng, (3,), "float32"), uniform(rng, (3, 2), "float32")), "float32", ())]],
    *[NumpyCase("vander", lambda rng, d=d: (uniform(rng, (4,), d),), label=d) for d in ("float32", "int32", "bool")],
]

# -- gcd/lcm, spacing/nextafter, polydiv, and the dtype functions that answer with a bool ---------------------------
def _integers(rng, shape, dtype="int64", high=60):
    """Integers in [-high, high], zeros and shared factors among them."""
    return rng.integers(-high, high + 1, shape).astype(dtype)


def _extremes(dtype):
    """gcd's hard pairs: zeros, signs, the most negative integer (its magnitude wraps, as numpy's) and the consecutive
    Fibonacci numbers that take Euclid's algorithm longest within the dtype."""
    info, fib = np.iinfo(dtype), [1, 2]
    while fib[-1] + fib[-2] <= info.max:
        fib.append(fib[-1] + fib[-2])
    a = [0, 0, 5, -12, info.min, info.min, info.min, info.max, info.max, fib[-1], -fib[-1], fib[-2], 1 << 20]
    b = [0, -7, 0, 18, 0, info.min, 6, 3, info.max, fib[-2], fib[-2], -fib[-1], 3 << 12]
    return np.array(a, dtype), np.array(b, dtype)


def _float_samples(rng, dtype):
    """Zeros of both signs, infinities, nan, the smallest subnormal and normal, the largest float, powers of two and
    their neighbours, and floats of every exponent: where spacing and nextafter change their step."""
    info = np.finfo(dtype)
    edges = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, info.smallest_subnormal, info.tiny, info.max, 1.0, 0.5, 3.0,
                      info.smallest_subnormal * 3, info.tiny * 2 - info.smallest_subnormal], dtype)
    spread = (rng.uniform(0.5, 1.0, 64) * 2.0 ** rng.integers(info.minexp - info.nmant, info.maxexp, 64)).astype(dtype)
    x = np.concatenate([edges, spread])
    return np.concatenate([x, -x])


def _pairs(rng, dtype):
    """nextafter's hard pairs: every sample towards each of 0, -0.0, +-inf, nan, itself and a shuffled one."""
    x = _float_samples(rng, dtype)
    targets = np.array([0.0, -0.0, np.inf, -np.inf, np.nan], dtype)
    return (np.concatenate([np.repeat(x, 5), x, x]),
            np.concatenate([np.tile(targets, x.size), x, rng.permutation(x)]))


def _leading(rng, n, dtype="float64", exact=False):
    """Coefficients whose leading one is away from zero (a divisor numpy's long division is well conditioned by);
    `exact`: a power of two, whose reciprocal and products are exact, so that the division zeroes the remainder's
    leading coefficients exactly (float32's rounding leaves more than numpy's trimming tolerance otherwise)."""
    c = uniform(rng, (n,), dtype)
    c[0] = rng.choice([-1, 1]) * (2.0 ** rng.integers(-1, 2) if exact else rng.uniform(0.5, 1.5))
    return c


CASES += [
    *[NumpyCase(name, lambda rng, a=a, b=b: (_integers(rng, a), _integers(rng, b)), label=lb)
      for name in ("gcd", "lcm") for a, b, lb in BROADCAST_SHAPES],
    *[NumpyCase(name, lambda rng, d=d: _extremes(d), label=f"extremes-{d}") for name in ("gcd", "lcm")
      for d in ("int32", "int64")],
    *[NumpyCase(name, make, label=lb) for name in ("gcd", "lcm") for make, lb in [
        (lambda rng: (_integers(rng, (2, 3), "int32"), _integers(rng, (3,), "int32")), "int32"),
        (lambda rng: (_integers(rng, (2, 3), "int32"), _integers(rng, (3,), "int64")), "int32-int64"),
        (lambda rng: (_integers(rng, (2, 3), "int32"), 12), "int32-number"),
        (lambda rng: (uniform(rng, (4,), "bool"), _integers(rng, (4,), "int32")), "bool-int32"),
        (lambda rng: (rng.integers(-10**6, 10**6, 50), rng.integers(-10**6, 10**6, 50)), "large"),
        (lambda rng: ([12, -18, 0], 30), "list")]],
    *[NumpyCase("spacing", lambda rng, s=s: (uniform(rng, s, lo=-4.0, hi=4.0),), label=lb, wrt=(0,) if lb == "2d" else ())
      for s, lb in UNARY_SHAPES],
    *[NumpyCase("spacing", lambda rng, d=d: (_float_samples(rng, d),), label=f"specials-{d}")
      for d in ("float64", "float32", "float16")],
    NumpyCase("spacing", lambda rng: (np.arange(65536, dtype=np.uint16).view(np.float16),), label="every-float16"),
    *[NumpyCase("spacing", lambda rng, d=d: (uniform(rng, (2, 3), d),), label=d) for d in ("int32", "int64", "bool")],
    *[NumpyCase("nextafter", lambda rng, a=a, b=b: (uniform(rng, a), uniform(rng, b)), label=lb,
                wrt=(0, 1) if lb == "same" else ()) for a, b, lb in BROADCAST_SHAPES],
    *[NumpyCase("nextafter", lambda rng, d=d: _pairs(rng, d), label=f"specials-{d}") for d in ("float64", "float32", "float16")],
    NumpyCase("nextafter", lambda rng: (uniform(rng, (2, 3), "float32"), 2.0), label="float32-number"),
    NumpyCase("nextafter", lambda rng: (uniform(rng, (2, 3), "float16"), uniform(rng, (3,), "float32")), label="float16-float32"),
    NumpyCase("nextafter", lambda rng: (_integers(rng, (2, 3), "int32"), uniform(rng, (3,), "float32")), label="int32-float32"),
    NumpyCase("nextafter", lambda rng: (uniform(rng, (4,), "bool"), uniform(rng, (4,), "bool")), label="bool"),
    NumpyCase("nextafter", lambda rng: (0.0, [1.0, -1.0, 0.0, -0.0]), label="from-zero"),
    *[NumpyCase("polydiv", make, label=lb, wrt=wrt) for make, lb, wrt in [
        (lambda rng: (uniform(rng, (6,)), _leading(rng, 3)), "6-by-3", (0, 1)),
        (lambda rng: (uniform(rng, (4,)), _leading(rng, 4)), "equal-length", (0, 1)),
        (lambda rng: (uniform(rng, (4,)), _leading(rng, 1)), "by-constant", (0, 1)),
        (lambda rng: (uniform(rng, (2,)), _leading(rng, 4)), "shorter-u", (0, 1)),
        (lambda rng: (uniform(rng, ()), _leading(rng, 1)), "rank0-u", (0, 1)),
        (lambda rng: (np.array([3.0, 5.0, 2.0]), np.array([2.0, 1.0])), "numpy-example", ()),
        (lambda rng: ([1.0, 3.0, 3.0, 1.0], [1.0, 1.0]), "exact-list", ()),
        (lambda rng: (_integers(rng, (5,), "int64"), np.array([2, -1, 3])), "int64", ()),
        (lambda rng: (uniform(rng, (5,), "float32"), _leading(rng, 2, "float32", exact=True)), "float32", ()),
        (lambda rng: (uniform(rng, (5,), "float32"), _leading(rng, 2)), "float32-float64", ()),
        (lambda rng: (_integers(rng, (4,), "int32"), _leading(rng, 2, "float32", exact=True)), "int32-float32", ()),
        (lambda rng: (uniform(rng, (5,), "complex128"), _leading(rng, 3)), "complex", ())]],
    *[NumpyCase("can_cast", make, kw, label=lb) for make, kw, lb in [   # a traced from_ answers by its dtype
        (lambda rng: (uniform(rng, (2,), "float32"), "float64"), {}, "array-safe"),
        (lambda rng: (uniform(rng, (2,)), "float32"), {}, "array-unsafe-no"),
        (lambda rng: (uniform(rng, (2,)), "float32"), {"casting": "same_kind"}, "same-kind"),
        (lambda rng: (uniform(rng, (), "int64"), "int32"), {"casting": "same_kind"}, "rank0"),
        (lambda rng: ("int32", np.float64), {}, "dtypes")]],
    *[NumpyCase("issubdtype", lambda rng, a=a: a, label=lb) for a, lb in [
        ((np.float32, np.floating), "floating"), (("int64", np.signedinteger), "string"),
        ((np.float64, np.float32), "concrete-no"), ((np.complex128, np.inexact), "complex")]],
    *[NumpyCase("isdtype", lambda rng, a=a: a, label=lb) for a, lb in [
        ((np.dtype("float32"), "real floating"), "kind"), ((np.dtype("int32"), ("bool", "integral")), "tuple"),
        ((np.dtype("complex64"), np.complex64), "dtype"), ((np.dtype("bool"), "numeric"), "bool-no")]],
]
