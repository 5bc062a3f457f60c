"""A 1-D CNN surrogate for the heat equation: learn the map from an initial temperature field u0(x) on a
periodic grid to the solution u(x, T) of u_t = nu u_xx, with frame.nn.conv.

The data are exact: random band-limited fields u0 and their solutions computed spectrally
(each Fourier mode k decays by exp(-nu k^2 T)). The network is three periodic convolutions
(circular padding with frame.numpy.pad(mode='wrap'), then 'valid' convolutions) with tanh between,
trained with Adam through frame.train.Trainer (one compiled training graph, no recompiles). The
result: the relative L2 error on held-out fields, against the best trivial predictor (predicting
u0 itself, or zero).

    python -m examples.cnn_surrogate          # the full budget
"""
from __future__ import annotations

import numpy as np

import frame
import frame.numpy as fnp
from frame.train import Adam, Trainer

N = 64            # grid points on [0, 2 pi)
NU, T = 0.05, 1.0
KERNEL = 7


def heat_data(count: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(u0, u(T)) pairs, each (count, 1, N): u0 has random Fourier modes 1..12 with amplitudes ~ 1/k."""
    k = np.fft.rfftfreq(N, d=1.0 / N)                           # wavenumbers 0..N/2
    coeff = np.zeros((count, k.size), complex)
    modes = np.arange(1, 13)
    coeff[:, modes] = (rng.standard_normal((count, modes.size)) + 1j * rng.standard_normal((count, modes.size))) \
        / modes * N / 2
    u0 = np.fft.irfft(coeff, n=N)
    uT = np.fft.irfft(coeff * np.exp(-NU * k ** 2 * T), n=N)
    return u0[:, None, :], uT[:, None, :]


def init_params(rng: np.random.Generator, width: int = 12) -> dict:
    def conv_w(c_out, c_in):
        return rng.standard_normal((c_out, c_in, KERNEL)) / np.sqrt(c_in * KERNEL)
    return {"w1": conv_w(width, 1), "b1": np.zeros(width), "w2": conv_w(width, width), "b2": np.zeros(width),
            "w3": conv_w(1, width) * 0.1, "b3": np.zeros(1)}


def periodic_conv(x, w, b):
    """A 'same'-size convolution on the periodic grid: wrap-pad by half the kernel, then 'valid'."""
    half = KERNEL // 2
    return frame.nn.conv(fnp.pad(x, ((0, 0), (0, 0), (half, half)), mode="wrap"), w, b)


def model(params, u0):
    h = fnp.tanh(periodic_conv(u0, params["w1"], params["b1"]))
    h = fnp.tanh(periodic_conv(h, params["w2"], params["b2"]))
    return u0 + periodic_conv(h, params["w3"], params["b3"])   # learn the correction to the identity


def loss_fn(params, u0, uT):
    return fnp.mean((model(params, u0) - uT) ** 2)


def relative_error(pred, target) -> float:
    return float(np.linalg.norm(pred - target) / np.linalg.norm(target))


def main(steps: int = 600, seed: int = 0, lr: float = 1e-2, verbose: bool = True) -> dict:
    """Train for `steps` Adam steps; return the losses and the held-out errors of the CNN and the baselines."""
    rng = np.random.default_rng(seed)
    train_u0, train_uT = heat_data(128, rng)
    test_u0, test_uT = heat_data(64, rng)
    trainer = Trainer(loss_fn, init_params(rng), Adam(lr), progress=False)
    losses = trainer.run(steps, train_u0, train_uT)
    pred = frame.function(model)(trainer.params, test_u0)
    result = {"losses": losses, "test_error": relative_error(pred, test_uT),
              "identity_error": relative_error(test_u0, test_uT), "zero_error": 1.0}
    result["baseline_error"] = min(result["identity_error"], result["zero_error"])
    if verbose:
        print(f"loss {losses[0]:.3e} -> {losses[-1]:.3e}; held-out relative L2 error {result['test_error']:.4f} "
              f"(identity {result['identity_error']:.4f}, zero 1.0)")
    return result


if __name__ == "__main__":
    main()
