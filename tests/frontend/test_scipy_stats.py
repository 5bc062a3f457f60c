"""frame.scipy.stats against scipy.stats (values with scipy's conventions outside the support and for invalid
parameters, broadcasting of loc/scale and shape parameters, scipy's float64 results, eagerly and compiled) and
its derivatives against jax.scipy.stats's (order 1 everywhere, order 2 for norm/t/gamma logpdf), or against
finite differences of scipy's function where JAX has no such method; the refusals name the function."""
import inspect
import warnings

import numpy as np
import pytest
import scipy.stats as S

import frame
import frame.numpy as fnp
import frame.scipy.stats as F
from frame.errors import GradientError, LinAlgError, ShapeError
from tests.frontend.test_scipy_special import _partials   # first and second partials, elementwise

jax = pytest.importorskip("jax")
J = pytest.importorskip("jax.scipy.stats")
jnp = jax.numpy

# points across the support, at its ends, outside it, +-inf and nan
X = np.array([-3.0, -1.2, -0.5, 0.0, 0.3, 0.9, 1.0, 2.5, 7.0, np.inf, -np.inf, np.nan])
Q = np.array([0.0, 1e-10, 0.1, 0.3, 0.5, 0.7, 0.95, 1.0, -0.1, 1.5, np.nan])
K = np.array([-1.0, 0, 1, 2, 3, 2.5, 5, 10, np.inf, -np.inf, np.nan])
# loc and scale broadcast against the shape parameters' column and the points; scale -1 is invalid (nan)
LOC = np.array([0.0, 1.0, -2.0])[:, None, None]
SCALE = np.array([-1.0, 0.5, 2.0])[:, None, None, None]


def col(*values):
    return np.array(values, dtype=float)[:, None]


# shape parameters as columns: valid values, the edges of validity, invalid ones
CONTINUOUS = {
    "norm": (), "uniform": (), "expon": (), "laplace": (), "logistic": (), "cauchy": (), "gumbel_l": (),
    "gumbel_r": (), "t": (col(0.5, 3.0, np.inf, -1.0),), "gamma": (col(0.5, 1.0, 3.0, 0.0),),
    "beta": (col(0.5, 2.0, 1.0, 3.0), col(3.0, 0.7, -1.0, 1.0)), "chi2": (col(1.0, 4.0, 0.5, -2.0),),
    "vonmises": (col(0.0, 2.0, -1.0, 50.0),), "pareto": (col(0.5, 3.0, -1.0),), "gennorm": (col(0.5, 2.0, 1.3, 0.0),),
    "truncnorm": (col(-1.0, 0.5, -3.0, -np.inf, 2.0), col(2.0, 3.0, -0.2, 1.0, 1.0)),
    "wrapcauchy": (col(0.3, 0.9, 1.5, 0.0),),
}
DISCRETE = {
    "poisson": (col(0.0, 2.5, -1.0),), "bernoulli": (col(0.3, 0.0, 1.0, 1.5),), "geom": (col(0.3, 1.0, 0.0),),
    "binom": (col(5.0, 10.0, 2.5, 4.0), col(0.3, 0.7, 0.5, 1.0)),
    "nbinom": (col(2.5, 5.0, 0.0, 1.0), col(0.3, 1.0, 0.5, 0.0)),
    "betabinom": (col(5.0, 10.0, 4.0, 3.0), col(0.5, 2.0, 1.0, 1.0), col(3.0, 0.7, -1.0, 2.0)),
}
UNIVARIATE = [(name, m) for table in (CONTINUOUS, DISCRETE) for name in table for m in getattr(F, name).__all__]


def _scipy(name, method, *args, **kwargs):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return getattr(getattr(S, name), method)(*args, **kwargs)


def assert_same(got, want, rtol=1e-12):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=0)


@pytest.mark.parametrize("name,method", UNIVARIATE)
def test_values_match_scipy(name, method):
    """Every point (in and out of the support, nan), every parameter (valid or not), loc and scale broadcast."""
    discrete = name in DISCRETE
    params = (DISCRETE if discrete else CONTINUOUS)[name]
    points = Q if method in ("ppf", "isf") else (K if discrete else X)
    ours = getattr(getattr(F, name), method)
    frames = (LOC,) if discrete else (LOC, SCALE)
    with np.errstate(all="ignore"):
        assert_same(ours(points, *params), _scipy(name, method, points, *params))
        assert_same(ours(points, *params, *frames), _scipy(name, method, points, *params, *frames))
        assert_same(frame.function(ours)(points, *params, *frames), _scipy(name, method, points, *params, *frames))


def test_keyword_arguments_and_python_numbers():
    assert F.norm.logpdf(1.0).dtype == np.float64 and F.norm.logpdf(1.0).shape == ()
    np.testing.assert_allclose(F.norm.cdf(x=1.5, scale=2.0, loc=-1), S.norm.cdf(1.5, -1, 2.0), rtol=1e-14)
    np.testing.assert_allclose(F.t.logpdf([0.5, 2], df=3, scale=2), S.t.logpdf([0.5, 2], 3, scale=2), rtol=1e-13)
    np.testing.assert_allclose(frame.function(lambda x: F.gamma.pdf(x, 2.5, loc=0.5, scale=2))(np.float64(3.0)),
                               S.gamma.pdf(3.0, 2.5, 0.5, 2), rtol=1e-13)
    np.testing.assert_allclose(F.binom.pmf(k=3, n=10, p=0.4), S.binom.pmf(3, 10, 0.4), rtol=1e-13)
    assert str(inspect.signature(F.beta.logpdf)) == "(x, a, b, loc=0, scale=1)"
    assert str(inspect.signature(F.bernoulli.ppf)) == "(q, p, loc=0)"
    assert F.norm.logpdf.__qualname__ == "norm.logpdf"
    with pytest.raises(TypeError):
        F.norm.pdf(1.0, sigma=2)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int64, np.bool_])
def test_every_real_dtype_gives_scipys_float64(dtype):
    x = np.array([0, 1, 1, 2]).astype(dtype)
    for name, method, args in (("norm", "logpdf", ()), ("expon", "cdf", ()), ("gamma", "pdf", (np.array(2, dtype),)),
                               ("poisson", "pmf", (np.array(2, dtype),)), ("logistic", "sf", ())):
        want = _scipy(name, method, x, *args)
        for ours in (getattr(getattr(F, name), method), frame.function(getattr(getattr(F, name), method))):
            assert_same(ours(x, *args), want, rtol=1e-13)


def test_extreme_points_stay_accurate():
    """Accurate forms in the tails (log1p, log(1 - e^-t), scipy's expit, its logit near 1/2)."""
    z = np.array([-700.0, -40, -5, 1e-300, 1e-8, 5, 40])
    q = np.array([1e-300, 1e-12, 0.49999999, 0.5, 0.50000001, 1 - 1e-12])
    for name in ("norm", "expon", "laplace", "logistic", "cauchy", "gumbel_r"):
        for method in ("cdf", "logcdf", "sf", "logsf"):
            assert_same(getattr(getattr(F, name), method)(z), _scipy(name, method, z))
        for method in ("ppf", "isf"):
            assert_same(getattr(getattr(F, name), method)(q), _scipy(name, method, q))


def test_the_set_of_jax_scipy_stats():
    """Every jax.scipy.stats distribution method is here, except poisson.entropy, multinomial and the sample
    statistics."""
    missing = {"poisson": {"entropy"}}
    left_out = {"gaussian_kde", "mode", "rankdata", "sem", "multinomial"}   # statistics; multinomial: not yet
    for name in dir(J):
        space = getattr(J, name)
        if name.startswith("_") or name in left_out or not inspect.ismodule(space):
            continue
        theirs = {m for m, f in vars(space).items() if not m.startswith("_") and inspect.isfunction(f)
                  and f.__module__.startswith("jax._src.scipy.stats")}
        assert theirs - set(getattr(F, name).__all__) <= missing.get(name, set()), name
    assert set(F.__all__) >= {name for name in dir(J) if inspect.ismodule(getattr(J, name))} - left_out


# -- derivatives ---------------------------------------------------------------------------------------------
R4 = np.array([-0.7, 0.2, 0.9, 1.6])
P4 = np.array([0.15, 0.35, 0.6, 0.8])
POS4 = np.array([0.7, 1.3, 2.1, 3.4])
LOCS, SCALES = np.array([0.1, -0.2, 0.05, 0.3]), np.array([1.3, 0.8, 2.0, 1.1])
# (x, *shape parameters, loc, scale) at interior points, every entry distinct (beta's a != b: JAX's betaln
# differentiates twice through min/max, wrong at ties); q for ppf/isf
DERIV = {
    "norm": (R4, LOCS, SCALES), "uniform": (P4, LOCS / 3, SCALES + 1), "expon": (POS4, LOCS / 2, SCALES),
    "laplace": (R4, LOCS, SCALES), "logistic": (R4, LOCS, SCALES), "cauchy": (R4, LOCS, SCALES),
    "gumbel_l": (R4, LOCS, SCALES), "gumbel_r": (R4, LOCS, SCALES), "t": (R4, POS4 + 1, LOCS, SCALES),
    "gamma": (POS4 + 0.5, POS4, LOCS / 2, SCALES), "beta": (P4, POS4, POS4[::-1] + 0.25, -LOCS / 10, SCALES + 0.5),
    "chi2": (POS4 + 0.5, POS4 + 1, LOCS / 2, SCALES), "vonmises": (R4, POS4, LOCS, SCALES),
    "truncnorm": (R4 / 3, -POS4, POS4[::-1], LOCS / 10, SCALES), "pareto": (POS4 + 2, POS4, LOCS, SCALES),
    "gennorm": (R4 + 0.05, POS4, LOCS, SCALES), "wrapcauchy": (P4 * 6, P4, LOCS / 10, SCALES / 3 + 0.6),
    "poisson": (np.array([0.0, 1, 3, 2]), POS4), "bernoulli": (np.array([0.0, 1, 1, 0]), P4),
    "binom": (np.array([0.0, 1, 3, 2]), np.array([3.0, 4, 5, 6]), P4), "geom": (np.array([1.0, 2, 4, 3]), P4),
    "nbinom": (np.array([0.0, 1, 3, 2]), POS4, P4),
    "betabinom": (np.array([0.0, 1, 3, 2]), np.array([3.0, 4, 5, 6]), POS4, POS4[::-1] + 0.25),
}
# arguments not differentiated: the points of discrete distributions and binomial counts
CONSTANT = {"poisson": {0}, "bernoulli": {0}, "binom": {0, 1}, "geom": {0}, "nbinom": {0}, "betabinom": {0, 1}}
# cdfs by the gammainc / gammaincc / betainc ops, differentiable in x only: not in the shape parameters
INCOMPLETE = {"gamma": {1}, "chi2": {1}, "beta": {1, 2}, "gennorm": {1}}
TAILS = ("cdf", "logcdf", "sf", "logsf")
DERIVATIVES = [(name, m) for name in DERIV for m in getattr(F, name).__all__]


def _args(name, method):
    args = DERIV[name]
    return ((P4,) + args[1:]) if method in ("ppf", "isf") else args


def _grads(grad, sum_, fn, args, wrt):
    out = grad(lambda *a: sum_(fn(*a)), argnums=tuple(wrt))(*args)
    return [np.asarray(g) for g in out]


@pytest.mark.parametrize("name,method", DERIVATIVES)
def test_first_derivatives(name, method):
    """Against jax.scipy.stats's own function in the arguments it takes, else against central differences of
    scipy's function."""
    args = _args(name, method)
    ours = getattr(getattr(F, name), method)
    wrt = [i for i in range(len(args)) if i not in CONSTANT.get(name, ())
           and not (method in TAILS and i in INCOMPLETE.get(name, ()))]
    theirs = getattr(getattr(J, name), method, None)
    n = len(inspect.signature(theirs).parameters) if theirs else 0   # jax's vonmises, ... take no loc / scale
    # jax's gumbel_l/gumbel_r cannot differentiate xlogy(-1, .) (of an int constant, under x64): in scale and
    # in ppf's q those go by differences
    jax_cannot = {0, len(args) - 1} if name.startswith("gumbel") else set()
    by_jax = [i for i in wrt if i < n and i not in jax_cannot]
    if by_jax:
        got = _grads(frame.grad, fnp.sum, ours, args[:n], by_jax)
        with jax.enable_x64(True):
            want = _grads(jax.grad, jnp.sum, theirs, [jnp.asarray(a) for a in args[:n]], by_jax)
        for i, g, w in zip(by_jax, got, want):
            np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12, err_msg=f"d/d argument {i}")
    by_differences = [i for i in wrt if i not in by_jax]
    if by_differences:
        got = _grads(frame.grad, fnp.sum, ours, args, by_differences)
    for i, g in zip(by_differences, got):
        h = 1e-6 * np.maximum(1.0, np.abs(args[i]))
        up, down = list(args), list(args)
        up[i], down[i] = args[i] + h, args[i] - h
        fd = (_scipy(name, method, *up) - _scipy(name, method, *down)) / (2 * h)
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8, err_msg=f"d/d argument {i} (differences)")


@pytest.mark.parametrize("name", INCOMPLETE)
def test_cdfs_refuse_derivatives_in_shape_parameters(name):
    args = DERIV[name]
    for i in INCOMPLETE[name]:
        with pytest.raises(GradientError, match="gammainc|betainc"):
            frame.grad(lambda *a: fnp.sum(getattr(F, name).cdf(*a)), argnums=i)(*args)


@pytest.mark.parametrize("name", ["norm", "t", "gamma"])
def test_second_derivatives_of_logpdf(name):
    args = DERIV[name]
    ours = _partials(frame.grad, fnp.sum, getattr(F, name).logpdf, args)
    with jax.enable_x64(True):
        theirs = [np.asarray(t) for t in
                  _partials(jax.grad, jnp.sum, getattr(J, name).logpdf, [jnp.asarray(a) for a in args])]
    for got, want in zip(ours, theirs):
        np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-12)


def test_masked_entries_have_zero_derivatives():
    """Outside the support and at invalid parameters the value is a constant, and so its derivative 0, not nan."""
    x, a = np.array([-1.0, 0.5, 2.0, 3.0]), np.array([2.0, -1.0, 0.0, 1.5])
    for fn in (F.gamma.logpdf, F.gamma.pdf, F.chi2.logpdf, F.t.pdf, F.beta.logpdf):
        args = (x, a) if fn is not F.beta.logpdf else (x / 4, a, a[::-1])
        assert np.isnan(fn(*args)[1:3]).all()   # invalid parameters; entry 0 is outside the support but for t
        grads = frame.grad(lambda *v: fnp.sum(fnp.where(fnp.isfinite(fn(*v)), fn(*v), 0.0)),
                           argnums=tuple(range(len(args))))(*args)
        for g in grads:
            assert np.isfinite(g).all()
            np.testing.assert_array_equal(g[1:3], 0.0)
    g = frame.grad(lambda p: fnp.sum(F.binom.logpmf(np.array([-1.0, 2.5, 3, 7]), 5, p)))(np.array([0.3, 0.4, 0.5, 0.6]))
    np.testing.assert_array_equal(g[[0, 1, 3]], 0.0)
    assert np.isfinite(g[2]) and g[2] != 0
    q = np.array([0.0, 1.0, 0.5, 2.0])   # ppf: the ends of the support -inf and inf, loc, nan
    g = frame.grad(lambda s: fnp.sum(fnp.where(fnp.isfinite(F.norm.ppf(q, 1.0, s)), F.norm.ppf(q, 1.0, s), 0.0)))(
        np.array([1.0, 2.0, 3.0, 4.0]))
    np.testing.assert_array_equal(g, [0.0, 0.0, 0.0, 0.0])


def test_the_derivatives_lower_to_jax():
    from frame.interop import check_derivatives
    check_derivatives(lambda x, a, b: F.truncnorm.logcdf(x, a, b), R4 / 3, -POS4, POS4[::-1], argnums=(0, 1, 2))
    check_derivatives(lambda x, mu: F.poisson.logpmf(x, mu), np.array([0.0, 1, 3, 2]), POS4, argnums=1)


# -- multivariate ---------------------------------------------------------------------------------------------
RNG = np.random.default_rng(0)
_A = RNG.normal(size=(3, 3))
COV = _A @ _A.T + np.eye(3)
MEAN, XS = RNG.normal(size=3), RNG.normal(size=(4, 3))
DIAG = np.array([0.5, 1.0, 2.0])


@pytest.mark.parametrize("method", ["logpdf", "pdf"])
@pytest.mark.parametrize("mean,cov", [(MEAN, COV), (None, COV), (MEAN, 2.5), (MEAN, DIAG), (list(MEAN), COV.tolist())])
def test_multivariate_normal_matches_scipy(method, mean, cov):
    ours = getattr(F.multivariate_normal, method)
    want = _scipy("multivariate_normal", method, XS, mean, cov)
    assert_same(ours(XS, mean, cov), want)
    assert_same(frame.function(lambda x: ours(x, mean=mean, cov=cov))(XS), want)
    assert_same(ours(XS[1], mean, cov), _scipy("multivariate_normal", method, XS[1], mean, cov))


def test_multivariate_normal_of_one_dimension_and_stacks():
    x = np.array([0.3, 1.0, -2.0])   # points of a one-dimensional distribution, as scipy reads them
    assert_same(F.multivariate_normal.logpdf(x, 0.5, 2.0), S.multivariate_normal.logpdf(x, 0.5, 2.0))
    assert_same(F.multivariate_normal.logpdf(0.3, [0.5], [[2.0]]), S.multivariate_normal.logpdf(0.3, [0.5], [[2.0]]))
    assert_same(F.multivariate_normal.logpdf(x[:, None], cov=0.7), S.multivariate_normal.logpdf(x, cov=0.7))
    covs, means = np.stack([COV, 2 * COV + np.eye(3)]), RNG.normal(size=(2, 1, 3))   # JAX's stacks broadcast
    want = [[S.multivariate_normal.logpdf(XS[j], means[i, 0], covs[i]) for j in range(4)] for i in range(2)]
    np.testing.assert_allclose(F.multivariate_normal.logpdf(XS, means, covs[:, None]), want, rtol=1e-12)
    np.testing.assert_allclose(F.multivariate_normal.logpdf(XS, means, DIAG), [S.multivariate_normal.logpdf(
        XS, m[0], DIAG) for m in means], rtol=1e-12)
    assert np.isnan(F.multivariate_normal.logpdf(XS, MEAN, -1.0)).all()
    assert F.multivariate_normal.logpdf(np.zeros((0, 3)), MEAN, COV).shape == (0,)


def test_multivariate_normal_derivatives_match_jax():
    args = (XS, MEAN, COV)
    got = _grads(frame.grad, fnp.sum, F.multivariate_normal.logpdf, args, (0, 1, 2))
    with jax.enable_x64(True):
        want = _grads(jax.grad, jnp.sum, J.multivariate_normal.logpdf, [jnp.asarray(a) for a in args], (0, 1, 2))
    for g, w in zip(got[:2], want[:2]):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12)
    sym = lambda m: 0.5 * (m + m.T)   # noqa: E731 - the derivative in cov is taken over symmetric matrices
    np.testing.assert_allclose(sym(got[2]), sym(want[2]), rtol=1e-9, atol=1e-12)
    from frame.interop import check_derivatives
    check_derivatives(lambda x, m: F.multivariate_normal.logpdf(x, m, COV), XS, MEAN, argnums=(0, 1))


ALPHA = np.array([0.5, 2.0, 3.0])
POINTS = RNG.dirichlet(ALPHA, size=4).T   # components on axis 0, as scipy


@pytest.mark.parametrize("method", ["logpdf", "pdf"])
def test_dirichlet_matches_scipy(method):
    ours = getattr(F.dirichlet, method)
    for x, alpha in ((POINTS, ALPHA), (POINTS[:2], ALPHA), (POINTS[:, 0], ALPHA), (POINTS[:, 0].tolist(), [1, 2, 3])):
        want = _scipy("dirichlet", method, x, alpha)
        assert_same(ours(x, alpha), want)
        assert_same(frame.function(ours)(x, alpha), want)
    single = [np.asarray(a, np.float32) for a in (POINTS, ALPHA)]
    got, want = ours(*single), _scipy("dirichlet", method, *single)
    assert got.dtype == want.dtype == np.float32   # scipy computes dirichlet in float32
    np.testing.assert_allclose(got, want, rtol=2e-6)


def test_dirichlet_off_the_simplex():
    """-inf off the simplex and nan for alpha <= 0 (scipy raises there), whether concrete or traced."""
    # columns: a negative entry, a zero entry (alpha 3 > 1: density 0), sum 0.9, sum 1 + 2e-9, sum 1 + 5e-10
    x = np.array([[0.5, 0.5, 0.2, 0.3, 0.3], [0.6, 0.5, 0.3, 0.3, 0.3], [-0.1, 0.0, 0.4, 0.4 + 2e-9, 0.4 + 5e-10]])
    for fn in (F.dirichlet.logpdf, frame.function(F.dirichlet.logpdf)):
        np.testing.assert_array_equal(fn(x, ALPHA)[:4], -np.inf)
        np.testing.assert_allclose(fn(x, ALPHA)[4], S.dirichlet.logpdf(x[:, 4], ALPHA), rtol=1e-12)
        assert np.isnan(fn(POINTS, [1.0, -1.0, 2.0])).all()


def test_dirichlet_derivatives_match_jax():
    args = (POINTS, ALPHA + 0.1)
    got = _grads(frame.grad, fnp.sum, F.dirichlet.logpdf, args, (0, 1))
    with jax.enable_x64(True):
        want = _grads(jax.grad, jnp.sum, J.dirichlet.logpdf, [jnp.asarray(a) for a in args], (0, 1))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12)


# -- refusals -------------------------------------------------------------------------------------------------
def test_bad_arguments_name_the_function():
    with pytest.raises(ShapeError, match=r"op 'norm.pdf': the shapes of x \(3,\), loc \(2,\), scale \(\) do not"):
        F.norm.pdf(np.zeros(3), np.zeros(2))
    with pytest.raises(ShapeError, match=r"op 'gamma.logpdf': the shapes of x \(3,\), a \(4,\)"):
        frame.function(F.gamma.logpdf)(np.ones(3), np.ones(4))
    with pytest.raises(ShapeError, match="op 'binom.pmf': the shapes of k"):
        F.binom.pmf(np.ones(3), np.ones(2), 0.5)
    with pytest.raises(ShapeError, match="op 'norm.cdf': x must be real numbers, got complex128"):
        F.norm.cdf(np.array([1 + 2j]))
    with pytest.raises(ShapeError, match="op 'expon.sf': scale must be an array of real numbers, got str"):
        F.expon.sf(1.0, scale="wide")
    mvn = F.multivariate_normal.logpdf
    with pytest.raises(ShapeError, match=r"op 'multivariate_normal.logpdf': x must have the distribution's 3 "
                                         r"components on its last axis, got shape \(4, 2\)"):
        mvn(np.zeros((4, 2)), MEAN, COV)
    with pytest.raises(ShapeError, match=r"op 'multivariate_normal.pdf': cov must be .* got shape \(2, 2\)"):
        F.multivariate_normal.pdf(XS, MEAN, np.eye(2))
    with pytest.raises(ShapeError, match=r"cov must be .* got shape \(2,\)"):
        mvn(XS, MEAN, np.ones(2))
    with pytest.raises(ShapeError, match="allow_singular=True .* is not supported"):
        mvn(XS, MEAN, COV, allow_singular=True)
    with pytest.raises(ShapeError, match=r"the batch shapes of x \(4, 3\), mean \(2, 3\)"):
        mvn(XS, np.zeros((2, 3)), COV)
    with pytest.raises(LinAlgError, match="cholesky"):   # not positive definite: as scipy, an error
        mvn(XS, MEAN, -COV)
    with pytest.raises(ShapeError, match=r"op 'dirichlet.logpdf': alpha must be one-dimensional, got shape \(1, 3\)"):
        F.dirichlet.logpdf(POINTS, ALPHA[None])
    with pytest.raises(ShapeError, match=r"op 'dirichlet.pdf': x must have 3 or 2 components on its first axis"):
        F.dirichlet.pdf(POINTS.T, ALPHA)
