"""Order-k derivatives of an MLP w.r.t. its scalar input: frame (Taylor mode, nested reverse) vs jax.

Workload (issue 15): u = tanh MLP 1-64-64-64-64-1 (4 hidden layers of 64), applied to N = 1024
points x in [-1, 1] (float32 by default, as PINN training runs; `--dtype float64` for the other);
one call computes d^k u / dx^k at every point, k = 1..6 (`--orders`). Each method in its own
process (`benchmarks/driver.py`: alternating processes, medians, median of per-pair ratios):

- frame-taylor: `frame.frontend.taylor.directional_derivatives` (one Taylor-mode propagation of
  order k along the direction 1 per point), in `frame.function`;
- frame-reverse: `frame.grad` of the sum re-applied k times (as `pinn.problems.pointwise_derivative`:
  rows never interact, so the gradient of the sum is the pointwise derivative), in `frame.function`;
- jax-grad: `jax.jit(jax.vmap(d))`, d = `jax.grad` nested k times on the scalar function;
- jax-jet: `jax.jit` of `jax.experimental.jet.jet` of order k on the batch, input series (1, 0, ...).

Graph size: frame's "ops" are the non-constant nodes after decompose..dne (one node per op, as a
jaxpr equation; `graph_growth.py` counts the same way), "fused" the nodes of the executable's graph
after the whole pipeline; jax's "ops" are the equations of the jitted function's jaxpr, counted
through nested jaxprs. "flops" are the GEMM FLOPs of one call (matmul nodes of frame's optimised
graph, dot_general equations of the jaxpr); the FLOP bound divides them by numpy's GEMM peak.
Every method's values are checked against jax-grad's at 16 points ("rel diff").

    .venv/bin/python benchmarks/derivatives.py [--orders 1 2 3 4 5 6] [--pairs 3] [--dtype float32] [--json OUT]
    .venv/bin/python benchmarks/derivatives.py --profile 4     # where frame's order-4 call spends its time
"""
from __future__ import annotations

import argparse
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402

from driver import Worker, emit, run_pairs, time_calls  # noqa: E402

LAYERS = (1, 64, 64, 64, 64, 1)
METHODS = ("frame-taylor", "frame-reverse", "jax-jet", "jax-grad")
BASELINE = "jax-grad"
CHECK_POINTS = 16
#: frame's pipeline up to fusion: every op still one node, the count comparable to jaxpr equations.
BEFORE_FUSION = ("decompose", "canonicalize", "fold", "simplify", "cse", "dne")


# -- the workload ---------------------------------------------------------------------------------------
def make_inputs(n: int, dtype: str, seed: int = 0, layers=LAYERS):
    """(params as [(W, b), ...], x of shape (n, 1)) in `dtype`; biases non-zero so no derivative vanishes."""
    rng = np.random.default_rng(seed)
    params = [((rng.standard_normal((a, b)) / np.sqrt(a)).astype(dtype), (0.1 * rng.standard_normal(b)).astype(dtype))
              for a, b in zip(layers[:-1], layers[1:])]
    return params, rng.uniform(-1.0, 1.0, (n, 1)).astype(dtype)


def mlp(params, x, xnp):
    """tanh MLP over `xnp` (frame.numpy or jax.numpy), x of shape (N, 1) -> (N, 1)."""
    for w, b in params[:-1]:
        x = xnp.tanh(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def check_indices(n: int) -> np.ndarray:
    return np.linspace(0, n - 1, min(CHECK_POINTS, n)).astype(int)


# -- graph sizes and GEMM FLOPs -----------------------------------------------------------------------------
def frame_counts(graph, exe) -> dict:
    """Non-constant nodes before fusion, nodes after the whole pipeline, GEMM FLOPs (matmul nodes)."""
    from frame.compiler import PipelineOptions, run_pipeline

    optimised = run_pipeline(graph, PipelineOptions(stages=BEFORE_FUSION))
    flops = 0
    for node in optimised.nodes:
        if node.op == "matmul":
            a = node.inputs[0].type.shape
            inner = a[-2] if node.attrs.get("transpose_a") else a[-1]
            flops += 2 * math.prod(node.outputs[0].type.shape) * inner
    return {"ops": sum(1 for n in optimised.nodes if n.op != "constant"), "fused": len(exe.graph.nodes),
            "traced": len(graph.nodes), "flops": flops}


def jaxpr_counts(jaxpr) -> tuple[int, int]:
    """(equations, GEMM FLOPs) of a jaxpr, counting the bodies of nested jaxprs (pjit, custom_jvp, ...)
    instead of their call equations."""
    eqns = flops = 0
    for eqn in jaxpr.eqns:
        subs = [getattr(v, "jaxpr", v) for v in eqn.params.values() if hasattr(v, "eqns") or hasattr(v, "jaxpr")]
        if subs:
            for sub in subs:
                e, f = jaxpr_counts(sub)
                eqns, flops = eqns + e, flops + f
            continue
        eqns += 1
        if eqn.primitive.name == "dot_general":
            (lhs_contract, _), _ = eqn.params["dimension_numbers"]
            lhs = eqn.invars[0].aval.shape
            flops += 2 * math.prod(eqn.outvars[0].aval.shape) * math.prod(lhs[d] for d in lhs_contract)
    return eqns, flops


# -- the methods (each builds `order -> (call, counts)`) ----------------------------------------------------
def frame_reverse(params, x, order: int):
    import frame
    import frame.numpy as fnp

    d = lambda p, x: mlp(p, x, fnp)  # noqa: E731
    for _ in range(order):
        d = (lambda g: lambda p, x: frame.grad(lambda x: fnp.sum(g(p, x)))(x))(d)
    return frame_compiled(d, params, x)


def frame_taylor(params, x, order: int):
    import frame.numpy as fnp
    from frame.frontend.taylor import directional_derivatives

    def d(p, x):  # x (N, 1): the direction defaults to 1 per point
        return directional_derivatives(lambda x: mlp(p, x, fnp), order=order)(x)[order]

    return frame_compiled(d, params, x)


def frame_compiled(fn, params, x):
    """`frame.function(fn)` after its native tier is built, its call and its graph counts."""
    import frame

    f = frame.function(fn)
    f(params, x)
    exe = f.compiled(params, x)
    for _ in range(4):  # make the executable hot, then wait for the native tier (as jax.jit has compiled)
        f(params, x)
    exe.wait_native(timeout=600)
    call = lambda: f(params, x)  # noqa: E731
    call.executable, call.leaves = exe, frame.tree_leaves((params, x))
    return call, frame_counts(f.trace(params, x), exe)


def profile(order: int, n: int, dtype: str) -> None:
    """Per op kind, median ms of one call of frame's order-`order` executables (native tier)."""
    from pinn_step import profile_executable

    params, x = make_inputs(n, dtype)
    for method in ("frame-taylor", "frame-reverse"):
        try:
            call, counts = BUILDERS[method](params, x, order)
        except ImportError as e:
            print(f"{method}: not available ({e})")
            continue
        rows = profile_executable(call.executable, call.leaves)
        total = sum(ms for _, ms, _ in rows)
        print(f"{method}, order {order}: {total:.3f} ms per call in {sum(c for *_, c in rows)} plan lines "
              f"(timed per line), {counts['flops'] / 1e6:.1f} MFLOP of GEMMs, tier {call.executable.tier}")
        for kind, ms, lines in rows:
            print(f"  {kind:<28} {ms:8.3f} ms {lines:5d} lines")


def jax_grad(params, x, order: int):
    import jax
    import jax.numpy as jnp

    def u(p, xi):  # one scalar point; a vector through the layers (faster under vmap than a (1, 1) matrix)
        return mlp(p, jnp.reshape(xi, (1,)), jnp)[0]

    d = u
    for _ in range(order):
        d = jax.grad(d, argnums=1)
    fn = jax.jit(lambda p, x: jax.vmap(d, in_axes=(None, 0))(p, x[:, 0])[:, None])
    return jax_compiled(fn, params, x)


def jax_jet(params, x, order: int):
    import jax
    import jax.numpy as jnp
    from jax.experimental import jet

    def fn(p, x):
        series = (jnp.ones_like(x),) + (jnp.zeros_like(x),) * (order - 1)
        _, out = jet.jet(lambda x: mlp(p, x, jnp), (x,), (series,))
        return out[order - 1]  # jet's terms are derivatives (not divided by k!)

    return jax_compiled(jax.jit(fn), params, x)


def jax_compiled(fn, params, x):
    import jax

    jax.block_until_ready(fn(params, x))
    eqns, flops = jaxpr_counts(jax.make_jaxpr(fn)(params, x).jaxpr)
    return (lambda: jax.block_until_ready(fn(params, x))), {"ops": eqns, "flops": flops}


BUILDERS = {"frame-taylor": frame_taylor, "frame-reverse": frame_reverse, "jax-jet": jax_jet, "jax-grad": jax_grad}


def worker(method: str, orders, n: int, dtype: str, warmup: int, repeats: int, min_seconds: float) -> None:
    """Child process: every order of one method; one record per order."""
    if method.startswith("jax"):
        import jax

        if dtype == "float64":
            jax.config.update("jax_enable_x64", True)
    params, x = make_inputs(n, dtype)
    idx = check_indices(n)
    records = []
    for k in orders:
        try:
            call, counts = BUILDERS[method](params, x, k)
        except ImportError as e:  # the Taylor-mode API is not in this tree
            emit([{"case": f"k={k}", "skip": f"{method}: {e}"} for k in orders])
            return
        out = np.asarray(call())
        stats = time_calls(call, warmup=warmup, repeats=repeats, min_seconds=min_seconds)
        records.append({"case": f"k={k}", **stats, **counts, "dtype": dtype,
                        "check": out.reshape(-1)[idx].astype(np.float64).tolist()})
    emit(records)


# -- the driver side ---------------------------------------------------------------------------------------
def rel_diff(a, b) -> float:
    a, b = np.asarray(a), np.asarray(b)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-30))


def growth_exponent(orders, sizes) -> float:
    """Slope of log(size) against log(k) over the orders >= 2 (a quadratic graph has slope <= 2)."""
    pts = [(math.log(k), math.log(s)) for k, s in zip(orders, sizes) if k >= 2 and s]
    if len(pts) < 2:
        return math.nan
    xs, ys = zip(*pts)
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((a - mx) * (b - my) for a, b in pts) / sum((a - mx) ** 2 for a in xs)


def at_most_quadratic(orders, sizes, slack: float = 1.05) -> bool:
    """Each step's growth at most a pure quadratic's: size(k) / size(k-1) <= (k / (k-1))^2 (x slack)."""
    steps = [(k0, s0, k1, s1) for (k0, s0), (k1, s1) in zip(zip(orders, sizes), zip(orders[1:], sizes[1:]))]
    return all(s1 / s0 <= (k1 / k0) ** 2 * slack for k0, s0, k1, s1 in steps)


def add_agreement(report) -> None:
    """Each record's "rel diff": max |value - jax-grad's value| / max |jax-grad's value| at the check points."""
    ref = {(r["case"], r["pair"]): r["check"] for r in report.records if r["label"] == BASELINE and "check" in r}
    for r in report.records:
        if "check" in r and (r["case"], r["pair"]) in ref:
            r["rel diff"] = rel_diff(r["check"], ref[(r["case"], r["pair"])])


def report_targets(report, orders) -> list[str]:
    """The issue's targets: order 4 against nested jax.grad and jet, graph growth at most quadratic."""
    rows = {(r.case, r.label): r for r in report.rows()}
    lines = []
    if 4 in orders:
        for label in ("frame-taylor", "frame-reverse"):
            row = rows.get(("k=4", label))
            if row is None or row.skip:
                lines.append(f"order 4, {label}: not measured ({row.skip if row else 'no result'})")
                continue
            vs_grad = report.pair_ratios("k=4", label, BASELINE)
            vs_jet = report.pair_ratios("k=4", label, "jax-jet")
            med = lambda v: float(np.median(v)) if v else math.nan  # noqa: E731
            lines.append(f"order 4, {label}: {med(vs_grad):.3f}x nested jax.grad (target <= 0.333: "
                         f"{'met' if med(vs_grad) <= 1 / 3 else 'not met'}), {med(vs_jet):.3f}x jax.experimental.jet "
                         f"(target <= 1: {'met' if med(vs_jet) <= 1 else 'not met'})")
    for label in report.labels:
        sizes = [rows[(f"k={k}", label)].fields.get("ops") for k in orders
                 if (f"k={k}", label) in rows and not rows[(f"k={k}", label)].skip]
        if len(sizes) != len(orders) or len(orders) < 2:
            continue
        growth = " ".join(f"{b / a:.2f}" for a, b in zip(sizes, sizes[1:]))
        verdict = "met" if at_most_quadratic(list(orders), sizes) else "not met"
        lines.append(f"graph size {label}: {' '.join(map(str, sizes))} ops; growth {growth}; "
                     f"log-log slope {growth_exponent(orders, sizes):.2f}; at most quadratic: {verdict}")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, nargs="+", default=[1, 2, 3, 4, 5, 6])
    parser.add_argument("--n", type=int, default=1024, help="points (default 1024)")
    parser.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    parser.add_argument("--pairs", type=int, default=3, help="alternating process rounds")
    parser.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS))
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--min-seconds", type=float, default=0.3, help="least timed seconds per order and process")
    parser.add_argument("--json", default=None, metavar="OUT")
    parser.add_argument("--profile", type=int, default=None, metavar="K",
                        help="profile frame's order-K executables per op kind (in this process) instead")
    parser.add_argument("--worker", choices=METHODS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if any(k < 1 for k in args.orders):
        parser.error(f"--orders must be >= 1, got {args.orders}")
    if args.profile is not None:
        profile(args.profile, args.n, args.dtype)
        return
    common = ["--orders", *map(str, args.orders), "--n", str(args.n), "--dtype", args.dtype,
              "--warmup", str(args.warmup), "--repeats", str(args.repeats), "--min-seconds", str(args.min_seconds)]
    if args.worker:
        worker(args.worker, args.orders, args.n, args.dtype, args.warmup, args.repeats, args.min_seconds)
        return
    methods = [m for m in METHODS if m in args.methods]
    workers = [Worker(m, [sys.executable, os.path.abspath(__file__), "--worker", m, *common]) for m in methods]
    report = run_pairs(workers, args.pairs, baseline=BASELINE if BASELINE in methods else None)
    add_agreement(report)
    targets = report_targets(report, args.orders)
    print(report.machine)
    print(f"order-k derivative of a tanh MLP {'-'.join(map(str, LAYERS))} w.r.t. its scalar input, "
          f"{args.n} points, {args.dtype}")
    print(report.table(fields=["ops", "fused", "flops", "rel diff"]))
    print("\n".join(targets))
    if args.json:
        report.save(args.json)
        print(f"saved: {args.json}")


if __name__ == "__main__":
    main()
