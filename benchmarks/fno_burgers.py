"""FNO on 1-D Burgers in the FNO paper's setting: test relative L2 error and training time.

Setting (Li et al. 2021, sec. 5.1): u(., 0) -> u(., 1), nu = 0.1, periodic [0, 1), inputs from
N(0, 625 (-Delta + 25 I)^-2), 1000 training and 100 test samples, 16 modes, width 64, 4 Fourier
layers, batch 20, Adam from lr 1e-3 (cosine decay here), relative-L2 loss.

What the published numbers mean: the paper's Table 1 (about 1.5-1.6 % at every resolution) came from
an early FNO with batch normalisation; the reference code without it reaches about 0.25 % on the
same data after 500 epochs (neuraloperator issue #30, "Reproducing Results in Table 1", 2021: a
user measured 0.254 % with `fourier_1d.py` and traced the gap to the removal of batch norm). And
with nu = 0.1 the task is nearly linear: the heat-equation predictor (u(., 0) diffused by nu for
the same time, no learning) already scores the few-percent error this script prints beside the
FNO's. So the fair bar is the ~0.25 % of the current reference code, and the heat predictor shows
how much of the operator is nonlinear at all. With `--seeds 0 1 2` the script trains once per seed
and reports the mean and spread.

Data: generated here with the seeded ETDRK4 solver at s = 1024 and subsampled to the training
resolution, as the paper subsamples its 8192-point data. Resolution: s = 1024 by default, or with `--s auto` the largest of
1024/512/256/128 whose measured step time allows `--min-epochs` epochs within `--budget-minutes`
(15 by default). The run takes as many steps as the budget allows (at most `--max-epochs`).

    .venv/bin/python benchmarks/fno_burgers.py [--s 1024|512|256|auto] [--budget-minutes 15] [--seeds 0 1 2]
        [--plot out.png]
"""
from __future__ import annotations

import argparse
import os
import sys


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--s", default="1024", help="training resolution (divides 1024) or 'auto'")
    p.add_argument("--budget-minutes", type=float, default=15.0, help="training time budget")
    p.add_argument("--min-epochs", type=int, default=30, help="auto resolution: epochs the budget must allow")
    p.add_argument("--max-epochs", type=int, default=500, help="upper bound on epochs (the paper trains 500)")
    p.add_argument("--train", type=int, default=1000)
    p.add_argument("--test", type=int, default=100)
    p.add_argument("--batch", type=int, default=20)
    p.add_argument("--modes", type=int, default=16)
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--transform", choices=("auto", "dft", "fft"), default="auto",
                   help="spectral transform of FNO1d (auto: the truncated DFT as GEMMs; fft: full rfft/irfft)")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--seeds", type=int, nargs="+", default=[0], help="one training run per seed (data and init)")
    p.add_argument("--plot", default=None, help="save predicted vs true test fields here")
    p.add_argument("--blas-threads", type=int, default=1, help="OPENBLAS_NUM_THREADS (0: library default); "
                   "one thread avoids stalls of small batched matmuls on a shared machine")
    p.add_argument("--no-progress", action="store_true")
    return p.parse_args(argv)


ARGS = parse_args() if __name__ == "__main__" else None
if ARGS is not None and ARGS.blas_threads > 0:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", str(ARGS.blas_threads))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import time  # noqa: E402

import numpy as np  # noqa: E402

from driver import time_trainer_step  # noqa: E402  (this directory is on sys.path when the script runs)

from frame.train import Adam, Trainer  # noqa: E402
from pino import Burgers1D, FNO1d, OperatorData, relative_l2_loss, train_operator  # noqa: E402

DATA_RESOLUTION = 1024
PAPER_ERROR = 0.015            # Li et al. 2021, Table 1 (FNO, s = 1024: 0.0160; ~0.015 across resolutions)
REFERENCE_CODE_ERROR = 0.0025  # fourier_1d.py without batch norm, 500 epochs (neuraloperator issue #30)


def heat_prediction(inputs: np.ndarray, viscosity: float, time: float, length: float) -> np.ndarray:
    """u(., 0) diffused by `u_t = viscosity u_xx` for `time` on the periodic grid: Burgers without its
    nonlinear term, solved exactly in Fourier space. The baseline that shows how linear the task is."""
    k = np.fft.rfftfreq(inputs.shape[-1], d=length / inputs.shape[-1]) * 2 * np.pi
    return np.fft.irfft(np.fft.rfft(inputs, axis=-1) * np.exp(-viscosity * k ** 2 * time), n=inputs.shape[-1], axis=-1)


def relative_l2(pred: np.ndarray, true: np.ndarray) -> float:
    """Batch mean of per-sample ||pred - true|| / ||true||, the metric `relative_l2_loss` trains on."""
    return float(np.mean(np.linalg.norm(pred - true, axis=-1) / np.linalg.norm(true, axis=-1)))


def subsample(data: OperatorData, s: int) -> OperatorData:
    stride = DATA_RESOLUTION // s
    return OperatorData(data.inputs[:, ::stride], data.outputs[:, ::stride], data.x[::stride])


def step_seconds(model: FNO1d, s: int, batch: int, steps: int = 3) -> float:
    """Median time of a training step at resolution s, on the native tier (`driver.time_trainer_step`)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, 1, s)).astype(np.float32)
    trainer = Trainer(lambda p, a, u: relative_l2_loss(model.apply(p, a), u), model.init(0), Adam(1e-3),
                      progress=False)
    return time_trainer_step(trainer, x, x, repeats=steps)["time"]


def main(args) -> None:
    model = FNO1d(modes=args.modes, width=args.width, layers=args.layers, transform=args.transform)
    budget = args.budget_minutes * 60
    steps_per_epoch = args.train // args.batch
    candidates = [DATA_RESOLUTION // 2 ** i for i in range(4)] if args.s == "auto" else [int(args.s)]
    if DATA_RESOLUTION % candidates[0]:
        raise SystemExit(f"--s must divide {DATA_RESOLUTION}, got {args.s}")
    timings = {}
    for s in candidates:
        timings[s] = step_seconds(model, s, args.batch)
        epochs = budget / (timings[s] * steps_per_epoch)
        print(f"s = {s:5d}: {timings[s] * 1e3:8.1f} ms per step -> {epochs:6.1f} epochs in {args.budget_minutes:g} min",
              flush=True)
        if epochs >= args.min_epochs:
            break
    s = list(timings)[-1]   # the first (largest) that fits, else the smallest tried
    steps = int(min(args.max_epochs * steps_per_epoch, budget / timings[s]))
    print(f"training at s = {s}: {steps} steps = {steps / steps_per_epoch:.1f} epochs of {steps_per_epoch} batches",
          flush=True)

    problem = Burgers1D()
    errors, seconds, heat_errors = [], [], []
    for seed in args.seeds:
        start = time.perf_counter()
        train = problem.sample(args.train, DATA_RESOLUTION, seed=2 * seed)
        test = problem.sample(args.test, DATA_RESOLUTION, seed=2 * seed + 1)
        print(f"seed {seed}: data {args.train} + {args.test} ETDRK4 solutions at s = {DATA_RESOLUTION} in "
              f"{time.perf_counter() - start:.1f} s", flush=True)
        test_s = subsample(test, s)
        heat_errors.append(relative_l2(heat_prediction(test_s.inputs, problem.viscosity, problem.final_time,
                                                       problem.length), test_s.outputs))
        result = train_operator(model, subsample(train, s), test_s, steps=steps, batch_size=args.batch,
                                lr=args.lr, seed=seed, progress=not args.no_progress, desc=f"FNO burgers s={s} seed {seed}")
        errors.append(result.test_error)
        seconds.append(result.seconds)
        print(f"\nseed {seed}: test rel. L2 {result.test_error:.3%} (heat predictor {heat_errors[-1]:.2%}), "
              f"{result.seconds:.0f} s, final training loss {result.history[-1]:.4e}", flush=True)

    def spread(values, fmt):
        return format(values[0], fmt) if len(values) == 1 else \
            f"{format(np.mean(values), fmt)} +- {format(np.std(values), fmt)} ({len(values)} seeds)"

    print()
    print(f"{'setting':<52} {'test rel. L2':>26} {'train time':>11}")
    print(f"{f'frame FNO1d, s={s}, {steps / steps_per_epoch:.0f} epochs':<52} {spread(errors, '.3%'):>26} "
          f"{np.mean(seconds):>10.0f}s")
    print(f"{'heat-equation predictor (no learning)':<52} {spread(heat_errors, '.2%'):>26}")
    print(f"{'fourier_1d.py without batch norm, 500 epochs (#30)':<52} {REFERENCE_CODE_ERROR:>26.2%}")
    print(f"{'FNO paper Table 1 (early FNO with batch norm)':<52} {PAPER_ERROR:>26.1%}")
    print(f"{model.num_parameters()} parameters; data: nu = 0.1 and the GRF of the paper's text, generated here "
          "(not the released .mat file)")
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        from pino.plots import plot_fields

        plot_fields(test_s.x, test_s.inputs, test_s.outputs, result.predictions, input_label="u0",
                    title=f"Burgers nu = 0.1, s = {s}: FNO test predictions (seed {args.seeds[-1]})", path=args.plot)
        print(f"plot written to {args.plot}")


if __name__ == "__main__":
    main(ARGS)
