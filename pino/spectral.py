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

`separable_rfftn(u, kept)` / `separable_irfftn(spectrum, sizes)` do the same over the last d axes for
the n-d Fourier layers (`pino.models.SpectralConv`): the kept block of rfftn (neuraloperator's modes:
signed frequencies around zero on every axis but the last, the lowest rfft bins on the last), one GEMM
on the last axis and one batched left-multiplication by a small constant basis on each other axis, so
no grid-sized array is transposed (FNO2d at 64x64: the transposes a per-axis GEMM needs took ~170 of
~2200 ms of a training step); the forward keeps each axis's cos and sin parts as separate real
components (2**d of them) rather than forming complex numbers, which the spectral convolution folds
into its mixing weight.

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
def _axis_bases(n: int, modes: int, last: bool, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    if last:
        forward, inverse = _dft_bases(n, modes, "float64")      # interleaved (k, re/im): reorder to (re/im, k)
        forward = forward.reshape(n, modes, 2).transpose(0, 2, 1).reshape(n, 2 * modes)
        inverse = inverse.reshape(modes, 2, n).transpose(1, 0, 2).reshape(2 * modes, n)
    else:
        k = kept_frequencies(n, modes)[:, None]
        h = np.arange(n, dtype=np.int64)[None, :]
        theta = (2 * math.pi / n) * (((k % n) * h) % n)    # exact integer angle index, as _dft_bases
        cos, sin = np.cos(theta), np.sin(theta)            # [modes, n]
        # forward[(k, r), h]: a real signal's DFT at frequency k, r = 0 its real part (cos), 1 its imaginary (-sin)
        forward = np.stack([cos, -sin], axis=1).reshape(2 * modes, n)
        # inverse[(h, r'), (r, k)]: numpy's ifft (1/n) of a spectrum zero off the kept frequencies, on
        # packed values: Xr = (C Yr - S Yi)/n, Xi = (S Yr + C Yi)/n
        inverse = np.empty((n, 2, 2, modes))
        inverse[:, 0, 0], inverse[:, 0, 1] = cos.T / n, -sin.T / n
        inverse[:, 1, 0], inverse[:, 1, 1] = sin.T / n, cos.T / n
        inverse = inverse.reshape(2 * n, 2 * modes)
    forward, inverse = np.ascontiguousarray(forward, dtype), np.ascontiguousarray(inverse, dtype)
    forward.flags.writeable = inverse.flags.writeable = False
    return forward, inverse


def separable_dft_bases(n: int, modes: int, last: bool, dtype="float64") -> tuple[np.ndarray, np.ndarray]:
    """The real bases `separable_rfftn`/`separable_irfftn` contract one axis of length n with.

    Last axis (`last=True`, the lowest `modes` rfft bins): `forward [n, 2*modes]`, columns (re/im, k),
    so `u @ forward` is `rfft(u)[..., :modes]` as (real parts | imaginary parts); `inverse [2*modes, n]`,
    rows (re/im, k), numpy's irfft (1/n) of that spectrum zero-padded (DC/Nyquist imaginary parts ignored).
    Other axes (`kept_frequencies(n, modes)`): `forward [2*modes, n]`, rows (k, re/im): the DFT of real
    columns at the kept frequencies, left-multiplied; `inverse [2n, 2*modes]`, rows (point, re/im) and
    columns (re/im, k): numpy's ifft (1/n) of packed complex columns, left-multiplied. Built in float64,
    rounded once to `dtype`, cached, read-only.
    """
    if last:
        _check_modes("separable_dft_bases", n, modes)
    else:
        kept_frequencies(n, modes)   # checks n and modes
    return _axis_bases(int(n), int(modes), bool(last), np.dtype(dtype).name)


def separable_rfftn(u, kept: tuple[int, ...]):
    """The kept block of `rfftn(u)` over the last d = len(kept) axes, as 2**d real component products.

    `kept = (m_1, ..., m_{d-1}, k_d)`: m_a signed frequencies on axis a (`kept_frequencies`), the
    lowest k_d rfft bins on the last axis. The last axis is one GEMM `(rows, n_d) @ [n_d, 2 k_d]`;
    every other axis, from the last but one to the first, one batched left-multiplication by the
    `[2 m_a, n_a]` basis of the real columns it sees, so no operand is ever transposed. Each axis's
    DFT doubles the real components (its cos and -sin parts) instead of combining them into complex
    numbers: returns `(..., m_1, r_1, ..., m_{d-1}, r_{d-1}, r_d, k_d)` flattened to `(..., 2**d * M)`,
    whose complex spectrum is `X = sum_s i**|s| P[s]` over the components s = (r_1, ..., r_d) (M = the
    kept modes). `pino.models.SpectralConv` forms that sum with one small constant matrix.
    """
    shape = tuple(u.shape)
    d = len(kept)
    lead, sizes = shape[:-d], shape[-d:]
    dtype = np.dtype(u.dtype)
    forward, _ = separable_dft_bases(sizes[-1], kept[-1], True, dtype)
    t = fnp.matmul(fnp.reshape(u, (-1, sizes[-1])), forward)            # (..., n_1..n_{d-1}) x (r_d, k_d)
    trailing = 2 * kept[-1]
    for a in range(d - 2, -1, -1):
        n = sizes[a]
        left, _ = separable_dft_bases(n, kept[a], False, dtype)
        t = fnp.matmul(left, fnp.reshape(t, (-1, n, trailing)))         # (.., [m_a, r_a], trailing)
        trailing *= 2 * kept[a]
    return fnp.reshape(t, lead + (trailing,))


def separable_irfftn(spectrum, sizes: tuple[int, ...]):
    """numpy's `irfftn(s=sizes)` over the last d axes of the spectrum that is zero outside a kept block.

    `spectrum`: `(..., 2, m_1, ..., m_{d-1}, k_d)`, the real and imaginary parts (axis -d-1) of the kept
    block (`kept_frequencies` on the non-last axes, the lowest k_d bins on the last). Each non-last axis
    is one batched left-multiplication by its `[2 n_a, 2 m_a]` inverse basis (contracting the re/im
    axis with the modes, giving points and re/im), the last one a GEMM `[2 k_d, n_d]` keeping the real
    part (irfftn's imaginary parts of DC/Nyquist ignored). Returns `(..., n_1, ..., n_d)`.
    """
    shape = tuple(spectrum.shape)
    d = len(sizes)
    lead, kept = shape[:-d - 1], shape[-d:]
    dtype = np.dtype(spectrum.dtype)
    t = spectrum
    done = 1                                                            # points of the axes already inverted
    for a in range(d - 1):
        rest = math.prod(kept[a + 1:])
        _, left = separable_dft_bases(sizes[a], kept[a], False, dtype)
        t = fnp.matmul(left, fnp.reshape(t, (-1, 2 * kept[a], rest)))  # (.., [n_a, r], rest)
        done *= sizes[a]
    _, inverse = separable_dft_bases(sizes[-1], kept[-1], True, dtype)
    t = fnp.matmul(fnp.reshape(t, (-1, 2 * kept[-1])), inverse)
    return fnp.reshape(t, lead + tuple(sizes))
