"""Host-driven training (ARCH-065): optimisers as update graphs, a `Trainer` loop, atomic checkpoints, L-BFGS."""
from .quasi_newton import LBFGSResult, lbfgs
from .trainer import (CHECKPOINT_FORMAT, DEFAULT_DIVERGENCE_FACTOR, SGD, Adam, LossGraph, Optimizer, Trainer,
                      as_param_leaves, check_divergence_factor, check_finite_data, first_nonfinite, leaf_paths,
                      optimizer_from_config, read_checkpoint, scalar, type_name, write_checkpoint)
from .update_graphs import build_adam_update_graph, build_sgd_update_graph

__all__ = ["SGD", "Adam", "Optimizer", "optimizer_from_config", "Trainer", "LossGraph", "as_param_leaves", "leaf_paths",
           "scalar", "lbfgs", "LBFGSResult", "CHECKPOINT_FORMAT", "write_checkpoint", "read_checkpoint", "type_name",
           "DEFAULT_DIVERGENCE_FACTOR", "check_finite_data", "check_divergence_factor", "first_nonfinite",
           "build_sgd_update_graph", "build_adam_update_graph"]
