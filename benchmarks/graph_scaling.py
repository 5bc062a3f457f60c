"""Compile time of deep graphs: seconds per node of each stage, for chains of 1k, 5k and 20k ops.

f(x) = sum(chain(x)), the chain repeating `x = sin(x) * 1.0001` (three traced nodes: sin, the
constant, mul) on a float64[8] input, so the traced graph has N nodes. Its gradient goes through
every stage on the way from a Python function to a result, each timed on its own:

    trace      frame.trace(f, x)
    backward   build_backward_graph(graph, 0, [0])
    pipeline   run_pipeline(backward graph): verify .. fuse
    plan       the ninth stage, lowering to an ExecutionPlan (with the collector paused, as in `lower`)
    codegen    Executable(plan): the numpy tier's generated source, compiled
    call       the executable's first call
    grad       frame.grad(f)(x) end to end, caches cleared (trace, derive, fingerprint, compile, run)

Times are CPU seconds of the process. Each stage should cost about the same per node at every size: a stage whose us/node grows with
N has a super-linear part.

    .venv/bin/python benchmarks/graph_scaling.py [--sizes 1000 5000 20000] [--profile N]
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402

import frame  # noqa: E402
import frame.numpy as fnp  # noqa: E402
from frame.compiler import build_backward_graph, run_pipeline  # noqa: E402
from frame.compiler.collector import collector_paused  # noqa: E402
from frame.compiler.passes.plan import plan as make_plan  # noqa: E402
from frame.frontend import transforms  # noqa: E402
from frame.runtime.compile import clear_cache  # noqa: E402
from frame.runtime.executable import Executable  # noqa: E402

STAGES = ("trace", "backward", "pipeline", "plan", "codegen", "call", "grad")
NODES_PER_STEP = 3  # sin, the constant 1.0001, mul


def chain(n_nodes: int):
    """A scalar function whose traced graph is a chain of about `n_nodes` nodes."""
    def f(x):
        for _ in range(n_nodes // NODES_PER_STEP):
            x = fnp.sin(x) * 1.0001
        return fnp.sum(x)
    return f


def _timed(fn, *args):
    # CPU time of this process: on a shared machine wall time moves with the other jobs' load.
    start = time.process_time()
    result = fn(*args)
    return result, time.process_time() - start


def measure(n_nodes: int) -> tuple[int, dict[str, float]]:
    """(traced node count, seconds per stage) for the chain of `n_nodes`."""
    f, x = chain(n_nodes), np.linspace(0.0, 1.0, 8)
    seconds = {}
    graph, seconds["trace"] = _timed(frame.trace, f, x)
    backward, seconds["backward"] = _timed(build_backward_graph, graph, 0, [0])
    optimised, seconds["pipeline"] = _timed(run_pipeline, backward)
    plan, seconds["plan"] = _timed(collector_paused()(make_plan), optimised)  # as `lower` runs it
    exe, seconds["codegen"] = _timed(Executable, plan, backward)
    _, seconds["call"] = _timed(exe, x)
    clear_cache()
    transforms._DERIVED.clear()
    _, seconds["grad"] = _timed(frame.grad(f), x)
    return len(graph.nodes), seconds


def profile(n_nodes: int) -> None:
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.runcall(measure, n_nodes)
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 20000])
    parser.add_argument("--profile", type=int, metavar="N", help="cProfile one size instead of the table")
    args = parser.parse_args(argv)
    if args.profile:
        profile(args.profile)
        return
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from pinn_step import machine_line

    print(machine_line())
    print("microseconds per traced node (chain of sin(x) * 1.0001, gradient w.r.t. x)")
    print(f"{'nodes':>6} " + " ".join(f"{s:>9}" for s in STAGES) + f" {'grad s':>7} {'max RSS MB':>10}")
    for n in args.sizes:
        nodes, seconds = measure(n)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"{nodes:6d} " + " ".join(f"{seconds[s] / nodes * 1e6:9.1f}" for s in STAGES)
              + f" {seconds['grad']:7.2f} {rss:10.0f}", flush=True)


if __name__ == "__main__":
    main()
