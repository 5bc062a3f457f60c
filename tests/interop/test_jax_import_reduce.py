"""`from_jax` of the reduction primitives (frame/interop/jax_rules_reduce.py): each imports as frame's
op, computes JAX's values, and frame's derivatives of the imported graph are jax.grad's, at ties
(reduce_max/reduce_min) and with zeros (reduce_prod, cumprod) included; what frame cannot import
exactly is refused naming the primitive."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import frame
from frame import FrameError
from frame.compiler import build_backward_graph
from frame.interop import check_derivatives, from_jax

TIES = np.array([[1.0, 3.0, 3.0, -2.0], [0.5, 0.5, 0.5, 0.5], [2.0, -1.0, 0.0, 0.0]])
ZEROS = np.array([[1.5, 0.0, -2.0, 0.5], [0.0, 2.0, 0.0, 1.5], [1.0, 2.0, 3.0, 0.5]])

# name: (JAX function, operand, the primitive it binds, frame ops of the import)
FUNCTIONS = {
    "reduce_max": (lambda v: jnp.max(v, axis=1), TIES, ["max"]),
    "reduce_max_all": (lambda v: jnp.max(v), TIES, ["max"]),
    "reduce_min": (lambda v: jnp.min(v, axis=(0, 1)), TIES, ["min"]),
    "reduce_prod": (lambda v: jnp.prod(v, axis=1), ZEROS, ["prod"]),
    "reduce_prod_axis0": (lambda v: jnp.prod(v, axis=0), ZEROS, ["prod"]),
    "cumsum": (lambda v: lax.cumsum(v, axis=1), ZEROS, ["cumsum"]),
    "cumsum_reverse": (lambda v: lax.cumsum(v, axis=0, reverse=True), ZEROS, ["cumsum"]),
    "cumprod": (lambda v: lax.cumprod(v, axis=1), ZEROS, ["cumprod"]),
    "cumprod_reverse": (lambda v: lax.cumprod(v, axis=1, reverse=True), ZEROS, ["cumprod"]),
}


def _weights(shape):
    return np.random.default_rng(0).uniform(0.5, 1.5, shape)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_float_reductions_import_with_jax_values_and_derivatives(name):
    fn, x, ops = FUNCTIONS[name]
    graph = from_jax(fn, x)
    assert [n.op for n in graph.nodes] == ops
    with jax.enable_x64(True):
        want = np.asarray(fn(x))
        w = _weights(want.shape)
        want_grad = np.asarray(jax.grad(lambda v: jnp.sum(fn(v) * w))(x))
    np.testing.assert_allclose(frame.runtime.compile(graph)(x)[0], want, rtol=1e-14, atol=0)
    contracted = from_jax(lambda v: jnp.sum(fn(v) * w), x)
    (grad,) = frame.runtime.compile(build_backward_graph(contracted, 0, [0]))(x)[1:]
    np.testing.assert_allclose(grad, want_grad, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", ["reduce_prod", "cumprod", "cumprod_reverse", "reduce_max"])
def test_imported_reductions_pass_the_second_order_oracle_at_zeros_and_ties(name):
    fn, x, _ = FUNCTIONS[name]
    report = check_derivatives(from_jax(fn, x), x, argnums=0)
    assert report.passed and {e.order for e in report.entries} == {0, 1, 2}


@pytest.mark.parametrize("fn, ops", [
    (lambda v: jnp.argmax(v, axis=1), ["argmax"]),
    (lambda v: jnp.argmin(v), ["reshape", "argmin"]),
    (lambda v: lax.argmax(v, 0, jnp.int32), ["argmax", "convert"]),
])
def test_argmax_and_argmin_import_with_jax_indices(fn, ops):
    graph = from_jax(fn, TIES)
    assert [n.op for n in graph.nodes] == ops
    with jax.enable_x64(True):
        want = np.asarray(fn(TIES))
    got = frame.runtime.compile(graph)(TIES)[0]
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)   # the first of tied maxima, as JAX


@pytest.mark.parametrize("fn, x", [
    (lambda v: lax.reduce_and_p.bind(v, axes=(1,)), TIES > 1.0),
    (lambda v: lax.reduce_or_p.bind(v, axes=(0, 1)), TIES > 2.5),
    (lambda v: lax.cumsum(v, axis=0), np.arange(6, dtype=np.int32).reshape(2, 3)),
    (lambda v: lax.reduce_prod_p.bind(v, axes=(0,)), np.arange(1, 7, dtype=np.int32).reshape(2, 3)),
])
def test_truth_tests_and_integer_accumulations_import_with_jax_dtypes(fn, x):
    graph = from_jax(fn, x)
    with jax.enable_x64(True):
        want = np.asarray(fn(x))
    got = frame.runtime.compile(graph)(x)[0]
    assert got.dtype == want.dtype    # int32 stays int32: frame's int64 result converted back
    np.testing.assert_array_equal(got, want)


def test_bitwise_and_empty_reductions_are_refused_naming_the_primitive():
    ints = np.arange(6, dtype=np.int32).reshape(2, 3)
    with pytest.raises(FrameError, match=r"primitive 'reduce_and'.*bitwise.*truth test"):
        from_jax(lambda v: lax.reduce_and_p.bind(v, axes=(1,)), ints)
    with pytest.raises(FrameError, match=r"primitive 'reduce_max'.*op 'max'.*hold no elements"):
        from_jax(lambda v: lax.reduce_max(v, (0,)), np.zeros((0, 3)))   # JAX: -inf
    with pytest.raises(FrameError, match=r"primitive 'argmax'.*index_dtype"):
        from_jax(lambda v: lax.argmax(v, 0, jnp.int16), TIES)
