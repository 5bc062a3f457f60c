"""`python -m pino`: both 1-D problems run end to end at a tiny size, report the test error in the unit pinn
prints, write metrics.json and the plots into --out; --lbfgs, --save/--load/--log and the deprecated --plot."""
import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pino.__main__ import main, parse_args

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--n", "32", "--modes", "8", "--width", "16", "--layers", "2", "--train", "64", "--test", "16",
        "--batch", "16", "--no-progress"]


def _test_error(output: str) -> float:
    """The fraction of the `test rel. L2 1.23% (1.23e-02); ...` line (checked against its percentage)."""
    match = re.search(r"^test rel\. L2 ([0-9.e+-]+)% \(([0-9.e+-]+)\); mean over \d+ held-out samples; "
                      r"[0-9.]+ s training$", output, re.M)
    assert match, output
    percent, fraction = float(match.group(1)), float(match.group(2))
    assert abs(percent / 100 - fraction) <= 0.006 * fraction, match.group(0)   # both rounded to 3 digits
    return fraction


def test_module_entry_point_trains_poisson_from_physics_and_writes_into_out(tmp_path):
    out = tmp_path / "poisson"
    proc = subprocess.run([sys.executable, "-m", "pino", "--problem", "periodic-poisson1d", "--steps", "200", *TINY,
                           "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    error = _test_error(proc.stdout)
    assert error < 0.1        # 200 steps: a few percent; the 2 % target is test_training's
    assert (out / "fields.png").stat().st_size > 10_000 and (out / "loss.png").stat().st_size > 10_000
    assert f"fields plot: {out / 'fields.png'}" in proc.stdout and f"loss plot: {out / 'loss.png'}" in proc.stdout
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["package"] == "pino" and metrics["adam_steps"] == 200 and metrics["lbfgs_iterations"] == 0
    assert metrics["relative_l2_error"] == pytest.approx(error, rel=5e-3)


def test_burgers_run_in_process_and_the_deprecated_plot_flag_still_works(tmp_path, capsys):
    plot = tmp_path / "burgers.png"
    assert main(["--problem", "burgers-operator1d", "--steps", "60", *TINY, "--out", str(tmp_path / "out"),
                 "--plot", str(plot)]) == 0
    captured = capsys.readouterr()
    assert "ETDRK4" in captured.out and _test_error(captured.out) < 0.5
    assert plot.exists() and not (tmp_path / "out" / "fields.png").exists() and (tmp_path / "out" / "loss.png").exists()
    assert "warning: --plot is deprecated" in captured.err


def test_lbfgs_after_adam_lowers_the_training_loss_and_is_marked_in_history_and_plot(tmp_path, capsys):
    out, log = tmp_path / "out", tmp_path / "history.csv"
    assert main(["--problem", "periodic-poisson1d", "--steps", "30", "--lbfgs", "20", *TINY, "--out", str(out),
                 "--log", str(log)]) == 0
    text = capsys.readouterr().out
    match = re.search(r"L-BFGS: (\d+) iterations in [0-9.]+ s; loss ([0-9.e+-]+) \(last Adam step\) -> ([0-9.e+-]+)",
                      text)
    assert match, text
    iterations, before, after = int(match.group(1)), float(match.group(2)), float(match.group(3))
    assert 1 <= iterations <= 20 and after < 0.5 * before
    rows = list(csv.DictReader(open(log)))
    assert [r["phase"] for r in rows] == ["adam"] * 30 + ["lbfgs"] * iterations
    measured = [r for r in rows[30:] if r["relative_l2_error"]]
    assert measured and float(measured[-1]["relative_l2_error"]) == pytest.approx(_test_error(text), rel=5e-3)
    metrics = json.loads((out / "metrics.json").read_text())
    assert (metrics["adam_steps"], metrics["lbfgs_iterations"]) == (30, iterations) and metrics["lbfgs_seconds"] > 0
    assert (out / "loss.png").exists()


def test_save_then_load_evaluates_the_same_model_and_resumes(tmp_path, capsys):
    model = tmp_path / "fno.npz"
    assert main(["--problem", "burgers-operator1d", "--steps", "20", *TINY, "--out", str(tmp_path / "a"), "--save",
                 str(model)]) == 0
    first = _test_error(capsys.readouterr().out)
    assert model.exists()
    assert main(["--problem", "burgers-operator1d", "--steps", "0", *TINY, "--out", str(tmp_path / "b"), "--load",
                 str(model), "--no-plot"]) == 0
    assert _test_error(capsys.readouterr().out) == pytest.approx(first, rel=1e-6)
    assert main(["--problem", "burgers-operator1d", "--steps", "10", *TINY, "--out", str(tmp_path / "c"), "--load",
                 str(model), "--no-plot"]) == 0
    capsys.readouterr()
    assert json.loads((tmp_path / "c" / "metrics.json").read_text())["adam_steps"] == 30   # 20 saved + 10 resumed
    for flags, message in [(["--problem", "periodic-poisson1d"],
                            "trained on --problem burgers-operator1d, not periodic-poisson1d"),
                           (["--problem", "burgers-operator1d", "--dtype", "float64"], "was trained in float32"),
                           (["--problem", "burgers-operator1d", *TINY[:6], "--width", "32"], "--width 32: --load")]:
        with pytest.raises(SystemExit) as info:
            main([*flags, "--load", str(model), "--out", str(tmp_path / "d")])
        captured = capsys.readouterr()
        assert info.value.code == 2 and message in captured.err and captured.out == "", captured.err


def test_defaults_fill_unset_options_and_bad_problems_are_refused():
    args = parse_args(["--problem", "burgers-operator1d", "--steps", "5"])
    assert (args.steps, args.n, args.modes, args.width) == (5, 256, 16, 64)
    with pytest.raises(SystemExit):
        parse_args(["--problem", "heat"])


@pytest.mark.parametrize("flags, message", [
    (["--modes", "40", "--n", "64"], "--modes 40 needs a grid of n >= 78"),
    (["--n", "0"], "--n must be >= 1, got 0"),
    (["--batch", "1000"], "--batch 1000 is larger than the 256 training samples"),
    (["--steps", "-3"], "--steps must be >= 0, got -3"),
    (["--lr", "nan"], "--lr must be a positive finite number"),
    (["--plot", "/no/such/dir/p.png"], "--plot: the directory /no/such/dir does not exist"),
    (["--out", "/proc/version"], "--out /proc/version: exists and is not a directory"),
])
def test_bad_flags_exit_2_with_one_error_line_before_training(flags, message, capsys):
    with pytest.raises(SystemExit) as info:
        main(["--problem", "periodic-poisson1d", *flags, "--no-progress"])
    assert info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing ran
    errors = [line for line in captured.err.splitlines() if "error:" in line]
    assert len(errors) == 1 and message in errors[0]


def test_divergence_exits_1_with_one_error_line_and_no_traceback(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "pino", "--problem", "periodic-poisson1d", "--steps", "50", *TINY,
                           "--lr", "1e9", "--no-plot", "--out", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "step" in errors[0] and ("diverged" in errors[0] or "nan" in errors[0])


def test_zero_steps_reports_the_untrained_error(tmp_path, capsys):
    assert main(["--problem", "periodic-poisson1d", "--steps", "0", *TINY, "--no-plot", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "no training steps taken" in out and _test_error(out) > 0


def test_the_old_burgers1d_name_still_parses_as_burgers_operator1d(capsys):
    # pino's burgers1d was renamed: with the default --out (out/<problem>) it shared pinn's burgers1d directory
    from pino.__main__ import parse_args
    for argv in (["--problem", "burgers1d"], ["--problem=burgers1d"]):
        args = parse_args([*argv, "--steps", "1"])
        assert args.problem == "burgers-operator1d" and args.out == os.path.join("out", "burgers-operator1d")
        assert "now burgers-operator1d" in capsys.readouterr().err
