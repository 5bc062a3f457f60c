"""workbench.Result and workbench.persistence: save/load round trips, the allow-list, history files (issue 20)."""
import csv
import json
import math
import os
import zipfile

import numpy as np
import pytest

import frame.numpy as fnp
from frame.errors import CheckpointError
from workbench import Result, load, register_model, save
from workbench import persistence as wb
from workbench.result import add_phase
from tests.checkpoint_files import rewrite_meta


class Affine:
    """A toy model for these tests: x @ w + b."""

    def __init__(self, n_in, n_out=1):
        self.n_in, self.n_out = n_in, n_out

    def init(self, seed=0, dtype="float64"):
        rng = np.random.default_rng(seed)
        return {"w": rng.normal(size=(self.n_in, self.n_out)).astype(dtype), "b": np.zeros(self.n_out, dtype)}

    def apply(self, params, x):
        return fnp.matmul(x, params["w"]) + params["b"]


register_model("tests.Affine", Affine, lambda m: {"n_in": m.n_in, "n_out": m.n_out})


def _result(**changes):
    model = Affine(3)
    fields = dict(problem_name="toy", model=model, params=model.init(1), history=[3.0, 2.0, 1.5, 1.25],
                  phases=[("adam", 3), ("lbfgs", 1)], errors=[(2, 0.5), (4, 0.25)], metrics=[(2, {"rel_l2": 0.5})],
                  timings={"data": 0.1, "adam": 1.0, "lbfgs": 0.5, "total": 1.7}, opt_state=[np.ones(2), np.zeros(1)],
                  optimizer_config={"type": "Adam", "lr": 0.01}, step_count=3, seed=7, dtype="float64")
    fields.update(changes)
    return Result(**fields)


def test_result_figures_are_fractions_and_seconds():
    r = _result()
    assert r.relative_l2_error == 0.25 and r.wall_time == 1.5 and r.final_loss == 1.25
    assert math.isnan(_result(errors=[]).relative_l2_error) and math.isnan(_result(history=[]).final_loss)
    x = np.ones((2, 3))
    np.testing.assert_array_equal(r.predict(x), x @ r.params["w"] + r.params["b"])


def test_add_phase_merges_runs_of_one_optimiser():
    phases = []
    for name, n in [("adam", 5), ("adam", 3), ("lbfgs", 0), ("lbfgs", 2), ("adam", 1)]:
        add_phase(phases, name, n)
    assert phases == [("adam", 8), ("lbfgs", 2), ("adam", 1)]


def test_save_load_round_trip(tmp_path):
    r = _result()
    path = r.save(tmp_path / "m.npz")
    saved = load(path)
    assert isinstance(saved.model, Affine) and saved.model.n_in == 3
    for key in ("history", "phases", "errors", "metrics", "timings", "step_count", "seed", "dtype",
                "optimizer_config", "problem_name"):
        assert getattr(saved, key) == getattr(r, key), key
    assert saved.relative_l2_error == 0.25
    for a, b in zip(saved.opt_state, r.opt_state):
        np.testing.assert_array_equal(a, b)
    x = np.linspace(-1, 1, 6).reshape(2, 3)
    np.testing.assert_array_equal(saved.predict(x), r.predict(x))
    with zipfile.ZipFile(path) as z:          # a plain frame checkpoint: .npy members only
        assert all(n.endswith(".npy") for n in z.namelist())
    # the same model passed in is used; another architecture is refused
    mine = Affine(3)
    assert load(path, model=mine).model is mine
    with pytest.raises(CheckpointError, match="but model= is"):
        load(path, model=Affine(4))


def test_only_registered_models_are_built_and_nothing_named_runs(tmp_path, monkeypatch):
    path = _result().save(tmp_path / "m.npz")
    ran = []
    monkeypatch.setattr(os, "system", lambda *a: ran.append(a))
    for i, name in enumerate(["os:system", "builtins.eval", "Affine", "__import__"]):
        bad = tmp_path / f"bad{i}.npz"
        rewrite_meta(path, bad, lambda m: m["workbench"].update(model=name))
        with pytest.raises(CheckpointError, match=f"names the model class '{name}', which is not registered"):
            load(bad)
    assert ran == []
    for i, (change, message) in enumerate([
            (lambda m: m["workbench"]["model_config"].update(n_in="three"), "cannot be initialised"),
            (lambda m: m["workbench"]["model_config"].update(width=3), "does not build a tests.Affine"),
            (lambda m: m["workbench"]["model_config"].update(n_in=4), "do not fit its model"),
            (lambda m: m["workbench"].update(phases=[["adam", 9]]), "do not cover its 4 losses"),
            (lambda m: m["workbench"].update(errors=[["x", 1]]), "not \\[step, error\\] pairs"),
            (lambda m: m["workbench"].update(dtype="object"), "is not float32 or float64"),
            (lambda m: m.pop("workbench"), "not a saved model")]):
        bad = tmp_path / f"worse{i}.npz"
        rewrite_meta(path, bad, change)
        with pytest.raises(CheckpointError, match=message):
            load(bad)


def test_unregistered_models_and_clashing_names_are_refused(tmp_path):
    class Other(Affine):
        pass

    with pytest.raises(CheckpointError, match="cannot store a Other"):
        save(_result(model=Other(3)), tmp_path / "o.npz")
    with pytest.raises(CheckpointError, match="already registered"):
        register_model("tests.Affine", Other, lambda m: {})
    assert not (tmp_path / "o.npz").exists()


def test_history_files(tmp_path):
    r = _result()
    rows = list(csv.DictReader(open(r.write_history(tmp_path / "h.csv"))))
    assert [r_["phase"] for r_ in rows] == ["adam", "adam", "adam", "lbfgs"]
    assert [float(r_["loss"]) for r_ in rows] == r.history
    assert {int(r_["step"]): float(r_["relative_l2_error"]) for r_ in rows if r_["relative_l2_error"]} == dict(r.errors)
    doc = json.load(open(r.write_history(tmp_path / "h.json")))
    assert [row["loss"] for row in doc["rows"]] == r.history and doc["metrics"] == [[2, {"rel_l2": 0.5}]]
    with pytest.raises(CheckpointError, match="must end in .csv or .json"):
        r.write_history(tmp_path / "h.txt")
    with pytest.raises(CheckpointError, match="cannot write"):
        r.write_history(tmp_path / "missing" / "h.csv")
    # an error measured past the last loss gets a row of its own
    assert wb.history_rows([1.0], [("adam", 1)], [(1, 0.5), (3, 0.1)])[-1] == {
        "step": 3, "phase": "eval", "loss": None, "relative_l2_error": 0.1}
