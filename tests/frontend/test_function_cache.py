"""frame.function: keyword arguments, a bounded signature cache, and a warning on frequent retraces (issue 12)."""
import warnings

import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.frontend import RetraceWarning, transforms


def test_keyword_scalar_is_a_traced_input():
    f = frame.function(lambda x, scale=1.0: x * scale)
    x = np.arange(3.0)
    np.testing.assert_allclose(f(x, scale=2.0), 2 * x)
    np.testing.assert_allclose(f(x, scale=3.0), 3 * x)   # a new value, same signature: no retrace
    assert f.trace_count == 1
    assert len(f.trace(x, scale=2.0).inputs) == 2
    np.testing.assert_allclose(f(x), x)                   # the default stays a Python constant
    assert f.trace_count == 2


def test_keyword_arrays_are_keyed_by_name():
    f = frame.function(lambda x, w=None, b=None: x @ w + b)
    x, w, b = np.ones((2, 3)), np.full((3, 4), 0.5), np.arange(4.0)
    np.testing.assert_allclose(f(x, w=w, b=b), x @ w + b)
    np.testing.assert_allclose(f(x, b=b * 2, w=w), x @ w + 2 * b)   # keyword order does not matter
    assert f.trace_count == 1
    np.testing.assert_allclose(f(x, w=np.ones((3, 5)), b=np.zeros(5)), np.full((2, 5), 3.0))
    assert f.trace_count == 2


def test_keyword_arguments_work_inside_a_trace_and_under_grad():
    inner = frame.function(lambda x, w: fnp.sum(fnp.sin(x * w)))
    g = frame.grad(lambda w, x: inner(x, w=w))(np.array(0.5), np.arange(3.0))
    np.testing.assert_allclose(g, np.sum(np.arange(3.0) * np.cos(0.5 * np.arange(3.0))), rtol=1e-14)


def test_cache_is_bounded_and_least_recently_used_goes_first():
    f = frame.function(lambda x: x * 2.0, cache_size=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RetraceWarning)
        for n in range(1, 11):
            f(np.ones(n))
        assert len(f._cache) == 3 and f.trace_count == 10
        f(np.ones(8))              # still cached
        assert f.trace_count == 10
        f(np.ones(11))             # evicts 9, the least recently used
        f(np.ones(8))
        assert f.trace_count == 11
        f(np.ones(9))
        assert f.trace_count == 12


def test_default_cache_size_bounds_many_shapes():
    f = frame.function(lambda x: x + 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RetraceWarning)
        for n in range(1, transforms.DEFAULT_CACHE_SIZE + 20):
            f(np.ones(n))
    assert len(f._cache) == transforms.DEFAULT_CACHE_SIZE


def test_decorator_form_with_options_and_bad_cache_size():
    @frame.function(cache_size=2)
    def f(x):
        return x * 3.0

    np.testing.assert_allclose(f(np.ones(2)), [3.0, 3.0])
    assert f.cache_size == 2
    with pytest.raises(frame.TraceError, match="cache_size"):
        frame.function(lambda x: x, cache_size=0)


def test_frequent_retraces_warn_once_naming_the_changed_argument():
    def scaled(x, factor):
        return x * factor

    f = frame.function(scaled)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(1, transforms.RETRACE_WARNING_AFTER + 1):
            f(np.ones(n), 2.0)
        assert not [w for w in caught if issubclass(w.category, RetraceWarning)]
        f(np.ones(transforms.RETRACE_WARNING_AFTER + 1), 2.0)
        f(np.ones(transforms.RETRACE_WARNING_AFTER + 2), 2.0)
    retraces = [w for w in caught if issubclass(w.category, RetraceWarning)]
    assert len(retraces) == 1
    n = transforms.RETRACE_WARNING_AFTER
    assert f"argument 0 (x): shape ({n},) -> ({n + 1},)" in str(retraces[0].message)
    assert "scaled" in str(retraces[0].message)


def test_retrace_explanation_names_dtype_pytree_leaf_and_keyword():
    f = frame.function(lambda p, x=None: p["w"] * x)
    base = ({"w": np.ones(2)}, np.ones(2))
    explain = transforms.Function._explain_retrace
    sig = lambda p, x: f._signature((p,), {"x": x})[1]  # noqa: E731
    old = sig(*base)
    assert explain(f, old, sig({"w": np.ones(2, np.float32)}, np.ones(2))) == \
        "argument 0 (p)['w']: dtype float64 -> float32"
    assert explain(f, old, sig(base[0], np.ones(3))) == "keyword argument x: shape (2,) -> (3,)"
    assert "structure" in explain(f, old, sig({"w": np.ones(2), "v": np.ones(2)}, np.ones(2)))
    assert "keywords x" in explain(f, f._signature((base[0],), {})[1], old)


def test_positional_pytree_and_keywords_do_not_share_a_signature():
    def g(a, b=None, **kw):
        return a * kw["k"] * 10.0 if kw else a[0] * b["k"]

    f = frame.function(g)
    x, y = np.arange(3.0), np.full(3, 5.0)
    np.testing.assert_allclose(f((x,), {"k": y}), x * y)
    np.testing.assert_allclose(f(x, k=y), 10 * x * y)   # same leaves and nesting, but passed by keyword
    assert f.trace_count == 2
