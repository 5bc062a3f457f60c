"""The rest of frame.lax (select_n, the special functions, reduce_precision, clz, split/tile/stack, reduce,
reduce_xor, conv_transpose, patches, custom_linear_solve, custom_root) against jax.lax: each case runs the same call
on both modules, values eagerly and under frame.function, and (for the differentiable ones) the gradient of
sum(out * w) under frame.grad against jax.grad; then the bit-exact integer and rounding functions and the refusals.
The functions are imported from frame.lax's private modules (the package's exports are wired separately)."""
import operator

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax as jlax

import frame
import frame.lax
import frame.numpy as fnp
from frame import ShapeError, TraceError
from tests.frontend.lax_check import TOL, assert_matches_jax, assert_same_values

pytestmark = pytest.mark.usefixtures("jax_x64")
FLAX = frame.lax
RNG = np.random.default_rng(1)
X = RNG.uniform(-1, 1, (3, 4))
Y = RNG.uniform(-1, 1, (3, 4))
POS = RNG.uniform(0.5, 2.0, (3, 4))
BIG = RNG.uniform(1.5, 3.0, (3, 4))
P01 = RNG.uniform(0.05, 0.95, (3, 4))
WHICH = RNG.integers(0, 3, (3, 4)).astype(np.int32)
ORDERS = np.array([[0., 1, 2, 3]] * 3)
NHWC = RNG.uniform(-1, 1, (2, 5, 4, 3))
HWIO = RNG.uniform(-1, 1, (3, 2, 3, 4))
NCHW = RNG.uniform(-1, 1, (2, 3, 5, 4))
SPD = (lambda a: a @ a.T + 4 * np.eye(4))(RNG.uniform(-1, 1, (4, 4)))
GEN = RNG.uniform(-1, 1, (4, 4)) + 4 * np.eye(4)
B4 = RNG.uniform(-1, 1, 4)


def np_of(m):
    return jnp if m is jlax else fnp


def loop_of(m):
    return jax.lax if m is jlax else frame.lax


def linear_solve(m, a, b, symmetric):
    """A solve by a while loop (Jacobi-preconditioned Richardson iterations, to convergence): no reverse mode
    through it, so the gradient is custom_linear_solve's implicit one."""
    xp, lp = np_of(m), loop_of(m)

    def richardson(matvec, rhs):
        d = xp.diag(a)
        step = lambda c: (c[0] + (rhs - matvec(c[0])) / d, c[1] + 1)
        return lp.while_loop(lambda c: c[1] < 200, step, (rhs * 0.0, 0))[0]
    transpose = None if symmetric else (lambda vecmat, rhs: richardson(vecmat, rhs))
    return m.custom_linear_solve(lambda v: xp.matmul(a, v), b, richardson, transpose, symmetric=symmetric)


def cube_root(m, a):
    """Newton's method for x^3 = a in a while loop; the derivative comes from custom_root (1 / (3 x^2))."""
    xp, lp = np_of(m), loop_of(m)

    def newton(f, x0):
        return lp.while_loop(lambda c: c[1] < 40, lambda c: (c[0] - f(c[0]) / (3 * c[0] ** 2), c[1] + 1), (x0, 0))[0]
    return m.custom_root(lambda x: x ** 3 - a, xp.ones_like(a), newton, lambda g, y: y / g(xp.ones_like(y)))


def vector_root(m, a, b):
    """A 4-vector root of a x + 0.1 x^3 - b (tangent_solve by the Jacobian of the linear map), with aux."""
    xp, lp = np_of(m), loop_of(m)
    f = lambda x: xp.matmul(a, x) + 0.1 * x ** 3 - b
    jac = jax.jacfwd if m is jlax else frame.jacobian

    def newton(fn, x0):
        x = lp.fori_loop(0, 30, lambda i, x: x - xp.linalg.solve(jac(fn)(x), fn(x)), x0)
        return x, xp.sum(x)
    x, aux = m.custom_root(f, xp.zeros_like(b), newton, lambda g, y: xp.linalg.solve(jac(g)(y), y), has_aux=True)
    return x * aux


# name: (call(lax_module, *arrays), arrays, argnums to differentiate (None: not differentiable))
CASES = {
    # elementwise
    "select_n-bool": (lambda m, x, y: m.select_n(x > y, x, y), (X, Y), (0, 1)),
    "select_n-int": (lambda m, x, y: m.select_n(WHICH, x, y, x * y), (X, Y), (0, 1)),
    "select_n-scalar": (lambda m, x, y: m.select_n(np.int32(1), x, y), (X, Y), (0, 1)),
    "polygamma": (lambda m, x: m.polygamma(ORDERS, x), (POS,), (0,)),
    "polygamma-scalar": (lambda m, x: m.polygamma(2.0, x), (POS,), (0,)),
    "zeta": (lambda m, x, q: m.zeta(x, q), (BIG, POS), None),   # jax.lax.zeta has no derivative rule
    "betainc": (lambda m, a, b, x: m.betainc(a, b, x), (POS, BIG, P01), (2,)),
    "bessel_i0e": (lambda m, x: m.bessel_i0e(x * 5), (X,), (0,)),
    "bessel_i1e": (lambda m, x: m.bessel_i1e(x * 5), (X,), (0,)),
    # the cotangent is reduced too (lax's linear rule): w in [0.5, 1.5) loses bits to 4 mantissa bits
    "reduce_precision": (lambda m, x: m.reduce_precision(x * 100, 5, 4), (X,), (0,)),
    "optimization_barrier": (lambda m, x, y: m.optimization_barrier((x, {"y": y}))[1]["y"] * x, (X, Y), (0, 1)),
    # shape
    "split": (lambda m, x: m.concatenate(m.split(x, (1, 0, 3), 1)[::-1], 1), (X,), (0,)),
    "tile": (lambda m, x: m.tile(x, (2, 3)), (X,), (0,)),
    "broadcast_to_rank": (lambda m, x: m.broadcast_to_rank(x, 4), (X,), (0,)),
    "stack-unstack": (lambda m, x, y: m.stack(m.unstack(x, 1)[::-1] + (y[:, 0],), 1), (X, Y), (0, 1)),
    "empty": (lambda m, x: m.empty((3, 4), np.float64) * 0.0 + x, (X,), (0,)),
    # reduce
    "reduce-add": (lambda m, x: m.reduce(x, 0.0, m.add, (1,)), (X,), (0,)),
    "reduce-add-init": (lambda m, x: m.reduce(x, 2.5, m.add, (0, 1)), (X,), (0,)),
    "reduce-mul": (lambda m, x: m.reduce(x, 2.0, m.mul, (0,)), (X,), (0,)),
    "reduce-max": (lambda m, x: m.reduce(x, -np.inf, m.max, (1,)), (X,), (0,)),
    "reduce-min": (lambda m, x: m.reduce(x, 0.0, m.min, (0,)), (X,), (0,)),
    "reduce-no-dims": (lambda m, x: m.reduce(x, 5.0, m.add, ()), (X,), (0,)),
    # convolutions
    "conv_transpose-same": (lambda m, x, w: m.conv_transpose(x, w, (2, 2), "SAME"), (NHWC, HWIO), (0, 1)),
    "conv_transpose-valid-kernel": (lambda m, x, w: m.conv_transpose(
        x, np.transpose(w, (0, 1, 3, 2)), (2, 1), "VALID", transpose_kernel=True), (NHWC, HWIO), (0, 1)),
    "conv_transpose-pairs": (lambda m, x, w: m.conv_transpose(x, w, (3, 2), [(1, 0), (2, 1)], (1, 2)),
                             (NHWC, HWIO), (0, 1)),
    "conv_transpose-consistent": (lambda m, x, w: m.conv_transpose(x, w, (2, 2), [(1, 0), (0, 2)],
                                                                   use_consistent_padding=True), (NHWC, HWIO), (0, 1)),
    "conv_transpose-nchw": (lambda m, x, w: m.conv_transpose(x, np.transpose(w, (3, 2, 0, 1)), (2, 3), "VALID",
                                                             dimension_numbers=("NCHW", "OIHW", "NCHW")),
                            (NCHW, HWIO), (0, 1)),
    "conv_general_dilated_patches": (lambda m, x: m.conv_general_dilated_patches(x, (2, 3), (1, 2), "SAME"),
                                     (NCHW,), (0,)),
    "conv_general_dilated_patches-dilated": (lambda m, x: m.conv_general_dilated_patches(
        x, (2, 2), (2, 1), [(1, 0), (0, 1)], (1, 2), (2, 1), ("NHWC", "HWIO", "NHWC")), (NHWC,), (0,)),
    # implicit derivatives: solvers in while loops, which reverse mode cannot enter
    "custom_linear_solve-symmetric": (lambda m, a, b: linear_solve(m, a, b, True), (SPD, B4), (0, 1)),
    "custom_linear_solve-transpose": (lambda m, a, b: linear_solve(m, a, b, False), (GEN, B4), (0, 1)),
    "custom_root": (lambda m, a: cube_root(m, a), (BIG,), (0,)),
    "custom_root-vector-aux": (lambda m, a, b: vector_root(m, a, b), (GEN, B4), (0, 1)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_lax_matches_jax(name):
    call, args, argnums = CASES[name]
    assert_matches_jax(name, call, args, argnums, FLAX, RNG)


def special_floats(dtype):
    rng = np.random.default_rng(2)
    finfo = np.finfo(dtype)
    # significands in [1, 2) with random signs, at every exponent from the subnormals' to the largest
    x = np.ldexp(rng.uniform(1, 2, 400) * rng.choice([-1.0, 1.0], 400),
                 rng.integers(finfo.minexp - finfo.nmant, finfo.maxexp, 400)).astype(dtype)
    edges = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, 1 + 2.0 ** -10, 1 + 3 * 2.0 ** -11, 65504.0, 65520.0,
             float(finfo.max), float(finfo.tiny), float(finfo.smallest_subnormal), 6.1e-5, 2.5e-5]
    return np.concatenate([edges, x]).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_reduce_precision_is_xlas_bit_for_bit(dtype):
    """Round-to-nearest-even of the significand, overflow to inf, flush below the smallest normal, NaN kept,
    signs of zeros kept: equal bit patterns to XLA's for formats narrower and as wide as the operand's."""
    x = special_floats(dtype)
    formats = [(5, 10), (8, 7), (4, 3), (11, 10), (8, 23), (2, 1), (11, 52)]
    with np.errstate(over="ignore"):   # compiled plans run numpy: rounding past the largest float gives inf
        eager = [FLAX.reduce_precision(x, e, m) for e, m in formats]
        traced = frame.function(lambda v: [FLAX.reduce_precision(v, e, m) for e, m in formats])(x)
    for (e, m), got_eager, got_traced in zip(formats, eager, traced):
        want = np.asarray(jlax.reduce_precision(x, e, m))
        for got in (np.asarray(got_eager), np.asarray(got_traced)):
            assert got.dtype == want.dtype, (e, m)
            np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"),
                                          err_msg=f"reduce_precision({e}, {m}) of {dtype}")


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_functions_are_laxs(dtype):
    rng = np.random.default_rng(3)
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, (4, 9), dtype=dtype, endpoint=True)
    x.flat[:6] = [0, 1, -1, info.max, info.min, 255]
    x = x >> rng.integers(0, 8 * x.itemsize, x.shape).astype(dtype)   # every leading-zero count
    y = rng.integers(info.min, info.max, (4, 9), dtype=dtype, endpoint=True)
    b = x > y
    calls = {
        "clz": lambda m: m.clz(x),
        "reduce_xor": lambda m: m.reduce_xor(x, (1,)),
        "reduce_xor-bool": lambda m: m.reduce_xor(b, (0, 1)),
        "reduce-and": lambda m: m.reduce(x, np.asarray(-1, dtype), m.bitwise_and, (0,)),
        "reduce-or-op": lambda m: m.reduce(x, np.asarray(12, dtype), operator.or_, (1,)),
        "reduce-xor": lambda m: m.reduce(x, np.asarray(0, dtype), m.bitwise_xor, (0, 1)),
        "reduce-and-bool": lambda m: m.reduce(b, np.True_, m.bitwise_and, (1,)),
        "reduce-add-wraps": lambda m: m.reduce(x, np.asarray(0, dtype), m.add, (0,)),
        "reduce-mul-wraps": lambda m: m.reduce(y, np.asarray(3, dtype), m.mul, (1,)),
        "reduce_sum-keeps-dtype": lambda m: m.reduce_sum(x, (1,)),
        "select_n": lambda m: m.select_n(b, x, y),
    }
    if dtype == "int32":
        calls["mulhi"] = lambda m: m.mulhi(x, y)
    for name, call in calls.items():
        want = np.asarray(call(jlax))
        for got in (call(FLAX), frame.function(lambda: call(FLAX))()):
            got = np.asarray(got)
            np.testing.assert_array_equal(got, want, err_msg=name)
            assert got.dtype == want.dtype, name


def test_broadcast_shapes_and_empty_are_laxs():
    for shapes in [((2, 1), (3,)), ((1, 4, 1), (3, 1, 5), (5,)), ((),), ((0, 1), (1, 3))]:
        assert FLAX.broadcast_shapes(*shapes) == jlax.broadcast_shapes(*shapes), shapes
    got, want = FLAX.empty((2, 0, 3), np.float32), jlax.empty((2, 0, 3), np.float32)
    assert (got.shape, got.dtype) == (want.shape, want.dtype)


def test_implicit_solvers_eager_and_aux_match_jax():
    """has_aux returns the solve's aux unchanged; the eager results are the solve's."""
    def solve(mv, b):
        return np_of_solve(mv, b), b.sum()
    np_of_solve = lambda mv, b: b / 4.0
    for m in (FLAX, jlax):
        x, aux = m.custom_linear_solve(lambda v: 4.0 * v, B4, solve, symmetric=True, has_aux=True)
        np.testing.assert_allclose(x, B4 / 4.0, **TOL)
        np.testing.assert_allclose(aux, B4.sum(), **TOL)
    g = frame.grad(lambda b: fnp.sum(FLAX.custom_linear_solve(lambda v: 4.0 * v, b, solve, symmetric=True,
                                                             has_aux=True)[0] * B4))(B4)
    np.testing.assert_allclose(g, B4 / 4.0, **TOL)


def test_polygamma_of_a_traced_order_is_refused_by_name():
    with pytest.raises(TraceError, match="lax.polygamma"):
        frame.function(lambda m, x: FLAX.polygamma(m, x))(ORDERS, POS)


@pytest.mark.parametrize("call, message", [
    (lambda: FLAX.select_n(X > 0, X, Y, X), "select_n: which must be bool"),
    (lambda: FLAX.select_n(X, X, Y), "select_n: which must be bool"),
    (lambda: FLAX.select_n(X[0] > 0, X, Y), "select_n: the cases"),
    (lambda: FLAX.select_n(np.int32(0), X, Y.astype(np.float32)), "select_n requires arguments"),
    (lambda: FLAX.polygamma(np.full((3, 4), 0.5), POS), "polygamma: frame takes whole orders"),
    (lambda: FLAX.zeta(BIG, POS[0]), "zeta requires arguments of one shape"),
    (lambda: FLAX.betainc(POS, BIG, np.arange(12).reshape(3, 4)), "betainc requires arguments"),
    (lambda: FLAX.bessel_i0e(np.arange(3)), "bessel_i0e takes a floating-point"),
    (lambda: FLAX.clz(X), "clz takes integer operands"),
    (lambda: FLAX.mulhi(np.arange(3), np.arange(3)), "mulhi: frame covers int32"),
    (lambda: FLAX.reduce_precision(np.arange(3), 5, 10), "reduce_precision takes a floating-point"),
    (lambda: FLAX.reduce_precision(X, 0, 10), "reduce_precision takes a real float operand, exponent_bits >= 1"),
    (lambda: FLAX.split(X, (1, 2), 1), "split: sizes"),
    (lambda: FLAX.tile(X, (2,)), "tile: reps"),
    (lambda: FLAX.broadcast_to_rank(X, 1), "broadcast_to_rank: rank 1"),
    (lambda: FLAX.broadcast_shapes((2, 3), (3, 2)), "broadcast_shapes: shapes"),
    (lambda: FLAX.broadcast_shapes(), "broadcast_shapes needs"),
    (lambda: FLAX.stack([X, Y[0]]), "stack requires operands of one shape"),
    (lambda: FLAX.unstack(X, 2), "unstack: dimension 2"),
    (lambda: FLAX.reduce(X, 0.0, lambda a, b: a - b, (0,)), "reduce: frame covers the computations"),
    (lambda: FLAX.reduce((X, Y), (0.0, 0.0), FLAX.add, (0,)), "reduce: frame covers one array operand"),
    (lambda: FLAX.reduce(X, np.float32(0), FLAX.add, (0,)), "reduce: init_values"),
    (lambda: FLAX.reduce(X, 0.0, FLAX.bitwise_or, (0,)), "reduce: bitwise computations"),
    (lambda: FLAX.reduce_xor(X, (0,)), "reduce_xor"),
    (lambda: FLAX.conv_transpose(NHWC, HWIO, (2,), "SAME"), "conv_transpose: strides"),
    (lambda: FLAX.conv_transpose(NHWC, HWIO, (2, 2), "FULL"), "conv_transpose: padding"),
    (lambda: FLAX.conv_transpose(NHWC, HWIO[0], (2, 2), "SAME"), "conv_transpose: lhs"),
    (lambda: FLAX.conv_general_dilated_patches(NCHW, (2,), (1, 1), "SAME"), "conv_general_dilated_patches"),
    (lambda: FLAX.custom_linear_solve(lambda v: v[:2], B4, lambda mv, b: b, symmetric=True), "custom_linear_solve"),
    (lambda: FLAX.custom_linear_solve(lambda v: v, np.arange(3), lambda mv, b: b, symmetric=True),
     "custom_linear_solve: b must be"),
    (lambda: FLAX.custom_root(lambda x: x, B4, lambda f, x: x[:2], lambda g, y: y), "custom_root: solve must"),
])
def test_refusals_name_the_function(call, message):
    with pytest.raises(ShapeError, match=message):
        call()
