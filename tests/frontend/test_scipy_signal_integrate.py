"""frame.scipy.signal (convolve, correlate, fftconvolve, convolve2d, correlate2d) and frame.scipy.integrate
(trapezoid, cumulative_trapezoid, simpson): values and dtypes against scipy, eagerly and under frame.function;
derivatives in both operands against jax.scipy (signal, trapezoid) or central differences (simpson and
cumulative_trapezoid, which jax.scipy lacks); bad arguments refused by name."""
import numpy as np
import pytest
import scipy.integrate as SI
import scipy.signal as SS

import frame
import frame.numpy as fnp
import frame.scipy.integrate as FI
import frame.scipy.signal as FS
from frame.errors import ShapeError

rng = np.random.default_rng(0)
SHAPES = [((7,), (3,)), ((3,), (7,)), ((6, 5), (3, 2)), ((2, 3), (4, 5)), ((5, 4, 3), (2, 3, 2)), ((4,), (4,))]


def _valid_possible(s1, s2):
    return all(a >= b for a, b in zip(s1, s2)) or all(a <= b for a, b in zip(s1, s2))


def assert_same(ours, want, rtol=1e-12, atol=1e-12):
    ours, want = np.asarray(ours), np.asarray(want)
    assert (ours.shape, ours.dtype) == (want.shape, want.dtype), (ours.dtype, ours.shape, want.dtype, want.shape)
    np.testing.assert_allclose(ours, want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("s1,s2", SHAPES)
def test_convolve_and_correlate_equal_scipy(s1, s2):
    a, b = rng.standard_normal(s1), rng.standard_normal(s2)
    for mode in ("full", "same", "valid") if _valid_possible(s1, s2) else ("full", "same"):
        for fn in ("convolve", "correlate"):
            for method in ("direct", "fft", "auto"):
                want = getattr(SS, fn)(a, b, mode, method)
                assert_same(getattr(FS, fn)(a, b, mode, method), want)
                compiled = frame.function(lambda a, b: getattr(FS, fn)(a, b, mode, method))(a, b)
                assert_same(compiled, want)
        if len(s1) == 2:
            for fn in ("convolve2d", "correlate2d"):
                assert_same(getattr(FS, fn)(a, b, mode), getattr(SS, fn)(a, b, mode))
    assert_same(FS.fftconvolve(a, b), SS.fftconvolve(a, b))
    ints = rng.integers(-5, 5, s1), rng.integers(-5, 5, s2)
    assert_same(FS.convolve(*ints), SS.convolve(*ints))          # integers stay integers, exactly
    assert_same(FS.correlate(*ints, "same"), SS.correlate(*ints, "same"))


def test_complex_operands_and_a_large_kernel_by_fft():
    c1 = rng.standard_normal(9) + 1j * rng.standard_normal(9)
    c2 = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    for method in ("direct", "fft"):
        assert_same(FS.correlate(c1, c2, method=method), SS.correlate(c1, c2, method=method))
    a, b = rng.standard_normal((20, 20)), rng.standard_normal((9, 9))   # 81 > 64 elements: "auto" uses the FFT
    assert_same(FS.convolve(a, b, "same"), SS.convolve(a, b, "same"), atol=1e-11)


def test_signal_derivatives_equal_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import jax.scipy.signal as JS
    a, b = rng.standard_normal((6, 5)), rng.standard_normal((3, 2))
    w = rng.standard_normal((6, 5))
    for fn, kw in [("convolve", {"method": "direct"}), ("convolve", {"method": "fft"}), ("correlate", {}),
                   ("convolve2d", {}), ("correlate2d", {})]:
        ours = frame.grad(lambda a, b: fnp.sum(getattr(FS, fn)(a, b, "same", **kw) * w), argnums=(0, 1))(a, b)
        want = jax.grad(lambda a, b: jnp.sum(getattr(JS, fn)(a, b, mode="same", **kw) * w), argnums=(0, 1))(a, b)
        for o, g in zip(ours, want):
            np.testing.assert_allclose(o, g, rtol=1e-10, atol=1e-12, err_msg=fn)
    # second order: the square of a correlation, mixed in both operands
    sq = lambda a, b: fnp.sum(FS.correlate(a, b) ** 2)   # noqa: E731
    jsq = lambda a, b: jnp.sum(JS.correlate(a, b) ** 2)   # noqa: E731
    np.testing.assert_allclose(frame.hessian(sq, argnums=1)(a, b), jax.hessian(jsq, argnums=1)(a, b), rtol=1e-10)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8])
def test_integration_rules_equal_scipy(n):
    y = rng.standard_normal((3, n))
    x1, xs = np.sort(rng.uniform(0, 3, n)), np.sort(rng.uniform(0, 3, (3, n)), axis=1)
    for kw in ({}, {"dx": 0.3}, {"x": x1}, {"x": xs}):
        assert_same(FI.simpson(y, **kw), SI.simpson(y, **kw), rtol=1e-13, atol=1e-14)
        assert_same(FI.cumulative_trapezoid(y, **kw), SI.cumulative_trapezoid(y, **kw))
        assert_same(FI.trapezoid(y, **kw), SI.trapezoid(y, **kw))
    assert_same(FI.cumulative_trapezoid(y.T, x=x1, axis=0, initial=0), SI.cumulative_trapezoid(y.T, x=x1, axis=0,
                                                                                                initial=0))
    compiled = frame.function(lambda y, x: FI.simpson(y, x=x, axis=0))(y.T, x1)
    assert_same(compiled, SI.simpson(y.T, x=x1, axis=0), rtol=1e-13, atol=1e-14)


def test_integration_derivatives():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import jax.scipy.integrate as JI
    y, x = rng.standard_normal(6), np.sort(rng.uniform(0, 3, 6))
    np.testing.assert_allclose(frame.grad(lambda y, x: FI.trapezoid(fnp.sin(y), x), argnums=(0, 1))(y, x),
                               jax.grad(lambda y, x: JI.trapezoid(jnp.sin(y), x), argnums=(0, 1))(y, x), rtol=1e-12)
    for n in (5, 6):   # odd and even numbers of samples (Cartwright's last interval)
        yn, xn = y[:n], x[:n]
        for f, ref in [(lambda y, x: FI.simpson(fnp.sin(y), x=x), lambda y, x: SI.simpson(np.sin(y), x=x)),
                       (lambda y, x: fnp.sum(FI.cumulative_trapezoid(fnp.sin(y), x=x) ** 2),
                        lambda y, x: np.sum(SI.cumulative_trapezoid(np.sin(y), x=x) ** 2))]:
            gy, gx = frame.grad(f, argnums=(0, 1))(yn, xn)
            for g, i in ((gy, 0), (gx, 1)):
                d = rng.standard_normal(n)
                args = [yn, xn]
                plus = [a + 1e-6 * d if j == i else a for j, a in enumerate(args)]
                minus = [a - 1e-6 * d if j == i else a for j, a in enumerate(args)]
                np.testing.assert_allclose(np.sum(g * d), (ref(*plus) - ref(*minus)) / 2e-6, rtol=1e-6, atol=1e-9)


def test_bad_arguments_are_refused_by_name():
    a = np.ones((3, 3))
    for call, match in [(lambda: FS.convolve(a, a, "middle"), "convolve: mode"),
                        (lambda: FS.correlate(a, a, method="fast"), "correlate: method"),
                        (lambda: FS.convolve(a, np.ones(3)), "same number of dimensions"),
                        (lambda: FS.convolve(np.ones((2, 4)), np.ones((4, 2)), "valid"), "at least as large"),
                        (lambda: FS.convolve(np.ones(3, int), np.ones(2, int), method="fft"), "float or complex"),
                        (lambda: FS.convolve2d(a, a, boundary="wrap"), "boundary='fill'"),
                        (lambda: FS.correlate2d(np.ones(3), np.ones(3)), "must be 2-d"),
                        (lambda: FS.fftconvolve(a, a, axes=0), "axes=None"),
                        (lambda: FI.simpson(np.ones(1)), "at least 2 samples"),
                        (lambda: FI.simpson(np.ones(4), x=np.ones(3)), "x has 3 points"),
                        (lambda: FI.cumulative_trapezoid(np.ones(4), initial=1.0), "initial must be None or 0")]:
        with pytest.raises(ShapeError, match=match):
            call()
