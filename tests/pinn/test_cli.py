"""`python -m pinn`: trains, prints the error and the plot paths, writes solution.png and loss.png."""
import os
import subprocess
import sys

from pinn.__main__ import main


def test_module_entry_point_trains_and_writes_plots(tmp_path):
    out = tmp_path / "poisson"
    proc = subprocess.run([sys.executable, "-m", "pinn", "--problem", "poisson1d", "--steps", "30", "--lbfgs", "10",
                           "--out", str(out), "--no-progress"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "relative L2 error: " in proc.stdout
    assert f"solution plot: {out / 'solution.png'}" in proc.stdout
    assert f"loss plot: {out / 'loss.png'}" in proc.stdout
    assert os.path.getsize(out / "solution.png") > 10_000 and os.path.getsize(out / "loss.png") > 10_000


def test_burgers_from_the_command_line(tmp_path, capsys):
    code = main(["--problem", "burgers1d", "--steps", "5", "--lbfgs", "0", "--collocation", "64", "--seed", "2",
                 "--out", str(tmp_path), "--no-progress"])
    printed = capsys.readouterr().out
    assert code == 0
    assert "Burgers1D(nu=0.0031831, 64 collocation points)" in printed
    assert "relative L2 error: " in printed
    assert (tmp_path / "solution.png").exists() and (tmp_path / "loss.png").exists()


def test_bad_input_is_reported_not_raised(tmp_path, capsys):
    code = main(["--problem", "burgers1d", "--collocation", "0", "--out", str(tmp_path), "--no-progress"])
    assert code == 2
    assert "error: Burgers1D n_collocation must be a positive int, got 0" in capsys.readouterr().err
    assert not (tmp_path / "solution.png").exists()
