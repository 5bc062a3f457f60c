"""frame.lax against jax.lax: each case runs the same call on both modules, values eagerly and under
frame.function, and (for the differentiable ones) the gradient of sum(out * w) under frame.grad against
jax.grad; then the refusals where lax refuses."""
import operator

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax as jlax

import frame
import frame.lax as flax_
import frame.numpy as fnp
from frame import ShapeError
from tests.frontend.lax_check import assert_matches_jax, assert_same_values

pytestmark = pytest.mark.usefixtures("jax_x64")
RNG = np.random.default_rng(0)
X = RNG.uniform(-1, 1, (3, 4))
Y = RNG.uniform(-1, 1, (3, 4))
POS = RNG.uniform(0.5, 2.0, (3, 4))
UNIT = RNG.uniform(-0.9, 0.9, (3, 4))
BIG = RNG.uniform(1.5, 3.0, (3, 4))
V = RNG.uniform(-1, 1, 7)
IMG = RNG.uniform(-1, 1, (2, 3, 6, 5))      # N C H W
KER = RNG.uniform(-1, 1, (4, 3, 3, 2))      # O I H W
KER_G6 = RNG.uniform(-1, 1, (6, 1, 2, 2))
A3 = RNG.uniform(-1, 1, (2, 3, 4))
B3 = RNG.uniform(-1, 1, (2, 4, 5))
SPD = (lambda a: a @ a.T + 4 * np.eye(4))(RNG.uniform(-1, 1, (4, 4)))
TRI = np.tril(RNG.uniform(-1, 1, (4, 4))) + 3 * np.eye(4)

# name: (call(lax_module, *arrays), arrays, argnums to differentiate (None: not differentiable))
CASES = {
    # elementwise
    "add": (lambda m, x, y: m.add(x, y), (X, Y), (0, 1)),
    "add-scalar": (lambda m, x: m.add(x, 2.0), (X,), (0,)),
    "sub": (lambda m, x, y: m.sub(x, y), (X, Y), (0, 1)),
    "mul": (lambda m, x, y: m.mul(x, y), (X, Y), (0, 1)),
    "div": (lambda m, x, y: m.div(x, y), (X, POS), (0, 1)),
    "div-int": (lambda m, x, y: m.div(x, y), (np.array([-7, 7, -7, 7, 6]), np.array([2, 2, -2, -2, 3])), None),
    "rem": (lambda m, x, y: m.rem(x, y), (X * 5, POS), (0, 1)),
    "pow": (lambda m, x, y: m.pow(x, y), (POS, Y), (0, 1)),
    "pow-int": (lambda m, x: m.pow(x, np.int64(3)), (X,), (0,)),
    "integer_pow": (lambda m, x: m.integer_pow(x, 3), (X,), (0,)),
    "integer_pow-neg": (lambda m, x: m.integer_pow(x, -2), (POS,), (0,)),
    "max": (lambda m, x, y: m.max(x, y), (X, Y), (0, 1)),
    "min": (lambda m, x, y: m.min(x, y), (X, Y), (0, 1)),
    "atan2": (lambda m, x, y: m.atan2(x, y), (X, Y), (0, 1)),
    "nextafter": (lambda m, x, y: m.nextafter(x, y), (X, Y), None),
    "clamp": (lambda m, x: m.clamp(-0.5, x, 0.5), (X,), (0,)),
    "clamp-arrays": (lambda m, lo, x: m.clamp(lo, x, lo + 1.0), (Y, X), (0, 1)),
    "select": (lambda m, x, y: m.select(x > y, x, y), (X, Y), (0, 1)),
    "igamma": (lambda m, a, x: m.igamma(a, x), (POS, BIG), (1,)),
    "igammac": (lambda m, a, x: m.igammac(a, x), (POS, BIG), (1,)),
    "round": (lambda m, x: m.round(x), (np.array([0.5, 1.5, -2.5, 2.4, -0.49999999999999994, 3.7]),), None),
    "round-even": (lambda m, x: m.round(x, m.RoundingMethod.TO_NEAREST_EVEN), (np.array([0.5, 1.5, -2.5, 2.6]),),
                   None),
    "compare": (lambda m, x, y: m.select(m.bitwise_and(m.lt(x, y), m.ne(x, y)), x,
                                         m.select(m.bitwise_or(m.ge(x, 0.0), m.eq(y, 0.0)), y, -x)), (X, Y), (0, 1)),
    "compare2": (lambda m, x, y: m.select(m.bitwise_xor(m.le(x, y), m.bitwise_not(m.gt(y, 0.0))), x, y), (X, Y),
                 (0, 1)),
    "is_finite": (lambda m, x: m.is_finite(x), (np.array([1.0, np.inf, -np.inf, np.nan, -0.0]),), None),
    "convert": (lambda m, x: m.convert_element_type(x * 3, np.int32), (X,), None),
    "complex": (lambda m, x, y: m.real(m.mul(m.conj(m.complex(x, y)), m.complex(y, x)))
                + m.imag(m.complex(x, y)), (X, Y), (0, 1)),
    # shape
    "reshape": (lambda m, x: m.reshape(x, (2, 6)), (X,), (0,)),
    "reshape-dims": (lambda m, x: m.reshape(x, (6, 2), dimensions=(1, 0)), (X,), (0,)),
    "broadcast": (lambda m, x: m.broadcast(x, (2,)), (X,), (0,)),
    "broadcast_in_dim": (lambda m, x: m.broadcast_in_dim(x[:, :1], (2, 3, 4), (1, 2)), (X,), (0,)),
    "squeeze-expand": (lambda m, x: m.expand_dims(m.squeeze(x[:1], (0,)), (0, 2)), (X,), (0,)),
    "transpose-rev": (lambda m, x: m.rev(m.transpose(x[None], (2, 0, 1)), (0, 2)), (X,), (0,)),
    "concatenate": (lambda m, x, y: m.concatenate([x, y, x], 1), (X, Y), (0, 1)),
    "pad": (lambda m, x, v: m.pad(x, v, [(1, 2, 1), (-1, 3, 2)]), (X, np.float64(0.3)), (0, 1)),
    "pad-crop": (lambda m, x: m.pad(x, 0.0, [(-1, -1, 0), (2, -3, 1)]), (X,), (0,)),
    "slice": (lambda m, x: m.slice(x, (0, 1), (3, 4), (2, 2)), (X,), (0,)),
    "slice_in_dim": (lambda m, x: m.slice_in_dim(x, 1, -1, 1, axis=1), (X,), (0,)),
    "index_in_dim": (lambda m, x: m.index_in_dim(x, -1, 1, keepdims=False), (X,), (0,)),
    "dynamic_slice": (lambda m, x, i, j: m.dynamic_slice(x, (i, j), (2, 2)), (X, np.int64(2), np.int64(-1)), (0,)),
    "dynamic_slice-static": (lambda m, x: m.dynamic_slice(x, (1, 7), (2, 3)), (X,), (0,)),
    "dynamic_update_slice": (lambda m, x, u, i: m.dynamic_update_slice(x, u, (i, np.int64(1))),
                             (X, Y[:2, :2], np.int64(5)), (0, 1)),
    "dynamic_slice_in_dim": (lambda m, x, i: m.dynamic_slice_in_dim(x, i, 3, 1), (X, np.int64(-2)), (0,)),
    "dynamic_index_in_dim": (lambda m, x, i: m.dynamic_index_in_dim(x, i, 0, False), (X, np.int64(1)), (0,)),
    "dynamic_update_slice_in_dim": (lambda m, x, u, i: m.dynamic_update_slice_in_dim(x, u, i, 1),
                                    (X, Y[:, :2], np.int64(1)), (0, 1)),
    "collapse": (lambda m, x: m.collapse(x[None], 1), (X,), (0,)),
    "iota": (lambda m, x: m.mul(x, m.convert_element_type(m.broadcasted_iota(np.int32, (3, 4), 1), np.float64))
             + m.iota(np.float64, 4), (X,), (0,)),
    "full": (lambda m, x: m.full((3, 4), 2.5) * x + m.full_like(x, 1.0) + m.full_like(x, 3, np.int32, (3, 4)),
             (X,), (0,)),
    # reductions and scans
    "reduce_sum": (lambda m, x: m.reduce_sum(x, (1,)), (X,), (0,)),
    "reduce_max": (lambda m, x: m.reduce_max(x, (0, 1)), (X,), (0,)),
    "reduce_min": (lambda m, x: m.reduce_min(x, (0,)), (X,), (0,)),
    "reduce_prod": (lambda m, x: m.reduce_prod(x, (1,)), (X,), (0,)),
    "reduce_and-or": (lambda m, x: m.select(m.reduce_and(x > -0.9, (1,)), m.reduce_or(x > 0.5, (1,)),
                                            m.reduce_or(x < -0.5, (1,))), (X,), None),
    "argmax": (lambda m, x: m.argmax(x, 1, np.int32), (X,), None),
    "argmin": (lambda m, x: m.argmin(x, 0, np.int64), (X,), None),
    "cumsum": (lambda m, x: m.cumsum(x, 1, reverse=True), (X,), (0,)),
    "cumprod": (lambda m, x: m.cumprod(x, 0), (X,), (0,)),
    "cummax": (lambda m, x: m.cummax(x, 1), (X,), (0,)),
    "cummin": (lambda m, x: m.cummin(x, 1, reverse=True), (X,), (0,)),
    "cumlogsumexp": (lambda m, x: m.cumlogsumexp(x, 1), (X,), (0,)),
    "cumlogsumexp-reverse": (lambda m, x: m.cumlogsumexp(x, 0, reverse=True), (X,), (0,)),
    "sort": (lambda m, x: m.sort(x, dimension=0), (X,), (0,)),
    "sort-keys": (lambda m, k, x: m.sort((k, x, -x), dimension=1, num_keys=2)[2],
                  (np.round(X * 2), Y), (1,)),
    "sort_key_val": (lambda m, k, x: m.sort_key_val(k, x)[1], (X, Y), (1,)),
    "top_k": (lambda m, x: m.top_k(x, 2)[0], (X,), (0,)),
    "top_k-index": (lambda m, x: m.top_k(x, 3)[1], (np.array([[1., 3, 3, 2], [0, 0, 1, 0]]),), None),
    "reduce_window-add": (lambda m, x: m.reduce_window(x, 0.0, m.add, (1, 1, 2, 3), (1, 1, 2, 1), "SAME"),
                          (IMG,), (0,)),
    "reduce_window-max": (lambda m, x: m.reduce_window(x, -np.inf, m.max, (2, 2), (1, 2), [(1, 0), (2, 1)]),
                          (X,), (0,)),
    "reduce_window-min-dilated": (lambda m, x: m.reduce_window(x, np.inf, m.min, (3, 2), (1, 1), "VALID",
                                                               base_dilation=(2, 1)), (X,), (0,)),
    "reduce_window-add-op": (lambda m, x: m.reduce_window(x, 0.0, operator.add, (2,), (3,), [(0, 2)]), (V,), None),
    # an init value that is not the identity joins each window once; padding holds the identity (XLA's values;
    # JAX has no derivative of reduce_window with such an init to compare with)
    "reduce_window-add-init": (lambda m, x: m.reduce_window(x, 1.5, m.add, (2, 2), (1, 2), "SAME",
                                                            base_dilation=(2, 1)), (X,), None),
    "reduce_window-max-init": (lambda m, x: m.reduce_window(x, 0.25, m.max, (2, 3), (1, 1), [(1, 1), (2, 0)]),
                               (X,), None),
    # linear algebra
    "dot": (lambda m, x, y: m.dot(x, y.T), (X, Y), (0, 1)),
    "dot-vec": (lambda m, x, v: m.dot(x, v[:4]), (X, V), (0, 1)),
    "dot_general": (lambda m, a, b: m.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))), (A3, B3), (0, 1)),
    "dot_general-perm": (lambda m, a, b: m.dot_general(a, b, (((0, 2), (2, 0)), ((), ()))),
                         (A3, np.transpose(A3, (2, 1, 0))[:, :2]), (0, 1)),
    "batch_matmul": (lambda m, a, b: m.batch_matmul(a, b), (A3, B3), (0, 1)),
    "conv_general_dilated": (lambda m, x, w: m.conv_general_dilated(x, w, (2, 1), [(1, 2), (0, 1)], (1, 1), (1, 2)),
                             (IMG, KER), (0, 1)),
    "conv_general_dilated-nhwc": (lambda m, x, w: m.conv_general_dilated(
        x, w, (1, 2), "SAME", None, (2, 1), ("NHWC", "HWIO", "NHWC")),
        (np.transpose(IMG, (0, 2, 3, 1)), np.transpose(KER, (2, 3, 1, 0))), (0, 1)),
    "conv_general_dilated-groups": (lambda m, x, w: m.conv_general_dilated(
        x, w, (1, 1), [(-1, 1), (1, 1)], (2, 1), None, ("NCHW", "OIHW", "NHWC"), feature_group_count=3),
        (IMG, KER_G6), (0, 1)),
    "conv": (lambda m, x, w: m.conv(x, w, (1, 1), "VALID"), (IMG, KER), (0, 1)),
    "conv_with_general_padding": (lambda m, x, w: m.conv_with_general_padding(
        x, w, (1, 2), [(2, 1), (1, 1)], (2, 1), (1, 1)), (IMG, KER), (0, 1)),
    # linalg
    "linalg.cholesky": (lambda m, a: m.linalg.cholesky(a), (SPD,), (0,)),
    "linalg.eigh-w": (lambda m, a: m.linalg.eigh(a)[1], (SPD,), (0,)),
    "linalg.eigh-v": (lambda m, a: m.linalg.eigh(a)[0] * m.linalg.eigh(a)[0][:1], (SPD,), (0,)),
    "linalg.qr": (lambda m, a: m.linalg.qr(a[:, :3], full_matrices=False)[1], (SPD,), (0,)),
    "linalg.svd": (lambda m, a: m.linalg.svd(a, compute_uv=False), (SPD,), (0,)),
    "linalg.triangular_solve": (lambda m, a, b: m.linalg.triangular_solve(a, b, left_side=True, lower=True),
                                (TRI, X.T), (0, 1)),
    "linalg.triangular_solve-right": (lambda m, a, b: m.linalg.triangular_solve(a, b, transpose_a=True),
                                      (TRI.T, X), (0, 1)),
}
UNARY = {
    "neg": X, "sign": X, "abs": X, "exp": X, "exp2": X, "log": POS, "log1p": POS, "expm1": X, "sqrt": POS,
    "rsqrt": POS, "cbrt": X, "tanh": X, "logistic": X, "sin": X, "cos": X, "tan": X, "asin": UNIT, "acos": UNIT,
    "atan": X, "sinh": X, "cosh": X, "asinh": X, "acosh": BIG, "atanh": UNIT, "erf": X, "erfc": X, "erf_inv": UNIT,
    "lgamma": POS, "digamma": POS, "square": X, "reciprocal": POS, "floor": X * 3, "ceil": X * 3,
}
NOT_DIFFERENTIABLE = ("floor", "ceil", "sign")


@pytest.mark.parametrize("name", list(CASES))
def test_lax_matches_jax(name):
    call, args, argnums = CASES[name]
    assert_matches_jax(name, call, args, argnums, flax_, RNG)


def test_unary_functions_match_jax():
    """The one-operand functions, JAX's values and gradients from one jit (one compilation for all)."""
    def reference(inputs):
        return {n: (getattr(jlax, n)(x), jax.grad(lambda v: jnp.sum(getattr(jlax, n)(v)))(x))
                for n, x in inputs.items()}
    want = jax.jit(reference)(UNARY)
    traced = frame.function(lambda inputs: {n: getattr(flax_, n)(x) for n, x in inputs.items()})(UNARY)
    for name, x in UNARY.items():
        value, gradient = want[name]
        assert_same_values(getattr(flax_, name)(x), value, f"{name} eager")
        assert_same_values(traced[name], value, f"{name} traced")
        if name not in NOT_DIFFERENTIABLE:
            got = frame.grad(lambda v: fnp.sum(getattr(flax_, name)(v)))(x)
            assert_same_values(got, gradient, f"{name} gradient")


def test_control_flow_matches_jax():
    def program(m, x):
        def body(i, c):
            return m.cond(c[0, 0] > 0, lambda v: v * 0.9, lambda v: v + 0.1, c)
        y = m.fori_loop(0, 3, body, x)
        y = m.switch(1, [lambda v: v, lambda v: m.sin(v), lambda v: -v], y)
        carry, ys = m.scan(lambda c, v: (c + v, c * v), m.reduce_sum(y, (0,)) * 0.0, y)
        s = m.map(lambda r: m.reduce_sum(r * r, (0,)), ys)
        # reverse mode of a while loop is refused by both; its operand here is a constant for the gradient
        k = m.while_loop(lambda c: c[1] < 3, lambda c: (c[0] * 1.5, c[1] + 1), (m.stop_gradient(s), 0))[0]
        z = s * k
        return m.associative_scan(operator.add, z) + m.stop_gradient(carry).sum()
    x = RNG.uniform(-1, 1, (3, 4))
    want = np.asarray(jax.jit(lambda v: program(jlax, v))(x))
    assert_same_values(program(flax_, x), want, "control eager")
    assert_same_values(frame.function(lambda v: program(flax_, v))(x), want, "control traced")
    got = frame.grad(lambda v: fnp.sum(program(flax_, v)))(x)
    assert_same_values(got, jax.jit(jax.grad(lambda v: jnp.sum(program(jlax, v))))(x), "control gradient")


def test_second_derivatives_match_jax():
    """Compositions differentiate again: the Hessian-vector product of pad, dynamic_slice and cumlogsumexp."""
    def f(m, x):
        return m.reduce_sum(m.cumlogsumexp(m.pad(m.dynamic_slice(x, (1, 0), (2, 3)), 0.5, [(1, 0, 1), (0, 1, 0)]),
                                           1) ** 2, (0, 1))
    got = frame.grad(lambda v: fnp.sum(frame.grad(lambda u: f(flax_, u))(v) * Y))(X)
    want = jax.jit(jax.grad(lambda v: jnp.sum(jax.grad(lambda u: f(jlax, u))(v) * Y)))(X)
    assert_same_values(got, want, "hvp")


@pytest.mark.parametrize("call, message", [
    (lambda: flax_.add(X, X.astype(np.float32)), "same dtypes"),
    (lambda: flax_.mul(X, V), "one shape"),
    (lambda: flax_.add(X, np.ones((3, 4), np.int64)), "same dtypes"),
    (lambda: flax_.exp(np.arange(3)), "floating-point"),
    (lambda: flax_.select(X, X, Y), "pred must be bool"),
    (lambda: flax_.bitwise_and(X, X), "integer or bool operands"),
    (lambda: flax_.shift_left(X > 0, X > 0), "integer operands"),
    (lambda: flax_.pad(X, np.float32(0), [(0, 0, 0)] * 2), "padding_value"),
    (lambda: flax_.pad(X, 0.0, [(0, 0, 0)]), "padding_config"),
    (lambda: flax_.slice(X, (0, 0), (4, 4)), "do not fit"),
    (lambda: flax_.dynamic_slice(X, (0, 0), (4, 1)), "slice sizes"),
    (lambda: flax_.broadcast_in_dim(X, (3, 5), (0, 1)), "broadcast_in_dim"),
    (lambda: flax_.reshape(X, (5, 2)), "cannot reshape"),
    (lambda: flax_.dot_general(A3, B3, (((2,), (2,)), ((0,), (0,)))), "do not match"),
    (lambda: flax_.dot(A3, B3), "rank-1 or rank-2"),
    (lambda: flax_.batch_matmul(A3, B3[0]), "batch_matmul"),
    (lambda: flax_.conv_general_dilated(IMG, KER, (1, 1), "SAME", (2, 2)), "string padding"),
    (lambda: flax_.conv_general_dilated(IMG, KER, (1, 1), "VALID", batch_group_count=2), "batch_group_count"),
    (lambda: flax_.conv_general_dilated(IMG, KER, (1, 1), "VALID", dimension_numbers=("NCHW", "OIHW", "NCWX")),
     "dimension_numbers"),
    (lambda: flax_.reduce_window(X, 0.0, lambda a, b: a * b, (2, 2)), "reducers add, max and min"),
    (lambda: flax_.reduce_window(X, 0.0, flax_.add, (2, 2), window_dilation=(2, 1)), "window_dilation"),
    (lambda: flax_.top_k(X, 5), "top_k"),
    (lambda: flax_.sort((X, V), num_keys=1), "share one shape"),
    (lambda: flax_.linalg.cholesky(X), "square"),
    (lambda: flax_.linalg.qr(SPD, pivoting=True), "pivoting"),
])
def test_refusals_name_the_function(call, message):
    with pytest.raises(ShapeError, match=message):
        call()


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_bitwise_functions_and_shifts_are_laxs(dtype):
    rng = np.random.default_rng(5)
    bits = 8 * np.dtype(dtype).itemsize
    x = rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, 40, dtype=dtype)
    y = rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, 40, dtype=dtype)
    s = np.concatenate([np.arange(bits + 2), [-1, -bits, 2 * bits]]).astype(dtype)[:40]
    s = np.resize(s, 40).astype(dtype)
    for name, args in [("bitwise_and", (x, y)), ("bitwise_or", (x, y)), ("bitwise_xor", (x, y)),
                       ("bitwise_not", (x,)), ("population_count", (x,)), ("shift_left", (x, s)),
                       ("shift_right_arithmetic", (x, s)), ("shift_right_logical", (x, s))]:
        want = np.asarray(getattr(jlax, name)(*args))
        for got in (getattr(flax_, name)(*args), frame.function(getattr(flax_, name))(*args)):
            np.testing.assert_array_equal(got, want, err_msg=name)
            assert np.asarray(got).dtype == want.dtype, name


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_div_and_rem_are_laxs_including_by_zero(dtype):
    # XLA defines x / 0 = -1 and x rem 0 = x for integers (numpy gives 0 with a warning); MIN / -1 wraps.
    low = np.iinfo(dtype).min
    x = np.array([7, -7, 0, 5, -5, low, low, -9, 9], dtype=dtype)
    y = np.array([0, 0, 0, -2, 2, -1, 0, 4, -4], dtype=dtype)
    for name in ("div", "rem"):
        want = np.asarray(getattr(jlax, name)(x, y))
        for got in (getattr(flax_, name)(x, y), frame.function(getattr(flax_, name))(x, y)):
            np.testing.assert_array_equal(got, want, err_msg=name)
