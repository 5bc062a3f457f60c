"""frame.scipy.signal's spectral functions (detrend, stft, istft, welch, csd): values, frequencies, times and
dtypes against scipy.signal eagerly and under frame.function; derivatives (first and second order) against
jax.scipy.signal; istft(stft(x)) == x; bad arguments refused by name."""
import warnings

import numpy as np
import pytest
import scipy.signal as SS

import frame
import frame.numpy as fnp
import frame.scipy.signal as FS
from frame.errors import ShapeError, TraceError

rng = np.random.default_rng(0)
X = rng.standard_normal(600)
Y = rng.standard_normal((2, 550))
X2 = rng.standard_normal((2, 600))


def assert_same(ours, want, rtol=1e-12, atol=0.0):
    """Same shape and dtype, values to `rtol` of the largest magnitude (a spectrum's small bins carry the
    rounding of its large ones, so the tolerance is relative to the array's scale)."""
    ours, want = np.asarray(ours), np.asarray(want)
    assert (ours.shape, ours.dtype) == (want.shape, want.dtype), (ours.shape, ours.dtype, want.shape, want.dtype)
    scale = np.max(np.abs(want), initial=0.0)
    np.testing.assert_allclose(ours, want, rtol=0, atol=atol + rtol * scale)


def assert_all_same(ours, want, rtol=1e-12):
    assert len(ours) == len(want)
    for a, b in zip(ours, want):
        assert_same(a, b, rtol)


WELCH_CASES = [
    {},
    dict(fs=3.0, nperseg=100, average="median"),
    dict(nperseg=64, noverlap=10, nfft=81, detrend="linear", scaling="spectrum"),
    dict(window="boxcar", nperseg=50, detrend=False, return_onesided=False),
    dict(window="hamming", nperseg=33, noverlap=0),
    dict(window=np.linspace(0.1, 1.0, 40), noverlap=25),
]


@pytest.mark.parametrize("kw", WELCH_CASES)
def test_welch_and_csd_equal_scipy(kw):
    assert_all_same(FS.welch(X, **kw), SS.welch(X, **kw))
    assert_all_same(FS.csd(X2, Y, **kw), SS.csd(X2, Y, **kw))
    traced = frame.function(lambda x, y: (FS.welch(x, **kw), FS.csd(x, y, **kw)))(X2, Y)
    assert_all_same(traced[0], SS.welch(X2, **kw))
    assert_all_same(traced[1], SS.csd(X2, Y, **kw))


def test_welch_csd_axis_complex_and_float32():
    assert_all_same(FS.welch(X2.T, nperseg=64, axis=0), SS.welch(X2.T, nperseg=64, axis=0))
    assert_all_same(FS.csd(X2.T, Y.T, nperseg=64, axis=0, average="median"),   # y shorter: zero-padded
                    SS.csd(X2.T, Y.T, nperseg=64, axis=0, average="median"))
    assert_all_same(FS.csd(X2, X[None], nperseg=64), SS.csd(X2, X[None], nperseg=64))   # broadcast
    z = X[:300] + 1j * X[300:]   # complex data: two-sided spectra
    assert_all_same(FS.welch(z, nperseg=64), SS.welch(z, nperseg=64))
    assert_all_same(FS.csd(z, Y[0, :300], nperseg=64), SS.csd(z, Y[0, :300], nperseg=64))
    # single precision: scipy and frame round differently at float32's 1e-7
    f32 = X.astype(np.float32)
    assert_all_same(FS.welch(f32, nperseg=64), SS.welch(f32, nperseg=64), rtol=1e-5)
    assert_all_same(FS.stft(f32, nperseg=64), SS.stft(f32, nperseg=64), rtol=1e-5)
    ints = (10 * X).astype(np.int64)
    assert_all_same(FS.welch(ints, nperseg=64, detrend="linear"), SS.welch(ints, nperseg=64, detrend="linear"))


STFT_CASES = [
    {},
    dict(fs=2.0, nperseg=100, scaling="psd"),
    dict(nperseg=64, noverlap=10, nfft=80, detrend="linear"),
    dict(nperseg=31, boundary="even", window="hamming"),
    dict(nperseg=40, boundary="odd", padded=False),
    dict(nperseg=30, boundary="constant", window="boxcar", noverlap=20, return_onesided=False),
    dict(nperseg=50, boundary=None, detrend="constant"),
]


@pytest.mark.parametrize("kw", STFT_CASES)
def test_stft_equal_scipy(kw):
    assert_all_same(FS.stft(X, **kw), SS.stft(X, **kw))
    assert_all_same(frame.function(lambda x: FS.stft(x, **kw))(X2), SS.stft(X2, **kw))


def test_stft_axis_and_complex():
    assert_all_same(FS.stft(X2.T, nperseg=64, axis=0), SS.stft(X2.T, nperseg=64, axis=0))
    z = X[:300] - 2j * X[300:]
    with pytest.warns(UserWarning, match="complex"):   # scipy says it goes two-sided; frame just does
        want = SS.stft(z, nperseg=48)
    assert_all_same(FS.stft(z, nperseg=48), want)


ISTFT_CASES = [dict(nperseg=100), dict(nperseg=64, noverlap=48, window="hamming"), dict(nperseg=33, noverlap=11),
               dict(nperseg=40, nfft=64, scaling="psd", fs=5.0)]


@pytest.mark.parametrize("kw", ISTFT_CASES)
def test_istft_equal_scipy_and_inverts_stft(kw):
    z = SS.stft(X2, **kw)[2]
    assert_all_same(FS.istft(z, **kw), SS.istft(z, **kw))
    assert_all_same(frame.function(lambda z: FS.istft(z, **kw))(z), SS.istft(z, **kw))
    back = FS.istft(FS.stft(X2, **kw)[2], **kw)[1]
    assert_same(back[:, :X2.shape[1]], X2)
    # time first, frequency last
    zt = np.moveaxis(z, -1, 0)
    assert_all_same(FS.istft(zt, time_axis=0, freq_axis=-1, **kw), SS.istft(zt, time_axis=0, freq_axis=-1, **kw))
    two = SS.stft(X2[0] + 1j * X2[1], return_onesided=False, **kw)[2]   # complex signal back from a 2-sided stft
    assert_all_same(FS.istft(two, input_onesided=False, **kw), SS.istft(two, input_onesided=False, **kw))


def test_detrend_equal_scipy():
    for kind in ("linear", "constant", "l", "c"):
        assert_same(FS.detrend(X2, type=kind), SS.detrend(X2, type=kind))
        assert_same(FS.detrend(X2.T, axis=0, type=kind), SS.detrend(X2.T, axis=0, type=kind))
        assert_same(frame.function(lambda x: FS.detrend(x, type=kind))(X2), SS.detrend(X2, type=kind))
    for bp in ([100, 101, 400], 250, [0, 600], np.array([5, 3])):
        assert_same(FS.detrend(X2, bp=bp), SS.detrend(X2, bp=bp), atol=1e-14)
    assert_same(FS.detrend(np.arange(12).reshape(3, 4)), SS.detrend(np.arange(12).reshape(3, 4)), atol=1e-14)
    assert_same(FS.detrend(X2 + 1j * X2[::-1]), SS.detrend(X2 + 1j * X2[::-1]))


def test_short_signal_shortens_named_window_as_scipy():
    with pytest.warns(UserWarning, match="nperseg"):
        ours = FS.welch(X[:100])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_all_same(ours, SS.welch(X[:100]))


def test_derivatives_equal_jax(jax_x64):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    import jax.scipy.signal as JS
    x, y = X[:200], Y[0, :200]
    w = rng.standard_normal(33)

    def welch_csd(F, np_):
        def f(x, y, fs):
            p = F.welch(x, fs=fs, nperseg=64, detrend="linear")[1]
            c = F.csd(x, y, nperseg=64, average="median")[1]
            return np_.sum(p * w) + np_.sum(np_.real(c) * w) + np_.sum(np_.imag(c) * w[::-1])
        return f
    ours = frame.grad(welch_csd(FS, fnp), argnums=(0, 1, 2))(x, y, 2.0)
    want = jax.jit(jax.grad(welch_csd(JS, jnp), argnums=(0, 1, 2)))(x, y, 2.0)   # jit: eager jax is slow
    assert_all_same(ours, want)

    v = rng.standard_normal(200)

    def stft_magnitude_and_back(F, np_):
        def f(x):
            z = F.stft(x, nperseg=64, noverlap=40)[2]
            back = F.istft(z * 1.5, nperseg=64, noverlap=40)[1][:200]
            return np_.sum(np_.abs(z)[:, :7] * w[:, None]) + np_.sum(back ** 2 * v)
        return f
    assert_same(frame.grad(stft_magnitude_and_back(FS, fnp))(x), jax.jit(jax.grad(stft_magnitude_and_back(JS, jnp)))(x))

    def second(F, np_):
        return lambda x: np_.sum(F.welch(x, nperseg=16)[1] * w[:9]) ** 2
    xs = x[:40]
    assert_same(frame.hessian(second(FS, fnp))(xs), jax.jit(jax.hessian(second(JS, jnp)))(xs))


def test_bad_arguments_refused_by_name():
    with pytest.raises(ShapeError, match=r"scipy\.signal\.welch: nperseg must be a positive integer"):
        FS.welch(X, nperseg=0)
    with pytest.raises(ShapeError, match=r"scipy\.signal\.csd: noverlap = 64 must be in \[0, nperseg = 64\)"):
        FS.csd(X, X[::-1], nperseg=64, noverlap=64)
    with pytest.raises(ShapeError, match=r"scipy\.signal\.stft: nfft = 10 must be at least nperseg = 64"):
        FS.stft(X, nperseg=64, nfft=10)
    with pytest.raises(ShapeError, match=r"scipy\.signal\.welch: nperseg = 30 differs from the window length 40"):
        FS.welch(X, window=np.ones(40), nperseg=30)
    with pytest.raises(ShapeError, match=r"scipy\.signal\.welch: window of length 700 is longer than the signal"):
        FS.welch(X, window=np.ones(700))
    with pytest.raises(ShapeError, match=r"scipy\.signal\.welch: window must be 1-d"):
        FS.welch(X, window=np.ones((4, 4)))
    with pytest.raises(ShapeError, match=r"scipy\.signal\.stft: window 'nonesuch'"):
        FS.stft(X, window="nonesuch")
    with pytest.raises(ShapeError, match=r"scipy\.signal\.welch: axis 2 is out of range for an operand of shape"):
        FS.welch(X2, axis=2)
    with pytest.raises(ShapeError, match=r"scipy\.signal\.csd: x and y of shapes \(2, 600\) and \(3, 550\)"):
        FS.csd(X2, rng.standard_normal((3, 550)))
    with pytest.raises(ShapeError, match=r"scipy\.signal\.istft: Zxx must be at least 2-d"):
        FS.istft(np.ones(10, complex))
    with pytest.raises(ShapeError, match=r"scipy\.signal\.istft: time_axis and freq_axis must differ"):
        FS.istft(np.ones((3, 10), complex), time_axis=0, freq_axis=-2)
    with pytest.raises(ShapeError, match=r"scipy\.signal\.detrend: type must be 'linear' or 'constant'"):
        FS.detrend(X, type="quadratic")
    with pytest.raises(ShapeError, match=r"scipy\.signal\.detrend: breakpoints must be in \[0, 600\]"):
        FS.detrend(X, bp=[700])
    with pytest.raises(ShapeError, match=r"scipy\.signal\.welch: average must be 'mean' or 'median'"):
        FS.welch(X, average="max")
    with pytest.raises(ShapeError, match=r"scipy\.signal\.stft: scaling must be 'spectrum' or 'psd'"):
        FS.stft(X, scaling="density")
    with pytest.raises(ShapeError, match=r"scipy\.signal\.stft: boundary must be"):
        FS.stft(X, boundary="wrap")
    with pytest.raises(TraceError, match=r"scipy\.signal\.welch: the window must be concrete"):
        frame.function(lambda x, win: FS.welch(x, window=win))(X, np.ones(64))
