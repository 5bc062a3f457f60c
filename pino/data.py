"""Seeded numpy data generators: periodic Gaussian random fields and a pseudo-spectral ETDRK4 Burgers solver
(the ETDRK4 stepper is `workbench.reference`'s, shared with pinn's references).

Everything here is plain numpy (float64) so that datasets are produced on the spot from a seed, with
no downloads.
"""
from __future__ import annotations

import math

import numpy as np

from workbench.reference import etdrk4_coefficients, etdrk4_step  # noqa: F401  (etdrk4_coefficients: pino's name)


def gaussian_random_field(num: int, n: int, *, length: float = 1.0, sigma: float = 25.0, tau: float = 5.0,
                          alpha: float = 2.0, mean_mode: bool = False, seed=0) -> np.ndarray:
    """`num` samples of a periodic Gaussian random field `N(0, sigma^2 (-Laplacian + tau^2)^(-alpha))` on n points.

    The field is the Karhunen-Loeve sum `sum_j sqrt(lambda_j) xi_j phi_j` over the L2-orthonormal
    Fourier basis of `[0, length)` (`phi_j ~ sqrt(2/length) cos / sin`), with eigenvalues
    `lambda_j = sigma^2 (k_j^2 + tau^2)^(-alpha)`, `k_j = 2 pi j / length`, truncated to the modes
    the grid resolves (`j < n/2`; the Nyquist bin is left zero because a sampled sine vanishes there).
    FNO's Burgers inputs are `sigma = 25, tau = 5, alpha = 2` on `[0, 1)` (625 (-Delta + 25 I)^-2).
    `mean_mode` adds the constant mode `j = 0`. Returns float64 of shape `(num, n)`.
    """
    if num < 0 or n < 2:
        raise ValueError(f"gaussian_random_field: need num >= 0 and n >= 2, got num={num}, n={n}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    bins = n // 2 + 1
    k = 2 * math.pi / length * np.arange(bins)
    amplitude = sigma * (k ** 2 + tau ** 2) ** (-alpha / 2)
    xi, eta = rng.standard_normal((2, num, bins))
    # irfft(C)_l = (1/n) [C_0 + 2 Re sum_j C_j e^{i k_j x_l}]; with C_j = n a_j / sqrt(2 length) (xi - i eta),
    # each interior term is a_j sqrt(2/length) (xi cos + eta sin), i.e. sqrt(lambda_j) times orthonormal modes.
    coefficients = n * amplitude / math.sqrt(2 * length) * (xi - 1j * eta)
    coefficients[:, 0] = n * amplitude[0] / math.sqrt(length) * xi[:, 0] if mean_mode else 0.0
    if n % 2 == 0:
        coefficients[:, -1] = 0.0
    return np.fft.irfft(coefficients, n=n, axis=-1)


def solve_burgers(u0: np.ndarray, *, viscosity: float = 0.1, final_time: float = 1.0, length: float = 1.0,
                  dt: float = 1e-3, dealias: bool = True) -> np.ndarray:
    """Solve `u_t + (u^2/2)_x = viscosity * u_xx` on a periodic grid from `u0: (..., n)` to `final_time`.

    Pseudo-spectral in space (rfft along the last axis, nonlinear term in physical space with the
    2/3 de-aliasing rule) and ETDRK4 in time (Kassam & Trefethen 2005): the stiff diffusion is
    integrated exactly, the nonlinear term to fourth order. `dt` is shrunk so that a whole number
    of steps ends exactly at `final_time`. Returns `u(., final_time)`, float64, shape of `u0`.
    """
    u0 = np.asarray(u0, dtype=np.float64)
    if u0.ndim < 1 or u0.shape[-1] < 4:
        raise ValueError(f"solve_burgers: u0 needs a grid axis of at least 4 points, got shape {u0.shape}")
    if not (dt > 0 and final_time >= 0 and viscosity >= 0):
        raise ValueError(f"solve_burgers: need dt > 0, final_time >= 0, viscosity >= 0; got dt={dt}, "
                         f"final_time={final_time}, viscosity={viscosity}")
    n = u0.shape[-1]
    steps = max(1, math.ceil(final_time / dt - 1e-9))
    h = final_time / steps
    k = 2 * math.pi / length * np.arange(n // 2 + 1)
    e, e2, q, f1, f2, f3 = etdrk4_coefficients(-viscosity * k ** 2, h)
    # -(u^2/2)_x in Fourier space: -0.5 i k FFT(u^2), zeroed above 2/3 of the resolved band.
    g = -0.5j * k
    if dealias:
        g = np.where(np.arange(n // 2 + 1) < n / 3, g, 0.0)
    if n % 2 == 0:
        g[-1] = 0.0  # an odd derivative of the Nyquist mode is zero on the grid

    def nonlinear(v):
        u = np.fft.irfft(v, n=n, axis=-1)
        return g * np.fft.rfft(u * u, axis=-1)

    v = np.fft.rfft(u0, axis=-1)
    coefficients = (e, e2, q, f1, f2, f3)
    for _ in range(steps if final_time > 0 else 0):
        v = etdrk4_step(v, nonlinear, coefficients)
    return np.fft.irfft(v, n=n, axis=-1)
