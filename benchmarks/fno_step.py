"""One FNO training step (forward, backward, Adam update) in frame vs jax.jit, same parameters and data.

Default workload (FNO paper, 1-D Burgers): batch 20, s = 1024, width 64, 16 modes, 4 Fourier layers,
float32, relative-L2 loss. frame runs its `Trainer` step (training graph + Adam update graph); JAX runs
an idiomatic FNO (complex einsum on jnp.fft spectra) with the same Adam formulas, all under one jax.jit.
Prints median step times over repeated steps after warm-up and the frame/JAX ratio.

    .venv/bin/python benchmarks/fno_step.py [--steps 20] [--s 1024] [--blas-threads 1]

BLAS threads: on a shared 2-core machine, multi-threaded OpenBLAS stalls on every small batched
matmul when the other core is busy, so the default pins OpenBLAS to one thread (set before numpy
loads; `--blas-threads 0` keeps the library default). The setting is printed with the results.
"""
from __future__ import annotations

import argparse
import os
import sys


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batch", type=int, default=20)
    p.add_argument("--s", type=int, default=1024, help="grid points")
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--modes", type=int, default=16)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--steps", type=int, default=20, help="timed steps (after warm-up)")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--blas-threads", type=int, default=1, help="OPENBLAS_NUM_THREADS (0: library default)")
    return p.parse_args()


ARGS = parse_args() if __name__ == "__main__" else None
if ARGS is not None and ARGS.blas_threads > 0:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", str(ARGS.blas_threads))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import time  # noqa: E402

import numpy as np  # noqa: E402

import frame.runtime  # noqa: E402
from frame.train import Adam, Trainer  # noqa: E402
from pino import FNO1d, relative_l2_loss  # noqa: E402


def jax_fno_step(model: FNO1d, lr: float, b1=0.9, b2=0.999, eps=1e-8):
    """A jitted JAX training step for the same architecture and parameter pytree as `model`."""
    import jax
    import jax.numpy as jnp

    def pointwise(p, h):
        return jnp.einsum("oi,bin->bon", p["w"], h) + p["b"][:, None]

    def spectral(weight, h):
        w = weight[..., 0] + 1j * weight[..., 1]
        spec = jnp.fft.rfft(h, axis=-1)
        out = jnp.einsum("bik,iok->bok", spec[..., :model.modes], w)
        out = jnp.pad(out, ((0, 0), (0, 0), (0, spec.shape[-1] - model.modes)))
        return jnp.fft.irfft(out, n=h.shape[-1], axis=-1)

    def apply(params, x):
        batch, _, n = x.shape
        coord = jnp.broadcast_to((jnp.arange(n, dtype=x.dtype) / n)[None, None, :], (batch, 1, n))
        h = pointwise(params["lift"], jnp.concatenate([x, coord], axis=1))
        for i, layer in enumerate(params["fourier"]):
            h = spectral(layer["spectral"]["weight"], h) + pointwise(layer["bypass"], h)
            if i < len(params["fourier"]) - 1:
                h = jax.nn.gelu(h, approximate=True)
        h = jax.nn.gelu(pointwise(params["project"], h), approximate=True)
        return pointwise(params["output"], h)

    def loss_fn(params, x, y):
        diff = apply(params, x) - y
        return jnp.mean(jnp.sqrt(jnp.sum(diff * diff, axis=(1, 2)) / jnp.sum(y * y, axis=(1, 2))))

    @jax.jit
    def step(params, m, v, t, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        t = t + 1
        m = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, m, grads)
        v = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, v, grads)
        scale = lr * jnp.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        params = jax.tree_util.tree_map(lambda p, m, v: p - scale * m / (jnp.sqrt(v) + eps), params, m, v)
        return params, m, v, t, loss

    return step


def median_time(fn, steps: int, warmup: int) -> float:
    for _ in range(warmup):
        fn()
    # frame builds native kernels for hot executables in the background; like jax.jit's compile,
    # that happens before timing.
    frame.runtime.wait_native_builds()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main(args) -> None:
    import jax
    import jax.numpy as jnp

    model = FNO1d(modes=args.modes, width=args.width, layers=args.layers)
    params = model.init(seed=0, dtype="float32")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((args.batch, 1, args.s)).astype(np.float32)
    y = (0.5 * x + 0.1 * np.roll(x, 3, axis=-1)).astype(np.float32)

    def loss_fn(p, a, u):
        return relative_l2_loss(model.apply(p, a), u)

    trainer = Trainer(loss_fn, params, Adam(1e-3), progress=False)
    start = time.perf_counter()
    first_loss = trainer.step(x, y)
    frame_first = time.perf_counter() - start
    frame_time = median_time(lambda: trainer.step(x, y), args.steps, args.warmup)

    step = jax_fno_step(model, 1e-3)
    state = [jax.tree_util.tree_map(jnp.asarray, params)]
    zeros = jax.tree_util.tree_map(jnp.zeros_like, state[0])
    state += [zeros, zeros, jnp.zeros((), jnp.float32)]
    xj, yj = jnp.asarray(x), jnp.asarray(y)

    def jax_step():
        *new_state, loss = step(*state, xj, yj)
        state[:] = new_state
        return loss.block_until_ready()

    start = time.perf_counter()
    jax_first_loss = float(jax_step())
    jax_first = time.perf_counter() - start
    jax_time = median_time(jax_step, args.steps, args.warmup)

    print(f"FNO training step: batch {args.batch}, s = {args.s}, width {args.width}, {args.modes} modes, "
          f"{args.layers} layers, float32, Adam; {model.num_parameters()} parameters")
    print(f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'default')}, "
          f"{os.cpu_count()} CPUs, jax {jax.__version__} on {jax.devices()[0].platform}")
    print(f"first-step loss: frame {first_loss:.6f}, jax {jax_first_loss:.6f} (same params and data)")
    print()
    print(f"{'implementation':<16} {'first step (s)':>15} {'median step (ms)':>17} {'ratio vs jax.jit':>17}")
    print(f"{'frame':<16} {frame_first:>15.2f} {frame_time * 1e3:>17.1f} {frame_time / jax_time:>16.2f}x")
    print(f"{'jax.jit':<16} {jax_first:>15.2f} {jax_time * 1e3:>17.1f} {1.0:>16.2f}x")


if __name__ == "__main__":
    main(ARGS)
