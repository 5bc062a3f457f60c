"""Training a PINN: Adam through `frame.train.Trainer`, then L-BFGS through `frame.train.lbfgs`.

The loss's data (collocation points, forcing values, boundary data) are graph inputs of the
training graph, so it is traced, derived and compiled once and then only executed.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from frame.train import DEFAULT_DIVERGENCE_FACTOR, SGD, Adam, Optimizer, Trainer, lbfgs

from . import derivative_modes
from .derivative_modes import ModeChoice
from .adaptive import Callback, TrainingContext, as_rng_for, run_with_callbacks
from .models import Network
from .problems import Problem, ProblemError


@dataclass
class PINNResult:
    """What `pinn.train` returns.

    `params` are the trained parameters of `model`; `history` the loss per Adam step followed by
    the loss per L-BFGS iteration (`adam_steps` tells where one ends); `relative_l2_error` is
    ||u - u_ref|| / ||u_ref|| on the problem's test points; `errors` holds `(step, error)` pairs
    measured during Adam (every `eval_every` steps) and at the end; times are wall-clock seconds;
    `derivative_mode` says how the residual's derivatives were computed (and what was measured).
    """

    problem: Problem
    model: Network
    params: Any
    history: list[float]
    adam_steps: int
    relative_l2_error: float
    errors: list[tuple[int, float]] = field(default_factory=list)
    lbfgs_iterations: int = 0
    lbfgs_message: str = ""
    adam_seconds: float = 0.0
    lbfgs_seconds: float = 0.0
    data: tuple = ()
    derivative_mode: ModeChoice | None = None
    callbacks: list = field(default_factory=list)

    @property
    def variables(self) -> dict:
        """The trained unknown coefficients of an inverse problem, by name (empty for a forward problem)."""
        return self.problem.variable_values(self.params)

    @property
    def network_params(self):
        """The trained network's parameters (without an inverse problem's coefficients)."""
        return self.problem.network_params(self.params)

    @property
    def wall_time(self) -> float:
        """Seconds spent training (Adam + L-BFGS, compilation included)."""
        return self.adam_seconds + self.lbfgs_seconds

    def predict(self, *coords) -> np.ndarray:
        """The trained network's solution at numpy points (one (N, 1) array per coordinate)."""
        return self.problem.predict(self.model.apply, self.network_params, *coords)

    def summary(self) -> str:
        lines = [f"{self.problem!r} with {self.model!r}"]
        if self.derivative_mode is not None:
            lines.append(self.derivative_mode.describe())
        lines.append(f"Adam: {self.adam_steps} steps in {self.adam_seconds:.1f} s")
        if self.lbfgs_iterations:
            lines.append(f"L-BFGS: {self.lbfgs_iterations} iterations in {self.lbfgs_seconds:.1f} s "
                         f"({self.lbfgs_message})")
        if self.variables:
            lines.append("variables: " + ", ".join(f"{k} = {v:.6g}" for k, v in self.variables.items()))
        final = f"final loss {self.history[-1]:.3e}" if self.history else "no steps taken"
        lines.append(f"{final}, relative L2 error {self.relative_l2_error:.3e}")
        return "\n".join(lines)


def make_optimizer(optimizer, lr) -> Optimizer:
    """An optimiser from a name ("adam", "sgd") and learning rate, or an `Optimizer` passed through."""
    if isinstance(optimizer, Optimizer):
        return optimizer
    kinds = {"adam": Adam, "sgd": SGD}
    if not isinstance(optimizer, str) or optimizer.lower() not in kinds:
        raise ProblemError(f"optimizer must be one of {', '.join(kinds)} or a frame.train optimiser, got {optimizer!r}")
    if not callable(lr) and not (isinstance(lr, (int, float)) and math.isfinite(lr) and lr > 0):
        raise ProblemError(f"lr must be a positive number or a callable step -> lr, got {lr!r}")
    return kinds[optimizer.lower()](lr)


def _check_count(name: str, n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ProblemError(f"{name} must be a non-negative int, got {n!r}")
    return int(n)


def _check_data(problem: Problem, data: tuple) -> None:
    for i, a in enumerate(data):
        a = np.asarray(a)
        if a.dtype.name != problem.dtype:
            raise ProblemError(f"{problem.name}: training data {i} has dtype {a.dtype.name} and shape {a.shape}, "
                               f"expected {problem.dtype}")
        if not np.isfinite(a).all():
            raise ProblemError(f"{problem.name}: training data {i} (shape {a.shape}) contains NaN/Inf")


def train(problem: Problem, model: Network | None = None, steps: int = 2000, optimizer="adam", lr=1e-3,
          lbfgs_steps: int = 0, seed: int = 0, *, progress: bool = True, eval_every: int = 500,
          checkpoint=None, checkpoint_every: int | None = None, lbfgs_tol: float = 1e-15,
          divergence_factor: float | None = DEFAULT_DIVERGENCE_FACTOR, derivative_mode: str = "auto",
          loss_weights=None, callbacks=(), client=None) -> PINNResult:
    """Train a PINN for `problem` and measure it against the reference solution.

    - `model`: a pinn network (`MLP`, `FourierFeatureMLP`, `ModifiedMLP`; default:
      `problem.default_model(seed)`); its own `params` are the start (with an inverse problem's
      unknown coefficients at their initial values: `problem.initial_params(model)`).
    - `steps` first-order steps with `optimizer` ("adam", "sgd" or a `frame.train` optimiser) at
      learning rate `lr` (a float or a callable step -> lr), through `frame.train.Trainer`
      (progress bar, NaN guard, checkpoints to `checkpoint` every `checkpoint_every` steps, and the
      divergence guard: a loss above the first by `divergence_factor` x |first| stops training;
      None turns it off).
    - then `lbfgs_steps` iterations of L-BFGS (`frame.train.lbfgs`) with tolerance `lbfgs_tol`:
      the tolerance is relative to max(|loss|, 1), so PINN losses far below 1 need it tiny.
    - `seed` draws the problem's collocation points (a grid problem ignores it).
    - `derivative_mode`: how the residual's derivatives are computed, "reverse" (nested
      `frame.grad`), "taylor" (Taylor mode) or "auto" (default: the cheapest mode that agrees
      with reverse mode, measured on the collocation points in well under a second; see
      `pinn.derivative_modes`). The result's `derivative_mode` reports the choice and its timings.
    - `loss_weights` (a `pinn.PDE` problem): one fixed weight per loss term, overriding the
      problem's; `callbacks`: `pinn.GradientNormBalancing`, `pinn.RAR`, `pinn.PDEPointResampler`
      (`pinn.adaptive`), run every `period` Adam steps (not during L-BFGS, which then trains on
      the data, weights and points they left).

    - `client`: a `dask.distributed.Client` for data-parallel training (`frame.distributed`): the
      problem's `sharded_arguments` (its residual points) are split across the workers, the other
      data go to every worker; results equal single-process training to rounding.

    Bad input (model/problem mismatch, non-finite data, bad counts) raises `ProblemError` before
    any training; a non-finite or diverging loss during training raises `frame.TrainingError`.
    """
    steps, lbfgs_steps = _check_count("steps", steps), _check_count("lbfgs_steps", lbfgs_steps)
    eval_every = max(1, _check_count("eval_every", eval_every))
    if not isinstance(problem, Problem):
        raise ProblemError(f"train needs a pinn problem (Poisson1D, Burgers1D, ...), got {type(problem).__name__}")
    model = problem.default_model(seed) if model is None else model
    if not isinstance(model, Network):
        raise ProblemError(f"train needs a pinn network (MLP, FourierFeatureMLP, ModifiedMLP), got "
                           f"{type(model).__name__}")
    problem.check_model(model)
    opt = make_optimizer(optimizer, lr)
    derivative_modes.check_mode(derivative_mode)
    callbacks = list(callbacks or ())
    for cb in callbacks:
        if not isinstance(cb, Callback):
            raise ProblemError(f"callbacks must be pinn callbacks (GradientNormBalancing, RAR, PDEPointResampler), "
                               f"got {cb!r}")
        cb.check(problem)
    shard = None
    if client is not None:
        if problem.sharded_arguments is None:
            raise ProblemError(f"{problem.name}: data-parallel training needs the problem's sharded_arguments "
                               "(which training-data arguments the loss averages over)")
        if callbacks:
            raise ProblemError("callbacks change the training data between chunks; they are not supported with client=")
        shard = problem.sharded_arguments
    data = tuple(problem.training_data(seed))
    if loss_weights is not None:
        if not hasattr(problem, "with_weights"):
            raise ProblemError(f"{problem.name}: loss_weights needs a pinn.PDE problem")
        data = problem.with_weights(data, loss_weights)
    _check_data(problem, data)
    choice = derivative_modes.choose(problem, model.apply, model.params, problem.residual_points(data),
                                     derivative_mode)
    loss_fn = problem.loss(model.apply, mode=choice.mode)
    errors: list[tuple[int, float]] = []

    def measure(step, params):
        error = problem.relative_l2_error(model.apply, problem.network_params(params))
        errors.append((step, error))
        return {"rel_l2": error}

    start = time.perf_counter()
    trainer = Trainer(loss_fn, problem.initial_params(model), opt, progress=progress,
                      desc=f"{problem.name} {type(opt).__name__}", divergence_factor=divergence_factor,
                      client=client, shard=shard)

    def run_chunk(n, chunk_data):
        trainer.run(n, *chunk_data, callback=measure, every=eval_every, checkpoint=checkpoint,
                    checkpoint_every=checkpoint_every)

    if callbacks:
        ctx = TrainingContext(problem, model, trainer, data, choice.mode, as_rng_for(seed))
        run_with_callbacks(ctx, steps, callbacks, run_chunk)
        data = ctx.data
    else:
        run_chunk(steps, data)
    params, history = trainer.params, list(trainer.history)
    adam_seconds = time.perf_counter() - start

    nit, message, lbfgs_seconds = 0, "", 0.0
    if lbfgs_steps:
        start = time.perf_counter()
        result = lbfgs(loss_fn, params, *data, maxiter=lbfgs_steps, tol=lbfgs_tol, progress=progress,
                       desc=f"{problem.name} L-BFGS", client=client, shard=shard)
        lbfgs_seconds = time.perf_counter() - start
        # history[0] of L-BFGS is the loss at its start, i.e. at the parameters Adam ended with.
        params, nit, message = result.params, result.nit, result.message
        history += result.history[1:]
    error = problem.relative_l2_error(model.apply, problem.network_params(params))
    errors.append((steps + nit, error))
    return PINNResult(problem=problem, model=model, params=params, history=history, adam_steps=steps,
                      relative_l2_error=error, errors=errors, lbfgs_iterations=nit, lbfgs_message=message,
                      adam_seconds=adam_seconds, lbfgs_seconds=lbfgs_seconds, data=data, derivative_mode=choice,
                      callbacks=callbacks)
