"""Fourier neural operator models over `frame.numpy`: `SpectralConv1d` and `FNO1d` (Li et al., 2021), and
`SpectralConv`/`FNO`/`FNO2d`/`FNO3d` with neuraloperator's layer structure on n-d grids (issue 19).

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

import itertools
import math

import numpy as np

import frame.numpy as fnp
from frame.errors import ShapeError

from .spectral import grid, separable_irfftn, separable_rfftn, truncated_irfft, truncated_rfft

TRANSFORMS = ("auto", "dft", "fft")
# FNO1d's layer structures: the FNO paper's reference code (the default, as before issue 19) or neuraloperator's.
STRUCTURES = ("reference", "neuralop")
# "auto" uses the truncated DFT up to this many modes. Measured (float32, 1280 signals, one BLAS
# thread, numpy 2.4): the GEMM took 0.05-0.13x numpy's rfft at 8-32 modes and <= 0.56x at 128 modes
# for n = 256..4096; the FFT is the faster one above modes ~ n/4 (n = 1024: ~230 modes).
DFT_MAX_MODES = 128
# ... and while one basis holds at most this many entries (n * modes; 2**21: 16 MiB a basis in float64).
DFT_MAX_ENTRIES = 1 << 21
# The four real products [Xr Wr, Xr Wi, Xi Wr, Xi Wi] (last axis) -> [Yr, Yi] of the complex product.
_RECOMBINE = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [-1.0, 0.0]])


#: the FNO's activation: frame.numpy's gelu (the tanh form). Its gradient rule keeps only x and tanh(...)
#: for the backward (frame/ops/nn.py), which matters here: the FNO2d step at 85^2 is memory-bound.
gelu = fnp.gelu


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
    reference code); a pointwise projection to `projection` channels (default 128), gelu, and to
    `out_channels`. `transform` is the spectral convolutions' (see `SpectralConv1d`; "auto" by default).

    `structure="neuralop"` gives neuraloperator's layer structure on one axis instead (the 1-D
    `FNO`: channel-MLP lifting, channel MLP and soft-gating skip in every block, ...), with `modes`
    counted as neuralop's `n_modes` (`modes // 2 + 1` rfft bins kept), `projection` (when given)
    its projection channels, and `FNO`'s keywords (`domain_padding`, `use_channel_mlp`, ...).
    The default "reference" structure is the one the 1-D benchmarks and tests were built on.
    """

    def __init__(self, modes: int = 16, width: int = 64, layers: int = 4, in_channels: int = 1,
                 out_channels: int = 1, projection: int | None = None, transform: str = "auto", *,
                 structure: str = "reference", **options):
        if structure not in STRUCTURES:
            raise ValueError(f"FNO1d: structure must be one of {', '.join(STRUCTURES)}, got {structure!r}")
        self.structure = structure
        if structure == "neuralop":
            # neuraloperator's FNO on one axis: `modes` is its n_modes (modes//2 + 1 rfft bins kept) and
            # `projection`, when given, its projection channels (default projection_channel_ratio * width).
            if projection is not None:
                options["projection_channels"] = projection
            self._nd = FNO((modes,), width, layers, in_channels, out_channels, transform=transform, **options)
            self.modes, self.width, self.layers = self._nd.n_modes[0], self._nd.width, self._nd.layers
            self.in_channels, self.out_channels = self._nd.in_channels, self._nd.out_channels
            self.projection, self.transform = self._nd.projection_channels, transform
            return
        if options:
            raise ValueError(f"FNO1d: {', '.join(sorted(options))} configure structure='neuralop' only")
        projection = 128 if projection is None else projection
        _check_positive("FNO1d", modes=modes, width=width, layers=layers, in_channels=in_channels,
                        out_channels=out_channels, projection=projection)
        self.modes, self.width, self.layers = int(modes), int(width), int(layers)
        self.in_channels, self.out_channels, self.projection = int(in_channels), int(out_channels), int(projection)
        self.spectral = SpectralConv1d(self.width, self.width, self.modes, transform)
        self.transform = transform

    def __repr__(self):
        if self.structure == "neuralop":
            return repr(self._nd).replace("FNO(", "FNO1d(structure='neuralop', ", 1)
        extra = "" if self.transform == "auto" else f", transform={self.transform!r}"
        return (f"FNO1d(modes={self.modes}, width={self.width}, layers={self.layers}, "
                f"in_channels={self.in_channels}, out_channels={self.out_channels}, "
                f"projection={self.projection}{extra})")

    def init(self, seed=0, dtype="float32") -> dict:
        """Parameter pytree `{"lift", "fourier": [{"spectral", "bypass"}...], "project", "output"}`
        (structure "neuralop": `FNO.init`'s)."""
        if self.structure == "neuralop":
            return self._nd.init(seed, dtype)
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
        if self.structure == "neuralop":
            return self._nd.apply(params, x)
        _check_input(repr(self), x, self.in_channels, self.modes)
        batch, _, n = x.shape
        coordinate = (grid(n, 1.0).reshape(1, 1, n)).astype(np.dtype(x.dtype))
        h = fnp.concatenate([x, np.broadcast_to(coordinate, (batch, 1, n))], axis=1)
        h = apply_pointwise(params["lift"], h)
        for i, layer in enumerate(params["fourier"]):
            h = self.spectral.apply(layer["spectral"], h) + apply_pointwise(layer["bypass"], h)
            if i < len(params["fourier"]) - 1:
                h = gelu(h)
        h = gelu(apply_pointwise(params["project"], h))
        return apply_pointwise(params["output"], h)

    def num_parameters(self) -> int:
        """Number of real scalars in the parameters (a complex weight counts as two)."""
        if self.structure == "neuralop":
            return self._nd.num_parameters()
        w, m = self.width, self.modes
        return ((self.in_channels + 1) * w + w + self.layers * (w * w * m * 2 + w * w + w)
                + w * self.projection + self.projection + self.projection * self.out_channels + self.out_channels)


# -- n-dimensional FNO with neuraloperator's layer structure --------------------------------------
SKIPS = ("linear", "soft-gating", "identity", None)
PADDING_MODES = ("one-sided", "symmetric")


def _modes_tuple(owner: str, n_modes, dims: int | None) -> tuple[int, ...]:
    if isinstance(n_modes, (int, np.integer)) and not isinstance(n_modes, bool):
        if dims is None:
            raise ValueError(f"{owner}: n_modes must be a tuple (one count per axis), got {n_modes!r}")
        n_modes = (n_modes,) * dims
    n_modes = tuple(n_modes)
    if dims is not None and len(n_modes) != dims:
        raise ValueError(f"{owner}: n_modes needs {dims} counts (one per axis), got {n_modes!r}")
    if not n_modes:
        raise ValueError(f"{owner}: n_modes is empty")
    for m in n_modes:
        _check_positive(owner, n_modes=m)
    return tuple(int(m) for m in n_modes)


def init_channel_mlp(rng, sizes, dtype, bias: bool = True) -> list[dict]:
    """Pointwise layers `sizes[0] -> sizes[1] -> ...` (neuralop's ChannelMLP: Conv1d k=1, PyTorch's init)."""
    layers = []
    for c_in, c_out in zip(sizes[:-1], sizes[1:]):
        layer = init_pointwise(rng, c_in, c_out, dtype)
        if not bias:
            del layer["b"]
        layers.append(layer)
    return layers


def _pointwise_nd(params: dict, h):
    """`w @ h (+ b)` over the channel axis of `h: [batch, in, N]` (spatial axes flattened)."""
    out = fnp.matmul(params["w"], h)
    return out + fnp.reshape(params["b"], (-1, 1)) if "b" in params else out


def apply_channel_mlp(layers: list[dict], h):
    """neuralop's ChannelMLP on `h: [batch, channels, N]`: gelu between the layers, none after the last."""
    for i, layer in enumerate(layers):
        h = _pointwise_nd(layer, h)
        if i < len(layers) - 1:
            h = gelu(h)
    return h


class SpectralConv:
    """neuraloperator's `SpectralConv` (dense weights) over the last `len(n_modes)` axes of `[batch, in, *grid]`.

    `n_modes` counts as neuralop's do: on every axis but the last, `n_modes[a]` signed frequencies
    around zero (`pino.spectral.kept_frequencies`: 12 keep -6..5); on the last axis, whose real
    spectrum is half redundant, the lowest `n_modes[-1] // 2 + 1` rfft bins. Parameters
    `{"weight": [in, out, m_1, ..., m_{d-1}, n_modes[-1]//2 + 1, 2]` (packed complex, neuralop's
    layout: the non-last mode axes in increasing frequency), `"bias": [out]}`.

    The map is `irfftn(mix(rfftn(x)[kept block]), s=grid) + bias` (neuralop normalises with
    "forward" and numpy "backward": the composed linear map is the same). The kept block is computed
    by one GEMM or batched left-multiplication per axis against constant bases, never transposing a
    grid-sized array (`pino.spectral.separable_rfftn`: the last axis's truncated real DFT first, the
    cheapest order; its 2**d real components are combined into real and imaginary parts by a small
    constant matrix), the channel mixing is one real batched GEMM over modes of those parts, stacked
    as rows, by `[Wr | Wi]` (a transposed copy of the parameter; the four real products give the
    complex one), and the inverse is the same way back (`separable_irfftn`). `transform="fft"` uses
    `frame.numpy.fft.rfftn`/`irfftn` on complex values.
    """

    def __init__(self, in_channels: int, out_channels: int, n_modes, transform: str = "auto", bias: bool = True):
        _check_positive("SpectralConv", in_channels=in_channels, out_channels=out_channels)
        if transform not in TRANSFORMS:
            raise ValueError(f"SpectralConv: transform must be one of {', '.join(TRANSFORMS)}, got {transform!r}")
        self.n_modes = _modes_tuple("SpectralConv", n_modes, None)
        self.in_channels, self.out_channels = int(in_channels), int(out_channels)
        self.transform, self.bias = transform, bool(bias)
        self.dims = len(self.n_modes)
        #: modes kept per axis: the signed counts, then the last axis's rfft bins
        self.kept = self.n_modes[:-1] + (self.n_modes[-1] // 2 + 1,)

    def __repr__(self):
        extra = "" if self.transform == "auto" else f", transform={self.transform!r}"
        return f"SpectralConv({self.in_channels}, {self.out_channels}, n_modes={self.n_modes}{extra})"

    def init(self, seed=0, dtype="float32") -> dict:
        """neuralop's init: complex normal weights of std `sqrt(2 / (in + out))` (each part std/sqrt(2),
        as torch's complex `normal_`), bias `std * randn(out)`."""
        rng = _rng(seed)
        std = math.sqrt(2.0 / (self.in_channels + self.out_channels))
        shape = (self.in_channels, self.out_channels) + self.kept + (2,)
        params = {"weight": (std / math.sqrt(2.0) * rng.standard_normal(shape)).astype(dtype)}
        if self.bias:
            params["bias"] = (std * rng.standard_normal(self.out_channels)).astype(dtype)
        return params

    def num_parameters(self) -> int:
        """Real scalars: a complex weight counts two, as neuralop's `count_model_params`."""
        return 2 * self.in_channels * self.out_channels * math.prod(self.kept) + (self.out_channels if self.bias else 0)

    def check_grid(self, owner: str, sizes) -> None:
        """A clear error when a grid is too coarse for the kept modes."""
        sizes = tuple(sizes)
        for axis, (n, m) in enumerate(zip(sizes[:-1], self.kept[:-1])):
            if m > n:
                raise ShapeError(f"{owner}: grid axis {axis} of {sizes} has {n} points, fewer than its {m} modes")
        if self.kept[-1] > sizes[-1] // 2 + 1:
            raise ShapeError(f"{owner}: the last grid axis of {sizes} has {sizes[-1] // 2 + 1} rfft bins, fewer "
                             f"than the {self.kept[-1]} kept (n_modes[-1] = {self.n_modes[-1]}); use >= "
                             f"{2 * (self.kept[-1] - 1)} points")

    def uses_dft(self, sizes) -> bool:
        """Whether a grid of `sizes` goes through the truncated DFT GEMMs (else frame's FFTs)."""
        if self.transform != "auto":
            return self.transform == "dft"
        entries = [n * m * (4 if a < self.dims - 1 else 2) for a, (n, m) in enumerate(zip(sizes, self.kept))]
        return max(self.kept) <= DFT_MAX_MODES and max(entries) <= DFT_MAX_ENTRIES

    def _component_signs(self, dtype) -> np.ndarray:
        """`[2, 2**d]`: row 0 (1) holds each component's sign in the real (imaginary) part of the spectrum.

        `separable_rfftn` gives the kept block as 2**d real components with `X = sum_s i**|s| P[s]`:
        component s (|s| its count of sine parts) adds `(-1)**(|s|/2) P[s]` to the real part when |s|
        is even, `(-1)**((|s|-1)/2) P[s]` to the imaginary part when it is odd."""
        signs = np.zeros((2, 2 ** self.dims), dtype)
        for j, s in enumerate(itertools.product((0, 1), repeat=self.dims)):
            count = sum(s)
            signs[count % 2, j] = -1.0 if (count // 2) % 2 else 1.0
        return signs

    def _mixing_weight(self, weight):
        """`[M, in, 2 * out]`: `[Wr | Wi]` of every kept mode (M, in the order m_1, ..., m_{d-1}, k_d), a
        transposed copy of the parameter (neuralop's layout `[in, out, modes..., re/im]`), nothing assembled."""
        d = self.dims
        perm = tuple(range(2, d + 2)) + (0, d + 2, 1)                  # (m_1, ..., k_d, in, re/im, out)
        return fnp.reshape(fnp.transpose(weight, perm),
                           (math.prod(self.kept), self.in_channels, 2 * self.out_channels))

    def apply(self, params: dict, x):
        """`x: [batch, in_channels, *grid]` (len(grid) = len(n_modes)) -> `[batch, out_channels, *grid]`."""
        y = self.apply_unbiased(params, x)
        if self.bias:
            y = y + fnp.reshape(params["bias"], (-1,) + (1,) * self.dims)
        return y

    def apply_unbiased(self, params: dict, x):
        """`apply` without the bias: `FNO` adds the bias together with its skip path, on the flattened grid, so
        the sum is one elementwise pass with the activation after it (an own pass over the [batch, out, *grid]
        result otherwise, and another in the backward)."""
        shape = tuple(x.shape)
        d = self.dims
        if len(shape) != d + 2 or shape[1] != self.in_channels:
            raise ShapeError(f"{self!r}: input must have shape [batch, {self.in_channels}, {d} grid axes], got {shape}")
        sizes = shape[2:]
        self.check_grid(repr(self), sizes)
        batch, c_in, c_out = shape[0], self.in_channels, self.out_channels
        if self.uses_dft(sizes):
            modes = math.prod(self.kept)
            # (batch, in, m_1, r_1, ..., m_{d-1}, r_{d-1}, r_d, k_d): the 2**d real components of the block
            components = fnp.reshape(separable_rfftn(x, self.kept), (batch, c_in) + sum(
                ((m, 2) for m in self.kept[:-1]), ()) + (2, self.kept[-1]))
            m_axes = tuple(2 + 2 * a for a in range(d - 1)) + (2 * d + 1,)
            r_axes = tuple(3 + 2 * a for a in range(d - 1)) + (2 * d,)
            parts = fnp.reshape(fnp.transpose(components, m_axes + r_axes + (0, 1)),
                                (modes, 2 ** d, batch * c_in))                      # [M, components, (batch, in)]
            # The complex spectrum's real and imaginary parts, stacked as rows: [M, (re/im, batch), in].
            spectrum = fnp.reshape(fnp.matmul(self._component_signs(x.dtype), parts), (modes, 2 * batch, c_in))
            # Each part times [Wr | Wi] in one GEMM, then (Xr + i Xi)(Wr + i Wi) from its four products.
            prod = fnp.reshape(fnp.matmul(spectrum, self._mixing_weight(params["weight"])),
                               (modes, 2, batch, 2, c_out))                         # [M, X re/im, batch, W re/im, out]
            real = prod[:, 0, :, 0] - prod[:, 1, :, 1]
            imag = prod[:, 0, :, 1] + prod[:, 1, :, 0]
            mixed = fnp.reshape(fnp.stack([real, imag], axis=2), self.kept + (batch, 2, c_out))
            mixed = fnp.transpose(mixed, (d, d + 2, d + 1) + tuple(range(d)))     # [batch, out, re/im, modes...]
            return separable_irfftn(mixed, sizes)
        return self._apply_fft(params["weight"], x, sizes)

    def _apply_fft(self, weight, x, sizes):
        """The same map through frame's complex `rfftn`/`irfftn` (numpy's), slicing the kept block."""
        d = self.dims
        axes = tuple(range(2, d + 2))
        spectrum = fnp.fft.rfftn(x, axes=axes)
        wc = weight[..., 0] + 1j * weight[..., 1]                    # complex64/128 by numpy's promotion
        out = None
        # The kept block: on a non-last axis the frequencies -(m//2)..m//2+m%2-1 are two index ranges
        # of the unshifted spectrum (the negative ones at the end); each corner of the block is mixed
        # with its part of the weight and the corners are placed back with zero padding.
        corners = [()]
        for a in range(d - 1):
            m, n = self.kept[a], sizes[a]
            neg = m // 2
            corners = [c + (r,) for c in corners for r in (("pos", 0, m - neg, neg, m), ("neg", n - neg, n, 0, neg))
                       if r[2] > r[1]]
        bins = sizes[-1] // 2 + 1
        for corner in corners:
            idx_x, idx_w, pads = [slice(None), slice(None)], [slice(None), slice(None)], []
            for a, (_, lo, hi, wlo, whi) in enumerate(corner):
                idx_x.append(slice(lo, hi))
                idx_w.append(slice(wlo, whi))
                pads.append((lo, sizes[a] - hi))
            idx_x.append(slice(0, self.kept[-1]))
            idx_w.append(slice(None))
            pads.append((0, bins - self.kept[-1]))
            part = fnp.einsum("bi...,io...->bo...", spectrum[tuple(idx_x)], wc[tuple(idx_w)])
            part = fnp.pad(part, [(0, 0), (0, 0)] + pads)
            out = part if out is None else out + part
        return fnp.fft.irfftn(out, s=tuple(sizes), axes=axes)


class FNO:
    """An n-dimensional Fourier neural operator with neuraloperator's layer structure (`neuralop.models.FNO`).

    Layers (neuraloperator 2.0.0, neuralop/models/fno.py and neuralop/layers/fno_block.py; the
    defaults are neuralop's):

    - positional embedding "grid": the coordinates `j / n_a` in [0, 1) of every grid axis appended
      as input channels (GridEmbeddingND; None: none);
    - lifting: a two-layer channel MLP `in + d -> lifting_channel_ratio * width -> width` (gelu between);
    - domain padding (`domain_padding`: a fraction, or one per axis; None: none) of `round(p * n)`
      zeros per axis, on the right (`padding_mode="one-sided"`, neuralop <= 1.0's default) or on both
      sides ("symmetric", neuralop 2.0's), removed again before the projection;
    - `layers` Fourier blocks: `x_fno = SpectralConv(x) + bias`, `fno_skip` ("linear": a 1x1 conv
      without bias; "soft-gating": a per-channel weight; "identity"; None), `x = x_fno + skip(x)`,
      gelu; with `use_channel_mlp`: `x = ChannelMLP(x) + channel_mlp_skip(x_in)` (a two-layer MLP
      `width -> round(width * channel_mlp_expansion) -> width`; its skip soft-gating by default, on
      the block's input), gelu. The last block has no gelu (neither of them);
    - projection: a two-layer channel MLP `width -> projection_channel_ratio * width -> out`.

    `n_modes` as neuralop's (see `SpectralConv`: on the last axis `n_modes[-1] // 2 + 1` bins are
    kept). `init(seed, dtype)` gives the parameter pytree (PyTorch's default initialisations, as
    neuralop's modules get), `apply(params, x)` maps `[batch, in_channels, *grid]` to
    `[batch, out_channels, *grid]`; `num_parameters()` is neuralop's `count_model_params` for the
    same configuration. gelu is frame's (tanh approximation; torch's F.gelu default is the erf form).
    """

    def __init__(self, n_modes, width: int = 64, layers: int = 4, in_channels: int = 1, out_channels: int = 1, *,
                 lifting_channel_ratio=2, projection_channel_ratio=2, positional_embedding: str | None = "grid",
                 domain_padding=None, padding_mode: str = "one-sided", use_channel_mlp: bool = True,
                 channel_mlp_expansion: float = 0.5, channel_mlp_skip: str | None = "soft-gating",
                 fno_skip: str | None = "linear", transform: str = "auto", dims: int | None = None,
                 lifting_channels: int | None = None, projection_channels: int | None = None):
        owner = type(self).__name__
        self.n_modes = _modes_tuple(owner, n_modes, dims)
        self.dims = len(self.n_modes)
        _check_positive(owner, width=width, layers=layers, in_channels=in_channels, out_channels=out_channels)
        self.width, self.layers = int(width), int(layers)
        self.in_channels, self.out_channels = int(in_channels), int(out_channels)
        # neuralop: int(ratio * width); the explicit counts override the ratios (FNO1d's `projection`)
        self.lifting_channels = int(lifting_channel_ratio * self.width) if lifting_channels is None \
            else int(lifting_channels)
        self.projection_channels = int(projection_channel_ratio * self.width) if projection_channels is None \
            else int(projection_channels)
        self.mlp_channels = round(self.width * channel_mlp_expansion)
        for name, value in (("lifting channels", self.lifting_channels),
                            ("projection channels", self.projection_channels)):
            if value < 1:
                raise ValueError(f"{owner}: {name} (ratio * width) must be >= 1, got {value}")
        if use_channel_mlp and self.mlp_channels < 1:
            raise ValueError(f"{owner}: channel_mlp_expansion * width must round to >= 1, got {self.mlp_channels}")
        if positional_embedding not in ("grid", None):
            raise ValueError(f"{owner}: positional_embedding must be 'grid' or None, got {positional_embedding!r}")
        for name, value in (("fno_skip", fno_skip), ("channel_mlp_skip", channel_mlp_skip)):
            if value not in SKIPS:
                raise ValueError(f"{owner}: {name} must be one of {SKIPS}, got {value!r}")
        if padding_mode not in PADDING_MODES:
            raise ValueError(f"{owner}: padding_mode must be one of {PADDING_MODES}, got {padding_mode!r}")
        self.positional_embedding = positional_embedding
        self.fno_skip, self.channel_mlp_skip = fno_skip, channel_mlp_skip
        self.use_channel_mlp, self.padding_mode, self.transform = bool(use_channel_mlp), padding_mode, transform
        self.domain_padding = self._padding_fractions(owner, domain_padding)
        self.spectral = SpectralConv(self.width, self.width, self.n_modes, transform)

    def _padding_fractions(self, owner, domain_padding):
        if domain_padding is None:
            return None
        fractions = ((domain_padding,) * self.dims if isinstance(domain_padding, (int, float, np.number))
                     else tuple(domain_padding))
        if len(fractions) != self.dims or any(isinstance(p, bool) or not p >= 0 for p in fractions):
            raise ValueError(f"{owner}: domain_padding must be a fraction >= 0 or {self.dims} of them, "
                             f"got {domain_padding!r}")
        return tuple(float(p) for p in fractions) if any(p > 0 for p in fractions) else None

    def __repr__(self):
        return (f"{type(self).__name__}(n_modes={self.n_modes}, width={self.width}, layers={self.layers}, "
                f"in_channels={self.in_channels}, out_channels={self.out_channels}"
                + (f", domain_padding={self.domain_padding}" if self.domain_padding else "")
                + ("" if self.transform == "auto" else f", transform={self.transform!r}") + ")")

    # -- parameters ------------------------------------------------------------------------------
    def _skip_init(self, rng, kind, dtype):
        if kind == "linear":
            return init_channel_mlp(rng, (self.width, self.width), dtype, bias=False)[0]
        if kind == "soft-gating":
            return {"weight": np.ones(self.width, dtype)}
        return {}

    def init(self, seed=0, dtype="float32") -> dict:
        """`{"lifting": [2 layers], "blocks": [{"spectral", "skip", "channel_mlp", "channel_mlp_skip"}...],
        "projection": [2 layers]}`; pointwise layers `{"w": [out, in], "b": [out]}`."""
        rng = _rng(seed)
        lifting_in = self.in_channels + (self.dims if self.positional_embedding else 0)
        params = {"lifting": init_channel_mlp(rng, (lifting_in, self.lifting_channels, self.width), dtype),
                  "blocks": []}
        for _ in range(self.layers):
            block = {"spectral": self.spectral.init(rng, dtype), "skip": self._skip_init(rng, self.fno_skip, dtype)}
            if self.use_channel_mlp:
                block["channel_mlp"] = init_channel_mlp(rng, (self.width, self.mlp_channels, self.width), dtype)
                block["channel_mlp_skip"] = self._skip_init(rng, self.channel_mlp_skip, dtype)
            params["blocks"].append(block)
        params["projection"] = init_channel_mlp(rng, (self.width, self.projection_channels, self.out_channels), dtype)
        return params

    def num_parameters(self) -> int:
        """neuralop's `count_model_params` of the same configuration (a complex weight counts two)."""
        def mlp(*sizes):
            return sum(a * b + b for a, b in zip(sizes[:-1], sizes[1:]))

        def skip(kind):
            return {"linear": self.width * self.width, "soft-gating": self.width}.get(kind, 0)

        w = self.width
        lifting_in = self.in_channels + (self.dims if self.positional_embedding else 0)
        block = self.spectral.num_parameters() + skip(self.fno_skip)
        if self.use_channel_mlp:
            block += mlp(w, self.mlp_channels, w) + skip(self.channel_mlp_skip)
        return (mlp(lifting_in, self.lifting_channels, w) + self.layers * block
                + mlp(w, self.projection_channels, self.out_channels))

    # -- forward ---------------------------------------------------------------------------------
    def padding(self, sizes) -> tuple[tuple[int, int], ...]:
        """The (before, after) zeros of each grid axis for a grid of `sizes` (neuralop's DomainPadding)."""
        if self.domain_padding is None:
            return tuple((0, 0) for _ in sizes)
        amounts = [round(p * n) for p, n in zip(self.domain_padding, sizes)]
        return tuple((a, a) if self.padding_mode == "symmetric" else (0, a) for a in amounts)

    @staticmethod
    def _skip(params, kind, h):
        if kind == "linear":
            return _pointwise_nd(params, h)
        if kind == "soft-gating":
            return h * fnp.reshape(params["weight"], (-1, 1))
        return h

    def apply(self, params: dict, x):
        """`x: [batch, in_channels, *grid]` -> `[batch, out_channels, *grid]`."""
        shape = tuple(x.shape)
        d = self.dims
        if len(shape) != d + 2 or shape[1] != self.in_channels:
            raise ShapeError(f"{self!r}: input must have shape [batch, {self.in_channels}, {d} grid axes], got {shape}")
        batch, sizes = shape[0], shape[2:]
        pads = self.padding(sizes)
        padded = tuple(n + lo + hi for n, (lo, hi) in zip(sizes, pads))
        self.spectral.check_grid(repr(self) + (f" (padded to {padded})" if padded != sizes else ""), padded)
        dtype = np.dtype(x.dtype)
        points = math.prod(sizes)
        h = fnp.reshape(x, (batch, self.in_channels, points))
        if self.positional_embedding:
            axes = np.meshgrid(*[grid(n, 1.0) for n in sizes], indexing="ij")
            coords = np.stack(axes).reshape(1, d, points).astype(dtype)
            h = fnp.concatenate([h, np.broadcast_to(coords, (batch, d, points))], axis=1)
        h = apply_channel_mlp(params["lifting"], h)
        if any(lo or hi for lo, hi in pads):
            h = fnp.pad(fnp.reshape(h, (batch, self.width) + tuple(sizes)), [(0, 0), (0, 0)] + list(pads))
        n_padded = math.prod(padded)
        h = fnp.reshape(h, (batch, self.width, n_padded))
        for i, block in enumerate(params["blocks"]):
            last = i == len(params["blocks"]) - 1
            grid_h = fnp.reshape(h, (batch, self.width) + padded)
            x_fno = fnp.reshape(self.spectral.apply_unbiased(block["spectral"], grid_h), (batch, self.width, n_padded))
            # neuralop's x_fno + bias + skip(x), summed on the flattened grid: one pass with the gelu after it
            out = x_fno + self._skip(block["skip"], self.fno_skip, h) if self.fno_skip else x_fno
            out = out + fnp.reshape(block["spectral"]["bias"], (-1, 1))
            if not last:
                out = gelu(out)
            if self.use_channel_mlp:
                mlp = apply_channel_mlp(block["channel_mlp"], out)
                out = mlp + self._skip(block["channel_mlp_skip"], self.channel_mlp_skip, h) \
                    if self.channel_mlp_skip else mlp
                if not last:
                    out = gelu(out)
            h = out
        if padded != sizes:
            h = fnp.reshape(h, (batch, self.width) + padded)
            h = h[(slice(None), slice(None)) + tuple(slice(lo, lo + n) for n, (lo, _) in zip(sizes, pads))]
            h = fnp.reshape(h, (batch, self.width, points))
        h = apply_channel_mlp(params["projection"], h)
        return fnp.reshape(h, (batch, self.out_channels) + tuple(sizes))


class FNO2d(FNO):
    """The 2-D `FNO` (neuraloperator's structure): `x: [batch, in_channels, n_1, n_2]`.

    `n_modes`: an int (both axes) or a pair, counted as neuralop's (12 keep frequencies -6..5 on axis
    1 and the rfft bins 0..6 on axis 2). Other keywords as `FNO`.
    """

    def __init__(self, n_modes=12, width: int = 64, layers: int = 4, in_channels: int = 1, out_channels: int = 1,
                 **options):
        super().__init__(n_modes, width, layers, in_channels, out_channels, dims=2, **options)


class FNO3d(FNO):
    """The 3-D `FNO` (neuraloperator's structure): `x: [batch, in_channels, n_1, n_2, n_3]`; `n_modes` an
    int or a triple, counted as neuralop's. Other keywords as `FNO`."""

    def __init__(self, n_modes=8, width: int = 32, layers: int = 4, in_channels: int = 1, out_channels: int = 1,
                 **options):
        super().__init__(n_modes, width, layers, in_channels, out_channels, dims=3, **options)
