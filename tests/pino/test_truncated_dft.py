"""The truncated real DFT (pino.spectral.truncated_rfft / truncated_irfft) and the spectral convolution built on it.

The DFT path replaces full rfft/irfft in `SpectralConv1d` (issue 16), so it must compute the same map:
here against numpy's FFT (float64 and float32), against frame's FFT path (forward and gradients, at
the benchmark's FNO1d size), against central differences and the JAX oracle to second order, and its
gradients are checked to be the exact adjoints (transposed bases).

Tolerances: float64 results agree to ~1e-15 relative (measured <= 1.1e-15 at n = 1024); float32 ones
to ~1e-6 relative (measured <= 6e-7 against a float64 reference, the same order as numpy's float32
FFT, 3-4e-7), so the float32 bounds below are 5e-6, float64 ones 1e-13.
"""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.interop import check_derivatives
from pino import FNO1d, SpectralConv1d, relative_l2_loss
from pino.models import DFT_MAX_MODES
from pino.spectral import truncated_dft_bases, truncated_irfft, truncated_rfft
from tests.numerics import assert_close_first_order, central_difference

TOL = {"float32": 5e-6, "float64": 1e-13}
# (n, modes): even/odd lengths, Nyquist kept (8, 5), every bin (2, 2), a single one (1, 1), the FNO size.
SIZES = [(1, 1), (2, 2), (7, 4), (8, 5), (12, 5), (13, 7), (1024, 16)]


def assert_rel_close(got, want, tol, what=""):
    """max |got - want| <= tol * max |want| (relative to the array's scale, as FFT errors are)."""
    dtype = np.complex128 if np.iscomplexobj(got) or np.iscomplexobj(want) else np.float64
    got, want = np.asarray(got, dtype), np.asarray(want, dtype)
    scale = max(float(np.abs(want).max()), 1e-300)
    err = float(np.abs(got - want).max()) / scale
    assert err <= tol, f"{what}: max relative difference {err:.3g} > {tol:.3g}"


@pytest.mark.parametrize("n, modes", SIZES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_truncated_rfft_is_numpys_rfft_restricted_to_the_kept_modes(n, modes, dtype):
    x = np.random.default_rng(n).standard_normal((3, 4, n)).astype(dtype)
    want = np.fft.rfft(x.astype(np.float64), axis=-1)[..., :modes]
    for fn in (lambda u: truncated_rfft(u, modes), frame.function(lambda u: truncated_rfft(u, modes))):
        got = fn(x)
        assert got.shape == (3, 4, modes, 2) and got.dtype == dtype
        assert_rel_close(got[..., 0] + 1j * got[..., 1], want, TOL[dtype], "truncated_rfft")
    # rfft of a real signal has exactly zero imaginary DC (and Nyquist) parts: so does the DFT.
    assert np.all(got[..., 0, 1] == 0)
    if n % 2 == 0 and modes == n // 2 + 1:
        assert np.all(got[..., -1, 1] == 0)


@pytest.mark.parametrize("n, modes", SIZES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_truncated_irfft_is_numpys_irfft_of_the_zero_padded_spectrum(n, modes, dtype):
    spec = np.random.default_rng(n + 1).standard_normal((2, 3, modes, 2)).astype(dtype)
    full = np.zeros((2, 3, n // 2 + 1), complex)
    full[..., :modes] = spec[..., 0] + 1j * spec[..., 1]   # incl. non-zero imaginary DC/Nyquist: ignored
    want = np.fft.irfft(full, n=n, axis=-1)
    for fn in (lambda s: truncated_irfft(s, n), frame.function(lambda s: truncated_irfft(s, n))):
        got = fn(spec)
        assert got.shape == (2, 3, n) and got.dtype == dtype
        assert_rel_close(got, want, TOL[dtype], "truncated_irfft")


@pytest.mark.parametrize("n, modes", [(8, 5), (7, 4), (12, 3)])
def test_gradients_are_the_transposed_bases(n, modes):
    """Both maps are linear, so the gradient of <g, map(u)> is map's adjoint applied to g: the transposed basis."""
    forward, inverse = truncated_dft_bases(n, modes)
    rng = np.random.default_rng(0)
    u, g = rng.standard_normal((2, n)), rng.standard_normal((2, modes, 2))
    gu = frame.grad(lambda v: fnp.sum(truncated_rfft(v, modes) * g))(u)
    np.testing.assert_allclose(gu, g.reshape(2, -1) @ forward.T, rtol=1e-13, atol=1e-13)
    s, h = rng.standard_normal((2, modes, 2)), rng.standard_normal((2, n))
    gs = frame.grad(lambda v: fnp.sum(truncated_irfft(v, n) * h))(s)
    np.testing.assert_allclose(gs.reshape(2, -1), h @ inverse.T, rtol=1e-13, atol=1e-13)
    # the same adjoints as frame's FFT ops: rfft_packed restricted to the kept bins, irfft_packed of the padded spectrum
    gu_fft = frame.grad(lambda v: fnp.sum(fnp.fft.rfft_packed(v)[:, :modes, :] * g))(u)
    np.testing.assert_allclose(gu, gu_fft, rtol=1e-12, atol=1e-13)


def test_inverse_after_forward_is_the_band_limited_projection():
    n, modes = 32, 6
    x = np.random.default_rng(1).standard_normal((4, n))
    spectrum = np.fft.rfft(x)
    spectrum[..., modes:] = 0
    np.testing.assert_allclose(truncated_irfft(truncated_rfft(x, modes), n), np.fft.irfft(spectrum, n), atol=1e-13)


def test_bases_are_cached_read_only_and_in_the_requested_dtype():
    f32, i32 = truncated_dft_bases(16, 4, "float32")
    assert f32.shape == (16, 8) and i32.shape == (8, 16) and f32.dtype == np.float32
    assert truncated_dft_bases(16, 4, "float32")[0] is f32
    assert not f32.flags.writeable and not i32.flags.writeable
    f64, _ = truncated_dft_bases(16, 4, "float64")
    np.testing.assert_array_equal(f32, f64.astype(np.float32))   # built in float64, rounded once


@pytest.mark.parametrize("call, match", [
    (lambda: truncated_dft_bases(8, 6), r"8 real signal has 5 Fourier bins, fewer than modes=6"),
    (lambda: truncated_dft_bases(8, 0), r"modes must be a positive int"),
    (lambda: truncated_rfft(np.zeros((2, 8)), 6), r"5 Fourier bins"),
    (lambda: truncated_rfft(np.zeros(()), 1), r"non-empty last"),
    (lambda: truncated_irfft(np.zeros((2, 3)), 8), r"\(\.\.\., modes, 2\)"),
    (lambda: truncated_irfft(np.zeros((6, 2)), 8), r"5 Fourier bins"),
])
def test_bad_sizes_raise_clear_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_auto_transform_picks_the_dft_for_few_modes_and_the_fft_for_many():
    assert SpectralConv1d(2, 2, 16).uses_dft(1024)
    assert not SpectralConv1d(2, 2, DFT_MAX_MODES + 1).uses_dft(1024)
    assert not SpectralConv1d(2, 2, 64).uses_dft(1 << 16)           # a basis of 2**22 entries: too big
    assert SpectralConv1d(2, 2, 200, transform="dft").uses_dft(1024)
    assert not SpectralConv1d(2, 2, 4, transform="fft").uses_dft(1024)
    with pytest.raises(ValueError, match="transform must be one of auto, dft, fft"):
        SpectralConv1d(2, 2, 4, transform="fast")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fno_step_through_the_dft_matches_the_fft_path_in_value_and_gradients(dtype):
    """The benchmark's FNO1d (s = 1024, width 64, 16 modes, 4 layers), a batch of 2: output, loss gradients
    for every parameter and for the input, DFT path against FFT path."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 1, 1024)).astype(dtype)
    y = (0.5 * x + 0.1 * np.roll(x, 3, axis=-1)).astype(dtype)
    results = {}
    for transform in ("dft", "fft"):
        model = FNO1d(modes=16, width=64, layers=4, transform=transform)
        params = model.init(seed=0, dtype=dtype)
        loss = lambda p, u: relative_l2_loss(model.apply(p, u), y)   # noqa: E731
        out = frame.function(model.apply)(params, x)
        gp, gx = frame.function(frame.grad(loss, argnums=(0, 1)))(params, x)
        results[transform] = (out, frame.tree_leaves(gp), gx)
    (out_d, gp_d, gx_d), (out_f, gp_f, gx_f) = results["dft"], results["fft"]
    assert out_d.dtype == dtype
    assert_rel_close(out_d, out_f, TOL[dtype], "FNO1d output")
    assert_rel_close(gx_d, gx_f, TOL[dtype], "gradient w.r.t. the input")
    for i, (a, b) in enumerate(zip(gp_d, gp_f)):
        assert_rel_close(a, b, TOL[dtype], f"gradient of parameter leaf {i}")


def test_dft_spectral_conv_gradients_match_central_differences_and_jax_to_second_order():
    layer = SpectralConv1d(2, 3, 4, transform="dft")
    rng = np.random.default_rng(3)
    params, x = layer.init(rng, "float64"), rng.standard_normal((2, 2, 9))

    def loss(p, u):
        return fnp.sum(fnp.tanh(layer.apply(p, u)) ** 2)

    gp, gx = frame.grad(loss, argnums=(0, 1))(params, x)
    picked = np.array([0, 7, 17])
    numeric = central_difference(lambda u: loss(params, u), x, picked)
    assert_close_first_order(gx.reshape(-1)[picked], numeric)
    w = params["weight"]
    numeric_w = central_difference(lambda v: loss({"weight": v}, x), w, picked)
    assert_close_first_order(gp["weight"].reshape(-1)[picked], numeric_w)
    report = check_derivatives(lambda p: loss(p, x), params, orders=(1, 2), full_hessian_max=48,
                               rtol=1e-7, atol=1e-10)
    assert report.passed


def test_truncated_dft_under_vmap_and_per_example_gradients():
    x = np.random.default_rng(4).standard_normal((5, 3, 16))
    roundtrip = frame.vmap(lambda u: truncated_irfft(truncated_rfft(u, 4), 16))
    np.testing.assert_allclose(roundtrip(x), truncated_irfft(truncated_rfft(x, 4), 16), rtol=0, atol=1e-14)
    per_example = frame.function(frame.vmap(frame.grad(lambda u: fnp.sum(truncated_rfft(u, 4) ** 2))))(x)
    forward, _ = truncated_dft_bases(16, 4)
    np.testing.assert_allclose(per_example, 2 * (x @ forward) @ forward.T, rtol=1e-12, atol=1e-12)
