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
    proc = subprocess.run([sys.executable, "-m", "pino", "--problem", "poisson1d", "--steps", "200", *TINY,
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
