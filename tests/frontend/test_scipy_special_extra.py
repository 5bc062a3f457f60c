"""frame.scipy.special's fresnel, owens_t, hyp2f1, sph_harm_y: values against scipy (eagerly and under
frame.function), derivatives against jax.scipy.special's (fresnel, which JAX lacks: against its closed forms), and
their argument errors."""
import numpy as np
import pytest
import scipy.special as S

import frame
import frame.numpy as fnp
import frame.scipy.special as F
from frame.errors import ShapeError, TraceError
from tests.frontend.test_scipy_special_more import assert_close, assert_eager_and_traced

jax = pytest.importorskip("jax")
pytestmark = pytest.mark.usefixtures("jax_x64")   # x64 for this module only
import jax.numpy as jnp  # noqa: E402
import jax.scipy.special as J  # noqa: E402

_FRESNEL_X = np.array([0.0, 1e-300, 1e-5, 0.3, 1.0, 1.59, 1.6, 1.61, 2.5, 4.7, 7.3, 10.0, 33.3, 99.9, -0.7, -2.2,
                       -15.5, np.inf, -np.inf])
# (h, a) over both sides of |a| = 1, large h (tiny T), h = 0 and the infinities
_OWENS_H = np.array([0.0, 1e-3, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 35.0, -1.5, 0.7, np.inf, 0.0, 1.0, 3.0])
_OWENS_A = np.array([0.3, 1e-3, 0.99, 1.0, 1.01, 2.0, 10.0, 100.0, 0.5, 1.0, -3.0, 1e5, 1.0, np.inf, -np.inf, -0.2])
# (a, b, c, x): Taylor, Pfaff (x < 0, also x < -1 where JAX's series diverges), the 1 - x transformation, its
# logarithmic form (integer c - a - b = 0, 1, 2), Euler (c - a - b <= -1), terminating series
_HYP2F1 = np.array([
    (0.3, 1.5, 2.8, 0.4), (1.2, 2.3, 3.9, -0.3), (3.2, 2.5, 6.0, 0.7), (2.0, 3.0, 5.0, -0.9), (0.25, 0.75, 1.0, -3.0),
    (1.0, 1.0, 2.0, -20.0), (1.5, 2.5, 3.0, -10.0), (0.3, 4.0, 1.5, 0.999), (-0.7, 2.5, 4.5, 0.95),
    (1.0, 1.0, 2.0, 0.9),
    (1.0, 1.0, 2.0, 0.99), (0.5, 0.5, 1.0, 0.9999), (1.5, 2.0, 4.5, 0.95), (1.0, 2.0, 5.0, 0.97), (1.3, 2.7, 7.0, 0.9),
    (1.0, 2.0, 1.0, 0.8), (1.2, 2.3, 0.5, 0.9), (-3.0, 2.0, 4.0, 0.8), (2.5, -4.0, 1.5, 0.6), (-2.0, 2.5, -1.5, 0.6),
    (1.0, 2.0, 2.0, 0.7), (2.0, 1.3, 2.0, 0.7), (1.0, 2.0, 3.5, 1.0), (-3.0, 2.0, 4.0, 1.0), (0.0, 2.0, 3.0, 0.5),
    (1.0, 1.0, 2.0, 0.0)]).T


def _elementwise_grad(fn, argnums, order=1):
    """d^order fn / d(argnums) elementwise for an elementwise fn, through grad of the sum (one trace for all points)."""
    for _ in range(order):
        fn = frame.grad(lambda *args, f=fn: fnp.sum(f(*args)), argnums=argnums)
    return fn


def test_fresnel_matches_scipy():
    # 1e-14: the series at 1.6 (largest term 11) costs a few ulps
    assert_eager_and_traced(F.fresnel, (_FRESNEL_X,), S.fresnel(_FRESNEL_X), rtol=1e-14)
    s, c = F.fresnel(np.array([np.nan, 3]))
    assert np.isnan(s[0]) and np.isnan(c[0])
    assert_close(F.fresnel(1e200), (0.5, 0.5))      # scipy: nan (x^2 overflows)


def test_fresnel_is_exact_at_large_x():
    # scipy rounds pi x^2 / 2 (relative error 3e-14 at x = 1000, 1e-10 at 1e7); reference values from mpmath at 40
    # digits
    x = np.array([1000.37, 36974.1, 100000.3, 10000000.1, 1e9])
    s_ref = [0.49968913660669095, 0.5000025313934336, 0.499996848666686, 0.49999996816926695, 0.4999999996816901]
    c_ref = [0.500067898440769, 0.49999177158200164, 0.5000004485040868, 0.5000000001274706, 0.5]
    assert_eager_and_traced(F.fresnel, (x,), (np.array(s_ref), np.array(c_ref)), rtol=1e-15)


def test_fresnel_derivatives_are_the_closed_forms_to_third_order():
    x = np.array([0.3, 1.3, 2.9, -4.2, 40.1])
    u = np.pi * x * x / 2
    assert_close(_elementwise_grad(lambda t: F.fresnel(t)[0], 0)(x), np.sin(u))
    assert_close(_elementwise_grad(lambda t: F.fresnel(t)[1], 0)(x), np.cos(u))
    assert_close(_elementwise_grad(lambda t: F.fresnel(t)[0], 0, order=2)(x), np.pi * x * np.cos(u))
    third = _elementwise_grad(lambda t: F.fresnel(t)[1], 0, order=3)(x)
    assert_close(third, -np.pi * np.sin(u) - (np.pi * x) ** 2 * np.cos(u))


def test_owens_t_matches_scipy():
    # 1e-13: at h = 20 .. 35, e^(-h^2/2)'s own rounding (h^2/2 ~ 600 times eps)
    assert_eager_and_traced(F.owens_t, (_OWENS_H, _OWENS_A), S.owens_t(_OWENS_H, _OWENS_A), rtol=1e-13)
    a_grid = np.geomspace(1e-2, 1e2, 9)
    h, a = np.meshgrid(np.linspace(-6, 6, 13), np.concatenate([-a_grid, a_grid]))
    assert_close(F.owens_t(h, a), S.owens_t(h, a), rtol=1e-13)
    assert np.isnan(F.owens_t(np.nan, 1.0)) and np.isnan(F.owens_t(1.0, np.nan))
    assert_close(F.owens_t(0.5, np.array([0.2, 0.4])), S.owens_t(0.5, [0.2, 0.4]))   # broadcasting


def test_owens_t_derivatives_match_jax():
    points = [(0.7, 1.7), (0.3, 0.4), (-2.0, -0.6), (1.2, 5.0)]
    for h, a in points:
        h, a = np.float64(h), np.float64(a)
        got = frame.grad(F.owens_t, argnums=(0, 1))(h, a)
        want = jax.grad(J.owens_t, argnums=(0, 1))(h, a)
        assert_close(got[0], want[0])
        assert_close(got[1], want[1])
    # second order through the attached rule: d/dh e^(-(1 + a^2) h^2 / 2) / (2 pi (1 + a^2)) = -h e^(...) / 2pi
    h, a = np.array(points).T
    got2 = _elementwise_grad(lambda h: _elementwise_grad(F.owens_t, 1)(h, a), 0)(h)
    assert_close(got2, -h * np.exp(-0.5 * (1 + a * a) * h * h) / (2 * np.pi))


def test_hyp2f1_matches_scipy():
    # 1e-13: the Gamma ratios of the transformations go through gammaln
    want = S.hyp2f1(*_HYP2F1)
    assert_eager_and_traced(F.hyp2f1, tuple(_HYP2F1), want, rtol=1e-13)


def test_hyp2f1_special_cases_as_jax():
    a = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 2.0])
    b = np.array([2.0, 2.0, 2.0, 2.0, 2.0, 0.0, 0.0])
    c = np.array([0.0, -2.0, 3.0, 2.5, 3.0, 0.0, 3.0])
    x = np.array([0.5, 0.5, 1.0, 1.0, 1.5, 0.5, 0.5])
    # jax.scipy.special.hyp2f1's values there (scipy's too, but 1 at a = b = c = 0)
    assert_close(F.hyp2f1(a, b, c, x), [np.inf, np.inf, np.inf, np.inf, np.inf, np.inf, 1.0])


def test_hyp2f1_derivatives_match_jax():
    # the parameter derivatives are JAX's series (exact for the Taylor series, so the same numbers where it
    # converges); the last point (x = 0.95: the 1 - x forms) checks the attached x rule, a b / c 2F1(a+1, b+1; c+1; x)
    points = np.array([(0.3, 1.5, 2.8, 0.4), (1.2, 2.3, 3.9, -0.3), (2.0, 0.5, 1.7, 0.25), (1.3, 0.4, 2.9, 0.95)]).T
    got = _elementwise_grad(F.hyp2f1, (0, 1, 2, 3))(*points)
    grad = jax.grad(J.hyp2f1, argnums=(0, 1, 2, 3))
    want = np.array([grad(*p) for p in points.T[:3]]).T
    for g, w in zip(got, want):
        assert_close(np.asarray(g)[:3], w)
    a, b, c, x = points[:, 3]
    assert_close(got[3][3], a * b / c * S.hyp2f1(a + 1, b + 1, c + 1, x), rtol=1e-13)


def test_sph_harm_y_matches_scipy():
    n = np.array([0, 1, 1, 1, 2, 2, 2, 3, 5, 7, 7, 12, 2])
    m = np.array([0, -1, 0, 1, -2, 1, 2, -3, 4, -7, 3, -5, 3])      # the last |m| > n: 0
    theta, phi = np.linspace(0.0, np.pi, 13), np.linspace(0.0, 6.2, 13)
    want = S.sph_harm_y(n, m, theta, phi)
    got = F.sph_harm_y(n, m, theta, phi)
    assert np.asarray(got).dtype == np.complex128
    # absolute: the values are O(1) and pass through 0 (1e-16 near the poles, where scipy's are 0)
    np.testing.assert_allclose(np.asarray(got), want, rtol=0, atol=1e-14)
    traced = frame.function(lambda t, p: F.sph_harm_y(n, m, t, p, n_max=12))(theta, phi)
    np.testing.assert_allclose(np.asarray(traced), want, rtol=0, atol=1e-14)
    grid = F.sph_harm_y(np.array([[1], [3]]), 1, np.array([0.2, 0.4, 0.9]), 0.1)    # broadcasting as scipy
    want = S.sph_harm_y(np.array([[1], [3]]), 1, [0.2, 0.4, 0.9], 0.1)
    np.testing.assert_allclose(np.asarray(grid), want, rtol=0, atol=1e-15)


def test_sph_harm_y_derivatives_match_jax():
    def ours(t, p):
        return fnp.real(F.sph_harm_y(3, 2, t, p)) + fnp.imag(F.sph_harm_y(4, -1, t, p))

    def theirs(t, p):
        y = J.sph_harm_y(jnp.array([3, 4]), jnp.array([2, -1]), t, p, n_max=4)
        return jnp.real(y[0]) + jnp.imag(y[1])

    for t, p in [(0.8, 0.7), (2.1, 4.0)]:
        got = frame.grad(ours, argnums=(0, 1))(np.float64(t), np.float64(p))
        want = jax.grad(theirs, argnums=(0, 1))(t, p)
        assert_close(got[0], want[0])
        assert_close(got[1], want[1])


def test_bad_static_arguments():
    with pytest.raises(ShapeError, match="sph_harm_y: diff_n"):
        F.sph_harm_y(2, 1, 0.3, 0.4, diff_n=1)
    with pytest.raises(ShapeError, match="sph_harm_y: n_max"):
        F.sph_harm_y(2, 1, 0.3, 0.4, n_max=-1)
    with pytest.raises(ShapeError, match="sph_harm_y: m must hold integers"):
        F.sph_harm_y(2, 0.5, 0.3, 0.4)
    with pytest.raises(TraceError, match="sph_harm_y: n is traced"):
        frame.function(lambda n: F.sph_harm_y(n, 0, 0.3, 0.4))(np.array([2]))
    with pytest.raises(ShapeError, match="fresnel: complex"):
        F.fresnel(np.array([1.0 + 1.0j]))
