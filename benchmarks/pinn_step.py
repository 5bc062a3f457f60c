"""One training step of the reference PINN (SPEC §12) in frame, jax.jit and (when installed) PyTorch eager.

Workload: 1-D Poisson u'' = f on [0, 1] with u(0) = u(1) = 0, tanh MLP 1-64-64-64-1 (`--width`,
`--depth` hidden layers), float32, N collocation points. Loss = mean((u_xx - f)^2) +
mean(u(boundary)^2); one step computes the loss, its gradient w.r.t. all parameters and the SGD
update. Same inputs for every framework.

- frame: `frame.function` of the step; u_x and u_xx by re-applying `frame.grad` (reverse mode
  twice on the summed output: each u_i depends only on x_i), then `frame.value_and_grad`.
- jax.jit: per-point `jax.grad(jax.grad(u))` nested and `vmap`ped, `jax.value_and_grad`, jitted.
- PyTorch eager: `torch.autograd.grad(..., create_graph=True)` twice, then the parameter
  gradient with `torch.autograd.grad`; one intra-op thread (see `torch_step_fn`). Left out, with a
  note, when torch is not installed.

Timing (issue 16): each framework alone in its own process, as a user runs it, processes
alternating for `--pairs` rounds (`benchmarks/driver.py`; OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE
removed for every framework alike), one configuration after the other. In its process a framework
builds and warms up its step (frame: until its native tier is built, as jax.jit has compiled),
then times repeated steps (`--repeats`, at least `--min-seconds`). The table gives the median over
processes, the median of the per-pair ratios against jax.jit, each framework's GEMM FLOPs of one
step (frame: matmul nodes of its optimised graph; jax: dot_general equations of the jaxpr), the
FLOP bound (those FLOPs at numpy's measured GEMM peak) and the fraction of it reached, and the
loss's relative difference from jax's.

    .venv/bin/python benchmarks/pinn_step.py [--pairs 3] [--sizes 1024 4096] [--width 64] [--depth 3] [--json OUT]
        [--frameworks frame frame-taylor jax jax-jet torch]
    .venv/bin/python benchmarks/pinn_step.py --profile [--sizes 1024] [--derivatives taylor] [--no-segments]
        (frame's compile stages and its step per op kind, in this process)
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402

import frame  # noqa: E402
import frame.numpy as fnp  # noqa: E402
import driver  # noqa: E402
from driver import (Worker, add_loss_agreement, emit, installed_frameworks, run_pairs, time_calls,  # noqa: E402
                    time_frame_step)

LAYERS = (1, 64, 64, 64, 1)
LR = 1e-3
FRAMEWORKS = ("frame", "frame-taylor", "jax", "jax-jet", "torch")
TARGET_RATIO = 0.8        # issue 16: every PINN configuration <= 0.8x jax.jit
TARGET_MS_1024 = 0.9      # issue 16: the N = 1024 reference step <= 0.9 ms on the 2-core machine


def layers_of(width: int = 64, depth: int = 3) -> tuple[int, ...]:
    """The MLP's layer widths: 1, `depth` hidden layers of `width`, 1."""
    return (1, *([width] * depth), 1)


# -- the workload's data ------------------------------------------------------------------------------
def make_problem(n: int, seed: int = 0, layers: tuple[int, ...] = LAYERS):
    """(params as [(W, b), ...], x (n,1), boundary points (2,1), f(x) (n,1)), all float32."""
    rng = np.random.default_rng(seed)
    params = [((rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32), np.zeros(b, np.float32))
              for a, b in zip(layers[:-1], layers[1:])]
    x = rng.uniform(0.0, 1.0, (n, 1)).astype(np.float32)
    xb = np.array([[0.0], [1.0]], np.float32)
    f = (-np.pi ** 2 * np.sin(np.pi * x)).astype(np.float32)
    return params, x, xb, f


# -- frame ----------------------------------------------------------------------------------------------
def frame_mlp(params, x):
    for w, b in params[:-1]:
        x = fnp.tanh(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def frame_step_fn(derivatives: str = "reverse"):
    """The Python function of one step; `frame.function` of it is the compiled step. `derivatives`:
    "reverse" (u_xx by `frame.grad` twice) or "taylor" (one order-2 Taylor propagation)."""
    if derivatives == "taylor":
        def u_xx(p, x):
            return frame.directional_derivatives(lambda x: frame_mlp(p, x), order=2)(x)[2]
    else:
        u_x = frame.grad(lambda p, x: fnp.sum(frame_mlp(p, x)), argnums=1)
        u_xx = frame.grad(lambda p, x: fnp.sum(u_x(p, x)), argnums=1)

    def loss(params, x, xb, f):
        r = u_xx(params, x) - f
        return fnp.mean(r * r) + fnp.mean(fnp.square(frame_mlp(params, xb)))

    def step(params, x, xb, f):
        value, grads = frame.value_and_grad(loss)(params, x, xb, f)
        return value, [(w - LR * gw, b - LR * gb) for (w, b), (gw, gb) in zip(params, grads)]

    return step


# -- jax ------------------------------------------------------------------------------------------------
def jax_step_fn(derivatives: str = "reverse"):
    """(run, step) of jax.jit's step; `derivatives`: "reverse" (nested `jax.grad`, vmapped) or "jet"
    (`jax.experimental.jet` along x on the whole batch: row i of u depends on row i of x only)."""
    import jax
    import jax.numpy as jnp
    from jax.experimental import jet

    def u(params, x):  # one scalar point
        h = jnp.reshape(x, (1,))
        for w, b in params[:-1]:
            h = jnp.tanh(h @ w + b)
        w, b = params[-1]
        return (h @ w + b)[0]

    u_batch = jax.vmap(u, in_axes=(None, 0))
    if derivatives == "jet":
        def u_xx(params, x):
            ones, zeros = jnp.ones_like(x), jnp.zeros_like(x)
            return jet.jet(lambda x: u_batch(params, x), (x,), ((ones, zeros),))[1][1]
    else:
        u_xx = jax.vmap(jax.grad(jax.grad(u, argnums=1), argnums=1), in_axes=(None, 0))

    def loss(params, x, xb, f):
        r = u_xx(params, x[:, 0])[:, None] - f
        return jnp.mean(r * r) + jnp.mean(u_batch(params, xb[:, 0]) ** 2)

    @jax.jit
    def step(params, x, xb, f):
        value, grads = jax.value_and_grad(loss)(params, x, xb, f)
        return value, jax.tree_util.tree_map(lambda p, g: p - LR * g, params, grads)

    def run(*args):
        return jax.block_until_ready(step(*args))

    return run, step


# -- torch ----------------------------------------------------------------------------------------------
def torch_step_fn():
    try:
        import torch
    except ImportError:
        return None
    # One intra-op thread, like frame's BLAS for plans of small matmuls: on the shared 2-core
    # machine two threads made PyTorch's step 10-100x slower whenever other processes were busy.
    torch.set_num_threads(1)

    def run(params, x, xb, f):
        x = x.detach().requires_grad_(True)

        def mlp(h):
            for w, b in params[:-1]:
                h = torch.tanh(h @ w + b)
            w, b = params[-1]
            return h @ w + b

        u = mlp(x)
        (u_x,) = torch.autograd.grad(u.sum(), x, create_graph=True)
        (u_xx,) = torch.autograd.grad(u_x.sum(), x, create_graph=True)
        r = u_xx - f
        loss = (r * r).mean() + (mlp(xb) ** 2).mean()
        grads = torch.autograd.grad(loss, [t for wb in params for t in wb])
        with torch.no_grad():
            flat = [t for wb in params for t in wb]
            new = [p - LR * g for p, g in zip(flat, grads)]
        return loss.detach(), new

    return run, torch


# -- timing ---------------------------------------------------------------------------------------------
def machine_line() -> str:
    """`driver.machine_line()` (CPU, cores, Python, load average) and the frameworks' versions."""
    versions = f"numpy {np.__version__}"
    try:
        import jax
        versions += f", jax {jax.__version__}"
    except ImportError:
        versions += ", jax not installed"
    if importlib.util.find_spec("torch") is not None:
        import torch
        versions += f", torch {torch.__version__}"
    else:
        versions += ", torch not installed"
    return f"{driver.machine_line()}, {versions}, frame {frame.__version__}"


def check_agreement(frame_out, jax_out) -> float:
    """Relative difference of the two losses (same inputs, float32)."""
    a, b = float(frame_out[0]), float(jax_out[0])
    return abs(a - b) / max(abs(b), 1e-30)


def profile_executable(exe, args, repeats: int = 30) -> list[tuple[str, float, int]]:
    """Time each line of the executable's generated source, summed per numpy function or kernel.

    Returns (kind, median ms per call, lines) sorted by time; the generated code is run with a
    timer around every statement, so the totals include the per-line Python dispatch. A
    row-parallel executable is profiled by its first chunk, run alone on the calling thread.
    """
    import re
    if hasattr(exe, "chunks"):   # row-parallel: profile the first chunk alone, on its rows, one thread
        args = exe._chunk_args(exe._check(args), 0)
        exe = exe.chunks[0]
    tier = exe._tier
    lines = tier.source.splitlines()
    kinds, body = [], []
    for line in lines[1:]:
        stmt = line.strip()
        match = re.search(r"=\s*([A-Za-z_][\w]*)\(", stmt) or re.search(r"^([A-Za-z_][\w]*)\(", stmt)
        kind = match.group(1) if match else ("view/alias" if "=" in stmt and not stmt.startswith(("del", "return"))
                                               and "arena" not in stmt else None)
        if kind is None:
            body.append(f"    {stmt}")
            continue
        if kind.startswith("k_"):
            kind = "kernel:" + kind[2:].rstrip("0123456789_")
        elif kind.startswith("nk"):
            kind = "native fused kernel"
        k = len(kinds)
        kinds.append(kind)
        body.append(f"    _t = _pc(); {stmt}; _acc[{k}] += _pc() - _t")
    source = lines[0] + "\n" + "\n".join(body) + "\n"
    namespace = dict(tier.run.__globals__)
    acc = [0.0] * len(kinds)
    namespace.update(_pc=time.perf_counter, _acc=acc)
    exec(compile(source, "<profiled plan>", "exec"), namespace)
    run = namespace["run"]
    arena = tier.new_arena()   # (the executable's calls so far already set its BLAS thread count)
    per_kind: dict[str, list[float]] = {}
    counts: dict[str, int] = {}
    for kind in kinds:
        counts[kind] = counts.get(kind, 0) + 1
    for _ in range(repeats):
        acc[:] = [0.0] * len(kinds)
        run(*args, arena)
        totals: dict[str, float] = {}
        for kind, t in zip(kinds, acc):
            totals[kind] = totals.get(kind, 0.0) + t
        for kind, t in totals.items():
            per_kind.setdefault(kind, []).append(t)
    rows = [(kind, statistics.median(ts) * 1e3, counts[kind]) for kind, ts in per_kind.items()]
    return sorted(rows, key=lambda r: -r[1])


def profile_stages(graph) -> list[tuple[str, float, int]]:
    """(stage, ms, nodes after it) for each pipeline stage on `graph`."""
    from frame.compiler.pipeline import STAGES, PipelineOptions

    options, rows = PipelineOptions(), []
    for name, stage in STAGES:
        t0 = time.perf_counter()
        graph = stage(graph, options)
        dt = (time.perf_counter() - t0) * 1e3
        rows.append((name, dt, len(graph.nodes) if hasattr(graph, "nodes") else len(graph.instrs)))
    return rows


# -- workers (one framework, one configuration, in its own process) -----------------------------------
def frame_worker(problem, args, derivatives="reverse"):
    from derivatives import frame_counts

    step = frame.function(frame_step_fn(derivatives))
    stats, out, exe = time_frame_step(step, problem, args)
    counts = frame_counts(step.trace(*problem), exe)
    counts.update(tier=exe.tier, plan_steps=len(exe.plan.instrs))
    return stats, counts, float(out[0])


def jax_worker(problem, args, derivatives="reverse"):
    import jax
    from derivatives import jaxpr_counts

    run, step = jax_step_fn(derivatives)
    out = run(*problem)
    stats = time_calls(lambda: run(*problem), warmup=args.warmup, repeats=args.repeats, min_seconds=args.min_seconds)
    eqns, flops = jaxpr_counts(jax.make_jaxpr(step)(*problem).jaxpr)
    return stats, {"ops": eqns, "flops": flops}, float(out[0])


def torch_worker(problem, args):
    parts = torch_step_fn()
    if parts is None:
        raise ImportError("torch is not installed")
    run, torch = parts
    params, x, xb, f = problem
    tp = [(torch.tensor(w, requires_grad=True), torch.tensor(b, requires_grad=True)) for w, b in params]
    tx, txb, tf = torch.tensor(x), torch.tensor(xb), torch.tensor(f)
    out = run(tp, tx, txb, tf)
    stats = time_calls(lambda: run(tp, tx, txb, tf), warmup=args.warmup, repeats=args.repeats,
                       min_seconds=args.min_seconds)
    return stats, {}, float(out[0])


def case_name(n: int, width: int, depth: int) -> str:
    return f"N={n}" if (width, depth) == (64, 3) else f"N={n} w{width} d{depth}"


def worker(framework: str, args) -> None:
    n = args.sizes[0]
    case = case_name(n, args.width, args.depth)
    problem = make_problem(n, layers=layers_of(args.width, args.depth))
    run, *mode = {"frame": (frame_worker,), "frame-taylor": (frame_worker, "taylor"), "jax": (jax_worker,),
                  "jax-jet": (jax_worker, "jet"), "torch": (torch_worker,)}[framework]
    try:
        stats, counts, loss = run(problem, args, *mode)
    except ImportError as e:
        emit({"case": case, "skip": f"{framework}: {e}"})
        return
    emit({"case": case, **stats, **counts, "dtype": "float32", "loss": loss})


def target_lines(report) -> list[str]:
    """Issue 16's PINN targets against the measured rows."""
    lines = []
    for row in report.rows():
        if not row.label.startswith("frame") or row.skip or not row.ratios:
            continue
        verdict = "met" if row.ratio <= TARGET_RATIO else "not met"
        line = f"{row.case}: {row.label} {row.ratio:.3f}x jax.jit (target <= {TARGET_RATIO}: {verdict})"
        if row.case == "N=1024":
            ms = row.time * 1e3
            line += f"; {ms:.3f} ms (target <= {TARGET_MS_1024} ms: {'met' if ms <= TARGET_MS_1024 else 'not met'})"
        lines.append(line)
    return lines


def profile(args) -> None:
    """In this process: frame's compile stages and its step per op kind (native tier)."""
    n = args.sizes[0]
    problem = make_problem(n, layers=layers_of(args.width, args.depth))
    if args.no_segments:   # each op timed on its own line instead of inside one C call per run of steps
        from frame.backends import native
        native.SEGMENTS["on"] = False
    step = frame.function(frame_step_fn(args.derivatives))
    step(*problem)
    exe = step.compiled(*problem)
    exe.wait_native(timeout=600)
    print(machine_line())
    print(f"frame training graph (u_xx by {args.derivatives} mode): {len(exe.source_graph.nodes)} nodes traced, "
          f"{len(exe.graph.nodes)} after the pipeline, {len(exe.plan.instrs)} plan steps, {len(exe.plan.buffers)} buffers "
          f"({exe.plan.arena_bytes / 2**20:.1f} MiB) at N={n}; tier {exe.tier}")
    print(f"\ncompile stages on the traced training graph (N={n}):")
    for name, ms, size in profile_stages(exe.source_graph):
        print(f"  {name:13s} {ms:8.1f} ms   {size:5d} nodes/steps after")
    leaves = frame.tree_leaves(problem)
    if hasattr(exe, "chunks"):   # row-parallel: every chunk runs the first chunk's plan, in its own thread
        print(f"\n{exe.report().splitlines()[0]}")
        print(f"where one chunk's time goes ({exe.sizes[0]} rows, alone in this thread, median ms, per op kind):")
        parts = [(exe.chunks[0], exe._chunk_args(leaves, 0)),
                 (exe.combine, [leaves[i] for i in exe._free_inputs] + [np.zeros(t.shape, t.dtype) for t in
                                                                          exe.combine.input_types[len(exe._free_inputs):]])]
    else:
        print(f"\nwhere a frame step's time goes (N={n}, median ms per step, summed per op kind):")
        parts = [(exe, leaves)]
    for k, (part, part_args) in enumerate(parts):
        if k:
            print("the combine graph (once per step, after the chunks):")
        for kind, ms, count in profile_executable(part, part_args):
            print(f"  {kind:28s} {ms:8.3f} ms  x{count}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1024, 4096], help="collocation points N")
    parser.add_argument("--width", type=int, default=64, help="hidden width (default 64)")
    parser.add_argument("--depth", type=int, default=3, help="hidden layers (default 3)")
    parser.add_argument("--pairs", type=int, default=3, help="alternating process rounds per configuration")
    parser.add_argument("--frameworks", nargs="+", choices=FRAMEWORKS, default=list(FRAMEWORKS))
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=120, help="least timed steps per process (default 120)")
    parser.add_argument("--min-seconds", type=float, default=1.0, help="least timed seconds per process")
    parser.add_argument("--rounds", type=int, default=None,
                        help="the former in-process option: --repeats 3*ROUNDS (kept for old command lines)")
    parser.add_argument("--json", default=None, metavar="OUT", help="save every record and the summaries")
    parser.add_argument("--profile", action="store_true", help="profile frame's step (first size) instead")
    parser.add_argument("--derivatives", choices=["reverse", "taylor"], default="reverse",
                        help="u_xx of the profiled frame step (--profile)")
    parser.add_argument("--no-segments", action="store_true",
                        help="--profile with native segments off, so each matmul and kernel is timed by itself")
    parser.add_argument("--worker", choices=FRAMEWORKS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.rounds is not None:
        args.repeats = 3 * args.rounds
    if args.profile:
        profile(args)
        return
    if args.worker:
        worker(args.worker, args)
        return
    frameworks, notes = installed_frameworks([fw for fw in FRAMEWORKS if fw in args.frameworks],
                                             {"torch": "torch", "jax": "jax", "jax-jet": "jax"})
    baseline = "jax" if "jax" in frameworks else None
    layers = layers_of(args.width, args.depth)
    reports = []
    for n in args.sizes:
        common = ["--sizes", str(n), "--width", str(args.width), "--depth", str(args.depth), "--warmup",
                  str(args.warmup), "--repeats", str(args.repeats), "--min-seconds", str(args.min_seconds)]
        workers = [Worker(fw, [sys.executable, os.path.abspath(__file__), "--worker", fw, *common])
                   for fw in frameworks]
        report = run_pairs(workers, args.pairs, baseline=baseline)
        add_loss_agreement(report)
        reports.append(report)
    print(machine_line())
    print(f"PINN training step (SPEC §12): tanh MLP {'-'.join(map(str, layers))}, u_xx + boundary loss, "
          f"gradients + SGD, float32; each framework alone in its own process")
    for note in notes:
        print(note)
    for report in reports:
        print(report.table(fields=["ops", "fused", "flops", "loss diff"]))
    for report in reports:
        print("\n".join(target_lines(report)))
    if args.json:
        import json

        with open(args.json, "w") as fh:
            json.dump({"machine": machine_line(), "layers": layers, "notes": notes,
                       "reports": [r.to_json() for r in reports]}, fh, indent=1, default=driver._jsonable)
        print(f"saved: {args.json}")


if __name__ == "__main__":
    main()
