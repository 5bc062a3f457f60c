"""Operator-learning problems: `PeriodicPoisson1D` and `BurgersOperator1D` on periodic 1-D grids, and the
2-D problems `Darcy2D`, `NavierStokes2D` and `BurgersSpaceTime` (data from pino.datasets).

A problem knows how to draw seeded samples (numpy, float64), its reference solution operator, and
(where it has one) the spectral physics residual over `frame.numpy` used as a training loss. All
satisfy `workbench.protocols.Problem`: `name`, `data(seed, dtype)`, `loss(apply)`,
`reference(inputs)` and `metrics(result)`.

`BurgersOperator1D` was called `Burgers1D` (still an alias): pinn's `Burgers1D` is the PINN
problem (one solution on [-1, 1] x [0, 1]), this one the operator `u0 -> u(., 1)` learnt from pairs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import frame.numpy as fnp

from .data import gaussian_random_field, solve_burgers
from .spectral import grid, spectral_derivative, wavenumbers


def _operator_metrics(problem, result, test: "OperatorData | None") -> dict:
    """`workbench` metrics of a trained operator: its final relative L2 error (a fraction) and, given the
    test pairs, the mean and spread over samples of the error of `result.predict` on them."""
    from .training import relative_l2   # imported here: pino.training imports this module

    metrics = {"relative_l2_error": float(result.relative_l2_error)}
    if test is not None:
        inputs, _ = test.channels(result.dtype or "float32")
        pred = np.asarray(result.predict(inputs)).reshape(test.outputs.shape)
        per_sample = [relative_l2(pred[i:i + 1], test.outputs[i:i + 1]) for i in range(len(test))]
        metrics.update(test_relative_l2_error=float(np.mean(per_sample)),
                       test_relative_l2_std=float(np.std(per_sample)), test_samples=int(len(per_sample)))
    return metrics


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

    name = "periodic-poisson1d"   # a class attribute, not a field: pinn's poisson1d is -u'' = f with fixed ends

    def data(self, seed=0, dtype="float32", num: int = 256) -> tuple[np.ndarray]:
        """The physics-only training data: `num` forcings `[num, 1, n]` in `dtype` (no solutions)."""
        return (self.forcing(num, seed)[:, None, :].astype(dtype),)

    def loss(self, apply, scale: float = 1.0):
        """`loss_fn(params, f)`: the physics loss of `u = apply(params, f)` (mean squared residual / `scale`)."""
        def loss_fn(params, f):
            return self.physics_loss(apply(params, f), f, scale)
        return loss_fn

    def reference(self, f: np.ndarray) -> np.ndarray:
        """The exact solution operator on forcings `f` (`solve`)."""
        return self.solve(f)

    def metrics(self, result, test: "OperatorData | None" = None) -> dict:
        """The trained result's relative L2 error (a fraction), and on `test` (default: the result's own
        `extra["test"]`, as `train_poisson_physics` keeps it) its mean and spread over samples."""
        return _operator_metrics(self, result, test if test is not None else result.extra.get("test"))

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
class BurgersOperator1D:
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

    name = "burgers-operator1d"

    def data(self, seed=0, dtype="float32", num: int = 1000, n: int = 256) -> tuple[np.ndarray, np.ndarray]:
        """Training pairs `(u0, u(final_time))` as channel-first `[num, 1, n]` arrays in `dtype`."""
        return self.sample(num, n, seed).channels(dtype)

    def loss(self, apply):
        """`loss_fn(params, a, u)`: the relative-L2 data loss of `apply(params, a)` against `u`."""
        from .training import relative_l2_loss   # imported here: pino.training imports this module

        def loss_fn(params, a, u):
            return relative_l2_loss(apply(params, a), u)
        return loss_fn

    def reference(self, u0: np.ndarray) -> np.ndarray:
        """The reference operator on initial conditions `u0: (..., n)` (`solve`)."""
        return self.solve(u0)

    def metrics(self, result, test: "OperatorData | None" = None) -> dict:
        """The trained result's relative L2 error (a fraction), and on `test` its mean and spread over samples."""
        return _operator_metrics(self, result, test)

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


#: the earlier name of `BurgersOperator1D` (pinn.Burgers1D is the PINN problem)
Burgers1D = BurgersOperator1D


# -- the 2-D operator problems (issue 19): data from pino.datasets, PINO losses from pino.losses -------------------
class _FieldProblem:
    """What the three 2-D problems share: seeded, cached `FieldData` (train from `seed`, test from
    `seed + 1`), the relative-L2 data loss plus an optional PINO physics loss, and the plot choices."""

    name = ""
    title = input_label = output_label = ""

    def fields(self, num: int, seed=0, *, progress: bool = True, cache: bool = True):
        """`num` input/output pairs (`pino.datasets.FieldData`, float64), generated once and cached."""
        raise NotImplementedError

    def data(self, seed=0, dtype="float32", num: int = 100, *, progress: bool = True, cache: bool = True):
        """`(inputs, outputs)` of `num` pairs, channel-first, in `dtype`."""
        return self.fields(num, seed, progress=progress, cache=cache).channels(dtype)

    def physics(self, pred, a):
        """The PINO PDE loss of predictions `pred` on inputs `a` (None: the problem has none)."""
        return None

    @property
    def has_physics(self) -> bool:
        return type(self).physics is not _FieldProblem.physics

    def loss(self, apply, physics_weight: float = 0.0):
        """`loss_fn(params, a, u)`: relative-L2 data loss of `apply(params, a)`, plus `physics_weight`
        times the PDE loss where the problem has one."""
        from .training import relative_l2_loss   # imported here: pino.training imports this module

        def loss_fn(params, a, u):
            pred = apply(params, a)
            data = relative_l2_loss(pred, u)
            return data + physics_weight * self.physics(pred, a) if physics_weight and self.has_physics else data
        return loss_fn

    def metrics(self, result, test=None) -> dict:
        """The trained result's relative L2 error (a fraction), and on `test` its mean and spread over samples."""
        return _operator_metrics(self, result, test)

    def plot_slices(self, inputs, outputs, prediction) -> tuple:
        """(inputs, truth, prediction) as the 2-D fields the plots show, one per sample."""
        return inputs[:, 0], outputs[:, 0], prediction[:, 0]


@dataclass(frozen=True)
class Darcy2D(_FieldProblem):
    """Darcy flow `-div(a grad u) = 1` on the unit square, `u = 0` on the boundary: the operator
    `a -> u` (the FNO paper's setting; `pino.datasets.darcy_data`). The PINO loss is the
    generator's conservative scheme in the H^-1 norm plus the boundary term (`pino.losses`)."""

    resolution: int = 85
    solver_resolution: int = 421

    name = "darcy"
    title = "Darcy flow -div(a grad u) = 1: a -> u"
    input_label, output_label = "permeability a", "pressure u"
    domain_padding = 0.1   # not periodic: pad as the FNO/PINO codes do

    def fields(self, num: int, seed=0, *, progress: bool = True, cache: bool = True):
        from .datasets import darcy_data
        return darcy_data(num, self.resolution, solver_resolution=self.solver_resolution, seed=seed,
                          progress=progress, cache=cache)

    def physics(self, pred, a):
        from . import losses
        return losses.darcy_physics_loss(pred, a, scheme="faces", norm="h-1") + losses.boundary_loss(pred)

    def reference(self, a: np.ndarray) -> np.ndarray:
        """The finite-difference solution on the grid of `a: (batch, n, n)` (`solve_darcy_batch`)."""
        from .datasets import solve_darcy_batch
        return solve_darcy_batch(np.asarray(a, dtype=np.float64))


@dataclass(frozen=True)
class NavierStokes2D(_FieldProblem):
    """2-D Navier-Stokes in vorticity form on the unit torus (viscosity 1e-3, the FNO paper's forcing):
    vorticity at t = 1..t_in -> t_in+1..t_in+t_out (`pino.datasets.navier_stokes_data`)."""

    resolution: int = 64
    solver_resolution: int = 64
    t_in: int = 10
    t_out: int = 10
    viscosity: float = 1e-3

    name = "navier-stokes"
    domain_padding = None   # periodic

    @property
    def input_label(self) -> str:
        return f"vorticity w(t={self.t_in})"

    @property
    def title(self) -> str:
        return (f"Navier-Stokes, nu = {self.viscosity:g}: vorticity at t = 1..{self.t_in} -> "
                f"t = {self.t_in + 1}..{self.t_in + self.t_out}")

    @property
    def output_label(self) -> str:
        return f"vorticity w(t={self.t_in + self.t_out})"

    def fields(self, num: int, seed=0, *, progress: bool = True, cache: bool = True):
        from .datasets import navier_stokes_data
        return navier_stokes_data(num, self.resolution, t_in=self.t_in, t_out=self.t_out, viscosity=self.viscosity,
                                  solver_resolution=self.solver_resolution, seed=seed, progress=progress, cache=cache)

    def reference(self, w_in: np.ndarray) -> np.ndarray:
        """The pseudo-spectral solution for t_out unit steps from the last input vorticity `w_in[:, -1]`."""
        from .datasets import ns_forcing, solve_navier_stokes
        w = np.asarray(w_in, dtype=np.float64)[:, -1]
        return solve_navier_stokes(w, ns_forcing(w.shape[-1]), viscosity=self.viscosity, final_time=float(self.t_out),
                                   record_steps=self.t_out)   # (batch, t_out, n, n): the outputs' layout

    def plot_slices(self, inputs, outputs, prediction) -> tuple:
        return inputs[:, -1], outputs[:, -1], prediction[:, -1]


@dataclass(frozen=True)
class BurgersSpaceTime(_FieldProblem):
    """Burgers `u_t + u u_x = 0.01 u_xx` on [0, 1) periodic x [0, 1]: the PINO paper's operator from
    `u0` to `u(x, t)` (`pino.datasets.burgers_pino_data`), with the PINO residual and initial-condition
    loss (`pino.losses.burgers_pino_loss`)."""

    resolution: int = 128
    solver_resolution: int = 512
    nt: int = 101
    viscosity: float = 0.01
    dt: float = 5e-4

    name = "burgers-pino"
    title = "Burgers, nu = 0.01: u(x, 0) -> u(x, t), t in [0, 1]"
    input_label, output_label = "u0(x)", "u(x, t)"
    domain_padding = (0.1, 0.0)   # time is not periodic

    def fields(self, num: int, seed=0, *, progress: bool = True, cache: bool = True):
        from .datasets import burgers_pino_data
        return burgers_pino_data(num, self.resolution, nt=self.nt, viscosity=self.viscosity,
                                 solver_resolution=self.solver_resolution, dt=self.dt, seed=seed, progress=progress,
                                 cache=cache)

    def physics(self, pred, a):
        from . import losses
        return losses.burgers_pino_loss(pred, a[:, 0, 0, :], viscosity=self.viscosity)

    def reference(self, u0: np.ndarray) -> np.ndarray:
        """`u(x, t_j)` from initial conditions `u0: (batch, n)` (`solve_burgers_spacetime`)."""
        from .datasets import solve_burgers_spacetime
        return solve_burgers_spacetime(np.asarray(u0, dtype=np.float64), viscosity=self.viscosity, nt=self.nt,
                                       dt=self.dt)

    def plot_slices(self, inputs, outputs, prediction) -> tuple:
        return inputs[:, 0, 0], outputs[:, 0], prediction[:, 0]
