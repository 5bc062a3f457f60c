"""`fnp.linalg.qr` in numpy's modes 'reduced', 'complete' and 'r' (issue 14 item 6), with JAX's derivatives
in each: the thin rule, the wide rule (m < n: a square QR plus r2 = q^T a2) and the complete rule for tall
matrices (arXiv 2409.13374, which jax.lax.linalg.qr_jvp_rule implements). 'raw' is refused by name.

Values are checked against numpy (eagerly, compiled and under vmap); derivatives against JAX at orders 1
and 2 (the oracle); `from_jax` imports lax.linalg.qr with full_matrices=True as the complete op.
"""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.errors import ShapeError, TraceError
from frame.interop import check_derivatives, from_jax
import tests.ops.cases  # noqa: F401  (collects the case modules first: no import cycle)
from tests.ops.cases_linalg import _spread_singular

jax = pytest.importorskip("jax")
jnp = jax.numpy


def _matrix(*shape, seed=0):
    return _spread_singular(*shape)(np.random.default_rng(seed), "float64")


def _results(r):
    return r if isinstance(r, tuple) else (r,)


@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
@pytest.mark.parametrize("shape", [(4, 2), (2, 4), (3, 3), (2, 4, 3), (0, 3), (3, 0)])
def test_every_mode_gives_numpys_factors_eagerly_and_compiled(mode, shape):
    a = _matrix(*shape) if 0 not in shape else np.zeros(shape)
    want = _results(np.linalg.qr(a, mode=mode))
    for got in (_results(fnp.linalg.qr(a, mode=mode)), _results(frame.function(lambda x: fnp.linalg.qr(x, mode=mode))(a))):
        assert [(g.shape, g.dtype) for g in got] == [(w.shape, w.dtype) for w in want]
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)       # numpy's LAPACK call: the same bits
    assert type(fnp.linalg.qr(a, mode=mode)).__name__ == ("ndarray" if mode == "r" else "QRResult")


def test_complete_mode_under_vmap_and_in_float32():
    stack = np.stack([_matrix(4, 2, seed=s) for s in range(3)])
    q, r = frame.vmap(lambda x: fnp.linalg.qr(x, mode="complete"))(stack)
    want_q, want_r = np.linalg.qr(stack, mode="complete")
    np.testing.assert_allclose(q, want_q, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(r, want_r, rtol=1e-12, atol=1e-14)
    q32, r32 = fnp.linalg.qr(stack[0].astype(np.float32), mode="complete")
    assert q32.dtype == r32.dtype == np.float32 and q32.shape == (4, 4) and r32.shape == (4, 2)


@pytest.mark.parametrize("mode, shape", [("complete", (4, 2)), ("complete", (2, 3, 2)), ("reduced", (2, 4)),
                                         ("r", (3, 5))])
def test_derivatives_are_jaxs_at_orders_1_and_2(mode, shape):
    a = _matrix(*shape)
    weights = [np.random.default_rng(7).standard_normal(f.shape) for f in _results(np.linalg.qr(a, mode=mode))]

    def f(x):
        return sum(fnp.sum(fnp.sin(part) * w) for part, w in zip(_results(fnp.linalg.qr(x, mode=mode)), weights))

    f.__name__ = f"qr_{mode}"
    report = check_derivatives(f, a, orders=(1, 2))
    assert {e.order for e in report.entries} == {0, 1, 2}
    # and frame.grad against jax.grad directly, through jnp.linalg.qr in the same mode
    with jax.enable_x64(True):
        want = jax.grad(lambda x: sum(jnp.sum(jnp.sin(p) * w)
                                      for p, w in zip(_results(jnp.linalg.qr(x, mode=mode)), weights)))(a)
    np.testing.assert_allclose(frame.grad(f)(a), want, rtol=1e-10, atol=1e-12)


def test_from_jax_imports_the_complete_qr():
    a = _matrix(4, 2)
    graph = from_jax(lambda x: jnp.linalg.qr(x, mode="complete"), a)
    (node,) = [n for n in graph.nodes if n.op == "qr"]
    assert node.attrs == {"full_matrices": True}
    for got, want in zip(frame.runtime.compile(graph)(a), np.linalg.qr(a, mode="complete")):
        np.testing.assert_array_equal(got, want)
    w = np.random.default_rng(2).standard_normal((4, 4))
    report = check_derivatives(from_jax(lambda x: jnp.sum(jnp.linalg.qr(x, mode="complete")[0] * w), a), a)
    assert report.passed and {e.order for e in report.entries} == {0, 1, 2}


@pytest.mark.parametrize("mode, error, pattern", [
    ("raw", TraceError, r"qr: mode='raw' \(LAPACK's Householder reflectors and tau\) is not supported"),
    ("full", TraceError, r"qr: mode='full' is deprecated in numpy"),
    ("economic", TraceError, r"qr: mode='economic' is deprecated in numpy"),
    ("bad", ShapeError, r"qr: unrecognized mode 'bad'"),
])
def test_other_modes_are_refused_by_name(mode, error, pattern):
    with pytest.raises(error, match=pattern):
        fnp.linalg.qr(_matrix(3, 2), mode=mode)
    with pytest.raises(error, match=pattern):
        frame.trace(lambda x: fnp.linalg.qr(x, mode=mode), _matrix(3, 2))
