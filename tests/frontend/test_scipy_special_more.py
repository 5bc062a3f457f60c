"""frame.scipy.special's bernoulli, expn, sici, bessel_jn, hyp1f1: values against scipy (eagerly and under
frame.function), derivatives against jax.scipy.special's, and their argument errors."""
import numpy as np
import pytest
import scipy.special as S

import frame
import frame.scipy.special as F
from frame.errors import ShapeError

_EXPN_X = np.array([0.0, 1e-5, 0.3, 0.99, 1.0, 1.0001, 1.5, 3.0, 10.0, 50.0, 700.0, -1.0])
_SICI_X = np.array([-np.inf, -10, -4, -3.999, -1e-3, 0, 1e-8, 0.5, 2, 4, 4.0001, 5, 8, 30, 1e5, 1e10, np.inf])
_A = np.array([0.5, 1.3, -0.7, 2.0, 0.0, 3.0, 0.5, 1.3, 2.0, 0.5])
_B = np.array([1.5, 2.2, 3.1, 2.0, 1.0, 3.0, 1.5, 2.2, 3.1, 1.5])
_X = np.array([0.7, -3.0, 10.0, -5.0, 2.0, 4.0, 120.0, 150.0, 300.0, 99.0])   # |x| >= 100: the large-x expansion


def assert_close(got, want, rtol=1e-12):
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=0)


def assert_eager_and_traced(fn, args, want, rtol=1e-12):
    """`fn(*args)` equals `want` eagerly and compiled (a tuple result compared item by item)."""
    for got in (fn(*args), frame.function(fn)(*args)):
        for g, w in zip(got if isinstance(want, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            assert_close(g, w, rtol)


def _exact_bernoulli(n):
    """B_0 .. B_n as exact fractions (Akiyama-Tanigawa), then floats: scipy's own B_4 is 1.7e-12 off -1/30."""
    from fractions import Fraction
    out, a = [], []
    for m in range(n + 1):
        a.append(Fraction(1, m + 1))
        for j in range(m, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
        out.append(a[0])
    out[1] = -out[1]   # the algorithm gives B_1 = +1/2
    return np.array([float(b) for b in out])


def test_bernoulli_matches_the_exact_numbers():
    # the running product 2 (2m)! / (2 pi)^2m rounds at each of its 15 steps: 1e-13 relative at B_30
    exact = _exact_bernoulli(30)
    assert_close(F.bernoulli(30), exact, rtol=1e-13)
    np.testing.assert_allclose(S.bernoulli(30), exact, rtol=1e-11)   # scipy agrees to its own accuracy
    assert_close(F.bernoulli(0), [1.0])
    assert_close(F.bernoulli(2), [1.0, -0.5, 1 / 6])
    assert_close(frame.function(lambda: F.bernoulli(8))(), exact[:9])


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 30, 5000, 6000])
def test_expn_matches_scipy(n):
    # n >= 5000: Cephes' three-term asymptotic expansion, as scipy and JAX (1e-13 of scipy's)
    assert_eager_and_traced(lambda x: F.expn(n, x), (_EXPN_X,), S.expn(n, _EXPN_X), rtol=1e-12 if n < 5000 else 1e-12)


def test_sici_matches_scipy():
    # past |x| = 4 a continued fraction against Cephes' rational fits: a few ulps apart
    assert_eager_and_traced(F.sici, (_SICI_X,), S.sici(_SICI_X))


def test_bessel_jn_matches_scipy():
    z = np.array([[0.1, 1.0, 5.0], [12.0, -3.0, 20.0]])
    want = np.stack([S.jv(k, z) for k in range(6)])
    # Miller's recurrence from n_iter = 50 (JAX's default) holds 1e-12 up to |z| ~ 20; 80 for |z| = 30
    assert_eager_and_traced(lambda z: F.bessel_jn(z, v=5), (z,), want)
    assert_close(F.bessel_jn(np.array([30.0]), v=3, n_iter=80)[:, 0], S.jv(np.arange(4), 30.0))


def test_hyp1f1_matches_scipy():
    assert_eager_and_traced(F.hyp1f1, (_A, _B, _X), S.hyp1f1(_A, _B, _X))
    # as JAX's: 1 for a = 0, e^x for a = b, inf for b = 0
    assert_close(F.hyp1f1(np.array([0.0, 2.0, 1.5]), np.array([1.0, 2.0, 0.0]), np.array([3.0, 1.5, 1.0])),
                 [1.0, np.exp(1.5), np.inf])


def _grad(fn, *args, argnum=0):
    return np.asarray(frame.grad(lambda *a: frame.numpy.sum(fn(*a)), argnums=argnum)(*args))


def test_derivatives_match_jax(jax_x64):
    import jax
    import jax.scipy.special as J

    def theirs(fn, *args, argnum=0):
        return np.asarray(jax.grad(lambda *a: jax.numpy.sum(fn(*a)), argnums=argnum)(*args))

    x = np.array([0.3, 0.99, 1.5, 3.0, 10.0])
    assert_close(_grad(lambda x: F.expn(2, x), x), theirs(lambda x: J.expn(2, x), x))
    for n in (1, 5):   # JAX's rule, E_n' = -E_(n-1), by scipy's values (each JAX n compiles for 2 s)
        assert_close(_grad(lambda x: F.expn(n, x), x), -S.expn(n - 1, x))
    second = frame.grad(lambda t: frame.numpy.sum(frame.grad(lambda u: frame.numpy.sum(F.expn(3, u)))(t)))(x)
    assert_close(second, S.expn(1, x))   # E_n'' = E_(n-2)
    x = np.array([-7.0, -2.0, 0.5, 3.9, 4.1, 9.0, 40.0])
    for i in (0, 1):
        assert_close(_grad(lambda x: F.sici(x)[i], x), theirs(lambda x: J.sici(x)[i], x))
    z = np.array([0.5, 2.0, 7.0, 15.0])
    # the 51-step recurrence differentiated through 1 / z at each step: rounding grows to a few 1e-12
    assert_close(_grad(lambda z: F.bessel_jn(z, v=4), z), theirs(lambda z: J.bessel_jn(z, v=4), z), rtol=1e-11)
    a, b, x = _A[[0, 1, 2, 6, 7]], _B[[0, 1, 2, 6, 7]], _X[[0, 1, 2, 6, 7]]
    ours = frame.grad(lambda *p: frame.numpy.sum(F.hyp1f1(*p)), argnums=(0, 1, 2))(a, b, x)
    for argnum in (0, 1, 2):
        assert_close(ours[argnum], theirs(J.hyp1f1, a, b, x, argnum=argnum))


def test_errors_name_the_function():
    for call, words in ((lambda: F.bernoulli(-1), "bernoulli"), (lambda: F.expn(-1, 1.0), "expn"),
                        (lambda: F.bessel_jn(np.ones(2), v=60), "bessel_jn"),
                        (lambda: F.bessel_jn(np.ones(2), v=-1), "bessel_jn")):
        with pytest.raises(ShapeError, match=words):
            call()
    with pytest.raises(Exception, match="expn"):
        frame.function(lambda n, x: F.expn(n, x))(2, np.ones(2))   # n fixes the series: concrete only
