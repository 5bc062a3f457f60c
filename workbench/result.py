"""`Result`: what a training run of either workbench returns (issue 20 item 1).

One type for pinn and pino: the trained `model` and `params`, the loss `history` (one entry per
Adam step, then one per L-BFGS iteration; `phases` says where each phase starts), the relative L2
`errors` measured during and at the end of training, other `metrics`, wall-clock `timings`, and
the first-order optimiser's state (`opt_state`, `optimizer_config`, `step_count`) that a resumed
run continues from. `pinn.PINNResult` and `pino.OperatorResult` are thin subclasses that add what
only their package has (a PINN's problem object and derivative mode; an operator's test
predictions).

Units: every error here is a FRACTION (0.01 is 1 %); printing it is the CLI's job
(`workbench.cli.print_errors`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Result", "PHASES", "add_phase"]

#: the optimiser phases a history is made of, in the order a run takes them
PHASES = ("adam", "lbfgs")


def add_phase(phases: list, name: str, n: int) -> None:
    """Append `n` history entries of optimiser `name` to the run-length list `phases` (in place):
    `[("adam", 100)]` + ("adam", 50) -> `[("adam", 150)]`; + ("lbfgs", 20) -> `[..., ("lbfgs", 20)]`."""
    if n <= 0:
        return
    if phases and phases[-1][0] == name:
        phases[-1] = (name, phases[-1][1] + int(n))
    else:
        phases.append((name, int(n)))


@dataclass(kw_only=True)
class Result:
    """A trained model and the record of its training.

    - `problem_name`: the problem's name (`--problem NAME`);
    - `model`, `params`: the model (`workbench.protocols.Model`) and its trained parameter pytree;
    - `history`: the loss per step, Adam steps then L-BFGS iterations (an Adam step's loss is
      evaluated before its update, an L-BFGS iteration's after it);
    - `phases`: `[("adam", n), ("lbfgs", m), ...]`, run lengths covering `history`;
    - `errors`: `[(step, relative L2 error)]`, the error as a FRACTION, `step` counting `history`
      entries (the error after `step` recorded losses); the last is the final error;
    - `metrics`: `[(step, dict)]` recorded during training (Adam and L-BFGS);
    - `timings`: seconds, keys "data" (making the training data), "adam", "lbfgs", "total";
    - `opt_state`, `optimizer_config`, `step_count`: the first-order optimiser's flat state, its
      `config()` and the number of its updates (what `save` stores and a resumed run continues);
    - `seed`, `dtype`: the data/initialisation seed and the floating dtype trained in.
    """

    problem_name: str | None = None
    model: Any = None
    params: Any = None
    history: list = field(default_factory=list)
    phases: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    metrics: list = field(default_factory=list)
    timings: dict = field(default_factory=dict)
    opt_state: list = field(default_factory=list)
    optimizer_config: dict = field(default_factory=dict)
    step_count: int = 0
    seed: Any = None
    dtype: str | None = None

    # -- derived figures
    @property
    def relative_l2_error(self) -> float:
        """The last measured relative L2 error (a fraction; NaN if none was measured)."""
        return float(self.errors[-1][1]) if self.errors else math.nan

    @property
    def wall_time(self) -> float:
        """Seconds spent training: Adam plus L-BFGS, compilation included (not data generation)."""
        return float(self.timings.get("adam", 0.0)) + float(self.timings.get("lbfgs", 0.0))

    @property
    def final_loss(self) -> float:
        """The last recorded loss (NaN if no step was taken)."""
        return float(self.history[-1]) if self.history else math.nan

    # -- using the trained model
    def predict(self, x) -> np.ndarray:
        """The trained model at inputs `x` (in the result's dtype), as a numpy array."""
        x = np.asarray(x, dtype=self.dtype) if self.dtype else np.asarray(x)
        return np.asarray(self.model.apply(self.params, x))

    # -- keeping it
    def save(self, path) -> str:
        """Save the model, parameters, optimiser state and record to `path` (`workbench.persistence.save`)."""
        from .persistence import save
        return save(self, path)

    def write_history(self, path) -> str:
        """The loss and error history as CSV or JSON, chosen by `path`'s suffix (`.csv`, `.json`): one row
        per loss (step, phase, loss, relative_l2_error where measured); returns the path."""
        from .persistence import write_history
        return write_history(path, self.history, self.phases, self.errors, self.metrics)

    def save_extra(self) -> dict:
        """Package-specific JSON data `save` stores with the result (subclasses add theirs)."""
        return {}

    def problem_settings(self) -> dict:
        """The problem's plain-data settings `save` records (none known here; subclasses add them)."""
        return {}
