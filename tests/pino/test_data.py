"""Data generators: GRF statistics and seeding, the exact Poisson solve, ETDRK4 Burgers convergence."""
import math

import numpy as np
import pytest

from pino import Burgers1D, PeriodicPoisson1D, gaussian_random_field, solve_burgers, spectral_derivative
from pino.spectral import grid


def test_grf_is_seeded_zero_mean_and_has_the_karhunen_loeve_variance():
    a = gaussian_random_field(4000, 64, length=1.0, sigma=25.0, tau=5.0, alpha=2.0, seed=3)
    assert a.shape == (4000, 64)
    np.testing.assert_array_equal(gaussian_random_field(3, 64, seed=3), gaussian_random_field(3, 64, seed=3))
    assert not np.allclose(gaussian_random_field(3, 64, seed=3), gaussian_random_field(3, 64, seed=4))
    np.testing.assert_allclose(a.mean(axis=1), 0.0, atol=1e-12)             # no constant mode
    # Pointwise variance = sum_j lambda_j * 2 / length over the resolved modes 1 <= j < n/2.
    k = 2 * math.pi * np.arange(1, 32)
    expected = np.sum(625.0 * (k ** 2 + 25.0) ** -2.0 * 2.0)
    assert a.var() == pytest.approx(expected, rel=0.05)


def test_grf_mean_mode_is_optional():
    a = gaussian_random_field(2000, 16, mean_mode=True, sigma=1.0, tau=1.0, seed=0)
    assert a.mean(axis=1).std() == pytest.approx(1.0, rel=0.1)   # lambda_0 = sigma^2 tau^(-2 alpha) = 1


def test_poisson_exact_solution_has_a_round_off_spectral_residual():
    problem = PeriodicPoisson1D(n=64)
    data = problem.sample(8, seed=0)
    residual = problem.residual(data.outputs, data.inputs)
    assert np.abs(residual).max() < 1e-12 * np.abs(data.inputs).max() * 100
    np.testing.assert_allclose(data.x, grid(64, 2 * math.pi))


def _smooth_initial_conditions(n):
    x = grid(n, 1.0)
    return np.stack([np.sin(2 * np.pi * x) + 0.5 * np.cos(4 * np.pi * x), 1.5 * np.sin(2 * np.pi * x + 1.0)])


def test_etdrk4_converges_at_fourth_order_in_time():
    u0 = _smooth_initial_conditions(64)
    reference = solve_burgers(u0, viscosity=0.1, final_time=0.5, dt=1e-4)
    errors = [np.abs(solve_burgers(u0, viscosity=0.1, final_time=0.5, dt=dt) - reference).max()
              for dt in (0.1, 0.05, 0.025, 0.0125)]
    assert all(a > b for a, b in zip(errors, errors[1:]))
    order = math.log(errors[0] / errors[-1]) / math.log(8)
    assert order > 3.3, f"observed order {order:.2f}, errors {errors}"


def test_pseudo_spectral_space_discretisation_converges_spectrally():
    fine = solve_burgers(_smooth_initial_conditions(256), final_time=0.5, dt=2e-3)
    errors = {n: np.abs(solve_burgers(_smooth_initial_conditions(n), final_time=0.5, dt=2e-3)
                        - fine[:, ::256 // n]).max() for n in (16, 32, 64)}
    assert errors[16] > errors[32] > errors[64] or errors[64] < 1e-13
    assert errors[16] < 1e-4 and errors[32] < 1e-10


def test_burgers_solution_satisfies_the_pde_and_conserves_the_mean():
    # The ETDRK4 result at t and t + dt (fine grid in time) gives u_t by a centred difference.
    u0 = gaussian_random_field(2, 128, seed=0) + 0.3
    t, dt = 0.2, 1e-4
    u_minus, u_plus = (solve_burgers(u0, final_time=s, dt=1e-4) for s in (t - dt, t + dt))
    u = solve_burgers(u0, final_time=t, dt=1e-4)
    u_t = (u_plus - u_minus) / (2 * dt)
    residual = u_t + u * spectral_derivative(u, 1, 1.0) - 0.1 * spectral_derivative(u, 2, 1.0)
    assert np.abs(residual).max() < 1e-5 * np.abs(u_t).max() + 1e-6
    np.testing.assert_allclose(u.mean(axis=1), u0.mean(axis=1), atol=1e-12)


def test_burgers_problem_samples_are_seeded_pairs():
    problem = Burgers1D()
    data = problem.sample(3, 32, seed=5)
    assert data.inputs.shape == data.outputs.shape == (3, 32) and len(data) == 3
    np.testing.assert_array_equal(data.inputs, problem.initial_conditions(3, 32, seed=5))
    np.testing.assert_allclose(data.outputs, problem.solve(data.inputs))
    a, u = data.channels("float32")
    assert a.shape == (3, 1, 32) and u.dtype == np.float32


@pytest.mark.parametrize("kwargs, match", [({"dt": 0.0}, "dt"), ({"viscosity": -1.0}, "viscosity")])
def test_solver_refuses_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        solve_burgers(np.zeros((1, 16)), **kwargs)
