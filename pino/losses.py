"""PINO losses over `frame.numpy` (traceable, differentiable), and instance-wise fine-tuning (Li et al. 2021, PINO).

- `data_loss`: the relative L2 data loss of the FNO and PINO papers (per-sample ||pred - true|| / ||true||,
  averaged over the batch);
- Darcy (non-periodic unit square, node grid `x_i = i/(s-1)`): `darcy_residual` by finite differences,
  either the PINO paper's `FDM_Darcy` (central differences of `a u_x`, `a u_y`, each over 2h: the
  residual lives on the `(s-4)^2` inner nodes) or the generator's own conservative 5-point scheme
  (`scheme="faces"`, face-averaged `a`, on the `(s-2)^2` interior nodes: it vanishes to rounding on
  `pino.datasets.solve_darcy`'s solutions at the solver's grid); `darcy_physics_loss` is the PINO
  paper's relative form `||-div(a grad u) - f|| / ||f||`; `boundary_loss` the Dirichlet term;
- Navier-Stokes (unit torus): `vorticity_residual` `w_t + u.grad w - nu Lap w - f`, spatial derivatives
  spectral (rfft2, the velocity from the stream function `-Lap psi = w`), `w_t` by second-order central
  differences on the interior snapshots (the PINO paper's `FDM_NS_vorticity`);
- Burgers in space-time (periodic x, t in [0, 1]): `burgers_residual` `u_t + u u_x - nu u_xx`, x spectral,
  t by central differences (the PINO paper's `FDM_Burgers`), and `initial_condition_loss`;
- `fine_tune`: test-time optimisation of a trained operator on one instance with a physics loss plus an
  optional anchor term (the distance to the pre-trained prediction) and an optional data term.

Arrays may be numpy or traced; fields take a channel axis of size 1 or none (see each function).
"""
from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

import frame
import frame.numpy as fnp
from frame.errors import ShapeError
from frame.train import DEFAULT_DIVERGENCE_FACTOR, Adam, Trainer

from .training import cosine_schedule, relative_l2, relative_l2_loss

data_loss = relative_l2_loss   # the FNO/PINO papers' data loss (LpLoss.rel with p = 2)


def _dtype(x) -> np.dtype:
    return np.dtype(x.dtype)


def _squeeze_channel(owner: str, x, grid_dims: int = 2):
    """`x` as `[batch, *grid]`: a `[batch, 1, *grid]` field loses its channel axis."""
    shape = tuple(x.shape)
    if len(shape) == grid_dims + 2 and shape[1] == 1:
        return fnp.reshape(x, shape[:1] + shape[2:])
    if len(shape) != grid_dims + 1:
        raise ShapeError(f"{owner}: expected a field [batch, {grid_dims} grid axes] or [batch, 1, {grid_dims} grid "
                         f"axes], got shape {shape}")
    return x


# -- Darcy ---------------------------------------------------------------------------------------------------------
DARCY_SCHEMES = ("pino", "faces")


def darcy_residual(u, a, f=1.0, *, scheme: str = "pino"):
    """`-div(a grad u) - f` by finite differences on the node grid of [0, 1]^2 (`h = 1/(s-1)`, axis 1 is x, 2 is y).

    `u`, `a`: `[batch, s, s]` or `[batch, 1, s, s]`; `f` a scalar or an `(s, s)` array. `scheme`:
    - "pino": the PINO paper's FDM_Darcy: `u_x, u_y` by central differences (2h), times `a`, and central
      differences again: `[batch, s-4, s-4]` on the nodes 2..s-3;
    - "faces": the 5-point conservative scheme of `pino.datasets.darcy_matrix` (face-averaged `a`):
      `[batch, s-2, s-2]` on the interior nodes 1..s-2; zero to rounding on the generator's solution
      at its own grid, second order on smooth fields.
    """
    if scheme not in DARCY_SCHEMES:
        raise ValueError(f"darcy_residual: scheme must be one of {DARCY_SCHEMES}, got {scheme!r}")
    u = _squeeze_channel("darcy_residual (u)", u)
    a = _squeeze_channel("darcy_residual (a)", a)
    if tuple(u.shape) != tuple(a.shape) or u.shape[1] != u.shape[2]:
        raise ShapeError(f"darcy_residual: u and a must be square fields of one shape, got {tuple(u.shape)} "
                         f"and {tuple(a.shape)}")
    s = u.shape[1]
    if s < (5 if scheme == "pino" else 3):
        raise ShapeError(f"darcy_residual: a {s}x{s} grid has no interior nodes for the {scheme!r} scheme")
    h = 1.0 / (s - 1)
    dtype = _dtype(u)
    f = np.asarray(f, dtype=np.float64)
    if scheme == "pino":
        u_x = (u[:, 2:, 1:-1] - u[:, :-2, 1:-1]) * (0.5 / h)
        u_y = (u[:, 1:-1, 2:] - u[:, 1:-1, :-2]) * (0.5 / h)
        inner = a[:, 1:-1, 1:-1]
        flux_x, flux_y = inner * u_x, inner * u_y
        div = ((flux_x[:, 2:, 1:-1] - flux_x[:, :-2, 1:-1]) + (flux_y[:, 1:-1, 2:] - flux_y[:, 1:-1, :-2])) * (0.5 / h)
        rhs = f if f.ndim == 0 else f[2:-2, 2:-2]
    else:
        face_x = (a[:, 1:, :] + a[:, :-1, :]) * 0.5                  # between nodes (i, j) and (i+1, j)
        face_y = (a[:, :, 1:] + a[:, :, :-1]) * 0.5
        flux_x = face_x[:, :, 1:-1] * (u[:, 1:, 1:-1] - u[:, :-1, 1:-1])   # [batch, s-1, s-2]
        flux_y = face_y[:, 1:-1, :] * (u[:, 1:-1, 1:] - u[:, 1:-1, :-1])   # [batch, s-2, s-1]
        div = ((flux_x[:, 1:, :] - flux_x[:, :-1, :]) + (flux_y[:, :, 1:] - flux_y[:, :, :-1])) * (1.0 / h ** 2)
        rhs = f if f.ndim == 0 else f[1:-1, 1:-1]
    return -div - rhs.astype(dtype)


@functools.lru_cache(maxsize=16)
def _inverse_laplacian_factors(m: int, h: float) -> tuple[np.ndarray, np.ndarray]:
    """The orthonormal DST-I matrix `S` (m x m, symmetric, `S S = I`) and `1/lambda` of the Dirichlet 5-point
    Laplacian on m x m interior nodes of spacing h: `L^-1 r = S ((S r S) / lambda) S`."""
    j = np.arange(1, m + 1)
    S = math.sqrt(2.0 / (m + 1)) * np.sin(math.pi * np.outer(j, j) / (m + 1))
    eig = (2 - 2 * np.cos(math.pi * j / (m + 1))) / h ** 2
    return S, 1.0 / (eig[:, None] + eig[None, :])


def inverse_laplacian(r, h: float):
    """`(-Lap_h)^-1 r` for `r: [batch, m, m]` on interior nodes, zero Dirichlet data (4 GEMMs by the DST-I matrix)."""
    S, inv = _inverse_laplacian_factors(int(r.shape[1]), float(h))
    dtype = _dtype(r)
    S = S.astype(dtype)
    return fnp.matmul(fnp.matmul(S, fnp.matmul(fnp.matmul(S, r), S) * inv.astype(dtype)), S)


def darcy_physics_loss(u, a, f=1.0, *, scheme: str = "pino", norm: str = "l2"):
    """The Darcy PDE loss: batch mean of `||-div(a grad u) - f|| / ||f||` over the residual's nodes.

    `norm="l2"` is the PINO paper's loss. `norm="h-1"` measures residual and `f` after the inverse
    Dirichlet Laplacian (`inverse_laplacian`), a discrete H^-1 norm: since `-div(a grad .)` is spectrally
    within [min a, max a] of the Laplacian, this loss is within that factor of the relative error
    `||u - u*|| / ||u*||`-like quantity at every wavenumber, whereas the L2 residual weighs the error at
    wavenumber k by ~k^2, so gradient descent on it mostly fixes the highest modes (measured: fine-tuning
    on the L2 form raised the error of a 6 %-accurate FNO on a 21 x 21 grid, the H^-1 form lowered it).
    """
    if norm not in ("l2", "h-1"):
        raise ValueError(f"darcy_physics_loss: norm must be 'l2' or 'h-1', got {norm!r}")
    r = darcy_residual(u, a, f, scheme=scheme)
    m = r.shape[1]
    edge = 2 if scheme == "pino" else 1
    s = m + 2 * edge
    rhs = np.broadcast_to(np.asarray(f, dtype=np.float64), (s, s))[edge:-edge, edge:-edge]
    if norm == "h-1":
        h = 1.0 / (s - 1)
        r = inverse_laplacian(r, h)
        S, inv = _inverse_laplacian_factors(m, h)
        rhs = S @ ((S @ rhs @ S) * inv) @ S
    return fnp.mean(fnp.sqrt(fnp.sum(r * r, axis=(1, 2)) * np.asarray(1.0 / np.sum(rhs * rhs), _dtype(r))))


def boundary_loss(u):
    """The Dirichlet term `u = 0` on the square's boundary: batch mean of `||u on the boundary|| / ||u||`.

    `u`: `[batch, s, s]` or `[batch, 1, s, s]`. Relative to the whole field's norm so that it weighs
    like the relative data and PDE losses.
    """
    u = _squeeze_channel("boundary_loss", u)
    edges = fnp.concatenate([u[:, 0, :], u[:, -1, :], u[:, 1:-1, 0], u[:, 1:-1, -1]], axis=1)
    flat = fnp.reshape(u, (u.shape[0], -1))
    return fnp.mean(fnp.sqrt(fnp.sum(edges * edges, axis=1) / fnp.sum(flat * flat, axis=1)))


def darcy_mollifier(s: int) -> np.ndarray:
    """`sin(pi x) sin(pi y)` on the s-point node grid: a factor making any output vanish on the boundary (PINO's)."""
    x = np.linspace(0.0, 1.0, s)
    return np.sin(math.pi * x)[:, None] * np.sin(math.pi * x)[None, :]


# -- spectral derivatives on periodic axes -------------------------------------------------------------------------
def _torus_symbols(n: int, dtype) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`(2 pi i k_x, 2 pi i k_y, 1/|2 pi k|^2)` on rfft2's `(n, n//2+1)` bins; odd symbols zero at Nyquist."""
    k = np.fft.fftfreq(n, 1.0 / n)
    kx = np.repeat(k[:, None], n // 2 + 1, axis=1)
    ky = np.repeat(np.arange(n // 2 + 1, dtype=np.float64)[None, :], n, axis=0)
    lap = 4 * math.pi ** 2 * (kx ** 2 + ky ** 2)
    inv_lap = np.where(lap > 0, 1.0 / np.where(lap > 0, lap, 1.0), 0.0)
    if n % 2 == 0:   # an odd derivative of the Nyquist mode vanishes on the grid (as pino.spectral's)
        kx = np.where(np.abs(kx) == n // 2, 0.0, kx)
        ky = np.where(ky == n // 2, 0.0, ky)
    complex_dtype = np.complex64 if np.dtype(dtype) == np.float32 else np.complex128
    return ((2j * math.pi * kx).astype(complex_dtype), (2j * math.pi * ky).astype(complex_dtype),
            inv_lap.astype(np.dtype(dtype)))


def _laplacian_symbol(n: int) -> np.ndarray:
    """-|2 pi k|^2 on rfft2's bins (the Laplacian's symbol; even, so the Nyquist bins keep it)."""
    k = np.fft.fftfreq(n, 1.0 / n)
    return -4 * math.pi ** 2 * (k[:, None] ** 2 + np.arange(n // 2 + 1)[None, :] ** 2)


def vorticity_residual(w, *, viscosity: float = 1e-3, dt: float = 1.0, forcing=None, dealias: bool = False):
    """`w_t + u . grad w - viscosity Lap w - forcing` on the unit torus for snapshots `w: [batch, nt, n, n]` dt apart.

    The velocity `u = (psi_y, -psi_x)` with `-Lap psi = w`, the gradient and Laplacian of `w` by rfft2
    and irfft2 (spectral); `w_t` by central differences `(w[t+1] - w[t-1]) / (2 dt)`, so the residual
    is `[batch, nt-2, n, n]` at the interior snapshots (PINO's FDM_NS_vorticity on the unit torus).
    `forcing`: None or an `(n, n)` array (e.g. `pino.datasets.ns_forcing(n)`). `dealias` filters the
    advection term by the 2/3 rule as `pino.datasets.solve_navier_stokes` does (PINO's loss does not): with
    it the residual of the generator's own solutions is its time-differencing error only.
    """
    shape = tuple(w.shape)
    if len(shape) != 4 or shape[2] != shape[3] or shape[1] < 3:
        raise ShapeError(f"vorticity_residual: w must be [batch, nt >= 3, n, n], got shape {shape}")
    n = shape[-1]
    dtype = _dtype(w)
    ikx, iky, inv_lap = _torus_symbols(n, dtype)
    w_h = fnp.fft.rfft2(w)
    psi_h = w_h * inv_lap
    velocity_x = fnp.fft.irfft2(psi_h * iky, s=(n, n))
    velocity_y = fnp.fft.irfft2(psi_h * (-ikx), s=(n, n))
    w_x = fnp.fft.irfft2(w_h * ikx, s=(n, n))
    w_y = fnp.fft.irfft2(w_h * iky, s=(n, n))
    lap_w = fnp.fft.irfft2(w_h * _laplacian_symbol(n).astype(dtype), s=(n, n))
    advection = velocity_x * w_x + velocity_y * w_y
    if dealias:
        k = np.abs(np.fft.fftfreq(n, 1.0 / n))
        keep = (k[:, None] <= 2.0 / 3.0 * (n // 2)) & (np.arange(n // 2 + 1)[None, :] <= 2.0 / 3.0 * (n // 2))
        advection = fnp.fft.irfft2(fnp.fft.rfft2(advection) * keep.astype(dtype), s=(n, n))
    rest = advection - lap_w * np.asarray(viscosity, dtype)
    w_t = (w[:, 2:] - w[:, :-2]) * np.asarray(0.5 / dt, dtype)
    r = w_t + rest[:, 1:-1]
    if forcing is not None:
        r = r - np.asarray(forcing, dtype)
    return r


def navier_stokes_physics_loss(w, *, viscosity: float = 1e-3, dt: float = 1.0, forcing=None, dealias: bool = False):
    """Mean square of `vorticity_residual` (the PINO paper's F.mse_loss of the PDE residual)."""
    r = vorticity_residual(w, viscosity=viscosity, dt=dt, forcing=forcing, dealias=dealias)
    return fnp.mean(r * r)


# -- Burgers in space-time -----------------------------------------------------------------------------------------
def burgers_residual(u, *, viscosity: float = 0.01, final_time: float = 1.0, length: float = 1.0):
    """`u_t + u u_x - viscosity u_xx` for `u: [batch, nt, n]` (or `[batch, 1, nt, n]`), `t_j = j T/(nt-1)`, periodic x.

    x-derivatives spectral (rfft along x, `(2 pi i k / length)^order`, irfft); `u_t` by central
    differences, so the residual is `[batch, nt-2, n]` at the interior times (the PINO paper's FDM_Burgers).
    """
    from .spectral import spectral_derivative

    u = _squeeze_channel("burgers_residual", u)
    shape = tuple(u.shape)
    if shape[1] < 3:
        raise ShapeError(f"burgers_residual: need nt >= 3 time levels, got shape {shape}")
    dtype = _dtype(u)
    dt = final_time / (shape[1] - 1)
    u_x = spectral_derivative(u, 1, length)
    u_xx = spectral_derivative(u, 2, length)
    u_t = (u[:, 2:] - u[:, :-2]) * np.asarray(0.5 / dt, dtype)
    return u_t + (u * u_x - u_xx * np.asarray(viscosity, dtype))[:, 1:-1]


def burgers_physics_loss(u, *, viscosity: float = 0.01, final_time: float = 1.0):
    """Mean square of `burgers_residual` (PINO's F.mse_loss)."""
    r = burgers_residual(u, viscosity=viscosity, final_time=final_time)
    return fnp.mean(r * r)


def initial_condition_loss(u, u0):
    """Mean square of `u(., t=0) - u0` for `u: [batch, nt, n]` (or with a channel axis), `u0: [batch, n]` (PINO's)."""
    u = _squeeze_channel("initial_condition_loss", u)
    d = u[:, 0, :] - u0
    return fnp.mean(d * d)


def burgers_pino_loss(u, u0, *, viscosity: float = 0.01, ic_weight: float = 10.0, f_weight: float = 1.0):
    """The PINO paper's Burgers objective `ic_weight * IC + f_weight * PDE` (its configs: 10 and 1)."""
    return (initial_condition_loss(u, u0) * ic_weight
            + burgers_physics_loss(u, viscosity=viscosity) * f_weight)


# -- instance-wise fine-tuning -------------------------------------------------------------------------------------
@dataclass
class FineTuneResult:
    """Fine-tuned `params`, the loss `history`, and (when `truth` was given) the error before, after and on the way."""

    params: object
    history: list[float]
    initial_error: float | None = None
    final_error: float | None = None
    errors: list[tuple[int, float]] = field(default_factory=list)
    prediction: np.ndarray | None = None
    seconds: float = 0.0


def fine_tune(model, params, instance, steps: int = 200, *, physics: Callable, anchor_weight: float = 0.0,
              target=None, data_weight: float = 0.0, truth=None, lr: float = 1e-4, eval_every: int = 0,
              progress: bool = False,
              divergence_factor: float | None = DEFAULT_DIVERGENCE_FACTOR) -> FineTuneResult:
    """Test-time optimisation of a trained operator on one `instance` (PINO's instance-wise fine-tuning).

    Minimises `physics(pred, instance) + anchor_weight * ||pred - pred_0||^2 / ||pred_0||^2 + data_weight *
    data_loss(pred, target)` over the parameters, starting from `params`, where `pred = model.apply(params, instance)`
    and `pred_0` the pre-trained model's prediction (the anchor keeps the solution near what the operator learnt
    while the PDE loss corrects it). Adam with a cosine decay from `lr`. `instance`: the model's input with or
    without the batch axis of 1. `truth` (optional, the reference output) is only used to report
    `initial_error`, `final_error` and, every `eval_every` steps, `errors` (relative L2).
    """
    x = np.asarray(instance)
    model_rank = len(getattr(model, "n_modes", (0,))) + 2
    if x.ndim == model_rank - 1:
        x = x[None]
    if x.shape[0] != 1:
        raise ShapeError(f"fine_tune: instance must be one sample (batch 1), got shape {x.shape}")
    if steps < 0:
        raise ValueError(f"fine_tune: steps must be >= 0, got {steps}")
    apply = frame.function(model.apply)
    anchor = np.asarray(apply(params, x))

    def error(p):
        return None if truth is None else relative_l2(np.asarray(apply(p, x)), np.asarray(truth).reshape(anchor.shape))

    def loss_fn(p, a, anchor_pred):
        pred = model.apply(p, a)
        loss = physics(pred, a)
        if anchor_weight > 0:   # squared (no sqrt): its gradient at pred = anchor, the first step, is 0, not NaN
            diff = pred - anchor_pred
            loss = loss + anchor_weight * fnp.sum(diff * diff) * np.asarray(1.0 / np.sum(anchor * anchor), anchor.dtype)
        if target is not None and data_weight > 0:
            loss = loss + data_weight * relative_l2_loss(pred, np.asarray(target, anchor.dtype).reshape(anchor.shape))
        return loss

    start = time.perf_counter()
    result = FineTuneResult(params, [], initial_error=error(params))
    trainer = Trainer(loss_fn, params, Adam(cosine_schedule(lr, steps)), progress=False,
                      divergence_factor=divergence_factor)
    from tqdm.auto import tqdm
    for step in tqdm(range(steps), desc="fine-tuning", disable=not progress, leave=False):
        trainer.step(x, anchor)
        if truth is not None and eval_every and (step + 1) % eval_every == 0:
            result.errors.append((step + 1, error(trainer.params)))
    result.params, result.history = trainer.params, list(trainer.history)
    result.prediction = np.asarray(apply(trainer.params, x))
    if truth is not None:
        result.final_error = relative_l2(result.prediction, np.asarray(truth).reshape(anchor.shape))
    result.seconds = time.perf_counter() - start
    return result
