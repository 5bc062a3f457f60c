"""rfft_packed/irfft_packed (the packed (re, im) ops pino uses): numpy agreement, bad input, adjoint identities,
and first/second derivatives against JAX.

The per-op registry/gradient/closure/oracle tables in tests/ops and tests/interop already cover the
single ops (tests/ops/cases_fft.py); here the ops are checked inside nonlinear compositions, where
second derivatives are not trivially zero, and the adjoint weights are pinned down per bin.
"""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.interop import check_derivatives

LENGTHS = [1, 2, 7, 8, 16, 33]


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rfft_and_irfft_match_numpy_in_eager_and_compiled_mode(n, dtype):
    x = np.random.default_rng(n).standard_normal((3, 2, n)).astype(dtype)
    expected = np.fft.rfft(x.astype(np.float64))
    tol = 1e-5 if dtype == "float32" else 1e-12
    for rfft in (fnp.fft.rfft_packed, frame.function(fnp.fft.rfft_packed)):
        spec = rfft(x)
        assert spec.shape == (3, 2, n // 2 + 1, 2) and spec.dtype == dtype
        np.testing.assert_allclose(spec[..., 0] + 1j * spec[..., 1], expected, atol=tol * max(n, 1))
    back = frame.function(lambda s: fnp.fft.irfft_packed(s, n))(spec)
    assert back.shape == x.shape and back.dtype == dtype
    np.testing.assert_allclose(back, x, atol=tol * 10)


def test_irfft_default_length_is_numpy_s():
    spec = fnp.fft.rfft_packed(np.arange(8.0))
    assert fnp.fft.irfft_packed(spec).shape == (8,)


def _matrix(fn, n_in, shape_in):
    """The real matrix of a linear map, column by column."""
    cols = []
    for i in range(n_in):
        e = np.zeros(n_in)
        e[i] = 1.0
        cols.append(np.asarray(fn(e.reshape(shape_in)), np.float64).ravel())
    return np.stack(cols, axis=1)


@pytest.mark.parametrize("n", LENGTHS)
def test_gradients_are_the_exact_adjoint_matrices(n):
    m = n // 2 + 1
    forward = _matrix(fnp.fft.rfft_packed, n, (n,))                           # (2m, n)
    inverse = _matrix(lambda s: fnp.fft.irfft_packed(s, n), 2 * m, (m, 2))   # (n, 2m)
    rng = np.random.default_rng(0)
    w_spec, w_sig = rng.standard_normal((m, 2)), rng.standard_normal(n)
    x, s = rng.standard_normal(n), rng.standard_normal((m, 2))
    g_rfft = frame.grad(lambda x: fnp.sum(fnp.fft.rfft_packed(x) * w_spec))(x)
    g_irfft = frame.grad(lambda s: fnp.sum(fnp.fft.irfft_packed(s, n) * w_sig))(s)
    np.testing.assert_allclose(g_rfft, forward.T @ w_spec.ravel(), atol=1e-12)
    np.testing.assert_allclose(g_irfft.ravel(), inverse.T @ w_sig, atol=1e-12)
    # irfft reads only the real part of DC and (even n) Nyquist: the gradient there is exactly zero.
    assert g_irfft[0, 1] == 0.0
    if n % 2 == 0:
        assert g_irfft[-1, 1] == 0.0


@pytest.mark.parametrize("n", [6, 7])
def test_nonlinear_fft_chains_match_jax_to_second_order(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal((2, n))
    w = rng.standard_normal((2, n // 2 + 1, 2))

    def chain(x):
        spec = fnp.fft.rfft_packed(fnp.sin(x)) * w
        return fnp.sum(fnp.tanh(fnp.fft.irfft_packed(spec * spec, n)))

    report = check_derivatives(chain, x, orders=(1, 2), rtol=1e-7, atol=1e-10)
    assert report.passed and {e.order for e in report.entries} >= {1, 2}


def test_second_derivative_matches_central_differences_of_the_analytic_gradient():
    rng = np.random.default_rng(1)
    x, v = rng.standard_normal(8), rng.standard_normal(8)

    def f(x):
        y = fnp.fft.irfft_packed(fnp.fft.rfft_packed(x * x), 8)
        return fnp.sum(y * y * y)

    grad = frame.grad(f)
    hvp = frame.grad(lambda x: fnp.sum(grad(x) * v))(x)
    h = 1e-6 * max(1.0, float(np.max(np.abs(x))))   # BUILD-011 step and tolerances
    numeric = (grad(x + h * v) - grad(x - h * v)) / (2 * h)
    np.testing.assert_allclose(hvp, numeric, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("bad, match", [
    (lambda: fnp.fft.rfft_packed(np.arange(4)), "float"),
    (lambda: fnp.fft.rfft_packed(np.float64(1.0)), r"rank >= 1"),
    (lambda: fnp.fft.rfft_packed(np.zeros((3, 0))), r"\(3, 0\)"),
    (lambda: fnp.fft.irfft_packed(np.zeros((4, 2)), 8), r"\(\.\.\., 5, 2\).*\(4, 2\)"),
    (lambda: fnp.fft.irfft_packed(np.zeros((5, 3)), 8), r"\(5, 3\)"),
    (lambda: fnp.fft.irfft_packed(np.zeros((5, 2)), 0), "n=0"),
    (lambda: fnp.fft.irfft_packed(np.zeros((5, 2)), 8.0), "must be an int"),
    (lambda: frame.trace(lambda s: fnp.fft.irfft_packed(s, 9), np.zeros((3, 2))), r"irfft.*\(3, 2\)"),
])
def test_bad_input_raises_shape_errors_naming_the_op_and_shapes(bad, match):
    with pytest.raises(frame.ShapeError, match=match):
        bad()
