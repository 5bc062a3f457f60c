"""One training step of a small CNN in frame (frame.nn) and jax.jit (lax.conv_general_dilated), issue 18.

Workload (float32, same inputs for both): a batch of B single-channel S x S images (default 32 x 1 x
64 x 64) -> conv 3x3 (16 channels, padding 1) + bias -> relu -> 2x2 max pool -> conv 3x3 (32
channels, padding 1) + bias -> relu -> 2x2 max pool -> flatten -> linear head (10 outputs); MSE loss
against random targets; one step computes the loss, the gradient w.r.t. every parameter and the SGD
update.

- frame: `frame.function` of the step, `frame.value_and_grad` of the loss built from `frame.nn.conv`
  and `frame.nn.max_pool`.
- jax.jit: the same network with `lax.conv_general_dilated` (NCHW/OIHW) and `lax.reduce_window`
  max pooling, `jax.value_and_grad`, jitted.

Timing: each framework alone in its own process, processes alternating for `--pairs` rounds
(`benchmarks/driver.py`), warm-up first (frame: until its native tier is built, as jax.jit has
compiled), then repeated steps. The table gives the median over processes, the median of per-pair
ratios against jax.jit and the loss's relative difference from jax's; issue 18's target is frame <= 1.0x.

    .venv/bin/python benchmarks/cnn_step.py [--pairs 3] [--batch 32] [--size 64] [--json OUT]
    .venv/bin/python benchmarks/cnn_step.py --profile      # frame's step per op kind, in this process
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402

import frame  # noqa: E402
import frame.nn as nn  # noqa: E402
import frame.numpy as fnp  # noqa: E402
import driver  # noqa: E402
from driver import (Worker, add_loss_agreement, emit, installed_frameworks, run_pairs, time_calls,  # noqa: E402
                    time_frame_step)

LR = 1e-2
OUTPUTS = 10
CHANNELS = (16, 32)
FRAMEWORKS = ("frame", "jax")
TARGET_RATIO = 1.0        # issue 18: frame <= 1.0x jax.jit


def make_problem(batch: int = 32, size: int = 64, channels=CHANNELS, seed: int = 0):
    """(params [w1, b1, w2, b2, wh, bh], images (B, 1, S, S), targets (B, 10)), float32."""
    rng = np.random.default_rng(seed)
    c1, c2 = channels
    flat = c2 * (size // 4) ** 2

    def he(shape, fan_in):
        return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)

    params = [he((c1, 1, 3, 3), 9), np.zeros(c1, np.float32), he((c2, c1, 3, 3), 9 * c1), np.zeros(c2, np.float32),
              he((flat, OUTPUTS), flat), np.zeros(OUTPUTS, np.float32)]
    x = rng.standard_normal((batch, 1, size, size)).astype(np.float32)
    y = rng.standard_normal((batch, OUTPUTS)).astype(np.float32)
    return params, x, y


# -- frame ----------------------------------------------------------------------------------------------
def frame_forward(params, x):
    w1, b1, w2, b2, wh, bh = params
    h = nn.max_pool(fnp.relu(nn.conv(x, w1, b1, padding=1)), 2)
    h = nn.max_pool(fnp.relu(nn.conv(h, w2, b2, padding=1)), 2)
    return fnp.reshape(h, (h.shape[0], -1)) @ wh + bh


def frame_step_fn():
    def loss(params, x, y):
        return fnp.mean(fnp.square(frame_forward(params, x) - y))

    def step(params, x, y):
        value, grads = frame.value_and_grad(loss)(params, x, y)
        return value, [p - LR * g for p, g in zip(params, grads)]

    return step


# -- jax ------------------------------------------------------------------------------------------------
def jax_step_fn():
    import jax
    import jax.numpy as jnp
    from jax import lax

    def conv(x, w, b):
        y = lax.conv_general_dilated(x, w, (1, 1), [(1, 1), (1, 1)], dimension_numbers=("NCHW", "OIHW", "NCHW"))
        return y + b[None, :, None, None]

    def pool(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    def forward(params, x):
        w1, b1, w2, b2, wh, bh = params
        h = pool(jax.nn.relu(conv(x, w1, b1)))
        h = pool(jax.nn.relu(conv(h, w2, b2)))
        return h.reshape(h.shape[0], -1) @ wh + bh

    def loss(params, x, y):
        return jnp.mean((forward(params, x) - y) ** 2)

    @jax.jit
    def step(params, x, y):
        value, grads = jax.value_and_grad(loss)(params, x, y)
        return value, [p - LR * g for p, g in zip(params, grads)]

    def run(*args):
        return jax.block_until_ready(step(*args))

    return run


# -- workers --------------------------------------------------------------------------------------------
def frame_worker(problem, args):
    step = frame.function(frame_step_fn())
    stats, out, exe = time_frame_step(step, problem, args)
    convs = sum(n.op == "conv" for n in exe.graph.nodes)
    return stats, {"tier": exe.tier, "nodes": len(exe.graph.nodes), "convs": convs}, float(out[0])


def jax_worker(problem, args):
    run = jax_step_fn()
    out = run(*problem)
    stats = time_calls(lambda: run(*problem), warmup=args.warmup, repeats=args.repeats, min_seconds=args.min_seconds)
    return stats, {}, float(out[0])


def case_name(args) -> str:
    return f"B={args.batch} {args.size}x{args.size}"


def worker(framework: str, args) -> None:
    problem = make_problem(args.batch, args.size)
    run = {"frame": frame_worker, "jax": jax_worker}[framework]
    try:
        stats, counts, loss = run(problem, args)
    except ImportError as e:
        emit({"case": case_name(args), "skip": f"{framework}: {e}"})
        return
    emit({"case": case_name(args), **stats, **counts, "loss": loss})


def target_lines(report) -> list[str]:
    lines = []
    for row in report.rows():
        if row.label == "frame" and not row.skip and row.ratios:
            verdict = "met" if row.ratio <= TARGET_RATIO else "not met"
            lines.append(f"{row.case}: frame {row.ratio:.3f}x jax.jit (target <= {TARGET_RATIO}: {verdict})")
    return lines


def machine_line() -> str:
    versions = f"numpy {np.__version__}"
    if importlib.util.find_spec("jax") is not None:
        import jax
        versions += f", jax {jax.__version__}"
    return f"{driver.machine_line()}, {versions}, frame {frame.__version__}"


def profile(args) -> None:
    """frame's step per op kind (median ms per step), in this process."""
    from pinn_step import profile_executable

    problem = make_problem(args.batch, args.size)
    step = frame.function(frame_step_fn())
    step(*problem)
    exe = step.compiled(*problem)
    exe.wait_native(timeout=600)
    print(machine_line())
    print(f"frame CNN step: {len(exe.graph.nodes)} nodes after the pipeline, tier {exe.tier}")
    for kind, ms, count in profile_executable(exe, frame.tree_leaves(problem)):
        print(f"  {kind:28s} {ms:8.3f} ms  x{count}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--size", type=int, default=64, help="image side (a multiple of 4)")
    parser.add_argument("--pairs", type=int, default=3, help="alternating process rounds")
    parser.add_argument("--frameworks", nargs="+", choices=FRAMEWORKS, default=list(FRAMEWORKS))
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=20, help="least timed steps per process")
    parser.add_argument("--min-seconds", type=float, default=2.0, help="least timed seconds per process")
    parser.add_argument("--json", default=None, metavar="OUT", help="save every record and the summary")
    parser.add_argument("--profile", action="store_true", help="profile frame's step instead")
    parser.add_argument("--worker", choices=FRAMEWORKS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.size % 4:
        parser.error("--size must be a multiple of 4 (two 2x2 poolings)")
    if args.profile:
        profile(args)
        return
    if args.worker:
        worker(args.worker, args)
        return
    frameworks, notes = installed_frameworks([fw for fw in FRAMEWORKS if fw in args.frameworks], {"jax": "jax"})
    common = ["--batch", str(args.batch), "--size", str(args.size), "--warmup", str(args.warmup),
              "--repeats", str(args.repeats), "--min-seconds", str(args.min_seconds)]
    workers = [Worker(fw, [sys.executable, os.path.abspath(__file__), "--worker", fw, *common]) for fw in frameworks]
    report = run_pairs(workers, args.pairs, baseline="jax" if "jax" in frameworks else None)
    add_loss_agreement(report)
    print(machine_line())
    print(f"CNN training step (issue 18): {args.batch}x1x{args.size}x{args.size}, conv3x3-{CHANNELS[0]} relu maxpool2, "
          f"conv3x3-{CHANNELS[1]} relu maxpool2, linear-{OUTPUTS}, MSE, SGD, float32; each framework alone in its "
          "own process")
    for note in notes:
        print(note)
    print(report.table(fields=["nodes", "convs", "loss diff"]))
    print("\n".join(target_lines(report)))
    if args.json:
        import json

        with open(args.json, "w") as fh:
            json.dump({"machine": machine_line(), "notes": notes, "batch": args.batch, "size": args.size,
                       **report.to_json()}, fh, indent=1, default=driver._jsonable)
        print(f"saved: {args.json}")


if __name__ == "__main__":
    main()
