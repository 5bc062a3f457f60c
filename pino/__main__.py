"""`python -m pino --problem poisson1d|burgers1d ...`: train an FNO, report the test error, plot fields.

poisson1d trains from the spectral physics residual alone (no solution data); burgers1d trains on
(u0, u(1)) pairs from the ETDRK4 solver with the relative-L2 data loss. Prints the final test
relative L2 error and the wall time, and writes a plot of predicted vs true fields. Bad flags or
an unwritable plot path exit with status 2 before training; a training failure (NaN, divergence)
exits with status 1; each prints one `error:` line.
"""
from __future__ import annotations

import argparse
import math
import os
import sys

DEFAULTS = {
    "poisson1d": dict(n=64, modes=12, width=32, layers=3, train=256, test=64, steps=1000, batch=32, lr=3e-3),
    "burgers1d": dict(n=256, modes=16, width=64, layers=4, train=1000, test=100, steps=2000, batch=20, lr=1e-3),
}


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog="python -m pino", description=__doc__.splitlines()[0])
    parser.add_argument("--problem", choices=sorted(DEFAULTS), default="poisson1d")
    parser.add_argument("--n", type=int, help="grid points")
    parser.add_argument("--modes", type=int, help="Fourier modes kept per layer")
    parser.add_argument("--width", type=int, help="channels of the Fourier layers")
    parser.add_argument("--layers", type=int, help="number of Fourier layers")
    parser.add_argument("--train", type=int, help="training samples")
    parser.add_argument("--test", type=int, help="test samples")
    parser.add_argument("--steps", type=int, help="optimiser steps")
    parser.add_argument("--batch", type=int, help="batch size")
    parser.add_argument("--lr", type=float, help="initial Adam learning rate (cosine decay)")
    parser.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plot", default=None, help="where to save the fields plot (default: pino_<problem>.png)")
    parser.add_argument("--no-plot", action="store_true", help="skip the plot")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    for key, value in DEFAULTS[args.problem].items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    problem = flag_problem(args)
    if problem:
        parser.error(problem)
    return args


def flag_problem(args) -> str | None:
    """What is wrong with the (defaults-filled) flags, checked before any work; None if nothing."""
    for flag in ("n", "modes", "width", "layers", "train", "test", "batch"):
        if getattr(args, flag) < 1:
            return f"--{flag} must be >= 1, got {getattr(args, flag)}"
    if args.steps < 0:
        return f"--steps must be >= 0, got {args.steps}"
    if args.n // 2 + 1 < args.modes:
        return (f"--modes {args.modes} needs a grid of n >= {2 * (args.modes - 1)} (n={args.n} has "
                f"{args.n // 2 + 1} Fourier bins)")
    if args.batch > args.train:
        return f"--batch {args.batch} is larger than the {args.train} training samples (--train)"
    if not (math.isfinite(args.lr) and args.lr > 0):
        return f"--lr must be a positive finite number, got {args.lr:g}"
    if not args.no_plot:
        directory = os.path.dirname(os.path.abspath(args.plot or f"pino_{args.problem}.png"))
        if not os.path.isdir(directory):
            return f"--plot: the directory {directory} does not exist"
        if not os.access(directory, os.W_OK | os.X_OK):
            return f"--plot: the directory {directory} is not writable"
    return None


def main(argv=None) -> int:
    args = parse_args(argv)
    from frame.errors import FrameError

    try:
        result, test, title, input_label = run(args)
    except FrameError as e:  # training failed: NaN, divergence
        print(f"error: {e}", file=sys.stderr)
        return 1
    if result.history:
        print(f"final training loss {result.history[-1]:.4e}")
    else:
        print("no training steps taken")
    print(f"test relative L2 error {result.test_error:.4%}  ({result.seconds:.1f} s training)", flush=True)
    if not args.no_plot:
        import matplotlib
        matplotlib.use("Agg")
        from .plots import plot_fields

        path = args.plot or f"pino_{args.problem}.png"
        try:
            plot_fields(test.x, test.inputs, test.outputs, result.predictions, title=title, input_label=input_label,
                        path=path)
        except OSError as e:
            print(f"error: writing the plot {path} failed: {e}", file=sys.stderr)
            return 1
        print(f"plot written to {path}")
    return 0


def run(args):
    """Train as the flags say; returns the result, the test data, and the plot's title and input label."""
    from . import Burgers1D, FNO1d, PeriodicPoisson1D, train_operator, train_poisson_physics

    model = FNO1d(modes=args.modes, width=args.width, layers=args.layers)
    print(f"{args.problem}: {model}, {model.num_parameters()} parameters, n={args.n}, "
          f"{args.train} train / {args.test} test samples, {args.steps} steps of batch {args.batch}")
    if args.problem == "poisson1d":
        problem = PeriodicPoisson1D(n=args.n)
        result = train_poisson_physics(model, problem, num_train=args.train, num_test=args.test, steps=args.steps,
                                       batch_size=args.batch, lr=args.lr, dtype=args.dtype, seed=args.seed,
                                       progress=not args.no_progress)
        test = result.extra["test"]
        title, input_label = "-u'' + u = f, trained from the physics residual only", "forcing f"
    else:
        problem = Burgers1D()
        print("generating data with the ETDRK4 solver ...", flush=True)
        train = problem.sample(args.train, args.n, seed=args.seed)
        test = problem.sample(args.test, args.n, seed=args.seed + 1)
        result = train_operator(model, train, test, steps=args.steps, batch_size=args.batch, lr=args.lr,
                                dtype=args.dtype, seed=args.seed, progress=not args.no_progress,
                                desc="FNO burgers1d")
        title, input_label = f"Burgers, nu = {problem.viscosity}: u(., 0) -> u(., {problem.final_time:g})", "u0"
    return result, test, title, input_label


if __name__ == "__main__":
    sys.exit(main())
