"""`python -m pino`: both problems run end to end at a tiny size, report the test error and write the plot."""
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
    match = re.search(r"test relative L2 error ([0-9.]+)%", output)
    assert match, output
    return float(match.group(1)) / 100


def test_module_entry_point_trains_poisson_from_physics_and_writes_the_plot(tmp_path):
    plot = tmp_path / "poisson.png"
    proc = subprocess.run([sys.executable, "-m", "pino", "--problem", "periodic-poisson1d", "--steps", "200", *TINY,
                           "--plot", str(plot)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert _test_error(proc.stdout) < 0.1        # 200 steps: a few percent; the 2 % target is test_training's
    assert plot.stat().st_size > 10_000


def test_burgers_run_in_process(tmp_path, capsys):
    plot = tmp_path / "burgers.png"
    assert main(["--problem", "burgers1d", "--steps", "60", *TINY, "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "ETDRK4" in out and _test_error(out) < 0.5
    assert plot.exists()


def test_defaults_fill_unset_options_and_bad_problems_are_refused():
    args = parse_args(["--problem", "burgers1d", "--steps", "5"])
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
                           "--lr", "1e9", "--no-plot"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "step" in errors[0] and ("diverged" in errors[0] or "nan" in errors[0])


def test_zero_steps_reports_the_untrained_error(capsys):
    assert main(["--problem", "periodic-poisson1d", "--steps", "0", *TINY, "--no-plot"]) == 0
    out = capsys.readouterr().out
    assert "no training steps taken" in out and _test_error(out) > 0
