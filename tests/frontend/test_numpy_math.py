"""frame.numpy's elementwise math beyond the agreement table: operators, integer semantics (zero
divisors), nan/inf edge cases, refusals, and the derivatives at the special points of sinc and power."""
import warnings

import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame import ShapeError


def _both(fn, *args):
    """fn eagerly and compiled, each with numpy's warnings silenced (numpy itself warns on these inputs)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(*args), frame.function(fn)(*args)


def assert_same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_division_by_zero_gives_numpys_zeros(dtype):
    a = np.array([7, -7, 0, 5, np.iinfo(dtype).min], dtype)
    b = np.array([0, 0, 0, -2, -1], dtype)
    with np.errstate(all="ignore"):
        want = [np.floor_divide(a, b), np.remainder(a, b), np.fmod(a, b)]
    for got in _both(lambda x, y: (x // y, x % y, fnp.fmod(x, y)), a, b):
        for g, w in zip(got, want):
            assert_same(g, w)


def test_float_remainders_at_zero_and_infinity_are_numpys():
    a = np.array([5.5, -5.5, 1.0, np.inf, 3.0, -0.0, np.nan, 2.0])
    b = np.array([0.0, 2.0, -np.inf, 2.0, np.inf, 3.0, 1.0, -3.0])
    with np.errstate(all="ignore"):
        want = [np.remainder(a, b), np.floor_divide(a, b), np.fmod(a, b)]
    for got in _both(lambda x, y: (fnp.mod(x, y), fnp.floor_divide(x, y), fnp.fmod(x, y)), a, b):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
            assert np.array_equal(np.signbit(g), np.signbit(w)), (g, w)   # -0.0 where numpy has it


def test_operators_and_ufuncs_reach_the_ops():
    x, y = np.array([5.5, -3.0, 7.0]), np.array([2.0, 2.0, -4.0])
    graph = frame.trace(lambda a, b: (a % b, a // b, 3.0 % b, 3.0 // b, np.remainder(a, b), np.floor_divide(a, b),
                                      np.arctan2(a, b), np.floor(a), a ** b, 2.0 ** b, x ** b), x, y)
    ops = [n.op for n in graph.nodes if n.op != "constant"]
    assert ops == ["mod", "floor_divide", "mod", "floor_divide", "mod", "floor_divide", "arctan2", "floor",
                   "power", "power", "power"]
    outs = frame.runtime.compile(graph)(x, y)
    for got, want in zip(outs, (x % y, x // y, 3.0 % y, 3.0 // y, x % y, x // y, np.arctan2(x, y), np.floor(x),
                                x ** y, 2.0 ** y, x ** y)):   # the reflected forms keep the operand order
        np.testing.assert_array_equal(got, want)


def test_rounding_keeps_integers_and_bools_and_rint_promotes_them():
    i = np.array([-3, 0, 4], np.int32)
    for fn in (fnp.floor, fnp.ceil, fnp.trunc, fnp.fix):
        assert_same(fn(i), np.floor(i))
        assert_same(fn(np.array([True, False])), np.array([True, False]))
    assert_same(fnp.rint(i), np.rint(i))                         # float64, as numpy
    assert_same(fnp.round(i, 1), i)
    assert_same(fnp.round(np.array([15, 25, -35], np.int32), -1), np.round(np.array([15, 25, -35], np.int32), -1))


def test_rounding_of_special_values_keeps_signed_zeros():
    x = np.array([-0.5, -0.0, 0.4, -0.4, np.inf, -np.inf, np.nan, 2.5, -1e300])
    for fn, ref in [(fnp.floor, np.floor), (fnp.ceil, np.ceil), (fnp.trunc, np.trunc), (fnp.rint, np.rint),
                    (lambda v: fnp.round(v, 1), lambda v: np.round(v, 1))]:
        for got in _both(fn, x):
            np.testing.assert_array_equal(got, ref(x))
            assert np.array_equal(np.signbit(got), np.signbit(ref(x)))


def test_refusals_name_the_op():
    with pytest.raises(ShapeError, match="'tan' needs a float"):
        fnp.tan(np.array([1j]))
    with pytest.raises(ShapeError, match="'floor' does not take complex"):
        fnp.floor(np.array([1 + 1j]))
    with pytest.raises(ShapeError, match="'mod'"):    # numpy computes bools in int8, which frame lacks
        fnp.mod(np.array([True]), np.array([True]))
    with pytest.raises(ShapeError, match="'sinc' needs a float"):
        fnp.sinc(np.array([1, 2]))
    with pytest.raises(ShapeError, match="'power' needs a float"):
        fnp.power(np.array([2, 3]), np.array([1, 2]))
    with pytest.raises(ShapeError, match="decimals must be an int"):
        fnp.round(np.array([1.5]), 1.5)
    with pytest.raises(ShapeError, match="'power'.*do not broadcast"):
        fnp.power(np.ones(3), np.ones(4))


def test_special_functions_at_the_infinities():
    x = np.array([-np.inf, -30.0, 0.0, 30.0, np.inf, np.nan])
    from scipy import special
    for fn, ref in [(fnp.erf, special.erf), (fnp.erfc, special.erfc), (fnp.expm1, np.expm1), (fnp.sinc, np.sinc),
                    (fnp.arctan, np.arctan), (fnp.tan, np.tan)]:
        for got in _both(fn, x):
            np.testing.assert_array_equal(got, ref(x))
    a, b = np.array([np.inf, -np.inf, 1000.0, -1000.0]), np.array([1.0, -np.inf, 1000.0, 2.0])
    for got in _both(fnp.logaddexp, a, b):
        np.testing.assert_array_equal(got, np.logaddexp(a, b))
    np.testing.assert_allclose(frame.grad(lambda u: fnp.sum(fnp.logaddexp(u, b[2:])))(a[2:]), [0.5, 0.0],  # no overflow
                               rtol=1e-13)


def test_sinc_derivatives_at_and_near_zero():
    """Exact at 0 as JAX's rule; near 0 the series, where (cos(pi x) - sinc(x)) / x (JAX's off 0) cancels."""
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    x = np.array([0.0, 0.5, -1.3])
    first = frame.grad(lambda v: fnp.sum(fnp.sinc(v)))
    second = frame.grad(lambda v: fnp.sum(first(v)))
    with jax.enable_x64(True):
        d1 = jax.vmap(jax.grad(jnp.sinc))(x)
        d2 = jax.vmap(jax.grad(jax.grad(jnp.sinc)))(x)
    np.testing.assert_allclose(first(x), d1, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(second(x), d2, rtol=1e-9, atol=1e-12)
    assert first(x)[0] == 0.0 and second(x)[0] == pytest.approx(-np.pi ** 2 / 3, rel=1e-15)
    near = np.array([1e-9, -0.004, 0.0099])
    np.testing.assert_allclose(first(near), -np.pi ** 2 * near / 3 + np.pi ** 4 * near ** 3 / 30
                               - np.pi ** 6 * near ** 5 / 840, rtol=1e-12)


def test_power_derivatives_at_a_zero_base_and_a_zero_exponent_are_jaxs():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    a = np.array([0.0, 0.0, 2.0, 0.0, 1.5])
    b = np.array([2.0, 0.0, 0.0, 0.5, -1.0])
    ours = frame.grad(lambda u, v: fnp.sum(fnp.power(u, v)), argnums=(0, 1))(a, b)
    with jax.enable_x64(True):
        theirs = jax.grad(lambda u, v: jnp.sum(u ** v), argnums=(0, 1))(a, b)
    for g, w in zip(ours, theirs):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-12)


def test_power_dispatch_keeps_pows_exponent_checks():
    x = np.array([1.0, 2.0], "float32")
    assert [n.op for n in frame.trace(lambda t: t ** 2.0, x).nodes] == ["pow"]
    assert "power" in [n.op for n in frame.trace(lambda t: fnp.power(t, t), x).nodes]
    widened = fnp.power(x, np.float64(2.0))          # a numpy scalar is strong: float64, as numpy
    assert widened.dtype == np.power(x, np.float64(2.0)).dtype == np.float64
    ints = np.arange(-3, 4)
    for p in (0, 1, 2, 5):
        assert_same(frame.function(lambda t: t ** p)(ints), ints ** p)
    assert_same(frame.function(lambda t: t ** 0.5)(np.arange(4)), np.arange(4) ** 0.5)
    with pytest.raises(ShapeError, match="negative integer powers"):
        frame.function(lambda t: t ** -1)(ints)
    with pytest.raises(ShapeError, match="must be a number or an array"):
        fnp.power(x, "2")
    assert_same(fnp.power(x, np.array([2.0, 0.5], "float32")), np.power(x, np.array([2.0, 0.5], "float32")))
