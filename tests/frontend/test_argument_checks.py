"""frame.numpy's argument checks and numpy's scalar rule: bad axes, shapes and indices are ShapeErrors
naming the op, never raw Python errors or silently different results (issue 12)."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame import ShapeError, TraceError

X = np.arange(6.0).reshape(2, 3)


@pytest.mark.parametrize("call, words", [
    (lambda: fnp.reshape(X, None), "reshape"),
    (lambda: fnp.reshape(X, (2, -3)), "reshape"),
    (lambda: fnp.sum(X, axis="0"), "axis"),
    (lambda: fnp.sum(X, axis=[0]), "tuple"),
    (lambda: fnp.mean(X, axis=1.5), "axis"),
    (lambda: fnp.squeeze(X[:1], axis="0"), "axis"),
    (lambda: fnp.expand_dims(X, 3), "expand_dims"),
    (lambda: fnp.swapaxes(X, 0, 2), "swapaxes"),
    (lambda: fnp.transpose(X, (0, 0)), "permutation"),
    (lambda: fnp.broadcast_to(X, "3"), "broadcast_to"),
    (lambda: fnp.concatenate([np.float64(1.0), np.float64(2.0)]), "zero-dimensional"),
    (lambda: fnp.concatenate(X, axis=0), "sequence"),
    (lambda: fnp.softmax(X, axis=None), "axis"),
])
def test_bad_arguments_are_shape_errors_naming_them(call, words):
    with pytest.raises(ShapeError, match=words):
        call()


def test_concatenate_axis_none_flattens_like_numpy():
    np.testing.assert_array_equal(fnp.concatenate([X, X[0]], axis=None), np.concatenate([X, X[0]], axis=None))
    got = frame.function(lambda a: fnp.concatenate([a, a], axis=None))(X)
    np.testing.assert_array_equal(got, np.concatenate([X, X], axis=None))


def test_broadcast_to_takes_an_int_shape_like_numpy():
    np.testing.assert_array_equal(fnp.broadcast_to(np.float64(2.0), 3), np.broadcast_to(2.0, 3))


@pytest.mark.parametrize("index", ["0", 1.5, (Ellipsis, 0, Ellipsis), slice(0, 2, 0), slice("a", None)])
def test_bad_indices_raise_instead_of_being_coerced(index):
    f = frame.function(lambda a: a[index])
    with pytest.raises(ShapeError):
        f(X)


def test_ragged_lists_are_trace_errors():
    with pytest.raises(TraceError, match="ragged"):
        fnp.layer_norm([1.0, [2.0, 3.0]])


def test_strings_are_not_operands():
    with pytest.raises(ShapeError, match="op 'sin'.*not a dtype"):
        fnp.sin("abc")


# numpy 2's scalar rule (NEP 50): Python numbers adopt a tensor's dtype when their kind fits;
# otherwise numpy computes in a wider dtype, and so does frame.
def test_python_float_keeps_a_float32_tensor_float32():
    x = np.ones(3, np.float32)
    assert fnp.multiply(x, 2.5).dtype == np.float32
    assert frame.function(lambda a: a * 2.0 + 1)(x).dtype == np.float32


@pytest.mark.parametrize("scalar, tensor", [(2.0, np.arange(3)), (0.0, np.ones(3, np.int32)), (1, np.ones(3, bool)),
                                            (np.float64(2.0), np.ones(3, np.float32))])
def test_scalars_numpy_widens_with_widen_as_in_numpy(scalar, tensor):
    want = np.multiply(tensor, scalar)
    assert want.dtype != tensor.dtype
    for got in (fnp.multiply(tensor, scalar), frame.function(lambda a: a * scalar)(tensor)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_a_python_int_too_large_for_the_tensor_is_a_shape_error():
    with pytest.raises(ShapeError, match="does not fit"):
        fnp.add(np.ones(2, np.int32), 2 ** 40)


@pytest.mark.parametrize("p", ["2", None, True])
def test_power_exponents_are_numbers_or_arrays(p):
    with pytest.raises(ShapeError, match="pow"):
        fnp.power(X, p)


def test_a_numpy_scalar_exponent_promotes_as_in_numpy():
    for p in (np.float32(2.0), np.float64(0.5), np.int32(3)):
        want = np.power(X.astype(np.float32), p)
        got = fnp.power(X.astype(np.float32), p)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_asarray_casts_traced_values_to_the_dtype_asked_for():
    got = frame.function(lambda a: fnp.asarray(a, "float32"))(X)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.asarray(X, "float32"))
    with pytest.raises(ShapeError, match="asarray"):
        fnp.asarray(None, "int64")


def test_zeros_and_ones_like_take_what_numpy_takes():
    assert fnp.zeros_like(2.5).dtype == np.zeros_like(2.5).dtype
    np.testing.assert_array_equal(fnp.ones_like([[1, 2]]), np.ones_like([[1, 2]]))


def test_debug_print_needs_a_str_format():
    with pytest.raises(ShapeError, match="format"):
        frame.function(lambda v: (fnp.debug_print(None, v), v)[1])(X)
