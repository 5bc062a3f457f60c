"""`Trainer`: the host-driven training loop (ARCH-065).

Each step runs two compiled graphs and rotates arrays on the host:

1. the training graph `[params..., data...] -> [loss, grads...]`, derived once from the traced
   `loss_fn` with `build_backward_graph` (`LossGraph`);
2. the optimiser's update graph `[params..., grads..., state..., (lr)] -> [new_params..., new_state...]`;
3. the host swaps in the new parameters and state.

Both graphs have constant shapes, and data are graph inputs (not constants), so after the first
step no step compiles anything. A non-finite loss, gradient or updated parameter raises
`TrainingError` naming the step, and the parameters keep their last finite values.

Example::

    def loss_fn(params, x, y):
        pred = fnp.tanh(x @ params["w"] + params["b"])
        return fnp.mean((pred - y) ** 2)

    trainer = Trainer(loss_fn, {"w": w0, "b": b0}, Adam(1e-2))
    losses = trainer.run(1000, x, y)                      # full batch: the same data every step
    losses = trainer.run(((x[i], y[i]) for i in index_batches), 1000, callbacks=[cb])   # minibatches
"""
from __future__ import annotations

import itertools
import math
import os
from typing import Callable, Sequence

import numpy as np

from ..errors import CheckpointError, FrameError, InputError, TrainingError
from ..frontend.pytree import tree_flatten, tree_unflatten
from ..ir.types import TensorType
from ..runtime.compile import compile as compile_graph
from .checkpoint import (CHECKPOINT_FORMAT, decode_treedef, encode_treedef, namedtuple_resolver, read_checkpoint,
                         with_type_names, write_checkpoint)
from .guards import DEFAULT_DIVERGENCE_FACTOR, check_divergence_factor, check_finite_data, empty_data, first_nonfinite
from .loss_graph import LossGraph, as_param_leaves, leaf_paths, scalar
from .optimizers import Optimizer, optimizer_from_config

__all__ = ["Trainer", "StopTraining"]


class StopTraining(Exception):
    """Raised (or returned, class or instance) by a `Trainer.run` callback to end the run after the current step.

    Not an error: the step's update is kept and `run` returns the losses so far. (A control-flow
    signal, so not a `FrameError`.)"""


class Trainer:
    """Train `params` (a pytree of float arrays) to minimise `loss_fn(params, *data)` with `optimizer`.

    `loss_fn` is written with `frame.numpy` and returns one scalar. The training graph is built
    with `build_backward_graph` and compiled once per data signature (once for all sizes of the
    `dynamic_axes`, below); the optimiser's update graph
    is compiled once. Attributes: `params` (current pytree), `history` (every loss, in step
    order; the loss of a step is evaluated before its update), `metrics` (list of `(step, dict)`
    that `run`'s callbacks returned), `step_count` (updates done). `run(batches, steps)` takes one
    batch per step from an iterable (minibatches), `run(steps, *data)` the same data every step.

    Guards, each raising before the step's update so params keep their values from the step before:

    - data: a NaN/Inf in a data argument is an `InputError` naming the argument and the index
      (checked whenever new data arrays are passed, once for data passed again);
    - non-finite: a NaN/Inf loss, gradient or updated parameter is a `TrainingError`;
    - divergence: a loss above `L0 + divergence_factor * |L0|`, where L0 is the first loss in
      `history`, is a `TrainingError` naming the step and both losses. The default factor
      `DEFAULT_DIVERGENCE_FACTOR` (1e4) is far above any spike of a healthy run; `None` turns the
      guard off (as does L0 == 0).

    Data-parallel (`frame.distributed`, needs `dask[distributed]`): with `client` (a
    `dask.distributed.Client`) and `shard` (indices of the data arguments split along axis 0), each
    step's loss and gradients are computed by the workers on their shards and summed in shard
    order, weighted by shard size (equal to single-process training to rounding when the loss is a
    mean over the rows of the split arguments). The update runs once, here, so the optimiser state
    and checkpoints are the single-process ones; a shard lost with its worker is recomputed
    elsewhere before the update (`frame.distributed.DataParallel`).

    Symbolic sizes (issue 17 item 2): `dynamic_axes={data argnum: axes}` makes those axes of the
    data arguments symbolic, with `frame.function`'s meaning, so the training graph is traced and
    compiled once for every size of them (a collocation set resampled with a new count every K
    steps compiles once). Keys count the data arguments: key i is data argument i of
    `loss_fn(params, *data)`, i.e. the i-th argument after `params` (key 0 is the first data
    argument; `params` is not counted, and its shapes are always concrete). `axes` is an axis, a
    tuple of axes or a dict `{axis: symbol name}`; axes given by number share the symbol `n<axis>`,
    so `{0: 0, 1: 0}` says data arguments 0 and 1 have the same (any) number of rows. Every array
    leaf of a dynamic argument has those axes symbolic. A step whose arguments disagree on a
    symbol's size raises `InputError`; malformed `dynamic_axes` raise `TraceError`. Without
    `dynamic_axes` nothing changes (one compile per data shape). Not supported with `client=`
    (refused with a `FrameError`).
    """

    def __init__(self, loss_fn: Callable, params, optimizer: Optimizer, *, progress: bool = True,
                 desc: str | None = None, divergence_factor: float | None = DEFAULT_DIVERGENCE_FACTOR,
                 client=None, shard: Sequence[int] | None = None, dynamic_axes=None):
        if not isinstance(optimizer, Optimizer):
            raise FrameError(f"Trainer: optimizer must be a frame.train optimiser (SGD, Adam), "
                             f"got {type(optimizer).__name__}")
        self.loss_fn, self.optimizer = loss_fn, optimizer
        self.progress, self.desc = progress, desc
        self.divergence_factor = check_divergence_factor(divergence_factor)
        self._checked_data: list = []  # the data leaves last checked for NaN/Inf (held, so ids are not reused)
        self._leaves, self._treedef = as_param_leaves(params)
        self._names = [f"parameter {p}" for p in leaf_paths(self._treedef)]
        self._types = [TensorType.of(a) for a in self._leaves]
        self._state = optimizer.init_state(self._leaves)
        self._loss_graph = LossGraph(loss_fn, self._treedef, self._types, dynamic_axes, owner="Trainer")
        self.dynamic_axes = dynamic_axes
        self._update_exe = compile_graph(optimizer.update_graph(self._types))
        self._parallel = None
        if client is not None or shard is not None:
            if client is None:
                raise FrameError(f"Trainer: shard={shard!r} needs client= (a dask.distributed.Client)")
            if self._loss_graph.dynamic_axes:
                # Not built: data-parallel shards are traced per shard signature (frame.distributed).
                raise FrameError("Trainer: dynamic_axes= is not supported with client= (data-parallel training "
                                 "traces one concrete graph per shard shape); drop one of them")
            from ..distributed import DataParallel  # imported only when used: Dask is an optional extra

            self._parallel = DataParallel(client, shard)
        self._lr_dtype = self._types[0].dtype
        self.history: list[float] = []
        self.metrics: list[tuple[int, dict]] = []
        self.step_count = 0

    # -- parameters
    @property
    def params(self):
        """The current parameters, in the structure they were given."""
        return tree_unflatten(self._treedef, list(self._leaves))

    @params.setter
    def params(self, params):
        leaves, treedef = as_param_leaves(params)
        types = [TensorType.of(a) for a in leaves]
        if treedef != self._treedef or types != self._types:
            raise InputError(f"new params must match the trainer's structure {self._treedef} and types "
                             f"{[str(t) for t in self._types]}, got {treedef} and {[str(t) for t in types]}")
        self._leaves = leaves

    @property
    def opt_state(self) -> list[np.ndarray]:
        """The optimiser's flat state arrays (Adam: m..., v..., step)."""
        return list(self._state)

    @property
    def data_parallel(self):
        """The `frame.distributed.DataParallel` evaluating the steps (None in a single process)."""
        return self._parallel

    @property
    def loss_graph(self) -> LossGraph:
        """The `LossGraph` running the training graph (its `trace_count`, `compile_count`)."""
        return self._loss_graph

    @property
    def training_graph(self):
        """The most recently derived training graph `[params..., data...] -> [loss, grads...]`."""
        return self._loss_graph.graph

    # -- stepping
    def step(self, *data) -> float:
        """One update on `data`; returns the loss at the parameters before the update."""
        step_no = self.step_count + 1
        # The checks below report non-finite values precisely, so numpy's overflow warnings are only noise.
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return self._step(step_no, data)

    def _step(self, step_no: int, data: tuple) -> float:
        self._check_data(data)
        if self._parallel is None:
            loss, grads = self._loss_graph.value_and_grad(self._leaves, data)
        else:  # the shards' weighted sums, in shard order; the update below runs here, once
            loss, grads = self._parallel.value_and_grad(self._loss_graph.graph_for, self._leaves, data)
        value = scalar(loss)
        if not math.isfinite(value):
            raise self._error(step_no, f"the loss is {value}" + empty_data(self.loss_fn, data))
        self._check_divergence(step_no, value)
        bad = first_nonfinite(grads, [f"the gradient of {n}" for n in self._names])
        if bad:
            raise self._error(step_no, bad + f" (loss {value:.6g})")
        n = len(self._leaves)
        lr = self.optimizer.lr_input(self.step_count, self._lr_dtype)
        outs = self._update_exe(*self._leaves, *grads, *self._state, *lr)
        new_params, new_state = outs[:n], outs[n:]
        bad = first_nonfinite(new_params, [f"the updated {n}" for n in self._names])
        if bad:
            raise self._error(step_no, bad + " (the update overflowed; lower the learning rate)")
        # Rotate only after every check passed: a failed step leaves params and state untouched.
        self._leaves, self._state = new_params, new_state
        self.step_count = step_no
        self.history.append(value)
        return value

    def _check_data(self, data: tuple) -> None:
        leaves = tree_flatten(data)[0]
        if len(leaves) == len(self._checked_data) and all(a is b for a, b in zip(leaves, self._checked_data)):
            return  # the same arrays as last step (full-batch training): already checked
        check_finite_data(self.loss_fn, data)
        self._checked_data = leaves

    def _check_divergence(self, step_no: int, value: float) -> None:
        if self.divergence_factor is None or not self.history:
            return
        first = self.history[0]
        limit = first + self.divergence_factor * abs(first)
        if first != 0 and value > limit:
            raise self._error(step_no, f"the loss {value:.6g} exceeds the first loss {first:.6g} by more than "
                                       f"divergence_factor={self.divergence_factor:g} x |{first:.6g}| (limit "
                                       f"{limit:.6g}): training diverged; lower the learning rate, or pass "
                                       "divergence_factor=None to turn this guard off")

    def _error(self, step_no: int, what: str) -> TrainingError:
        err = TrainingError(f"step {step_no}: {what}; training stopped, params keep their values from "
                            f"after step {step_no - 1}")
        err.step = step_no
        return err

    def run(self, batches, steps=None, *data, callbacks=(), progress: bool | None = None, desc: str | None = None,
            start_step: int = 0, callback: Callable | None = None, every: int = 100,
            checkpoint: str | os.PathLike | None = None, checkpoint_every: int | None = None) -> list[float]:
        """Take `steps` steps, one per batch of the iterable `batches`; return this run's losses (also
        appended to `history`).

        Two forms:

        - `run(batches, steps)`: `batches` yields one tuple of data arrays per step
          (`self.step(*batch)`, minibatches); the run ends after `steps` batches or when `batches`
          is exhausted, whichever is first (`steps=None`: until it is exhausted). The iterable is
          consumed lazily, one batch before each step, so a generator may read state that a callback
          changed after the step before (`pinn`'s adaptive refinement does).
        - `run(steps, *data)`: full-batch shorthand, the same `data` every step (`steps` an int).

        `callbacks`: each `cb(step, loss, trainer)` runs after every step (`step` = `step_count`, the
        updates done so far, resumed ones included); a callback with a `period` attribute only when
        `step % period == 0`. A callback that returns a dict has it recorded in `metrics` as
        `(step, dict)` and shown in the progress bar; one that returns `StopTraining` (the class or
        an instance) or raises `StopTraining` ends the run after that step (the step's update is
        kept). `callback(step, params) -> dict | None` with `every` is the older single-callback
        form (the same as a callback with `period = every`).

        `progress`, `desc`: the progress bar (tqdm, the loss in its postfix); None takes the
        trainer's. `start_step`: batches an earlier run already consumed from the same stream: the
        first `start_step` items of `batches` are skipped without stepping and the bar counts from
        there (a resumed run passes the saved `step_count` to continue the same minibatch order).
        With `checkpoint`, the trainer saves there every `checkpoint_every` steps (if given) and at
        the end of the run.
        """
        if isinstance(batches, (int, np.integer)) and not isinstance(batches, bool):
            # run(steps, *data): every step on the same data
            count, full = batches, (() if steps is None else (steps,)) + data
            steps, batches = count, itertools.repeat(full)
            if not isinstance(steps, (int, np.integer)) or steps < 0:
                raise FrameError(f"Trainer.run: steps must be a non-negative int, got {steps!r}")
        else:
            if data:
                raise FrameError(f"Trainer.run(batches, steps): got {len(data)} extra positional argument(s); data "
                                 "come from `batches` (for full-batch training call run(steps, *data))")
            if steps is not None and (isinstance(steps, bool) or not isinstance(steps, (int, np.integer))
                                      or steps < 0):
                raise FrameError(f"Trainer.run: steps must be a non-negative int or None, got {steps!r}")
            try:
                batches = iter(batches)
            except TypeError:
                raise FrameError(f"Trainer.run: batches must be an iterable of data tuples (or an int step count), "
                                 f"got {type(batches).__name__}") from None
        if isinstance(start_step, bool) or not isinstance(start_step, (int, np.integer)) or start_step < 0:
            raise FrameError(f"Trainer.run: start_step must be a non-negative int, got {start_step!r}")
        if every < 1 or (checkpoint_every is not None and checkpoint_every < 1):
            raise FrameError(f"Trainer.run: every and checkpoint_every must be >= 1, got {every}, {checkpoint_every}")
        callbacks = list(callbacks or ())
        for cb in callbacks:
            if not callable(cb):
                raise FrameError(f"Trainer.run: callbacks must be callables cb(step, loss, trainer), got {cb!r}")
            period = getattr(cb, "period", None)
            if period is not None and (isinstance(period, bool) or not isinstance(period, (int, np.integer))
                                       or period < 1):
                raise FrameError(f"Trainer.run: callback {cb!r} has period {period!r}; a period is a positive int")
        if callback is not None:
            callbacks.append(_ParamsCallback(callback, every))
        if start_step:
            # skip what an earlier run consumed: the same stream continues where it stopped
            for _ in itertools.islice(batches, start_step):
                pass
        from tqdm.auto import tqdm

        progress = self.progress if progress is None else progress
        losses: list[float] = []
        postfix: dict[str, str] = {}
        saved_at = None
        total = None if steps is None else start_step + steps
        with tqdm(total=total, initial=start_step, desc=self.desc if desc is None else desc,
                  disable=not progress, leave=True) as bar:
            for batch in (batches if steps is None else itertools.islice(batches, steps)):
                if not isinstance(batch, tuple):
                    batch = tuple(batch) if isinstance(batch, list) else (batch,)
                loss = self.step(*batch)
                losses.append(loss)
                stop = False
                for cb in callbacks:
                    period = getattr(cb, "period", None)
                    if period is not None and self.step_count % period:
                        continue
                    try:
                        record = cb(self.step_count, loss, self)
                    except StopTraining:
                        stop = True
                        continue
                    if record is StopTraining or isinstance(record, StopTraining):
                        stop = True
                    elif record is not None:
                        record = dict(record)
                        self.metrics.append((self.step_count, record))
                        postfix.update({k: _short(v) for k, v in record.items()})
                if checkpoint is not None and checkpoint_every and self.step_count % checkpoint_every == 0:
                    self.save(checkpoint)
                    saved_at = self.step_count
                if not bar.disable:
                    postfix["loss"] = f"{loss:.4e}"
                    bar.set_postfix(postfix, refresh=False)
                    bar.update(1)
                if stop:
                    break
        if checkpoint is not None and saved_at != self.step_count:
            self.save(checkpoint)
        return losses

    # -- checkpoints
    def _checkpoint_payload(self) -> tuple[dict[str, np.ndarray], dict]:
        arrays = {f"param_{i}": a for i, a in enumerate(self._leaves)}
        arrays.update({f"state_{i}": a for i, a in enumerate(self._state)})
        arrays["history"] = np.asarray(self.history, dtype=np.float64)
        meta = {"format": CHECKPOINT_FORMAT, "step_count": self.step_count, "treedef": encode_treedef(self._treedef),
                "n_params": len(self._leaves), "n_state": len(self._state), "optimizer": self.optimizer.config(),
                "metrics": [[s, m] for s, m in self.metrics]}
        return arrays, meta

    def save(self, path: str | os.PathLike) -> None:
        """Save params, optimiser state, step count, history and metrics to one file, atomically."""
        arrays, meta = self._checkpoint_payload()
        write_checkpoint(path, arrays, meta)

    def load(self, path: str | os.PathLike) -> "Trainer":
        """Load a checkpoint into this trainer (same parameter structure and types); returns self."""
        arrays, meta = read_checkpoint(path)
        return self._apply_checkpoint(arrays, meta, os.fspath(path))

    def _apply_checkpoint(self, arrays: dict, meta: dict, path: str) -> "Trainer":
        leaves = [arrays[f"param_{i}"] for i in range(meta["n_params"])]
        state = [arrays[f"state_{i}"] for i in range(meta["n_state"])]
        types = [TensorType.of(a) for a in leaves]
        # Compare structures with namedtuples by name, so loading never needs the stored classes.
        stored = decode_treedef(meta["treedef"], lambda name, fields, arity, custom=False: name, CheckpointError)
        if stored != with_type_names(self._treedef) or types != self._types:
            raise CheckpointError(f"checkpoint {path!r} holds params of types {[str(t) for t in types]} (structure "
                                  f"{stored}), but this trainer has {self._treedef} {[str(t) for t in self._types]}")
        if [TensorType.of(a) for a in state] != [TensorType.of(a) for a in self._state]:
            raise CheckpointError(f"checkpoint {path!r} holds optimiser state for {meta['optimizer'].get('type')}, "
                                  f"which does not fit this trainer's {self.optimizer!r}")
        self._leaves, self._state = leaves, state
        self.step_count = int(meta["step_count"])
        self.history = [float(x) for x in arrays["history"]]
        self.metrics = [(int(s), dict(m)) for s, m in meta["metrics"]]
        return self

    @classmethod
    def restore(cls, path: str | os.PathLike, loss_fn: Callable, optimizer: Optimizer | None = None, *,
                allowed_types: Sequence[type] = (), progress: bool = True, desc: str | None = None,
                divergence_factor: float | None = DEFAULT_DIVERGENCE_FACTOR, client=None,
                shard: Sequence[int] | None = None, dynamic_axes=None) -> "Trainer":
        """A new trainer continuing from a checkpoint; the optimiser is rebuilt from it unless given.

        The parameter structure is rebuilt from the file's plain containers (dict, list, tuple,
        None); a namedtuple in it is built only from a class in `allowed_types` with the same
        `module:qualname` (or, failing that, the same qualname) and the same fields, and a registered
        pytree node (`frame.tree_util.register_dataclass`, ...) likewise, by its registered unflatten
        function, from the static data stored as plain values. Nothing named
        in the file is imported or called: an unknown type name is a `CheckpointError`, as is any
        damaged or foreign file. A resumed run continues exactly (bit for bit) the trajectory of an
        uninterrupted one.
        """
        path = os.fspath(path)
        resolve = namedtuple_resolver(allowed_types, path)
        arrays, meta = read_checkpoint(path)
        treedef = decode_treedef(meta["treedef"], resolve, CheckpointError)  # validated by read_checkpoint
        try:   # an allowed node class's own unflatten rebuilds it; a stored structure it cannot take is the file's fault
            params = tree_unflatten(treedef, [arrays[f"param_{i}"] for i in range(meta["n_params"])])
        except Exception as e:
            raise CheckpointError(f"checkpoint {path!r}: its parameter structure {with_type_names(treedef)} does not "
                                  f"rebuild with the allowed classes ({type(e).__name__}: {e})") from None
        optimizer = optimizer if optimizer is not None else optimizer_from_config(meta["optimizer"], path)
        trainer = cls(loss_fn, params, optimizer, progress=progress, desc=desc, divergence_factor=divergence_factor,
                      client=client, shard=shard, dynamic_axes=dynamic_axes)
        return trainer._apply_checkpoint(arrays, meta, path)

    def __repr__(self):
        last = f", loss {self.history[-1]:.4e}" if self.history else ""
        return f"<Trainer {self.optimizer!r}: {len(self._leaves)} param arrays, step {self.step_count}{last}>"


class _ParamsCallback:
    """The older `run(callback=fn, every=k)` form, `fn(step, params) -> dict | None`, as a periodic callback."""

    def __init__(self, fn: Callable, every: int):
        self.fn, self.period = fn, int(every)

    def __call__(self, step, loss, trainer):
        return self.fn(step, trainer.params)

    def __repr__(self):
        return f"<callback {self.fn!r} every {self.period} steps>"


def _short(v) -> str:
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.4e}"
    return str(v)
