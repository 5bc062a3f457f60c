"""Time from a Python function to the first finished PINN training step: frame vs jax.jit (and PyTorch eager).

frame: trace the step (the nested `frame.grad`s derive their graphs while tracing) + run the
nine-stage pipeline + generate the executable + run one step. jax.jit: the first call (trace,
lower, XLA compile, run). PyTorch eager has no compile: its first step is one eager step (left
out, with a note, when torch is not installed). The workload is `pinn_step.py`'s (tanh MLP
1-64-64-64-1, N = 1024, float32).

Every measurement runs in a fresh Python process (imports excluded from the timing) so no cache
of a previous run helps: `benchmarks/driver.py` alternates frame / jax / torch processes for
`--pairs` rounds (OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE removed for all alike) and reports the
median over processes and the median of the per-pair ratios against jax.jit's first call.

    .venv/bin/python benchmarks/first_step.py [--pairs 3] [--n 1024] [--json OUT]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("JAX_PLATFORMS", "cpu")

from driver import Worker, emit, installed_frameworks, run_pairs  # noqa: E402

FRAMEWORKS = ("frame", "jax", "torch")
TARGET = 0.1   # issue 16: first step <= 0.1x jax.jit's first call


def one(framework: str, n: int) -> dict:
    """Run in a worker process: time the first step of `framework`; the phases in seconds ({} without torch)."""
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=3, help="alternating process rounds")
    parser.add_argument("--repeats", type=int, default=None, help="the former name of --pairs")
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument("--json", default=None, metavar="OUT", help="save every record and the summary")
    parser.add_argument("--worker", "--child", dest="worker", choices=FRAMEWORKS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.repeats is not None:
        args.pairs = args.repeats
    case = f"N={args.n}"
    if args.worker:
        phases = one(args.worker, args.n)
        if not phases:
            emit({"case": case, "skip": f"{args.worker}: not installed"})
        else:
            emit({"case": case, "time": phases.pop("total"), **phases})
        return
    frameworks, notes = installed_frameworks(FRAMEWORKS, {"torch": "torch"})
    workers = [Worker(fw, [sys.executable, os.path.abspath(__file__), "--worker", fw, "--n", str(args.n)])
               for fw in frameworks]
    report = run_pairs(workers, args.pairs, baseline="jax", peak=False)
    import pinn_step

    print(pinn_step.machine_line())
    print(f"first finished PINN training step, N={args.n}: median over {args.pairs} fresh processes per framework, "
          f"alternating; /jax: median of the per-pair ratios")
    for note in notes:
        print(note)
    print(report.table(fields=["trace+derive", "compile", "run", "nodes"], unit="s"))
    rows = {r.label: r for r in report.rows()}
    frame_row = rows.get("frame")
    if frame_row and frame_row.ratios:
        print(f"frame: {frame_row.ratio:.3f}x jax.jit's first call (target <= {TARGET}: "
              f"{'met' if frame_row.ratio <= TARGET else 'not met'})")
        phases = {k: sorted(r[k] for r in report.records if r["label"] == "frame" and k in r)
                  for k in ("trace+derive", "compile", "run")}
        print("frame phases (median): " + ", ".join(f"{k} {v[len(v) // 2] * 1e3:.0f} ms" for k, v in phases.items())
              + f" ({frame_row.fields.get('nodes')} traced nodes)")
    if args.json:
        report.save(args.json)
        print(f"saved: {args.json}")


if __name__ == "__main__":
    main()
