"""A small spiking network trained with surrogate gradients (frame.nn.heaviside_surrogate).

Task: classify 2-D points by which of two interleaved spiral arms they lie on (with noise), a
problem no linear readout of the raw inputs can solve. Each point is fed for T time steps as a constant input
current to a layer of leaky integrate-and-fire neurons, unrolled in Python over time:

    v_t = beta v_{t-1} + W x + b,   s_t = H(v_t - 1),   v_t <- v_t - s_t     (soft reset)

and a linear readout of each neuron's firing rate (its spike count / T) gives the class logits
(softmax cross-entropy). The unit step H has no useful derivative; heaviside_surrogate keeps the
step forward and uses the derivative of sigmoid(alpha (v - 1)) backward, so the gradient reaches W
through every time step. Trained with Adam through frame.train.Trainer.

    python -m examples.spiking
"""
from __future__ import annotations

import numpy as np

import frame
import frame.numpy as fnp
from frame.train import Adam, Trainer

T = 12          # time steps
BETA = 0.8      # membrane leak per step
HIDDEN = 32


def spirals(count: int, rng: np.random.Generator, noise: float = 0.08) -> tuple[np.ndarray, np.ndarray]:
    """Points on two spiral arms (a quarter to one and a quarter turns, radius up to 2), the second arm the
    first rotated by pi, plus Gaussian noise; labels one-hot."""
    label = rng.integers(0, 2, count)
    turn = rng.uniform(0.25, 1.0, count) * 2.5 * np.pi
    radius, angle = 2.0 * turn / (2.5 * np.pi), turn + np.pi * label
    x = np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=1) + noise * rng.standard_normal((count, 2))
    return x, np.eye(2)[label]


def init_params(rng: np.random.Generator) -> dict:
    return {"w_in": rng.standard_normal((2, HIDDEN)), "b_in": rng.uniform(0.0, 0.5, HIDDEN),
            "w_out": rng.standard_normal((HIDDEN, 2)) * 0.1, "b_out": np.zeros(2)}


def firing_rates(params, x):
    """The LIF layer unrolled over T steps: each neuron's spikes per step, (batch, HIDDEN)."""
    current = x @ params["w_in"] + params["b_in"]
    v = fnp.zeros_like(current)
    count = fnp.zeros_like(current)
    for _ in range(T):
        v = BETA * v + current
        spike = frame.nn.heaviside_surrogate(v - 1.0, alpha=4.0)
        v = v - spike
        count = count + spike
    return count / T


def logits(params, x):
    return firing_rates(params, x) @ params["w_out"] + params["b_out"]


def loss_fn(params, x, y):
    return -fnp.mean(fnp.sum(y * fnp.log_softmax(logits(params, x), axis=-1), axis=-1))


def accuracy(params, x, y) -> float:
    return float(np.mean(np.argmax(frame.function(logits)(params, x), axis=1) == np.argmax(y, axis=1)))


def main(steps: int = 400, seed: int = 0, lr: float = 3e-2, verbose: bool = True) -> dict:
    """Train for `steps` Adam steps; return the losses, the held-out accuracy, chance (0.5), the mean firing
    rate and how far the input weights moved (relative): they learn only through the surrogate derivative."""
    rng = np.random.default_rng(seed)
    train_x, train_y = spirals(256, rng)
    test_x, test_y = spirals(256, rng)
    params = init_params(rng)
    trainer = Trainer(loss_fn, params, Adam(lr), progress=False)
    losses = trainer.run(steps, train_x, train_y)
    w_in = trainer.params["w_in"]
    result = {"losses": losses, "test_accuracy": accuracy(trainer.params, test_x, test_y), "chance": 0.5,
              "spike_rate": float(np.mean(frame.function(firing_rates)(trainer.params, test_x))),
              "input_weight_change": float(np.linalg.norm(w_in - params["w_in"]) / np.linalg.norm(params["w_in"]))}
    if verbose:
        print(f"loss {losses[0]:.3f} -> {losses[-1]:.3f}; held-out accuracy {result['test_accuracy']:.3f} "
              f"(chance 0.5); mean firing rate {result['spike_rate']:.2f} spikes/step")
    return result


if __name__ == "__main__":
    main()
