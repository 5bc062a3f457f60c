"""frame.train.hager_zhang and lbfgs(method="hager-zhang"): L-BFGS with Hager and Zhang's line search,
whose approximate Wolfe conditions let a float32 loss go on past the point where its value stops
showing the decrease."""
import math
import warnings

import numpy as np
import pytest
from scipy.optimize import minimize, rosen, rosen_der

import frame
import frame.numpy as fnp
from frame.train import lbfgs
from frame.train.hager_zhang import DELTA, SIGMA, hager_zhang_search, minimize_hager_zhang

from .test_lbfgs import _problem, mlp_loss


def assert_wolfe_or_approximate(f0, gtd, t, f_t, slope, epsilon):
    wolfe = f_t - f0 <= DELTA * t * gtd and slope >= SIGMA * gtd
    approximate = (2 * DELTA - 1) * gtd >= slope >= SIGMA * gtd and f_t <= f0 + epsilon * abs(f0)
    assert wolfe or approximate, (t, f_t - f0, slope, gtd)


@pytest.mark.parametrize("t0", [1e-3, 1.0, 50.0])
def test_search_accepts_a_wolfe_step(t0):
    # phi(t) = (t - 2)^2 + sin(3 t) along d = 1 from x = 0: a step that meets the conditions, from a first
    # trial below, near and far beyond the minimum
    fun = lambda x: (float((x[0] - 2) ** 2 + np.sin(3 * x[0])), np.array([2 * (x[0] - 2) + 3 * np.cos(3 * x[0])]))  # noqa: E731
    x, d = np.zeros(1), np.ones(1)
    f0, g0 = fun(x)
    f_t, g_t, t, evals, ok = hager_zhang_search(fun, x, t0, d, f0, g0, float(g0 @ d), 50)
    assert ok and t > 0 and evals <= 20
    f_check, g_check = fun(x + t * d)   # the returned loss and gradient are those at the returned step
    assert f_t == f_check and g_t[0] == g_check[0]
    assert_wolfe_or_approximate(f0, float(g0 @ d), t, f_t, float(g_t @ d), 1e-6)


def test_search_shrinks_past_non_finite_losses():
    # frame hands the search +inf (and a zero gradient) where the loss overflows: beyond t = 1 here
    def fun(x):
        if x[0] > 1.0:
            return math.inf, np.zeros(1)
        return float((x[0] - 0.5) ** 2), np.array([2 * (x[0] - 0.5)])
    x, d = np.zeros(1), np.ones(1)
    f0, g0 = fun(x)
    f_t, _, t, _, ok = hager_zhang_search(fun, x, 100.0, d, f0, g0, float(g0 @ d), 50)
    assert ok and 0 < t <= 1.0 and math.isfinite(f_t) and f_t < f0


def test_rosenbrock_converges_as_scipy_does():
    for x0 in ([-1.2, 1.0], [3.0, -2.0, 1.0, 0.5]):
        r = minimize_hager_zhang(lambda x: (rosen(x), rosen_der(x)), np.array(x0), maxiter=500, maxfev=5000,
                                 tolerance_grad=1e-10)
        scipy_run = minimize(rosen, np.array(x0), jac=rosen_der, method="L-BFGS-B", options=dict(gtol=1e-10))
        # measured: 37 and 58 iterations (scipy: 36 and 45)
        assert r.success and r.nit <= 2 * scipy_run.nit and np.abs(r.x - 1).max() < 1e-8


def test_budgets_end_the_run():
    f = lambda x: (rosen(x), rosen_der(x))  # noqa: E731
    x0 = np.array([-1.2, 1.0, -1.2, 1.0])
    r = minimize_hager_zhang(f, x0, maxiter=5, maxfev=1000)
    assert r.nit == 5 and not r.success and "maxiter" in r.message
    r = minimize_hager_zhang(f, x0, maxiter=1000, maxfev=12, max_line_search=4)
    assert r.nfev <= 12 and "maxfev" in r.message and r.fun < rosen(x0)


def _offset_quadratic(p, lam):
    # a float32 loss whose value carries a constant 1: decreases below float32's 6e-8 do not show in it
    return 1.0 + 0.5 * fnp.sum(lam * (p - 1.0) ** 2)


def test_float32_loss_goes_on_past_its_rounding():
    # A value-based line search stops when the loss's rounding hides the decrease, about sqrt(eps) from the
    # minimum; the approximate Wolfe conditions, on slopes, go on. Measured: |p - 1| 8.7e-5 (L-BFGS-B) and
    # 5.1e-5 (strong-Wolfe), 0.0 (Hager-Zhang, which then stops on a zero gradient).
    lam = np.logspace(0, 2, 20).astype(np.float32)
    p0 = np.zeros(20, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # the float32 stop warning of the value-based searches
        value_based = [lbfgs(_offset_quadratic, p0, lam, maxiter=500, progress=False, method=m, tol=0)
                       for m in ("L-BFGS-B", "strong-wolfe")]
    hz = lbfgs(_offset_quadratic, p0, lam, maxiter=500, progress=False, method="hager-zhang")
    assert hz.params.dtype == np.float32
    assert all(np.abs(r.params - 1).max() > 1e-5 for r in value_based)
    assert np.abs(hz.params - 1).max() < 1e-6 and hz.success


def test_lbfgs_method_hager_zhang_on_a_frame_loss():
    params, x, y = _problem()
    r = lbfgs(mlp_loss, params, x, y, maxiter=300, progress=False, method="hager-zhang")
    assert r.loss < 1e-5   # from 0.29, as the other two methods (test_strong_wolfe)
    np.testing.assert_allclose(float(frame.value_and_grad(mlp_loss)(r.params, x, y)[0]), r.loss, rtol=1e-12)
    assert len(r.history) == r.nit + 1 and r.nfev >= r.nit
