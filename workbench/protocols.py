"""`Problem` and `Model`: what a workbench problem and model provide (issue 20 item 1).

Structural protocols (`typing.Protocol`, `runtime_checkable`): a class satisfies them by having the
members, nothing to inherit. pinn's problems (`pinn.Problem` and its subclasses, the zoo) and
pino's (`pino.PeriodicPoisson1D`, `pino.BurgersOperator1D`) satisfy `Problem`; pinn's networks
(`MLP`, `FourierFeatureMLP`, `ModifiedMLP`) and pino's operators (`FNO1d`, `FNO2d`, `FNO3d`,
`FNO`, `Normalized`) satisfy `Model`. `isinstance` checks only that the members exist;
tests/workbench/test_protocols.py calls them.
"""
from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["Problem", "Model"]


@runtime_checkable
class Problem(Protocol):
    """A problem to train a model on.

    - `name`: the problem's command-line name (`--problem NAME`);
    - `data(seed, dtype)`: the training data for a seed, numpy arrays in `dtype` (a PINN's
      collocation and boundary data; an operator's input/output pairs);
    - `loss(...)`: the scalar training loss over `frame.numpy` (its arguments are the package's:
      pinn `loss(apply, mode) -> loss_fn(params, *data)`, pino `loss(apply) -> loss_fn(params, *batch)`);
    - `reference(...)`: the reference solution (pinn: at coordinates; pino: the exact operator on inputs);
    - `metrics(result) -> dict`: figures of a trained `workbench.Result` against the reference,
      at least "relative_l2_error" (a fraction).
    """

    name: str

    def data(self, seed: int = 0, dtype: str | None = None) -> Any: ...

    def loss(self, *args, **kwargs) -> Any: ...

    def reference(self, *args, **kwargs) -> Any: ...

    def metrics(self, result) -> dict: ...


@runtime_checkable
class Model(Protocol):
    """A trainable model: `init(seed, dtype)` returns a parameter pytree of float arrays and
    `apply(params, x)` is a pure function of it over `frame.numpy` (traceable by `frame.grad`,
    `frame.function` and `frame.train.Trainer`)."""

    def init(self, seed: int = 0, dtype: str | None = None) -> Any: ...

    def apply(self, params, x) -> Any: ...
