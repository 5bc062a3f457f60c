"""Comparisons, masks and selection on traced values (issue 14 item 2) and ndarray methods (item 8)."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame import ShapeError, TraceError

X = np.array([-2.0, -0.5, 0.0, 0.5, 2.0])


def test_mask_operators_on_tracers_compute_numpys_masks():
    f = frame.function(lambda x: ((x > -1) & (x < 1), (x < -1) | (x > 1), (x > 0) ^ (x >= 0), ~(x == 0)))
    want = ((X > -1) & (X < 1), (X < -1) | (X > 1), (X > 0) ^ (X >= 0), ~(X == 0))
    for got, ref in zip(f(X), want):
        np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(frame.function(lambda x: np.array([True] * 5) & (x > 0))(X), X > 0)


def test_bitwise_operators_on_integers_are_refused_by_name():
    with pytest.raises(ShapeError, match="bitwise_and.*bool values only.*int64"):
        frame.function(lambda i: i & 1)(np.arange(3))


def test_where_needs_three_arguments_and_takes_any_truth_values():
    with pytest.raises(TraceError, match="three arguments"):
        frame.function(lambda x: fnp.where(x > 0))(X)
    np.testing.assert_array_equal(frame.function(lambda x: fnp.where(x, 1.0, 2.0))(X), np.where(X, 1.0, 2.0))


def test_a_hard_constrained_boundary_and_its_gradient():
    # u(x) = where(|x| < 1, x * (1 - |x|), 0): zero outside, differentiable inside; d/dx 1 - 2|x|.
    inside = np.array([-0.5, 0.25, 0.75])
    g = frame.grad(lambda x: fnp.sum(fnp.where(fnp.abs(x) < 1, x * (1 - fnp.abs(x)), 0.0)))(inside)
    np.testing.assert_allclose(g, 1 - 2 * np.abs(inside), rtol=1e-14)
    assert np.all(frame.grad(lambda x: fnp.sum(fnp.where(fnp.abs(x) < 1, x, 0.0)))(np.array([1.5, -3.0])) == 0)


def test_maximum_and_minimum_split_ties_as_jax_does():
    x = np.array([1.0, 2.0, 3.0])
    y = np.array([2.0, 2.0, 2.0])
    ga, gb = frame.grad(lambda a, b: fnp.sum(fnp.maximum(a, b)), argnums=(0, 1))(x, y)
    np.testing.assert_array_equal(ga, [0.0, 0.5, 1.0])
    np.testing.assert_array_equal(gb, [1.0, 0.5, 0.0])
    ga = frame.grad(lambda a: fnp.sum(fnp.minimum(a, 2.0)))(x)
    np.testing.assert_array_equal(ga, [1.0, 0.5, 0.0])


def test_relu_keeps_zero_at_its_kink_unlike_maximum():
    x = np.array([-1.0, 0.0, 1.0])
    np.testing.assert_array_equal(frame.grad(lambda v: fnp.sum(fnp.relu(v)))(x), [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(frame.grad(lambda v: fnp.sum(fnp.abs(v)))(x), [-1.0, 0.0, 1.0])


def test_predicates_and_heaviside_follow_numpy():
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -1.0, 2.0])
    f = frame.function(lambda v: (fnp.isnan(v), fnp.isinf(v), fnp.isfinite(v), fnp.sign(v), fnp.heaviside(v, 0.5)))
    for got, ref in zip(f(x), (np.isnan(x), np.isinf(x), np.isfinite(x), np.sign(x), np.heaviside(x, 0.5))):
        np.testing.assert_array_equal(got, ref)
    assert fnp.isnan(np.arange(3)).dtype == np.bool_


def test_ndarray_methods_on_tracers_call_frame_numpy():
    x = np.arange(6.0).reshape(2, 3)
    f = frame.function(lambda v: (v.sum(axis=0), v.mean(), v.astype("float32"), v.clip(1.0, 4.0), v.T,
                                  v.reshape(3, 2), v.transpose(1, 0), v.swapaxes(0, 1)))
    want = (x.sum(axis=0), x.mean(), x.astype("float32"), x.clip(1.0, 4.0), x.T, x.reshape(3, 2), x.transpose(1, 0),
            x.swapaxes(0, 1))
    for got, ref in zip(f(x), want):
        assert got.dtype == ref.dtype
        np.testing.assert_array_equal(got, ref)
