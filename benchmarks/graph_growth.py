"""Size of the order-k derivative graph (k = 1..4) of an MLP w.r.t. its scalar input: frame vs nested jax.grad.

f(x) = MLP(x), tanh, 1-32-32-1, float32, x a scalar. frame: `frame.grad` applied k times, traced,
then the pipeline. Counted for frame: nodes of the traced graph, nodes after the pipeline before
fusion (every op still one node: the fair comparison with jaxpr equations), nodes after the full
pipeline (a fused chain is one node), and the numpy calls of the execution plan. jax: equations
of `jax.make_jaxpr` of `jax.grad` nested k times, counted through nested jaxprs (pjit, custom_jvp).

    .venv/bin/python benchmarks/graph_growth.py [--max-order 4]
"""
from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402

import frame  # noqa: E402
import frame.numpy as fnp  # noqa: E402
from frame.compiler import PipelineOptions, run_pipeline  # noqa: E402
from frame.runtime import compile as compile_graph  # noqa: E402

LAYERS = (1, 32, 32, 1)
BEFORE_FUSION = PipelineOptions(stages=("decompose", "canonicalize", "fold", "simplify", "cse", "dne"))


def make_params(seed: int = 0):
    rng = np.random.default_rng(seed)
    return [((rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32), (0.1 * rng.standard_normal(b)).astype(
        np.float32)) for a, b in zip(LAYERS[:-1], LAYERS[1:])]


def scalar_mlp(params, xnp):
    """The MLP as a function of a scalar, over `xnp` (frame.numpy or jax.numpy: same names)."""
    def f(x):
        h = xnp.reshape(x, (1, 1))
        for w, b in params[:-1]:
            h = xnp.tanh(h @ w + b)
        w, b = params[-1]
        return xnp.sum(h @ w + b)
    return f


def count_eqns(jaxpr) -> int:
    """Equations of a jaxpr, counting the bodies of nested jaxprs instead of their call equations."""
    total = 0
    for eqn in jaxpr.eqns:
        subs = [v for v in eqn.params.values() if hasattr(v, "eqns") or hasattr(v, "jaxpr")]
        if subs:
            total += sum(count_eqns(getattr(s, "jaxpr", s)) for s in subs)
        else:
            total += 1
    return total


def frame_sizes(params, order: int, x: np.ndarray) -> dict:
    f = scalar_mlp(params, fnp)
    for _ in range(order):
        f = frame.grad(f)
    graph = frame.trace(f, x)
    exe = compile_graph(graph)
    optimised = run_pipeline(graph, BEFORE_FUSION)
    ops = sum(1 for n in optimised.nodes if n.op != "constant")  # literals are not equations in a jaxpr either
    return {"traced": len(graph.nodes), "optimised": ops,
            "fused": len(exe.graph.nodes), "plan": sum(1 for i in exe.plan.instrs if i.op != "constant"),
            "value": float(exe(x)[0])}


def jax_sizes(params, order: int, x: np.ndarray) -> dict:
    import jax
    import jax.numpy as jnp

    f = scalar_mlp(params, jnp)
    for _ in range(order):
        f = jax.grad(f)
    return {"eqns": count_eqns(jax.make_jaxpr(f)(x).jaxpr), "value": float(f(x))}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-order", type=int, default=4)
    args = parser.parse_args(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from pinn_step import machine_line

    print(machine_line())
    params = make_params()
    x = np.float32(0.3)
    print(f"order-k derivative of a tanh MLP {'-'.join(map(str, LAYERS))} w.r.t. its scalar input")
    print(f"{'k':>2} {'traced':>7} {'optimised':>10} {'fused':>6} {'plan':>5} {'jaxpr':>6} {'opt/jaxpr':>10} "
          f"{'growth frame':>13} {'growth jax':>11} {'rel. diff':>10}")
    previous = None
    for k in range(1, args.max_order + 1):
        fr, jx = frame_sizes(params, k, x), jax_sizes(params, k, x)
        diff = abs(fr["value"] - jx["value"]) / max(abs(jx["value"]), 1e-30)
        growth = (f"{fr['optimised'] / previous[0]:13.2f} {jx['eqns'] / previous[1]:11.2f}" if previous
                  else f"{'':>13} {'':>11}")
        print(f"{k:2d} {fr['traced']:7d} {fr['optimised']:10d} {fr['fused']:6d} {fr['plan']:5d} {jx['eqns']:6d} "
              f"{fr['optimised'] / jx['eqns']:10.2f} {growth} {diff:10.1e}")
        previous = (fr["optimised"], jx["eqns"])
    print("optimised: ops after decompose..dne (one node per op, constants not counted); fused: nodes after the "
          "whole pipeline; plan: numpy calls per run")


if __name__ == "__main__":
    main()
