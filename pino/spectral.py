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


# -- truncated complex DFT along one axis (the non-last axes of an n-d Fourier layer) -------------
def kept_frequencies(n: int, modes: int) -> np.ndarray:
    """The `modes` signed frequencies neuraloperator's SpectralConv keeps on a non-last axis, in its order.

    `-(modes//2), ..., modes//2 + modes%2 - 1` (the centre of the fft-shifted axis: 12 modes keep
    -6..5, 5 keep -2..2), in increasing order, which is the order of the weight's mode axis
    (neuralop/layers/spectral_convolution.py, 2.0.0: `fftshift`, then the slice
    `center - modes//2 : center + modes//2 + modes%2`). Needs 1 <= modes <= n.
    """
    for name, value in (("n", n), ("modes", modes)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"kept_frequencies: {name} must be a positive int, got {value!r}")
    if modes > n:
        raise ValueError(f"kept_frequencies: an axis of length {n} has {n} Fourier modes, fewer than modes={modes}")
    return np.arange(-(modes // 2), modes // 2 + modes % 2, dtype=np.int64)


@functools.lru_cache(maxsize=64)
def _axis_bases(n: int, modes: int, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    k = kept_frequencies(n, modes)[:, None]
    h = np.arange(n, dtype=np.int64)[None, :]
    theta = (2 * math.pi / n) * (((k % n) * h) % n)        # exact integer angle index, as _dft_bases
    cos, sin = np.cos(theta), np.sin(theta)                # [modes, n]
    # forward[(h, r), (k, r')]:  Yr = C Xr + S Xi,  Yi = -S Xr + C Xi   (Y_k = sum_h X_h e^{-2 pi i k h / n})
    forward = np.empty((n, 2, modes, 2))
    forward[:, 0, :, 0], forward[:, 1, :, 0] = cos.T, sin.T
    forward[:, 0, :, 1], forward[:, 1, :, 1] = -sin.T, cos.T
    # inverse[(k, r), (h, r')]:  Xr = (C Yr - S Yi)/n,  Xi = (S Yr + C Yi)/n   (numpy's ifft, 1/n)
    inverse = np.empty((modes, 2, n, 2))
    inverse[:, 0, :, 0], inverse[:, 1, :, 0] = cos / n, -sin / n
    inverse[:, 0, :, 1], inverse[:, 1, :, 1] = sin / n, cos / n
    forward = np.ascontiguousarray(forward.reshape(2 * n, 2 * modes), dtype)
    inverse = np.ascontiguousarray(inverse.reshape(2 * modes, 2 * n), dtype)
    forward.flags.writeable = inverse.flags.writeable = False
    return forward, inverse


def truncated_dft_axis_bases(n: int, modes: int, dtype="float64") -> tuple[np.ndarray, np.ndarray]:
    """Real bases of the complex DFT of a length-n axis restricted to `kept_frequencies(n, modes)`.

    A complex signal packed as `(..., n, 2)` (re, im), flattened to `(..., 2n)`, times `forward
    [2n, 2*modes]` is its DFT at the kept frequencies packed as `(..., modes, 2)`; a packed spectrum
    `(..., 2*modes)` times `inverse [2*modes, 2n]` is numpy's `ifft` (1/n) of the length-n spectrum
    that is zero at every other frequency. Built in float64, rounded once to `dtype`, cached, read-only.
    """
    kept_frequencies(n, modes)   # checks n and modes
    return _axis_bases(int(n), int(modes), np.dtype(dtype).name)


def _move_before_last(u, axis: int):
    """`u` with `axis` moved to just before the last (the packed re/im) axis."""
    rank = len(u.shape)
    if axis == rank - 2:
        return u
    perm = tuple(i for i in range(rank - 1) if i != axis) + (axis, rank - 1)
    return fnp.transpose(u, perm)


def truncated_rfftn_reversed(u, modes: tuple[int, ...]):
    """The kept block of `rfftn(u)` over the last `len(modes)` axes, mode axes in REVERSED order, packed.

    `modes = (m_1, ..., m_{d-1}, k_d)`: m_a signed frequencies (`kept_frequencies`) on the non-last
    axes, the lowest k_d rfft bins on the last one. Returns `(..., k_d, m_{d-1}, ..., m_1, 2)`: the
    order in which the axes are transformed (last axis first, then each axis moved next to the (re,
    im) axis and contracted with it), which saves the transposes back; `pino.models.SpectralConv`
    consumes it as it is. One 2-D GEMM per axis: the last axis real -> packed (`truncated_dft_bases`),
    every other axis packed -> packed (`truncated_dft_axis_bases`).
    """
    shape = tuple(u.shape)
    d = len(modes)
    lead = len(shape) - d
    dtype = np.dtype(u.dtype)
    spectrum = truncated_rfft(u, modes[-1])                           # (..., n_1, ..., n_{d-1}, k_d, 2)
    for a in range(d - 2, -1, -1):                                    # spatial axes d-1 .. 1 (0-based d-2 .. 0)
        n = shape[lead + a]
        spectrum = _move_before_last(spectrum, lead + a)
        forward, _ = truncated_dft_axis_bases(n, modes[a], dtype)
        out_shape = tuple(spectrum.shape[:-2]) + (modes[a], 2)
        spectrum = fnp.reshape(fnp.matmul(fnp.reshape(spectrum, (-1, 2 * n)), forward), out_shape)
    return spectrum


def truncated_irfftn_reversed(spectrum, sizes: tuple[int, ...]):
    """Inverse of `truncated_rfftn_reversed`: `(..., k_d, m_{d-1}, ..., m_1, 2)` -> real `(..., n_1, ..., n_d)`.

    numpy's `irfftn(s=sizes)` of the full spectrum that is zero outside the kept block (1/prod(n)):
    an inverse DFT GEMM per non-last axis (axis 1 first), then the truncated irfft of the last axis
    (which ignores the imaginary parts of its DC and Nyquist bins, as irfftn does).
    """
    d = len(sizes)
    shape = tuple(spectrum.shape)
    lead = len(shape) - 1 - d
    dtype = np.dtype(spectrum.dtype)
    signal = spectrum
    # Before step a the axes are (..., k_d, m_{d-1}, ..., m_{a+1}, n_1, ..., n_a, re/im): axis a+1's
    # modes sit at lead + d-1-a; moved next to re/im, contracted to n_{a+1} points.
    for a in range(d - 1):
        modes = shape[lead + d - 1 - a]
        signal = _move_before_last(signal, lead + d - 1 - a)
        _, inverse = truncated_dft_axis_bases(sizes[a], modes, dtype)
        out_shape = tuple(signal.shape[:-2]) + (sizes[a], 2)
        signal = fnp.reshape(fnp.matmul(fnp.reshape(signal, (-1, 2 * modes)), inverse), out_shape)
    signal = _move_before_last(signal, lead)                 # (..., n_1, ..., n_{d-1}, k_d, re/im)
    return truncated_irfft(signal, sizes[-1])
