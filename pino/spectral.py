"""Spectral differentiation on a periodic grid, and truncated real DFTs, over `frame.numpy` (SPEC §9, ARCH-067).

A derivative is rfft, a multiplication of the packed (re, im) spectrum by the constant `(i k)^order`,
then irfft. No forward op exists for derivatives: the chain is made of `rfft`, `matmul`/`mul` by
constants and `irfft`, so it is differentiable to any order by the same backward transform, and a
physics loss built on it gets its parameter gradients from that transform too.

`truncated_rfft(u, modes)` / `truncated_irfft(spectrum, n)` are rfft followed by keeping the lowest
`modes` bins, and irfft of a spectrum that is zero above them, written as one GEMM each with constant
cos/sin bases of shape (n, 2*modes): what a Fourier layer needs. When modes << n that is far cheaper
than a full transform (FNO1d at s = 1024, 16 modes: ~1 ms per GEMM against ~13-15 ms per numpy
rfft/irfft of the same batch), and the gradients are matmuls by the transposed bases, the exact
adjoints of the maps computed.

Works on numpy arrays (eagerly) and on tracers alike.
"""
from __future__ import annotations

import functools
import math

import numpy as np

import frame.numpy as fnp

# [re, im] @ _TIMES_I = [-im, re]: multiplication by i on the packed axis, one 2x2 constant matmul.
_TIMES_I = np.array([[0.0, 1.0], [-1.0, 0.0]])


def wavenumbers(n: int, length: float = 2 * math.pi) -> np.ndarray:
    """Angular wavenumbers `2*pi*j/length` of the `n//2 + 1` bins of a length-n real spectrum (float64)."""
    if n < 1:
        raise ValueError(f"wavenumbers: grid size must be >= 1, got n={n}")
    if not length > 0:
        raise ValueError(f"wavenumbers: period length must be positive, got {length}")
    return 2 * math.pi / length * np.arange(n // 2 + 1, dtype=np.float64)


def grid(n: int, length: float = 2 * math.pi) -> np.ndarray:
    """The n equispaced points `j*length/n`, j = 0..n-1, of a periodic grid (the endpoint is the start again)."""
    return np.arange(n, dtype=np.float64) * (length / n)


def derivative_symbol(n: int, order: int, length: float = 2 * math.pi) -> tuple[complex, np.ndarray]:
    """`(i k)^order` split as `(i^order, k^order)` over the bins of a length-n real spectrum.

    For odd orders and even n the Nyquist wavenumber is set to zero: the Nyquist mode sampled on
    the grid is `cos(pi*j)`, whose interpolant's odd derivatives vanish at the grid points
    (Trefethen, Spectral Methods in MATLAB, ch. 3). Even orders keep it: `-k^2 cos` is exact there.
    """
    if isinstance(order, bool) or not isinstance(order, (int, np.integer)) or order < 0:
        raise ValueError(f"spectral derivative: order must be a non-negative int, got {order!r}")
    k = wavenumbers(n, length)
    if order % 2 == 1 and n % 2 == 0:
        k[-1] = 0.0
    return 1j ** (order % 4), k ** order


def spectral_derivative(u, order: int = 1, length: float = 2 * math.pi):
    """The `order`-th derivative of periodic samples `u[..., j] = f(j*length/n)` along the last axis.

    rfft -> multiply by `(i k)^order` on the packed (re, im) axis -> irfft. Exact (to round-off) for
    band-limited trigonometric polynomials with |wavenumber index| < n/2. `u` may be a numpy array
    or a traced value, float32 or float64; the result has the same shape and dtype. Differentiable
    to any order with `frame.grad` & co (ARCH-067).
    """
    shape = u.shape
    if len(shape) < 1 or shape[-1] < 1:
        raise ValueError(f"spectral_derivative: u needs a non-empty last (grid) axis, got shape {tuple(shape)}")
    n = shape[-1]
    unit, magnitude = derivative_symbol(n, order, length)
    if order == 0:
        return u
    dtype = np.dtype(u.dtype)
    spectrum = fnp.fft.rfft_packed(u)
    if unit.imag != 0:  # odd order: multiply by +-i first
        spectrum = fnp.matmul(spectrum, _TIMES_I.astype(dtype))
        sign = unit.imag
    else:
        sign = unit.real
    spectrum = spectrum * (sign * magnitude).astype(dtype).reshape(-1, 1)
    return fnp.fft.irfft_packed(spectrum, n)


# -- truncated real DFT as a GEMM -----------------------------------------------------------------
def _check_modes(owner: str, n: int, modes: int) -> None:
    for name, value in (("n", n), ("modes", modes)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{owner}: {name} must be a positive int, got {value!r}")
    if modes > n // 2 + 1:
        raise ValueError(f"{owner}: a length-{n} real signal has {n // 2 + 1} Fourier bins, fewer than modes={modes}")


@functools.lru_cache(maxsize=32)
def _dft_bases(n: int, modes: int, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    j = np.arange(n, dtype=np.int64)[:, None]
    k = np.arange(modes, dtype=np.int64)[None, :]
    # The angle from (j*k mod n), an exact integer, so no argument grows beyond 2*pi and every entry
    # is cos/sin of a float64 angle correct to ~1 ulp, whatever n is.
    theta = (2 * math.pi / n) * ((j * k) % n)
    cos, sin = np.cos(theta), np.sin(theta)
    # DC and (even n) Nyquist bins: rfft's imaginary part is exactly zero there (sin(pi*j) would
    # give ~1e-16), and irfft ignores it, so those basis columns/rows are exact zeros.
    edge = [0] + ([n // 2] if n % 2 == 0 and modes == n // 2 + 1 else [])
    sin[:, edge] = 0.0
    forward = np.stack([cos, -sin], axis=-1).reshape(n, 2 * modes)
    # irfft counts every interior bin twice (the bin and its conjugate partner), DC/Nyquist once; 1/n.
    weight = np.full(modes, 2.0 / n)
    weight[edge] = 1.0 / n
    inverse = (np.stack([cos, -sin], axis=-1) * weight[None, :, None]).reshape(n, 2 * modes).T
    forward, inverse = np.ascontiguousarray(forward, dtype), np.ascontiguousarray(inverse, dtype)
    forward.flags.writeable = inverse.flags.writeable = False   # cached and shared: never written
    return forward, inverse


def truncated_dft_bases(n: int, modes: int, dtype="float64") -> tuple[np.ndarray, np.ndarray]:
    """The real bases of the truncated DFT of length-n signals: `(forward [n, 2*modes], inverse [2*modes, n])`.

    `u @ forward` is `rfft(u)[..., :modes]` packed as (re, im) pairs along the last axis
    (column `2k` the real part of bin k, `2k+1` its imaginary part), and `packed @ inverse` is
    `irfft` of that spectrum with every bin >= modes zero (numpy's 1/n normalisation; the imaginary
    parts of DC and Nyquist are ignored, as irfft does). Built in float64 and rounded once to
    `dtype`; cached per (n, modes, dtype), read-only. Needs 1 <= modes <= n//2 + 1.
    """
    _check_modes("truncated_dft_bases", n, modes)
    return _dft_bases(int(n), int(modes), np.dtype(dtype).name)


def truncated_rfft(u, modes: int):
    """`rfft(u)[..., :modes]` along the last axis as one GEMM, packed (re, im): shape `(..., modes, 2)`.

    Equals `frame.numpy.fft.rfft_packed(u)[..., :modes, :]` to rounding (the sums are dot products
    of length n instead of FFT butterflies: measured max relative difference ~1e-6 in float32,
    ~1e-15 in float64 at n = 1024, see tests/pino/test_truncated_dft.py). `u` a numpy array or a
    traced value, float32 or float64; its gradient is a matmul by the transposed basis.
    """
    shape = tuple(u.shape)
    if len(shape) < 1 or shape[-1] < 1:
        raise ValueError(f"truncated_rfft: u needs a non-empty last (grid) axis, got shape {shape}")
    n = shape[-1]
    _check_modes("truncated_rfft", n, modes)
    forward, _ = truncated_dft_bases(n, modes, np.dtype(u.dtype))
    # One 2-D GEMM over all leading axes (a batched product would run one small GEMM per row block).
    spectrum = fnp.matmul(fnp.reshape(u, (-1, n)), forward)
    return fnp.reshape(spectrum, shape[:-1] + (modes, 2))


def truncated_irfft(spectrum, n: int):
    """irfft to length n of a packed spectrum `(..., modes, 2)` whose bins >= modes are zero, as one GEMM.

    Equals `frame.numpy.fft.irfft_packed` of the spectrum zero-padded to n//2 + 1 bins, to rounding.
    The imaginary parts of DC and (when modes = n//2 + 1, n even) Nyquist are ignored, as irfft does.
    """
    shape = tuple(spectrum.shape)
    if len(shape) < 2 or shape[-1] != 2:
        raise ValueError(f"truncated_irfft: the spectrum must have shape (..., modes, 2), got {shape}")
    modes = shape[-2]
    _check_modes("truncated_irfft", n, modes)
    _, inverse = truncated_dft_bases(n, modes, np.dtype(spectrum.dtype))
    signal = fnp.matmul(fnp.reshape(spectrum, (-1, 2 * modes)), inverse)
    return fnp.reshape(signal, shape[:-2] + (n,))
