"""pino: spectral physics-informed neural operators on frame (SPEC §9).

- `spectral_derivative(u, order, length)`: d^k/dx^k on a periodic grid by rfft, `(i k)^order`, irfft.
- `truncated_rfft(u, modes)`, `truncated_irfft(spectrum, n)`: the lowest modes of rfft / irfft of a
  band-limited spectrum, each one GEMM against cached cos/sin bases (`truncated_dft_bases`).
- `SpectralConv1d`, `FNO1d`: Fourier neural operator models (params pytrees, `apply(params, x)`).
- `FNO2d`, `FNO3d`: FNOs with neuraloperator's layer structure on 2-D / 3-D grids (`pino.models.FNO`).
- `PeriodicPoisson1D`, `Burgers1D`: problems with seeded numpy data and reference solvers.
- `train_poisson_physics`, `train_operator`: training on `frame.train.Trainer`.

Importing pino needs no JAX (only frame's numpy backend).
"""
from .spectral import (derivative_symbol, grid, spectral_derivative, truncated_dft_bases, truncated_irfft,
                       truncated_rfft, wavenumbers)
from .models import FNO1d, FNO2d, FNO3d, SpectralConv1d
from .data import gaussian_random_field, solve_burgers
from .problems import Burgers1D, OperatorData, PeriodicPoisson1D
from .training import (TrainResult, cosine_schedule, predict, relative_l2, relative_l2_loss, train_operator,
                       train_poisson_physics)

__all__ = ["spectral_derivative", "wavenumbers", "grid", "derivative_symbol", "truncated_rfft", "truncated_irfft",
           "truncated_dft_bases", "SpectralConv1d", "FNO1d", "FNO2d", "FNO3d",
           "gaussian_random_field", "solve_burgers", "PeriodicPoisson1D", "Burgers1D", "OperatorData",
           "TrainResult", "train_poisson_physics", "train_operator", "predict", "relative_l2", "relative_l2_loss",
           "cosine_schedule"]
