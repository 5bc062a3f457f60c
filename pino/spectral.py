"""Spectral differentiation on a periodic grid, over `frame.numpy` (SPEC §9, ARCH-067).

A derivative is rfft, a multiplication of the packed (re, im) spectrum by the constant `(i k)^order`,
then irfft. No forward op exists for derivatives: the chain is made of `rfft`, `matmul`/`mul` by
constants and `irfft`, so it is differentiable to any order by the same backward transform, and a
physics loss built on it gets its parameter gradients from that transform too.

Works on numpy arrays (eagerly) and on tracers alike.
"""
from __future__ import annotations

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
