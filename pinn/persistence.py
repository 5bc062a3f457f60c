"""Keeping trained PINNs: `save` / `load` in frame's safe checkpoint format, and history files.

A saved PINN is one `frame.train.checkpoint` file (`write_checkpoint` / `read_checkpoint`: a
.npz of plain arrays plus a JSON metadata string, read without numpy's pickle path). It is also a
valid `frame.train.Trainer` checkpoint (params, optimiser state, step count, loss history,
metrics), so `pinn.train(..., resume=path)` continues Adam exactly where it stopped. On top of
what a Trainer stores, the metadata holds, as plain JSON:

- the network: its class name, which must be one of `MODEL_CLASSES` (pinn's own models) and its
  constructor config (layer sizes, activation, seed, dtype, input bounds, Fourier sigma/features);
- the problem's name and its plain-data settings (numbers, strings, tuples of them), for the record;
- the relative L2 errors `(step, error)`, the result's metrics, the derivative mode chosen, the
  seed, and which phase (Adam, L-BFGS) each history entry came from.

Loading never imports or calls anything named in the file: the model class is looked up in
`MODEL_CLASSES` and an unknown name is a `frame.CheckpointError`, as is a truncated, damaged or
foreign file. A model with a feature or output transform (a Python callable) cannot be stored:
`save` records that it had one, and `load` then needs `model=` (the same network rebuilt by the
caller, transforms included).
"""
from __future__ import annotations

import csv
import json
import math
import os
from typing import Any

import numpy as np

from frame.errors import CheckpointError
from frame.frontend.pytree import tree_flatten, tree_unflatten
from frame.train.checkpoint import CHECKPOINT_FORMAT, decode_treedef, encode_treedef, read_checkpoint, write_checkpoint

from .models import FourierFeatureMLP, MLP, ModifiedMLP, Network

__all__ = ["PINN_FORMAT", "MODEL_CLASSES", "SavedPINN", "save", "load", "model_config", "build_model", "same_network",
           "write_history", "history_rows"]

#: the `pinn` entry of a saved PINN's metadata (bumped if its layout changes).
PINN_FORMAT = "pinn.saved/1"

#: the network classes `load` builds, by name (nothing outside this table is ever constructed).
MODEL_CLASSES = {"MLP": MLP, "FourierFeatureMLP": FourierFeatureMLP, "ModifiedMLP": ModifiedMLP}


def _plain(value):
    """`value` as JSON data (tuples become lists, numpy scalars numbers), or raise TypeError."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if isinstance(value, np.ndarray) and value.ndim <= 1 and value.size <= 16 and value.dtype.kind in "biuf":
        return value.tolist()
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    raise TypeError(type(value).__name__)


def model_config(model: Network) -> dict:
    """The constructor arguments of a pinn network as JSON data (`build_model` inverts it)."""
    name = type(model).__name__
    if MODEL_CLASSES.get(name) is not type(model):
        raise CheckpointError(f"pinn.save: cannot store a {name}; a saved PINN holds one of pinn's models "
                              f"({', '.join(MODEL_CLASSES)})")
    config = {"layer_sizes": list(model.layer_sizes), "activation": model.activation, "seed": _plain(model.seed),
              "dtype": model.dtype, "input_bounds": _plain(model.input_bounds)}
    if isinstance(model, FourierFeatureMLP):
        config.update(sigma=model.sigma, num_features=model.num_features)
    return config


def build_model(name, config, path: str = "<checkpoint>") -> Network:
    """The network `name(**config)` from a checkpoint's metadata; `CheckpointError` for anything else."""
    if not isinstance(name, str) or name not in MODEL_CLASSES:
        raise CheckpointError(f"cannot read checkpoint {path!r}: it names the model class {name!r}, which pinn does "
                              f"not build (known: {', '.join(MODEL_CLASSES)}); nothing in the file was run")
    if not isinstance(config, dict) or not all(isinstance(k, str) for k in config):
        raise CheckpointError(f"cannot read checkpoint {path!r}: its model config {config!r} is not a JSON object")
    try:
        return MODEL_CLASSES[name](**config)
    except Exception as e:  # a bad config (wrong keys or values): the file is not a usable PINN
        raise CheckpointError(f"cannot read checkpoint {path!r}: its model config {config!r} does not build a "
                              f"{name} ({type(e).__name__}: {e})") from None


def same_network(a: Network, b: Network) -> bool:
    """Whether `a` and `b` are the same architecture: class and config; the seed only where it fixes more
    than the initial parameters (a Fourier-feature model's frequencies B are drawn from it)."""
    if type(a) is not type(b):
        return False
    ca, cb = model_config(a), model_config(b)
    if not isinstance(a, FourierFeatureMLP):
        ca.pop("seed"), cb.pop("seed")
    return ca == cb


def problem_settings(problem) -> dict:
    """The problem's public attributes that are plain data (numbers, strings, short tuples), for the record."""
    settings = {}
    for key, value in sorted(vars(problem).items()):
        if key.startswith("_"):
            continue
        try:
            plain = _plain(value)
        except TypeError:
            continue  # arrays, callables, geometries: not plain data
        settings[key] = plain
    return settings


class SavedPINN:
    """What `load` returns: the network, its parameters and the record of how they were trained.

    `model` (with its `params` set to the trained network parameters), `params` (the training
    parameters: the network's, plus an inverse problem's coefficients under "variables"),
    `network_params`, `predict(x)` (= `model.apply(network_params, x)` as numpy), `history`,
    `phases` (["adam", n], ["lbfgs", m], ...), `errors`, `metrics`, `derivative_mode`,
    `problem_name`, `problem_settings`, `seed`, and the optimiser's `opt_state`, `optimizer_config`
    and `step_count` (what `pinn.train(resume=...)` continues from).
    """

    def __init__(self, path, model, params, history, meta, opt_state):
        pinn = meta["pinn"]
        self.path, self.model, self.params, self.history = path, model, params, history
        self.opt_state, self.optimizer_config = opt_state, meta["optimizer"]
        self.step_count, self.metrics = int(meta["step_count"]), [(int(s), dict(m)) for s, m in meta["metrics"]]
        self.errors = [(int(s), float(e)) for s, e in pinn["errors"]]
        self.phases = [(str(p), int(n)) for p, n in pinn["phases"]]
        self.problem_name, self.problem_settings = pinn["problem"], pinn["problem_settings"]
        self.derivative_mode, self.seed, self.variables = pinn["derivative_mode"], pinn["seed"], pinn["variables"]
        self.meta = meta

    @property
    def network_params(self):
        """The network's parameters (without an inverse problem's coefficients)."""
        if self.variables:
            return self.params["net"]
        return self.params

    def predict(self, x) -> np.ndarray:
        """The trained network at points `x` of shape (N, in_dim), as a numpy array (N, out_dim)."""
        return np.asarray(self.model.apply(self.network_params, np.asarray(x, dtype=self.model.dtype)))

    def write_history(self, path) -> str:
        """The loss and error history as CSV or JSON (by `path`'s suffix); see `write_history`."""
        return write_history(path, self.history, self.phases, self.errors, self.metrics)

    def __repr__(self):
        return (f"<SavedPINN {self.problem_name} {self.model!r}: {len(self.history)} losses, "
                f"errors {self.errors[-1:] if self.errors else 'none'}>")


def _phases_ok(phases, n) -> bool:
    return (isinstance(phases, list) and all(isinstance(p, list) and len(p) == 2 and p[0] in ("adam", "lbfgs")
                                             and isinstance(p[1], int) and p[1] >= 0 for p in phases)
            and sum(p[1] for p in phases) == n)


def save(result, path, *, model: Network | None = None, problem=None) -> str:
    """Save a trained PINN to `path` (frame's safe checkpoint format, written atomically); returns the path.

    `result` is a `PINNResult` (everything is taken from it) or a parameter pytree, with `model`
    (whose own `params` are used if `result` is None) and optionally `problem`. A `CheckpointError`
    names what cannot be stored (a model that is not one of pinn's, an unwritable path).
    """
    from .training import PINNResult

    if isinstance(result, PINNResult):
        model, problem, params = result.model, result.problem, result.params
        history, phases, errors = list(result.history), result.phases, list(result.errors)
        opt_state, opt_config = list(result.opt_state), result.optimizer_config
        step_count, metrics = result.step_count, list(result.metrics)
        mode = result.derivative_mode.as_dict() if result.derivative_mode is not None else None
        seed, variables = result.seed, result.variables
    else:
        if not isinstance(model, Network):
            raise CheckpointError("pinn.save: saving parameters needs model= (the pinn network they belong to)")
        params = model.params if result is None else result
        history, phases, errors, opt_state, step_count, metrics, mode, seed = [], [], [], [], 0, [], None, None
        opt_config, variables = {"type": "none", "lr": None}, {}
    config = model_config(model)
    leaves, treedef = tree_flatten(params)
    leaves = [np.asarray(a) for a in leaves]
    arrays = {f"param_{i}": a for i, a in enumerate(leaves)}
    arrays.update({f"state_{i}": np.asarray(a) for i, a in enumerate(opt_state)})
    arrays["history"] = np.asarray(history, dtype=np.float64)
    pinn = {"format": PINN_FORMAT, "model": type(model).__name__, "model_config": config,
            "transforms": {"feature": model._feature_transform is not None,
                           "output": model._output_transform is not None},
            "problem": getattr(problem, "name", None),
            "problem_settings": problem_settings(problem) if problem is not None else {},
            "errors": [[int(s), float(e)] for s, e in errors], "phases": [[p, int(n)] for p, n in phases],
            "derivative_mode": mode, "seed": _plain(seed) if isinstance(seed, (int, np.integer)) else None,
            "variables": {k: float(v) for k, v in variables.items()}}
    meta = {"format": CHECKPOINT_FORMAT, "step_count": int(step_count), "treedef": encode_treedef(treedef),
            "n_params": len(leaves), "n_state": len(opt_state), "optimizer": opt_config,
            "metrics": [[int(s), m] for s, m in metrics], "pinn": pinn}
    write_checkpoint(path, arrays, meta)
    return os.fspath(path)


def load(path, *, model: Network | None = None) -> SavedPINN:
    """Load a PINN saved by `save`: a `SavedPINN` whose `model.apply(params, x)` / `predict(x)` give the
    saved network's predictions bit for bit.

    The model is rebuilt from the file's class name (one of `MODEL_CLASSES`) and config; pass
    `model=` for a network with feature/output transforms (which a file cannot hold), it must have
    the stored class and config (`same_network`). Anything wrong with the file is a `CheckpointError` naming it.
    """
    path = os.fspath(path)

    def fail(what: str) -> CheckpointError:
        return CheckpointError(f"cannot read checkpoint {path!r}: {what}")

    arrays, meta = read_checkpoint(path)
    pinn = meta.get("pinn")
    if not isinstance(pinn, dict) or pinn.get("format") != PINN_FORMAT:
        raise fail(f"it is a frame checkpoint but not a saved PINN (no {PINN_FORMAT!r} metadata); "
                   "a Trainer checkpoint is read by frame.train.Trainer.restore")
    for key, kind in (("errors", list), ("phases", list), ("problem_settings", dict), ("variables", dict),
                      ("transforms", dict)):
        if not isinstance(pinn.get(key), kind):
            raise fail(f"its pinn metadata {key}={pinn.get(key)!r} is not a JSON {kind.__name__}")
    if not all(isinstance(e, list) and len(e) == 2 and isinstance(e[0], int) and isinstance(e[1], (int, float))
               for e in pinn["errors"]):
        raise fail("its pinn metadata errors are not [step, error] pairs")
    history = arrays["history"]
    if not _phases_ok(pinn["phases"], len(history)):
        raise fail(f"its pinn metadata phases {pinn['phases']!r} do not cover its {len(history)} losses")
    built = build_model(pinn.get("model"), pinn.get("model_config"), path)
    if model is None:
        if any(pinn["transforms"].values()):
            raise fail("its model had a feature/output transform (a Python function, not stored); pass model= "
                       "with the same network, transforms included")
        model = built
    elif not same_network(model, built):
        raise fail(f"it holds {built!r}, but model= is {model!r}")
    treedef = decode_treedef(meta["treedef"], _no_namedtuples(path), CheckpointError)
    params = tree_unflatten(treedef, [arrays[f"param_{i}"] for i in range(meta["n_params"])])
    saved = SavedPINN(path, model, params, [float(x) for x in history], meta,
                      [arrays[f"state_{i}"] for i in range(meta["n_state"])])
    if pinn["variables"] and not (isinstance(params, dict) and "net" in params):
        raise fail("it records an inverse problem's variables but its parameters have no 'net' entry")
    got, expected = tree_flatten(saved.network_params), tree_flatten(model.params)
    if got[1] != expected[1] or [(a.shape, a.dtype) for a in got[0]] != [(np.shape(a), np.asarray(a).dtype)
                                                                       for a in expected[0]]:
        raise fail(f"its parameters (structure {got[1]}) do not fit its model {model!r}")
    model.params = saved.network_params
    return saved


def _no_namedtuples(path):
    def resolve(name, fields, arity):
        raise CheckpointError(f"cannot read checkpoint {path!r}: its parameters contain the namedtuple {name!r}; "
                              "pinn's models never have one")
    return resolve


# -- history files

def history_rows(history, phases, errors) -> list[dict]:
    """One row per recorded loss: step (1-based), phase, loss, relative_l2_error (None where not measured).

    An Adam step's loss is evaluated before its update, an L-BFGS iteration's after it; an error at
    step s was measured after s steps (errors past the last loss get rows without a loss).
    """
    labels = [p for p, n in phases for _ in range(n)]
    labels += ["adam"] * (len(history) - len(labels))
    by_step = {}
    for s, e in errors:
        by_step[int(s)] = float(e)
    rows = [{"step": i + 1, "phase": labels[i], "loss": float(v), "relative_l2_error": by_step.pop(i + 1, None)}
            for i, v in enumerate(history)]
    rows += [{"step": s, "phase": "eval", "loss": None, "relative_l2_error": e} for s, e in sorted(by_step.items())]
    return rows


def write_history(path, history, phases, errors, metrics=()) -> str:
    """Write the history to `path`: `.csv` (columns step, phase, loss, relative_l2_error) or `.json`
    (`{"rows": [...], "errors": [[step, error], ...], "metrics": [[step, {...}], ...]}`); returns the path."""
    path = os.fspath(path)
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in (".csv", ".json"):
        raise CheckpointError(f"write_history: {path!r} must end in .csv or .json, got suffix {suffix!r}")
    rows = history_rows(history, phases, errors)
    try:
        with open(path, "w", newline="") as f:
            if suffix == ".csv":
                writer = csv.DictWriter(f, fieldnames=["step", "phase", "loss", "relative_l2_error"])
                writer.writeheader()
                for row in rows:
                    writer.writerow({k: ("" if v is None else repr(v) if isinstance(v, float) else v)
                                     for k, v in row.items()})
            else:
                json.dump({"rows": [{k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                                     for k, v in r.items()} for r in rows],
                           "errors": [[int(s), float(e)] for s, e in errors],
                           "metrics": [[int(s), {k: _jsonable(v) for k, v in m.items()}] for s, m in metrics]},
                          f, indent=1)
    except OSError as e:
        raise CheckpointError(f"write_history: cannot write {path!r}: {e.strerror or e}") from None
    return path


def _jsonable(v) -> Any:
    try:
        return _plain(v)
    except TypeError:
        return str(v)
