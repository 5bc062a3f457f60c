"""`from_jax` of elementwise math: the translated primitives (lax.round by both rounding methods,
float lax.rem as fmod, integer lax.rem with XLA's x rem 0 = x, lax.pow with a computed exponent) give JAX's
values, bit for bit where frame computes exactly, and frame's derivatives of imported functions match jax.grad."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import frame
from frame.compiler import build_backward_graph
from frame.interop import from_jax


def _run(fn, *args):
    graph = from_jax(fn, *args)
    with jax.enable_x64(True):
        expected = fn(*args)
    expected = expected if isinstance(expected, tuple) else (expected,)
    return graph, frame.runtime.compile(graph)(*args), [np.asarray(e) for e in expected]


def _assert_grads_are_jaxs(fn, *args, rtol=1e-13):
    """frame's gradient of the imported scalar `fn` against jax.grad of `fn` itself, every argument."""
    graph = from_jax(fn, *args)
    ours = frame.runtime.compile(build_backward_graph(graph, 0, list(range(len(args)))))(*args)[1:]
    with jax.enable_x64(True):
        theirs = jax.grad(fn, argnums=tuple(range(len(args))))(*args)
    for g, w in zip(ours, theirs):
        np.testing.assert_allclose(g, np.asarray(w), rtol=rtol, atol=1e-14)


ROUNDING = np.array([-2.5, -1.5, -0.5, -0.3, -0.0, 0.3, 0.5, 1.5, 2.5, 0.49999999999999994, 4503599627370495.5,
                     1e300, np.inf, -np.inf, np.nan, 7.7, -7.7])


@pytest.mark.parametrize("method", [lax.RoundingMethod.AWAY_FROM_ZERO, lax.RoundingMethod.TO_NEAREST_EVEN])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_round_imports_both_rounding_methods_bit_for_bit(method, dtype):
    with np.errstate(over="ignore"):
        x = ROUNDING.astype(dtype)   # 1e300 is inf in float32
    graph, (got,), (want,) = _run(lambda v: lax.round(v, method), x)
    assert ("rint" in [n.op for n in graph.nodes]) == (method == lax.RoundingMethod.TO_NEAREST_EVEN)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))     # -0.0 kept


def test_round_has_a_zero_derivative_like_jax():
    _assert_grads_are_jaxs(lambda v: jnp.sum(lax.round(v) * v + lax.round(v, lax.RoundingMethod.TO_NEAREST_EVEN)),
                           np.array([0.3, 1.7, -2.2]))


def test_float_rem_imports_as_fmod_with_jaxs_values_and_derivatives():
    a = np.array([5.5, -5.5, 3.0, -0.0, 7.25])
    b = np.array([2.0, 2.0, -0.7, 3.0, -2.5])
    graph, (got,), (want,) = _run(lax.rem, a, b)
    assert [n.op for n in graph.nodes] == ["fmod"]
    np.testing.assert_array_equal(got, want)

    def loss(u, v):
        return jnp.sum(lax.rem(u, v) * u)

    _assert_grads_are_jaxs(loss, a, b)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_rem_imports_with_xlas_remainder_by_zero(dtype):
    x = np.array([7, -7, 5, 0, -9, 2**30], dtype)
    y = np.array([3, 3, 0, 0, -4, -7], dtype)     # C's sign rule, and x rem 0 = x (numpy's fmod gives 0)
    graph, (got,), (want,) = _run(lax.rem, x, y)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype


def test_pow_with_a_computed_exponent_imports_as_power():
    a, b = np.array([0.5, 1.5, 2.0, 3.0]), np.array([2.0, -0.5, 0.3, 1.0])
    graph, (got,), (want,) = _run(lambda u, v: u ** v, a, b)
    assert [n.op for n in graph.nodes] == ["power"]
    np.testing.assert_allclose(got, want, rtol=1e-15)
    constant, _, _ = _run(lambda u: u ** jnp.full(4, 1.5), a)   # a constant exponent stays frame's pow
    assert "pow" in [n.op for n in constant.nodes] and "power" not in [n.op for n in constant.nodes]

    def loss(u, v):
        return jnp.sum(jnp.sin(u ** v))

    _assert_grads_are_jaxs(loss, a, b, rtol=1e-12)


def test_one_to_one_math_primitives_compose_and_differentiate_like_jax():
    def f(x, y):
        z = jnp.tan(0.5 * x) + jnp.arcsin(0.5 * x) + jnp.arccos(0.4 * y) + jnp.arctan(x) + jnp.arctan2(x, y)
        z = z + jnp.sinh(x) * jnp.cosh(y) + jnp.arcsinh(y) + jnp.arccosh(y * y + 1.5) + jnp.arctanh(0.5 * y)
        z = z + jnp.log1p(x * x) + jnp.expm1(y) + jnp.exp2(x) + lax.erf(x) * lax.erfc(y)
        return jnp.sum(z + jnp.floor(x) * jnp.ceil(y))

    rng = np.random.default_rng(0)
    x, y = rng.uniform(-0.9, 0.9, (3, 4)), rng.uniform(-0.9, 0.9, (3, 4))
    graph, (got,), (want,) = _run(f, x, y)
    np.testing.assert_allclose(got, want, rtol=1e-13)
    _assert_grads_are_jaxs(f, x, y, rtol=1e-12)


def test_an_accuracy_request_is_refused():
    x = np.array([0.5, 1.0])
    with pytest.raises(frame.errors.TraceError, match=r"primitive 'tan'.*accuracy"):
        from_jax(lambda v: lax.tan(v, accuracy=lax.Tolerance(atol=1e-3, rtol=1e-3, ulps=0)), x)


@pytest.mark.parametrize("fn", [jnp.remainder, jnp.floor_divide, jnp.fmod, jnp.hypot, jnp.arctan2,
                                lambda x, y: jnp.trunc(x) + jnp.round(y, 1) + jnp.log2(x * x) * jnp.log10(y * y)],
                         ids=["remainder", "floor_divide", "fmod", "hypot", "arctan2", "trunc-round-logs"])
def test_jnp_functions_built_of_rem_round_and_selects_import_exactly(fn):
    a, b = np.array([5.5, -5.5, 3.0, 7.0, -0.25]), np.array([2.0, 2.0, -0.7, -2.0, 3.0])
    _, (got,), (want,) = _run(fn, a, b)
    np.testing.assert_allclose(got, want, rtol=1e-15)
    _assert_grads_are_jaxs(lambda u, v: jnp.sum(fn(u, v) * u), a, b)
