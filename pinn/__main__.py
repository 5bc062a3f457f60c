"""`python -m pinn`: train a PINN from the command line, print its error, write its plots.

    python -m pinn --problem poisson1d --steps 1000 --lbfgs 500 --seed 0       # into out/poisson1d
    python -m pinn --problem burgers1d          # its default budget, 2000 Adam + 3000 L-BFGS: ~3 min, rel. L2 ~2.5e-3
    python -m pinn --problem burgers1d --steps 1000 --lbfgs 6000   # Raissi's budget: ~4.5 min (README), rel. L2 ~2.4e-3
    python -m pinn --problem burgers1d --steps 300 --lbfgs 300 --collocation 2000   # ~10 s; runs, but is no fit
    python -m pinn --problem poisson1d --save out/poisson/model.npz --log out/poisson/history.csv
    python -m pinn --problem poisson1d --load out/poisson/model.npz --steps 0 --lbfgs 0   # evaluate only

The flags are the ones every problem of pinn and pino takes (`workbench.cli.base_parser`; `--out`
defaults to out/<problem>, `--dtype` to the problem's precision) plus `--collocation` and
`--derivatives`. Prints the progress bars and the final relative L2 error (`test rel. L2 0.123%
(1.23e-03)`, the unit pino prints too), writes the numbers to `metrics.json` and then
`solution.png` and `loss.png` into the output directory. Bad flags or an unusable output
directory exit with status 2 before training; a training failure (NaN, divergence) exits with
status 1; each prints one `error:` line. `--save PATH` keeps the trained model (`pinn.save`),
`--load PATH` starts from a saved one (Adam resumes its moments; fine-tune, or just evaluate with
`--steps 0 --lbfgs 0`), `--log PATH` writes the loss/error history as CSV or JSON (by suffix).
"""
from __future__ import annotations

import sys

from frame.distributed.cli import client_from_args
from frame.errors import FrameError
from frame.train import LBFGS_METHODS
from workbench.cli import base_parser, check_args, print_errors, result_metrics, write_outputs

from .persistence import load
from .plots import save_plots
from .zoo import ZOO
from .problems import PROBLEMS, ProblemError
from .training import train

#: per problem: (Adam steps, L-BFGS iterations, learning rate) reaching its target accuracy.
DEFAULT_BUDGETS = {"poisson1d": (1000, 500, 1e-3), "burgers1d": (2000, 3000, 1e-3),
                   # the zoo (pinn.zoo): full budgets, benchmarked over 3 seeds in benchmarks/pinn_zoo.py
                   "poisson2d": (2000, 1000, 1e-3), "helmholtz2d": (5000, 0, 1e-3), "heat": (2000, 1000, 1e-3),
                   "wave": (3000, 2000, 1e-3), "allen_cahn": (5000, 5000, 1e-3), "kdv": (5000, 5000, 1e-3),
                   "burgers_inverse": (2000, 5000, 1e-3), "burgers_raissi": (0, 50000, 1e-3)}


def build_parser():
    """The parser: the common flags (`workbench.cli.base_parser`: --problem, --out, --steps, --lbfgs, --lr,
    --seed, --dtype, --no-progress, --save, --load, --log, --workers/--scheduler) and pinn's own
    (--collocation, --derivatives, --lbfgs-method)."""
    # PROBLEMS holds poisson1d and burgers1d and, once pinn.zoo is imported, the zoo's problems
    parser = base_parser("python -m pinn", __doc__.split("\n\n")[0], {**PROBLEMS, **ZOO}, "poisson1d")
    own = parser.add_argument_group("pinn options")
    own.add_argument("--collocation", type=int, default=None,
                     help="number of residual (collocation) points (default: the problem's)")
    own.add_argument("--derivatives", choices=["auto", "reverse", "taylor"], default="auto",
                     help="how residual derivatives are computed (auto: the faster one, measured)")
    own.add_argument("--lbfgs-method", choices=LBFGS_METHODS, default=None,
                     help="L-BFGS's line search: scipy's L-BFGS-B, torch's strong-wolfe, or hager-zhang (goes on "
                          "past a float32 loss's rounding); default: the problem's (hager-zhang for burgers_raissi)")
    return parser


def parse_args(argv=None):
    """The flags of `build_parser`, validated before any work (status 2 and one `error:` line)."""
    parser = build_parser()
    return check_args(parser, parser.parse_args(argv), load=load)


def run_metrics(result, args) -> dict:
    """The run's numbers for `metrics.json` (`workbench.cli.result_metrics`: the keys pino writes, then pinn's)."""
    return result_metrics(result, package="pinn", problem=args.problem, seed=args.seed,
                          residual_derivatives=result.derivative_mode.as_dict() if result.derivative_mode else None,
                          variables=result.variables)


def main(argv=None) -> int:
    args = parse_args(argv)
    steps, lbfgs_steps, lr = DEFAULT_BUDGETS[args.problem]
    steps = steps if args.steps is None else args.steps
    lbfgs_steps = lbfgs_steps if args.lbfgs is None else args.lbfgs
    lr = lr if args.lr is None else args.lr
    try:
        kwargs = {} if args.collocation is None else {"n_collocation": args.collocation}
        if args.dtype is not None:
            kwargs["dtype"] = args.dtype
        elif args.saved is not None:   # a loaded network keeps its precision; the problem's data follow it
            kwargs["dtype"] = args.saved.model.dtype
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
                       client=client, resume=args.saved, lbfgs_method=args.lbfgs_method)
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
    print_errors(result, detail=f"{result.wall_time:.1f} s training")
    return write_outputs(args, result, run_metrics(result, args), lambda: save_plots(result, args.out).items())


if __name__ == "__main__":
    sys.exit(main())
