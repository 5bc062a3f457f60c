"""Optimisers: each is a recipe for an update graph (`update_graphs`) plus its flat host state.

`optimizer_from_config` rebuilds one from the `Optimizer.config()` a checkpoint stores.
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np

from ..errors import CheckpointError, FrameError, TrainingError
from ..ir.types import TensorType
from .update_graphs import build_adam_update_graph, build_sgd_update_graph

__all__ = ["Optimizer", "SGD", "Adam", "optimizer_from_config"]


class Optimizer:
    """An optimiser is a recipe for an update graph plus its flat state.

    The update graph has inputs `[params..., grads..., state..., (lr if scheduled)]` and outputs
    `[new_params..., new_state...]`. A float `lr` is baked into the graph; a callable
    `lr(step) -> float` (step = number of updates done before this one, from 0) is fed as a
    rank-0 graph input each step, so a schedule never recompiles.
    """

    name = "optimizer"

    def __init__(self, lr):
        if callable(lr):
            self.lr = lr
        else:
            if isinstance(lr, bool) or not isinstance(lr, (int, float, np.floating, np.integer)) \
                    or not math.isfinite(float(lr)):
                raise FrameError(f"{type(self).__name__}: lr must be a finite float or a callable step -> lr, "
                                 f"got {lr!r}")
            self.lr = float(lr)

    @property
    def scheduled(self) -> bool:
        """True when the learning rate is a callable fed as a graph input."""
        return callable(self.lr)

    def update_graph(self, param_types: Sequence[TensorType]):
        raise NotImplementedError

    def init_state(self, params: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The initial optimiser state as a flat list of arrays (empty for SGD)."""
        return []

    def lr_input(self, step: int, dtype: str) -> list[np.ndarray]:
        """The trailing `lr` graph input for update number `step` (empty for a baked-in lr)."""
        if not self.scheduled:
            return []
        value = float(self.lr(step))
        if not math.isfinite(value):
            raise TrainingError(f"step {step + 1}: the learning-rate schedule returned {value}")
        return [np.asarray(value, dtype=dtype)]

    def config(self) -> dict:
        """JSON-able hyper-parameters (a scheduled lr is stored as None: pass the optimiser on restore)."""
        return {"type": type(self).__name__, "lr": None if self.scheduled else self.lr}

    def __repr__(self):
        args = [f"lr={'<schedule>' if self.scheduled else repr(self.lr)}"]
        args += [f"{k}={v!r}" for k, v in self.config().items() if k not in ("type", "lr")]
        return f"{type(self).__name__}({', '.join(args)})"


class SGD(Optimizer):
    """Plain gradient descent: `p <- p - lr * g` (update graph from `build_sgd_update_graph`)."""

    def __init__(self, lr: float | Callable[[int], float]):
        super().__init__(lr)

    def update_graph(self, param_types):
        return build_sgd_update_graph(param_types, None if self.scheduled else self.lr)


class Adam(Optimizer):
    """Adam with optax's bias-corrected formulas; state `[m..., v..., step]` lives in host arrays.

    The update graph comes from `build_adam_update_graph`; all parameters must share one float dtype.
    """

    def __init__(self, lr: float | Callable[[int], float] = 1e-3, b1: float = 0.9, b2: float = 0.999,
                 eps: float = 1e-8):
        super().__init__(lr)
        for name, value in (("b1", b1), ("b2", b2), ("eps", eps)):
            if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
                raise FrameError(f"Adam: {name} must be a number, got {type(value).__name__} {value!r}")
        self.b1, self.b2, self.eps = float(b1), float(b2), float(eps)
        if not (0.0 < self.b1 < 1.0 and 0.0 < self.b2 < 1.0 and self.eps >= 0.0):
            raise FrameError(f"Adam: needs 0 < b1 < 1, 0 < b2 < 1 and eps >= 0, got b1={b1}, b2={b2}, eps={eps}")

    def update_graph(self, param_types):
        return build_adam_update_graph(param_types, None if self.scheduled else self.lr, self.b1, self.b2, self.eps)

    def init_state(self, params):
        zeros = [np.zeros_like(p) for p in params]
        return [*zeros, *[np.zeros_like(p) for p in params], np.zeros((), params[0].dtype)]

    def config(self):
        return {**super().config(), "b1": self.b1, "b2": self.b2, "eps": self.eps}


_OPTIMIZERS = {"SGD": SGD, "Adam": Adam}


def optimizer_from_config(config: dict, path: str = "<checkpoint>") -> Optimizer:
    """Rebuild an optimiser from `Optimizer.config()` as stored in checkpoint `path` (else `CheckpointError`).

    A scheduled lr (a callable) is not stored, so such a checkpoint needs `optimizer=` on restore.
    """
    kind = config.get("type")
    if kind not in _OPTIMIZERS:
        raise CheckpointError(f"checkpoint {path!r} names optimiser {kind!r}, which frame.train does not know; "
                              "pass optimizer=")
    if config.get("lr") is None:
        raise CheckpointError(f"checkpoint {path!r}: its {kind} used a learning-rate schedule (a callable, not "
                              "stored); pass optimizer= with the same schedule to restore it")
    kwargs = {k: v for k, v in config.items() if k != "type"}
    try:
        return _OPTIMIZERS[kind](**kwargs)
    except (FrameError, TypeError, ValueError) as e:
        raise CheckpointError(f"checkpoint {path!r} has optimizer metadata {config!r} that does not build a "
                              f"{kind} ({e}); pass optimizer=") from None
