"""JAX's top-level helpers for ported programs (frame/frontend/jax_api.py), against JAX where it answers."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.errors import InputError


def _f(x, y):
    return {"prod": x @ y, "total": fnp.sum(x, axis=0), "pair": (y.T, fnp.tanh(y))}


@pytest.mark.usefixtures("jax_x64")
def test_eval_shape_equals_jaxs_and_computes_nothing():
    import jax
    import jax.numpy as jnp

    x, y = frame.ShapeDtype((3, 4), "float32"), np.ones((4, 2), np.float32)
    ours = frame.eval_shape(_f, x, y)
    theirs = jax.eval_shape(lambda x, y: {"prod": x @ y, "total": jnp.sum(x, axis=0), "pair": (y.T, jnp.tanh(y))},
                            jax.ShapeDtypeStruct((3, 4), jnp.float32), y)
    got = frame.tree_leaves(ours)
    want = jax.tree_util.tree_leaves(theirs)
    assert [(s.shape, s.dtype) for s in got] == [(w.shape, np.dtype(w.dtype).name) for w in want]
    assert isinstance(ours["pair"], tuple) and ours["prod"] == frame.ShapeDtypeStruct((3, 2), "float32")
    assert ours["prod"].ndim == 2 and len({ours["prod"], frame.ShapeDtype((3, 2), "float32")}) == 1


@pytest.mark.usefixtures("jax_x64")
def test_linear_transpose_equals_jaxs():
    import jax

    a = np.random.default_rng(0).normal(size=(3, 5))

    def linear(x, y):
        return a @ x + 2.0 * y[::-1]

    primals = (np.zeros(5), np.zeros(3))
    ct = np.array([1.0, -2.0, 0.5])
    ours = frame.linear_transpose(linear, frame.ShapeDtype((5,), "float64"), *primals[1:])(ct)
    theirs = jax.linear_transpose(linear, *primals)(ct)
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o, np.asarray(t), rtol=1e-14)
    np.testing.assert_allclose(ours[0], a.T @ ct, rtol=1e-14)


def test_jacobian_is_jacrev_and_the_host_helpers_are_identities_on_the_one_cpu():
    x = np.array([0.0, 1.0, 2.0])
    np.testing.assert_allclose(frame.jacobian(fnp.sin)(x), np.diag(np.cos(x)), rtol=1e-15)
    tree = {"a": [1.0, np.ones(2)]}
    for moved in (frame.device_put(tree), frame.device_get(tree), frame.device_put(tree, frame.devices()[0])):
        assert all(isinstance(leaf, np.ndarray) for leaf in frame.tree_leaves(moved))
    y = frame.jit(lambda v: v * 2)(x)
    assert frame.block_until_ready(y) is y
    assert frame.default_backend() == "cpu" and frame.device_count() == frame.local_device_count() == 1
    assert frame.devices()[0].platform == "cpu" and frame.local_devices() == frame.devices()
    with frame.named_scope("layer1"):
        np.testing.assert_array_equal(frame.jit(lambda v: v + 1)(x), x + 1)
    with pytest.raises(InputError, match="cpu backend only"):
        frame.devices("gpu")
    with pytest.raises(InputError, match="one device"):
        frame.device_put(x, "cuda:0")
    with pytest.raises(InputError, match="must be a str"):
        with frame.named_scope(3):
            pass


def test_jit_accepts_jaxs_donation_arguments_and_leaves_the_arrays_valid():
    x = np.arange(3.0)
    step = frame.jit(lambda p, g: p - 0.1 * g, donate_argnums=(0,))
    np.testing.assert_allclose(step(x, x), 0.9 * x)
    np.testing.assert_array_equal(x, np.arange(3.0))   # still valid: frame writes into no argument
    assert frame.jit(donate_argnames="p")(lambda p: p + 1)(x)[0] == 1.0
    with pytest.raises(frame.TraceError, match="donate_argnums must be an int"):
        frame.jit(lambda p: p, donate_argnums=[0.5])
