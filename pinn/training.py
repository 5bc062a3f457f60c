"""Training a PINN: Adam through `frame.train.Trainer`, then L-BFGS through `frame.train.lbfgs`.

The loss's data (collocation points, forcing values, boundary data) are graph inputs of the
training graph, so it is traced, derived and compiled once and then only executed.
"""
from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from frame.train import DEFAULT_DIVERGENCE_FACTOR, LBFGS_METHODS, SGD, Adam, Optimizer, Trainer, lbfgs
from workbench.cli import format_error
from workbench.persistence import problem_settings
from workbench.result import Result, add_phase

from . import derivative_modes
from .derivative_modes import ModeChoice
from .adaptive import Callback, TrainingContext, as_rng_for, run_with_callbacks
from .models import Network
from .problems import Problem, ProblemError


@dataclass(kw_only=True)
class PINNResult(Result):
    """What `pinn.train` returns: a `workbench.Result` with a PINN's own record.

    `params` are the trained parameters of `model`; `history` the loss per Adam step followed by
    the loss per L-BFGS iteration (`adam_steps` tells where one ends); `relative_l2_error` is
    ||u - u_ref|| / ||u_ref|| on the problem's test points (a fraction: the last of `errors`);
    `errors` holds `(step, error)` pairs measured during Adam and L-BFGS (every `eval_every` steps)
    and at the end; `timings` (and `adam_seconds`, `lbfgs_seconds`) are wall-clock seconds;
    `lbfgs_iterations` and `lbfgs_evaluations` count L-BFGS's iterations and loss evaluations;
    `derivative_mode` says how the residual's derivatives were computed (and what was measured).

    A resumed run (`train(resume=...)`) carries the saved run's record on: `history` and `errors`
    start with the saved ones (`resumed_at` losses), `adam_steps` is where this run's Adam ends in
    `history`; `phases` labels every history entry's optimiser as `[("adam", n), ("lbfgs", m), ...]`.
    `opt_state`, `optimizer_config` and `step_count` are the first-order optimiser's state after
    its last step (what `pinn.save` stores and a resumed run continues from), `metrics` the
    `(step, dict)` records measured during training (Adam and L-BFGS), `seed` the data seed.
    """

    problem: Problem | None = None
    adam_steps: int = 0
    lbfgs_iterations: int = 0
    lbfgs_evaluations: int = 0
    lbfgs_message: str = ""
    data: tuple = ()
    derivative_mode: ModeChoice | None = None
    callbacks: list = field(default_factory=list)
    resumed_at: int = 0

    def __post_init__(self):
        if self.problem_name is None and self.problem is not None:
            self.problem_name = self.problem.name
        if self.dtype is None:
            self.dtype = getattr(self.problem, "dtype", None) or getattr(self.model, "dtype", None)

    @property
    def adam_seconds(self) -> float:
        """Seconds of the Adam phase (compilation included)."""
        return float(self.timings.get("adam", 0.0))

    @property
    def lbfgs_seconds(self) -> float:
        """Seconds of the L-BFGS phase."""
        return float(self.timings.get("lbfgs", 0.0))

    @property
    def variables(self) -> dict:
        """The trained unknown coefficients of an inverse problem, by name (empty for a forward problem)."""
        return self.problem.variable_values(self.params) if self.problem is not None else {}

    @property
    def network_params(self):
        """The trained network's parameters (without an inverse problem's coefficients)."""
        return self.problem.network_params(self.params) if self.problem is not None else self.params

    def predict(self, *coords) -> np.ndarray:
        """The trained network's solution at numpy points (one (N, 1) array per coordinate, or one (N, d) array)."""
        if self.problem is None:
            return np.asarray(self.model.apply(self.network_params, np.asarray(coords[0], dtype=self.model.dtype)))
        return self.problem.predict(self.model.apply, self.network_params, *coords)

    def save(self, path) -> str:
        """Save this trained PINN to `path` (`pinn.save`); returns the path."""
        from .persistence import save
        return save(self, path)

    def save_extra(self) -> dict:
        """What `pinn.save` stores beside the workbench record: derivative mode, variables, transforms."""
        return {"derivative_mode": self.derivative_mode.as_dict() if self.derivative_mode is not None else None,
                "variables": {k: float(v) for k, v in self.variables.items()},
                "transforms": {"feature": getattr(self.model, "_feature_transform", None) is not None,
                               "output": getattr(self.model, "_output_transform", None) is not None}}

    def problem_settings(self) -> dict:
        return problem_settings(self.problem) if self.problem is not None else {}

    def summary(self) -> str:
        lines = [f"{self.problem!r} with {self.model!r}"]
        if self.resumed_at:
            lines.append(f"resumed from a saved run of {self.resumed_at} recorded losses")
        if self.derivative_mode is not None:
            lines.append(self.derivative_mode.describe())
        lines.append(f"Adam: {self.adam_steps - self.resumed_at} steps in {self.adam_seconds:.1f} s")
        if self.lbfgs_iterations:
            lines.append(f"L-BFGS: {self.lbfgs_iterations} iterations in {self.lbfgs_seconds:.1f} s "
                         f"({self.lbfgs_message})")
        if self.variables:
            lines.append("variables: " + ", ".join(f"{k} = {v:.6g}" for k, v in self.variables.items()))
        final = f"final loss {self.history[-1]:.3e}" if self.history else "no steps taken"
        lines.append(f"{final}, relative L2 error {format_error(self.relative_l2_error)}")   # the CLIs' unit
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
          loss_weights=None, callbacks=(), client=None, resume=None, step_callbacks=(),
          lbfgs_options: dict | None = None, lbfgs_dtype: str | None = None,
          lbfgs_method: str | None = None) -> PINNResult:
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
      `lbfgs_options` go to scipy's L-BFGS-B as they are (e.g. Raissi et al.'s `ftol`, `gtol`,
      `maxfun`; they override `lbfgs_tol`); `lbfgs_dtype="float64"` evaluates the loss in float64
      during L-BFGS (a float32 loss stops changing before the fit does; the result keeps the
      model's dtype); `lbfgs_method` (default: the problem's `lbfgs_method`, "L-BFGS-B" but for
      BurgersRaissi in float32) is `frame.train.lbfgs`'s `method`: "L-BFGS-B" (scipy's), "strong-wolfe"
      (torch's L-BFGS iteration, DeepXDE's) or "hager-zhang" (a slope-based line search that goes on
      where a float32 loss stops changing).
    - `seed` draws the problem's collocation points (a grid problem ignores it).
    - `derivative_mode`: how the residual's derivatives are computed, "reverse" (nested
      `frame.grad`), "taylor" (Taylor mode) or "auto" (default: the cheapest mode that agrees
      with reverse mode, measured on the collocation points in well under a second; see
      `pinn.derivative_modes`). The result's `derivative_mode` reports the choice and its timings.
    - `loss_weights` (a `pinn.PDE` problem): one fixed weight per loss term, overriding the
      problem's; `callbacks`: `pinn.GradientNormBalancing`, `pinn.RAR`, `pinn.PDEPointResampler`
      (`pinn.adaptive`), run every `period` Adam steps (not during L-BFGS, which then trains on
      the data, weights and points they left). `step_callbacks`: plain `frame.train.Trainer.run`
      callbacks `cb(step, loss, trainer)` during Adam (with an optional `period`; returning or
      raising `frame.train.StopTraining` ends Adam early, e.g. at a target loss).

    - `client`: a `dask.distributed.Client` for data-parallel training (`frame.distributed`): the
      problem's `sharded_arguments` (its residual points) are split across the workers, the other
      data go to every worker; results equal single-process training to rounding.
    - `resume`: a path saved by `pinn.save` (or a `pinn.load` result) to continue from. Its network
      is the model (unless `model` is given: it must be the same class and config) and its
      parameters the start. Adam continues from the saved moments and step count (also the step a
      learning-rate schedule sees), so 100 steps, save, resume, 100 steps equals 200 steps in one go
      to rounding, when the data (same problem and `seed`) are the same; the saved history and
      errors are carried on. A different optimiser (SGD after Adam) starts its own state from the
      saved parameters; with `derivative_mode="auto"` the saved run's mode is kept. L-BFGS restarts
      from the saved parameters: scipy's L-BFGS-B exposes no
      resumable state (its curvature pairs), so a resumed L-BFGS rebuilds its memory. Data that
      callbacks (`RAR`, resampling) changed are not saved: they are drawn afresh from `seed`.
    - Errors are measured every `eval_every` Adam steps, and every `eval_every` L-BFGS iterations
      when `frame.train.lbfgs` takes a `callback` (else only at the end of L-BFGS).

    Bad input (model/problem mismatch, non-finite data, bad counts) raises `ProblemError` before
    any training; a non-finite or diverging loss during training raises `frame.TrainingError`.
    """
    steps, lbfgs_steps = _check_count("steps", steps), _check_count("lbfgs_steps", lbfgs_steps)
    eval_every = max(1, _check_count("eval_every", eval_every))
    if not isinstance(problem, Problem):
        raise ProblemError(f"train needs a pinn problem (Poisson1D, Burgers1D, ...), got {type(problem).__name__}")
    lbfgs_method = problem.lbfgs_method if lbfgs_method is None else lbfgs_method
    if lbfgs_method not in LBFGS_METHODS:
        raise ProblemError(f"lbfgs_method must be one of {', '.join(map(repr, LBFGS_METHODS))}, got {lbfgs_method!r}")
    saved = _load_resume(resume, problem, model)
    if saved is not None:
        model = saved.model
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
                               f"got {cb!r}; a plain cb(step, loss, trainer) goes in step_callbacks=")
        cb.check(problem)
    step_callbacks = list(step_callbacks or ())
    for cb in step_callbacks:
        if not callable(cb) or isinstance(cb, Callback):
            raise ProblemError(f"step_callbacks must be callables cb(step, loss, trainer) (pinn's own callbacks go "
                               f"in callbacks=), got {cb!r}")
    shard = None
    if client is not None:
        if problem.sharded_arguments is None:
            raise ProblemError(f"{problem.name}: data-parallel training needs the problem's sharded_arguments "
                               "(which training-data arguments the loss averages over)")
        if callbacks:
            raise ProblemError("callbacks change the training data between chunks; they are not supported with client=")
        shard = problem.sharded_arguments
    # RAR and resampling change the residual points' count: symbolic on that axis, one compile for
    # every count (a symbolic step costs ~1.3x a concrete one, so plain runs stay concrete)
    dynamic = {i: 0 for i in (problem.sharded_arguments or (0,))} if callbacks else None
    started = time.perf_counter()
    data = tuple(problem.training_data(seed))
    if loss_weights is not None:
        if not hasattr(problem, "with_weights"):
            raise ProblemError(f"{problem.name}: loss_weights needs a pinn.PDE problem")
        data = problem.with_weights(data, loss_weights)
    _check_data(problem, data)
    timings = {"data": time.perf_counter() - started}
    if saved is not None and derivative_mode == derivative_modes.AUTO and isinstance(saved.derivative_mode, dict) \
            and saved.derivative_mode.get("mode") in problem.derivative_modes:
        # a resumed run keeps the saved run's mode: the same residual graph continues the same trajectory
        # (a fresh "auto" measurement could pick the other mode under another machine load)
        derivative_mode = saved.derivative_mode["mode"]
    choice = derivative_modes.choose(problem, model.apply, model.params, problem.residual_points(data),
                                     derivative_mode)
    loss_fn = problem.loss(model.apply, mode=choice.mode)
    errors: list[tuple[int, float]] = list(saved.errors) if saved is not None else []
    phases: list[tuple[str, int]] = list(saved.phases) if saved is not None else []
    metrics: list[tuple[int, dict]] = []
    start = time.perf_counter()
    trainer = Trainer(loss_fn, problem.initial_params(model) if saved is None else saved.params, opt,
                      progress=progress, desc=f"{problem.name} {type(opt).__name__}",
                      divergence_factor=divergence_factor, client=client, shard=shard, dynamic_axes=dynamic)
    resumed_at = 0
    if saved is not None:
        resumed_at = len(saved.history)
        if saved.optimizer_config.get("type") == type(opt).__name__ and len(saved.opt_state) == len(trainer.opt_state):
            trainer.load(saved.path)   # params, Adam moments and step count, history, metrics
        else:                          # another optimiser: its own fresh state, from the saved parameters
            trainer.history = list(saved.history)
            trainer.metrics = list(saved.metrics)
    # errors are keyed by position in the (cumulative) history: step s = the s-th recorded loss
    offset = len(trainer.history) - trainer.step_count

    def error_at(params) -> float:
        return problem.relative_l2_error(model.apply, problem.network_params(params))

    def measure(step, loss, trainer_):   # a Trainer.run callback, every eval_every steps (its period)
        error = error_at(trainer_.params)
        errors.append((step + offset, error))
        return {"rel_l2": error}

    measure.period = eval_every
    run_options = dict(checkpoint=checkpoint, checkpoint_every=checkpoint_every)
    if callbacks:
        ctx = TrainingContext(problem, model, trainer, data, choice.mode, as_rng_for(seed))
        run_with_callbacks(ctx, steps, callbacks, measure=measure, extra=step_callbacks, **run_options)
        data = ctx.data
    else:
        trainer.run(itertools.repeat(data), steps, callbacks=[measure, *step_callbacks], **run_options)
    params, history = trainer.params, list(trainer.history)
    metrics = list(trainer.metrics)
    timings["adam"] = time.perf_counter() - start
    add_phase(phases, "adam", len(history) - resumed_at)
    adam_end = len(history)

    nit, nfev, message = 0, 0, ""
    timings["lbfgs"] = 0.0
    if lbfgs_steps:
        start = time.perf_counter()

        # errors measured during L-BFGS too: iteration i is history entry adam_end + i (its loss after it)
        def lbfgs_measure(iteration, params):
            error = error_at(params)
            errors.append((adam_end + iteration, error))
            record = {"rel_l2": error}
            metrics.append((adam_end + iteration, record))
            return record
        result = lbfgs(loss_fn, params, *data, maxiter=lbfgs_steps, tol=lbfgs_tol, progress=progress,
                       desc=f"{problem.name} L-BFGS", client=client, shard=shard, dynamic_axes=dynamic,
                       callback=lbfgs_measure, every=eval_every, options=lbfgs_options, dtype=lbfgs_dtype,
                       method=lbfgs_method)
        timings["lbfgs"] = time.perf_counter() - start
        # history[0] of L-BFGS is the loss at its start, i.e. at the parameters Adam ended with.
        params, nit, nfev, message = result.params, result.nit, result.nfev, result.message
        history += result.history[1:]
        add_phase(phases, "lbfgs", len(result.history) - 1)
    errors.append((len(history), error_at(params)))
    timings["total"] = time.perf_counter() - started
    return PINNResult(problem=problem, model=model, params=params, history=history, adam_steps=adam_end,
                      errors=errors, lbfgs_iterations=nit, lbfgs_evaluations=nfev, lbfgs_message=message,
                      timings=timings, data=data,
                      derivative_mode=choice, callbacks=callbacks, phases=phases, opt_state=trainer.opt_state,
                      optimizer_config=opt.config(), step_count=trainer.step_count, metrics=metrics, seed=seed,
                      dtype=problem.dtype, resumed_at=resumed_at)


def _load_resume(resume, problem: Problem, model):
    """The `SavedPINN` to resume from (None without `resume`); `ProblemError` if it does not fit."""
    if resume is None:
        return None
    from .persistence import SavedPINN, load

    saved = resume if isinstance(resume, SavedPINN) else load(resume, model=model)
    if saved.problem_name is not None and saved.problem_name != problem.name:
        raise ProblemError(f"resume: {saved.path!r} was trained on {saved.problem_name!r}, not on {problem.name!r}")
    if model is not None and model is not saved.model:
        from .persistence import same_network
        if not same_network(model, saved.model):
            raise ProblemError(f"resume: {saved.path!r} holds {saved.model!r}, but model= is {model!r}")
        model.params = saved.network_params
        saved.model = model
    return saved
