"""frame.train.strong_wolfe and lbfgs(method="strong-wolfe"): torch's L-BFGS iteration in numpy."""
import math

import numpy as np
import pytest
from scipy.optimize import rosen, rosen_der

import frame
from frame.errors import FrameError
from frame.train import lbfgs
from frame.train.strong_wolfe import _cubic_minimum, minimize_strong_wolfe

from .test_lbfgs import _problem, mlp_loss


def test_rosenbrock_follows_torchs_iteration():
    # torch 2.13's LBFGS(lr=1, history_size=10, tolerance_grad=1e-10, tolerance_change=1e-15,
    # line_search_fn="strong_wolfe") from (-1.2, 1): 37 iterations (the last one stops before its step)
    # and 45 evaluations, |x - 1| 1.21e-8. Equal counts say every line search took the same trials.
    r = minimize_strong_wolfe(lambda x: (rosen(x), rosen_der(x)), np.array([-1.2, 1.0]), maxiter=1000, maxfev=5000,
                              history=10, tolerance_grad=1e-10, tolerance_change=1e-15)
    assert (r.nit, r.nfev) == (36, 45)
    assert r.success and np.abs(r.x - 1).max() < 2e-8 and r.fun < 1e-15


def test_budgets_end_the_run():
    f = lambda x: (rosen(x), rosen_der(x))  # noqa: E731
    x0 = np.array([-1.2, 1.0, -1.2, 1.0])
    r = minimize_strong_wolfe(f, x0, maxiter=5, maxfev=1000)
    assert r.nit == 5 and not r.success and "maxiter" in r.message
    r = minimize_strong_wolfe(f, x0, maxiter=1000, maxfev=12, max_line_search=4)
    assert r.nfev == 12 and "maxfev" in r.message
    assert r.fun < rosen(x0)


def test_cubic_minimum():
    # f = (t - 1)^2 sampled at 0 and 3: the cubic through it is that parabola, minimum at 1.
    assert _cubic_minimum(0.0, 1.0, -2.0, 3.0, 4.0, 4.0) == pytest.approx(1.0)
    assert _cubic_minimum(0.0, 1.0, -2.0, 3.0, 4.0, 4.0, bounds=(2.0, 5.0)) == 2.0
    # A non-finite loss at a trial point (frame hands the search +inf) bisects rather than giving NaN.
    assert _cubic_minimum(0.0, 1.0, -1.0, 2.0, math.inf, 0.0) == 1.0


def test_lbfgs_method_strong_wolfe_on_a_frame_loss():
    params, x, y = _problem()
    scipy_run = lbfgs(mlp_loss, params, x, y, maxiter=300, progress=False)
    torch_like = lbfgs(mlp_loss, params, x, y, maxiter=300, progress=False, method="strong-wolfe", tol=1e-14)
    # Both reach a fit far below the start (0.29) in 300 iterations: measured 1.0e-6 (scipy, 372 evaluations)
    # and 6.4e-7 (strong-Wolfe, 375).
    assert torch_like.loss < 1e-5 and scipy_run.loss < 1e-5
    np.testing.assert_allclose(float(frame.value_and_grad(mlp_loss)(torch_like.params, x, y)[0]), torch_like.loss,
                               rtol=1e-12)
    assert len(torch_like.history) == torch_like.nit + 1
    assert all(b <= a for a, b in zip(torch_like.history, torch_like.history[1:]))
    assert torch_like.nfev >= torch_like.nit


def test_lbfgs_rejects_an_unknown_method():
    params, x, y = _problem()
    with pytest.raises(FrameError, match="method must be one of 'L-BFGS-B', 'strong-wolfe'"):
        lbfgs(mlp_loss, params, x, y, maxiter=3, progress=False, method="bfgs")
