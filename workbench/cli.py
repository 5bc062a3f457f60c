"""The command-line skeleton every problem of `python -m pinn` and `python -m pino` shares.

`base_parser(prog, description, problems, default)` builds an `argparse` parser with the common
flags, the same names, defaults and help in both packages:

    --problem NAME      one of `problems` (default `default`)
    --out DIR           where metrics.json and the plots go (default: out/<problem>)
    --steps N           first-order (Adam) steps          (default: the problem's budget)
    --lbfgs N           L-BFGS iterations after Adam      (default: the problem's budget)
    --lr LR             Adam learning rate                (default: the problem's)
    --seed N            seed of the model init and of the sampled data (default 0)
    --dtype {float32,float64}   training precision         (default: the problem's)
    --no-progress       no progress bars
    --no-plot           no plots (metrics.json is still written)
    --save PATH         keep the trained model (the package's `save`)
    --load PATH         start from a saved model (resumes Adam; --steps 0 --lbfgs 0 only evaluates)
    --log PATH          the loss/error history as .csv or .json
    --workers N / --scheduler ADDRESS   data-parallel training (frame.distributed)

A package adds its problem-specific flags to the returned parser, then calls
`check_args(parser, args)`, which validates the common flags identically for every problem (the
package checks its own flags after) and exits with status 2 and one `error:` line naming the flag
before any work. `print_errors` prints errors in one unit for every problem: the relative L2 error
as a percentage with three significant digits, then the fraction.

Layering: frame -> workbench -> pinn, pino; this module imports neither package.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import Callable, Iterable

from frame.distributed.cli import add_cli_arguments, cli_problem

__all__ = ["base_parser", "check_args", "default_out", "format_error", "print_errors", "write_metrics",
           "result_metrics", "phase_counts",
           "prepare_output_directory", "prepare_output_file", "output_directory_problem", "output_file_problem",
           "HISTORY_SUFFIXES", "DTYPES"]

#: the suffixes `--log` accepts (the history writer picks the format from it).
HISTORY_SUFFIXES = (".csv", ".json")
#: the precisions `--dtype` accepts.
DTYPES = ("float32", "float64")


def default_out(problem: str) -> str:
    """The default `--out` of `problem`: `out/<problem>` (relative to the working directory)."""
    return os.path.join("out", problem)


def base_parser(prog: str, description: str, problems: Iterable[str], default: str) -> argparse.ArgumentParser:
    """An `argparse` parser with the flags every problem of pinn and pino takes (see the module docstring).

    Budget flags (`--steps`, `--lbfgs`, `--lr`, `--dtype`) default to None, meaning "the problem's
    own value"; the package fills them in. `--out` defaults to None and `check_args` makes it
    `out/<problem>`.
    """
    from frame.errors import InputError

    problems = sorted(problems)
    if default not in problems:
        raise InputError(f"base_parser: the default problem {default!r} is not one of {problems}")
    parser = argparse.ArgumentParser(prog=prog, description=description)
    common = parser.add_argument_group("common options (the same for every problem of pinn and pino)")
    common.add_argument("--problem", choices=problems, default=default,
                        help=f"the problem to train (default {default})")
    common.add_argument("--out", metavar="DIR", default=None,
                        help="directory for metrics.json and the plots (default: out/<problem>)")
    common.add_argument("--steps", type=int, default=None, help="Adam steps (default: the problem's budget)")
    common.add_argument("--lbfgs", type=int, default=None,
                        help="L-BFGS iterations after Adam (default: the problem's budget)")
    common.add_argument("--lr", type=float, default=None, help="Adam learning rate (default: the problem's)")
    common.add_argument("--seed", type=int, default=0, help="seed of the model init and the sampled data (default 0)")
    common.add_argument("--dtype", choices=DTYPES, default=None, help="training precision (default: the problem's)")
    common.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    common.add_argument("--no-plot", action="store_true", help="skip the plots (metrics.json is still written)")
    common.add_argument("--save", metavar="PATH", default=None, help="save the trained model there")
    common.add_argument("--load", metavar="PATH", default=None,
                        help="start from a model saved by --save (resumes Adam; --steps 0 --lbfgs 0 only evaluates)")
    common.add_argument("--log", metavar="PATH", default=None,
                        help="write the loss/error history there (.csv or .json, by suffix)")
    add_cli_arguments(parser)   # --workers N / --scheduler ADDRESS (frame.distributed)
    return parser


def output_file_problem(path: str | None) -> str | None:
    """What is wrong with `path` as a file to write (a directory; its directory not creatable or not
    writable), or None. Its directory may be missing: `prepare_output_file` creates it."""
    if path is None:
        return None
    if os.path.isdir(path):
        return "is a directory, expected a file path"
    if os.path.exists(path) and not os.access(path, os.W_OK):
        return "the file is not writable"
    directory = os.path.dirname(os.path.abspath(path))
    problem = output_directory_problem(directory)
    return f"its directory {directory}: {problem}" if problem else None


def prepare_output_file(path: str) -> str:
    """Create the directory of the file `path` if needed (when it is written); returns `path`."""
    prepare_output_directory(os.path.dirname(os.path.abspath(path)))
    return path


def output_directory_problem(path: str) -> str | None:
    """What is wrong with `path` as an output directory (to be created if missing), or None if usable.

    Nothing is created (parsing flags has no side effects; `prepare_output_directory` creates it
    when the results are written): a missing directory is checked through its nearest existing
    ancestor, which must be a writable directory.
    """
    path = os.path.abspath(path)
    if os.path.exists(path):
        if not os.path.isdir(path):
            return "exists and is not a directory"
        return None if os.access(path, os.W_OK | os.X_OK) else "the output directory is not writable"
    existing = os.path.dirname(path)
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        return f"cannot create the output directory: {existing} is not a directory"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"cannot create the output directory: {existing} is not writable"
    return None


def prepare_output_directory(path: str) -> str:
    """Create the output directory `path` if needed (when the results are written); returns it."""
    os.makedirs(path, exist_ok=True)
    return path


def check_args(parser: argparse.ArgumentParser, args: argparse.Namespace, *,
               load: Callable | None = None) -> argparse.Namespace:
    """Validate the common flags of `base_parser` the same way for every problem; returns `args`.

    Each problem is reported by `parser.error` (status 2, one `error:` line naming the flag, before
    any work): `--steps`/`--lbfgs` below 0, `--lr` not a positive finite number, `--seed` below 0,
    `--workers`/`--scheduler` unusable, `--out` not creatable or not writable (None becomes
    `out/<problem>`; nothing is created here), `--save`/`--log` not writable files, `--log` without a
    .csv/.json suffix, `--load` missing. With `load` (the package's `load(path)`), the model is
    loaded into `args.saved` (None without `--load`); a damaged file (a `FrameError`), a model
    saved for another `--problem` or in another `--dtype` is reported the same way.
    """
    from frame.errors import FrameError

    problem = cli_problem(args)
    if problem:
        parser.error(problem)
    for flag in ("steps", "lbfgs"):
        value = getattr(args, flag)
        if value is not None and value < 0:
            parser.error(f"--{flag} must be >= 0, got {value}")
    if args.lr is not None and not (math.isfinite(args.lr) and args.lr > 0):
        parser.error(f"--lr must be a positive finite number, got {args.lr:g}")
    if args.seed < 0:
        parser.error(f"--seed must be >= 0, got {args.seed}")
    if args.out is None:
        args.out = default_out(args.problem)
    problem = output_directory_problem(args.out)
    if problem:
        parser.error(f"--out {args.out}: {problem}")
    if args.log is not None and os.path.splitext(args.log)[1].lower() not in HISTORY_SUFFIXES:
        parser.error(f"--log {args.log}: the history file must end in .csv or .json")
    for flag in ("save", "log"):
        problem = output_file_problem(getattr(args, flag))
        if problem:
            parser.error(f"--{flag} {getattr(args, flag)}: {problem}")
    args.saved = None
    if args.load is not None:
        if not os.path.isfile(args.load):
            parser.error(f"--load {args.load}: no such file")
        if load is not None:
            try:
                args.saved = load(args.load)
            except FrameError as e:
                parser.error(f"--load {args.load}: {e}")
            trained_on = getattr(args.saved, "problem_name", None)
            if trained_on not in (None, args.problem):
                parser.error(f"--load {args.load}: the model was trained on --problem {trained_on}, "
                             f"not {args.problem}")
            trained_in = getattr(args.saved, "dtype", None)
            if args.dtype is not None and trained_in not in (None, args.dtype):
                parser.error(f"--dtype {args.dtype}: the model of --load {args.load} was trained in {trained_in} "
                             "(leave --dtype out to continue in it)")
    return args


def _three_digits(value: float) -> str:
    """`value` with three significant digits, fixed-point between 1e-4 and 1e3 (0.000460, 0.123, 50.0, 100),
    in exponent form outside."""
    if value == 0:
        return "0.00"
    if not 1e-4 <= abs(value) < 1e3:
        return f"{value:.2e}"
    return f"{value:.{max(0, 2 - math.floor(math.log10(abs(value))))}f}"


def format_error(fraction: float) -> str:
    """A relative error in the one unit of both CLIs: `0.123% (1.23e-03)`, the percentage with three
    significant digits, then the fraction."""
    fraction = float(fraction)
    if not math.isfinite(fraction):
        return f"{fraction} ({fraction})"
    return f"{_three_digits(100 * fraction)}% ({fraction:.2e})"


def print_errors(result, *, label: str = "test", spread: float | None = None, detail: str = "",
                 file=None) -> str:
    """Print the result's relative L2 error (`result.relative_l2_error`, a fraction) in the common unit.

    `test rel. L2 0.123% (1.23e-03)`, then `; std over samples 0.0456% (4.56e-04)` with `spread`
    (an operator's spread over test samples) and `; <detail>` with `detail`. Returns the line.
    """
    line = f"{label} rel. L2 {format_error(result.relative_l2_error)}"
    if spread is not None:
        line += f"; std over samples {format_error(spread)}"
    if detail:
        line += f"; {detail}"
    print(line, file=file or sys.stdout, flush=True)
    return line


def phase_counts(phases) -> dict:
    """History entries per optimiser over `Result.phases` (a resumed run may repeat a phase): {"adam": n, ...}."""
    counts: dict = {}
    for name, count in phases:
        counts[name] = counts.get(name, 0) + int(count)
    return counts


def result_metrics(result, *, package: str, problem: str, seed, **extra) -> dict:
    """The numbers of a run for `metrics.json`, the same keys for every problem of both packages
    (then `extra`): the relative L2 error as a fraction, the final loss, Adam steps and L-BFGS
    iterations in the whole history (a resumed run's included), and the timings in seconds."""
    counts = phase_counts(result.phases)
    timings = dict(result.timings)
    return {"package": package, "problem": problem, "seed": seed, "dtype": result.dtype,
            "relative_l2_error": result.relative_l2_error,
            "final_loss": float(result.history[-1]) if result.history else None,
            "adam_steps": counts.get("adam", 0), "lbfgs_iterations": counts.get("lbfgs", 0),
            "adam_seconds": timings.get("adam"), "lbfgs_seconds": timings.get("lbfgs"),
            "total_seconds": timings.get("total"), **extra}


def write_metrics(path: str, metrics: dict) -> str:
    """The run's numbers as JSON at `path`, its directory created if missing (written before the plots,
    so a plotting failure never loses them); returns the path."""
    prepare_output_directory(os.path.dirname(os.path.abspath(path)))
    with open(path, "w") as f:
        json.dump(metrics, f, indent=2, default=_plain)
    return path


def write_outputs(args, result, metrics: dict, write_plots: Callable[[], Iterable]) -> int:
    """Write what every run of both CLIs writes, in one order: `metrics.json` into `--out` (first, so a
    plotting failure never loses the numbers), `--save`'s model, `--log`'s history, then the plots
    (`write_plots()` -> (name, path) pairs; skipped with `--no-plot`), printing each path. Returns the
    exit status: 1 with one `error:` line when writing fails."""
    from frame.errors import FrameError

    try:
        print(f"metrics: {write_metrics(os.path.join(args.out, 'metrics.json'), metrics)}", flush=True)
        if args.save is not None:
            print(f"model: {result.save(prepare_output_file(args.save))}", flush=True)
        if args.log is not None:
            print(f"history: {result.write_history(prepare_output_file(args.log))}", flush=True)
        plots = [] if args.no_plot else list(write_plots())
    except (OSError, FrameError) as e:
        print(f"error: writing the results to {args.out} failed: {e}", file=sys.stderr)
        return 1
    for name, path in plots:
        print(f"{name} plot: {path}")
    return 0


def _plain(value):
    """numpy scalars and arrays as JSON numbers and lists (the only non-JSON values a metrics dict holds)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"write_metrics: {type(value).__name__} is not JSON data")
