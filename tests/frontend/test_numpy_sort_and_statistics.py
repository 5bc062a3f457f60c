"""frame.numpy's sorting, order statistics and numpy-2 additions beyond the agreement table
(tests/frontend/cases_*.py): refusals by name, a traced q, and sort's derivative with ties."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.errors import LinAlgError, ShapeError, TraceError


@pytest.mark.parametrize("call, error, pattern", [
    (lambda: fnp.searchsorted(np.ones((2, 2)), 0.5), ShapeError, r"searchsorted: a must be 1-d, got shape \(2, 2\)"),
    (lambda: fnp.searchsorted(np.arange(3.0), 0.5, side="middle"), ShapeError, "side must be 'left' or 'right'"),
    (lambda: fnp.interp(np.ones(2), np.arange(3.0), np.arange(3.0), period=1.0), TraceError, r"interp: .*period="),
    (lambda: fnp.interp(np.ones(2), np.arange(3.0), np.arange(4.0)), ShapeError, r"xp and fp must be 1-d of one"),
    (lambda: fnp.quantile(np.ones(4), 1.5), ShapeError, r"quantiles must be in the range \[0, 1\]"),
    (lambda: fnp.quantile(np.ones(4), 0.5, method="hazen"), ShapeError, "method must be one of linear"),
    (lambda: fnp.median(np.ones((0, 3)), axis=0), ShapeError, r"median: the axes \(0,\) of shape \(0, 3\) hold no"),
    (lambda: fnp.median(np.ones(3, dtype=complex)), ShapeError, "median: needs real numbers, got complex128"),
    (lambda: fnp.sort(np.ones(3), order="x"), TraceError, r"sort: the argument\(s\) order="),
    (lambda: fnp.sort(np.ones(3), kind="bogo"), ShapeError, "kind must be one of"),
    (lambda: fnp.average(np.ones(3), weights=np.zeros(3)), ShapeError, "weights sum to zero"),
    (lambda: fnp.average(np.ones((2, 3)), weights=np.ones(3)), ShapeError, "axis must be given"),
    (lambda: fnp.gradient(np.ones(2), edge_order=2), ShapeError, r"too short; it needs at least edge_order \+ 1 = 3"),
    (lambda: fnp.gradient(np.ones((3, 4)), np.arange(3.0), np.arange(3.0)), ShapeError, "coordinates of axis 1"),
    (lambda: fnp.cross(np.ones(4), np.ones(3)), ShapeError, "dimension must be 2 or 3"),
    (lambda: fnp.linalg.matrix_power(np.ones((2, 3)), 2), LinAlgError, "must be square"),
    (lambda: fnp.cumulative_sum(np.ones((2, 2))), ShapeError, "axis must be given for an array of rank 2"),
    (lambda: fnp.diff(np.asarray(1.0)), ShapeError, "at least one dimensional"),
    (lambda: fnp.rot90(np.ones((2, 2)), axes=(0, 0)), ShapeError, "axes must be different"),
    (lambda: fnp.nanargmax(np.array([[1.0, np.nan], [np.nan, np.nan]]), axis=1), ShapeError, "All-NaN slice"),
    (lambda: fnp.delete(np.ones(3), 5), ShapeError, "index 5 is out of bounds for axis 0 with size 3"),
    (lambda: fnp.convolve(np.ones(3), np.ones(2), mode="circular"), ShapeError, "mode must be 'full', 'same' or"),
    (lambda: fnp.convolve(np.ones((2, 2)), np.ones(2)), ShapeError, r"convolve: needs two 1-d arrays"),
    (lambda: fnp.digitize(np.ones(3), np.array([0.0, 2.0, 1.0])), ShapeError, "monotonically increasing or decreasing"),
    (lambda: fnp.geomspace(0.0, 1.0, 3), ShapeError, r"geomspace\(0.0, 1.0\)"),
    (lambda: fnp.linalg.pinv(np.ones((2, 2), complex)), ShapeError, "op 'svd' needs a float operand"),
    (lambda: fnp.linalg.pinv(np.eye(2), rcond=0.1, rtol=0.1), ShapeError, "can't be both set"),
])
def test_bad_arguments_are_refused_by_name(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


def test_a_traced_q_gives_numpy_values_and_jax_derivatives():
    jnp = pytest.importorskip("jax.numpy")
    import jax
    jax.config.update("jax_enable_x64", True)
    x, q = np.random.default_rng(0).normal(size=(3, 7)), np.array([0.15, 0.45, 0.8])   # off the knots j / 6
    got = frame.function(lambda x, q: fnp.quantile(x, q, axis=1))(x, q)
    np.testing.assert_allclose(got, np.quantile(x, q, axis=1), rtol=1e-13)
    np.testing.assert_allclose(frame.function(lambda x, q: fnp.percentile(x, q))(x, q * 100), np.percentile(x, q * 100),
                               rtol=1e-13)
    grad_q = frame.grad(lambda q: fnp.sum(fnp.quantile(x, q, axis=1) ** 2))(q)   # the weight moves with q
    np.testing.assert_allclose(grad_q, jax.grad(lambda q: jnp.sum(jnp.quantile(x, q, axis=1) ** 2))(q), rtol=1e-12)


def test_sort_sends_each_cotangent_to_its_element_ties_included():
    x = np.array([2.0, -1.0, 2.0, 0.5])
    weights = np.array([1.0, 10.0, 100.0, 1000.0])
    # sorted: -1 (x1), 0.5 (x3), 2 (x0), 2 (x2): stable, so the first 2 takes slot 2
    np.testing.assert_array_equal(frame.grad(lambda x: fnp.sum(fnp.sort(x) * weights))(x), [100.0, 1.0, 1000.0, 10.0])
    np.testing.assert_array_equal(fnp.argsort(x), [1, 3, 0, 2])


def test_traced_sort_and_median_batch_under_vmap():
    x = np.random.default_rng(1).normal(size=(4, 5))
    np.testing.assert_array_equal(frame.vmap(fnp.sort)(x), np.sort(x, axis=1))
    np.testing.assert_allclose(frame.vmap(fnp.median)(x), np.median(x, axis=1), rtol=1e-15)


def test_dtype_information_follows_numpy_for_traced_values_too():
    assert fnp.finfo(fnp.float32).eps == np.finfo(np.float32).eps and fnp.iinfo("int32").max == 2 ** 31 - 1
    seen = {}

    def f(x, k):
        seen["x"], seen["x+1.0"], seen["x,k"] = fnp.result_type(x), fnp.result_type(x, 1.0), fnp.result_type(x, k)
        return x

    frame.trace(f, np.ones(2, np.float32), np.ones(2, np.int64))
    assert seen == {"x": np.float32, "x+1.0": np.float32, "x,k": np.float64}


@pytest.mark.parametrize("name, args", [
    ("deg2rad", ([90, 180.0],)), ("rad2deg", ([1.0, 2.0],)), ("isclose", ([1.0, 2.0], [1.0, 2.1])),
    ("allclose", ([1.0, 2.0], [1.0, 2.0])), ("array_equal", ([1, 2], [1, 2])), ("fmax", ([1.0, np.nan], [0.0, 3.0])),
    ("interp", ([0.5, 1.5], [0, 1, 2], [0.0, 10.0, 5.0])), ("searchsorted", ([1, 2, 3], [2.5, 0])),
    ("median", ([3, 1, 2, 5],)), ("quantile", ([3.0, 1.0, 2.0], [0.25, 0.5])), ("diff", ([1, 4, 9, 16],)),
    ("gradient", ([1.0, 4.0, 9.0, 16.0],)), ("trapezoid", ([1.0, 2.0, 4.0], [0.0, 1.0, 3.0])),
    ("cross", ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0])), ("polyval", ([1.0, -2.0, 3.0], [0.5, 2.0])),
    ("convolve", ([1, 2, 3], [0, 1, 0.5])), ("correlate", ([1.0, 2.0, 3.0], [0.0, 1.0])),
])
def test_lists_are_taken_as_arrays_as_numpy_takes_them(name, args):
    got, want = getattr(fnp, name)(*args), getattr(np, name)(*args)
    np.testing.assert_allclose(got, want, rtol=1e-14)
    assert np.asarray(got).dtype == np.asarray(want).dtype


def test_bincount_of_concrete_values_takes_numpy_length_rule():
    x = np.array([0, 3, 3, 1])
    np.testing.assert_array_equal(fnp.bincount(x), np.bincount(x))
    np.testing.assert_array_equal(fnp.bincount(x, minlength=6), np.bincount(x, minlength=6))
    np.testing.assert_allclose(fnp.bincount(x, np.array([0.5, 1, 2, 4])), np.bincount(x, np.array([0.5, 1, 2, 4])))
    with pytest.raises(ShapeError, match="give length= for traced x"):
        frame.function(fnp.bincount)(x)
    with pytest.raises(ShapeError, match="must be non-negative"):
        fnp.bincount(np.array([1, -1]))
    # JAX's rule for traced values beyond length: not counted
    np.testing.assert_array_equal(frame.function(lambda x: fnp.bincount(x, length=2))(x), [1, 1])


def test_infinite_and_nan_operands_do_not_leak_into_weights_identity_or_powers():
    # results built as x * 0 + c would turn inf/nan operands into nan where numpy gives c
    a = np.array([[1.0, np.inf], [2.0, 3.0]])
    np.testing.assert_array_equal(fnp.average(a, axis=0, weights=np.ones((2, 2)), returned=True)[1], [2.0, 2.0])
    np.testing.assert_array_equal(fnp.average(np.array([np.nan, 1.0]), returned=True)[1], 2.0)
    np.testing.assert_array_equal(fnp.linalg.matrix_power(np.array([[np.inf, 0.0], [0.0, 1.0]]), 0), np.eye(2))
    np.testing.assert_array_equal(fnp.vander(np.array([np.inf, 2.0]), 3), np.vander(np.array([np.inf, 2.0]), 3))
