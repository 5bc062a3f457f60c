"""One FNO training step (forward, backward, Adam update) in frame vs jax.jit, same parameters and data.

Default workload (FNO paper, 1-D Burgers): batch 20, s = 1024, width 64, 16 modes, 4 Fourier layers,
float32, relative-L2 loss. frame runs its `Trainer` step (training graph + Adam update graph) on
`pino.FNO1d`, whose spectral convolutions compute the 16 kept modes by a truncated real DFT (one GEMM
each way against constant cos/sin bases; `--transform fft` for full rfft/irfft); JAX runs an
idiomatic FNO (complex einsum on jnp.fft spectra; `--jax-transform dft` for the same GEMM DFT) with
the same Adam formulas, all under one jax.jit.

Timing (issue 16): each framework alone in its own process, processes alternating for `--pairs`
rounds (`benchmarks/driver.py`; OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE removed for both alike). In its
process a framework makes its first step (reported as "first s"), warms up (frame: until its native
tier is built, as jax.jit has compiled) and times `--steps` steps (at least `--min-seconds`). The
table gives the median over processes, the median of the per-pair ratios against jax.jit, the GEMM
FLOPs of one step (frame: matmul nodes of its optimised training graph; jax: dot_general equations
of the jaxpr, a complex product counted as 4 real ones; FFTs are not GEMMs and not counted, so
frame's truncated-DFT GEMMs count for frame and jax's FFTs do not), the
FLOP bound (those FLOPs at numpy's measured GEMM peak with OpenBLAS's own thread count) and the fraction of it reached.

    .venv/bin/python benchmarks/fno_step.py [--pairs 3] [--steps 20] [--s 1024] [--blas-threads 1] [--json OUT]
    .venv/bin/python benchmarks/fno_step.py --profile [--transform fft]   # frame's step per op kind, this process

BLAS threads: on a shared 2-core machine, multi-threaded OpenBLAS stalls on every small batched
matmul when the other core is busy, so the default pins OpenBLAS to one thread in both workers'
processes (`OPENBLAS_NUM_THREADS`, unless already set; `--blas-threads 0` keeps the library
default). The setting is printed with the results.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
from typing import TYPE_CHECKING, Callable

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import time  # noqa: E402

import numpy as np  # noqa: E402

from driver import Worker, emit, measure_gemm_peak, run_pairs, time_calls, time_trainer_step, warm_trainer  # noqa: E402

if TYPE_CHECKING:
    from pino import FNO1d

FRAMEWORKS = ("frame", "jax")
TARGET = 0.8   # issue 16: FNO steps <= 0.8x jax.jit


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batch", type=int, default=20)
    p.add_argument("--s", type=int, default=1024, help="grid points")
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--modes", type=int, default=16)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--steps", type=int, default=20, help="least timed steps per process (after warm-up)")
    p.add_argument("--min-seconds", type=float, default=0.0, help="least timed seconds per process")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--blas-threads", type=int, default=1, help="OPENBLAS_NUM_THREADS (0: library default)")
    p.add_argument("--pairs", type=int, default=3, help="alternating process rounds")
    p.add_argument("--json", default=None, metavar="OUT", help="save every record and the summary")
    p.add_argument("--transform", choices=("auto", "dft", "fft"), default="auto",
                   help="frame's spectral transform (pino.SpectralConv1d; auto: truncated DFT as GEMMs)")
    p.add_argument("--jax-transform", choices=("fft", "dft"), default="fft",
                   help="JAX's spectral transform: fft (idiomatic: jnp.fft.rfft/irfft, the default) or dft "
                        "(the same truncated-DFT GEMMs as frame's, to see what the algorithm alone gives JAX)")
    p.add_argument("--profile", action="store_true",
                   help="profile frame's step per op kind in this process (OPENBLAS_NUM_THREADS as --blas-threads)")
    p.add_argument("--worker", choices=FRAMEWORKS, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def make_model_and_data(args):
    from pino import FNO1d

    model = FNO1d(modes=args.modes, width=args.width, layers=args.layers, transform=args.transform)
    params = model.init(seed=0, dtype="float32")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((args.batch, 1, args.s)).astype(np.float32)
    y = (0.5 * x + 0.1 * np.roll(x, 3, axis=-1)).astype(np.float32)
    return model, params, x, y


def jax_fno_step(model: FNO1d, lr: float, b1=0.9, b2=0.999, eps=1e-8, transform: str = "fft"):
    """A jitted JAX training step for the same architecture and parameter pytree as `model`.

    `transform="fft"`: the idiomatic spectral convolution (jnp.fft.rfft, complex einsum, zero pad,
    jnp.fft.irfft); "dft": the kept modes by GEMMs against pino's truncated-DFT bases, as frame does."""
    import jax
    import jax.numpy as jnp

    from pino.spectral import truncated_dft_bases

    def pointwise(p, h):
        return jnp.einsum("oi,bin->bon", p["w"], h) + p["b"][:, None]

    def spectral(weight, h):
        w = weight[..., 0] + 1j * weight[..., 1]
        batch, c, n = h.shape
        if transform == "dft":
            forward, inverse = (jnp.asarray(a) for a in truncated_dft_bases(n, model.modes, h.dtype))
            packed = (h.reshape(batch * c, n) @ forward).reshape(batch, c, model.modes, 2)
            out = jnp.einsum("bik,iok->bok", packed[..., 0] + 1j * packed[..., 1], w)
            out = jnp.stack([jnp.real(out), jnp.imag(out)], axis=-1).reshape(-1, 2 * model.modes)
            return (out @ inverse).reshape(batch, -1, n)
        spec = jnp.fft.rfft(h, axis=-1)
        out = jnp.einsum("bik,iok->bok", spec[..., :model.modes], w)
        out = jnp.pad(out, ((0, 0), (0, 0), (0, spec.shape[-1] - model.modes)))
        return jnp.fft.irfft(out, n=n, axis=-1)

    def apply(params, x):
        batch, _, n = x.shape
        coord = jnp.broadcast_to((jnp.arange(n, dtype=x.dtype) / n)[None, None, :], (batch, 1, n))
        h = pointwise(params["lift"], jnp.concatenate([x, coord], axis=1))
        for i, layer in enumerate(params["fourier"]):
            h = spectral(layer["spectral"]["weight"], h) + pointwise(layer["bypass"], h)
            if i < len(params["fourier"]) - 1:
                h = jax.nn.gelu(h, approximate=True)
        h = jax.nn.gelu(pointwise(params["project"], h), approximate=True)
        return pointwise(params["output"], h)

    return jax_adam_step(apply, lr, b1, b2, eps)


def jax_adam_step(apply, lr: float, b1=0.9, b2=0.999, eps=1e-8):
    """A jitted JAX step of `apply(params, x)`: the relative-L2 loss over each sample (all axes but
    the batch), its gradient and frame's Adam formulas; `step(params, m, v, t, x, y) -> (params, m,
    v, t, loss)`."""
    import jax
    import jax.numpy as jnp

    def loss_fn(params, x, y):
        diff = apply(params, x) - y
        axes = tuple(range(1, y.ndim))
        return jnp.mean(jnp.sqrt(jnp.sum(diff * diff, axis=axes) / jnp.sum(y * y, axis=axes)))

    @jax.jit
    def step(params, m, v, t, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        t = t + 1
        m = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, m, grads)
        v = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, v, grads)
        scale = lr * jnp.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        params = jax.tree_util.tree_map(lambda p, m, v: p - scale * m / (jnp.sqrt(v) + eps), params, m, v)
        return params, m, v, t, loss

    return step


def graph_gemm_flops(graph) -> int:
    """GEMM FLOPs of the matmul nodes of `graph` after decompose..dne (as `derivatives.frame_counts`)."""
    from derivatives import BEFORE_FUSION
    from frame.compiler import PipelineOptions, run_pipeline

    flops = 0
    for node in run_pipeline(graph, PipelineOptions(stages=BEFORE_FUSION)).nodes:
        if node.op == "matmul":
            a = node.inputs[0].type.shape
            inner = a[-2] if node.attrs.get("transpose_a") else a[-1]
            real = 4 if "complex" in str(node.outputs[0].type.dtype) else 1
            flops += 2 * real * math.prod(node.outputs[0].type.shape) * inner
    return flops


def jaxpr_gemm_flops(jaxpr) -> int:
    """GEMM FLOPs of a jaxpr's dot_general equations, nested jaxprs included, a complex one as 4 real."""
    flops = 0
    for eqn in jaxpr.eqns:
        subs = [getattr(v, "jaxpr", v) for v in eqn.params.values() if hasattr(v, "eqns") or hasattr(v, "jaxpr")]
        for sub in subs:
            flops += jaxpr_gemm_flops(sub)
        if not subs and eqn.primitive.name == "dot_general":
            (lhs_contract, _), _ = eqn.params["dimension_numbers"]
            lhs = eqn.invars[0].aval.shape
            real = 4 if "complex" in str(eqn.outvars[0].aval.dtype) else 1
            flops += 2 * real * math.prod(eqn.outvars[0].aval.shape) * math.prod(lhs[d] for d in lhs_contract)
    return flops


def frame_trainer(args):
    """frame's Trainer on the benchmark's model and data: (trainer, model, x, y)."""
    from frame.train import Adam, Trainer
    from pino import relative_l2_loss

    model, params, x, y = make_model_and_data(args)

    def loss_fn(p, a, u):
        return relative_l2_loss(model.apply(p, a), u)

    return Trainer(loss_fn, params, Adam(1e-3), progress=False), model, x, y


def frame_worker(args) -> dict:
    trainer, model, x, y = frame_trainer(args)
    stats = time_trainer_step(trainer, x, y, warmup=args.warmup, repeats=args.steps, min_seconds=args.min_seconds)
    stats["loss"] = stats.pop("first loss")
    return {**stats, "flops": graph_gemm_flops(trainer.training_graph), "parameters": model.num_parameters()}


def jax_worker(args) -> dict:
    model, params, x, y = make_model_and_data(args)
    step = jax_fno_step(model, 1e-3, transform=args.jax_transform)
    return time_jax_adam_step(step, params, x, y, args)


def time_jax_adam_step(step, params, x, y, args) -> dict:
    """Time a `jax_adam_step` from `params` and fresh Adam state on (x, y): the first call (compiling)
    alone, then `time_calls`; with the step's GEMM FLOPs and the first loss."""
    import jax
    import jax.numpy as jnp

    state = [jax.tree_util.tree_map(jnp.asarray, params)]
    zeros = jax.tree_util.tree_map(jnp.zeros_like, state[0])
    state += [zeros, zeros, jnp.zeros((), jnp.float32)]
    xj, yj = jnp.asarray(x), jnp.asarray(y)
    flops = jaxpr_gemm_flops(jax.make_jaxpr(step)(*state, xj, yj).jaxpr)

    def jax_step():
        *new_state, loss = step(*state, xj, yj)
        state[:] = new_state
        return loss.block_until_ready()

    start = time.perf_counter()
    first_loss = float(jax_step())
    first = time.perf_counter() - start
    stats = time_calls(jax_step, warmup=args.warmup, repeats=args.steps, min_seconds=args.min_seconds)
    return {**stats, "first s": first, "loss": first_loss, "flops": flops, "jax": jax.__version__}


def profile_trainer(trainer, x, y, warmup: int, repeats: int, header: Callable[[object], str]) -> None:
    """In this process: a Trainer's step split into the training-graph executable (per op kind), the
    Adam update executable and the Trainer's own checks. `header(exe)` is the first line printed."""
    from pinn_step import profile_executable

    warm_trainer(trainer, x, y)
    for _ in range(warmup):
        trainer.step(x, y)
    exe, data = trainer._loss_graph.compiled((x, y))
    inputs = [*trainer._leaves, *data]
    grads = exe(*inputs)[1:]
    lr = trainer.optimizer.lr_input(trainer.step_count, trainer._lr_dtype)
    update = [*trainer._leaves, *grads, *trainer.opt_state, *lr]

    def median_ms(call):
        return time_calls(call, warmup=0, repeats=repeats)["time"] * 1e3

    step_ms = median_ms(lambda: trainer.step(x, y))
    graph_ms = median_ms(lambda: exe(*inputs))
    update_ms = median_ms(lambda: trainer._update_exe(*update))
    print(header(exe))
    print(f"step {step_ms:.1f} ms = training graph {graph_ms:.1f} ms + Adam update {update_ms:.1f} ms "
          f"+ Trainer checks/rest {step_ms - graph_ms - update_ms:.1f} ms (medians of {repeats})")
    rows = profile_executable(exe, inputs, repeats=repeats)
    print(f"training graph per op kind (median ms per step, summed over its statements, each timed alone: "
          f"{sum(r[1] for r in rows):.1f} ms in all against {graph_ms:.1f} ms for whole calls):")
    for kind, ms, count in rows:
        print(f"  {kind:28s} {ms:8.2f} ms  x{count}")


def limit_blas_for_profile(args) -> None:
    """--profile runs in this process, where numpy (and its BLAS) is loaded already: set the pool as
    the workers' environment does."""
    if args.blas_threads > 0 and "OPENBLAS_NUM_THREADS" not in os.environ:
        from threadpoolctl import threadpool_limits
        threadpool_limits(args.blas_threads, user_api="blas")
        os.environ["OPENBLAS_NUM_THREADS"] = str(args.blas_threads)   # (for the printed setting)


def profile(args, repeats: int = 10) -> None:
    trainer, model, x, y = frame_trainer(args)
    profile_trainer(trainer, x, y, args.warmup, repeats, lambda exe: (
        f"{model!r}, batch {args.batch}, s = {args.s}, float32; OPENBLAS_NUM_THREADS="
        f"{os.environ.get('OPENBLAS_NUM_THREADS', 'default')}; tier {exe.tier}; "
        f"{len(exe.graph.nodes)} nodes, {len(exe.plan.instrs)} plan steps; GEMM FLOPs "
        f"{graph_gemm_flops(trainer.training_graph) / 1e9:.2f} G"))


def case_name(args) -> str:
    return f"b{args.batch} s{args.s}"


def main(argv=None) -> None:
    args = parse_args(argv)
    if args.profile:
        limit_blas_for_profile(args)
        profile(args)
        return
    if args.worker:
        record = {"frame": frame_worker, "jax": jax_worker}[args.worker](args)
        emit({"case": case_name(args), **record, "dtype": "float32",
              "blas threads": os.environ.get("OPENBLAS_NUM_THREADS", "default")})
        return
    common = ["--batch", str(args.batch), "--s", str(args.s), "--width", str(args.width), "--modes", str(args.modes),
              "--layers", str(args.layers), "--steps", str(args.steps), "--min-seconds", str(args.min_seconds),
              "--warmup", str(args.warmup), "--transform", args.transform, "--jax-transform", args.jax_transform]
    workers = [Worker(fw, [sys.executable, os.path.abspath(__file__), "--worker", fw, *common]) for fw in FRAMEWORKS]
    extra = {}
    if args.blas_threads > 0:
        extra["OPENBLAS_NUM_THREADS"] = os.environ.get("OPENBLAS_NUM_THREADS", str(args.blas_threads))
    peak = True
    if extra:
        # The FLOP bound is against the machine's GEMM peak (OpenBLAS's own thread count), not the
        # pinned workers' one thread: measured once per pair, the best kept, as the driver does.
        peak = {"float32": max(measure_gemm_peak("float32") for _ in range(args.pairs))}
    report = run_pairs(workers, args.pairs, baseline="jax", env=extra, peak=peak)
    ref = {r["pair"]: r["loss"] for r in report.records if r["label"] == "jax"}
    for r in report.records:
        if r["pair"] in ref:
            r["loss diff"] = abs(r["loss"] - ref[r["pair"]]) / max(abs(ref[r["pair"]]), 1e-30)
    first = report.records[0]
    print(report.machine)
    print(f"FNO training step: batch {args.batch}, s = {args.s}, width {args.width}, {args.modes} modes, "
          f"{args.layers} layers, float32, Adam; {first.get('parameters')} parameters; frame transform "
          f"{args.transform}, jax transform {args.jax_transform}; "
          f"OPENBLAS_NUM_THREADS={first.get('blas threads')}; each framework alone in its own process")
    print(report.table(fields=["first s", "flops", "loss diff"]))
    for row in report.rows():
        if row.label == "frame" and row.ratios:
            print(f"frame: {row.ratio:.3f}x the jitted JAX step (target <= {TARGET}: "
                  f"{'met' if row.ratio <= TARGET else 'not met'})")
    if args.json:
        report.save(args.json)
        print(f"saved: {args.json}")


if __name__ == "__main__":
    main()
