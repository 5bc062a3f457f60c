"""pinn.save / pinn.load / train(resume=) / write_history and the CLI's --save, --load, --log (issue 20 item 2)."""
import csv
import json
import os
import zipfile

import numpy as np
import pytest

import frame
from frame.errors import CheckpointError
from pinn import MLP, FourierFeatureMLP, ModifiedMLP, Poisson1D, load, save, train
from pinn.__main__ import main
from pinn.persistence import MODEL_CLASSES
from tests.checkpoint_files import rewrite_meta


@pytest.fixture(scope="module")
def poisson():
    return Poisson1D(n_collocation=16)


def _train(problem, steps, **kwargs):
    # reverse mode throughout: "auto" times the modes, and two runs compared bit for bit must not differ in it
    kwargs.setdefault("derivative_mode", "reverse")
    return train(problem, MLP([1, 8, 1], seed=1), steps=steps, lr=1e-2, progress=False, eval_every=50, **kwargs)


def test_round_trip_predicts_bit_for_bit(poisson, tmp_path):
    result = _train(poisson, 30, lbfgs_steps=5)
    path = result.save(tmp_path / "model.npz")
    saved = load(path)
    x = np.linspace(-1.3, 1.3, 11).reshape(-1, 1)   # new points, some outside the training domain
    np.testing.assert_array_equal(saved.predict(x), result.predict(x))
    np.testing.assert_array_equal(np.asarray(saved.model.apply(saved.params, x)), result.predict(x))
    assert type(saved.model) is MLP and saved.model.layer_sizes == [1, 8, 1] and saved.model.seed == 1
    assert saved.history == result.history and saved.errors == result.errors
    assert saved.phases == [("adam", 30), ("lbfgs", result.lbfgs_iterations)]
    assert saved.problem_name == "poisson1d" and saved.problem_settings["domain"] == [-1.0, 1.0]
    assert saved.derivative_mode["mode"] == result.derivative_mode.mode
    assert saved.step_count == 30 and saved.optimizer_config["type"] == "Adam" and saved.seed == 0
    assert len(saved.opt_state) == 2 * 4 + 1   # Adam: m and v per leaf (2 layers x W, b), then the step
    # the file is a plain frame.train checkpoint: only .npy members, JSON metadata naming the class
    with zipfile.ZipFile(path) as z:
        assert all(n.endswith(".npy") for n in z.namelist())


@pytest.mark.parametrize("model", [FourierFeatureMLP([1, 6, 1], sigma=2.0, num_features=4, seed=3),
                                   ModifiedMLP([1, 5, 5, 1], activation="sin", seed=2)])
def test_other_models_round_trip(poisson, model, tmp_path):
    path = save(None, tmp_path / "m.npz", model=model, problem=poisson)
    saved = load(path)
    x = np.linspace(-1, 1, 9).reshape(-1, 1)
    assert type(saved.model) is type(model)
    np.testing.assert_array_equal(saved.predict(x), np.asarray(model(x)))


def test_resume_equals_uninterrupted_training(poisson, tmp_path):
    whole = _train(poisson, 200)
    first = _train(poisson, 100)
    path = first.save(tmp_path / "half.npz")
    resumed = train(poisson, steps=100, lr=1e-2, progress=False, eval_every=50, resume=path)
    # same Adam moments and step count: the same trajectory, bit for bit on one machine
    for a, b in zip(frame.tree_leaves(resumed.params), frame.tree_leaves(whole.params)):
        np.testing.assert_array_equal(a, b)
    assert resumed.history == whole.history and resumed.step_count == 200 and resumed.resumed_at == 100
    assert resumed.relative_l2_error == whole.relative_l2_error
    assert resumed.phases == [("adam", 200)]
    # L-BFGS after a resume starts from the saved parameters
    polished = train(poisson, steps=0, lbfgs_steps=5, progress=False, resume=path)
    assert polished.history[:100] == first.history and polished.phases[-1][0] == "lbfgs"
    assert polished.history[-1] < first.history[-1]


def test_resume_refuses_another_problem_or_model(poisson, tmp_path):
    from pinn import Burgers1D, ProblemError
    path = _train(poisson, 5).save(tmp_path / "m.npz")
    with pytest.raises(ProblemError, match="trained on 'poisson1d', not on 'burgers1d'"):
        train(Burgers1D(n_collocation=8), steps=1, progress=False, resume=path)
    with pytest.raises(CheckpointError, match="but model= is"):
        train(poisson, MLP([1, 4, 1]), steps=1, progress=False, resume=path)


def test_unknown_model_class_is_refused_and_nothing_runs(poisson, tmp_path, monkeypatch):
    path = _train(poisson, 3).save(tmp_path / "m.npz")
    ran = []
    monkeypatch.setattr(os, "system", lambda *a: ran.append(a))   # what a malicious class name might reach
    for name in ("os:system", "posix.system", "Network", "__import__"):
        bad = tmp_path / f"bad_{len(ran)}_{name.replace(':', '_')}.npz"
        rewrite_meta(path, bad, lambda m: m["workbench"].update(model=name))
        with pytest.raises(CheckpointError, match=rf"names the model class '{name}', which is not registered"):
            load(bad)
    assert ran == [] and "Network" not in MODEL_CLASSES
    bad = tmp_path / "bad_config.npz"
    rewrite_meta(path, bad, lambda m: m["workbench"]["model_config"].update(activation="relu"))
    with pytest.raises(CheckpointError, match="does not build a MLP"):
        load(bad)
    bad = tmp_path / "bad_phases.npz"
    rewrite_meta(path, bad, lambda m: m["workbench"].update(phases=[["adam", 99]]))
    with pytest.raises(CheckpointError, match="do not cover its 3 losses"):
        load(bad)


def test_truncated_and_foreign_files_are_refused(poisson, tmp_path):
    path = _train(poisson, 3).save(tmp_path / "m.npz")
    data = open(path, "rb").read()
    for cut in (len(data) // 2, 10, 0):
        truncated = tmp_path / f"cut{cut}.npz"
        truncated.write_bytes(data[:cut])
        with pytest.raises(CheckpointError, match="cannot read checkpoint"):
            load(truncated)
    # a plain Trainer checkpoint is a frame checkpoint but not a saved PINN
    trainer_ckpt = tmp_path / "trainer.ckpt"
    _train(poisson, 2, checkpoint=trainer_ckpt)
    with pytest.raises(CheckpointError, match="not a saved model"):
        load(trainer_ckpt)


def test_history_as_csv_and_json(poisson, tmp_path):
    result = _train(poisson, 100, lbfgs_steps=4)
    n = len(result.history)
    result.write_history(tmp_path / "h.csv")
    rows = list(csv.DictReader(open(tmp_path / "h.csv")))
    assert len(rows) == n and [r["step"] for r in rows[:3]] == ["1", "2", "3"]
    assert [float(r["loss"]) for r in rows] == result.history  # repr: exact floats
    assert {r["phase"] for r in rows[:100]} == {"adam"} and {r["phase"] for r in rows[100:]} == {"lbfgs"}
    measured = {int(r["step"]): float(r["relative_l2_error"]) for r in rows if r["relative_l2_error"]}
    assert measured == dict(result.errors) and set(measured) == {50, 100, n}
    result.write_history(tmp_path / "h.json")
    doc = json.load(open(tmp_path / "h.json"))
    assert [r["loss"] for r in doc["rows"]] == result.history
    assert [tuple(e) for e in doc["errors"]] == result.errors
    assert [s for s, _ in doc["metrics"]] == [50, 100] and doc["metrics"][0][1]["rel_l2"] == result.errors[0][1]
    with pytest.raises(CheckpointError, match="must end in .csv or .json"):
        result.write_history(tmp_path / "h.txt")


def test_cli_save_load_log(tmp_path, capsys):
    model = tmp_path / "model.npz"
    code = main(["--problem", "poisson1d", "--steps", "20", "--lbfgs", "3", "--out", str(tmp_path / "a"),
                 "--no-progress", "--save", str(model), "--log", str(tmp_path / "h.csv")])
    out = capsys.readouterr().out
    assert code == 0 and f"model: {model}" in out and model.exists()
    first = json.load(open(tmp_path / "a" / "metrics.json"))
    assert len(list(csv.DictReader(open(tmp_path / "h.csv")))) == len(load(model).history)
    # evaluate only: the same error as when it was saved, nothing trained
    code = main(["--problem", "poisson1d", "--steps", "0", "--lbfgs", "0", "--out", str(tmp_path / "b"),
                 "--no-progress", "--load", str(model), "--log", str(tmp_path / "h.json")])
    assert code == 0
    second = json.load(open(tmp_path / "b" / "metrics.json"))
    assert second["relative_l2_error"] == first["relative_l2_error"]
    assert len(json.load(open(tmp_path / "h.json"))["rows"]) == len(load(model).history)


def test_cli_bad_persistence_flags_exit_2_before_training(tmp_path, capsys):
    saved = tmp_path / "poisson.npz"
    _train(Poisson1D(n_collocation=8), 2).save(saved)
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"not a checkpoint")
    for flags, message in [(["--log", str(tmp_path / "h.txt")], "must end in .csv or .json"),
                           (["--save", str(tmp_path)], "is a directory"),
                           (["--load", str(tmp_path / "absent.npz")], "no such file"),
                           (["--load", str(garbage)], "not a zip archive"),
                           (["--load", str(saved), "--problem", "heat"], "trained on --problem poisson1d, not heat")]:
        with pytest.raises(SystemExit) as info:
            main([*flags, "--no-progress", "--out", str(tmp_path / "out")])
        assert info.value.code == 2
        captured = capsys.readouterr()
        errors = [line for line in captured.err.splitlines() if "error:" in line]
        assert captured.out == "" and len(errors) == 1 and message in errors[0], captured.err


def test_a_model_with_a_transform_needs_model_on_load(tmp_path):
    def hard_zero_ends(x, u):
        return (1 - x ** 2) * u

    model = MLP([1, 8, 1], seed=4).apply_output_transform(hard_zero_ends)
    path = save(None, tmp_path / "t.npz", model=model)
    with pytest.raises(CheckpointError, match="feature/output transform .* pass model="):
        load(path)
    again = MLP([1, 8, 1], seed=0).apply_output_transform(hard_zero_ends)   # another init: params come from the file
    x = np.linspace(-1, 1, 5).reshape(-1, 1)
    np.testing.assert_array_equal(load(path, model=again).predict(x), np.asarray(model(x)))


def test_inverse_problem_variables_are_kept_and_resumed(tmp_path):
    from pinn import BurgersInverse
    problem = BurgersInverse(n_collocation=32, n_observations=32)
    # one derivative mode for both runs: "auto" measures timings, and under load it may pick either mode
    whole = train(problem, steps=6, progress=False, derivative_mode="reverse")
    half = train(problem, steps=3, progress=False, derivative_mode="reverse")
    saved = load(half.save(tmp_path / "inv.npz"))
    assert saved.variables == half.variables and set(saved.variables) == {"l1", "log_l2"}
    resumed = train(problem, steps=3, progress=False, resume=saved)     # "auto" keeps the saved mode
    assert resumed.derivative_mode.mode == "reverse" and resumed.variables == whole.variables


def test_errors_are_measured_during_lbfgs(poisson):
    """frame.train.lbfgs calls `callback(iteration, params)` every `every` iterations; pinn.train
    measures the error there, so the history has errors from both phases."""
    import pinn.training as training

    result = train(poisson, MLP([1, 8, 1], seed=1), steps=4, lbfgs_steps=6, lr=1e-2, progress=False, eval_every=2)
    assert isinstance(result, training.PINNResult) and result.lbfgs_iterations == 6
    steps = [s for s, _ in result.errors]
    assert steps == [2, 4, 6, 8, 10, 10]   # Adam at 2, 4; L-BFGS iterations 2, 4, 6 at history entries 6, 8, 10
    assert [s for s, _ in result.metrics] == [2, 4, 6, 8, 10]


def test_files_saved_before_the_workbench_still_load(poisson, tmp_path):
    """pinn wrote its record under a "pinn" metadata entry (format pinn.saved/1) before workbench.persistence."""
    result = _train(poisson, 20)
    path = result.save(tmp_path / "new.npz")

    def to_legacy(meta):
        record = meta.pop("workbench")
        extra = record["extra"]
        meta["pinn"] = {"format": "pinn.saved/1", "model": record["model"], "model_config": record["model_config"],
                        "transforms": extra["transforms"], "problem": record["problem"],
                        "problem_settings": record["problem_settings"], "errors": record["errors"],
                        "phases": record["phases"], "derivative_mode": extra["derivative_mode"],
                        "seed": record["seed"], "variables": extra["variables"]}

    old = tmp_path / "old.npz"
    rewrite_meta(path, old, to_legacy)
    saved = load(old)
    x = np.linspace(-1, 1, 7).reshape(-1, 1)
    np.testing.assert_array_equal(saved.predict(x), result.predict(x))
    assert saved.errors == result.errors and saved.phases == [("adam", 20)] and saved.problem_name == "poisson1d"
    resumed = train(poisson, steps=5, lr=1e-2, progress=False, resume=old)
    assert resumed.step_count == 25 and resumed.history[:20] == result.history
