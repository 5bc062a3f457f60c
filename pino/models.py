"""Fourier neural operator models over `frame.numpy`: `SpectralConv1d` and `FNO1d` (Li et al., 2021).

Models are plain descriptions: `init(seed)` returns a parameter pytree (nested dicts/lists of numpy
arrays) and `apply(params, x)` is a pure function of it, so `frame.grad`, `frame.function` and
`frame.train.Trainer` can trace it. Inputs are fields of shape `[batch, channels, n]` on a periodic
grid.

Complex spectral weights are stored as packed real pairs: `weight[i, o, k] = (re, im)`. The complex
contraction over input channels is one real batched matmul per mode, `[Xr; Xi] @ [Wr | Wi]` (the
real and imaginary rows of the batch stacked, against the weight's two parts side by side, which
is the weight array transposed: no block matrix is assembled), giving the four real products
`Xr Wr, Xr Wi, Xi Wr, Xi Wi`; a constant 4x2 matmul recombines them into
`Yr = Xr Wr - Xi Wi, Yi = Xr Wi + Xi Wr`. (The block matrix `[[Wr, Wi], [-Wi, Wr]]` used before took
two slices, a negation and three concatenations per layer, and as many gradient ops: 5-9 ms of a
~110 ms FNO1d step in an in-process A/B, with twice the multiply-adds.)

Only the lowest `modes` bins of the spectrum are used, so by default (`transform="auto"`) the
spectral convolution computes them with a truncated real DFT, one GEMM against constant cos/sin
bases (`pino.spectral.truncated_rfft`/`truncated_irfft`), instead of a full rfft/irfft: the same
map to rounding, at a fraction of the cost when modes << n (issue 16: the FNO1d step at s = 1024,
16 modes spent ~108 of ~232 ms in full FFTs). `transform="fft"` keeps the FFT path.
"""
from __future__ import annotations

import math

import numpy as np

import frame.numpy as fnp
from frame.errors import ShapeError

from .spectral import grid, truncated_irfft, truncated_rfft

TRANSFORMS = ("auto", "dft", "fft")
# "auto" uses the truncated DFT up to this many modes. Measured (float32, 1280 signals, one BLAS
# thread, numpy 2.4): the GEMM took 0.05-0.13x numpy's rfft at 8-32 modes and <= 0.56x at 128 modes
# for n = 256..4096; the FFT is the faster one above modes ~ n/4 (n = 1024: ~230 modes).
DFT_MAX_MODES = 128
# ... and while one basis holds at most this many entries (n * modes; 2**21: 16 MiB a basis in float64).
DFT_MAX_ENTRIES = 1 << 21
# The four real products [Xr Wr, Xr Wi, Xi Wr, Xi Wi] (last axis) -> [Yr, Yi] of the complex product.
_RECOMBINE = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [-1.0, 0.0]])


def _rng(seed) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _check_positive(owner: str, **values) -> None:
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{owner}: {name} must be a positive int, got {value!r}")


def _check_input(owner: str, x, channels: int, min_bins: int = 1) -> None:
    shape = tuple(x.shape)
    if len(shape) != 3 or shape[1] != channels:
        raise ShapeError(f"{owner}: input must have shape [batch, {channels}, n], got {shape}")
    if shape[2] // 2 + 1 < min_bins:
        raise ShapeError(f"{owner}: a grid of n={shape[2]} has {shape[2] // 2 + 1} Fourier bins, fewer than the "
                         f"{min_bins} modes kept; use n >= {2 * (min_bins - 1)}")


def init_pointwise(rng: np.random.Generator, in_channels: int, out_channels: int, dtype) -> dict:
    """A 1x1 convolution (channel mixing per grid point), PyTorch's default uniform(+-1/sqrt(fan_in)) init."""
    bound = 1.0 / math.sqrt(in_channels)
    return {"w": rng.uniform(-bound, bound, (out_channels, in_channels)).astype(dtype),
            "b": rng.uniform(-bound, bound, (out_channels,)).astype(dtype)}


def apply_pointwise(params: dict, x):
    """`w @ x + b` over the channel axis of `x: [batch, in, n]` -> `[batch, out, n]`."""
    return fnp.matmul(params["w"], x) + fnp.reshape(params["b"], (-1, 1))


class SpectralConv1d:
    """Spectral convolution: rfft, multiply the lowest `modes` bins by learned complex matrices, irfft.

    Parameters `{"weight": [in_channels, out_channels, modes, 2]}` (packed complex). Bins above
    `modes` are set to zero, so the layer is a convolution with a band-limited periodic kernel.
    `transform`: how the kept bins are computed; "dft" (a truncated real DFT as one GEMM each way),
    "fft" (numpy's full rfft/irfft, then the kept bins), or "auto" (the default: "dft" while
    `modes <= DFT_MAX_MODES` and `n * modes <= DFT_MAX_ENTRIES`, else "fft"). All three compute the
    same function to rounding (tests/pino/test_truncated_dft.py).
    """

    def __init__(self, in_channels: int, out_channels: int, modes: int, transform: str = "auto"):
        _check_positive("SpectralConv1d", in_channels=in_channels, out_channels=out_channels, modes=modes)
        if transform not in TRANSFORMS:
            raise ValueError(f"SpectralConv1d: transform must be one of {', '.join(TRANSFORMS)}, got {transform!r}")
        self.in_channels, self.out_channels, self.modes = int(in_channels), int(out_channels), int(modes)
        self.transform = transform

    def __repr__(self):
        extra = "" if self.transform == "auto" else f", transform={self.transform!r}"
        return f"SpectralConv1d({self.in_channels}, {self.out_channels}, modes={self.modes}{extra})"

    def init(self, seed=0, dtype="float32") -> dict:
        """Weights uniform in [0, 1/(in*out)) for both parts, as in the FNO reference code."""
        rng = _rng(seed)
        scale = 1.0 / (self.in_channels * self.out_channels)
        shape = (self.in_channels, self.out_channels, self.modes, 2)
        return {"weight": (scale * rng.random(shape)).astype(dtype)}

    def uses_dft(self, n: int) -> bool:
        """Whether a length-n input goes through the truncated DFT (else the full FFT)."""
        if self.transform != "auto":
            return self.transform == "dft"
        return self.modes <= DFT_MAX_MODES and n * self.modes <= DFT_MAX_ENTRIES

    def apply(self, params: dict, x):
        """`x: [batch, in_channels, n]` -> `[batch, out_channels, n]`; needs n//2 + 1 >= modes."""
        _check_input(repr(self), x, self.in_channels, self.modes)
        batch, c_in, n = x.shape
        c_out, modes = self.out_channels, self.modes
        dtype = np.dtype(x.dtype)
        weight = fnp.reshape(fnp.transpose(params["weight"], (2, 0, 3, 1)), (modes, c_in, 2 * c_out))  # [Wr | Wi]

        dft = self.uses_dft(n)
        if dft:
            spectrum = truncated_rfft(x, modes)                                 # [batch, in, modes, 2]
        else:
            spectrum = fnp.fft.rfft_packed(x)[:, :, :modes, :]
        stacked = fnp.reshape(fnp.transpose(spectrum, (2, 3, 0, 1)), (modes, 2 * batch, c_in))   # [Xr; Xi]
        products = fnp.matmul(stacked, weight)             # [modes, (re/im of X, batch), (re/im of W, out)]
        products = fnp.transpose(fnp.reshape(products, (modes, 2, batch, 2, c_out)), (2, 4, 0, 1, 3))
        mixed = fnp.matmul(fnp.reshape(products, (batch * c_out * modes, 4)), _RECOMBINE.astype(dtype))
        mixed = fnp.reshape(mixed, (batch, c_out, modes, 2))                         # [batch, out, modes, 2]
        if dft:
            return truncated_irfft(mixed, n)
        bins = n // 2 + 1
        if bins > modes:
            zeros = np.zeros((batch, c_out, bins - modes, 2), dtype=dtype)
            mixed = fnp.concatenate([mixed, zeros], axis=2)
        return fnp.fft.irfft_packed(mixed, n)


class FNO1d:
    """The 1-D Fourier neural operator of Li et al. (2021).

    The grid coordinate `x/length` in [0, 1) is appended as an extra input channel; a pointwise
    lifting to `width` channels; `layers` Fourier layers `h <- act(K h + W h + b)` (spectral
    convolution plus pointwise linear bypass; no activation after the last one, as in the
    reference code); a pointwise projection to `projection` channels, gelu, and to `out_channels`.
    `transform` is the spectral convolutions' (see `SpectralConv1d`; "auto" by default).
    """

    def __init__(self, modes: int = 16, width: int = 64, layers: int = 4, in_channels: int = 1,
                 out_channels: int = 1, projection: int = 128, transform: str = "auto"):
        _check_positive("FNO1d", modes=modes, width=width, layers=layers, in_channels=in_channels,
                        out_channels=out_channels, projection=projection)
        self.modes, self.width, self.layers = int(modes), int(width), int(layers)
        self.in_channels, self.out_channels, self.projection = int(in_channels), int(out_channels), int(projection)
        self.spectral = SpectralConv1d(self.width, self.width, self.modes, transform)
        self.transform = transform

    def __repr__(self):
        extra = "" if self.transform == "auto" else f", transform={self.transform!r}"
        return (f"FNO1d(modes={self.modes}, width={self.width}, layers={self.layers}, "
                f"in_channels={self.in_channels}, out_channels={self.out_channels}, projection={self.projection}{extra})")

    def init(self, seed=0, dtype="float32") -> dict:
        """Parameter pytree `{"lift", "fourier": [{"spectral", "bypass"}...], "project", "output"}`."""
        rng = _rng(seed)
        return {
            "lift": init_pointwise(rng, self.in_channels + 1, self.width, dtype),
            "fourier": [{"spectral": self.spectral.init(rng, dtype),
                         "bypass": init_pointwise(rng, self.width, self.width, dtype)}
                        for _ in range(self.layers)],
            "project": init_pointwise(rng, self.width, self.projection, dtype),
            "output": init_pointwise(rng, self.projection, self.out_channels, dtype),
        }

    def apply(self, params: dict, x):
        """`x: [batch, in_channels, n]` -> `[batch, out_channels, n]`."""
        _check_input(repr(self), x, self.in_channels, self.modes)
        batch, _, n = x.shape
        coordinate = (grid(n, 1.0).reshape(1, 1, n)).astype(np.dtype(x.dtype))
        h = fnp.concatenate([x, np.broadcast_to(coordinate, (batch, 1, n))], axis=1)
        h = apply_pointwise(params["lift"], h)
        for i, layer in enumerate(params["fourier"]):
            h = self.spectral.apply(layer["spectral"], h) + apply_pointwise(layer["bypass"], h)
            if i < len(params["fourier"]) - 1:
                h = fnp.gelu(h)
        h = fnp.gelu(apply_pointwise(params["project"], h))
        return apply_pointwise(params["output"], h)

    def num_parameters(self) -> int:
        """Number of real scalars in the parameters (a complex weight counts as two)."""
        w, m = self.width, self.modes
        return ((self.in_channels + 1) * w + w + self.layers * (w * w * m * 2 + w * w + w)
                + w * self.projection + self.projection + self.projection * self.out_channels + self.out_channels)
