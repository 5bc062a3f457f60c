"""`python -m pino --problem periodic-poisson1d|burgers-operator1d|darcy|navier-stokes|burgers-pino`: train an FNO, report, plot.

    python -m pino --problem periodic-poisson1d --steps 1000               # into out/periodic-poisson1d
    python -m pino --problem burgers-operator1d --steps 500 --lbfgs 50 --log out/burgers-operator1d/history.csv
    python -m pino --problem darcy --save out/darcy/model.npz              # the default: a 9-minute budget
    python -m pino --problem darcy --load out/darcy/model.npz --steps 0    # evaluate a saved model

periodic-poisson1d (-u'' + u = f on a periodic grid; pinn's poisson1d is another problem) trains from
the spectral physics residual alone (no solution data); burgers-operator1d (formerly burgers1d, the
name of pinn's Burgers PINN) trains on (u0, u(1)) pairs from
the ETDRK4 solver with the relative-L2 data loss. The 2-D problems train `pino.FNO2d` on data from
`pino.datasets` (generated once and cached under $FRAME_CACHE_DIR/pino or ~/.cache/frame/pino):
darcy (a -> u of -div(a grad u) = 1), navier-stokes (vorticity at t = 1..t_in -> t_in+1..t_in+t_out
on the torus, nu = 1e-3) and burgers-pino (u0 -> u(x, t), nu = 0.01, t in [0, 1]);
`--physics-weight` adds the PINO PDE loss (darcy, burgers-pino) and `--fine-tune STEPS` runs PINO's
instance-wise fine-tuning on test instances afterwards; for darcy, `--fine-tune-n N` imposes that
PDE on a finer grid of the same solves than the data's (PINO's data and PDE at two resolutions):

    python -m pino --problem darcy --fine-tune 300 --fine-tune-n 85      # data at 29^2, PDE at 85^2

The common flags are pinn's (`workbench.cli.base_parser`): --problem, --out (default
out/<problem>), --steps, --lbfgs, --lr, --seed, --dtype, --no-progress, --save, --load, --log,
--workers/--scheduler. `--lbfgs N` runs N iterations of `frame.train.lbfgs` after Adam on the
full-batch training loss (all --train samples at once: memory grows with them), the test error
measured during it too. `--plot FILE` (the fields plot's path) is a deprecated alias kept working;
the plots go into --out. Prints the test relative L2 error over the held-out set in the unit pinn
prints (`test rel. L2 1.23% (1.23e-02)`; the 2-D problems with its spread over samples) and the
wall time, and writes metrics.json, fields.png and loss.png into --out. Bad flags or an unwritable
output directory exit with status 2 before training; a training failure (NaN, divergence) exits
with status 1; each prints one `error:` line.
"""
from __future__ import annotations

import math
import os
import sys

from frame.distributed.cli import client_from_args
from workbench.cli import base_parser, check_args, format_error, print_errors, result_metrics, write_outputs

#: per problem, the budget and architecture every unset flag takes (a plain dict each: one line to retune).
DEFAULTS = {
    "periodic-poisson1d": dict(n=64, modes=12, width=32, layers=3, train=256, test=64, steps=1000, lbfgs=0, batch=32,
                               lr=3e-3, dtype="float32"),
    "burgers-operator1d": dict(n=256, modes=16, width=64, layers=4, train=1000, test=100, steps=2000, lbfgs=0,
                               batch=20, lr=1e-3, dtype="float32"),
    # 2-D: --modes counts as neuraloperator's n_modes (24 keeps frequencies -12..11 x rfft bins 0..12, the
    # FNO paper's "12 modes"); --n is the grid of the data; --solver-n the grid the solver runs on.
    # darcy: the s=29 subsample of the solves at 169 reaches ~1.8% (3 seeds) in ~4.5 min at load ~2; s=85
    # (the FNO paper's 1.08%) needs ~7 h a seed here (benchmarks/pino_darcy.py).
    "darcy": dict(n=29, modes=16, width=32, layers=4, train=1000, test=100, steps=1800, lbfgs=0, batch=20, lr=2e-3,
                  dtype="float32", solver_n=169),
    "navier-stokes": dict(n=64, modes=24, width=32, layers=4, train=200, test=50, steps=1000, lbfgs=0, batch=20,
                          lr=2e-3, dtype="float32", solver_n=64),
    "burgers-pino": dict(n=128, modes=24, width=32, layers=4, train=400, test=50, steps=1000, lbfgs=0, batch=20,
                         lr=2e-3, dtype="float32", solver_n=512),
}
PROBLEMS_2D = ("darcy", "navier-stokes", "burgers-pino")
# The target: the default darcy run finishes in under 10 minutes on the reference machine.
DARCY_BUDGET_MINUTES = 9.0
PHYSICS_PROBLEMS = ("darcy", "burgers-pino")


def _load(path):
    """`pino.load(path)` (imported here: `python -m pino --help` stays light)."""
    from . import load
    return load(path)


def build_parser():
    """The parser: the common flags (`workbench.cli.base_parser`) and pino's own."""
    parser = base_parser("python -m pino", __doc__.splitlines()[0], DEFAULTS, "periodic-poisson1d")
    own = parser.add_argument_group("pino options")
    own.add_argument("--n", type=int, help="grid points (per axis; burgers-pino: points in x)")
    own.add_argument("--modes", type=int, help="Fourier modes kept per layer (2-D: neuraloperator's n_modes)")
    own.add_argument("--width", type=int, help="channels of the Fourier layers")
    own.add_argument("--layers", type=int, help="number of Fourier layers")
    own.add_argument("--train", type=int, help="training samples")
    own.add_argument("--test", type=int, help="test samples")
    own.add_argument("--batch", type=int, help="batch size of the Adam steps")
    own.add_argument("--solver-n", type=int, help="2-D problems: the grid the data is solved on, then subsampled "
                     "to --n (darcy: (solver_n - 1)/(n - 1) whole; others: a multiple of --n)")
    own.add_argument("--t-out", type=int, default=10, help="navier-stokes: unit time steps predicted (after 10 in)")
    own.add_argument("--nt", type=int, default=101, help="burgers-pino: time levels on [0, 1]")
    own.add_argument("--physics-weight", type=float, default=0.0,
                     help="darcy, burgers-pino: weight of the PINO PDE loss added to the data loss")
    own.add_argument("--fine-tune", type=int, default=0, metavar="STEPS",
                     help="darcy, burgers-pino: instance-wise fine-tuning steps on each of --fine-tune-samples "
                          "test instances with the PDE loss")
    own.add_argument("--fine-tune-samples", type=int, default=4)
    own.add_argument("--fine-tune-lr", type=float, default=3e-3, help="initial Adam learning rate of fine-tuning")
    own.add_argument("--fine-tune-n", type=int, default=None, metavar="N",
                     help="darcy: fine-tune on the test instances sampled at N points per axis from the same solves "
                          "(the PDE imposed on a finer grid than the data, as PINO does); the error is then "
                          "measured at N too. Default: --n")
    own.add_argument("--budget-minutes", type=float, default=None,
                     help="2-D problems: wall-clock budget of the whole run, data generation included; the "
                          "training steps are cut to what fits after the data and a measured step (at most "
                          "--steps). Default: 9 for darcy, none for the others")
    own.add_argument("--blas-threads", type=int, default=1,
                     help="BLAS threads for the run (0: the library's default); one avoids the stalls of "
                          "multi-threaded GEMMs on a shared machine (FNO2d at 85^2: 9.5 s a step on one "
                          "thread, 78 s on two, at load ~15 on 2 cores)")
    own.add_argument("--plot", default=None, metavar="FILE",
                     help="deprecated: where to save the fields plot (default and preferred: <out>/fields.png)")
    own.add_argument("--no-cache", action="store_true", help="2-D problems: neither read nor write the data cache")
    return parser


#: pino's old problem names (the default --out of both packages is out/<problem>, and pinn has a burgers1d)
RENAMED = {"burgers1d": "burgers-operator1d"}


def _renamed(argv: list) -> list:
    """`argv` with an old --problem name replaced by its new one (and a warning on stderr)."""
    out = list(argv)
    for i, a in enumerate(out):
        if a == "--problem" and i + 1 < len(out):
            at, prefix = i + 1, ""
        elif a.startswith("--problem="):
            at, prefix = i, "--problem="
        else:
            continue
        old = out[at][len(prefix):]
        if old in RENAMED:
            print(f"warning: pino's --problem {old} is now {RENAMED[old]} (pinn's {old} is the PINN problem)",
                  file=sys.stderr)
            out[at] = prefix + RENAMED[old]
    return out


def parse_args(argv=None):
    """The flags of `build_parser`, defaults filled from `DEFAULTS`, validated before any work (status 2
    and one `error:` line naming the flag)."""
    parser = build_parser()
    args = parser.parse_args(_renamed(sys.argv[1:] if argv is None else list(argv)))
    check_args(parser, args, load=_load)
    if args.saved is not None:
        for flag in ("modes", "width", "layers"):
            value = getattr(args, flag)
            if value is not None and _saved_value(args.saved.model, flag) not in (None, value):
                parser.error(f"--{flag} {value}: --load {args.load} continues the saved {args.saved.model!r} "
                             f"(leave --{flag} out)")
        if args.dtype is None and args.saved.dtype:
            args.dtype = args.saved.dtype      # a loaded model continues in its own precision
    for key, value in DEFAULTS[args.problem].items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    if args.budget_minutes is None and args.problem == "darcy":
        args.budget_minutes = DARCY_BUDGET_MINUTES
    problem = flag_problem(args)
    if problem:
        parser.error(problem)
    return args


def _saved_value(model, flag: str):
    """The saved model's `--modes`/`--width`/`--layers` (an FNO's n_modes when all equal), or None if it has none."""
    base = getattr(model, "model", model)            # Normalized wraps the FNO
    for name in {"modes": ("modes", "n_modes")}.get(flag, (flag,)):
        value = getattr(base, name, None)
        if isinstance(value, (tuple, list)):
            value = value[0] if len(set(value)) == 1 else tuple(value)
        if value is not None:
            return value
    return None


def flag_problem(args) -> str | None:
    """What is wrong with pino's own (defaults-filled) flags, checked before any work; None if nothing.

    The common flags were checked by `workbench.cli.check_args`."""
    for flag in ("n", "modes", "width", "layers", "train", "test", "batch"):
        if getattr(args, flag) < 1:
            return f"--{flag} must be >= 1, got {getattr(args, flag)}"
    two_d = args.problem in PROBLEMS_2D
    if not two_d and args.n // 2 + 1 < args.modes:
        return (f"--modes {args.modes} needs a grid of n >= {2 * (args.modes - 1)} (n={args.n} has "
                f"{args.n // 2 + 1} Fourier bins)")
    if two_d and args.modes > args.n:
        return f"--modes {args.modes} is more than the {args.n} grid points per axis (--n)"
    if args.batch > args.train:
        return f"--batch {args.batch} is larger than the {args.train} training samples (--train)"
    if not (math.isfinite(args.fine_tune_lr) and args.fine_tune_lr > 0):
        return f"--fine-tune-lr must be a positive finite number, got {args.fine_tune_lr:g}"
    if not (math.isfinite(args.physics_weight) and args.physics_weight >= 0):
        return f"--physics-weight must be a finite number >= 0, got {args.physics_weight:g}"
    if (args.physics_weight > 0 or args.fine_tune) and args.problem not in PHYSICS_PROBLEMS:
        return (f"--physics-weight and --fine-tune need a PDE loss: problems {', '.join(PHYSICS_PROBLEMS)}, "
                f"not {args.problem}")
    if args.budget_minutes is not None and not (math.isfinite(args.budget_minutes) and args.budget_minutes > 0):
        return f"--budget-minutes must be a positive number, got {args.budget_minutes:g}"
    if args.blas_threads < 0:
        return f"--blas-threads must be >= 0, got {args.blas_threads}"
    if args.fine_tune < 0 or args.fine_tune_samples < 1:
        return f"--fine-tune must be >= 0 and --fine-tune-samples >= 1, got {args.fine_tune}, {args.fine_tune_samples}"
    if args.fine_tune and args.fine_tune_samples > args.test:
        return f"--fine-tune-samples {args.fine_tune_samples} is more than the {args.test} test samples (--test)"
    if args.fine_tune_n is not None:
        if args.problem != "darcy" or not args.fine_tune:
            return "--fine-tune-n needs --problem darcy and --fine-tune STEPS"
        if args.fine_tune_n < 5 or (args.solver_n - 1) % (args.fine_tune_n - 1):
            return (f"--solver-n {args.solver_n} cannot be subsampled to --fine-tune-n {args.fine_tune_n}: it needs "
                    f"n >= 5 and (solver_n - 1) / (n - 1) whole (e.g. 169 -> 29, 43, 85)")
    if two_d:
        if args.solver_n < args.n:
            return f"--solver-n {args.solver_n} is smaller than --n {args.n}"
        if args.problem == "darcy":
            if args.n < 5 or (args.solver_n - 1) % (args.n - 1):
                return (f"--solver-n {args.solver_n} cannot be subsampled to --n {args.n}: darcy needs n >= 5 and "
                        f"(solver_n - 1) / (n - 1) whole (e.g. 421 -> 85, 141, 211)")
        elif args.solver_n % args.n:
            return f"--solver-n {args.solver_n} is not a multiple of --n {args.n}"
        if args.problem == "navier-stokes" and args.t_out < 1:
            return f"--t-out must be >= 1, got {args.t_out}"
        if args.problem == "burgers-pino" and args.nt < 3:
            return f"--nt must be >= 3, got {args.nt}"
    if args.plot and not args.no_plot:
        directory = os.path.dirname(os.path.abspath(args.plot))
        if not os.path.isdir(directory):
            return f"--plot: the directory {directory} does not exist"
        if not os.access(directory, os.W_OK | os.X_OK):
            return f"--plot: the directory {directory} is not writable"
    return None


def main(argv=None) -> int:
    args = parse_args(argv)
    from frame.errors import FrameError

    if args.plot:
        print(f"warning: --plot is deprecated; the fields plot goes to {args.plot} this time, by default to "
              f"{os.path.join(args.out, 'fields.png')}", file=sys.stderr)
    args.client = None
    try:
        args.client = client_from_args(args.workers, args.scheduler)
        if args.blas_threads:
            from threadpoolctl import threadpool_limits   # before frame reads the count (frame.runtime.blas)
            with threadpool_limits(limits=args.blas_threads, user_api="blas"):
                outcome = run(args)
        else:
            outcome = run(args)
    except FrameError as e:  # training failed: NaN, divergence
        print(f"error: {e}", file=sys.stderr)
        return 1
    finally:
        if args.client is not None:
            args.client.close()   # a --workers client also stops its local cluster
    result = outcome["result"]
    print(f"final training loss {result.history[-1]:.4e}" if result.history else "no training steps taken")
    if result.phases and result.phases[-1][0] == "lbfgs" and len(result.history) > result.phases[-1][1]:
        iterations = result.phases[-1][1]
        print(f"L-BFGS: {iterations} iterations in {result.timings.get('lbfgs', 0.0):.1f} s; loss "
              f"{result.history[-iterations - 1]:.4e} (last Adam step) -> {result.history[-1]:.4e}", flush=True)
    print_errors(result, spread=outcome.get("spread"),
                 detail=f"mean over {len(outcome['test'])} held-out samples; {result.wall_time:.1f} s training")
    if "fine_tune" in outcome:
        before, after = outcome["fine_tune"]
        grid = f", PDE and error on the {args.fine_tune_n}-point grid" if args.fine_tune_n not in (None, args.n) else ""
        print(f"fine-tuning ({args.fine_tune} steps each on {len(before)} test instances{grid}): rel. L2 "
              f"{format_error(sum(before) / len(before))} -> {format_error(sum(after) / len(after))} (mean)")
    return write_outputs(args, result, run_metrics(args, outcome), lambda: write_plots(args, outcome))


def run_metrics(args, outcome) -> dict:
    """The run's numbers for `metrics.json` (`workbench.cli.result_metrics`: the keys pinn writes, then pino's)."""
    extra = {"test_samples": len(outcome["test"]), "std_over_samples": outcome.get("spread")}
    if "fine_tune" in outcome:
        before, after = outcome["fine_tune"]
        extra["fine_tune"] = {"steps": args.fine_tune, "before": before, "after": after,
                              "grid": args.fine_tune_n or args.n}
    return result_metrics(outcome["result"], package="pino", problem=args.problem, seed=args.seed, **extra)


def write_plots(args, outcome) -> list[tuple[str, str]]:
    """The fields plot and, with training steps, the loss curve into `args.out`; returns (name, path) pairs."""
    from workbench import plots

    result, test = outcome["result"], outcome["test"]
    fields = args.plot or os.path.join(args.out, "fields.png")
    if args.problem in PROBLEMS_2D:
        fig = plots.fields_2d(outcome["plot_inputs"], outcome["plot_truth"], outcome["plot_prediction"], test.coords,
                              title=outcome["title"], input_label=outcome["input_label"],
                              output_label=outcome["output_label"])
    else:
        fig = plots.fields_1d(test.x, test.inputs, test.outputs, result.predictions, title=outcome["title"],
                              input_label=outcome["input_label"], output_label=outcome["output_label"])
    paths = [("fields", plots.save_figure(fig, fields))]
    if result.history:
        fig = plots.loss_figure(result.history, result.phases, result.errors, title=f"{args.problem} training")
        paths.append(("loss", plots.save_figure(fig, os.path.join(args.out, "loss.png"))))
    return paths


def _model_1d(args):
    """The saved model of --load, or a new FNO1d from the flags."""
    from . import FNO1d

    if args.saved is not None:
        return args.saved.model
    return FNO1d(modes=args.modes, width=args.width, layers=args.layers)


def _resume(args) -> dict:
    """The keyword that continues a --load'ed run (none without --load)."""
    return {} if args.saved is None else {"resume": args.saved}


def run(args) -> dict:
    """Train as the flags say; returns {"result", "test", "title", "input_label", ...} for reporting and plots."""
    if args.problem in PROBLEMS_2D:
        return run_2d(args)
    from . import BurgersOperator1D, PeriodicPoisson1D, train_operator, train_poisson_physics

    model = _model_1d(args)
    print(f"{args.problem}: {model}, {model.num_parameters()} parameters, n={args.n}, "
          f"{args.train} train / {args.test} test samples, {args.steps} steps of batch {args.batch}"
          + (f", then {args.lbfgs} L-BFGS iterations" if args.lbfgs else ""))
    if args.problem == "periodic-poisson1d":
        problem = PeriodicPoisson1D(n=args.n)
        result = train_poisson_physics(model, problem, num_train=args.train, num_test=args.test, steps=args.steps,
                                       batch_size=args.batch, lr=args.lr, dtype=args.dtype, seed=args.seed,
                                       progress=not args.no_progress, client=args.client, lbfgs_steps=args.lbfgs,
                                       **_resume(args))
        test = result.extra["test"]
        title, input_label, output_label = "-u'' + u = f, trained from the physics residual only", "forcing f", "u"
    else:
        problem = BurgersOperator1D()
        print("generating data with the ETDRK4 solver ...", flush=True)
        train = problem.sample(args.train, args.n, seed=args.seed)
        test = problem.sample(args.test, args.n, seed=args.seed + 1)
        result = train_operator(model, train, test, steps=args.steps, batch_size=args.batch, lr=args.lr,
                                dtype=args.dtype, seed=args.seed, progress=not args.no_progress,
                                desc="FNO burgers-operator1d", client=args.client, lbfgs_steps=args.lbfgs,
                                problem_name=args.problem, **_resume(args))
        title = f"Burgers, nu = {problem.viscosity}: u(., 0) -> u(., {problem.final_time:g})"
        input_label, output_label = "u0(x)", f"u(x, {problem.final_time:g})"
    return {"result": result, "test": test, "title": title, "input_label": input_label, "output_label": output_label}


def problem_2d(args):
    """The 2-D problem (`pino.problems`) the flags describe."""
    from .problems import BurgersSpaceTime, Darcy2D, NavierStokes2D

    if args.problem == "darcy":
        return Darcy2D(resolution=args.n, solver_resolution=args.solver_n)
    if args.problem == "navier-stokes":
        return NavierStokes2D(resolution=args.n, solver_resolution=args.solver_n, t_out=args.t_out)
    return BurgersSpaceTime(resolution=args.n, solver_resolution=args.solver_n, nt=args.nt)


def fit_steps(args, model, train, physics, started: float) -> int:
    """`args.steps`, cut to what the `--budget-minutes` left after `started` allows at a measured step time.

    One warm-up trainer compiles the training step and times two steps; the time left is shared by
    the training steps and a reserve for the test predictions, the plots, any L-BFGS iterations and
    any fine-tuning (estimated from the same step time).
    """
    import time

    import numpy as np
    from frame.runtime import tiers, wait_native_builds
    from frame.train import Adam, Trainer

    from .training import relative_l2_loss

    if args.budget_minutes is None or args.steps == 0:
        return args.steps
    x, y = (a[:args.batch] for a in train.channels(args.dtype))

    def loss_fn(params, a, u):
        pred = model.apply(params, a)
        loss = relative_l2_loss(pred, u)
        return loss + args.physics_weight * physics(pred, a) if physics is not None and args.physics_weight else loss

    trainer = Trainer(loss_fn, model.init(args.seed, args.dtype), Adam(1e-6), progress=False)
    # Time the steps the run will take: the native tier is built in the background once the step is hot
    # (timing the numpy tier while the build competes for the cores measured ~6x the real step).
    for _ in range(tiers.POLICY["after_calls"] + 1):
        trainer.step(x, y)
    wait_native_builds()
    times = []
    for _ in range(2):
        start = time.perf_counter()
        trainer.step(x, y)
        times.append(time.perf_counter() - start)
    step = float(np.median(times))
    # Test predictions ~ a third of a step per batch, made 11 times (train_operator measures the test error
    # every steps // 10 steps and at the end); fine-tuning steps at batch 1 ~ 1/batch of a step each (times
    # the grid's growth with --fine-tune-n); an L-BFGS iteration on all training samples ~ train/batch steps
    # (one or two loss and gradient evaluations in float64: counted as two).
    tune_cells = ((args.fine_tune_n or args.n) / args.n) ** 2
    reserve = step * (11 * args.test / args.batch / 3 + 2
                      + tune_cells * args.fine_tune * args.fine_tune_samples / args.batch
                      + 2 * args.lbfgs * args.train / args.batch)
    left = args.budget_minutes * 60 - (time.perf_counter() - started) - reserve
    steps = max(0, min(args.steps, int(left / step)))
    print(f"budget {args.budget_minutes:g} min: {time.perf_counter() - started:.0f} s used (data, compile), "
          f"{step:.2f} s a step -> {steps} of at most {args.steps} steps", flush=True)
    return steps


def run_2d(args) -> dict:
    import time

    import numpy as np

    from . import FNO2d, losses
    from .training import Normalized, relative_l2, train_operator

    started = time.perf_counter()
    print(f"{args.problem}: generating or loading data (solver grid {args.solver_n}, data grid {args.n}) ...",
          flush=True)
    problem = problem_2d(args)
    common = dict(progress=not args.no_progress, cache=not args.no_cache)
    fine = None
    if args.fine_tune and args.fine_tune_n not in (None, args.n):
        # First the finer grid: the --n data is then a subsample of these cached solves, not solved again.
        fine_problem = type(problem)(resolution=args.fine_tune_n, solver_resolution=args.solver_n)
        fine = (fine_problem.fields(args.train, args.seed, **common), fine_problem.fields(args.test, args.seed + 1,
                                                                                           **common))
    train, test = problem.fields(args.train, args.seed, **common), problem.fields(args.test, args.seed + 1, **common)
    c_in, c_out = train.inputs.shape[1], train.outputs.shape[1]
    if args.saved is not None:
        model = args.saved.model
        base = getattr(model, "model", model)
    else:
        base = FNO2d(n_modes=args.modes, width=args.width, layers=args.layers, in_channels=c_in, out_channels=c_out,
                     domain_padding=problem.domain_padding)
        model = Normalized.from_data(base, train.inputs, train.outputs)
    print(f"{args.problem}: {base}, {base.num_parameters()} parameters, grid {tuple(train.inputs.shape[2:])}, "
          f"{args.train} train / {args.test} test samples, {args.steps} steps of batch {args.batch}"
          + (f", PDE loss weight {args.physics_weight:g}" if args.physics_weight else "")
          + (f", then {args.lbfgs} L-BFGS iterations" if args.lbfgs else ""), flush=True)
    physics = problem.physics if problem.has_physics else None
    steps = fit_steps(args, model, train, physics, started)
    with_physics = physics is not None and args.physics_weight > 0
    result = train_operator(model, train, test, steps=steps, batch_size=args.batch, lr=args.lr,
                            dtype=args.dtype, seed=args.seed, progress=not args.no_progress,
                            physics=physics if with_physics else None,
                            physics_weight=args.physics_weight, desc=f"FNO2d {args.problem}", client=args.client,
                            lbfgs_steps=args.lbfgs, problem_name=args.problem, **_resume(args))
    per_sample = [relative_l2(result.predictions[i:i + 1], test.outputs[i:i + 1]) for i in range(len(test))]
    outcome = {"result": result, "test": test, "spread": float(np.std(per_sample))}
    prediction = result.predictions
    if args.fine_tune:
        tune_model, tune_test, stride = model, test, 1
        if fine is not None:
            # The FNO runs on the finer grid as it is (modes and padding fraction do not depend on the grid); its
            # pointwise normaliser takes the same training samples' statistics at the finer grid's points.
            tune_model, tune_test = Normalized.from_data(base, fine[0].inputs, fine[0].outputs), fine[1]
            stride = (args.fine_tune_n - 1) // (args.n - 1) if (args.fine_tune_n - 1) % (args.n - 1) == 0 else None
        before, after = [], []
        prediction = prediction.copy()
        for i in range(args.fine_tune_samples):
            tuned = losses.fine_tune(tune_model, result.params, tune_test.inputs[i:i + 1].astype(args.dtype),
                                     args.fine_tune, physics=physics, truth=tune_test.outputs[i:i + 1],
                                     lr=args.fine_tune_lr, progress=not args.no_progress)
            before.append(tuned.initial_error)
            after.append(tuned.final_error)
            if stride:   # the plot shows the --n grid: the fine-tuned field at its points
                prediction[i] = tuned.prediction[0][..., ::stride, ::stride]
        outcome["fine_tune"] = (before, after)
    inputs, truth, shown = problem.plot_slices(test.inputs, test.outputs, prediction)
    outcome.update(title=problem.title, input_label=problem.input_label, output_label=problem.output_label,
                   plot_inputs=inputs, plot_truth=truth, plot_prediction=shown)
    return outcome


if __name__ == "__main__":
    sys.exit(main())
