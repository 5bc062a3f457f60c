"""`python -m pinn`: trains, prints the error and the plot paths, writes solution.png and loss.png."""
import json
import os
import re
import subprocess
import sys

import pytest

import pinn.training
from pinn.__main__ import main


def test_module_entry_point_trains_and_writes_plots(tmp_path):
    out = tmp_path / "poisson"
    proc = subprocess.run([sys.executable, "-m", "pinn", "--problem", "poisson1d", "--steps", "30", "--lbfgs", "10",
                           "--out", str(out), "--no-progress"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"^test rel\. L2 [0-9.]+% \([0-9.]+e-\d\d\); [0-9.]+ s training$", proc.stdout, re.M), proc.stdout
    assert f"solution plot: {out / 'solution.png'}" in proc.stdout
    assert f"loss plot: {out / 'loss.png'}" in proc.stdout
    assert os.path.getsize(out / "solution.png") > 10_000 and os.path.getsize(out / "loss.png") > 10_000


def test_burgers_from_the_command_line(tmp_path, capsys):
    code = main(["--problem", "burgers1d", "--steps", "5", "--lbfgs", "0", "--collocation", "64", "--seed", "2",
                 "--out", str(tmp_path), "--no-progress"])
    printed = capsys.readouterr().out
    assert code == 0
    assert "Burgers1D(nu=0.0031831, 64 collocation points)" in printed
    assert "test rel. L2 " in printed
    assert (tmp_path / "solution.png").exists() and (tmp_path / "loss.png").exists()


def test_bad_input_is_reported_not_raised(tmp_path, capsys):
    code = main(["--problem", "burgers1d", "--collocation", "0", "--out", str(tmp_path), "--no-progress"])
    assert code == 2
    assert "error: Burgers1D n_collocation must be a positive int, got 0" in capsys.readouterr().err
    assert not (tmp_path / "solution.png").exists()


def test_bad_flags_and_an_unusable_output_directory_exit_2_before_training(tmp_path, capsys):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    for flags, message in [(["--steps", "-3"], "--steps must be >= 0, got -3"),
                           (["--lbfgs", "-1"], "--lbfgs must be >= 0, got -1"),
                           (["--lr", "0"], "--lr must be a positive finite number, got 0"),
                           (["--out", str(blocker / "sub")], "cannot create the output directory")]:
        with pytest.raises(SystemExit) as info:
            main([*flags, "--no-progress"] + ([] if "--out" in flags else ["--out", str(tmp_path / "out")]))
        assert info.value.code == 2
        captured = capsys.readouterr()
        errors = [line for line in captured.err.splitlines() if "error:" in line]
        assert captured.out == "" and len(errors) == 1 and message in errors[0]


def test_divergence_exits_1_with_one_error_line(tmp_path, capsys):
    code = main(["--lr", "1e8", "--steps", "50", "--lbfgs", "0", "--out", str(tmp_path), "--no-progress"])
    assert code == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: step ") and "training diverged" in err[0]
    assert not (tmp_path / "metrics.json").exists()


def test_results_are_written_before_the_plots(tmp_path, capsys, monkeypatch):
    import pinn.__main__ as cli

    def failing_plots(result, out):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cli, "save_plots", failing_plots)
    code = main(["--steps", "20", "--lbfgs", "0", "--out", str(tmp_path), "--no-progress"])
    captured = capsys.readouterr()
    assert code == 1 and "test rel. L2 " in captured.out
    assert "error: writing the results" in captured.err and "No space left" in captured.err
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert metrics["adam_steps"] == 20 and 0 < metrics["relative_l2_error"] < 10


def test_the_derivatives_flag_sets_the_residual_mode(tmp_path, capsys):
    code = main(["--steps", "3", "--lbfgs", "0", "--derivatives", "taylor", "--out", str(tmp_path), "--no-progress"])
    assert code == 0
    assert "residual derivatives: taylor (set by the caller)" in capsys.readouterr().out


def test_dtype_sets_the_precision_and_a_loaded_model_keeps_its_own(tmp_path, capsys):
    model = tmp_path / "m.npz"
    assert main(["--steps", "5", "--lbfgs", "0", "--dtype", "float32", "--out", str(tmp_path / "a"), "--no-progress",
                 "--save", str(model)]) == 0
    assert json.loads((tmp_path / "a" / "metrics.json").read_text())["dtype"] == "float32"
    # no --dtype: the problem follows the saved float32 network (the problem's own default is float64)
    assert main(["--steps", "2", "--lbfgs", "0", "--load", str(model), "--out", str(tmp_path / "b"),
                 "--no-progress"]) == 0
    metrics = json.loads((tmp_path / "b" / "metrics.json").read_text())
    assert metrics["dtype"] == "float32" and metrics["package"] == "pinn" and metrics["adam_steps"] == 7
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:       # another precision than the saved one: refused before training
        main(["--load", str(model), "--dtype", "float64", "--out", str(tmp_path / "c"), "--no-progress"])
    captured = capsys.readouterr()
    assert info.value.code == 2 and captured.out == "" and "was trained in float32" in captured.err


def test_no_plot_writes_the_metrics_only(tmp_path, capsys):
    assert main(["--steps", "3", "--lbfgs", "2", "--no-plot", "--out", str(tmp_path), "--no-progress"]) == 0
    assert "plot:" not in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["metrics.json"]
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert (metrics["adam_steps"], metrics["lbfgs_iterations"], metrics["package"]) == (3, 2, "pinn")


def test_the_lbfgs_method_flag_chooses_the_line_search(tmp_path, capsys, monkeypatch):
    methods, real = [], pinn.training.lbfgs

    def spy(*args, **kwargs):
        methods.append(kwargs["method"])
        return real(*args, **kwargs)
    monkeypatch.setattr(pinn.training, "lbfgs", spy)
    for flags in ([], ["--lbfgs-method", "hager-zhang"]):
        assert main(["--steps", "3", "--lbfgs", "2", "--out", str(tmp_path), "--no-progress", "--no-plot", *flags]) == 0
    assert methods == ["L-BFGS-B", "hager-zhang"]   # poisson1d's own default, then the flag's
    with pytest.raises(SystemExit) as stop:
        main(["--lbfgs-method", "newton", "--out", str(tmp_path)])
    assert stop.value.code == 2 and "invalid choice: 'newton'" in capsys.readouterr().err
