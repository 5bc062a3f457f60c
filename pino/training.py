"""Training neural operators: losses, minibatch runs on `frame.train.Trainer.run`, evaluation, saved models.

`train_poisson_physics` trains from the spectral physics residual alone (no solution data);
`train_operator` trains on input/output pairs with the relative-L2 data loss of the FNO paper,
optionally plus a physics term. Both return an `OperatorResult` (a `workbench.Result`: loss
history, test relative L2 errors measured during training, timings, Adam state) with the test
predictions; `resume=` continues a saved run exactly, `lbfgs_steps=` polishes with full-batch
L-BFGS after Adam. `save` / `load` keep trained operators (`FNO1d`, `FNO`, `FNO2d`, `FNO3d`, and
`Normalized` around any of them) in frame's safe checkpoint format (`workbench.persistence`).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

import frame
import frame.numpy as fnp
from frame.errors import CheckpointError, FrameError
from frame.train import DEFAULT_DIVERGENCE_FACTOR, Adam, Trainer, lbfgs
from workbench import persistence as wb
from workbench.result import Result, add_phase

from .models import FNO, FNO1d, FNO2d, FNO3d
from .problems import OperatorData, PeriodicPoisson1D


# -- losses and metrics --------------------------------------------------------------------------
def relative_l2(pred, true) -> float:
    """Mean over samples of `||pred - true|| / ||true||`, norms over all axes but the first (numpy)."""
    pred, true = np.asarray(pred, np.float64), np.asarray(true, np.float64)
    if pred.shape != true.shape:
        raise ValueError(f"relative_l2: shapes differ, {pred.shape} vs {true.shape}")
    axes = tuple(range(1, pred.ndim))
    return float(np.mean(np.sqrt(np.sum((pred - true) ** 2, axis=axes)) / np.sqrt(np.sum(true ** 2, axis=axes))))


def relative_l2_loss(pred, true):
    """The FNO paper's data loss over `frame.numpy`: batch mean of per-sample `||pred - true|| / ||true||`."""
    axes = tuple(range(1, len(pred.shape)))
    diff = pred - true
    return fnp.mean(fnp.sqrt(fnp.sum(diff * diff, axis=axes) / fnp.sum(true * true, axis=axes)))


def cosine_schedule(lr: float, steps: int, final_fraction: float = 0.01) -> Callable[[int], float]:
    """`step -> lr` decaying from `lr` to `lr * final_fraction` along a half cosine over `steps`."""
    def schedule(step: int) -> float:
        t = min(step, steps) / max(steps, 1)
        return lr * (final_fraction + (1 - final_fraction) * 0.5 * (1 + math.cos(math.pi * t)))
    return schedule


class Normalized:
    """`model` between a pointwise Gaussian normaliser of its inputs and a decoder of its outputs (the FNO code's
    UnitGaussianNormalizer): `apply(params, x) = model.apply(params, (x - x_mean) / x_std) * y_std + y_mean`.

    The statistics are per grid point and channel over the training samples (`from_data`), constants of
    the graph, not parameters; `init`, `num_parameters` and `n_modes` are the wrapped model's.
    """

    def __init__(self, model, x_mean, x_std, y_mean, y_std, eps: float = 1e-5):
        self.model = model
        self.x_mean, self.y_mean = np.asarray(x_mean, np.float64), np.asarray(y_mean, np.float64)
        self.x_scale = 1.0 / (np.asarray(x_std, np.float64) + eps)
        self.y_std = np.asarray(y_std, np.float64) + eps
        if hasattr(model, "n_modes"):
            self.n_modes = model.n_modes

    @classmethod
    def from_data(cls, model, inputs: np.ndarray, outputs: np.ndarray, eps: float = 1e-5) -> "Normalized":
        """Statistics over axis 0 of channel-first `inputs [num, c_in, *grid]` and `outputs [num, c_out, *grid]`."""
        inputs, outputs = np.asarray(inputs, np.float64), np.asarray(outputs, np.float64)
        return cls(model, inputs.mean(0, keepdims=True), inputs.std(0, keepdims=True),
                   outputs.mean(0, keepdims=True), outputs.std(0, keepdims=True), eps)

    @classmethod
    def from_state(cls, model, x_mean, x_scale, y_mean, y_std) -> "Normalized":
        """The normaliser with exactly these stored statistics (`x_scale` = 1 / (x_std + eps), `y_std` with its
        eps added), as `pino.load` rebuilds a saved one: the same arrays, so the same predictions bit for bit."""
        self = cls.__new__(cls)
        self.model = model
        self.x_mean, self.x_scale = np.asarray(x_mean, np.float64), np.asarray(x_scale, np.float64)
        self.y_mean, self.y_std = np.asarray(y_mean, np.float64), np.asarray(y_std, np.float64)
        if hasattr(model, "n_modes"):
            self.n_modes = model.n_modes
        return self

    def __repr__(self):
        return f"Normalized({self.model!r})"

    def init(self, seed=0, dtype="float32"):
        return self.model.init(seed, dtype)

    def num_parameters(self) -> int:
        return self.model.num_parameters()

    def apply(self, params, x):
        dtype = np.dtype(x.dtype)
        h = (x - self.x_mean.astype(dtype)) * self.x_scale.astype(dtype)
        return self.model.apply(params, h) * self.y_std.astype(dtype) + self.y_mean.astype(dtype)


# -- results -------------------------------------------------------------------------------------
@dataclass(kw_only=True)
class OperatorResult(Result):
    """What `train_operator` and `train_poisson_physics` return: a `workbench.Result` plus the test predictions.

    `errors` are `(step, test relative L2)` pairs (fractions) measured every `eval_every` steps and
    at the end; `test_error` is the last of them (the final error); `seconds` the training wall
    time (Adam + L-BFGS, compilation included); `predictions` the model on the test inputs (in the
    layout of `test.outputs`); `extra` problem data (`train_poisson_physics`: `{"test": OperatorData}`);
    `schedule` the Adam learning-rate schedule (`{"lr", "steps", "final_fraction"}` of
    `cosine_schedule`), which a resumed run continues.
    """

    predictions: np.ndarray | None = None
    extra: dict = field(default_factory=dict)
    schedule: dict = field(default_factory=dict)

    @property
    def test_error(self) -> float:
        """The final test relative L2 error (a fraction): `relative_l2_error`."""
        return self.relative_l2_error

    @property
    def seconds(self) -> float:
        """Training wall time in seconds (Adam + L-BFGS, compilation included): `wall_time`."""
        return self.wall_time

    def predict(self, inputs, batch_size: int = 100) -> np.ndarray:
        """The trained operator on channel-first `inputs [num, c_in, *grid]` (compiled once, in chunks)."""
        return predict(self.model, self.params, np.asarray(inputs, dtype=self.dtype), batch_size,
                       apply=_compiled_apply(self))

    def save(self, path) -> str:
        """Save the trained operator to `path` (`pino.save`); returns the path."""
        return save(self, path)

    def save_extra(self) -> dict:
        return {"schedule": dict(self.schedule)}


#: the earlier name of `OperatorResult`
TrainResult = OperatorResult


# -- saved operators -----------------------------------------------------------------------------
def _array_config(a: np.ndarray) -> dict:
    # JSON floats are written with repr, so a float64 array round-trips bit for bit
    a = np.asarray(a, dtype=np.float64)
    return {"shape": list(a.shape), "values": a.reshape(-1).tolist()}


def _config_array(config, name: str) -> np.ndarray:
    if not (isinstance(config, dict) and isinstance(config.get("shape"), list)
            and isinstance(config.get("values"), list)
            and all(isinstance(v, (int, float)) for v in config["values"])
            and all(isinstance(d, int) and d >= 0 for d in config["shape"])
            and math.prod(config["shape"]) == len(config["values"])):
        raise ValueError(f"Normalized config {name} is not a {{shape, values}} array")
    return np.asarray(config["values"], dtype=np.float64).reshape(config["shape"])


def _fno_options(model: FNO) -> dict:
    return {"lifting_channels": model.lifting_channels, "projection_channels": model.projection_channels,
            "positional_embedding": model.positional_embedding,
            "domain_padding": None if model.domain_padding is None else list(model.domain_padding),
            "padding_mode": model.padding_mode, "use_channel_mlp": model.use_channel_mlp,
            # FNO keeps round(width * expansion); this expansion gives the same count back
            "channel_mlp_expansion": model.mlp_channels / model.width,
            "channel_mlp_skip": model.channel_mlp_skip, "fno_skip": model.fno_skip, "transform": model.transform}


def _fno_config(model: FNO) -> dict:
    config = {"n_modes": list(model.n_modes), "width": model.width, "layers": model.layers,
              "in_channels": model.in_channels, "out_channels": model.out_channels, **_fno_options(model)}
    if type(model) is FNO:
        config["dims"] = model.dims
    return config


def _fno1d_config(model: FNO1d) -> dict:
    if model.structure == "neuralop":
        options = _fno_options(model._nd)
        options.pop("projection_channels")
        return {"structure": "neuralop", "modes": model.modes, "width": model.width, "layers": model.layers,
                "in_channels": model.in_channels, "out_channels": model.out_channels,
                "projection": model.projection, **options}
    return {"modes": model.modes, "width": model.width, "layers": model.layers, "in_channels": model.in_channels,
            "out_channels": model.out_channels, "projection": model.projection, "transform": model.transform}


def _normalized_config(model: "Normalized") -> dict:
    inner = model.model
    return {"model": wb.model_name(inner), "config": wb.model_config(inner),
            "x_mean": _array_config(model.x_mean), "x_scale": _array_config(model.x_scale),
            "y_mean": _array_config(model.y_mean), "y_std": _array_config(model.y_std)}


def _build_normalized(config: dict) -> "Normalized":
    if wb.MODELS.get(config.get("model")) is None or config["model"] == "Normalized":
        raise ValueError(f"Normalized wraps a registered operator, not {config.get('model')!r}")
    inner = wb.build_model(config["model"], config.get("config"))
    return Normalized.from_state(inner, *(_config_array(config.get(k), k)
                                          for k in ("x_mean", "x_scale", "y_mean", "y_std")))


class SavedOperator(wb.Saved):
    """What `pino.load` returns: a `workbench.persistence.Saved` whose `predict(inputs)` runs the saved
    operator compiled, in chunks (as `pino.predict`), on channel-first inputs `[num, c_in, *grid]`."""

    @property
    def schedule(self) -> dict:
        """The Adam learning-rate schedule of the saved run (`{"lr", "steps", "final_fraction"}`; empty if none)."""
        schedule = self.extra.get("schedule") or {}
        return dict(schedule) if isinstance(schedule, dict) else {}

    def predict(self, inputs, batch_size: int = 100) -> np.ndarray:
        """The saved operator on channel-first `inputs [num, c_in, *grid]` (compiled once, in chunks)."""
        return predict(self.model, self.params, np.asarray(inputs, dtype=self.dtype or "float32"), batch_size,
                       apply=_compiled_apply(self))


def _compiled_apply(holder):
    """`frame.function(holder.model.apply)`, made once per result / saved model (so repeated predictions reuse
    its compiled graphs) and kept in the holder's `__dict__` (not a dataclass field)."""
    apply = holder.__dict__.get("_compiled_apply")
    if apply is None or apply[0] is not holder.model:
        apply = (holder.model, frame.function(holder.model.apply))
        holder.__dict__["_compiled_apply"] = apply
    return apply[1]


def _register_models() -> None:
    for name, cls, config_fn in (("FNO1d", FNO1d, _fno1d_config), ("FNO", FNO, _fno_config),
                                 ("FNO2d", FNO2d, _fno_config), ("FNO3d", FNO3d, _fno_config)):
        wb.register_model(name, cls, config_fn, saved_type=SavedOperator)
    wb.register_model("Normalized", Normalized, _normalized_config, _build_normalized, saved_type=SavedOperator)


def save(result: OperatorResult, path) -> str:
    """Save a trained operator (an `OperatorResult`) to `path` in frame's safe checkpoint format; returns the path.

    The file holds the parameters, Adam's state and step count, the loss history and the errors,
    and the model's class (`FNO1d`, `FNO`, `FNO2d`, `FNO3d`, `Normalized`) and config, so `load`
    rebuilds it without running anything named in the file. A model of another class is a
    `CheckpointError`.
    """
    if not isinstance(result, Result):
        raise CheckpointError(f"pino.save: needs the result of train_operator / train_poisson_physics, "
                              f"got {type(result).__name__}")
    return wb.save(result, path)


def load(path, *, model=None) -> SavedOperator:
    """Load an operator saved by `save`: a `SavedOperator` (`model`, `params`, `predict(inputs)`, `history`,
    `errors`, `opt_state`, ...) that `train_operator(..., resume=)` continues. `model=` uses that model
    (it must be the same class and config). Anything wrong with the file is a `CheckpointError`."""
    saved = wb.load(path, model=model)
    if not isinstance(saved, SavedOperator):
        raise CheckpointError(f"cannot read checkpoint {saved.path!r}: it holds a {saved.model_name}, not a pino "
                              "operator (FNO1d, FNO, FNO2d, FNO3d, Normalized)")
    return saved


# -- loops ---------------------------------------------------------------------------------------
def minibatch_indices(num: int, batch_size: int, steps: int, seed=0):
    """`steps` index arrays of exactly `batch_size` items, reshuffled every epoch (a constant shape never
    recompiles)."""
    if not 1 <= batch_size <= num:
        raise ValueError(f"batch_size must be in [1, {num}] for {num} samples, got {batch_size}")
    rng = np.random.default_rng(seed)
    per_epoch = num // batch_size
    order, position = rng.permutation(num), 0
    for _ in range(steps):
        if position == per_epoch:
            order, position = rng.permutation(num), 0
        yield order[position * batch_size:(position + 1) * batch_size]
        position += 1


def predict(model, params, inputs: np.ndarray, batch_size: int = 100, *, apply=None) -> np.ndarray:
    """`model.apply(params, inputs)` compiled with `frame.function`, in chunks of `batch_size` (the last may be
    smaller).

    `apply`: an already compiled `frame.function(model.apply)` to reuse (its compiled graphs are kept)."""
    apply = frame.function(model.apply) if apply is None else apply
    outs = [apply(params, inputs[i:i + batch_size]) for i in range(0, len(inputs), batch_size)]
    return np.concatenate(outs, axis=0)


def _check_count(name: str, n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise FrameError(f"pino training: {name} must be a non-negative int, got {n!r}")
    return int(n)


def _resume_from(resume, model, dtype: str):
    """The `SavedOperator` to continue (None without `resume`); `FrameError` if it does not fit `model`/`dtype`."""
    if resume is None:
        return None
    saved = resume if isinstance(resume, wb.Saved) else load(resume)
    if not wb.same_model(model, saved.model):
        raise FrameError(f"resume: {saved.path!r} holds {saved.model!r}, but the model is {model!r}")
    if saved.dtype is not None and saved.dtype != np.dtype(dtype).name:
        raise FrameError(f"resume: {saved.path!r} was trained in {saved.dtype}, not {dtype}")
    return saved


def _checked_init_params(given, fresh):
    """`given` as `fresh`'s structure, shapes and dtypes (copied), or a `FrameError` naming what differs."""
    given_leaves, given_tree = frame.tree_flatten(given)
    fresh_leaves, fresh_tree = frame.tree_flatten(fresh)
    if given_tree != fresh_tree:
        raise FrameError(f"init_params: their structure {given_tree} is not the model's {fresh_tree}")
    out = []
    for i, (g, f) in enumerate(zip(given_leaves, fresh_leaves)):
        g = np.asarray(g)
        if g.shape != f.shape or g.dtype != f.dtype:
            raise FrameError(f"init_params: leaf {i} is {g.dtype}{list(g.shape)}, "
                             f"the model's is {f.dtype}{list(f.shape)}")
        out.append(g.copy())
    return frame.tree_unflatten(fresh_tree, out)


def _run(model, loss_fn, *, problem_name, batches_for, full_batch, test_inputs, test_outputs, predict_shape, steps,
         lr, dtype, seed, progress, desc, divergence_factor, client, shard, resume, eval_every, schedule_steps,
         lbfgs_steps, lbfgs_tol, step_callbacks, timings, init_params=None) -> OperatorResult:
    """The common loop: Adam on minibatches through `Trainer.run` (errors every `eval_every` steps),
    then optional full-batch L-BFGS, then the test predictions."""
    steps, lbfgs_steps = _check_count("steps", steps), _check_count("lbfgs_steps", lbfgs_steps)
    saved = _resume_from(resume, model, dtype)
    start_step = saved.step_count if saved is not None else 0
    if saved is not None:
        if problem_name is not None and saved.problem_name is not None and problem_name != saved.problem_name:
            raise FrameError(f"resume: {saved.path!r} was trained on {saved.problem_name!r}, not on {problem_name!r}")
        problem_name = problem_name or saved.problem_name
    # The cosine schedule spans `schedule_steps` (default: this run's steps); a resumed run continues the
    # saved schedule, extended to end at its own last step if it would end before.
    if schedule_steps is None:
        schedule_steps = start_step + steps
        if saved is not None and saved.schedule.get("steps") is not None:
            schedule_steps = max(int(saved.schedule["steps"]), start_step + steps)
    schedule_steps = _check_count("schedule_steps", schedule_steps)
    schedule = {"lr": float(lr), "steps": schedule_steps, "final_fraction": 0.01}
    apply = frame.function(model.apply)
    errors = list(saved.errors) if saved is not None else []
    phases = list(saved.phases) if saved is not None else []

    def error_at(params) -> float:
        pred = predict(model, params, test_inputs, apply=apply).reshape(predict_shape)
        return relative_l2(pred, test_outputs)

    started = time.perf_counter()
    if saved is not None:
        start_params = saved.params
    elif init_params is not None:
        start_params = _checked_init_params(init_params, model.init(seed, dtype))
    else:
        start_params = model.init(seed, dtype)
    trainer = Trainer(loss_fn, start_params,
                      Adam(cosine_schedule(lr, schedule_steps, schedule["final_fraction"])), progress=progress,
                      desc=desc, divergence_factor=divergence_factor, client=client,
                      shard=shard if client is not None else None)
    if saved is not None:
        if saved.optimizer_config.get("type") != "Adam" or len(saved.opt_state) != len(trainer.opt_state):
            raise FrameError(f"resume: {saved.path!r} holds {saved.optimizer_config.get('type')} state, not Adam's "
                             "for this model")
        trainer.load(saved.path)   # params, Adam moments, step count, history, metrics
    offset = len(trainer.history) - trainer.step_count
    every = eval_every if eval_every is not None else max(1, steps // 10)
    every = max(1, _check_count("eval_every", every))

    timings["eval"] = 0.0

    def measure(step, loss, trainer_):
        began = time.perf_counter()
        error = error_at(trainer_.params)
        errors.append((step + offset, error))
        timings["eval"] += time.perf_counter() - began   # kept out of the Adam time: it is not training
        return {"rel_l2": error}

    measure.period = every
    before = len(trainer.history)
    trainer.run(batches_for(start_step + steps), steps, callbacks=[measure, *step_callbacks],
                start_step=start_step)
    timings["adam"] = time.perf_counter() - started - timings["eval"]
    add_phase(phases, "adam", len(trainer.history) - before)
    params, history, metrics = trainer.params, list(trainer.history), list(trainer.metrics)
    timings["lbfgs"] = 0.0
    if lbfgs_steps:
        began, adam_end, eval_before = time.perf_counter(), len(history), timings["eval"]

        def lbfgs_measure(iteration, params_):
            began = time.perf_counter()
            error = error_at(params_)
            timings["eval"] += time.perf_counter() - began
            errors.append((adam_end + iteration, error))
            metrics.append((adam_end + iteration, {"rel_l2": error}))
            return {"rel_l2": error}

        result = lbfgs(loss_fn, params, *full_batch, maxiter=lbfgs_steps, tol=lbfgs_tol, progress=progress,
                       desc=f"{desc} L-BFGS" if desc else "L-BFGS", client=client,
                       shard=shard if client is not None else None, callback=lbfgs_measure, every=every)
        params = result.params
        history += result.history[1:]   # its first entry is the loss Adam ended at
        add_phase(phases, "lbfgs", len(result.history) - 1)
        timings["lbfgs"] = time.perf_counter() - began - (timings["eval"] - eval_before)
    pred = predict(model, params, test_inputs, apply=apply).reshape(predict_shape)
    errors.append((len(history), relative_l2(pred, test_outputs)))
    timings["total"] = timings.get("data", 0.0) + time.perf_counter() - started
    return OperatorResult(problem_name=problem_name, model=model, params=params, history=history, phases=phases,
                          errors=errors, metrics=metrics, timings=timings, opt_state=trainer.opt_state,
                          optimizer_config=trainer.optimizer.config(), step_count=trainer.step_count, seed=seed,
                          dtype=np.dtype(dtype).name, predictions=pred, schedule=schedule)


def train_poisson_physics(model, problem: PeriodicPoisson1D | None = None, *, num_train: int = 256,
                          num_test: int = 64, steps: int = 1000, batch_size: int = 32, lr: float = 3e-3,
                          dtype: str = "float32", seed: int = 0, progress: bool = True,
                          divergence_factor: float | None = DEFAULT_DIVERGENCE_FACTOR, client=None, resume=None,
                          eval_every: int | None = None, schedule_steps: int | None = None, lbfgs_steps: int = 0,
                          lbfgs_tol: float = 1e-12, step_callbacks=()) -> OperatorResult:
    """Train `model` (in/out channels 1) on `f -> u` for `-u'' + u = f` from the spectral residual alone.

    The loss never sees a solution: it is `mean((-u'' + u - f)^2) / mean(f^2)` with `u = model(f)`
    and `u''` by rfft / `-k^2` / irfft (ARCH-067). The test error compares with the exact solution.
    A loss above the first by `divergence_factor` x |first| stops training with `frame.TrainingError`
    (None: no divergence guard), as does a NaN/Inf loss. `client`: a `dask.distributed.Client` for
    data-parallel training, each batch split across the workers (at least one row per worker).
    `resume`, `eval_every`, `schedule_steps`, `lbfgs_steps`, `step_callbacks`: as `train_operator`'s.
    """
    problem = problem or PeriodicPoisson1D()
    began = time.perf_counter()
    train_f = problem.forcing(num_train, seed=seed)[:, None, :].astype(dtype)
    test = problem.sample(num_test, seed=seed + 1)
    scale = float(np.mean(train_f.astype(np.float64) ** 2))
    timings = {"data": time.perf_counter() - began}

    def loss_fn(params, f):
        u = model.apply(params, f)
        return problem.physics_loss(u, f, scale)

    def batches_for(total):
        return ((train_f[idx],) for idx in minibatch_indices(num_train, batch_size, total, seed))

    result = _run(model, loss_fn, problem_name=getattr(problem, "name", "periodic-poisson1d"),
                  batches_for=batches_for, full_batch=(train_f,),
                  test_inputs=test.inputs[:, None, :].astype(dtype), test_outputs=test.outputs,
                  predict_shape=test.outputs.shape, steps=steps, lr=lr, dtype=dtype, seed=seed, progress=progress,
                  desc="PINO periodic-poisson1d (physics only)", divergence_factor=divergence_factor, client=client,
                  shard=(0,), resume=resume, eval_every=eval_every, schedule_steps=schedule_steps,
                  lbfgs_steps=lbfgs_steps, lbfgs_tol=lbfgs_tol, step_callbacks=list(step_callbacks), timings=timings)
    result.extra["test"] = test
    return result


def train_operator(model, train: OperatorData, test: OperatorData, *, steps: int = 1000, batch_size: int = 20,
                   lr: float = 1e-3, dtype: str = "float32", seed: int = 0, progress: bool = True,
                   physics: Callable | None = None, physics_weight: float = 0.0,
                   desc: str = "FNO (data loss)",
                   divergence_factor: float | None = DEFAULT_DIVERGENCE_FACTOR, client=None, resume=None,
                   eval_every: int | None = None, schedule_steps: int | None = None, lbfgs_steps: int = 0,
                   lbfgs_tol: float = 1e-12, step_callbacks=(), problem_name: str | None = None,
                   init_params=None) -> OperatorResult:
    """Train `model` on pairs `train.inputs -> train.outputs` with the relative-L2 data loss.

    `train`, `test`: `OperatorData` (1-D, no channel axis) or `pino.datasets.FieldData` (channel-first,
    any grid); the predictions come back in the layout of `test.outputs`.

    `physics(u_pred, a) -> scalar`, when given with `physics_weight > 0`, is added to the loss
    (its gradient comes from the same backward transform). Adam with a cosine learning-rate decay
    over `schedule_steps` (default `steps`) on minibatches of `batch_size`, through
    `frame.train.Trainer.run`; `step_callbacks` are passed to it (`cb(step, loss, trainer)`, as
    `pinn.train`'s; `frame.train.StopTraining` ends Adam early).
    `divergence_factor` is the divergence guard of `frame.train.Trainer` (None turns it off).
    `client`: a `dask.distributed.Client` for data-parallel training, each batch's inputs and outputs
    split across the workers (the data loss is a batch mean, so this equals one process to rounding;
    a physics term must be a batch mean too).

    - `eval_every`: the test relative L2 error is measured every `eval_every` Adam steps (default:
      ten times a run) and at the end, into the result's `errors` and `metrics`.
    - `resume`: a path saved by `pino.save` (or a `pino.load` result) of the same model: training
      continues from its parameters, Adam moments and step count, with the same minibatch order
      (given the same data, `seed` and `batch_size`) and learning-rate schedule, so 50 steps, save,
      resume 50 steps equals 100 steps in one go (bit for bit on one machine) when the first run
      was told `schedule_steps=100`. A saved run of another `problem_name` is refused. Without it a
      resumed run continues the saved schedule, extended to end at its own last step.
    - `lbfgs_steps`: after Adam, that many iterations of full-batch L-BFGS (`frame.train.lbfgs`,
      tolerance `lbfgs_tol`) on the whole training set, errors measured every `eval_every`
      iterations.
    - `init_params`: start from these parameters (the structure, shapes and dtypes of
      `model.init`'s) instead of a fresh initialisation, with a fresh Adam and schedule: fine-tuning
      weights trained another way, e.g. a block model trained on true windows, then through its own
      rollout. Not with `resume`, which carries its own parameters.
    """
    if init_params is not None and resume is not None:
        raise FrameError("train_operator: give init_params or resume, not both (a resumed run has its own parameters)")
    began = time.perf_counter()
    x_train, y_train = train.channels(dtype)
    x_test, _ = test.channels(dtype)
    timings = {"data": time.perf_counter() - began}

    def loss_fn(params, a, u):
        pred = model.apply(params, a)
        loss = relative_l2_loss(pred, u)
        if physics is not None and physics_weight > 0:
            loss = loss + physics_weight * physics(pred, a)
        return loss

    def batches_for(total):
        return ((x_train[idx], y_train[idx]) for idx in minibatch_indices(len(train), batch_size, total, seed))

    # OperatorData's outputs have no channel axis ([num, n]); FieldData's are channel-first like the model's.
    return _run(model, loss_fn, problem_name=problem_name, batches_for=batches_for, full_batch=(x_train, y_train),
                test_inputs=x_test, test_outputs=test.outputs, predict_shape=test.outputs.shape, steps=steps, lr=lr,
                dtype=dtype, seed=seed, progress=progress, desc=desc, divergence_factor=divergence_factor,
                client=client, shard=(0, 1), resume=resume, eval_every=eval_every, schedule_steps=schedule_steps,
                lbfgs_steps=lbfgs_steps, lbfgs_tol=lbfgs_tol, step_callbacks=list(step_callbacks), timings=timings,
                init_params=init_params)


_register_models()
