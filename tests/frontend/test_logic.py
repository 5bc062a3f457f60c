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


def test_bitwise_operators_on_integers_are_numpys():
    i, s = np.array([-9, -1, 0, 6, 2**40], "int64"), np.array([0, 1, 3, 63, 70])
    f = frame.function(lambda i, s: (i & 5, 3 | i, i ^ i >> 1, ~i, i << s, i >> s, fnp.bitwise_count(i)))
    want = (i & 5, 3 | i, i ^ i >> 1, ~i, i << s, i >> s, np.bitwise_count(i).astype("int64"))
    for got, ref in zip(f(i, s), want):
        np.testing.assert_array_equal(got, ref)
        assert got.dtype == ref.dtype
    with pytest.raises(ShapeError, match="bitwise_and.*integer or bool.*f64"):
        frame.function(lambda x: x & 1)(X)
    with pytest.raises(ShapeError, match="right_shift.*integer operands.*f64"):
        frame.function(lambda x: x >> x)(X)
    with pytest.raises(ShapeError, match="left_shift.*bool, bool in int8"):   # numpy's bool loop is int8
        frame.function(lambda m: m << m)(X > 0)


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


# -- choose, compress, piecewise ------------------------------------------------------------------------------
def test_choose_raise_mode_needs_a_concrete_index_array():
    choices = [np.arange(3.0), np.arange(3.0) + 10]
    with pytest.raises(TraceError, match="op 'choose': mode='raise'.*use mode='wrap' or mode='clip'"):
        frame.function(lambda a: fnp.choose(a, choices))(np.array([0, 1, 0]))
    with pytest.raises(ShapeError, match="op 'choose': index 2 in a is out of range for 2 choices"):
        fnp.choose(np.array([0, 2, 1]), choices)
    with pytest.raises(ShapeError, match="op 'choose': index -1 in a"):
        fnp.choose([-1, 0, 0], choices)
    a = np.array([0, 3, -1])   # wrap and clip take any index, traced too
    for mode in ("wrap", "clip"):
        np.testing.assert_array_equal(frame.function(lambda i: fnp.choose(i, choices, mode=mode))(a),
                                      np.choose(a, choices, mode=mode))


def test_choose_argument_refusals():
    with pytest.raises(ShapeError, match="op 'choose': the index array a must be integers, got float64"):
        fnp.choose(np.array([0.0, 1.0]), [np.ones(2), np.zeros(2)])
    with pytest.raises(ShapeError, match="op 'choose': mode must be"):
        fnp.choose(np.array([0, 1]), [np.ones(2), np.zeros(2)], mode="nearest")
    with pytest.raises(ShapeError, match=r"op 'choose': a \(2,\) and the choices \[\(3,\), \(3,\)\] do not broadcast"):
        fnp.choose(np.array([0, 1]), [np.ones(3), np.zeros(3)])
    with pytest.raises(ShapeError, match="op 'choose': choices must be a non-empty sequence"):
        fnp.choose(np.array([0]), [])


def test_choose_gradient_goes_to_the_chosen_elements():
    a = np.array([1, 0, 1])
    g = frame.grad(lambda c: fnp.sum(fnp.choose(a, c, mode="clip") * np.array([1.0, 2.0, 3.0])))(np.ones((2, 3)))
    np.testing.assert_array_equal(g, [[0.0, 2.0, 0.0], [1.0, 0.0, 3.0]])


def test_compress_needs_a_concrete_condition():
    x = np.arange(6.0).reshape(2, 3)
    with pytest.raises(TraceError, match="op 'compress': the result's shape depends on the values of condition"):
        frame.function(lambda c, v: fnp.compress(c, v, axis=1))(np.array([True, False, True]), x)
    with pytest.raises(TraceError, match="op 'compress'"):
        frame.function(lambda v: fnp.compress([v[0, 0] > 0, True], v, axis=0))(x)
    np.testing.assert_array_equal(frame.function(lambda v: fnp.compress([True, False, True], v, axis=1))(x),
                                  np.compress([True, False, True], x, axis=1))
    with pytest.raises(ShapeError, match="op 'compress': condition must be 1-d"):
        fnp.compress([[True, False]], x)
    with pytest.raises(ShapeError, match="op 'compress': condition of length 3 selects index 2, out of bounds for axis 0"):
        fnp.compress([0, 0, 1], x, axis=0)
    with pytest.raises(ShapeError, match="op 'compress': axis 2 is out of range"):
        fnp.compress([1], x, axis=2)


def test_piecewise_evaluates_every_function_on_all_of_x():
    seen = []
    x = np.array([-1.0, 0.5, 2.0])
    y = fnp.piecewise(x, [x < 0, x > 1], [lambda v: seen.append(np.shape(v)) or -v, lambda v: v * 10, 7.0])
    np.testing.assert_array_equal(y, np.piecewise(x, [x < 0, x > 1], [lambda v: -v, lambda v: v * 10, 7.0]))
    assert seen == [(3,)]   # numpy would call it on the selected element only, shape (1,)


def test_piecewise_refusals():
    x = np.arange(4.0)
    with pytest.raises(ShapeError, match=r"op 'piecewise': with 2 condition\(s\), either 2 or 3 functions are expected, got 1"):
        fnp.piecewise(x, [x < 1, x > 2], [1.0])
    with pytest.raises(ShapeError, match=r"op 'piecewise': each condition must have x's shape \(4,\), got \(3,\)"):
        fnp.piecewise(x, [np.ones(3, bool)], [1.0])


# -- tests of values and objects --------------------------------------------------------------------------------
def test_infinity_tests_refuse_complex_values():
    for fn in (fnp.isneginf, fnp.isposinf):
        with pytest.raises(ShapeError, match=f"op '{fn.__name__}': not defined for complex128"):
            fn(np.array([1j]))


def test_object_tests_see_a_traced_value_as_an_array():
    seen = {}

    def f(v):
        seen.update(scalar=(fnp.isscalar(v), fnp.isscalar(v[0])), iterable=(fnp.iterable(v), fnp.iterable(v[0])),
                    complex=(fnp.iscomplexobj(v), fnp.isrealobj(v)))
        return v

    frame.function(f)(np.array([1.0 + 0j, 2j]))
    assert seen == {"scalar": (False, False), "iterable": (True, False), "complex": (True, False)}
    assert fnp.isscalar(3.0) and fnp.isscalar("s") and not fnp.isscalar(np.array(3.0))
