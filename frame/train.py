"""Host-driven training: optimisers as update graphs, a `Trainer` loop, atomic checkpoints (ARCH-065).

Each step runs two compiled graphs and rotates arrays on the host:

1. the training graph `[params..., data...] -> [loss, grads...]`, derived once from the traced
   `loss_fn` with `build_backward_graph`;
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
    losses = trainer.run(1000, x, y)
"""
from __future__ import annotations

import importlib
import json
import math
import os
import tempfile
from typing import Any, Callable, Sequence

import numpy as np

from .compiler.autograd import build_backward_graph
from .compiler.optim import build_adam_update_graph, build_sgd_update_graph
from .errors import FrameError, GradientError, InputError, TrainingError
from .frontend.pytree import TreeDef, tree_flatten, tree_unflatten
from .frontend.tracer import example_type, trace_function
from .ir.types import TensorType
from .runtime.compile import compile as compile_graph
from .runtime.executable import Executable

__all__ = ["SGD", "Adam", "Optimizer", "Trainer", "LossGraph", "CHECKPOINT_FORMAT"]

CHECKPOINT_FORMAT = "frame.train.checkpoint/1"

# --------------------------------------------------------------------------------------------
# Optimisers


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
        self.b1, self.b2, self.eps = float(b1), float(b2), float(eps)

    def update_graph(self, param_types):
        return build_adam_update_graph(param_types, None if self.scheduled else self.lr, self.b1, self.b2, self.eps)

    def init_state(self, params):
        zeros = [np.zeros_like(p) for p in params]
        return [*zeros, *[np.zeros_like(p) for p in params], np.zeros((), params[0].dtype)]

    def config(self):
        return {**super().config(), "b1": self.b1, "b2": self.b2, "eps": self.eps}


_OPTIMIZERS = {"SGD": SGD, "Adam": Adam}


def optimizer_from_config(config: dict) -> Optimizer:
    """Rebuild an optimiser from `Optimizer.config()` (fails for a scheduled lr, which is code)."""
    kind = config.get("type")
    if kind not in _OPTIMIZERS:
        raise FrameError(f"checkpoint names optimiser {kind!r}, which frame.train does not know; pass optimizer=")
    if config.get("lr") is None:
        raise FrameError(f"the checkpoint's {kind} used a learning-rate schedule (a callable, not stored); "
                         "pass optimizer= with the same schedule to restore it")
    kwargs = {k: v for k, v in config.items() if k != "type"}
    return _OPTIMIZERS[kind](**kwargs)


# --------------------------------------------------------------------------------------------
# The compiled value-and-gradient of a loss function


def leaf_paths(treedef: TreeDef) -> list[str]:
    """Readable names of a pytree's leaves, e.g. `['layers'][0]['w']`, in flattening order."""
    paths: list[str] = []

    def walk(td: TreeDef, prefix: str):
        if td.kind == "leaf":
            paths.append(prefix or "<root>")
        elif td.kind == "dict":
            for k, c in zip(td.meta, td.children):
                walk(c, f"{prefix}[{k!r}]")
        else:
            for i, c in enumerate(td.children):
                walk(c, f"{prefix}[{i}]")

    walk(treedef, "")
    return paths


def as_param_leaves(params) -> tuple[list[np.ndarray], TreeDef]:
    """Flatten a parameter pytree into fresh float numpy arrays; `InputError` for non-float leaves."""
    leaves, treedef = tree_flatten(params)
    if not leaves:
        raise InputError("params has no leaves: there is nothing to train")
    paths = leaf_paths(treedef)
    arrays = []
    for i, (leaf, path) in enumerate(zip(leaves, paths)):
        a = np.array(leaf)  # a copy: the caller's arrays are never touched
        if a.dtype.name not in ("float32", "float64"):
            raise InputError(f"parameter {path} has dtype {a.dtype.name} and shape {list(a.shape)}; parameters "
                             "must be float32 or float64 arrays", i, "float32|float64", a.dtype.name)
        arrays.append(a)
    return arrays, treedef


def first_nonfinite(arrays: Sequence[np.ndarray], names: Sequence[str]) -> str | None:
    """Describe the first array holding NaN/Inf (None if all are finite)."""
    # Fast path, one reduction per array: a sum is finite only if every element is (a finite sum
    # that overflows just falls through to the exact check).
    if math.isfinite(sum(float(a.sum()) for a in arrays)):
        return None
    for a, name in zip(arrays, names):
        if not np.isfinite(a).all():
            bad = "nan" if np.isnan(a).any() else "inf"
            return f"{name} {a.dtype.name}{list(a.shape)} contains {bad}"
    return None


class LossGraph:
    """`loss_fn(params, *data)` compiled into its training graph `[params..., data...] -> [loss, grads...]`.

    One executable per data signature (pytree structure, shapes, dtypes): a new batch of the same
    shape reuses it. `.compiled(data)` returns the executable and the flat data arrays;
    `.value_and_grad(param_leaves, data)` runs it.
    """

    def __init__(self, loss_fn: Callable, param_treedef: TreeDef, param_types: Sequence[TensorType]):
        self.loss_fn, self.param_treedef = loss_fn, param_treedef
        self.param_types = list(param_types)
        self._executables: dict[tuple, Executable] = {}
        self.graph = None  # the latest training graph (for inspection)

    def _trace(self, data: tuple):
        params_example = tree_unflatten(self.param_treedef, self.param_types)
        res = trace_function(lambda p, *d: self.loss_fn(p, *d), (params_example, *data),
                             name=getattr(self.loss_fn, "__name__", "loss_fn").replace("<", "").replace(">", ""))
        if len(res.graph.outputs) != 1:
            raise GradientError(f"loss_fn must return one scalar, got {len(res.graph.outputs)} outputs "
                                f"(structure {res.out_tree})")
        n = len(self.param_types)
        return build_backward_graph(res.graph, 0, list(range(n)))

    def compiled(self, data: tuple) -> tuple[Executable, list]:
        """The executable for this data signature and the flat data arrays to feed it."""
        leaves, treedef = tree_flatten(data)
        arrays = [a if isinstance(a, np.ndarray) else np.asarray(a) for a in leaves]
        key = (treedef, tuple((a.shape, a.dtype) for a in arrays))
        exe = self._executables.get(key)
        if exe is None:
            self.graph = self._trace(tree_unflatten(treedef, [example_type(a) for a in arrays]))
            exe = self._executables[key] = compile_graph(self.graph)
        return exe, arrays

    def value_and_grad(self, params: Sequence[np.ndarray], data: tuple) -> tuple[np.ndarray, list[np.ndarray]]:
        exe, arrays = self.compiled(data)
        outs = exe(*params, *arrays)
        return outs[0], outs[1:]


def scalar(loss: np.ndarray) -> float:
    """The loss (rank 0 or one element) as a Python float."""
    return float(np.asarray(loss).reshape(-1)[0])


# --------------------------------------------------------------------------------------------
# Checkpoint files: one .npz holding arrays plus a JSON metadata string, replaced atomically


def _encode_treedef(td: TreeDef) -> dict:
    if td.kind in ("leaf", "none"):
        return {"kind": td.kind}
    node: dict[str, Any] = {"kind": td.kind, "children": [_encode_treedef(c) for c in td.children]}
    if td.kind == "dict":
        if not all(isinstance(k, (str, int)) and not isinstance(k, bool) for k in td.meta):
            raise FrameError(f"checkpoint: parameter dict keys must be str or int, got {list(td.meta)}")
        node["keys"] = [[type(k).__name__, k] for k in td.meta]
    elif td.kind == "tuple" and td.meta is not None:  # a namedtuple: store where to import it from
        node["namedtuple"] = f"{td.meta.__module__}:{td.meta.__qualname__}"
    return node


def _decode_treedef(node: dict) -> TreeDef:
    kind = node["kind"]
    if kind in ("leaf", "none"):
        return TreeDef(kind, None, ())
    children = tuple(_decode_treedef(c) for c in node["children"])
    meta = None
    if kind == "dict":
        meta = tuple(int(v) if t == "int" else v for t, v in node["keys"])
    elif "namedtuple" in node:
        module, qualname = node["namedtuple"].split(":")
        try:
            obj = importlib.import_module(module)
            for part in qualname.split("."):
                obj = getattr(obj, part)
        except (ImportError, AttributeError):
            raise FrameError(f"checkpoint params use the namedtuple {node['namedtuple']}, which cannot be imported "
                             "here; define it at module level (or restore with load() into a trainer)") from None
        meta = obj
    return TreeDef(kind, meta, children)


def _json_default(x):
    if isinstance(x, (np.generic, np.ndarray)):
        return x.tolist()
    raise TypeError(f"{type(x).__name__} is not JSON-serialisable")


def write_checkpoint(path: str | os.PathLike, arrays: dict[str, np.ndarray], meta: dict) -> None:
    """Write `arrays` and JSON `meta` to `path` atomically: a temp file in the same directory, then `os.replace`.

    If anything fails midway, the temp file is removed and a previous checkpoint at `path` is untouched.
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    payload = {**arrays, "__meta__": np.array(json.dumps(meta, default=_json_default))}
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def read_checkpoint(path: str | os.PathLike) -> tuple[dict[str, np.ndarray], dict]:
    """The arrays and metadata of a checkpoint written by `write_checkpoint`."""
    try:
        with np.load(os.fspath(path), allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (OSError, ValueError) as e:
        raise FrameError(f"cannot read checkpoint {os.fspath(path)!r}: {e}") from None
    if "__meta__" not in arrays:
        raise FrameError(f"{os.fspath(path)!r} is not a frame checkpoint (no metadata)")
    meta = json.loads(str(arrays.pop("__meta__")[()]))
    if meta.get("format") != CHECKPOINT_FORMAT:
        raise FrameError(f"{os.fspath(path)!r} has checkpoint format {meta.get('format')!r}, "
                         f"expected {CHECKPOINT_FORMAT!r}")
    return arrays, meta


# --------------------------------------------------------------------------------------------
# The training loop


class Trainer:
    """Train `params` (a pytree of float arrays) to minimise `loss_fn(params, *data)` with `optimizer`.

    `loss_fn` is written with `frame.numpy` and returns one scalar. The training graph is built
    with `build_backward_graph` and compiled once per data signature; the optimiser's update graph
    is compiled once. Attributes: `params` (current pytree), `history` (every loss, in step
    order; the loss of a step is evaluated before its update), `metrics` (list of `(step, dict)`
    from the `run` callback), `step_count` (updates done).
    """

    def __init__(self, loss_fn: Callable, params, optimizer: Optimizer, *, progress: bool = True,
                 desc: str | None = None):
        if not isinstance(optimizer, Optimizer):
            raise FrameError(f"Trainer: optimizer must be a frame.train optimiser (SGD, Adam), "
                             f"got {type(optimizer).__name__}")
        self.loss_fn, self.optimizer = loss_fn, optimizer
        self.progress, self.desc = progress, desc
        self._leaves, self._treedef = as_param_leaves(params)
        self._names = [f"parameter {p}" for p in leaf_paths(self._treedef)]
        self._types = [TensorType.of(a) for a in self._leaves]
        self._state = optimizer.init_state(self._leaves)
        self._loss_graph = LossGraph(loss_fn, self._treedef, self._types)
        self._update_exe = compile_graph(optimizer.update_graph(self._types))
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
        loss, grads = self._loss_graph.value_and_grad(self._leaves, data)
        value = scalar(loss)
        if not math.isfinite(value):
            raise self._error(step_no, f"the loss is {value}")
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

    def _error(self, step_no: int, what: str) -> TrainingError:
        err = TrainingError(f"step {step_no}: {what}; training stopped, params keep their values from "
                            f"after step {step_no - 1}")
        err.step = step_no
        return err

    def run(self, steps: int, *data, callback: Callable | None = None, every: int = 100,
            checkpoint: str | os.PathLike | None = None, checkpoint_every: int | None = None) -> list[float]:
        """Take `steps` steps on `data`; return this run's losses (also appended to `history`).

        `callback(step, params) -> dict | None` runs after every `every`-th step (counted by
        `step_count`); returned dicts are recorded in `metrics` as `(step, dict)` and shown in the
        progress bar. With `checkpoint`, the trainer saves there every `checkpoint_every` steps
        (if given) and at the end of the run.
        """
        if not isinstance(steps, (int, np.integer)) or steps < 0:
            raise FrameError(f"Trainer.run: steps must be a non-negative int, got {steps!r}")
        if every < 1 or (checkpoint_every is not None and checkpoint_every < 1):
            raise FrameError(f"Trainer.run: every and checkpoint_every must be >= 1, got {every}, {checkpoint_every}")
        from tqdm.auto import tqdm

        losses: list[float] = []
        postfix: dict[str, str] = {}
        saved_at = None
        with tqdm(total=steps, desc=self.desc, disable=not self.progress, leave=True) as bar:
            for _ in range(steps):
                loss = self.step(*data)
                losses.append(loss)
                if callback is not None and self.step_count % every == 0:
                    record = callback(self.step_count, self.params)
                    if record is not None:
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
        if checkpoint is not None and saved_at != self.step_count:
            self.save(checkpoint)
        return losses

    # -- checkpoints
    def _checkpoint_payload(self) -> tuple[dict[str, np.ndarray], dict]:
        arrays = {f"param_{i}": a for i, a in enumerate(self._leaves)}
        arrays.update({f"state_{i}": a for i, a in enumerate(self._state)})
        arrays["history"] = np.asarray(self.history, dtype=np.float64)
        meta = {"format": CHECKPOINT_FORMAT, "step_count": self.step_count, "treedef": _encode_treedef(self._treedef),
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
        # Compare encoded structures, so loading never needs to import a namedtuple class.
        if meta["treedef"] != _encode_treedef(self._treedef) or types != self._types:
            raise FrameError(f"checkpoint {path!r} holds params of types {[str(t) for t in types]} (structure "
                             f"{meta['treedef']}), but this trainer has {self._treedef} {[str(t) for t in self._types]}")
        if [TensorType.of(a) for a in state] != [TensorType.of(a) for a in self._state]:
            raise FrameError(f"checkpoint {path!r} holds optimiser state for {meta['optimizer'].get('type')}, "
                             f"which does not fit this trainer's {self.optimizer!r}")
        self._leaves, self._state = leaves, state
        self.step_count = int(meta["step_count"])
        self.history = [float(x) for x in arrays["history"]]
        self.metrics = [(int(s), dict(m)) for s, m in meta["metrics"]]
        return self

    @classmethod
    def restore(cls, path: str | os.PathLike, loss_fn: Callable, optimizer: Optimizer | None = None, *,
                progress: bool = True, desc: str | None = None) -> "Trainer":
        """A new trainer continuing from a checkpoint; the optimiser is rebuilt from it unless given.

        A resumed run continues exactly (bit for bit) the trajectory of an uninterrupted one.
        """
        arrays, meta = read_checkpoint(path)
        treedef = _decode_treedef(meta["treedef"])
        params = tree_unflatten(treedef, [arrays[f"param_{i}"] for i in range(meta["n_params"])])
        optimizer = optimizer if optimizer is not None else optimizer_from_config(meta["optimizer"])
        trainer = cls(loss_fn, params, optimizer, progress=progress, desc=desc)
        return trainer._apply_checkpoint(arrays, meta, os.fspath(path))

    def __repr__(self):
        last = f", loss {self.history[-1]:.4e}" if self.history else ""
        return f"<Trainer {self.optimizer!r}: {len(self._leaves)} param arrays, step {self.step_count}{last}>"


def _short(v) -> str:
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.4e}"
    return str(v)
