"""Ops whose numpy counterparts change or refuse dtypes: frame follows numpy or refuses (issues 12, 14)."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame import ShapeError


@pytest.mark.parametrize("call", [lambda: fnp.negative(np.array([True])), lambda: -np.array([True]) * 0,
                                  lambda: fnp.subtract(np.array([True]), np.array([False]))])
def test_bool_negation_and_subtraction_are_refused_as_numpy_refuses_them(call):
    with pytest.raises((ShapeError, TypeError)):
        call()
    with pytest.raises(ShapeError, match="bool"):
        frame.function(lambda a: -a)(np.array([True, False]))


def test_true_division_of_integers_gives_floats_as_numpy_does_never_truncates():
    for a, b in [(np.array([1]), np.array([2])), (np.array([1], np.int32), 2), (1, np.array([2]))]:
        want = np.divide(a, b)
        for got in (fnp.divide(a, b), frame.function(lambda x, y: x / y)(a, b)):
            assert got.dtype == want.dtype == np.float64
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("x", [np.array([True, True, False]), np.full((2, 3), 2 ** 30, np.int32),
                               np.ones((2, 0), bool)])
@pytest.mark.parametrize("axis", [None, 0, ()])
def test_sums_of_bool_and_int32_accumulate_in_int64_like_numpy(x, axis):
    want = np.sum(x, axis=axis)
    for got in (fnp.sum(x, axis=axis), frame.function(lambda v: fnp.sum(v, axis=axis))(x)):
        assert got.dtype == want.dtype == np.int64
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softplus_at_the_infinities(dtype):
    x = np.array([np.inf, -np.inf, 0.0, 30.0, -30.0], dtype)
    want = np.logaddexp(np.zeros((), dtype), x)
    for got in (fnp.softplus(x), frame.function(fnp.softplus)(x)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-12)
    g = frame.grad(lambda v: fnp.sum(fnp.softplus(v)))(x)
    np.testing.assert_allclose(g, 1 / (1 + np.exp(-x)), rtol=1e-6, atol=1e-7)  # sigmoid(-30) underflows in f32


@pytest.mark.parametrize("dtype, ulp", [("float64", 2.3e-16), ("float32", 2.4e-7)])
def test_sigmoid_keeps_its_relative_accuracy_in_both_tails(dtype, ulp):
    # scipy's expit is the reference; 0.5 + 0.5 tanh(x / 2) gave 0 below x = -37 (float64) and
    # lost digits long before, which log(sigmoid(x)) then turns into -inf
    from scipy.special import expit
    x = np.concatenate([np.linspace(-700, 700, 4001), [0.0, -0.0]]).astype(dtype)
    want = expit(x)
    tiny = want > 0
    for got in (fnp.sigmoid(x), frame.function(fnp.sigmoid)(x)):
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_allclose(got[tiny], want[tiny], rtol=ulp, atol=0)
        assert np.all(got[~tiny] < np.finfo(dtype).tiny)   # scipy's float32 loop flushes subnormals to 0
    edges = np.array([np.inf, -np.inf, np.nan], dtype)
    np.testing.assert_array_equal(fnp.sigmoid(edges), [1.0, 0.0, np.nan])
