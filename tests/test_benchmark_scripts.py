"""pinn_step.py, first_step.py, fno_step.py and cnn_step.py run through the process-per-framework driver, tiny.

Each script's workers run in their own processes (benchmarks/driver.py); these checks run them on
tiny workloads with one pair and check what they save, never wall-clock figures.
"""
import json
import re
import os
import sys

import pytest

BENCHMARKS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks")
sys.path.insert(0, BENCHMARKS)


def test_the_pinn_step_benchmark_runs_tiny_and_frame_agrees_with_jax(tmp_path, capsys):
    pytest.importorskip("jax")
    import pinn_step

    out = tmp_path / "p.json"
    pinn_step.main(["--sizes", "16", "--width", "8", "--depth", "2", "--pairs", "1", "--warmup", "0",
                    "--repeats", "1", "--min-seconds", "0", "--json", str(out)])
    printed = capsys.readouterr().out
    assert "PINN training step" in printed and "target <= 0.8" in printed
    saved = json.loads(out.read_text())
    assert saved["layers"] == [1, 8, 8, 1] and len(saved["reports"]) == 1
    rows = {s["label"]: s for s in saved["reports"][0]["summary"] if not s["skip"]}
    assert {"frame", "frame-taylor", "jax", "jax-jet"} <= set(rows)
    assert rows["frame"]["case"] == "N=16 w8 d2" and rows["frame"]["flops"] > 0
    for label in ("frame", "frame-taylor", "jax-jet"):   # every variant computes jax.jit's loss
        assert rows[label]["loss diff"] < 1e-5, label
    # nested reverse counts the same GEMMs in both frameworks (within the boundary term's tiny products);
    # frame's Taylor mode needs fewer (three streams through each layer, not reverse over reverse)
    assert rows["frame"]["flops"] == pytest.approx(rows["jax"]["flops"], rel=0.05)
    assert rows["frame-taylor"]["flops"] < 0.9 * rows["frame"]["flops"]
    assert re.search(r"N=16 w8 d2: frame-taylor [\d.]+x jax\.jit \(target <= 0\.8", printed)


def test_the_first_step_benchmark_runs_each_framework_in_its_own_process(tmp_path, capsys):
    pytest.importorskip("jax")
    import first_step

    out = tmp_path / "f.json"
    first_step.main(["--n", "16", "--pairs", "1", "--json", str(out)])
    assert "first finished PINN training step" in capsys.readouterr().out
    saved = json.loads(out.read_text())
    rows = {s["label"]: s for s in saved["summary"] if not s["skip"]}
    assert {"frame", "jax"} <= set(rows) and rows["frame"]["nodes"] > 0
    assert [r["label"] for r in saved["records"]][:2] == ["frame", "jax"]


@pytest.mark.slow
def test_the_fno_step_benchmark_runs_tiny_and_its_losses_agree(tmp_path, capsys):
    pytest.importorskip("jax")
    import fno_step

    out = tmp_path / "n.json"
    fno_step.main(["--batch", "2", "--s", "32", "--width", "4", "--modes", "4", "--layers", "1", "--steps", "1",
                   "--warmup", "0", "--pairs", "1", "--json", str(out)])
    assert "FNO training step" in capsys.readouterr().out
    rows = {s["label"]: s for s in json.loads(out.read_text())["summary"]}
    assert rows["frame"]["loss diff"] < 1e-5 and rows["frame"]["flops"] > 0


def test_the_cnn_step_benchmark_runs_tiny_and_frame_agrees_with_jax(tmp_path, capsys):
    pytest.importorskip("jax")
    import cnn_step

    out = tmp_path / "c.json"
    cnn_step.main(["--batch", "2", "--size", "8", "--pairs", "1", "--warmup", "0", "--repeats", "1",
                   "--min-seconds", "0", "--json", str(out)])
    printed = capsys.readouterr().out
    assert "CNN training step" in printed and "target <= 1.0" in printed
    saved = json.loads(out.read_text())
    rows = {s["label"]: s for s in saved["summary"] if not s["skip"]}
    assert {"frame", "jax"} <= set(rows)
    assert rows["frame"]["case"] == "B=2 8x8"
    assert rows["frame"]["loss diff"] < 1e-5
    assert rows["frame"]["convs"] == 5      # two forward, two weight gradients, one input gradient


def test_the_cnn_step_is_one_sgd_step_of_the_network_in_both_frameworks():
    """In this process: frame's and jax's steps give the same loss and updated parameters."""
    pytest.importorskip("jax")
    import cnn_step
    import frame
    import numpy as np

    problem = cnn_step.make_problem(batch=3, size=8)
    loss, params = frame.function(cnn_step.frame_step_fn())(*problem)
    jloss, jparams = cnn_step.jax_step_fn()(*problem)
    assert abs(float(loss) - float(jloss)) <= 1e-5 * abs(float(jloss))
    for p, q in zip(params, jparams):
        np.testing.assert_allclose(p, np.asarray(q), rtol=1e-4, atol=1e-6)


def test_the_remat_pinn_benchmark_runs_tiny_and_remat_keeps_less(tmp_path, capsys):
    """remat_pinn.py (issue 17 item 4): each variant in its own process, tiny; checkpointed variants
    compute the baseline's loss and keep fewer bytes from forward to backward."""
    import remat_pinn

    out = tmp_path / "r.json"
    remat_pinn.main(["--n", "16", "--width", "8", "--depth", "4", "--pairs", "1", "--warmup", "0", "--repeats", "1",
                     "--min-seconds", "0", "--variants", "jet:none", "jet:block2", "--json", str(out)])
    printed = capsys.readouterr().out
    assert "PINN training step with rematerialisation" in printed and "target (issue 17)" in printed
    assert "kept from forward to backward" in printed
    saved = json.loads(out.read_text())
    rows = {s["label"]: s for s in saved["summary"] if not s["skip"]}
    assert set(rows) == {"jet:none", "jet:block2"}
    base, remat = rows["jet:none"], rows["jet:block2"]
    assert remat["loss"] == pytest.approx(base["loss"], rel=1e-6)
    assert remat["kept"] < base["kept"] and remat["recomputed"] > 0 == base["recomputed"]
    assert remat["tracemalloc"] > 0 and remat["peak"] > 0


def test_the_fno2d_step_benchmark_runs_tiny_and_the_frameworks_losses_agree(tmp_path, capsys):
    """benchmarks/fno2d_step.py (issue 19) on a tiny FNO2d: frame's and jax's first losses agree (the same
    parameters and data); neuraloperator's worker joins when an interpreter with it is found, else it is
    left out with a note."""
    pytest.importorskip("jax")
    import fno2d_step

    out = tmp_path / "f2.json"
    fno2d_step.main(["--batch", "2", "--s", "12", "--width", "3", "--modes", "4", "--layers", "2", "--steps", "1",
                     "--warmup", "0", "--pairs", "1", "--json", str(out)])
    printed = capsys.readouterr().out
    assert "FNO2d training step" in printed and "target <= 1.0" in printed
    rows = {s["label"]: s for s in json.loads(out.read_text())["summary"] if not s["skip"]}
    assert {"frame", "jax"} <= set(rows)
    assert rows["frame"]["loss diff"] < 1e-5 and rows["frame"]["flops"] > 0
    if "neuralop" in rows:
        assert rows["neuralop"]["loss diff"] < 1e-5


def test_the_vs_deepxde_benchmark_runs_tiny_with_the_frame_worker(tmp_path, capsys, monkeypatch):
    """benchmarks/vs_deepxde.py (issue 20 item 5) at a tiny budget, frame's worker only (DeepXDE is left
    out, with a note, when no interpreter with it is given, as in CI): the table, the error figure
    (relative L2 against sin(pi x)) and the saved records."""
    import vs_deepxde

    monkeypatch.delenv("DEEPXDE_PYTHON", raising=False)
    out = tmp_path / "d.json"
    vs_deepxde.main(["--problems", "poisson1d", "--seeds", "0", "--poisson-points", "8", "--adam", "5",
                     "--lbfgs", "3", "--frame-derivatives", "reverse", "--json", str(out)])
    printed = capsys.readouterr().out
    assert "deepxde: left out" in printed and "frame's derivatives: reverse" in printed
    assert "poisson1d: 8 collocation + 2 boundary points" in printed and "float32" in printed
    assert "relative L2 error" in printed and "(geometric mean over 1 seed(s)" in printed
    saved = json.loads(out.read_text())
    assert saved["notes"] and saved["reports"]["poisson1d"]["labels"] == ["frame"]
    (record,) = saved["reports"]["poisson1d"]["records"]
    assert record["label"] == "frame" and record["dtype"] == "float32" and record["seed"] == 0
    assert record["mode"] == "reverse"      # --frame-derivatives reaches pinn.train
    # At 5 + 3 steps the network is far from trained: the error is only checked to be a finite
    # positive figure, and the one the summary prints.
    assert 0.0 < record["error"] < float("inf") and record["time"] > 0
    assert f"relative L2 error {record['error']:.3e}" in printed
    assert 0 < record["lbfgs iters"] <= 3
    # The case file both workers read: the same points and initial weights for every framework.
    import argparse
    import numpy as np
    case = vs_deepxde.make_case("poisson1d", 0, argparse.Namespace(dtype="float64", poisson_points=8))
    assert case["x_f"].shape == (8, 1) and case["W0"].shape == (1, 50) and case["W3"].shape == (50, 1)
    np.testing.assert_allclose(case["u_test"][:, 0], np.sin(np.pi * case["x_test"][:, 0]))


def test_the_vs_deepxde_summary_pairs_errors_by_seed():
    import math

    import vs_deepxde
    from driver import Report

    def record(label, seed, error, pair):
        return {"case": "burgers1d", "label": label, "seed": seed, "error": error, "pair": pair,
                "time": 1.0 if label == "frame" else 2.5, "lbfgs iters": 10, "lbfgs evals": 12, "version": "v"}

    # DeepXDE's records in another seed order: pairing is by seed, not by position
    records = [record("frame", 0, 2e-3, 0), record("frame", 1, 1e-3, 1), record("frame", 2, 4e-3, 2),
               record("deepxde", 2, 2e-3, 2), record("deepxde", 0, 1e-3, 0), record("deepxde", 1, 2e-3, 1)]
    logs = vs_deepxde.error_log_ratios(records[:3], records[3:])
    assert logs == pytest.approx([math.log(2), math.log(0.5), math.log(2)])
    lines = vs_deepxde.summarise(Report(["frame", "deepxde"], "deepxde", 3, records), "burgers1d")
    text = "\n".join(lines)
    assert "wall time 0.400x" in text and "not met" in text   # error 1.26x DeepXDE's geometric mean
    assert f"mean {math.log(2) / 3:+.3f}" in text and "over 3 seeds (frame lower in 1)" in text
    assert "undecided within 0.8-1.25x" in text   # 3 seeds this far apart decide nothing


@pytest.mark.parametrize("spread, verdict, met", [(0.05, "equivalent", "met"), (0.9, "undecided", "not met")])
def test_the_vs_deepxde_verdict_reads_the_error_ratio_interval(spread, verdict, met):
    import math

    import numpy as np
    import vs_deepxde
    from driver import Report

    # 12 seeds whose log error ratios alternate +-spread around 0: the geometric means are equal, and only
    # the interval says whether the seeds decide it (0.05: 0.97-1.03x; 0.9: 0.60-1.67x)
    records = []
    for seed in range(12):
        base = 1e-3 * (1 + seed)
        records += [{"case": "burgers1d", "label": "frame", "seed": seed, "pair": seed, "time": 1.0,
                     "error": base * math.exp(spread if seed % 2 else -spread), "lbfgs iters": 1, "version": "v"},
                    {"case": "burgers1d", "label": "deepxde", "seed": seed, "pair": seed, "time": 2.5, "error": base,
                     "lbfgs iters": 1, "version": "v"}]
    text = "\n".join(vs_deepxde.summarise(Report(["frame", "deepxde"], "deepxde", 12, records), "burgers1d"))
    assert f"{verdict} within 0.8-1.25x" in text
    assert f"(90% interval of the error ratio): {met}" in text
    lo, hi = vs_deepxde.error_interval([spread if s % 2 else -spread for s in range(12)])
    assert lo == pytest.approx(1 / hi) and np.isclose(math.log(hi), 1.796 * spread * math.sqrt(12 / 11) / math.sqrt(12),
                                                      rtol=1e-3)


def test_the_raissi_jax_twin_poses_the_same_problem_as_frame():
    # pinn_burgers.py --raissi --jax-lbfgs: where frame's float32 L-BFGS stops is compared with the same
    # L-BFGS-B on the loss written in JAX; that only says something if the two losses are the same.
    pytest.importorskip("jax")
    import numpy as np

    import pinn
    import pinn_burgers

    problem = pinn.BurgersRaissi(n_collocation=64, n_data=16, dtype="float64")
    model = problem.default_model(seed=0)
    initial = [{k: np.array(a) for k, a in layer.items()} for layer in model.params]
    data = problem.training_data(0)
    result = pinn.train(problem, model, steps=0, lbfgs_steps=5, progress=False, derivative_mode="reverse")
    twin = pinn_burgers.jax_raissi_lbfgs(problem, model, initial, data, maxiter=5, tol=1e-15)
    assert twin["nit"] == result.lbfgs_iterations == 5
    assert twin["loss"] == pytest.approx(result.history[-1], rel=1e-8)
    assert twin["error"] == pytest.approx(result.relative_l2_error, rel=1e-6)


def test_the_fno_burgers_benchmark_runs_tiny(capsys):
    """benchmarks/fno_burgers.py end to end on a tiny budget: its step time (the native tier's, from
    driver.time_trainer_step) sets the steps, and the table compares with the heat predictor."""
    import fno_burgers

    fno_burgers.main(fno_burgers.parse_args(["--s", "128", "--budget-minutes", "0.05", "--max-epochs", "2",
                                             "--train", "4", "--test", "2", "--batch", "2", "--modes", "4",
                                             "--width", "4", "--layers", "1", "--no-progress"]))
    out = capsys.readouterr().out
    assert "training at s = 128:" in out and "heat-equation predictor" in out
    assert "frame FNO1d, s=128" in out


def test_the_navier_stokes_benchmark_runs_tiny_and_can_share_one_data_set(tmp_path, capsys, monkeypatch):
    import fno_navier_stokes
    from pino import datasets

    asked = []
    real = datasets.navier_stokes_data

    def recording(num, s, seed, **kwargs):
        asked.append((num, seed))
        return real(num, s, seed=seed, cache_directory=tmp_path, **kwargs)

    monkeypatch.setattr(fno_navier_stokes.ds, "navier_stokes_data", recording)
    args = ["--s", "16", "--t-out", "2", "--train", "4", "--test", "2", "--batch", "2", "--modes", "4", "--width", "4",
            "--layers", "1", "--max-epochs", "1", "--seeds", "0", "1", "--no-progress"]
    fno_navier_stokes.main(fno_navier_stokes.parse_args(args + ["--data-seed", "7"]))
    printed = capsys.readouterr().out
    assert "[seed 0]" in printed and "[seed 1]" in printed and "mean +- std over 2 seeds" in printed
    assert asked == [(4, 7), (2, 1007)] * 2          # both seeds train and test on the same samples
    asked.clear()
    fno_navier_stokes.main(fno_navier_stokes.parse_args(args))
    assert asked == [(4, 0), (2, 1000), (4, 1), (2, 1001)]   # by default each seed draws its own
    fno_navier_stokes.main(fno_navier_stokes.parse_args(args[:-3] + ["0", "--block", "1", "--no-progress"]))
    printed = capsys.readouterr().out
    assert "1 steps at a time, rolled out 2 times" in printed and "first block alone" in printed
    with pytest.raises(SystemExit, match="must divide"):
        fno_navier_stokes.main(fno_navier_stokes.parse_args(args + ["--block", "3"]))
    fno_navier_stokes.main(fno_navier_stokes.parse_args(args[:-3] + ["0", "--block", "1", "--rollout-training",
                                                                     "--no-progress"]))
    printed = capsys.readouterr().out
    assert "trained through its rollout over 2 steps" in printed and "first block alone" not in printed
    fno_navier_stokes.main(fno_navier_stokes.parse_args(args[:-3] + ["0", "--block", "1", "--rollout-minutes", "0.01",
                                                                     "--no-progress"]))
    printed = capsys.readouterr().out
    assert "first block alone" in printed and "then through the rollout" in printed
    assert re.search(r"through the rollout, along the way \(epoch: test relative L2\): [0-9.]+: [0-9.]+%", printed)
    assert "trained on true windows, then through its rollout" in printed
    with pytest.raises(SystemExit, match="not with --rollout-training"):
        fno_navier_stokes.main(fno_navier_stokes.parse_args(args + ["--block", "1", "--rollout-training",
                                                                    "--rollout-minutes", "1"]))


def test_the_navier_stokes_rollout_chains_blocks_of_true_windows():
    import fno_navier_stokes
    import numpy as np
    from pino import datasets

    times = np.arange(1, 15, dtype=float)[None, :, None, None] * np.ones((2, 1, 3, 3))   # w(t) = t, t = 1..14
    data = datasets.FieldData(times[:, :10], times[:, 10:], {}, {})
    pairs = fno_navier_stokes.windows(data, 2)
    assert pairs.inputs.shape == (4, 10, 3, 3) and pairs.outputs.shape == (4, 2, 3, 3)
    assert pairs.inputs[2:, :, 0, 0].tolist() == [list(range(3, 13))] * 2        # the second window: t = 3..12
    assert pairs.outputs[2:, :, 0, 0].tolist() == [[13, 14]] * 2

    class Shift:   # a perfect 2-step model of w(t) = t: each block continues from the last input
        def apply(self, params, x):
            assert x.shape[1] == 10
            return x[:, -2:] + params

    import frame
    in_graph = frame.function(fno_navier_stokes.Rollout(Shift(), 2).apply)(np.float32(2), data.inputs.astype("float32"))
    np.testing.assert_array_equal(np.asarray(in_graph), data.outputs)   # 11..12, then 13..14 from the predicted 11, 12


def test_the_darcy_benchmark_runs_tiny_and_fine_tunes_on_a_finer_grid(tmp_path, capsys, monkeypatch):
    import pino_darcy

    monkeypatch.setenv("FRAME_CACHE_DIR", str(tmp_path))
    args = ["--s", "5", "--solver-n", "17", "--train", "8", "--test", "2", "--batch", "4", "--modes", "4", "--width",
            "8", "--layers", "2", "--max-epochs", "1", "--seeds", "0", "--fine-tune", "100", "--fine-tune-samples", "1",
            "--fine-tune-lr", "1e-2", "--fine-tune-s", "17", "--no-progress"]
    pino_darcy.main(pino_darcy.parse_args(args))
    printed = capsys.readouterr().out
    assert "[fno seed 0] test relative L2" in printed and "[pino seed 0] test relative L2" in printed
    assert re.search(r"\[fno seed 0\] along the way \(epoch: test relative L2\): 0: [0-9.]+%, .*1: [0-9.]+%", printed)
    match = re.search(r"fine-tuned on 1 instances at s = 17: ([0-9.]+)% -> ([0-9.]+)%", printed)
    assert match, printed
    # the PDE on the solver's own 17-point grid (its scheme is the PDE loss's minimiser): a 1-epoch model's error
    # must at least halve
    assert float(match.group(2)) < 0.5 * float(match.group(1))
    files = [p.name for p in (tmp_path / "pino").glob("darcy-*.npz")]
    assert any("s=17" in f for f in files) and any("s=5" in f for f in files)
