"""frame.function's static_argnums and static_argnames (issue 17, item 3), as jax.jit has them: static
arguments are Python values the function sees as they are, part of the cache key, and must be hashable."""
import warnings

import jax
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.errors import TraceError
from frame.frontend.control import fori_loop
from frame.frontend.transforms import RetraceWarning, function

pytestmark = pytest.mark.usefixtures("jax_x64")   # x64 for this module only (tests/conftest.py)

X = np.arange(3.0)


def repeated_sin(x, n, scale=1.0):
    for _ in range(n):          # a Python loop over a static count
        x = fnp.sin(x)
    return x * scale


def test_a_static_argument_is_a_python_value_and_keys_the_cache():
    f = function(repeated_sin, static_argnums=(1,))
    np.testing.assert_allclose(f(X, 2), np.sin(np.sin(X)), rtol=1e-15)
    np.testing.assert_allclose(f(X, 3, scale=2.0), 2 * np.sin(np.sin(np.sin(X))), rtol=1e-15)
    assert f.trace_count == 2
    f(X, 2)
    f(X + 1.0, 3, scale=0.5)   # the same static value and shapes: no retrace
    assert f.trace_count == 2
    assert [n.op for n in f.trace(X, 4).nodes].count("sin") == 4
    assert [n.op for n in f.trace(X, 1).nodes].count("sin") == 1


def test_static_argnames_and_keyword_arguments_as_jax_jit_has_them():
    g = function(lambda x, act: act(x), static_argnames="act")
    np.testing.assert_allclose(g(X, act=fnp.tanh), np.tanh(X), rtol=1e-15)
    np.testing.assert_allclose(g(X, fnp.tanh), np.tanh(X), rtol=1e-15)   # a named argument is static positionally too
    h = function(lambda x, *, mode: x * 2.0 if mode == "double" else x, static_argnames=("mode",))
    np.testing.assert_allclose(h(X, mode="double"), 2 * X)
    np.testing.assert_allclose(h(X, mode="same"), X)
    assert h.trace_count == 2
    # traced keyword arguments beside static ones
    k = function(lambda x, n, *, w: repeated_sin(x, n) * w, static_argnums=1)
    np.testing.assert_allclose(k(X, 2, w=np.full(3, 3.0)), 3 * np.sin(np.sin(X)), rtol=1e-15)


def test_a_static_trip_count_makes_fori_loop_a_scan_that_differentiates():
    f = function(lambda x, n: fori_loop(0, n, lambda i, v: fnp.sin(v) * 1.5, x), static_argnums=1)
    assert "scan" in [n.op for n in f.trace(0.3, 4).nodes]
    g = frame.grad(lambda x: f(x, 4))(0.3)
    jg = jax.grad(lambda x: jax.lax.fori_loop(0, 4, lambda i, v: jax.numpy.sin(v) * 1.5, x))(0.3)
    np.testing.assert_allclose(g, jg, rtol=1e-14)


def test_unhashable_or_array_static_values_are_refused_by_name():
    f = function(repeated_sin, static_argnums=(1,))
    with pytest.raises(TraceError, match=r"'repeated_sin': static argument 1 is a list, which is not hashable"):
        f(X, [1])
    with pytest.raises(TraceError, match=r"static argument 'n' is an array"):
        function(repeated_sin, static_argnames="n")(X, n=np.array(2))
    with pytest.raises(TraceError, match=r"static_argnums \(3,\) is out of range"):
        function(lambda x: x, static_argnums=3)
    with pytest.raises(TraceError, match="static_argnums must be an int or a sequence of ints"):
        function(lambda x: x, static_argnums="x")


def test_the_retrace_warning_names_the_static_value_that_changed():
    f = function(lambda x, n: x * n, static_argnums=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(10):
            f(X, i)
    messages = [str(w.message) for w in caught if issubclass(w.category, RetraceWarning)]
    assert len(messages) == 1 and "static argument 1: 7 -> 8" in messages[0]


def test_a_function_with_static_arguments_nests_inside_other_transforms():
    f = function(repeated_sin, static_argnums=(1,))
    g = frame.grad(lambda x: fnp.sum(f(x, 2)))(X)
    np.testing.assert_allclose(g, np.cos(np.sin(X)) * np.cos(X), rtol=1e-14)
    v = frame.vmap(lambda x: f(x, 1))(np.ones((2, 3)))
    np.testing.assert_allclose(v, np.sin(np.ones((2, 3))), rtol=1e-15)
