"""frame.numpy's reductions where generated cases do not reach: derivatives at ties (max/min) and at
zeros (prod, cumprod) against JAX at orders 1 and 2, numpy functions on tracers, and the errors for
empty reductions and arguments frame does not take."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special

import frame
import frame.numpy as fnp
from frame import ShapeError, TraceError
from frame.interop import check_derivatives
from frame.tracing import bind

TIES = np.array([[1.0, 3.0, 3.0, -2.0], [0.5, 0.5, 0.5, 0.5], [2.0, -1.0, -1.0, 0.0]])


def _jax_grad(fn, x):
    with jax.enable_x64(True):
        return np.asarray(jax.grad(fn)(x))


@pytest.mark.parametrize("name, axis", [("max", 1), ("max", None), ("min", 1), ("amin", (0, 1)), ("amax", 0)])
def test_ties_share_the_derivative_equally_as_in_jax(name, axis):
    w = np.linspace(0.5, 1.5, np.max(TIES, axis=axis).size).reshape(np.shape(np.max(TIES, axis=axis)))
    ours = frame.grad(lambda v: fnp.sum(getattr(fnp, name)(v, axis=axis) * w))(TIES)
    np.testing.assert_allclose(ours, _jax_grad(lambda v: jnp.sum(getattr(jnp, name)(v, axis=axis) * w), TIES),
                               rtol=1e-15)
    if name == "max" and axis == 1:   # the second row: four tied maxima share w[1] equally
        np.testing.assert_allclose(ours[1], np.full(4, w[1] / 4))
    check_derivatives(lambda v: getattr(fnp, name)(v, axis=axis), TIES, orders=(1, 2))


@pytest.mark.parametrize("x", [np.array([1.5, 0.0, -2.0, 0.5]), np.array([1.5, 0.0, -2.0, 0.0]),
                               np.array([0.0, 0.0, 0.0]), np.array([2.0])],
                         ids=["one-zero", "two-zeros", "all-zeros", "one-element"])
def test_prod_derivatives_are_exact_with_zeros_to_second_order(x):
    # d prod / dx_i is the product of the others; d2 prod / dx_i dx_j (i != j) of all but i and j
    np.testing.assert_array_equal(frame.grad(fnp.prod)(x), [np.prod(np.delete(x, i)) for i in range(x.size)])
    with jax.enable_x64(True):
        want = np.asarray(jax.hessian(jnp.prod)(x))
    np.testing.assert_array_equal(frame.hessian(fnp.prod)(x), want)


def test_prod_over_some_axes_with_zeros_matches_jax():
    x = np.array([[[1.5, 0.0], [2.0, -1.0], [0.0, 0.5]], [[1.0, 2.0], [0.5, 0.0], [3.0, 1.0]]])
    for axis in [(0, 2), 1, -1, None]:
        check_derivatives(lambda v: fnp.prod(v, axis=axis, keepdims=True), x, orders=(1, 2))


@pytest.mark.parametrize("reverse", [False, True])
def test_cumprod_derivatives_with_zeros_match_jax(reverse):
    # reverse (lax.cumprod's, no numpy name) is the op's attribute: checked through its JAX lowering
    x = np.array([[1.5, 0.0, -2.0, 0.5, 0.0, 1.25, 2.0], [0.5, 2.0, 0.0, 1.0, 3.0, 0.0, 0.0]])
    check_derivatives(lambda v: bind("cumprod", v, axis=1, reverse=reverse), x, orders=(1, 2))
    w = np.linspace(0.5, 1.5, 7)
    np.testing.assert_allclose(frame.grad(lambda v: fnp.sum(fnp.cumprod(v) * w))(x[0]),
                               _jax_grad(lambda v: jnp.sum(jnp.cumprod(v) * w), x[0]), rtol=1e-14)


def test_cumsum_gradient_is_the_reversed_cumsum():
    w = np.arange(1.0, 6.0)
    np.testing.assert_array_equal(frame.grad(lambda v: fnp.sum(fnp.cumsum(v) * w))(np.ones(5)),
                                  np.cumsum(w[::-1])[::-1])


def test_var_std_logsumexp_second_derivatives_match_jax():
    x = np.random.default_rng(0).uniform(-2.0, 2.0, (3, 4))
    for fn in (lambda v: fnp.var(v, axis=0, ddof=1), lambda v: fnp.std(v, axis=1, keepdims=True),
               lambda v: fnp.logsumexp(v, axis=-1)):
        check_derivatives(fn, x, orders=(1, 2))
    # far beyond exp's range (exp(1000) overflows): the values and the derivative (a softmax) stay finite
    check_derivatives(lambda v: fnp.logsumexp(v + 1000.0, axis=0), x, orders=(1,))


def test_logsumexp_at_infinities_is_scipys():
    x = np.array([[-np.inf, -np.inf], [np.inf, 1.0], [-np.inf, 2.0], [1000.0, 1000.0]])
    for got in (fnp.logsumexp(x, axis=1), frame.function(lambda v: fnp.logsumexp(v, axis=1))(x)):
        np.testing.assert_array_equal(got, scipy.special.logsumexp(x, axis=1))


@pytest.mark.parametrize("name", ["max", "min", "sum", "prod", "argmax", "all", "count_nonzero", "cumsum", "var"])
def test_numpy_functions_on_tracers_run_frames(name):
    x = np.random.default_rng(1).uniform(-1.0, 1.0, (3, 4))
    kwargs = {} if name in ("argmax", "cumsum", "count_nonzero") else {"keepdims": True}
    got = frame.function(lambda v: getattr(np, name)(v, axis=1, **kwargs))(x)
    want = getattr(np, name)(x, axis=1, **kwargs)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-15)


@pytest.mark.parametrize("call, pattern", [
    (lambda: fnp.max(np.zeros((3, 0)), axis=1), r"op 'max'.*\(3, 0\).*axes \(1,\).*no elements"),
    (lambda: fnp.amin(np.zeros((0,))), r"op 'min'.*\(0,\)"),
    (lambda: fnp.argmax(np.zeros((2, 0)), axis=1), r"op 'argmax'.*axis 1 of shape \(2, 0\) is empty"),
    (lambda: fnp.argmin(np.zeros((0, 0))), r"op 'argmin'.*empty"),
    (lambda: fnp.max(np.ones(3), axis=1), r"op 'max'.*axis 1.*rank 1"),
    (lambda: fnp.argmax(np.ones((2, 3)), axis=(0, 1)), r"op 'argmax'.*axis must be an integer"),
    (lambda: fnp.cumsum(np.ones((2, 3)), axis=-3), r"op 'cumsum'.*axis -3.*rank 2"),
    (lambda: fnp.var(np.ones(3), axis=[0]), r"op 'var'.*tuple"),
])
def test_bad_reductions_are_shape_errors_naming_op_and_shape(call, pattern):
    with pytest.raises(ShapeError, match=pattern):
        call()
    with pytest.raises(ShapeError, match=pattern.split(".*")[0]):
        frame.function(lambda: call())()


@pytest.mark.parametrize("call, pattern", [
    (lambda: fnp.max(np.ones(3), out=np.zeros(())), r"frame.numpy.max: .*out=.*new arrays"),
    (lambda: fnp.logsumexp(np.ones(3), b=np.ones(3)), r"logsumexp.*b="),
    (lambda: fnp.logsumexp(np.ones(3), return_sign=True), r"logsumexp.*return_sign="),
    (lambda: frame.function(lambda v: np.max(v, initial=0.0))(np.ones(3)), r"numpy.max.*initial"),
    (lambda: frame.function(lambda v: np.var(v, correction=1))(np.ones(3)), r"numpy.var.*correction"),
])
def test_unsupported_arguments_are_refused_by_name(call, pattern):
    with pytest.raises(TraceError, match=pattern):
        call()


def test_reductions_of_int_and_bool_follow_numpys_dtypes():
    ints, flags = np.array([[3, -1, 2], [0, 5, 5]], np.int32), np.array([[True, False, True], [False, False, True]])
    for fn in (fnp.prod, fnp.cumsum, fnp.cumprod, fnp.sum, fnp.max, fnp.argmin, fnp.mean, fnp.var, fnp.logsumexp,
               fnp.all, fnp.count_nonzero):
        ref = scipy.special.logsumexp if fn is fnp.logsumexp else getattr(np, fn.__name__)
        for x in (ints, flags):
            got, want = frame.function(lambda v: fn(v, axis=0))(x), ref(x, axis=0)
            assert got.dtype == want.dtype, (fn.__name__, x.dtype)
            np.testing.assert_allclose(got, want, rtol=1e-15)
