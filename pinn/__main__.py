"""`python -m pinn`: train a PINN from the command line, print its error, write its plots.

    python -m pinn --problem poisson1d --steps 1000 --lbfgs 500 --seed 0 --out out/poisson
    python -m pinn --problem burgers1d --out out/burgers
    python -m pinn --problem poisson1d --save out/poisson/model.npz --log out/poisson/history.csv
    python -m pinn --problem poisson1d --load out/poisson/model.npz --steps 0 --lbfgs 0   # evaluate only

Prints the progress bars and the final relative L2 error, writes the numbers to `metrics.json`
and then `solution.png` and `loss.png` into the output directory. Bad flags or an unusable output
directory exit with status 2 before training; a training failure (NaN, divergence) exits with
status 1; each prints one `error:` line. `--save PATH` keeps the trained model (`pinn.save`),
`--load PATH` starts from a saved one (Adam resumes its moments; fine-tune, or just evaluate with
`--steps 0 --lbfgs 0`), `--log PATH` writes the loss/error history as CSV or JSON (by suffix).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys

from frame.distributed.cli import add_cli_arguments, cli_problem, client_from_args
from frame.errors import FrameError

from .persistence import load
from .plots import save_plots
from .zoo import ZOO
from .problems import PROBLEMS, ProblemError
from .training import train

#: per problem: (Adam steps, L-BFGS iterations, learning rate) reaching its target accuracy.
DEFAULT_BUDGETS = {"poisson1d": (1000, 500, 1e-3), "burgers1d": (2000, 3000, 1e-3),
                   # the zoo (pinn.zoo): full budgets, not yet benchmarked over seeds
                   "poisson2d": (2000, 1000, 1e-3), "helmholtz2d": (5000, 0, 1e-3), "heat": (2000, 1000, 1e-3),
                   "wave": (3000, 2000, 1e-3), "allen_cahn": (5000, 5000, 1e-3), "kdv": (5000, 5000, 1e-3),
                   "burgers_inverse": (2000, 5000, 1e-3), "burgers_raissi": (0, 50000, 1e-3)}


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m pinn", description=__doc__.split("\n\n")[0])
    # PROBLEMS holds poisson1d and burgers1d and, once pinn.zoo is imported, the zoo's problems
    parser.add_argument("--problem", choices=sorted({**PROBLEMS, **ZOO}), default="poisson1d")
    parser.add_argument("--steps", type=int, default=None, help="Adam steps (default: the problem's budget)")
    parser.add_argument("--lbfgs", type=int, default=None, help="L-BFGS iterations after Adam")
    parser.add_argument("--lr", type=float, default=None, help="Adam learning rate")
    parser.add_argument("--seed", type=int, default=0, help="seed of the model init and the collocation sample")
    parser.add_argument("--collocation", type=int, default=None,
                        help="number of residual (collocation) points (default: the problem's)")
    parser.add_argument("--out", default="out/pinn", help="directory for solution.png and loss.png")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    parser.add_argument("--derivatives", choices=["auto", "reverse", "taylor"], default="auto",
                        help="how residual derivatives are computed (auto: the faster one, measured)")
    parser.add_argument("--save", metavar="PATH", default=None, help="save the trained model there (pinn.save)")
    parser.add_argument("--load", metavar="PATH", default=None,
                        help="start from a model saved by --save (resumes Adam; --steps 0 --lbfgs 0 only evaluates)")
    parser.add_argument("--log", metavar="PATH", default=None, help="write the loss/error history (.csv or .json)")
    add_cli_arguments(parser)   # --workers N / --scheduler ADDRESS (frame.distributed)
    args = parser.parse_args(argv)
    problem = cli_problem(args)
    if problem:
        parser.error(problem)
    for flag in ("steps", "lbfgs"):
        if getattr(args, flag) is not None and getattr(args, flag) < 0:
            parser.error(f"--{flag} must be >= 0, got {getattr(args, flag)}")
    if args.lr is not None and not (math.isfinite(args.lr) and args.lr > 0):
        parser.error(f"--lr must be a positive finite number, got {args.lr:g}")
    problem = prepare_output_directory(args.out)
    if problem:
        parser.error(f"--out {args.out}: {problem}")
    if args.log is not None and os.path.splitext(args.log)[1].lower() not in (".csv", ".json"):
        parser.error(f"--log {args.log}: the history file must end in .csv or .json")
    for flag in ("save", "log"):
        problem = output_file_problem(getattr(args, flag))
        if problem:
            parser.error(f"--{flag} {getattr(args, flag)}: {problem}")
    args.saved = None
    if args.load is not None:
        try:
            args.saved = load(args.load)
        except FrameError as e:
            parser.error(f"--load: {e}")
        if args.saved.problem_name not in (None, args.problem):
            parser.error(f"--load {args.load}: the model was trained on --problem {args.saved.problem_name}, "
                         f"not {args.problem}")
    return args


def output_file_problem(path: str | None) -> str | None:
    """What is wrong with `path` as a file to write (its directory missing or not writable, a directory), or None."""
    if path is None:
        return None
    if os.path.isdir(path):
        return "is a directory, expected a file path"
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        return f"the directory {directory} does not exist"
    if not os.access(directory, os.W_OK | os.X_OK):
        return f"the directory {directory} is not writable"
    return None


def prepare_output_directory(path: str) -> str | None:
    """Create `path` if needed; what is wrong with it as an output directory, or None if it is usable."""
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        return f"cannot create the output directory ({e.strerror or e})"
    if not os.access(path, os.W_OK | os.X_OK):
        return "the output directory is not writable"
    return None


def write_metrics(result, args, path: str) -> None:
    """The run's numbers as JSON, written before the plots so a plotting failure never loses them."""
    metrics = {"problem": args.problem, "seed": args.seed, "adam_steps": result.adam_steps,
               "lbfgs_iterations": result.lbfgs_iterations, "relative_l2_error": result.relative_l2_error,
               "final_loss": result.history[-1] if result.history else None,
               "adam_seconds": result.adam_seconds, "lbfgs_seconds": result.lbfgs_seconds,
               "residual_derivatives": result.derivative_mode.as_dict() if result.derivative_mode else None,
               "variables": result.variables}
    with open(path, "w") as f:
        json.dump(metrics, f, indent=2)


def main(argv=None) -> int:
    args = parse_args(argv)
    steps, lbfgs_steps, lr = DEFAULT_BUDGETS[args.problem]
    steps = steps if args.steps is None else args.steps
    lbfgs_steps = lbfgs_steps if args.lbfgs is None else args.lbfgs
    lr = lr if args.lr is None else args.lr
    try:
        kwargs = {} if args.collocation is None else {"n_collocation": args.collocation}
        problem = PROBLEMS[args.problem](**kwargs)
        model = problem.default_model(seed=args.seed) if args.saved is None else args.saved.model
    except FrameError as e:  # a bad configuration: nothing has run
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"{problem!r}\n{model!r}\nAdam {steps} steps (lr {lr:g}), then L-BFGS {lbfgs_steps} iterations", flush=True)
    client = None
    try:
        client = client_from_args(args.workers, args.scheduler)
        callbacks = problem.default_callbacks() if hasattr(problem, "default_callbacks") else []
        result = train(problem, model, steps=steps, lr=lr, lbfgs_steps=lbfgs_steps, seed=args.seed,
                       progress=not args.no_progress, derivative_mode=args.derivatives, callbacks=callbacks,
                       client=client, resume=args.saved)
    except ProblemError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except FrameError as e:  # training failed: NaN, divergence
        print(f"error: {e}", file=sys.stderr)
        return 1
    finally:
        if client is not None:
            client.close()   # a --workers client also stops its local cluster
    print(result.summary())
    print(f"relative L2 error: {result.relative_l2_error:.3e}")
    print(f"wall time: {result.wall_time:.1f} s")
    try:
        metrics_path = os.path.join(args.out, "metrics.json")
        write_metrics(result, args, metrics_path)
        print(f"metrics: {metrics_path}", flush=True)
        if args.save is not None:
            print(f"model: {result.save(args.save)}", flush=True)
        if args.log is not None:
            print(f"history: {result.write_history(args.log)}", flush=True)
        paths = save_plots(result, args.out)
    except (OSError, FrameError) as e:
        print(f"error: writing the results to {args.out} failed: {e}", file=sys.stderr)
        return 1
    for name, path in paths.items():
        print(f"{name} plot: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
