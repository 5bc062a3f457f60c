"""`python -m pinn`: train a PINN from the command line, print its error, write its plots.

    python -m pinn --problem poisson1d --steps 1000 --lbfgs 500 --seed 0 --out out/poisson
    python -m pinn --problem burgers1d --out out/burgers

Prints the progress bars and the final relative L2 error, and writes `solution.png` and
`loss.png` into the output directory.
"""
from __future__ import annotations

import argparse
import sys

from frame.errors import FrameError

from .plots import save_plots
from .problems import PROBLEMS
from .training import train

#: per problem: (Adam steps, L-BFGS iterations, learning rate) reaching its target accuracy.
DEFAULT_BUDGETS = {"poisson1d": (1000, 500, 1e-3), "burgers1d": (2000, 3000, 1e-3)}


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m pinn", description=__doc__.split("\n\n")[0])
    parser.add_argument("--problem", choices=sorted(PROBLEMS), default="poisson1d")
    parser.add_argument("--steps", type=int, default=None, help="Adam steps (default: the problem's budget)")
    parser.add_argument("--lbfgs", type=int, default=None, help="L-BFGS iterations after Adam")
    parser.add_argument("--lr", type=float, default=None, help="Adam learning rate")
    parser.add_argument("--seed", type=int, default=0, help="seed of the model init and the collocation sample")
    parser.add_argument("--collocation", type=int, default=None,
                        help="number of residual (collocation) points (default: the problem's)")
    parser.add_argument("--out", default="out/pinn", help="directory for solution.png and loss.png")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    steps, lbfgs_steps, lr = DEFAULT_BUDGETS[args.problem]
    steps = steps if args.steps is None else args.steps
    lbfgs_steps = lbfgs_steps if args.lbfgs is None else args.lbfgs
    lr = lr if args.lr is None else args.lr
    try:
        kwargs = {} if args.collocation is None else {"n_collocation": args.collocation}
        problem = PROBLEMS[args.problem](**kwargs)
        model = problem.default_model(seed=args.seed)
        print(f"{problem!r}\n{model!r}\nAdam {steps} steps (lr {lr:g}), then L-BFGS {lbfgs_steps} iterations",
              flush=True)
        result = train(problem, model, steps=steps, lr=lr, lbfgs_steps=lbfgs_steps, seed=args.seed,
                       progress=not args.no_progress)
        paths = save_plots(result, args.out)
    except FrameError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(result.summary())
    print(f"relative L2 error: {result.relative_l2_error:.3e}")
    print(f"wall time: {result.wall_time:.1f} s")
    for name, path in paths.items():
        print(f"{name} plot: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
