"""spectral_derivative: exact on band-limited modes, differentiable (central differences and the JAX oracle)."""
import math

import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.interop import check_derivatives
from pino import spectral_derivative
from tests.numerics import assert_close_first_order, central_difference
from pino.spectral import derivative_symbol, grid, wavenumbers


def _modes(x, length):
    """A band-limited field with modes 1, 3 and 5 and its first three derivatives in closed form."""
    k = 2 * math.pi / length
    u = np.sin(3 * k * x) + 0.5 * np.cos(k * x) - 0.25 * np.sin(5 * k * x + 0.3)
    d1 = 3 * k * np.cos(3 * k * x) - 0.5 * k * np.sin(k * x) - 1.25 * k * np.cos(5 * k * x + 0.3)
    d2 = -9 * k ** 2 * np.sin(3 * k * x) - 0.5 * k ** 2 * np.cos(k * x) + 6.25 * k ** 2 * np.sin(5 * k * x + 0.3)
    d3 = -27 * k ** 3 * np.cos(3 * k * x) + 0.5 * k ** 3 * np.sin(k * x) + 31.25 * k ** 3 * np.cos(5 * k * x + 0.3)
    return u, [u, d1, d2, d3]


@pytest.mark.parametrize("n", [12, 13, 32, 64])
@pytest.mark.parametrize("length", [1.0, 2 * math.pi, 7.5])
def test_derivatives_are_exact_on_band_limited_modes_in_float64(n, length):
    u, derivs = _modes(grid(n, length), length)
    u = np.stack([u, 2 * u])            # leading batch axes are carried along
    for order in range(4):
        got = spectral_derivative(u, order, length)
        scale = (2 * math.pi * 5 / length) ** order
        assert got.shape == u.shape and got.dtype == np.float64
        np.testing.assert_allclose(got[0], derivs[order], atol=1e-10 * scale)
        np.testing.assert_allclose(got[1], 2 * derivs[order], atol=2e-10 * scale)


def test_float32_in_float32_out_and_traced_equals_eager():
    x = grid(32, 2.0)
    u, derivs = _modes(x, 2.0)
    u32 = u.astype(np.float32)
    eager = spectral_derivative(u32, 2, 2.0)
    traced = frame.function(lambda v: spectral_derivative(v, 2, 2.0))(u32)
    assert eager.dtype == traced.dtype == np.float32
    np.testing.assert_allclose(traced, eager, rtol=1e-6, atol=1e-4)
    np.testing.assert_allclose(eager, derivs[2], rtol=0, atol=1e-5 * np.abs(derivs[2]).max())


def test_derivative_symbol_zeroes_the_nyquist_bin_for_odd_orders_only():
    unit, mag = derivative_symbol(8, 1, 2 * math.pi)
    assert unit == 1j and mag[-1] == 0 and mag[1] == 1
    unit, mag = derivative_symbol(8, 2, 2 * math.pi)
    assert unit == -1 and mag[-1] == 16
    np.testing.assert_allclose(wavenumbers(7, 2.0), np.pi * np.arange(4))
    # The Nyquist mode cos(pi j) has zero first derivative and -(n/2)^2 cos(pi j) as second derivative.
    nyquist = np.cos(np.pi * np.arange(8))
    np.testing.assert_allclose(spectral_derivative(nyquist, 1), 0.0, atol=1e-12)
    np.testing.assert_allclose(spectral_derivative(nyquist, 2), -16 * nyquist, atol=1e-12)


def test_gradient_of_a_derivative_loss_matches_central_differences():
    n, length = 16, 3.0
    rng = np.random.default_rng(0)
    u = rng.standard_normal(n)

    def loss(u):      # a Burgers-like residual: nonlinear in u, uses first and second derivatives
        r = u * spectral_derivative(u, 1, length) - 0.1 * spectral_derivative(u, 2, length)
        return fnp.sum(r * r)

    assert_close_first_order(frame.grad(loss)(u), central_difference(loss, u))


@pytest.mark.parametrize("n", [8, 9])
def test_spectral_residual_derivatives_match_jax_to_second_order(n):
    rng = np.random.default_rng(n)
    u = rng.standard_normal((2, n))

    def residual(u):
        r = u * spectral_derivative(u, 1, 2.0) - 0.1 * spectral_derivative(u, 2, 2.0)
        return fnp.sum(r * r)

    report = check_derivatives(residual, u, orders=(1, 2), rtol=1e-7, atol=1e-9)
    assert report.passed and any(e.order == 2 for e in report.entries)


def test_derivative_chain_uses_fft_ops_and_no_new_forward_op():
    graph = frame.trace(lambda u: spectral_derivative(u, 2, 1.0), np.zeros((3, 16)))
    ops = [node.op for node in graph.nodes]
    assert ops.count("rfft") == 1 and ops.count("irfft") == 1
    assert set(ops) <= {"rfft", "irfft", "mul", "matmul", "constant"}


@pytest.mark.parametrize("order", [-1, 1.5, True])
def test_bad_order_is_refused(order):
    with pytest.raises(ValueError, match="order"):
        spectral_derivative(np.zeros(8), order)
