"""pino: spectral physics-informed neural operators on frame (SPEC §9).

- `spectral_derivative(u, order, length)`: d^k/dx^k on a periodic grid by rfft, `(i k)^order`, irfft.
- `truncated_rfft(u, modes)`, `truncated_irfft(spectrum, n)`: the lowest modes of rfft / irfft of a
  band-limited spectrum, each one GEMM against cached cos/sin bases (`truncated_dft_bases`).
- `SpectralConv1d`, `FNO1d`: Fourier neural operator models (params pytrees, `apply(params, x)`).
- `FNO2d`, `FNO3d`: FNOs with neuraloperator's layer structure on 2-D / 3-D grids (`pino.models.FNO`).
- `PeriodicPoisson1D`, `BurgersOperator1D` (formerly `Burgers1D`, still an alias; pinn's `Burgers1D` is the
  PINN problem): operator problems with seeded numpy data and reference solvers (`workbench.Problem`).
- `darcy_data`, `navier_stokes_data`, `burgers_pino_data`: the FNO/PINO papers' 2-D data sets, seeded and
  cached (`pino.datasets`); `pino.losses`: data, physics (spectral / finite-difference), initial and
  boundary losses, and `fine_tune` (instance-wise test-time optimisation).
- `train_poisson_physics`, `train_operator`: training on `frame.train.Trainer.run`, returning an
  `OperatorResult` (a `workbench.Result`); `resume=` continues a saved run; `save` / `load` keep trained
  operators in frame's safe checkpoint format.

Importing pino needs no JAX (only frame's numpy backend).
"""
from .spectral import (derivative_symbol, grid, spectral_derivative, truncated_dft_bases, truncated_irfft,
                       truncated_rfft, wavenumbers)
from .models import FNO, FNO1d, FNO2d, FNO3d, SpectralConv, SpectralConv1d
from .data import gaussian_random_field, solve_burgers
from .problems import (Burgers1D, BurgersOperator1D, BurgersSpaceTime, Darcy2D, NavierStokes2D, OperatorData,
                       PeriodicPoisson1D)
from .training import (Normalized, OperatorResult, SavedOperator, TrainResult, cosine_schedule, load, predict,
                       relative_l2, relative_l2_loss, save, train_operator, train_poisson_physics)
from .datasets import (FieldData, burgers_pino_data, darcy_data, navier_stokes_data, solve_burgers_spacetime,
                       solve_darcy, solve_darcy_batch, solve_navier_stokes)
from .losses import (FineTuneResult, boundary_loss, burgers_physics_loss, burgers_pino_loss, burgers_residual,
                     darcy_physics_loss, darcy_residual, data_loss, fine_tune, initial_condition_loss,
                     navier_stokes_physics_loss, vorticity_residual)

__all__ = ["spectral_derivative", "wavenumbers", "grid", "derivative_symbol", "truncated_rfft", "truncated_irfft",
           "truncated_dft_bases", "SpectralConv1d", "FNO1d", "FNO2d", "FNO3d", "gaussian_random_field",
           "solve_burgers", "PeriodicPoisson1D", "Burgers1D", "BurgersOperator1D", "Darcy2D", "NavierStokes2D",
           "BurgersSpaceTime", "OperatorData", "TrainResult",
           "OperatorResult", "SavedOperator", "save", "load", "train_poisson_physics", "train_operator", "predict",
           "relative_l2", "relative_l2_loss", "cosine_schedule", "FNO", "SpectralConv", "Normalized", "FieldData",
           "darcy_data", "navier_stokes_data", "burgers_pino_data", "solve_darcy", "solve_darcy_batch",
           "solve_navier_stokes", "solve_burgers_spacetime", "data_loss", "darcy_residual", "darcy_physics_loss",
           "boundary_loss", "vorticity_residual", "navier_stokes_physics_loss", "burgers_residual",
           "burgers_physics_loss", "initial_condition_loss", "burgers_pino_loss", "fine_tune", "FineTuneResult"]
