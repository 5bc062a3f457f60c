"""Training helpers for neural operators: losses, minibatch loops on `frame.train.Trainer`, evaluation.

`train_poisson_physics` trains from the spectral physics residual alone (no solution data);
`train_operator` trains on input/output pairs with the relative-L2 data loss of the FNO paper,
optionally plus a physics term. Both return a `TrainResult` with the test relative L2 error.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

import frame
import frame.numpy as fnp
from frame.train import DEFAULT_DIVERGENCE_FACTOR, Adam, Trainer

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


# -- loops ---------------------------------------------------------------------------------------
@dataclass
class TrainResult:
    """Trained `params`, loss `history`, test relative L2 error, wall-clock `seconds`, test predictions."""

    params: object
    history: list[float]
    test_error: float
    seconds: float
    predictions: np.ndarray | None = None
    extra: dict = field(default_factory=dict)


def minibatch_indices(num: int, batch_size: int, steps: int, seed=0):
    """`steps` index arrays of exactly `batch_size` items, reshuffled every epoch (a constant shape never recompiles)."""
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


def fit(trainer: Trainer, batches, steps: int, *, progress: bool = True, desc: str | None = None) -> list[float]:
    """Run `trainer.step(*batch)` for `steps` batches from the iterable `batches`, with a progress bar."""
    from tqdm.auto import tqdm

    losses = []
    with tqdm(total=steps, desc=desc, disable=not progress, leave=True) as bar:
        for _, batch in zip(range(steps), batches):
            losses.append(trainer.step(*batch))
            if not bar.disable:
                bar.set_postfix(loss=f"{losses[-1]:.4e}", refresh=False)
                bar.update(1)
    return losses


def predict(model, params, inputs: np.ndarray, batch_size: int = 100) -> np.ndarray:
    """`model.apply(params, inputs)` compiled with `frame.function`, in chunks of `batch_size` (the last may be smaller)."""
    apply = frame.function(model.apply)
    outs = [apply(params, inputs[i:i + batch_size]) for i in range(0, len(inputs), batch_size)]
    return np.concatenate(outs, axis=0)


def train_poisson_physics(model, problem: PeriodicPoisson1D | None = None, *, num_train: int = 256,
                          num_test: int = 64, steps: int = 1000, batch_size: int = 32, lr: float = 3e-3,
                          dtype: str = "float32", seed: int = 0, progress: bool = True,
                          divergence_factor: float | None = DEFAULT_DIVERGENCE_FACTOR, client=None) -> TrainResult:
    """Train `model` (in/out channels 1) on `f -> u` for `-u'' + u = f` from the spectral residual alone.

    The loss never sees a solution: it is `mean((-u'' + u - f)^2) / mean(f^2)` with `u = model(f)`
    and `u''` by rfft / `-k^2` / irfft (ARCH-067). The test error compares with the exact solution.
    A loss above the first by `divergence_factor` x |first| stops training with `frame.TrainingError`
    (None: no divergence guard), as does a NaN/Inf loss. `client`: a `dask.distributed.Client` for
    data-parallel training, each batch split across the workers (at least one row per worker).
    """
    problem = problem or PeriodicPoisson1D()
    train_f = problem.forcing(num_train, seed=seed)[:, None, :].astype(dtype)
    test = problem.sample(num_test, seed=seed + 1)
    scale = float(np.mean(train_f.astype(np.float64) ** 2))

    def loss_fn(params, f):
        u = model.apply(params, f)
        return problem.physics_loss(u, f, scale)

    start = time.perf_counter()
    trainer = Trainer(loss_fn, model.init(seed, dtype), Adam(cosine_schedule(lr, steps)), progress=False,
                      divergence_factor=divergence_factor, client=client, shard=(0,) if client is not None else None)
    batches = ((train_f[idx],) for idx in minibatch_indices(num_train, batch_size, steps, seed))
    fit(trainer, batches, steps, progress=progress, desc="PINO periodic-poisson1d (physics only)")
    seconds = time.perf_counter() - start
    pred = predict(model, trainer.params, test.inputs[:, None, :].astype(dtype))[:, 0, :]
    return TrainResult(trainer.params, trainer.history, relative_l2(pred, test.outputs), seconds, pred,
                       {"test": test})


def train_operator(model, train: OperatorData, test: OperatorData, *, steps: int = 1000, batch_size: int = 20,
                   lr: float = 1e-3, dtype: str = "float32", seed: int = 0, progress: bool = True,
                   physics: Callable | None = None, physics_weight: float = 0.0,
                   desc: str = "FNO (data loss)",
                   divergence_factor: float | None = DEFAULT_DIVERGENCE_FACTOR, client=None) -> TrainResult:
    """Train `model` on pairs `train.inputs -> train.outputs` with the relative-L2 data loss.

    `train`, `test`: `OperatorData` (1-D, no channel axis) or `pino.datasets.FieldData` (channel-first,
    any grid); the predictions come back in the layout of `test.outputs`.

    `physics(u_pred, a) -> scalar`, when given with `physics_weight > 0`, is added to the loss
    (its gradient comes from the same backward transform). Adam with a cosine learning-rate decay.
    `divergence_factor` is the divergence guard of `frame.train.Trainer` (None turns it off).
    `client`: a `dask.distributed.Client` for data-parallel training, each batch's inputs and outputs
    split across the workers (the data loss is a batch mean, so this equals one process to rounding;
    a physics term must be a batch mean too).
    """
    x_train, y_train = train.channels(dtype)
    x_test, _ = test.channels(dtype)

    def loss_fn(params, a, u):
        pred = model.apply(params, a)
        loss = relative_l2_loss(pred, u)
        if physics is not None and physics_weight > 0:
            loss = loss + physics_weight * physics(pred, a)
        return loss

    start = time.perf_counter()
    trainer = Trainer(loss_fn, model.init(seed, dtype), Adam(cosine_schedule(lr, steps)), progress=False,
                      divergence_factor=divergence_factor, client=client, shard=(0, 1) if client is not None else None)
    batches = ((x_train[idx], y_train[idx]) for idx in minibatch_indices(len(train), batch_size, steps, seed))
    fit(trainer, batches, steps, progress=progress, desc=desc)
    seconds = time.perf_counter() - start
    # OperatorData's outputs have no channel axis ([num, n]); FieldData's are channel-first like the model's.
    pred = predict(model, trainer.params, x_test).reshape(test.outputs.shape)
    return TrainResult(trainer.params, trainer.history, relative_l2(pred, test.outputs), seconds, pred)
