"""Time from a Python function to the first finished PINN training step: frame vs jax.jit (and PyTorch eager).

frame: trace the step (the nested `frame.grad`s derive their graphs while tracing) + run the
nine-stage pipeline + generate the executable + run one step. jax.jit: the first call (trace,
lower, XLA compile, run). PyTorch eager has no compile: its first step is one eager step.

Every measurement runs in a fresh Python process (imports excluded from the timing) so no cache
of a previous run helps; medians over `--repeats` processes.

    .venv/bin/python benchmarks/first_step.py [--repeats 3] [--n 1024]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def one(framework: str, n: int) -> dict:
    """Run in a child process: time the first step of `framework`; return the phases in seconds."""
    sys.path.insert(0, HERE)
    import pinn_step as workload

    problem = workload.make_problem(n)
    if framework == "frame":
        import frame
        from frame.runtime import compile as compile_graph

        t0 = time.perf_counter()
        fn = workload.frame_step_fn()
        graph = frame.trace(fn, *problem)
        t1 = time.perf_counter()
        exe = compile_graph(graph)
        t2 = time.perf_counter()
        exe(*frame.tree_leaves(problem))
        t3 = time.perf_counter()
        return {"total": t3 - t0, "trace+derive": t1 - t0, "compile": t2 - t1, "run": t3 - t2,
                "nodes": len(graph.nodes)}
    if framework == "jax":
        run, _ = workload.jax_step_fn()
        t0 = time.perf_counter()
        run(*problem)
        return {"total": time.perf_counter() - t0}
    if framework == "torch":
        parts = workload.torch_step_fn()
        if parts is None:
            return {}
        run, torch = parts
        params, x, xb, f = problem
        tp = [(torch.tensor(w, requires_grad=True), torch.tensor(b, requires_grad=True)) for w, b in params]
        t0 = time.perf_counter()
        run(tp, torch.tensor(x), torch.tensor(xb), torch.tensor(f))
        return {"total": time.perf_counter() - t0}
    raise ValueError(framework)


def measure(framework: str, n: int, repeats: int) -> list[dict]:
    results = []
    for _ in range(repeats):
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", framework, "--n", str(n)],
                              capture_output=True, text=True, check=True, env={**os.environ, "JAX_PLATFORMS": "cpu"})
        payload = json.loads(proc.stdout.strip().splitlines()[-1])
        if payload:
            results.append(payload)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument("--child", choices=["frame", "jax", "torch"], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(one(args.child, args.n)))
        return
    sys.path.insert(0, HERE)
    from pinn_step import machine_line

    print(machine_line())
    runs = {fw: measure(fw, args.n, args.repeats) for fw in ("frame", "jax", "torch")}
    med = {fw: statistics.median(r["total"] for r in rs) for fw, rs in runs.items() if rs}
    print(f"first finished training step, N={args.n}, medians over {args.repeats} fresh processes")
    print(f"{'':24s} {'seconds':>9}  {'frame / it':>10}")
    for fw, label in (("frame", "frame (trace+compile+run)"), ("jax", "jax.jit first call"),
                      ("torch", "PyTorch eager first step")):
        if fw in med:
            print(f"{label:24s} {med[fw]:9.3f}  {med['frame'] / med[fw]:10.3f}")
    phases = {k: statistics.median(r[k] for r in runs["frame"]) for k in ("trace+derive", "compile", "run")}
    print("frame phases: " + ", ".join(f"{k} {v * 1e3:.0f} ms" for k, v in phases.items())
          + f" ({runs['frame'][0]['nodes']} traced nodes)")


if __name__ == "__main__":
    main()
