"""lax.sort imports as frame's stable argsort (one pass per key) plus gathers: jnp.sort / jnp.argsort /
jnp.lexsort values equal JAX's bit for bit (ties, NaNs and signed zeros included) and derivatives match."""
import numpy as np
import pytest

import frame

jax = pytest.importorskip("jax")
jnp = jax.numpy
from frame.interop import check_derivatives, from_jax  # noqa: E402


def _awkward(seed=0):
    x = np.random.default_rng(seed).normal(size=(3, 5))
    x[0, 1] = x[0, 3]            # a tie
    x[1, 2] = np.nan
    x[2, 0], x[2, 4] = -0.0, 0.0  # signed zeros tie in JAX's order as in numpy's
    return x


@pytest.mark.parametrize("fn", [
    lambda a: jnp.sort(a, axis=0), lambda a: jnp.sort(a), lambda a: jnp.argsort(a),
    lambda a: jnp.argsort(a, axis=0, stable=False), lambda a: jax.lax.sort((a, -a), dimension=1, num_keys=1)[1],
])
def test_sorts_import_with_jax_values(fn):
    x = _awkward()
    graph = from_jax(fn, x)
    assert "argsort" in {node.op for node in graph.nodes}
    (got,) = frame.runtime.compile(graph)(x)
    with jax.enable_x64(True):   # from_jax traced the float64 operand in x64 mode
        want = np.asarray(fn(x))
    np.testing.assert_array_equal(np.asarray(got), want)


def test_sort_derivatives_match_jax():
    y = np.random.default_rng(1).normal(size=(3, 5))
    graph = from_jax(lambda a: jnp.sum(jnp.sort(a, axis=1) ** 2 * jnp.arange(5.0)), y)
    check_derivatives(graph, y, orders=(1, 2))


def test_lexicographic_sorts_import_key_by_key():
    rng = np.random.default_rng(2)
    x, y = rng.integers(0, 3, (2, 6)).astype(float), rng.normal(size=(2, 6))
    for fn in (lambda p, q: jax.lax.sort((p, q, -q), dimension=1, num_keys=2),
               lambda p, q: (jnp.lexsort((q[0], p[0])),)):
        got = frame.runtime.compile(from_jax(fn, x, y))(x, y)
        with jax.enable_x64(True):
            want = fn(x, y)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
