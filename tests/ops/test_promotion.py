"""Mixed dtypes follow numpy 2's promotion (NEP 50), eagerly, traced and compiled (issue 14 item 1).

An op claiming a ufunc takes the operand dtypes that ufunc's own type resolution gives; Python
numbers and weak tracers (Python-number arguments of `frame.function`) adopt their partner's dtype.
"""
import itertools

import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.ops import all_ops

DTYPES = ["bool", "int32", "int64", "float16", "float32", "float64"]
BINARY = [s for s in all_ops() if s.has("broadcasting") and s.ufuncs]


def _sample(dtype):
    return np.array([1, 2, 3], dtype) if dtype != "bool" else np.array([True, False, True])


def _numpy(schema, a, b):
    with np.errstate(all="ignore"):
        return getattr(np, schema.ufuncs[0])(a, b)


@pytest.mark.parametrize("schema", BINARY, ids=lambda s: s.name)
def test_every_dtype_pair_promotes_as_numpy_or_is_refused_by_name(schema):
    function = getattr(fnp, schema.name if schema.name in schema.frontend else schema.frontend[0])
    for da, db in itertools.product(DTYPES, repeat=2):
        a, b = _sample(da), _sample(db)
        try:
            want = _numpy(schema, a, b)
            if want.dtype.name not in DTYPES:    # numpy computes in a dtype frame lacks (int8 for bool // bool)
                raise TypeError
        except TypeError:  # numpy refuses (bool - bool): so does frame, with a FrameError naming the op
            with pytest.raises(frame.FrameError, match=schema.name):
                function(a, b)
            continue
        with np.errstate(all="ignore"):
            got = function(a, b)
            compiled = frame.function(function)(a, b)
        for result in (got, compiled):
            assert result.dtype == want.dtype, f"{schema.name}({da}, {db}): {result.dtype}, numpy {want.dtype}"
            np.testing.assert_array_equal(result, want)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "bool"])
def test_python_numbers_adopt_the_tensor_dtype_when_their_kind_fits(dtype):
    x = _sample(dtype)
    for scalar in (2, 2.5, True):
        with np.errstate(all="ignore"):
            want = np.multiply(x, scalar)
            got = frame.function(lambda v: v * scalar)(x)
        assert got.dtype == want.dtype, (dtype, scalar)
        np.testing.assert_array_equal(got, want)


def test_python_number_arguments_trace_as_weak_values():
    x = np.ones(3, np.float32)
    f = frame.function(lambda v, a: v * a + a)
    assert f(x, 2.0).dtype == np.float32                      # a Python float adopts float32
    assert f(x, np.float64(2.0)).dtype == np.float64          # a numpy scalar is strong
    assert f(np.ones(3, np.int32), 2).dtype == np.int32       # an int adopts int32
    assert f(np.ones(3, np.int32), 2.5).dtype == np.float64   # a float next to ints: numpy's float64
    np.testing.assert_array_equal(f(np.ones(3, np.int32), 2.5), np.ones(3, np.int32) * 2.5 + 2.5)
    grad = frame.grad(lambda v, a: fnp.sum(v * a), argnums=(0, 1))(x, 2.0)
    np.testing.assert_allclose(grad[0], 2.0 * np.ones(3))
    np.testing.assert_allclose(grad[1], 3.0)


@pytest.mark.parametrize("x", [np.arange(4, dtype=np.int32), np.arange(4), np.array([True, False])])
def test_float_functions_of_integers_and_bools_compute_as_numpy(x):
    for name in ("exp", "sqrt", "sin", "tanh"):
        want = getattr(np, name)(x)
        for got in (getattr(fnp, name)(x), frame.function(getattr(fnp, name))(x)):
            assert got.dtype == want.dtype, (name, x.dtype)
            np.testing.assert_allclose(got, want, rtol=1e-3 if want.dtype == np.float16 else 1e-15)


def test_integer_and_bool_inputs_and_mixed_gradients():
    ints, mask = np.arange(4, dtype=np.int64), np.array([True, False, True, True])
    f = frame.function(lambda i, m, x: fnp.where(m, x * i, -x))
    x = np.linspace(0.0, 1.0, 4, dtype=np.float32)
    np.testing.assert_array_equal(f(ints, mask, x), np.where(mask, x * ints, -x))
    g = frame.grad(lambda x: fnp.sum(fnp.where(mask, x * ints, -x)))(x)
    np.testing.assert_array_equal(g, np.where(mask, ints, -1.0))
    assert g.dtype == np.float32


def test_astype_casts_and_its_gradient_returns_to_the_input_dtype():
    x = np.array([1.7, -2.3, 0.5], np.float32)
    np.testing.assert_array_equal(frame.function(lambda v: fnp.astype(v, "int32"))(x), x.astype(np.int32))
    np.testing.assert_array_equal(frame.function(lambda v: v.astype(np.float64) * 3.0)(x), x.astype(np.float64) * 3.0)
    g = frame.grad(lambda v: fnp.sum(fnp.square(v.astype("float64"))))(x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, 2 * x, rtol=1e-6)
    assert np.all(frame.grad(lambda v: fnp.sum(v.astype("int32") * 1.0))(x) == 0)
