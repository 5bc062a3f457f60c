"""The seed's M18 acceptance (ARCH-065): an MLP regression trained through the compiled path.

Each step runs the training graph (from `build_backward_graph`), then the separate SGD update
graph, then rotates the parameter arrays on the host; both graphs keep their shapes, so no step
after the first compiles anything.
"""
import numpy as np

import frame
import frame.numpy as fnp
from frame.compiler import build_backward_graph
from frame.train import SGD, Trainer, build_sgd_update_graph

# M18 setting: seed 20260713, tanh MLP 1->32->1 in float32 fitting sin(pi x) on 64 points of
# [-1, 1], SGD lr 0.1, 500 steps. Measured: loss 0.25778 at step 1 -> 0.0041286 at step 500,
# strictly decreasing at every step. The threshold leaves ~20% headroom over the end loss.
SEED, STEPS, LR, THRESHOLD = 20260713, 500, 0.1, 5e-3


def _problem():
    rng = np.random.default_rng(SEED)
    x = np.linspace(-1, 1, 64, dtype=np.float32).reshape(-1, 1)
    y = np.sin(np.pi * x).astype(np.float32)
    params = [rng.normal(size=(1, 32)), np.zeros(32), rng.normal(size=(32, 1)) / np.sqrt(32), np.zeros(1)]
    return [p.astype(np.float32) for p in params], x, y


def mlp_loss(params, x, y):
    w1, b1, w2, b2 = params
    return fnp.mean((fnp.tanh(x @ w1 + b1) @ w2 + b2 - y) ** 2)


def test_m18_mlp_regression_with_explicit_two_graph_loop():
    params, x, y = _problem()
    forward = frame.trace(mlp_loss, params, x, y)
    training = build_backward_graph(forward, 0, [0, 1, 2, 3])     # [loss, grad w1, grad b1, grad w2, grad b2]
    update = build_sgd_update_graph([v.type for v in forward.inputs[:4]], LR)
    train_exe, update_exe = frame.runtime.compile(training), frame.runtime.compile(update)
    misses = frame.runtime.cache_info().misses
    losses = []
    for _ in range(STEPS):
        loss, *grads = train_exe(*params, x, y)          # 1. run the training graph
        params = update_exe(*params, *grads)             # 2. run the update graph, 3. rotate on the host
        losses.append(float(loss))
    assert frame.runtime.cache_info().misses == misses
    assert all(b < a for a, b in zip(losses, losses[1:])), "loss must decrease at every step"
    assert losses[-1] < THRESHOLD
    np.testing.assert_allclose(losses[0], 0.25778, rtol=1e-4)

    # The Trainer is that same loop: its trajectory is bit-for-bit the hand-written one.
    start, _, _ = _problem()
    trainer = Trainer(mlp_loss, start, SGD(LR), progress=False)
    assert trainer.run(STEPS, x, y) == losses
    for a, b in zip(trainer.params, params):
        np.testing.assert_array_equal(a, b)


def test_zero_recompiles_after_the_first_step():
    params, x, y = _problem()
    trainer = Trainer(mlp_loss, params, SGD(LR), progress=False)
    trainer.step(x, y)
    misses = frame.runtime.cache_info().misses
    rng = np.random.default_rng(0)
    for _ in range(100):
        # A new batch of the same shape is new data for the same graph, never a new graph.
        xb = rng.uniform(-1, 1, size=x.shape).astype(np.float32)
        trainer.step(xb, np.sin(np.pi * xb))
    assert frame.runtime.cache_info().misses == misses
    assert trainer.step_count == 101


def test_training_graph_verifies_and_goes_through_the_pipeline():
    # ARCH-066: backward nodes are ordinary nodes; the training graph verifies and its optimised
    # execution agrees with the unoptimised one.
    from frame.compiler.pipeline import UNOPTIMIZED
    from frame.ir.verify import verify

    params, x, y = _problem()
    training = build_backward_graph(frame.trace(mlp_loss, params, x, y), 0, [0, 1, 2, 3])
    verify(training)
    optimised = frame.runtime.compile(training)(*params, x, y)
    plain = frame.runtime.compile(training, UNOPTIMIZED)(*params, x, y)
    for a, b in zip(optimised, plain):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)  # float32: operation order may differ
