"""Burgers PINN benchmark (Raissi et al.'s setting): relative L2 error and wall time, plus frame vs JAX per step.

    .venv/bin/python benchmarks/pinn_burgers.py                  # full run, writes out/pinn_burgers/*.png
    .venv/bin/python benchmarks/pinn_burgers.py --adam 200 --lbfgs 200 --collocation 2000   # quick look
    .venv/bin/python benchmarks/pinn_burgers.py --raissi        # pinn.BurgersRaissi: 0 Adam + 50 000 L-BFGS, float32

Trains the 8x20 tanh MLP on `u_t + u u_x = (0.01/pi) u_xx` with 10 000 collocation points, Adam then
L-BFGS, and prints the relative L2 error against the Cole–Hopf solution on Raissi's 256 x 100 grid
(target <= 5e-3; Raissi et al. report 6.7e-4) and the wall time. Unless `--no-jax`, it first times
one evaluation of the loss and its parameter gradient in frame and in `jax.jit` (the same loss
written independently in JAX, derivatives by nested `jax.grad` per point), median of repeats after
warm-up.

Measured on the shared 2-core machine (defaults, seed 0): relative L2 error 2.95e-3 after 1000 Adam
steps and 6000 L-BFGS iterations, 1056 s wall time (0.185 s per Adam step); one loss+gradient
evaluation 135 ms in frame vs 270 ms in jax.jit (float64, CPU). The remaining error sits on the
shock at x = 0. With `--lbfgs 15000` the error falls to 1.53e-4 (below Raissi et al.'s 6.7e-4),
2178 s wall time.

`--raissi` trains `pinn.BurgersRaissi` instead, their code's setting exactly (float32, 100 data
points, all 456 initial/boundary nodes among the collocation points, truncated-normal Xavier init,
no Adam, up to 50 000 L-BFGS iterations; `benchmarks/pinn_zoo.py --problems burgers_raissi` runs it
over seeds). The JAX per-step comparison needs `pinn.Burgers1D`'s data layout and is skipped then.
`--raissi --jax-lbfgs` then runs the same L-BFGS-B (scipy, the options `pinn.train` passes) from the
same initial parameters on the loss written in JAX, in the same dtype, and prints where each
stopped: in float32 (seeds 0-2, 2026-12-02) JAX stopped after 4681, 4385, 4176 iterations at
1.77e-3, 1.33e-3, 3.10e-3, frame after 4830, 5365, 5661 at 1.74e-3, 1.97e-3, 1.71e-3, both because
the float32 loss stopped changing (those runs had only the 100 data points among the collocation
points).
"""
from __future__ import annotations

import os

# Single-threaded BLAS. The matmuls here are thin (10 000 x 20 by 20 x 20): threading gains nothing,
# and on a shared 2-core machine waking OpenBLAS's worker threads for each of ~120 matmuls per
# step was measured to make a step ~10x slower (0.27 s vs 2.7 s). Must be set before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import frame  # noqa: E402
import pinn  # noqa: E402
from frame.train import LossGraph, as_param_leaves  # noqa: E402
from frame.ir.types import TensorType  # noqa: E402
from pinn.plots import save_plots  # noqa: E402

RAISSI_ERROR = 6.7e-4
TARGET_ERROR = 5e-3


def median_seconds(fn, repeats: int) -> float:
    fn()  # warm-up (compilation)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def jax_network(model):
    """`u_point(params, x, t)`: the model's tanh MLP at one point in JAX (inputs rescaled as the model does)."""
    import jax.numpy as jnp

    scale, shift = model._scale[0], model._shift[0]

    def u_point(params, x, t):
        h = jnp.stack([x, t]) * scale.astype(x.dtype) + shift.astype(x.dtype)
        for i, layer in enumerate(params):
            h = h @ layer["W"] + layer["b"]
            if i < len(params) - 1:
                h = jnp.tanh(h)
        return h[0]

    return u_point


def jax_loss_and_grad(problem, model):
    """The Burgers PINN loss and its parameter gradient in JAX, written independently of frame."""
    import jax
    import jax.numpy as jnp

    u_point = jax_network(model)
    u_x = jax.grad(u_point, argnums=1)
    u_t = jax.grad(u_point, argnums=2)
    u_xx = jax.grad(u_x, argnums=1)

    def loss(params, x_f, t_f, x_u, t_u, u_u):
        x_f, t_f, x_u, t_u = x_f[:, 0], t_f[:, 0], x_u[:, 0], t_u[:, 0]
        batched = lambda fn, x, t: jax.vmap(fn, in_axes=(None, 0, 0))(params, x, t)  # noqa: E731
        u = batched(u_point, x_f, t_f)
        residual = batched(u_t, x_f, t_f) + u * batched(u_x, x_f, t_f) - problem.nu * batched(u_xx, x_f, t_f)
        return jnp.mean(residual ** 2) + jnp.mean((batched(u_point, x_u, t_u) - u_u[:, 0]) ** 2)

    return jax.jit(jax.value_and_grad(loss))


def jax_raissi_lbfgs(problem, model, initial, data, maxiter: int, tol: float) -> dict:
    """`pinn.BurgersRaissi`'s loss written in JAX (per-point nested `jax.grad`, `vmap`, `jit`) in the
    model's dtype, minimised from `initial` (the parameters frame's run started from) by scipy's
    L-BFGS-B with the options `pinn.train` passes: the same data, start and optimiser as frame's
    run, another framework's arithmetic. Returns iterations, evaluations, final loss, relative L2
    error, scipy's message and seconds."""
    import jax
    import jax.numpy as jnp
    from scipy.optimize import minimize

    from frame.train.quasi_newton import lbfgs_b_options

    dtype = problem.dtype
    points, weights, data_points, values = data
    u_point = jax_network(model)
    d_x, d_t = jax.grad(u_point, argnums=1), jax.grad(u_point, argnums=2)
    d_xx = jax.grad(d_x, argnums=1)
    shapes = [(layer["W"].shape, layer["b"].shape) for layer in initial]

    def unflatten(v):
        params, i = [], 0
        for w_shape, b_shape in shapes:
            nw, nb = int(np.prod(w_shape)), int(np.prod(b_shape))
            params.append({"W": v[i:i + nw].reshape(w_shape), "b": v[i + nw:i + nw + nb]})
            i += nw + nb
        return params

    def loss(v):
        params = unflatten(v)
        at = lambda fn, xt: jax.vmap(fn, in_axes=(None, 0, 0))(params, xt[:, 0], xt[:, 1])  # noqa: E731
        residual = at(d_t, points) + at(u_point, points) * at(d_x, points) - problem.nu * at(d_xx, points)
        misfit = at(u_point, data_points) - values[:, 0]
        return weights[0] * jnp.mean(residual ** 2) + weights[1] * jnp.mean(misfit ** 2)

    with jax.enable_x64(dtype == "float64"):
        value_and_grad = jax.jit(jax.value_and_grad(loss))

        def evaluate(v):
            value, grad = value_and_grad(jnp.asarray(v, dtype))
            return float(value), np.asarray(grad, np.float64)

        x0 = np.concatenate([np.concatenate([p["W"].ravel(), p["b"].ravel()]) for p in initial]).astype(np.float64)
        start = time.perf_counter()
        result = minimize(evaluate, x0, jac=True, method="L-BFGS-B", tol=tol, options=lbfgs_b_options(maxiter))
        seconds = time.perf_counter() - start
    params = [{k: a.astype(dtype) for k, a in layer.items()} for layer in unflatten(result.x)]
    return {"nit": int(result.nit), "nfev": int(result.nfev), "loss": float(result.fun), "message": str(result.message),
            "error": problem.relative_l2_error(model.apply, params), "seconds": seconds}


def compare_step_time(problem, model, data, repeats: int) -> None:
    leaves, treedef = as_param_leaves(model.params)
    loss_graph = LossGraph(problem.loss(model.apply), treedef, [TensorType.of(a) for a in leaves])
    exe, arrays = loss_graph.compiled(data)
    frame_loss = exe(*leaves, *arrays)[0]
    frame_time = median_seconds(lambda: exe(*leaves, *arrays), repeats)
    print(f"frame: one loss + parameter-gradient evaluation {frame_time * 1e3:.1f} ms "
          f"(optimised graph: {len(exe.graph.nodes)} nodes)")
    try:
        import jax
    except ImportError:
        print("JAX is not installed: no comparison")
        return
    with jax.enable_x64(True):
        step = jax_loss_and_grad(problem, model)
        jax_loss = float(step(model.params, *data)[0])
        jax_time = median_seconds(lambda: jax.block_until_ready(step(model.params, *data)), repeats)
    print(f"jax.jit: {jax_time * 1e3:.1f} ms; frame / jax = {frame_time / jax_time:.1f}x "
          f"(losses agree to {abs(float(frame_loss) - jax_loss) / abs(jax_loss):.1e} relative)")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--collocation", type=int, default=10000)
    parser.add_argument("--hidden", type=int, default=8, help="number of hidden layers")
    parser.add_argument("--width", type=int, default=20)
    parser.add_argument("--adam", type=int, default=1000, help="Adam steps")
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--lbfgs", type=int, default=6000, help="L-BFGS iterations (maximum)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=10, help="timed repeats of one step for the JAX comparison")
    parser.add_argument("--no-jax", action="store_true", help="skip the per-step comparison with JAX")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument("--out", default="out/pinn_burgers")
    parser.add_argument("--raissi", action="store_true",
                        help="pinn.BurgersRaissi (their code's setting); defaults --adam 0 --lbfgs 50000")
    parser.add_argument("--jax-lbfgs", action="store_true",
                        help="with --raissi: also run the same L-BFGS-B on the loss written in JAX (same data, start "
                             "and options) and print where each stops")
    parser.add_argument("--dtype", choices=("float32", "float64"), default=None,
                        help="with --raissi: the problem's dtype (default its own, float32)")
    args = parser.parse_args(argv)
    if (args.jax_lbfgs or args.dtype) and not args.raissi:
        parser.error("--jax-lbfgs and --dtype go with --raissi")

    if args.raissi:
        defaults = parser.parse_args([])
        args.adam = 0 if args.adam == defaults.adam else args.adam
        args.lbfgs = 50000 if args.lbfgs == defaults.lbfgs else args.lbfgs
        args.no_jax = True
        if args.jax_lbfgs and args.adam:
            parser.error("--jax-lbfgs runs L-BFGS from the initial parameters: use it with --adam 0")
        problem = pinn.BurgersRaissi(n_collocation=args.collocation, dtype=args.dtype or "float32")
    else:
        problem = pinn.Burgers1D(n_collocation=args.collocation)
    model = problem.default_model(seed=args.seed, layers=[2] + [args.width] * args.hidden + [1])
    print(f"{problem!r}\n{model!r}\nAdam {args.adam} steps (lr {args.lr:g}), then up to {args.lbfgs} L-BFGS "
          f"iterations; OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}", flush=True)
    if not args.no_jax:
        compare_step_time(problem, model, problem.training_data(args.seed), args.repeats)

    initial = [{k: np.array(a) for k, a in layer.items()} for layer in model.params]
    start = time.perf_counter()
    result = pinn.train(problem, model, steps=args.adam, lr=args.lr, lbfgs_steps=args.lbfgs, seed=args.seed,
                        progress=not args.no_progress, eval_every=250)
    wall = time.perf_counter() - start
    paths = save_plots(result, args.out)
    print(result.summary())
    for step, error in result.errors:
        print(f"  after {step:6d} steps/iterations: relative L2 error {error:.3e}")
    met = "met" if result.relative_l2_error <= TARGET_ERROR else "MISSED"
    print(f"relative L2 error: {result.relative_l2_error:.3e} (target <= {TARGET_ERROR:g}: {met}; "
          f"Raissi et al.: {RAISSI_ERROR:g})")
    print(f"wall time: {wall:.1f} s (Adam {result.adam_seconds:.1f} s, {result.adam_seconds / max(args.adam, 1):.3f} "
          f"s/step; L-BFGS {result.lbfgs_seconds:.1f} s for {result.lbfgs_iterations} iterations)")
    for name, path in paths.items():
        print(f"{name} plot: {path}")
    if args.jax_lbfgs:
        twin = jax_raissi_lbfgs(problem, model, initial, problem.training_data(args.seed), args.lbfgs, 1e-15)
        print(f"{'':6s} {'iterations':>10s} {'evaluations':>11s} {'loss':>10s} {'rel. L2':>10s}  stop")
        print(f"{'frame':6s} {result.lbfgs_iterations:10d} {result.lbfgs_evaluations:11d} {result.history[-1]:10.3e} "
              f"{result.relative_l2_error:10.3e}  {result.lbfgs_message}")
        print(f"{'jax':6s} {twin['nit']:10d} {twin['nfev']:11d} {twin['loss']:10.3e} {twin['error']:10.3e}  "
              f"{twin['message']} ({twin['seconds']:.0f} s)")


if __name__ == "__main__":
    main()
