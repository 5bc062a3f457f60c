"""frame.scipy.optimize.minimize (BFGS): iterates, counts and status against jax.scipy.optimize.minimize (x64) on
Rosenbrock in 2-5 dimensions, a quadratic and a logistic-regression loss with args; minimisers against
scipy.optimize.minimize; eagerly, under frame.function and frame.vmap; bad input refused by name."""
import jax
import jax.numpy as jnp
import jax.scipy.optimize as JO
import numpy as np
import pytest
import scipy.optimize as SO

import frame
import frame.numpy as fnp
from frame.errors import GradientError, InputError, ShapeError, TraceError
from frame.scipy.optimize import OptimizeResults, minimize

jax.config.update("jax_enable_x64", True)


def rosen(x, np=fnp):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def quadratic(x, np=fnp):
    A = np.asarray(_A)
    return 0.5 * x @ (A @ x) - np.sum(x * np.asarray(_b)) + 3.0


_r = np.random.default_rng(3)
_M = _r.standard_normal((4, 4))
_A, _b = _M @ _M.T + 4 * np.eye(4), _r.standard_normal(4)

_D = np.random.default_rng(1)
_X = _D.standard_normal((40, 3))
_Y = (_D.uniform(size=40) < 1 / (1 + np.exp(-_X @ [1.0, -2.0, 0.5]))).astype(float)


def logistic(w, X, y, np=fnp):
    z = X @ w
    return np.mean(np.logaddexp(0.0, z) - y * z) + 0.01 * np.sum(w ** 2)


# starts where JAX's BFGS succeeds (see test_succeeds_where_jax_zoom_fails for the others)
_U = np.random.default_rng(0)
ROSEN_STARTS = {n: _U.uniform(-1.5, 1.5, (6, n)) for n in (2, 3, 4, 5)}
ROSEN_CASES = [(2, 2), (2, 3), (3, 0), (5, 2)]


# JAX's minimize compiled once per objective and shape (compiling costs ~2 s; maxiter is traced so one
# compilation serves every cap)
@jax.jit
def _jax_rosen(x0, maxiter):
    return JO.minimize(lambda x: rosen(x, jnp), x0, method="BFGS", options=dict(maxiter=maxiter))


_jax_quadratic = jax.jit(lambda x0: JO.minimize(lambda x: quadratic(x, jnp), x0, method="BFGS"))
_jax_logistic = jax.jit(lambda w0, X, y: JO.minimize(lambda w, X, y: logistic(w, X, y, jnp), w0, (X, y),
                                                     method="BFGS"))


def jax_rosen(x0, maxiter=None):
    return _jax_rosen(jnp.asarray(x0), 200 * len(x0) if maxiter is None else maxiter)


def assert_matches_jax(ours, theirs, tol=1e-12):
    """Same counts and status as JAX, and the same x, fun and jac to `tol` (relative to 1 or to the value)."""
    assert isinstance(ours, OptimizeResults)
    for field in ("nit", "nfev", "njev", "status", "success"):
        assert int(getattr(ours, field)) == int(getattr(theirs, field)), (field, getattr(ours, field),
                                                                         getattr(theirs, field))
    for field in ("x", "fun", "jac"):
        np.testing.assert_allclose(getattr(ours, field), getattr(theirs, field), rtol=tol, atol=tol, err_msg=field)


def assert_same_results(a, b):
    """Two frame results agree exactly (eager against traced or batched)."""
    for field in OptimizeResults._fields:
        np.testing.assert_array_equal(np.asarray(getattr(a, field)), np.asarray(getattr(b, field)), err_msg=field)


# Rosenbrock's Hessian at the minimum has smallest eigenvalue ~0.4-0.5 (n = 2..5), so stopping at
# |g|_inf < 1e-5 leaves |x - 1| up to ~sqrt(n) * 1e-5 / 0.4 < 1e-4: scipy's iterates (another line search)
# and the minimiser agree with ours to that, not to 1e-12
ROSEN_XTOL = 1e-4


@pytest.mark.parametrize("n,i", ROSEN_CASES)
def test_rosenbrock_matches_jax_and_scipy(n, i):
    x0 = ROSEN_STARTS[n][i]
    ours = minimize(rosen, x0, method="BFGS")
    theirs = jax_rosen(x0)
    assert_matches_jax(ours, theirs)
    assert bool(ours.success) and float(np.max(np.abs(ours.jac))) < 1e-5
    want = SO.minimize(lambda x: rosen(x, np), x0, method="BFGS").x
    np.testing.assert_allclose(ours.x, want, atol=ROSEN_XTOL)
    np.testing.assert_allclose(ours.x, np.ones(n), atol=ROSEN_XTOL)
    if n == 2:
        # rank-two updates of an ill-conditioned matrix (cond ~2500 at the minimum) amplify the last-bit
        # differences of XLA's and numpy's dot products: 1e-12 relative to the largest entry is not reached
        H = np.asarray(theirs.hess_inv)
        np.testing.assert_allclose(ours.hess_inv, H, rtol=0, atol=1e-9 * np.abs(H).max())


def test_quadratic_matches_jax_and_solution():
    x0 = np.zeros(4)
    ours = minimize(quadratic, x0, method="BFGS")
    assert_matches_jax(ours, _jax_quadratic(jnp.asarray(x0)))
    # BFGS with exact-enough line searches ends on the minimiser A^-1 b of a 4-d quadratic in 4 steps
    assert int(ours.nit) == 4
    np.testing.assert_allclose(ours.x, np.linalg.solve(_A, _b), rtol=0, atol=1e-12)
    # scipy stops at its |g| < 1e-5: with A's smallest eigenvalue > 4 that is within 1e-5 / 4 * 2 of x*
    np.testing.assert_allclose(ours.x, SO.minimize(lambda x: quadratic(x, np), x0, method="BFGS").x, atol=1e-5)


def test_logistic_regression_with_args_eager_and_traced():
    w0 = np.zeros(3)
    theirs = _jax_logistic(jnp.asarray(w0), jnp.asarray(_X), jnp.asarray(_Y))
    ours = minimize(logistic, w0, (_X, _Y), method="BFGS")
    assert_matches_jax(ours, theirs)
    traced = frame.function(lambda w0, X, y: minimize(logistic, w0, (X, y), method="BFGS"))(w0, _X, _Y)
    assert_same_results(ours, traced)
    # both stop at |g| < 1e-5 and the loss's Hessian has eigenvalues > 0.02 (the ridge term): within 1e-3
    want = SO.minimize(lambda w: logistic(w, _X, _Y, np), w0, method="BFGS").x
    np.testing.assert_allclose(ours.x, want, atol=1e-3)


def test_traced_equals_eager_and_maxiter():
    x0 = ROSEN_STARTS[3][0]
    eager = minimize(rosen, x0, method="BFGS")
    assert_same_results(eager, frame.function(lambda x: minimize(rosen, x, method="BFGS"))(x0))
    capped = minimize(rosen, x0, method="bfgs", options=dict(maxiter=5))
    assert int(capped.status) == 1 and int(capped.nit) == 5 and not bool(capped.success)
    assert_matches_jax(capped, jax_rosen(x0, 5))


def test_vmap_over_x0_equals_each():
    X0 = ROSEN_STARTS[3][:3]
    batched = frame.vmap(lambda x: minimize(rosen, x, method="BFGS"))(X0)
    for k in range(3):
        one = minimize(rosen, X0[k], method="BFGS")
        assert_same_results(one, OptimizeResults(*(np.asarray(v)[k] for v in batched)))


def test_succeeds_where_jax_zoom_fails():
    # JAX's zoom fails whenever the step overshoots a minimum (a_hi < a_lo); frame zooms there and converges
    x0 = ROSEN_STARTS[2][0]
    assert int(jax_rosen(x0).status) == 3
    ours = minimize(rosen, x0, method="BFGS")
    assert bool(ours.success) and int(ours.status) == 0
    np.testing.assert_allclose(ours.x, SO.minimize(lambda x: rosen(x, np), x0, method="BFGS").x, atol=ROSEN_XTOL)
    np.testing.assert_allclose(float(ours.fun), rosen(np.asarray(ours.x), np), rtol=0, atol=1e-15)


def test_float32_stays_float32():
    ours = minimize(rosen, np.array([-1.2, 1.0], np.float32), method="BFGS")
    assert ours.x.dtype == np.float32 and bool(ours.success)
    np.testing.assert_allclose(ours.x, [1.0, 1.0], atol=1e-3)   # single precision, gtol 1e-5 on |g|


def test_bad_input_is_refused_by_name():
    with pytest.raises(ShapeError, match=r"minimize: x0 must be 1-d.*\(2, 2\)"):
        minimize(rosen, np.zeros((2, 2)), method="BFGS")
    with pytest.raises(InputError, match=r"minimize: method 'Nelder-Mead' is not recognised"):
        minimize(rosen, np.zeros(2), method="Nelder-Mead")
    with pytest.raises(ShapeError, match=r"minimize: fun must return a scalar, got shape \(2,\)"):
        minimize(lambda x: x ** 2, np.zeros(2), method="BFGS")
    with pytest.raises(InputError, match=r"minimize: unknown options \['xtol'\]"):
        minimize(rosen, np.zeros(2), method="BFGS", options=dict(xtol=1e-3))
    with pytest.raises(TraceError, match=r"minimize: args must be a tuple"):
        minimize(logistic, np.zeros(3), [_X, _Y], method="BFGS")
    with pytest.raises(ShapeError, match=r"minimize: x0 must be 1-d"):
        frame.function(lambda x: minimize(rosen, x, method="BFGS"))(np.zeros((2, 2)))
    # as in JAX, reverse mode through the loop is refused by name
    with pytest.raises(GradientError, match="while"):
        frame.grad(lambda x: minimize(rosen, x, method="BFGS").fun)(np.zeros(2))
