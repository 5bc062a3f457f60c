"""FNO-2D on 2-D Navier-Stokes (viscosity 1e-3) in the FNO paper's setting, with a shortened horizon.

Setting (Li et al. 2021, FNO, sec. 5.3): vorticity form on the unit torus, forcing
`0.1 (sin 2pi(x+y) + cos 2pi(x+y))`, `w0` from `N(0, 7^3 (-Laplacian + 49 I)^-2.5)`, 64^2 grid
(`pino.datasets.navier_stokes_data`: pseudo-spectral, 2/3 rule, Crank-Nicolson + AB2, dt = 5e-3, solved
at 64^2 here, the paper at 256^2 with dt = 1e-4); input `w` at t = 1..10. The paper predicts t = 11..50
(T = 50, 1000 training samples); this script predicts t = 11..10+`--t-out` (10 by default: the horizon
is shortened to keep data and training within an hour here; see Measured).

Model: `pino.FNO2d` (neuraloperator's structure, n_modes 24 = the paper's 12 per sign, width 32,
4 layers; no padding: the domain is periodic) as a one-shot map from the 10 input snapshots (channels)
to the `--t-out` output snapshots, or (`--block B`) to the next B snapshots, rolled out over the
horizon B at a time, each block from the last 10 snapshots known or predicted. A block model is
trained on the true windows of each trajectory (teacher forcing), or with `--rollout-training`
through its own rollout (the loss over the whole horizon, gradients through every block). The
paper's FNO-2D is recurrent with B = 1, trained through its rollout. The error is the relative L2
over the whole predicted trajectory (mean over test samples), as the paper's. Mean and spread over
`--seeds`.

Published figure compared with: FNO paper (Li et al., ICLR 2021, arXiv 2010.08895,
https://arxiv.org/abs/2010.08895, https://ar5iv.labs.arxiv.org/html/2010.08895) Table 1 "Benchmarks on
Navier Stokes", nu = 1e-3, T = 50, N = 1000: FNO-2D 0.0128 (FNO-3D 0.0086); FNO-2D is the recurrent 2-D
model (10 snapshots in, one out, rolled out to t = 50), 500 epochs. (The stored copies of the paper give
only its opening; the table value is the paper's as quoted. The same table's FNO-2D 0.1556 at nu = 1e-5,
T = 20 is the "Navier-Stokes" entry of the paper's benchmark listing at
https://www.wizwand.com/paper/68fa581d1e209131ce9ab45d.) The paper's error at T = 50 is over a 40-step
horizon; over 10 steps it is lower, so 1.5 x 0.0128 is a loose bar for this shorter task.

Measured 2026-12-02 (2 cores, `--budget-minutes 20 --seeds 0 1 2 --data-seed 0`: one data set of 1000
training trajectories (seed 0) and 100 test trajectories (seed 1000), t = 0..20 at dt = 5e-3; the three
seeds change the initialisation and minibatch order): test relative L2 0.722 %, 0.664 %, 0.663 %
(0.683 +- 0.028 %, mean +- std) after 64.6, 76.7 and 83.6 epochs (0.29-0.37 s a step, 18-22 min a
seed). Against the bar: 1.5 x 1.28 % = 1.92 %, and below the paper's 1.28 % itself; the paper's figure
is over 40 predicted steps of a recurrent model and ours over 10 of a one-shot model, so this meets
the loose bar, not a like-with-like comparison (the paper gives no nu = 1e-3 figure at a shorter
horizon). The data took 29 min for the 1000 training trajectories on the two cores shared with a
one-core job (the solver ~45-70 ms a sample and unit time at dt = 5e-3, 5x fewer steps than the
earlier default 1e-3, which was as accurate to < 2e-6); the paper's full task (1200 trajectories to
t = 50, 60 000 sample-time-units) would be ~1 h of solver, then 4x the training per epoch.

The paper's horizon (2026-12-02, one seed each, so no spread yet; `--t-out 40 --train 1000 --test 200
--budget-minutes 20 --data-seed 0`, the paper's 1000 / 200 trajectories to t = 50): the data took 33
min (1000 trajectories) and 4.4 min (200) with the solver's chunks on both cores (`threads`). One
shot (40 output channels): 4.80 % after 57.9 epochs (17.7 min). `--block 10` on true windows: 2.23 %
over t = 11..50 (the first block alone 0.95 %) after 21.3 epochs of the 4000 windows (23 min); seed 1,
whose step time was measured beside another job (0.46 s, so 13.0 epochs in 15 min): 2.73 % (1.20 %). Both
above the 1.5x bar (1.92 %); the paper's 1.28 % took 500 epochs of its rollout-trained recurrent
model. `--rollout-training` runs (1.15 s a step at batch 20, 4 blocks) but was not trained to a
result here.

Teacher forcing, then the rollout (2026-12-03, seed 0, nothing else running, an Intel Xeon host where
the steps took 1.7-2x as long as above: `--t-out 40 --train 1000 --test 200 --block 10 --budget-minutes
40 --rollout-minutes 30 --data-seed 0`): 40 min on true windows (0.70 s a step, 17.2 epochs of the 4000
windows) gave 2.454 % over t = 11..50 (first block 1.042 %); 30 min more through the rollout from those
weights (`--rollout-lr` 5e-4, 1.96 s a step, 18.3 epochs of the 1000 trajectories) brought it to 2.035
%: still above the 1.92 % bar, within 6 % of it (the test error measured every tenth of the rollout
phase: 2.40, 2.26, 2.41, 2.24, 2.15, 2.10, 2.08, 2.05, 2.04, 2.03 %, flattening as the cosine schedule
ends; so a longer budget, not more of this one, is what is left to try). The paper's own FNO-2D (the FNO
repository's fourier_2d_time.py) has width 20 and modes 12 per sign, trained 500 epochs through its
rollout (lr 2.5e-3 halved every 100 epochs, weight decay 1e-4); at width 20 a step here is ~1.4x faster
than at 32 (0.37 against 0.51 s, batch 20, 10 -> 10 channels).

A longer budget (2026-12-03, seed 0, after the [Wr | Wi] spectral mixing made the step ~20 % faster;
`--block 10 --budget-minutes 55 --rollout-minutes 50`, the other settings as above, the first ~50 min
beside other jobs: the step count is fixed up front from a step timed alone, so they only stretched
the wall time): 7343 steps on true windows (0.45 s a step timed, 36.7 epochs) gave **1.730 %** over
t = 11..50 (first block 0.739 %): under the 1.92 % bar with teacher forcing alone; then 1841 steps
through the rollout (1.63 s a step, 36.8 epochs of the 1000 trajectories) **1.438 %** (1.12 x the paper's
1.28 %; measured every tenth: 1.68, 1.68, 1.85, 1.68, 1.54, 1.53, 1.51, 1.45, 1.45, 1.44 %). Seed 1 at the
same budget (2026-12-03, the same data; its first step timed at 0.53 s, so 6262 steps, 31.3 epochs, on
true windows): 1.823 % (first block 0.791 %), then 1837 steps through the rollout (1.63 s a step, 36.7
epochs): **1.554 %**. Seed 2 at the same budget (2026-12-03, the same data, the machine to itself and
no hypervisor steal, where steps were 1.2-1.4x (true windows) and 1.9x (rollout) as fast as seeds 0 and
1 had: 0.37 s timed, 8977 steps, 44.9 epochs, on true windows): 1.635 % (first block 0.709 %), then
3514 steps through the rollout (0.85 s a step timed, 70.3 epochs): **1.341 %** (measured every tenth:
1.63, 1.68, 1.59, 1.76, 1.47, 1.40, 1.37, 1.35, 1.34, 1.34 %).
Seeds 0-2: **1.444 +- 0.087 %** (mean +- std), 1.13 x the paper's 1.28 %, under the 1.92 % bar.
The budget is wall time, so the epochs it buys differ with the host (seed 2 trained 1.2-1.4x the
epochs of seeds 0 and 1 on true windows and 1.9x through the rollout); per seed they are given above.

    .venv/bin/python benchmarks/fno_navier_stokes.py [--train 1000] [--test 100] [--t-out 10]
        [--block B [--rollout-training]] [--budget-minutes 60] [--seeds 0 1 2] [--data-seed 0]
"""
from __future__ import annotations

import argparse
import os
import sys


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--s", type=int, default=64)
    p.add_argument("--t-out", type=int, default=10, help="unit time steps predicted after the 10 input steps")
    p.add_argument("--train", type=int, default=1000)
    p.add_argument("--test", type=int, default=100)
    p.add_argument("--batch", type=int, default=20)
    p.add_argument("--modes", type=int, default=24)
    p.add_argument("--width", type=int, default=32)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--budget-minutes", type=float, default=60.0, help="training time budget per run")
    p.add_argument("--max-epochs", type=int, default=500)
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--block", type=int, default=None,
                   help="predict this many steps at a time and roll out over --t-out (it divides --t-out, "
                        "<= 10; default: --t-out, one shot)")
    p.add_argument("--rollout-training", action="store_true",
                   help="with --block: train through the model's own rollout over the horizon (gradients through "
                        "every block, as the FNO paper trains its FNO-2D) instead of on true windows")
    p.add_argument("--rollout-minutes", type=float, default=0.0,
                   help="with --block (on true windows): then fine-tune through the rollout for this many minutes, "
                        "from the teacher-forced weights")
    p.add_argument("--rollout-lr", type=float, default=5e-4, help="peak learning rate of the --rollout-minutes phase")
    p.add_argument("--data-seed", type=int, default=None,
                   help="one data set for every seed (train seed N, test seed N + 1000); default: per seed")
    p.add_argument("--blas-threads", type=int, default=1, help="OPENBLAS_NUM_THREADS (0: library default)")
    p.add_argument("--no-progress", action="store_true")
    return p.parse_args(argv)


ARGS = parse_args() if __name__ == "__main__" else None
if ARGS is not None and ARGS.blas_threads > 0:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", str(ARGS.blas_threads))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402

from driver import time_trainer_step  # noqa: E402  (this directory is on sys.path when the script runs)

from frame.train import Adam, Trainer  # noqa: E402
import frame.numpy as fnp  # noqa: E402
from pino import FNO2d  # noqa: E402
from pino import datasets as ds  # noqa: E402
from pino.training import Normalized, predict, relative_l2, relative_l2_loss, train_operator  # noqa: E402

PAPER_FNO2D_NU1E3 = 0.0128


def step_seconds(model, train, batch: int, steps: int = 2) -> float:
    x, y = train.channels("float32")
    trainer = Trainer(lambda p, a, u: relative_l2_loss(model.apply(p, a), u), model.init(0), Adam(1e-4),
                      progress=False)
    return time_trainer_step(trainer, x[:batch], y[:batch], repeats=steps)["time"]


def budget(model, train, batch: int, minutes: float, max_epochs: int):
    """(seconds a step, steps, epochs) of a run of `minutes` (at most `max_epochs`) at the measured step time."""
    per_step = step_seconds(model, train, batch)
    steps_per_epoch = len(train) // batch
    steps = max(1, min(max_epochs * steps_per_epoch, int(minutes * 60 / per_step)))
    return per_step, steps, steps / steps_per_epoch


def windows(data, block: int, t_in: int = 10):
    """The training pairs of a `block`-step recurrent model: for every trajectory and k = 0, 1, ...,
    the `t_in` snapshots before t_in + k*block -> the `block` after them (true snapshots: teacher forcing)."""
    w = np.concatenate([data.inputs, data.outputs], axis=1)
    starts = range(0, data.outputs.shape[1], block)
    return ds.FieldData(np.concatenate([w[:, k:k + t_in] for k in starts]),
                        np.concatenate([w[:, k + t_in:k + t_in + block] for k in starts]), data.coords, data.meta)


class Rollout:
    """`model` (t_in snapshots -> the next `block`) applied `times` times in one graph, each application's input
    the last t_in snapshots known or predicted: training it on whole trajectories trains the block model through
    its own rollout (the loss over the horizon, gradients through every block), as the FNO paper trains its
    recurrent FNO-2D; `init` and the parameters are the block model's."""

    def __init__(self, model, times: int, t_in: int = 10):
        self.model, self.times, self.t_in = model, times, t_in

    def init(self, seed=0, dtype="float32"):
        return self.model.init(seed, dtype)

    def num_parameters(self) -> int:
        return self.model.num_parameters()

    def apply(self, params, x):
        known, predicted = x, []
        for _ in range(self.times):
            predicted.append(self.model.apply(params, known[:, -self.t_in:]))
            known = fnp.concatenate([known, predicted[-1]], axis=1)
        return fnp.concatenate(predicted, axis=1)


def main(args) -> None:
    print(f"Navier-Stokes nu=1e-3, s={args.s}, t = 1..10 -> 11..{10 + args.t_out}, {args.train} train / {args.test} "
          f"test, FNO2d n_modes={args.modes} width={args.width} layers={args.layers}, batch {args.batch}, "
          f"budget {args.budget_minutes:g} min or {args.max_epochs} epochs per seed; seeds {args.seeds}", flush=True)
    block = args.t_out if args.block is None else args.block
    if not 1 <= block <= 10 or args.t_out % block:
        raise SystemExit(f"--block {block}: it must divide --t-out {args.t_out} and be at most 10 (the input steps)")
    if (args.rollout_training or args.rollout_minutes) and block == args.t_out:
        raise SystemExit("--rollout-training, --rollout-minutes: need --block smaller than --t-out")
    if args.rollout_training and args.rollout_minutes:
        raise SystemExit("--rollout-minutes fine-tunes a model trained on true windows: not with --rollout-training")
    if args.rollout_training:
        print(f"block-recurrent: {block} steps at a time, trained through its rollout over {args.t_out} steps",
              flush=True)
    elif block < args.t_out:
        print(f"block-recurrent: {block} steps at a time, rolled out {args.t_out // block} times; trained on the "
              f"{args.t_out // block} true windows of each trajectory", flush=True)
    errors = []
    for seed in args.seeds:
        common = dict(t_in=10, t_out=args.t_out, progress=not args.no_progress)
        data_seed = seed if args.data_seed is None else args.data_seed
        train = ds.navier_stokes_data(args.train, args.s, seed=data_seed, **common)
        test = ds.navier_stokes_data(args.test, args.s, seed=data_seed + 1000, **common)
        pairs = train if block == args.t_out else windows(train, block)
        first = ds.FieldData(test.inputs, test.outputs[:, :block], test.coords, test.meta)
        base = FNO2d(n_modes=args.modes, width=args.width, layers=args.layers, in_channels=10, out_channels=block)
        model = Normalized.from_data(base, pairs.inputs, pairs.outputs)   # the statistics of the true windows
        if args.rollout_training:   # whole trajectories in, the rolled-out horizon out: the error is the horizon's
            model, pairs, first = Rollout(model, args.t_out // block), train, test
        per_step, steps, epochs = budget(model, pairs, args.batch, args.budget_minutes, args.max_epochs)
        # measured along the way: the first block's error (the whole horizon when one shot)
        result = train_operator(model, pairs, first, steps=steps, batch_size=args.batch, lr=args.lr, seed=seed,
                                progress=not args.no_progress, desc=f"FNO2d NS seed {seed}")
        whole = block == args.t_out or args.rollout_training
        error = result.test_error if whole else relative_l2(
            predict(Rollout(result.model, args.t_out // block), result.params, test.inputs.astype("float32")),
            test.outputs)
        print(f"  [seed {seed}] {per_step:.2f} s/step, {steps} steps ({epochs:.1f} epochs of "
              f"{len(pairs)} pairs, {result.seconds:.0f} s): test relative L2 {error:.3%} over "
              f"t = 11..{10 + args.t_out}" + ("" if whole else f" (first block alone {result.test_error:.3%})"),
              flush=True)
        if args.rollout_minutes:   # then through its own rollout, from the weights trained on true windows
            rollout = Rollout(result.model, args.t_out // block)
            per_step, steps, epochs = budget(rollout, train, args.batch, args.rollout_minutes, args.max_epochs)
            tuned = train_operator(rollout, train, test, steps=steps, batch_size=args.batch, lr=args.rollout_lr,
                                   seed=seed, init_params=result.params, progress=not args.no_progress,
                                   desc=f"FNO2d NS seed {seed}, rollout")
            error = tuned.test_error
            print(f"  [seed {seed}] then through the rollout: {per_step:.2f} s/step, {steps} steps ({epochs:.1f} "
                  f"epochs of {len(train)} trajectories, {tuned.seconds:.0f} s): test relative L2 {error:.3%}",
                  flush=True)
            print(f"  [seed {seed}] through the rollout, along the way (epoch: test relative L2): " + ", ".join(
                f"{step * args.batch / len(train):.1f}: {e:.3%}" for step, e in tuned.errors), flush=True)
        errors.append(error)
    errors = np.array(errors)
    kind = "one-shot" if block == args.t_out else f"{block} steps at a time" + (
        ", trained through its rollout" if args.rollout_training else ", trained on true windows" + (
            ", then through its rollout" if args.rollout_minutes else ""))
    print(f"\nFNO2d ({kind}), horizon {args.t_out}: {100 * errors.mean():.3f} +- {100 * errors.std():.3f} % "
          f"(percent, mean +- std over {len(errors)} seeds)")
    print(f"FNO paper Table 1, nu = 1e-3, T = 50 (40-step horizon), N = 1000, FNO-2D: {100 * PAPER_FNO2D_NU1E3:.2f} %; "
          f"1.5x of it: {150 * PAPER_FNO2D_NU1E3:.2f} %")


if __name__ == "__main__":
    main(ARGS)
