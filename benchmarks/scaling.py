"""Strong scaling of data-parallel training (frame.distributed on Dask): a PINN step and an FNO epoch on 1 and 2 workers.

Workloads (fixed total size, so more workers means smaller shards: strong scaling):

- PINN step: 1-D Poisson u'' = f, tanh MLP 1-64-64-64-1, float32, N = 65,536 collocation points
  (the `pinn_step.py` workload; u_xx by nested `frame.grad`), one SGD step of `frame.train.Trainer`.
  The collocation points and f are sharded; the 2 boundary points go to every worker.
- FNO epoch: `pino.FNO1d` (16 modes, width 64, 4 layers) on Burgers (u0 -> u(1), ETDRK4 data at
  s = `--s`), `--train` samples in batches of 20 (each batch split over the workers), Adam, relative-L2 loss.

Configurations, each alone in its own process, alternating (`driver.py`):

- `1 process`: the plain single-process Trainer on one core (FRAME_ROW_THREADS=1, one BLAS thread);
- `threads`: the single-process Trainer with frame's default row threads (both cores);
- `1 worker`, `2 workers`: a `LocalCluster` of that many worker processes, one thread each (the
  same one-core setting inside each worker), the Trainer on the client with `client=`, `shard=`.

Per configuration: the median step (or epoch) time; `compute`: the workers' time inside the
executable on the step's critical path (the slowest shard); `comm`: the share of the step that is
not that compute (task dispatch through the scheduler, parameter and gradient transfer, the
client-side reduction and the update). The projection at 8 and 64 workers is on paper, from the
measured 1-worker compute, the measured per-step overhead and the gradient size, under a stated
network model (`project`).

    .venv/bin/python benchmarks/scaling.py [--pairs 3] [--cases pinn fno] [--n 65536] [--s 256] [--train 200]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))

CONFIGS = {"1 process": (0, 1), "threads": (0, None), "1 worker": (1, 1), "2 workers": (2, 1)}  # workers, threads

# The network of the projection (stated in the output): a datacenter LAN.
BANDWIDTH = 1.25e9      # bytes/s: 10 Gbit/s Ethernet, per link, full duplex
LATENCY = 50e-6         # s per message (TCP round trip on one switch hop is ~25-100 us)
TASK_OVERHEAD = 1e-3    # s of scheduler work per extra task (Dask's best-practices page: ~1 ms per task)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pairs", type=int, default=3)
    p.add_argument("--cases", nargs="+", choices=("pinn", "fno"), default=["pinn", "fno"])
    p.add_argument("--configs", nargs="+", choices=sorted(CONFIGS), default=list(CONFIGS))
    p.add_argument("--n", type=int, default=65536, help="PINN collocation points")
    p.add_argument("--s", type=int, default=256, help="FNO grid points")
    p.add_argument("--train", type=int, default=200, help="FNO training samples (an epoch: train / 20 steps)")
    p.add_argument("--steps", type=int, default=12, help="timed PINN steps per process")
    p.add_argument("--epochs", type=int, default=2, help="timed FNO epochs per process (after one warm-up epoch)")
    p.add_argument("--json", default=None)
    p.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    p.add_argument("--case", default=None, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def set_threads(threads: int | None) -> None:
    """One core per process (and per Dask worker, which inherits the environment) unless None."""
    if threads is not None:
        os.environ["FRAME_ROW_THREADS"] = str(threads)
        os.environ["OPENBLAS_NUM_THREADS"] = str(threads)


# -- workloads --------------------------------------------------------------------------------------------
def pinn_problem(n: int):
    import frame
    import frame.numpy as fnp
    from pinn_step import make_problem, frame_mlp

    params, x, xb, f = make_problem(n)
    u_x = frame.grad(lambda p, x: fnp.sum(frame_mlp(p, x)), argnums=1)
    u_xx = frame.grad(lambda p, x: fnp.sum(u_x(p, x)), argnums=1)

    def loss(params, x, f, xb):
        r = u_xx(params, x) - f
        return fnp.mean(r * r) + fnp.mean(fnp.square(frame_mlp(params, xb)))

    return loss, params, (x, f, xb)


def fno_problem(s: int, train: int):
    from pino import Burgers1D, FNO1d, relative_l2_loss

    data = Burgers1D().sample(train, s, seed=0)
    a, u = data.channels("float32")
    model = FNO1d(modes=16, width=64, layers=4)

    def loss(params, a, u):
        return relative_l2_loss(model.apply(params, a), u)

    return loss, model.init(0, "float32"), (a, u)


def step_stats(trainer, timings: list[dict]) -> dict:
    """compute / comm / reduce of the data-parallel steps (empty in a single process)."""
    if not timings:
        return {}
    wall = [t["wall"] for t in timings]
    compute = [t["compute_max"] for t in timings]
    share = [(w - c) / w for w, c in zip(wall, compute)]
    return {"compute_ms": 1e3 * statistics.median(compute), "comm": statistics.median(share),
            "reduce_ms": 1e3 * statistics.median([t["reduce"] for t in timings]),
            "grad_bytes": timings[-1]["bytes_grads"], "shards": timings[-1]["shards"]}


def warm_native(trainer, client, data) -> str:
    """Wait until the step's executables run their native tier (as the other benchmarks time them)."""
    if client is None:
        exe = trainer._loss_graph.compiled(data)[0]
        exe.wait_native(timeout=600)
        return exe.tier
    from frame.distributed import wait_native

    return ",".join(sorted({t for tiers in client.run(wait_native, 600).values() for t in tiers}))


def worker(args) -> None:
    from driver import emit

    workers, threads = CONFIGS[args.worker]
    set_threads(threads)
    from frame.train import SGD, Adam, Trainer

    client = None
    if workers:
        from frame.distributed import client_from_args
        client = client_from_args(workers=workers)
        client.wait_for_workers(workers)
    try:
        if args.case == "pinn":
            loss, params, data = pinn_problem(args.n)
            kw = {"client": client, "shard": (0, 1)} if client else {}
            trainer = Trainer(loss, params, SGD(1e-3), progress=False, **kw)
            for _ in range(4):  # compile (client trace, worker compile) and make the executable hot
                trainer.step(*data)
            tiers = warm_native(trainer, client, data)
            trainer.step(*data)
            times, timings = [], []
            for _ in range(args.steps):
                t0 = time.perf_counter()
                trainer.step(*data)
                times.append(time.perf_counter() - t0)
                if client:
                    timings.append(dict(trainer.data_parallel.last_timing))
            emit({"case": f"PINN step N={args.n}", "time": statistics.median(times), "times": times,
                  "loss": trainer.history[-1], "tiers": tiers, **step_stats(trainer, timings)})
        else:
            loss, params, (a, u) = fno_problem(args.s, args.train)
            kw = {"client": client, "shard": (0, 1)} if client else {}
            trainer = Trainer(loss, params, Adam(1e-3), progress=False, **kw)
            batches = [(a[i:i + 20], u[i:i + 20]) for i in range(0, len(a) - 19, 20)]
            epoch_times, timings = [], []
            for epoch in range(args.epochs + 1):   # epoch 0 compiles and warms up
                t0 = time.perf_counter()
                for batch in batches:
                    trainer.step(*batch)
                    if client and epoch:
                        timings.append(dict(trainer.data_parallel.last_timing))
                if epoch:
                    epoch_times.append(time.perf_counter() - t0)
                else:
                    tiers = warm_native(trainer, client, batches[0])
            emit({"case": f"FNO epoch s={args.s} x{len(batches)}", "time": statistics.median(epoch_times),
                  "times": epoch_times, "loss": trainer.history[-1], "steps": len(batches),
                  "tiers": tiers, **step_stats(trainer, timings)})
    finally:
        if client is not None:
            client.close()


# -- the projection -------------------------------------------------------------------------------------
def project(compute_1: float, overhead_1: float, grad_bytes: int, workers: int) -> dict:
    """Step time and efficiency at `workers` workers, from the 1-worker compute and per-step overhead.

    compute scales as compute_1 / W (strong scaling; the shard's compute assumed proportional to
    its rows, which holds for both workloads: every op runs over the rows or reduces them).
    Two communication models for the P = grad_bytes of parameters out and gradients back:

    - star (this implementation): the client sends the parameters to each of W workers and
      receives W gradient arrays over its one link, then reduces them: 2 W P / B + 2 latency, plus
      the measured per-step Dask overhead `overhead_1` (one task's dispatch, a few scheduler round
      trips), (W - 1) more tasks at TASK_OVERHEAD each, and W times the client's reduction of one
      array (~P / 4 GB/s, a memory-bound axpy);
    - ring all-reduce (workers exchange gradients among themselves, e.g. over Dask's
      worker-to-worker comms or MPI, parameters updated identically everywhere):
      2 (W-1)/W P / B + 2 (W-1) latency, plus the same dispatch overheads.
    """
    compute = compute_1 / workers
    reduce_one = grad_bytes / 4e9
    dispatch = overhead_1 + (workers - 1) * TASK_OVERHEAD
    star = compute + dispatch + 2 * workers * grad_bytes / BANDWIDTH + 2 * LATENCY + workers * reduce_one
    ring = compute + dispatch + 2 * (workers - 1) / workers * grad_bytes / BANDWIDTH + 2 * (workers - 1) * LATENCY
    single = compute_1
    return {"W": workers, "star_ms": 1e3 * star, "star_eff": single / (workers * star),
            "ring_ms": 1e3 * ring, "ring_eff": single / (workers * ring)}


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.worker:
        worker(args)
        return 0
    from driver import Worker, machine_line, run_pairs

    print(machine_line())
    base = [sys.executable, os.path.abspath(__file__), "--n", str(args.n), "--s", str(args.s),
            "--train", str(args.train), "--steps", str(args.steps), "--epochs", str(args.epochs)]
    reports = []
    for case in args.cases:
        workers = [Worker(c, base + ["--worker", c, "--case", case]) for c in args.configs]
        report = run_pairs(workers, pairs=args.pairs, baseline="1 process" if "1 process" in args.configs else None,
                           peak=False)
        print(report.table(fields=["compute_ms", "comm", "reduce_ms", "grad_bytes", "tiers", "loss"]))
        reports.append(report)
        rows = {r.label: r for r in report.rows() if not r.skip}
        if "1 worker" in rows:
            one = rows["1 worker"]
            steps = one.fields.get("steps", 1)
            step_1 = one.time / steps
            compute_1 = one.fields["compute_ms"] / 1e3
            overhead_1 = max(step_1 - compute_1, 0.0)
            grad_bytes = int(one.fields["grad_bytes"])
            if "2 workers" in rows:
                print(f"speedup 2 workers / 1 worker: {one.time / rows['2 workers'].time:.2f}x; "
                      f"2 workers / 1 process: {rows['1 process'].time / rows['2 workers'].time:.2f}x"
                      if "1 process" in rows else "")
            print(f"projection per step (compute_1 {compute_1 * 1e3:.2f} ms, overhead {overhead_1 * 1e3:.2f} ms, "
                  f"P = {grad_bytes / 1e6:.2f} MB; {BANDWIDTH * 8 / 1e9:.0f} Gbit/s, {LATENCY * 1e6:.0f} us latency, "
                  f"{TASK_OVERHEAD * 1e3:g} ms per extra task):")
            rows_per_step = 20 if case == "fno" else args.n
            for w in (1, 2, 8, 64):
                p = project(compute_1, overhead_1, grad_bytes, w)
                note = f"  (a batch of {rows_per_step} has fewer rows than {w} workers: needs a larger batch)" \
                    if w > rows_per_step else ""
                print(f"  W={w:>2}: star {p['star_ms']:8.2f} ms (efficiency {p['star_eff']:6.1%}),  "
                      f"ring all-reduce {p['ring_ms']:8.2f} ms (efficiency {p['ring_eff']:6.1%}){note}")
    if args.json:
        import json

        with open(args.json, "w") as fh:
            json.dump([r.to_json() for r in reports], fh, indent=1, default=float)
    return 0


if __name__ == "__main__":
    sys.exit(main())
