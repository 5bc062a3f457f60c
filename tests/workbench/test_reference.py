"""workbench.reference: the ETDRK4 stepper pinn's and pino's reference solvers share."""
import numpy as np

from workbench.reference import etdrk4_coefficients, etdrk4_step


def _integrate(linear, nonlinear, v0, t_end, steps):
    coefficients = etdrk4_coefficients(linear, t_end / steps)
    v = np.asarray(v0, dtype=np.result_type(linear, v0))
    for _ in range(steps):
        v = etdrk4_step(v, nonlinear, coefficients)
    return v


def test_a_linear_problem_is_integrated_exactly_real_and_complex():
    # N = 0: ETDRK4 is exp(t L) v0 whatever the step, for damping and for rotation (KdV-like i w)
    for linear in (np.array([-3.0, -0.5, 0.0, -40.0]), np.array([2j, -1j, 0.5 - 1j])):
        v0 = np.ones(len(linear), dtype=linear.dtype)
        got = _integrate(linear, lambda v: 0 * v, v0, 1.3, 7)
        np.testing.assert_allclose(got, np.exp(1.3 * linear), rtol=1e-13, atol=1e-15)
    e, e2, q, f1, f2, f3 = etdrk4_coefficients(np.array([-1.0, 0.0]), 0.1)
    assert all(c.dtype == np.float64 for c in (e, e2, q, f1, f2, f3))            # real symbols: real weights
    assert etdrk4_coefficients(np.array([1j]), 0.1)[2].dtype == np.complex128   # dispersive: complex


def test_fourth_order_on_a_nonlinear_problem_with_a_closed_form():
    # v' = -v + v^2 (L = -1, N(v) = v^2) has v(t) = 1 / (1 + (1/v0 - 1) e^t)
    v0, t = np.array([0.5, 0.2, -0.3]), 1.0
    exact = 1 / (1 + (1 / v0 - 1) * np.exp(t))
    errors = [np.max(np.abs(_integrate(np.full(3, -1.0), lambda v: v * v, v0, t, n) - exact)) for n in (5, 10, 20)]
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert errors[-1] < 1e-6 and np.all(orders > 3.7), (errors, orders)
