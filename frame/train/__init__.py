"""Host-driven training (ARCH-065): optimisers as update graphs, a `Trainer` loop, atomic checkpoints, L-BFGS.

One module per job:

- `update_graphs`: the SGD and Adam update graphs `[params, grads, state, (lr)] -> [new_params, new_state]`;
- `optimizers`: `Optimizer`, `SGD`, `Adam` (an update graph plus its host state) and `optimizer_from_config`;
- `loss_graph`: `LossGraph`, the compiled value-and-gradient of `loss_fn(params, *data)`, and parameter pytrees;
- `guards`: NaN/Inf checks on data, losses, gradients and updates; the divergence factor;
- `checkpoint`: the checkpoint file format (atomic write, validating read, parameter-tree encoding);
- `trainer`: `Trainer`, the loop that ties the above together (`run` over batch iterables with callbacks;
  `StopTraining` ends a run early);
- `quasi_newton`: `lbfgs`, full-batch L-BFGS through scipy (scipy loads on first call), or torch's
  iteration with a strong-Wolfe line search (`strong_wolfe`, `method="strong-wolfe"`).
"""
from .checkpoint import CHECKPOINT_FORMAT, read_checkpoint, type_name, write_checkpoint
from .guards import DEFAULT_DIVERGENCE_FACTOR, check_divergence_factor, check_finite_data, first_nonfinite
from .loss_graph import LossGraph, as_param_leaves, leaf_paths, scalar
from .optimizers import SGD, Adam, Optimizer, optimizer_from_config
from .quasi_newton import LBFGS_METHODS, LBFGSResult, lbfgs
from .trainer import StopTraining, Trainer
from .update_graphs import build_adam_update_graph, build_sgd_update_graph

__all__ = ["SGD", "Adam", "Optimizer", "optimizer_from_config", "Trainer", "StopTraining", "LossGraph",
           "as_param_leaves", "leaf_paths", "scalar", "lbfgs", "LBFGSResult", "LBFGS_METHODS", "CHECKPOINT_FORMAT", "write_checkpoint", "read_checkpoint", "type_name",
           "DEFAULT_DIVERGENCE_FACTOR", "check_finite_data", "check_divergence_factor", "first_nonfinite",
           "build_sgd_update_graph", "build_adam_update_graph"]
