"""Reference solutions: Cole–Hopf Burgers against known values and a finite-difference solve; Green's Poisson."""
import numpy as np
import pytest

from pinn.reference import burgers_cole_hopf, burgers_finite_difference, poisson1d_green

NU = 0.01 / np.pi
TIMES = (0.25, 0.5, 0.75, 1.0)


def test_cole_hopf_initial_and_boundary_conditions():
    x = np.linspace(-1, 1, 101)
    np.testing.assert_allclose(burgers_cole_hopf(x, 0.0), -np.sin(np.pi * x), atol=1e-15)
    t = np.linspace(0, 1, 11)
    np.testing.assert_allclose(burgers_cole_hopf(np.full_like(t, -1.0), t), 0.0, atol=1e-12)
    np.testing.assert_allclose(burgers_cole_hopf(np.full_like(t, 1.0), t), 0.0, atol=1e-12)


def test_cole_hopf_is_odd_in_x():
    x = np.linspace(0, 1, 57)
    for t in TIMES:
        np.testing.assert_allclose(burgers_cole_hopf(-x, t), -burgers_cole_hopf(x, t), atol=1e-13)


def test_cole_hopf_maximum_slope_matches_basdevant():
    # Basdevant et al. (1986), the classic benchmark for this problem: the steepest slope is
    # |u_x(0, t)| = 152.00516 at t = 1.6037/pi. The slope here is a central difference of the
    # reference with h = 1e-5 (truncation ~ h^2 |u_xxx| / 6 ~ 1e-4); the published value has 8
    # digits but its time only 5, so agreement to 2e-6 relative is what the data supports.
    t, h = 1.6037 / np.pi, 1e-5
    slope = (burgers_cole_hopf(h, t) - burgers_cole_hopf(-h, t)) / (2 * h)
    assert abs(abs(slope) - 152.00516) / 152.00516 < 2e-6
    # ... and it is the maximum over time: slightly earlier and later the front is less steep.
    for other in (1.5 / np.pi, 1.7 / np.pi):
        other_slope = (burgers_cole_hopf(h, other) - burgers_cole_hopf(-h, other)) / (2 * h)
        assert abs(other_slope) < abs(slope)


def test_cole_hopf_quadrature_has_converged():
    x = np.linspace(-1, 1, 401)
    for t in TIMES:
        np.testing.assert_allclose(burgers_cole_hopf(x, t, n_nodes=150), burgers_cole_hopf(x, t), atol=1e-12)


def test_cole_hopf_agrees_with_finite_differences_and_they_converge_to_it():
    # The FD solver is second order: refining the grid 2x cuts its distance to Cole–Hopf ~4x.
    # That convergence (not only a small difference) is what shows both solutions are right.
    errors = {}
    for n_x in (501, 1001):
        x, solutions = burgers_finite_difference(n_x, TIMES)
        errors[n_x] = [np.linalg.norm(u - burgers_cole_hopf(x, t)) / np.linalg.norm(burgers_cole_hopf(x, t))
                       for u, t in zip(solutions, TIMES)]
    assert max(errors[1001]) < 1e-3
    for coarse, fine in zip(errors[501], errors[1001]):
        assert 3.0 < coarse / fine < 5.0


def test_green_solution_of_default_poisson_is_sine():
    x = np.linspace(-1, 1, 33)
    u = poisson1d_green(lambda s: np.pi ** 2 * np.sin(np.pi * s), x)
    np.testing.assert_allclose(u, np.sin(np.pi * x), atol=1e-12)


def test_green_solution_with_constant_forcing_and_boundary_values():
    # -u'' = 2 on [0, 3], u(0) = 1, u(3) = 4  =>  u = -x^2 + 4x + 1.
    x = np.linspace(0, 3, 25).reshape(-1, 1)
    u = poisson1d_green(lambda s: np.full_like(s, 2.0), x, domain=(0, 3), boundary_values=(1, 4))
    assert u.shape == x.shape
    np.testing.assert_allclose(u, -x ** 2 + 4 * x + 1, atol=1e-12)


def test_cole_hopf_rejects_negative_time():
    with pytest.raises(ValueError, match="t must be >= 0"):
        burgers_cole_hopf(0.0, -0.1)
