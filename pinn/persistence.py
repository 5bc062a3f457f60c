"""Keeping trained PINNs: `save` / `load` through `workbench.persistence`, and history files.

The file format, the safe loading and the history files are the workbench's
(`workbench.persistence`: one `frame.train.checkpoint` file, also a valid `Trainer` checkpoint, so
`pinn.train(..., resume=path)` continues Adam exactly where it stopped). This module registers
pinn's networks (`MODEL_CLASSES`: `MLP`, `FourierFeatureMLP`, `ModifiedMLP`, by their constructor
config) in the workbench's allow-list and adds what only a PINN has: the derivative mode chosen,
an inverse problem's trained coefficients (`variables`), and whether the network had a feature or
output transform (a Python callable, which a file cannot hold: `load` then needs `model=`, the same
network rebuilt by the caller, transforms included).

`save`, `load` and `write_history` keep the names and behaviour they had before the workbench;
files written then (format "pinn.saved/1") still load.
"""
from __future__ import annotations

import os

import numpy as np

from frame.errors import CheckpointError
from workbench import persistence as wb
from workbench.persistence import history_rows, problem_settings, write_history  # noqa: F401  (pinn's names)

from .models import FourierFeatureMLP, MLP, ModifiedMLP, Network

__all__ = ["PINN_FORMAT", "MODEL_CLASSES", "SavedPINN", "save", "load", "model_config", "build_model", "same_network",
           "write_history", "history_rows", "problem_settings"]

#: the format pinn wrote before `workbench.persistence` (still read); new files are `workbench.persistence.SAVED_FORMAT`
PINN_FORMAT = wb.LEGACY_PINN_FORMAT

#: the network classes `load` builds, by name (nothing outside this table is ever constructed)
MODEL_CLASSES = {"MLP": MLP, "FourierFeatureMLP": FourierFeatureMLP, "ModifiedMLP": ModifiedMLP}


def model_config(model: Network) -> dict:
    """The constructor arguments of a pinn network as JSON data (`build_model` inverts it)."""
    name = type(model).__name__
    if MODEL_CLASSES.get(name) is not type(model):
        raise CheckpointError(f"pinn.save: cannot store a {name}; a saved PINN holds one of pinn's models "
                              f"({', '.join(MODEL_CLASSES)})")
    config = {"layer_sizes": list(model.layer_sizes), "activation": model.activation, "seed": wb.plain(model.seed),
              "dtype": model.dtype, "input_bounds": wb.plain(model.input_bounds)}
    if isinstance(model, FourierFeatureMLP):
        config.update(sigma=model.sigma, num_features=model.num_features)
    return config


def build_model(name, config, path: str = "<checkpoint>") -> Network:
    """The network `name(**config)` from a checkpoint's metadata; `CheckpointError` for anything else."""
    if not isinstance(name, str) or name not in MODEL_CLASSES:
        raise CheckpointError(f"cannot read checkpoint {path!r}: it names the model class {name!r}, which pinn does "
                              f"not build (known: {', '.join(MODEL_CLASSES)}); nothing in the file was run")
    return wb.build_model(name, config, path)


def same_network(a: Network, b: Network) -> bool:
    """Whether `a` and `b` are the same architecture: class and config; the seed only where it fixes more
    than the initial parameters (a Fourier-feature model's frequencies B are drawn from it)."""
    if type(a) is not type(b):
        return False
    ca, cb = model_config(a), model_config(b)
    if not isinstance(a, FourierFeatureMLP):
        ca.pop("seed"), cb.pop("seed")
    return ca == cb


class SavedPINN(wb.Saved):
    """What `load` returns for a pinn network: a `workbench.persistence.Saved` plus a PINN's own record.

    `model` (with its `params` set to the trained network parameters), `params` (the training
    parameters: the network's, plus an inverse problem's coefficients under "variables"),
    `network_params`, `predict(x)` (= `model.apply(network_params, x)` as numpy), `history`,
    `phases` (["adam", n], ["lbfgs", m], ...), `errors`, `metrics`, `derivative_mode` (a dict),
    `variables`, `problem_name`, `problem_settings`, `seed`, and the optimiser's `opt_state`,
    `optimizer_config` and `step_count` (what `pinn.train(resume=...)` continues from).
    """

    def __init__(self, path, model, params, history, meta, opt_state, record):
        super().__init__(path, model, params, history, meta, opt_state, record)
        extra = self.extra
        self.derivative_mode = extra.get("derivative_mode")
        variables = extra.get("variables") or {}
        transforms = extra.get("transforms") or {}
        if not isinstance(variables, dict) or not isinstance(transforms, dict):
            raise CheckpointError(f"cannot read checkpoint {path!r}: its pinn metadata variables={variables!r} / "
                                  f"transforms={transforms!r} are not JSON objects")
        self.variables, self.transforms = variables, transforms

    @property
    def network_params(self):
        """The network's parameters (without an inverse problem's coefficients)."""
        if self.variables:
            return self.params["net"]
        return self.params

    def predict(self, x) -> np.ndarray:
        """The trained network at points `x` of shape (N, in_dim), as a numpy array (N, out_dim)."""
        return np.asarray(self.model.apply(self.network_params, np.asarray(x, dtype=self.model.dtype)))

    def __repr__(self):
        return (f"<SavedPINN {self.problem_name} {self.model!r}: {len(self.history)} losses, "
                f"errors {self.errors[-1:] if self.errors else 'none'}>")


for _name, _cls in MODEL_CLASSES.items():
    wb.register_model(_name, _cls, model_config, same=same_network, template=lambda model, dtype: model.params,
                      saved_type=SavedPINN)


def save(result, path, *, model: Network | None = None, problem=None) -> str:
    """Save a trained PINN to `path` (frame's safe checkpoint format, written atomically); returns the path.

    `result` is a `PINNResult` (everything is taken from it) or a parameter pytree, with `model`
    (whose own `params` are used if `result` is None) and optionally `problem`. A `CheckpointError`
    names what cannot be stored (a model that is not one of pinn's, an unwritable path).
    """
    from .training import PINNResult

    if not isinstance(result, PINNResult):
        if not isinstance(model, Network):
            raise CheckpointError("pinn.save: saving parameters needs model= (the pinn network they belong to)")
        result = PINNResult(problem=problem, model=model, params=model.params if result is None else result,
                            dtype=model.dtype)
    model_config(result.model)   # pinn's own message for a model that is not pinn's
    return wb.save(result, path)


def load(path, *, model: Network | None = None) -> SavedPINN:
    """Load a PINN saved by `save`: a `SavedPINN` whose `model.apply(params, x)` / `predict(x)` give the
    saved network's predictions bit for bit.

    The model is rebuilt from the file's class name (one of `MODEL_CLASSES`) and config; pass
    `model=` for a network with feature/output transforms (which a file cannot hold), it must have
    the stored class and config (`same_network`). Anything wrong with the file is a `CheckpointError` naming it.
    """
    path = os.fspath(path)
    saved = wb.load(path, model=model)
    if not isinstance(saved, SavedPINN):
        raise CheckpointError(f"cannot read checkpoint {path!r}: it holds a {saved.model_name}, not a saved PINN "
                              f"(pinn's models: {', '.join(MODEL_CLASSES)})")
    if model is None and any(saved.transforms.values()):
        raise CheckpointError(f"cannot read checkpoint {path!r}: its model had a feature/output transform (a Python "
                              "function, not stored); pass model= with the same network, transforms included")
    if saved.variables and not (isinstance(saved.params, dict) and "net" in saved.params):
        raise CheckpointError(f"cannot read checkpoint {path!r}: it records an inverse problem's variables but its "
                              "parameters have no 'net' entry")
    saved.model.params = saved.network_params
    return saved
