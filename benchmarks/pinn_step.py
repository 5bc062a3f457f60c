"""One training step of the reference PINN (SPEC §12) in frame, jax.jit and (when installed) PyTorch eager.

Workload: 1-D Poisson u'' = f on [0, 1] with u(0) = u(1) = 0, tanh MLP 1-64-64-64-1, float32,
N collocation points. Loss = mean((u_xx - f)^2) + mean(u(boundary)^2); one step computes the
loss, its gradient w.r.t. all parameters and the SGD update. Same inputs for every framework.

- frame: `frame.function` of the step; u_x and u_xx by re-applying `frame.grad` (reverse mode
  twice on the summed output: each u_i depends only on x_i), then `frame.value_and_grad`.
- jax.jit: per-point `jax.grad(jax.grad(u))` nested and `vmap`ped, `jax.value_and_grad`, jitted.
- PyTorch eager: `torch.autograd.grad(..., create_graph=True)` twice, then the parameter
  gradient with `torch.autograd.grad`; one intra-op thread (see `torch_step_fn`).

Timing: after warm-up the frameworks take turns; in its turn each makes one untimed step and
three timed ones, so load from other processes falls on all of them alike while none pays for
the caches another one just evicted. Medians of the timed steps are reported.

    .venv/bin/python benchmarks/pinn_step.py [--rounds 60] [--sizes 1024 4096]
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402

import frame  # noqa: E402
import frame.numpy as fnp  # noqa: E402

LAYERS = (1, 64, 64, 64, 1)
LR = 1e-3


# -- the workload's data ------------------------------------------------------------------------------
def make_problem(n: int, seed: int = 0):
    """(params as [(W, b), ...], x (n,1), boundary points (2,1), f(x) (n,1)), all float32."""
    rng = np.random.default_rng(seed)
    params = [((rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32), np.zeros(b, np.float32))
              for a, b in zip(LAYERS[:-1], LAYERS[1:])]
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


def frame_step_fn():
    """The Python function of one step; `frame.function` of it is the compiled step."""
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
def jax_step_fn():
    import jax
    import jax.numpy as jnp

    def u(params, x):  # one scalar point
        h = jnp.reshape(x, (1,))
        for w, b in params[:-1]:
            h = jnp.tanh(h @ w + b)
        w, b = params[-1]
        return (h @ w + b)[0]

    u_xx = jax.vmap(jax.grad(jax.grad(u, argnums=1), argnums=1), in_axes=(None, 0))
    u_batch = jax.vmap(u, in_axes=(None, 0))

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
def interleaved_medians(runners: dict, rounds: int, warmup: int = 3, block: int = 3) -> dict:
    """Median seconds per call of each runner. The runners take turns; in its turn a runner makes
    one untimed call (so it does not pay for the caches and thread pools the previous runner left
    behind) and `block` timed calls. Load from other processes falls on all runners alike."""
    for run in runners.values():
        for _ in range(warmup):
            run()
    times = {name: [] for name in runners}
    for _ in range(rounds):
        for name, run in runners.items():
            run()
            for _ in range(block):
                t0 = time.perf_counter()
                run()
                times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(ts) for name, ts in times.items()}


def machine_line() -> str:
    import jax

    versions = f"numpy {np.__version__}, jax {jax.__version__}"
    try:
        import torch
        versions += f", torch {torch.__version__}"
    except ImportError:
        versions += ", torch not installed"
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(line.split(":", 1)[1].strip() for line in fh if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return (f"machine: {cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {versions}, "
            f"frame {frame.__version__}")


def check_agreement(frame_out, jax_out) -> float:
    """Relative difference of the two losses (same inputs, float32)."""
    a, b = float(frame_out[0]), float(jax_out[0])
    return abs(a - b) / max(abs(b), 1e-30)


def profile_executable(exe, args, repeats: int = 30) -> list[tuple[str, float, int]]:
    """Time each line of the executable's generated source, summed per numpy function or kernel.

    Returns (kind, median ms per call, lines) sorted by time; the generated code is run with a
    timer around every statement, so the totals include the per-line Python dispatch.
    """
    import re
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1024, 4096])
    parser.add_argument("--profile", action="store_true", help="also time each pipeline stage and each op kind")
    args = parser.parse_args(argv)
    print(machine_line())
    step = frame.function(frame_step_fn())
    jax_run, _ = jax_step_fn()
    torch_parts = torch_step_fn()
    header = f"{'N':>6} {'frame ms':>10} {'jax.jit ms':>11} {'torch ms':>9} {'frame/jax':>10} {'frame/torch':>12}"
    rows = []
    for n in args.sizes:
        params, x, xb, f = make_problem(n)
        runners = {"frame": lambda: step(params, x, xb, f), "jax": lambda: jax_run(params, x, xb, f)}
        if torch_parts is not None:
            torch_run, torch = torch_parts
            tp = [(torch.tensor(w, requires_grad=True), torch.tensor(b, requires_grad=True)) for w, b in params]
            tx, txb, tf = torch.tensor(x), torch.tensor(xb), torch.tensor(f)
            runners["torch"] = lambda: torch_run(tp, tx, txb, tf)
        diff = check_agreement(step(params, x, xb, f), jax_run(params, x, xb, f))
        # Like jax.jit's compile, frame's native tier is built before timing (it is built in the
        # background once an executable is hot; see frame/runtime/tiers.py).
        step.compiled(params, x, xb, f).wait_native()
        med = interleaved_medians(runners, args.rounds)
        fr, jx, th = med["frame"] * 1e3, med["jax"] * 1e3, med.get("torch")
        th_ms = f"{th * 1e3:9.2f}" if th else f"{'-':>9}"
        ratio_t = f"{fr / (th * 1e3):12.2f}" if th else f"{'-':>12}"
        rows.append(f"{n:6d} {fr:10.2f} {jx:11.2f} {th_ms} {fr / jx:10.2f} {ratio_t}   (loss rel. diff {diff:.1e})")
    exe = step.compiled(*make_problem(args.sizes[0]))
    print(f"frame training graph: {len(exe.source_graph.nodes)} nodes traced, {len(exe.graph.nodes)} after the "
          f"pipeline, {len(exe.plan.instrs)} plan steps, {len(exe.plan.buffers)} buffers "
          f"({exe.plan.arena_bytes / 2**20:.1f} MiB) at N={args.sizes[0]}")
    print(f"medians over {args.rounds} interleaved rounds of 3 timed steps each")
    print(header)
    for row in rows:
        print(row)
    if args.profile:
        problem = make_problem(args.sizes[0])
        exe = step.compiled(*problem)
        print(f"\ncompile stages on the traced training graph (N={args.sizes[0]}):")
        for name, ms, size in profile_stages(exe.source_graph):
            print(f"  {name:13s} {ms:8.1f} ms   {size:5d} nodes/steps after")
        print(f"\nwhere a frame step's time goes (N={args.sizes[0]}, median ms per step, summed per op kind):")
        for kind, ms, count in profile_executable(exe, frame.tree_leaves(problem)):
            print(f"  {kind:28s} {ms:8.3f} ms  x{count}")


if __name__ == "__main__":
    main()
