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
        (lambda rng: (uniform(rng, (1,)), uniform(rng, (3,))), "constant", True)]],
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
