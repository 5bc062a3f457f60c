"""Throughput of one compiled executable called from 1, 2 and 4 threads at once (issue 12, item 9).

Workload: the reference PINN training step (tanh MLP 1-64-64-64-1, float32, u_xx by `frame.grad`
twice, loss, parameter gradients and SGD update; tests/workloads.py) at N collocation points,
traced and compiled once. Every thread calls the same `Executable` on the same inputs; the table
gives the calls per second of all threads together and the mean wall time of one call. Before
timing the executable has built its native tier, and every thread's results are checked equal
(bit for bit) to a serial call's.

OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are removed from the environment before numpy loads
OpenBLAS, so the library picks its own kernels for this CPU, as it does for users.

    .venv/bin/python benchmarks/threaded_calls.py [--n 256] [--seconds 2] [--threads 1 2 4]
"""
from __future__ import annotations

import argparse
import os
import pathlib
import platform
import sys
import threading
import time

for _name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
    os.environ.pop(_name, None)
os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))   # tests/workloads.py

import numpy as np  # noqa: E402

import frame  # noqa: E402
from tests.workloads import pinn_problem, pinn_step_fn  # noqa: E402


def build(n: int):
    """The compiled step (native tier built) and its flat inputs."""
    params, x, xb, f = pinn_problem(np.random.default_rng(0), (1, 64, 64, 64, 1), n)
    graph = frame.trace(pinn_step_fn(1e-3), params, x, xb, f)
    exe = frame.runtime.compile(graph)
    inputs = [a for w, b in params for a in (w, b)] + [x, xb, f]
    exe.wait_native(timeout=600)
    return exe, inputs


def run_threads(exe, inputs, threads: int, seconds: float, reference) -> tuple[float, float]:
    """(calls per second over all threads, mean seconds per call) when `threads` threads call `exe`."""
    start = threading.Barrier(threads + 1)
    stop = threading.Event()
    counts = [0] * threads
    busy = [0.0] * threads
    mismatches = []

    def worker(k: int):
        start.wait()
        t0 = time.perf_counter()
        while not stop.is_set():
            outs = exe(*inputs)
            counts[k] += 1
        busy[k] = time.perf_counter() - t0
        if not all(np.array_equal(o, r) for o, r in zip(outs, reference)):
            mismatches.append(k)

    pool = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
    for t in pool:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for t in pool:
        t.join()
    elapsed = time.perf_counter() - t0
    if mismatches:
        raise SystemExit(f"threads {mismatches} got results that differ from a serial call")
    total = sum(counts)
    return total / elapsed, sum(busy) / total


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=256, help="collocation points (default 256)")
    p.add_argument("--seconds", type=float, default=2.0, help="timed seconds per thread count (default 2)")
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2, 4])
    args = p.parse_args()

    exe, inputs = build(args.n)
    reference = exe(*inputs)
    print(f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}, "
          f"frame {frame.__version__}; PINN step N={args.n}, {exe.tier} tier, {args.seconds:g} s per row")
    print("| threads | calls/s | ms per call | calls/s vs 1 thread |")
    print("|--------:|--------:|------------:|--------------------:|")
    base = None
    for threads in args.threads:
        run_threads(exe, inputs, threads, min(0.3, args.seconds), reference)   # warm-up (arenas per thread)
        rate, per_call = run_threads(exe, inputs, threads, args.seconds, reference)
        base = base or rate
        print(f"| {threads:7d} | {rate:7.0f} | {per_call * 1e3:11.2f} | {rate / base:19.2f} |", flush=True)


if __name__ == "__main__":
    main()
