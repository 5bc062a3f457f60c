"""workbench.cli: the common flags are the same in `python -m pinn` and `python -m pino` (names, defaults,
help, validation), errors print in one unit, and parsing flags creates nothing (issue 20 item 1)."""
import math
import os

import pytest

import pinn.__main__ as pinn_cli
import pino.__main__ as pino_cli
from frame.errors import InputError
from workbench.cli import base_parser, format_error, print_errors, result_metrics
from workbench.result import Result

CLIS = {"pinn": pinn_cli, "pino": pino_cli}
COMMON = ["--problem", "--out", "--steps", "--lbfgs", "--lr", "--seed", "--dtype", "--no-progress", "--no-plot",
          "--save", "--load", "--log", "--workers", "--scheduler"]


def _actions(parser) -> dict:
    return {option: action for action in parser._actions for option in action.option_strings}


def test_both_packages_take_the_same_common_flags_with_the_same_defaults_and_help():
    pinn_actions, pino_actions = (_actions(cli.build_parser()) for cli in CLIS.values())
    for flag in COMMON:
        a, b = pinn_actions[flag], pino_actions[flag]
        assert (a.dest, a.type, a.nargs, a.const) == (b.dest, b.type, b.nargs, b.const), flag
        if flag != "--problem":    # the problem list and default differ by package
            assert (a.default, a.help, a.choices) == (b.default, b.help, b.choices), flag
    assert list(pinn_actions["--dtype"].choices) == ["float32", "float64"]
    # problem-specific flags stay where they belong
    assert "--collocation" in pinn_actions and "--collocation" not in pino_actions
    assert {"--n", "--modes", "--batch", "--plot"} <= set(pino_actions) and "--modes" not in pinn_actions


@pytest.mark.parametrize("package", sorted(CLIS))
def test_out_defaults_to_out_slash_problem_and_parsing_creates_nothing(package, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    problem = {"pinn": "burgers1d", "pino": "darcy"}[package]
    args = CLIS[package].parse_args(["--problem", problem, "--save", "out/x/model.npz", "--log", "out/x/h.csv"])
    assert args.out == os.path.join("out", problem) and args.saved is None
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("package", sorted(CLIS))
@pytest.mark.parametrize("flags, message", [
    (["--steps", "-3"], "--steps must be >= 0, got -3"),
    (["--lbfgs", "-1"], "--lbfgs must be >= 0, got -1"),
    (["--lr", "0"], "--lr must be a positive finite number, got 0"),
    (["--lr", "nan"], "--lr must be a positive finite number, got nan"),
    (["--lr", "inf"], "--lr must be a positive finite number, got inf"),
    (["--seed", "-2"], "--seed must be >= 0, got -2"),
    (["--workers", "0"], "--workers must be >= 1, got 0"),
    (["--log", "{tmp}/history.txt"], "the history file must end in .csv or .json"),
    (["--log", "{tmp}/blocker/h.csv"], "its directory {tmp}/blocker: exists and is not a directory"),
    (["--save", "{tmp}/blocker/x/m.npz"], "cannot create the output directory: {tmp}/blocker is not a directory"),
    (["--save", "{tmp}"], "is a directory, expected a file path"),
    (["--out", "{tmp}/blocker/sub"], "cannot create the output directory"),
    (["--out", "{tmp}/blocker"], "exists and is not a directory"),
    (["--load", "{tmp}/missing.npz"], "--load {tmp}/missing.npz: no such file"),
    (["--load", "{tmp}/blocker"], "--load {tmp}/blocker: "),            # not a saved model
    (["--dtype", "float16"], "argument --dtype: invalid choice: 'float16'"),
])
def test_the_common_flags_are_validated_identically_exit_2_with_one_error_line(package, flags, message, tmp_path,
                                                                               capsys):
    (tmp_path / "blocker").write_text("not a checkpoint")
    flags = [f.format(tmp=tmp_path) for f in flags]
    out = [] if "--out" in flags else ["--out", str(tmp_path / "out")]
    with pytest.raises(SystemExit) as info:
        CLIS[package].main([*flags, *out, "--no-progress"])
    assert info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""                                        # nothing ran
    errors = [line for line in captured.err.splitlines() if "error:" in line]
    assert len(errors) == 1 and message.format(tmp=tmp_path) in errors[0], captured.err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("fraction, text", [
    (1.234e-3, "0.123% (1.23e-03)"),
    (0.5, "50.0% (5.00e-01)"),
    (4.6e-6, "0.000460% (4.60e-06)"),
    (1.0, "100% (1.00e+00)"),
    (12.5, "1.25e+03% (1.25e+01)"),
    (0.0, "0.00% (0.00e+00)"),
    (math.nan, "nan (nan)"),
])
def test_errors_print_in_one_unit_percent_with_three_digits_and_the_fraction(fraction, text):
    assert format_error(fraction) == text


def test_print_errors_reads_the_result_and_adds_the_spread(capsys):
    class Result:
        relative_l2_error = 0.0123

    line = print_errors(Result(), spread=0.00456, detail="mean over 4 held-out samples")
    assert line == "test rel. L2 1.23% (1.23e-02); std over samples 0.456% (4.56e-03); mean over 4 held-out samples"
    assert capsys.readouterr().out == line + "\n"


def test_base_parser_refuses_a_default_outside_its_problems():
    with pytest.raises(InputError, match="the default problem 'heat' is not one of"):
        base_parser("prog", "description", ["poisson1d"], "heat")


def test_result_metrics_are_the_same_keys_for_every_run():
    result = Result(problem_name="heat", history=[3.0, 2.0, 1.0, 0.5, 0.25], dtype="float32", errors=[(5, 0.02)],
                    phases=[("adam", 2), ("lbfgs", 1), ("adam", 2)], timings={"adam": 1.5, "lbfgs": 0.5, "total": 2.5})
    metrics = result_metrics(result, package="pinn", problem="heat", seed=3, variables={})
    assert metrics == {"package": "pinn", "problem": "heat", "seed": 3, "dtype": "float32", "relative_l2_error": 0.02,
                       "final_loss": 0.25, "adam_steps": 4, "lbfgs_iterations": 1, "adam_seconds": 1.5,
                       "lbfgs_seconds": 0.5, "total_seconds": 2.5, "variables": {}}
