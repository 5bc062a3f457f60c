"""One training step of a 2-D Poisson PINN: frame (nested reverse, Taylor-mode Laplacian) vs jitted JAX.

Workload (issue 15): u_xx + u_yy + f = 0 on the unit square, f = 2 pi^2 sin(pi x) sin(pi y) (the
solution is sin(pi x) sin(pi y)), u = 0 on the boundary; tanh MLP 2-64-64-64-64-64-1 (5 hidden
layers of 64), float32, N = 4,096 interior points (uniform) and 256 boundary points. Loss =
mean((u_xx + u_yy + f)^2) + mean(u(boundary)^2); one step computes the loss, its gradient w.r.t.
every parameter and the SGD update. Each variant in its own process (`benchmarks/driver.py`):

- frame-reverse: `frame.function` of the step; u_x and u_y from one `frame.grad` of sum(u) w.r.t.
  (x, y), then u_xx = d sum(u_x)/dx and u_yy = d sum(u_y)/dy, each `frame.grad` again (rows never
  interact, so the gradient of the sum is the pointwise derivative: `pinn.problems`' argument);
- frame-taylor: the same step with the Laplacian from `frame.frontend.taylor.laplacian` (the column
  is skipped, with the import error as its note, in a tree without it);
- jax: per point, the Hessian's diagonal by `jax.grad` of `jax.grad` per coordinate, `vmap`ped,
  `jax.value_and_grad`, `jax.jit`.

Every variant's loss and first-layer weight gradient are compared with jax's ("rel diff").

    .venv/bin/python benchmarks/poisson2d_step.py [--pairs 3] [--n 4096] [--json OUT]
    .venv/bin/python benchmarks/poisson2d_step.py --profile     # frame's step per op kind
"""
from __future__ import annotations

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402

from derivatives import frame_counts, jaxpr_counts, mlp, rel_diff  # noqa: E402
from driver import Worker, emit, run_pairs, time_calls  # noqa: E402

LAYERS = (2, 64, 64, 64, 64, 64, 1)
LR = 1e-3
N_BOUNDARY = 256
VARIANTS = ("frame-taylor", "frame-reverse", "jax")
TARGET = 0.7


def make_problem(n: int, seed: int = 0):
    """(params [(W, b), ...], x (n,1), y (n,1), f (n,1), boundary points (256, 2)), all float32."""
    rng = np.random.default_rng(seed)
    params = [((rng.standard_normal((a, b)) * np.sqrt(2.0 / (a + b))).astype(np.float32), np.zeros(b, np.float32))
              for a, b in zip(LAYERS[:-1], LAYERS[1:])]
    x, y = (rng.uniform(0.0, 1.0, (n, 1)).astype(np.float32) for _ in range(2))
    f = (2 * np.pi ** 2 * np.sin(np.pi * x) * np.sin(np.pi * y)).astype(np.float32)
    s = rng.uniform(0.0, 1.0, N_BOUNDARY // 4)
    zero, one = np.zeros_like(s), np.ones_like(s)
    boundary = np.concatenate([np.stack(p, 1) for p in ((s, zero), (s, one), (zero, s), (one, s))]).astype(np.float32)
    return params, x, y, f, boundary


# -- frame ----------------------------------------------------------------------------------------------
def frame_step(laplacian: str):
    """The Python step function; `laplacian` is "reverse" or "taylor"."""
    import frame
    import frame.numpy as fnp

    def u(p, x, y):
        return mlp(p, fnp.concatenate([x, y], axis=1), fnp)

    def lap_reverse(p, x, y):
        def first(x, y):
            return frame.grad(lambda x, y: fnp.sum(u(p, x, y)), argnums=(0, 1))(x, y)
        u_xx = frame.grad(lambda x, y: fnp.sum(first(x, y)[0]), argnums=0)(x, y)
        u_yy = frame.grad(lambda x, y: fnp.sum(first(x, y)[1]), argnums=1)(x, y)
        return u_xx + u_yy

    def lap_taylor(p, x, y):
        from frame.frontend.taylor import laplacian as taylor_laplacian

        return taylor_laplacian(lambda z: mlp(p, z, fnp))(fnp.concatenate([x, y], axis=1))[1]

    lap = {"reverse": lap_reverse, "taylor": lap_taylor}[laplacian]

    def loss(p, x, y, f, boundary):
        r = lap(p, x, y) + f
        return fnp.mean(r * r) + fnp.mean(fnp.square(mlp(p, boundary, fnp)))

    def step(p, x, y, f, boundary):
        value, grads = frame.value_and_grad(loss)(p, x, y, f, boundary)
        return value, grads, [(w - LR * gw, b - LR * gb) for (w, b), (gw, gb) in zip(p, grads)]

    return step


def frame_executable(laplacian: str, n: int):
    """(the compiled step, problem, first output, executable) with its native tier built."""
    import frame

    if laplacian == "taylor":
        import frame.frontend.taylor  # noqa: F401  (ImportError: the variant is skipped)
    problem = make_problem(n)
    step = frame.function(frame_step(laplacian))
    out = step(*problem)
    exe = step.compiled(*problem)
    for _ in range(4):
        step(*problem)
    exe.wait_native(timeout=600)
    return step, problem, out, exe


def frame_worker(laplacian: str, args):
    step, problem, out, exe = frame_executable(laplacian, args.n)
    stats = time_calls(lambda: step(*problem), warmup=args.warmup, repeats=args.repeats, min_seconds=args.min_seconds)
    return stats, frame_counts(step.trace(*problem), exe), out


def profile(n: int) -> None:
    """Per op kind, median ms of one call of frame's step (native tier), each variant."""
    import frame
    from pinn_step import profile_executable

    for laplacian in ("taylor", "reverse"):
        try:
            step, problem, _, exe = frame_executable(laplacian, n)
        except ImportError as e:
            print(f"frame-{laplacian}: not available ({e})")
            continue
        rows = profile_executable(exe, frame.tree_leaves(problem))
        counts = frame_counts(step.trace(*problem), exe)
        print(f"frame-{laplacian}: {sum(ms for _, ms, _ in rows):.3f} ms per step (timed per plan line), "
              f"{counts['flops'] / 1e6:.0f} MFLOP of GEMMs, tier {exe.tier}")
        for kind, ms, lines in rows:
            print(f"  {kind:<28} {ms:8.3f} ms {lines:5d} lines")


# -- jax ------------------------------------------------------------------------------------------------
def jax_worker(args):
    import jax
    import jax.numpy as jnp

    def u(p, z):  # one point z = (x, y), a vector through the layers: under vmap 1.5x faster than a (1, 2) matrix
        return mlp(p, z, jnp)[0]

    def lap(p, z):
        g = jax.grad(u, argnums=1)
        return sum(jax.grad(lambda z: g(p, z)[i])(z)[i] for i in range(2))

    def loss(p, x, y, f, boundary):
        z = jnp.concatenate([x, y], axis=1)
        r = jax.vmap(lap, in_axes=(None, 0))(p, z)[:, None] + f
        return jnp.mean(r * r) + jnp.mean(jnp.square(mlp(p, boundary, jnp)))

    @jax.jit
    def step(p, x, y, f, boundary):
        value, grads = jax.value_and_grad(loss)(p, x, y, f, boundary)
        return value, grads, jax.tree_util.tree_map(lambda a, g: a - LR * g, p, grads)

    problem = make_problem(args.n)
    out = jax.block_until_ready(step(*problem))
    stats = time_calls(lambda: jax.block_until_ready(step(*problem)), warmup=args.warmup, repeats=args.repeats,
                       min_seconds=args.min_seconds)
    eqns, flops = jaxpr_counts(jax.make_jaxpr(step)(*problem).jaxpr)
    return stats, {"ops": eqns, "flops": flops}, out


def worker(variant: str, args) -> None:
    try:
        if variant == "jax":
            stats, counts, (value, grads, _) = jax_worker(args)
        else:
            stats, counts, (value, grads, _) = frame_worker(variant.split("-")[1], args)
    except ImportError as e:
        emit({"case": f"N={args.n}", "skip": f"{variant}: {e}"})
        return
    check = [float(value)] + np.asarray(grads[0][0], dtype=np.float64).reshape(-1)[:16].tolist()
    emit({"case": f"N={args.n}", **stats, **counts, "dtype": "float32", "loss": float(value), "check": check})


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=4096, help="interior points (default 4096)")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--min-seconds", type=float, default=1.0)
    parser.add_argument("--json", default=None, metavar="OUT")
    parser.add_argument("--profile", action="store_true", help="profile frame's steps per op kind instead")
    parser.add_argument("--worker", choices=VARIANTS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.profile:
        profile(args.n)
        return
    if args.worker:
        worker(args.worker, args)
        return
    common = ["--n", str(args.n), "--warmup", str(args.warmup), "--repeats", str(args.repeats),
              "--min-seconds", str(args.min_seconds)]
    variants = [v for v in VARIANTS if v in args.variants]
    workers = [Worker(v, [sys.executable, os.path.abspath(__file__), "--worker", v, *common]) for v in variants]
    report = run_pairs(workers, args.pairs, baseline="jax" if "jax" in variants else None)
    ref = {r["pair"]: r["check"] for r in report.records if r["label"] == "jax" and "check" in r}
    for r in report.records:
        if "check" in r and r["pair"] in ref:
            r["rel diff"] = rel_diff(r["check"], ref[r["pair"]])
    print(report.machine)
    print(f"2-D Poisson PINN training step, tanh MLP {'-'.join(map(str, LAYERS))}, {args.n} interior + "
          f"{N_BOUNDARY} boundary points, float32, SGD")
    print(report.table(fields=["ops", "fused", "flops", "loss", "rel diff"]))
    if "jax" in variants:
        for row in report.rows():
            if row.label != "jax" and not row.skip:
                print(f"{row.label}: {row.ratio:.3f}x the jitted JAX step (target <= {TARGET}: "
                      f"{'met' if row.ratio <= TARGET else 'not met'})")
            elif row.skip:
                print(f"{row.label}: not measured ({row.skip})")
    if args.json:
        report.save(args.json)
        print(f"saved: {args.json}")


if __name__ == "__main__":
    main()
