"""frame.scipy.stats's multinomial, mode, rankdata, sem and gaussian_kde against scipy.stats (values, dtypes and
shapes, eagerly and compiled) and their derivatives against jax.scipy.stats's (jax.grad, x64); the refusals
name the function."""
import warnings

import numpy as np
import pytest
import scipy.stats as S

import frame
import frame.random as R
import frame.scipy.stats as F
from frame import ShapeError

jax = pytest.importorskip("jax")
J = pytest.importorskip("jax.scipy.stats")
jnp = jax.numpy

RNG = np.random.default_rng(7)
TIES = RNG.integers(0, 4, (3, 7)).astype(float)     # small integers: many ties
WITH_NAN = TIES.copy()
WITH_NAN[1, 2] = WITH_NAN[1, 4] = np.nan
DATA, WEIGHTS, POINTS = RNG.normal(size=(2, 25)), RNG.uniform(0.2, 1.0, 25), RNG.normal(size=(2, 4))


def assert_same(got, want, what, rtol=1e-12):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (what, got.shape, want.shape, got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=0, err_msg=what)


def assert_grad_matches(ours, theirs, args, argnums=0, tol=1e-12):
    """frame.grad of ours equals jax.grad of theirs (both scalar functions) at args."""
    got = frame.grad(ours, argnums=argnums)(*args)
    want = jax.jit(jax.grad(theirs, argnums=argnums))(*map(jnp.asarray, args))
    many = isinstance(argnums, tuple)
    for g, w in zip(got if many else (got,), want if many else (want,)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=tol, atol=tol)


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_mode_and_sem(axis):
    for a in (TIES, WITH_NAN, TIES.astype(int)):
        for keepdims in (False, True):
            want = S.mode(a, axis=axis, keepdims=keepdims)
            for got in (F.mode(a, axis=axis, keepdims=keepdims),
                        frame.function(lambda x: F.mode(x, axis=axis, keepdims=keepdims))(a)):
                assert type(got).__name__ == "ModeResult" and got._fields == ("mode", "count")
                assert_same(got.mode, want.mode, "mode")
                assert_same(got.count, want.count, "count")
            for ddof in (0, 1):
                want = S.sem(a, axis=axis, ddof=ddof, keepdims=keepdims)
                assert_same(F.sem(a, axis=axis, ddof=ddof, keepdims=keepdims), want, "sem")
                assert_same(frame.function(lambda x: F.sem(x, axis=axis, ddof=ddof, keepdims=keepdims))(a), want,
                            "sem (compiled)")


@pytest.mark.parametrize("method", ["average", "min", "max", "dense", "ordinal"])
def test_rankdata(method):
    for a in (TIES, WITH_NAN, TIES.astype(int), RNG.normal(size=(2, 5))):
        for axis in (None, 0, 1, -1):
            want = S.rankdata(a, method, axis=axis)
            assert_same(F.rankdata(a, method, axis=axis), want, f"rankdata {method} {axis}")
            # traced float arrays rank as float64 (as JAX's): the dtype cannot depend on a nan's presence
            got = frame.function(lambda x: F.rankdata(x, method, axis=axis))(a)
            np.testing.assert_array_equal(got, want)
            assert np.asarray(got).dtype == (np.float64 if a.dtype.kind == "f" else want.dtype)


def test_sample_statistic_derivatives(jax_x64):
    a = RNG.normal(size=(3, 6))
    a[0, :3] = a[0, 3:]                     # ties so the mode is a repeated value
    w = RNG.uniform(-1, 1, 3)
    assert_grad_matches(lambda x: (w * F.sem(x, axis=0, ddof=1)).sum(),
                        lambda x: jnp.sum(w * J.sem(x, axis=0, ddof=1)), (a.T,))
    assert_grad_matches(lambda x: F.mode(x, axis=1).mode.sum(), lambda x: J.mode(x, axis=1).mode.sum(), (a,))
    assert_grad_matches(lambda x: (F.rankdata(x, axis=1) * a).sum(), lambda x: (J.rankdata(x, axis=1) * a).sum(), (a,))


def test_multinomial(jax_x64):
    x = np.array([[1, 2, 0], [3, 0, 0], [1, 1, 0], [1.5, 1.5, 0], [-1, 4, 0], [0, 0, 3]])
    for n, p in ((3, [0.2, 0.5, 0.3]), (3.7, [[0.2, 0.5, 0.3]]), (-1, [0.2, 0.5, 0.3]), (3, [0.9, 0.5, -0.4]),
                 (3, [0.9, 0.5, 0.4]), (np.array([[3], [2]]), [0.1, 0.0, 0.9])):
        with warnings.catch_warnings(), np.errstate(invalid="ignore"):
            warnings.simplefilter("ignore", FutureWarning)   # scipy's about p summing to 1 (it adjusts p[-1])
            want_log, want = S.multinomial.logpmf(x, n, p), S.multinomial.pmf(x, n, p)
        for space in (F.multinomial, frame.function(lambda *a: F.multinomial.logpmf(*a))):
            got = space.logpmf(x, n, p) if space is F.multinomial else space(x, n, p)
            np.testing.assert_allclose(got, want_log, rtol=1e-12, atol=0)
        np.testing.assert_allclose(F.multinomial.pmf(x, n, p), want, rtol=1e-12, atol=0)
    # d/dp at p summing to 1 (where scipy 1.17 and JAX read p alike); JAX takes integer counts only
    p, xs = np.array([0.2, 0.5, 0.3]), np.array([1, 2, 2])
    assert_grad_matches(lambda q: F.multinomial.logpmf(xs, 5, q), lambda q: J.multinomial.logpmf(xs, 5, q), (p,))


@pytest.mark.parametrize("bw_method", [None, "silverman", 0.4, lambda kde: 0.5 * kde.scotts_factor()])
@pytest.mark.parametrize("weighted", [False, True])
def test_gaussian_kde_values(bw_method, weighted):
    weights = WEIGHTS if weighted else None
    want = S.gaussian_kde(DATA, bw_method, weights)
    got = F.gaussian_kde(DATA, bw_method, weights)
    np.testing.assert_allclose(got.covariance, want.covariance, rtol=1e-12)
    np.testing.assert_allclose(got.factor, want.factor, rtol=1e-12)
    np.testing.assert_allclose(got.neff, want.neff, rtol=1e-12)
    for method in ("evaluate", "pdf", "logpdf", "__call__"):
        np.testing.assert_allclose(getattr(got, method)(POINTS), getattr(want, method)(POINTS), rtol=1e-12)
    np.testing.assert_allclose(got(POINTS[:, 0]), want(POINTS[:, 0]), rtol=1e-12)   # one point as (d,)
    mean, cov = np.array([0.1, -0.3]), np.array([[1.0, 0.2], [0.2, 0.5]])
    np.testing.assert_allclose(got.integrate_gaussian(mean, cov), want.integrate_gaussian(mean, cov), rtol=1e-12)
    other = (F.gaussian_kde(POINTS), S.gaussian_kde(POINTS))
    np.testing.assert_allclose(got.integrate_kde(other[0]), want.integrate_kde(other[1]), rtol=1e-12)
    one = (F.gaussian_kde(DATA[0], bw_method, weights), S.gaussian_kde(DATA[0], bw_method, weights))
    np.testing.assert_allclose(one[0].integrate_box_1d(-0.5, 1.0), one[1].integrate_box_1d(-0.5, 1.0), rtol=1e-12)
    np.testing.assert_allclose(one[0].logpdf(POINTS[0]), one[1].logpdf(POINTS[0]), rtol=1e-12)
    compiled = frame.function(lambda d, w, x: F.gaussian_kde(d, bw_method, w).logpdf(x))
    np.testing.assert_allclose(compiled(DATA, WEIGHTS if weighted else np.ones(25), POINTS), want.logpdf(POINTS),
                               rtol=1e-12)


def test_gaussian_kde_derivatives(jax_x64):
    c = RNG.uniform(-1, 1, 4)

    def ours(d, w, x):
        kde = F.gaussian_kde(d, weights=w)
        return (c * kde.evaluate(x)).sum() + (c[::-1] * kde.logpdf(x)).sum()

    def theirs(d, w, x):
        kde = J.gaussian_kde(d, weights=w)
        return jnp.sum(c * kde.evaluate(x)) + jnp.sum(c[::-1] * kde.logpdf(x))

    assert_grad_matches(ours, theirs, (DATA, WEIGHTS, POINTS), argnums=(0, 1, 2))
    mean, cov = np.array([0.1, -0.3]), np.array([[1.0, 0.2], [0.2, 0.5]])
    assert_grad_matches(lambda d, m: F.gaussian_kde(d).integrate_gaussian(m, cov),
                        lambda d, m: J.gaussian_kde(d).integrate_gaussian(m, cov), (DATA, mean), argnums=(0, 1))
    assert_grad_matches(lambda d, hi: F.gaussian_kde(d).integrate_box_1d(-0.5, hi),
                        lambda d, hi: J.gaussian_kde(d).integrate_box_1d(-0.5, hi), (DATA[0], 1.0), argnums=(0, 1))


def test_gaussian_kde_resample():
    kde = F.gaussian_kde(DATA, weights=WEIGHTS)
    key = R.PRNGKey(0)
    draws = np.asarray(kde.resample(key, (20000,)))
    assert draws.shape == (2, 20000) and kde.resample(key, ()).shape == (2,)
    np.testing.assert_array_equal(draws, kde.resample(key, (20000,)))   # a key gives the same draws
    # the draws' mean and covariance are the mixture's: the weighted data mean, and the weighted data covariance
    # plus the kernel's; 20000 draws put the sample mean within 5 standard errors (a fixed key: deterministic)
    w = WEIGHTS / WEIGHTS.sum()
    mean = DATA @ w
    cov = np.cov(DATA, aweights=w, bias=True) + np.asarray(kde.covariance)
    np.testing.assert_array_less(np.abs(draws.mean(axis=1) - mean), 5 * np.sqrt(np.diag(cov) / 20000))
    np.testing.assert_allclose(np.cov(draws), cov, rtol=0.05, atol=0.03)
    compiled = frame.function(lambda d, k: F.gaussian_kde(d).resample(k, (3,)))(DATA, key)
    assert compiled.shape == (2, 3)


@pytest.mark.parametrize("call, words", [
    (lambda: F.mode(TIES, nan_policy="omit"), "'mode'"), (lambda: F.mode(TIES, axis=2), "'mode'"),
    (lambda: F.mode(np.zeros((2, 0)), axis=1), "'mode'"),
    (lambda: F.rankdata(TIES, "first"), "'rankdata'"), (lambda: F.sem(TIES, axis=3), "'sem'"),
    (lambda: F.multinomial.logpmf([1, 2], 3, [0.5, 0.3, 0.2]), "'multinomial.logpmf'"),
    (lambda: F.gaussian_kde(np.ones((3, 2))), "'gaussian_kde'"),
    (lambda: F.gaussian_kde(DATA, weights=np.ones(3)), "'gaussian_kde'"),
    (lambda: F.gaussian_kde(DATA, bw_method="wide"), "'gaussian_kde'"),
    (lambda: F.gaussian_kde(DATA).evaluate(np.ones((3, 2))), "'gaussian_kde.evaluate'"),
    (lambda: F.gaussian_kde(DATA).integrate_box_1d(0, 1), "'gaussian_kde.integrate_box_1d'"),
])
def test_errors_are_named(call, words):
    with pytest.raises(ShapeError, match=words):
        call()
