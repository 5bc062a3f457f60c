"""Operator-learning problems on periodic grids: `PeriodicPoisson1D` and `Burgers1D`.

A problem knows how to draw seeded samples (numpy, float64), its reference solution operator, and
(where it has one) the spectral physics residual over `frame.numpy` used as a training loss.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import frame.numpy as fnp

from .data import gaussian_random_field, solve_burgers
from .spectral import grid, spectral_derivative, wavenumbers


@dataclass(frozen=True)
class OperatorData:
    """Input/output pairs of an operator on a grid: `inputs`, `outputs` of shape `(num, n)`, and the grid `x`."""

    inputs: np.ndarray
    outputs: np.ndarray
    x: np.ndarray

    def __len__(self):
        return len(self.inputs)

    def channels(self, dtype="float32") -> tuple[np.ndarray, np.ndarray]:
        """`(inputs, outputs)` shaped `[num, 1, n]` in `dtype`, the layout the FNO models take."""
        return (self.inputs[:, None, :].astype(dtype), self.outputs[:, None, :].astype(dtype))


@dataclass(frozen=True)
class PeriodicPoisson1D:
    """The operator `f -> u` of the screened Poisson equation `-u'' + u = f` on a periodic interval.

    Forcings `f` are drawn from the Gaussian random field `N(0, sigma^2 (-Laplacian + tau^2)^(-alpha))`
    (zero mean, Nyquist bin empty). The exact solution divides each Fourier coefficient by `1 + k^2`.
    `residual(u, f)` is the spectral physics residual `-u'' + u - f` over `frame.numpy` (rfft,
    multiply by `-k^2`, irfft; ARCH-067), so a model can be trained from it alone.
    """

    n: int = 64
    length: float = 2 * math.pi
    sigma: float = 1.0
    tau: float = 1.0
    alpha: float = 2.5

    def forcing(self, num: int, seed=0) -> np.ndarray:
        """`num` forcing samples, float64 `(num, n)`."""
        return gaussian_random_field(num, self.n, length=self.length, sigma=self.sigma, tau=self.tau,
                                     alpha=self.alpha, seed=seed)

    def solve(self, f: np.ndarray) -> np.ndarray:
        """The exact periodic solution of `-u'' + u = f` (spectral division by `1 + k^2`) along the last axis."""
        f = np.asarray(f, dtype=np.float64)
        k = wavenumbers(f.shape[-1], self.length)
        return np.fft.irfft(np.fft.rfft(f, axis=-1) / (1.0 + k ** 2), n=f.shape[-1], axis=-1)

    def sample(self, num: int, seed=0) -> OperatorData:
        """`num` pairs `(f, u)` on the problem's grid."""
        f = self.forcing(num, seed)
        return OperatorData(f, self.solve(f), grid(self.n, self.length))

    def residual(self, u, f):
        """`-u'' + u - f` along the last axis, by spectral differentiation (numpy or traced, any float dtype)."""
        return u - spectral_derivative(u, 2, self.length) - f

    def physics_loss(self, u, f, scale: float = 1.0):
        """Mean squared residual divided by `scale` (e.g. the mean square of the forcings)."""
        r = self.residual(u, f)
        return fnp.mean(r * r) * (1.0 / scale)


@dataclass(frozen=True)
class Burgers1D:
    """The FNO benchmark operator `u(., 0) -> u(., final_time)` of viscous Burgers `u_t + u u_x = nu u_xx`.

    Periodic on `[0, length)`; initial conditions from the Gaussian random field
    `N(0, sigma^2 (-Laplacian + tau^2)^(-alpha))`, by default the FNO paper's `625 (-Delta + 25 I)^-2`
    with `nu = 0.1` (Li et al. 2021, sec. 5.1). With these values the solution at t = 1 is strongly
    damped (mode 1 decays by exp(-0.1 (2 pi)^2) ~ 0.02) and the operator is nearly linear: the heat
    equation alone predicts u(., 1) to ~7.5% (benchmarks/fno_burgers.py prints it). The samples are
    drawn here from that stated distribution, not taken from the paper's released file
    (burgers_data_R10.mat), so errors are comparable in kind, not sample for sample. Every parameter
    is a field of this class.
    Reference outputs come from `solve_burgers` (pseudo-spectral ETDRK4) at the sampling resolution.
    """

    viscosity: float = 0.1
    length: float = 1.0
    final_time: float = 1.0
    sigma: float = 25.0
    tau: float = 5.0
    alpha: float = 2.0
    solver_dt: float = 2e-3

    def initial_conditions(self, num: int, n: int, seed=0) -> np.ndarray:
        """`num` initial conditions on an n-point grid, float64 `(num, n)`."""
        return gaussian_random_field(num, n, length=self.length, sigma=self.sigma, tau=self.tau, alpha=self.alpha,
                                     seed=seed)

    def solve(self, u0: np.ndarray, dt: float | None = None) -> np.ndarray:
        """`u(., final_time)` from `u0: (..., n)` with the ETDRK4 solver."""
        return solve_burgers(u0, viscosity=self.viscosity, final_time=self.final_time, length=self.length,
                             dt=self.solver_dt if dt is None else dt)

    def sample(self, num: int, n: int, seed=0, chunk: int = 256) -> OperatorData:
        """`num` pairs `(u0, u(final_time))` on an n-point grid (solved in chunks to bound memory)."""
        u0 = self.initial_conditions(num, n, seed)
        u1 = np.concatenate([self.solve(u0[i:i + chunk]) for i in range(0, num, chunk)] or [np.zeros((0, n))])
        return OperatorData(u0, u1, grid(n, self.length))
