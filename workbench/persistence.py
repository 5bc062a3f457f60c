"""Keeping trained models: `save` / `load` in frame's safe checkpoint format, and history files.

A saved model is one `frame.train.checkpoint` file (`write_checkpoint` / `read_checkpoint`: a .npz
of plain arrays plus a JSON metadata string, read without numpy's pickle path). It is also a valid
`frame.train.Trainer` checkpoint (params, optimiser state, step count, loss history, metrics), so a
resumed run (`pinn.train(resume=...)`, `pino.train_operator(resume=...)`) continues Adam exactly
where it stopped. On top of what a Trainer stores, the metadata's "workbench" entry holds, as plain
JSON:

- the model: a registered name (`register_model`) and its constructor config;
- the problem's name and plain-data settings (numbers, strings, tuples of them), for the record;
- the relative L2 `errors` `(step, fraction)`, which phase (Adam, L-BFGS) each history entry came
  from, the seed, the dtype, the timings, and package-specific `extra` data.

Loading never imports or calls anything named in the file: the model is rebuilt only from the
allow-list that pinn and pino register into (`register_model(name, cls, config_fn, build_fn)`);
an unknown name is a `frame.CheckpointError`, as is a truncated, damaged or foreign file. Files
written by pinn before this module existed (metadata entry "pinn", format "pinn.saved/1") load too.
"""
from __future__ import annotations

import csv
import json
import math
import os
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from frame.errors import CheckpointError
from frame.frontend.pytree import tree_flatten, tree_unflatten
from frame.train.checkpoint import CHECKPOINT_FORMAT, decode_treedef, encode_treedef, read_checkpoint, write_checkpoint

__all__ = ["SAVED_FORMAT", "LEGACY_PINN_FORMAT", "MODELS", "ModelEntry", "register_model", "model_name",
           "model_config", "build_model", "same_model", "Saved", "save", "load", "write_history", "history_rows",
           "problem_settings", "plain"]

#: the "workbench" entry of a saved model's metadata (bumped if its layout changes)
SAVED_FORMAT = "workbench.saved/1"
#: pinn's format before the workbench existed; `load` still reads it
LEGACY_PINN_FORMAT = "pinn.saved/1"


def plain(value):
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
        return [plain(v) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: plain(v) for k, v in value.items()}
    raise TypeError(type(value).__name__)


def problem_settings(problem) -> dict:
    """The problem's public attributes that are plain data (numbers, strings, short tuples), for the record."""
    settings = {}
    try:
        items = sorted(vars(problem).items())
    except TypeError:     # no __dict__ (slots)
        return settings
    for key, value in items:
        if key.startswith("_"):
            continue
        try:
            settings[key] = plain(value)
        except TypeError:
            continue  # arrays, callables, geometries: not plain data
    return settings


# -- the allow-list of model classes

@dataclass(frozen=True)
class ModelEntry:
    """How one registered model class is stored and rebuilt (see `register_model`)."""

    name: str
    cls: type
    config_fn: Callable[[Any], dict]
    build_fn: Callable[[dict], Any]
    same: Callable[[Any, Any], bool] | None = None
    template: Callable[[Any, str | None], Any] | None = None
    saved_type: type | None = None


#: registered model name -> ModelEntry; `load` builds nothing outside this table
MODELS: dict[str, ModelEntry] = {}


def register_model(name: str, cls: type, config_fn: Callable[[Any], dict],
                   build_fn: Callable[[dict], Any] | None = None, *, same: Callable[[Any, Any], bool] | None = None,
                   template: Callable[[Any, str | None], Any] | None = None, saved_type: type | None = None) -> None:
    """Allow `load` to rebuild models of class `cls`, stored under `name`.

    `config_fn(model) -> dict` gives the model's constructor config as JSON data; `build_fn(config)
    -> model` rebuilds it (default `cls(**config)`). Optional: `same(a, b)` says whether two models
    are the same architecture (default: equal configs), used when `load(model=...)` is given a
    model; `template(model, dtype)` a parameter pytree of the model's structure (default
    `model.init(0, dtype)`) the loaded parameters must match; `saved_type` the `Saved` subclass
    `load` returns for this model. Only the exact class `cls` is stored under `name` (a subclass
    must register itself). Registering a name again with another class is a `CheckpointError`.
    """
    if not isinstance(name, str) or not name:
        raise CheckpointError(f"register_model: name must be a non-empty str, got {name!r}")
    if not isinstance(cls, type) or not callable(config_fn):
        raise CheckpointError(f"register_model({name!r}): needs a class and a config function, got {cls!r}, "
                              f"{config_fn!r}")
    old = MODELS.get(name)
    if old is not None and old.cls is not cls:
        raise CheckpointError(f"register_model: {name!r} is already registered for {old.cls.__module__}."
                              f"{old.cls.__qualname__}, not {cls.__module__}.{cls.__qualname__}")
    MODELS[name] = ModelEntry(name, cls, config_fn, build_fn or (lambda config: cls(**config)), same, template,
                              saved_type)


def _entry_of(model) -> ModelEntry:
    for entry in MODELS.values():
        if type(model) is entry.cls:
            return entry
    raise CheckpointError(f"save: cannot store a {type(model).__name__}; a saved model is one of the registered "
                          f"classes ({', '.join(sorted(MODELS)) or 'none registered: import pinn or pino'})")


def model_name(model) -> str:
    """The registered name of `model`'s class (`CheckpointError` if it is not registered)."""
    return _entry_of(model).name


def model_config(model) -> dict:
    """The registered constructor config of `model` as JSON data (`build_model` inverts it)."""
    entry = _entry_of(model)
    config = entry.config_fn(model)
    try:
        json.dumps(config)
    except (TypeError, ValueError) as e:
        raise CheckpointError(f"save: the config of {model!r} is not JSON data ({e})") from None
    return config


def build_model(name, config, path: str = "<checkpoint>"):
    """The model `name` built from `config` (a checkpoint's metadata); `CheckpointError` for anything else."""
    if not isinstance(name, str) or name not in MODELS:
        raise CheckpointError(f"cannot read checkpoint {path!r}: it names the model class {name!r}, which is not "
                              f"registered (known: {', '.join(sorted(MODELS)) or 'none'}; pinn and pino register "
                              "theirs when imported); nothing in the file was run")
    if not isinstance(config, dict) or not all(isinstance(k, str) for k in config):
        raise CheckpointError(f"cannot read checkpoint {path!r}: its model config {config!r} is not a JSON object")
    try:
        return MODELS[name].build_fn(config)
    except CheckpointError:
        raise
    except Exception as e:  # a bad config (wrong keys or values): the file is not a usable model
        raise CheckpointError(f"cannot read checkpoint {path!r}: its model config {config!r} does not build a "
                              f"{name} ({type(e).__name__}: {e})") from None


def same_model(a, b) -> bool:
    """Whether `a` and `b` are the same architecture: same registered class and (by its `same`) config."""
    if type(a) is not type(b):
        return False
    entry = _entry_of(a)
    if entry.same is not None:
        return bool(entry.same(a, b))
    return entry.config_fn(a) == entry.config_fn(b)


# -- what load returns

class Saved:
    """What `load` returns: the model, its parameters and the record of how they were trained.

    Attributes: `path`, `model`, `params`, `history`, `phases` ([("adam", n), ("lbfgs", m), ...]),
    `errors` ([(step, fraction)]), `metrics`, `timings`, `problem_name`, `problem_settings`, `seed`,
    `dtype`, `extra` (package data), the optimiser's `opt_state`, `optimizer_config` and
    `step_count` (what a resumed run continues from), and `meta` (the raw metadata).
    `predict(x)` runs the model at new inputs.
    """

    def __init__(self, path, model, params, history, meta, opt_state, record):
        self.path, self.model, self.params, self.history = path, model, params, history
        self.opt_state, self.optimizer_config = opt_state, meta["optimizer"]
        self.step_count = int(meta["step_count"])
        self.metrics = [(int(s), dict(m)) for s, m in meta["metrics"]]
        self.errors = [(int(s), float(e)) for s, e in record["errors"]]
        self.phases = [(str(p), int(n)) for p, n in record["phases"]]
        self.problem_name, self.problem_settings = record["problem"], record["problem_settings"]
        self.seed, self.dtype = record["seed"], record["dtype"]
        self.timings = {k: float(v) for k, v in record["timings"].items()}
        self.extra = record["extra"]
        self.model_name = record["model"]
        self.meta = meta

    @property
    def network_params(self):
        """The model's parameters (a subclass strips what is not the model's, e.g. PDE coefficients)."""
        return self.params

    @property
    def relative_l2_error(self) -> float:
        """The last recorded relative L2 error (a fraction; NaN if none was recorded)."""
        return float(self.errors[-1][1]) if self.errors else math.nan

    def predict(self, x) -> np.ndarray:
        """The saved model at inputs `x` (converted to the saved dtype), as a numpy array."""
        dtype = self.dtype or np.asarray(tree_flatten(self.network_params)[0][0]).dtype
        return np.asarray(self.model.apply(self.network_params, np.asarray(x, dtype=dtype)))

    def write_history(self, path) -> str:
        """The loss and error history as CSV or JSON (by `path`'s suffix); see `write_history`."""
        return write_history(path, self.history, self.phases, self.errors, self.metrics)

    def __repr__(self):
        return (f"<{type(self).__name__} {self.problem_name} {self.model!r}: {len(self.history)} losses, "
                f"errors {self.errors[-1:] if self.errors else 'none'}>")


def _phases_ok(phases, n) -> bool:
    return (isinstance(phases, list) and all(isinstance(p, list) and len(p) == 2 and p[0] in ("adam", "lbfgs")
                                             and isinstance(p[1], int) and p[1] >= 0 for p in phases)
            and sum(p[1] for p in phases) == n)


def save(result, path) -> str:
    """Save a trained model to `path` (frame's safe checkpoint format, written atomically); returns the path.

    `result` is a `workbench.Result` (or anything with its attributes); its model must be a
    registered class (`register_model`). A `CheckpointError` names what cannot be stored (an
    unregistered model, an unwritable path).
    """
    model, params = result.model, result.params
    name, config = model_name(model), model_config(model)
    opt_state = [np.asarray(a) for a in (result.opt_state or ())]
    leaves, treedef = tree_flatten(params)
    leaves = [np.asarray(a) for a in leaves]
    if not leaves:
        raise CheckpointError(f"save: {path!r}: the result has no parameters to store")
    arrays = {f"param_{i}": a for i, a in enumerate(leaves)}
    arrays.update({f"state_{i}": a for i, a in enumerate(opt_state)})
    arrays["history"] = np.asarray(list(result.history), dtype=np.float64)
    extra = result.save_extra() if hasattr(result, "save_extra") else {}
    settings = result.problem_settings() if hasattr(result, "problem_settings") else {}
    seed = result.seed
    record = {"format": SAVED_FORMAT, "model": name, "model_config": config,
              "problem": result.problem_name, "problem_settings": settings,
              "errors": [[int(s), float(e)] for s, e in result.errors],
              "phases": [[str(p), int(n)] for p, n in result.phases],
              "seed": int(seed) if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) else None,
              "dtype": None if result.dtype is None else np.dtype(result.dtype).name,
              "timings": {str(k): float(v) for k, v in (result.timings or {}).items()},
              "extra": {k: _jsonable(v) for k, v in extra.items()}}
    optimizer = result.optimizer_config or {"type": "none", "lr": None}
    meta = {"format": CHECKPOINT_FORMAT, "step_count": int(result.step_count), "treedef": encode_treedef(treedef),
            "n_params": len(leaves), "n_state": len(opt_state), "optimizer": optimizer,
            "metrics": [[int(s), {k: _jsonable(v) for k, v in m.items()}] for s, m in result.metrics],
            "workbench": record}
    write_checkpoint(path, arrays, meta)
    return os.fspath(path)


def _legacy_record(pinn: dict) -> dict:
    """A pinn.saved/1 metadata entry in the workbench layout."""
    return {"format": SAVED_FORMAT, "model": pinn.get("model"), "model_config": pinn.get("model_config"),
            "problem": pinn.get("problem"), "problem_settings": pinn.get("problem_settings"),
            "errors": pinn.get("errors"), "phases": pinn.get("phases"), "seed": pinn.get("seed"), "dtype": None,
            "timings": {}, "extra": {"derivative_mode": pinn.get("derivative_mode"),
                                     "variables": pinn.get("variables"), "transforms": pinn.get("transforms")}}


def load(path, *, model=None) -> Saved:
    """Load a model saved by `save`: a `Saved` (or the registered `saved_type`) whose
    `model.apply(network_params, x)` / `predict(x)` give the saved model's predictions bit for bit.

    The model is rebuilt from the file's registered name and config; with `model=` that model is
    used instead (it must be the same architecture, `same_model`): needed for what a file cannot
    hold, e.g. a pinn network's feature/output transforms (Python functions). Anything wrong with
    the file is a `CheckpointError` naming it.
    """
    path = os.fspath(path)

    def fail(what: str) -> CheckpointError:
        return CheckpointError(f"cannot read checkpoint {path!r}: {what}")

    arrays, meta = read_checkpoint(path)
    record = meta.get("workbench")
    if record is None and isinstance(meta.get("pinn"), dict) and meta["pinn"].get("format") == LEGACY_PINN_FORMAT:
        record = _legacy_record(meta["pinn"])
    if not isinstance(record, dict) or record.get("format") != SAVED_FORMAT:
        raise fail(f"it is a frame checkpoint but not a saved model (no {SAVED_FORMAT!r} metadata); "
                   "a Trainer checkpoint is read by frame.train.Trainer.restore")
    for key, kind in (("errors", list), ("phases", list), ("problem_settings", dict), ("timings", dict),
                      ("extra", dict)):
        if not isinstance(record.get(key), kind):
            raise fail(f"its metadata {key}={record.get(key)!r} is not a JSON {kind.__name__}")
    if not all(isinstance(e, list) and len(e) == 2 and isinstance(e[0], int) and isinstance(e[1], (int, float))
               for e in record["errors"]):
        raise fail("its metadata errors are not [step, error] pairs")
    if not all(isinstance(v, (int, float)) for v in record["timings"].values()):
        raise fail(f"its metadata timings {record['timings']!r} are not numbers")
    if record.get("dtype") not in (None, "float32", "float64"):
        raise fail(f"its metadata dtype {record.get('dtype')!r} is not float32 or float64")
    if not (record.get("problem") is None or isinstance(record.get("problem"), str)):
        raise fail(f"its metadata problem {record.get('problem')!r} is not a name")
    history = arrays["history"]
    if not _phases_ok(record["phases"], len(history)):
        raise fail(f"its metadata phases {record['phases']!r} do not cover its {len(history)} losses")
    built = build_model(record.get("model"), record.get("model_config"), path)
    entry = MODELS[record["model"]]
    if model is None:
        model = built
    elif not same_model(model, built):
        raise fail(f"it holds {built!r}, but model= is {model!r}")
    treedef = decode_treedef(meta["treedef"], _no_namedtuples(path), CheckpointError)
    params = tree_unflatten(treedef, [arrays[f"param_{i}"] for i in range(meta["n_params"])])
    saved_type = entry.saved_type or Saved
    saved = saved_type(path, model, params, [float(x) for x in history], meta,
                       [arrays[f"state_{i}"] for i in range(meta["n_state"])], record)
    try:
        network_params = saved.network_params
    except (KeyError, TypeError, IndexError):
        raise fail(f"its parameters (structure {treedef}) do not hold the model's") from None
    dtype = record["dtype"] or np.asarray(tree_flatten(network_params)[0][0]).dtype.name
    try:
        template = entry.template(model, dtype) if entry.template is not None else model.init(0, dtype)
    except Exception as e:  # a config that constructs but cannot initialise: not a usable model either
        raise fail(f"its model {record['model']} with config {record['model_config']!r} cannot be initialised "
                   f"({type(e).__name__}: {e})") from None
    got, expected = tree_flatten(network_params), tree_flatten(template)
    if got[1] != expected[1] or [(a.shape, a.dtype) for a in got[0]] != [(np.shape(a), np.asarray(a).dtype)
                                                                       for a in expected[0]]:
        raise fail(f"its parameters (structure {got[1]}) do not fit its model {model!r}")
    return saved


def _no_namedtuples(path):
    def resolve(name, fields, arity):
        raise CheckpointError(f"cannot read checkpoint {path!r}: its parameters contain the namedtuple {name!r}; "
                              "no registered model has one")
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
    (`{"rows": [...], "errors": [[step, error], ...], "metrics": [[step, {...}], ...]}`); returns the path.
    Errors are fractions. A bad suffix or an unwritable path is a `CheckpointError`."""
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
        return plain(v)
    except TypeError:
        return str(v)
