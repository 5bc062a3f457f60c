"""Small versions of the reference workloads, shared by tests (benchmarks/ keeps its own full-size ones,
so the tests never depend on benchmark scripts)."""
import numpy as np

import frame
import frame.numpy as fnp


def mlp(params, x):
    """tanh MLP: params is [(W, b), ...]."""
    for w, b in params[:-1]:
        x = fnp.tanh(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def flat_mlp_params(seed=0, width=12):
    """[W1 (1, width), b1, W2 (width, 1), b2] of a one-hidden-layer tanh MLP on one input (`flat_mlp`)."""
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((1, width)) * 0.7, rng.standard_normal(width) * 0.1,
            rng.standard_normal((width, 1)) * 0.7, np.zeros(1)]


def flat_mlp(p, x):
    return fnp.matmul(fnp.tanh(fnp.matmul(x, p[0]) + p[1]), p[2]) + p[3]


def pinn_step_fn(lr: float):
    """The reference PINN training step (SPEC §12): u_xx by frame.grad applied twice, residual and
    boundary loss, parameter gradients and an SGD update; returns (loss, new params)."""
    u_x = frame.grad(lambda p, x: fnp.sum(mlp(p, x)), argnums=1)
    u_xx = frame.grad(lambda p, x: fnp.sum(u_x(p, x)), argnums=1)

    def loss(params, x, xb, f):
        r = u_xx(params, x) - f
        return fnp.mean(r * r) + fnp.mean(fnp.square(mlp(params, xb)))

    def step(params, x, xb, f):
        value, grads = frame.value_and_grad(loss)(params, x, xb, f)
        return value, [(w - lr * gw, b - lr * gb) for (w, b), (gw, gb) in zip(params, grads)]

    return step


def pinn_problem(rng, layers, n: int, bias_scale: float = 0.0):
    """float32 (params, x (n,1) in [0,1], boundary points (2,1), f = -pi^2 sin(pi x))."""
    params = [((rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32),
               rng.uniform(-bias_scale, bias_scale, b).astype(np.float32)) for a, b in zip(layers[:-1], layers[1:])]
    x = rng.uniform(0.0, 1.0, (n, 1)).astype(np.float32)
    xb = np.array([[0.0], [1.0]], np.float32)
    f = (-np.pi ** 2 * np.sin(np.pi * x)).astype(np.float32)
    return params, x, xb, f
