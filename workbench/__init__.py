"""workbench: the core pinn and pino share (problems, models, training runs, results, plots, CLI).

- `workbench.protocols`: the `Problem` and `Model` protocols;
- `workbench.result`: `Result`, the one result type of a training run (history, phases, errors as
  fractions, metrics, timings, optimiser state);
- `workbench.persistence`: `save` / `load` in frame's safe checkpoint format (models rebuilt only
  from the allow-list `register_model` fills), `write_history` (CSV / JSON);
- `workbench.reference`: the ETDRK4 integrator both packages' reference solvers use.

Layering: frame -> workbench -> pinn, pino. Nothing here imports pinn or pino.
"""
from .protocols import Model, Problem
from .result import Result, add_phase
from .persistence import Saved, load, register_model, save, write_history

__all__ = ["Problem", "Model", "Result", "add_phase", "Saved", "save", "load", "register_model", "write_history"]
