"""Models over `frame.numpy`: the multilayer perceptron a PINN trains."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

import frame.numpy as fnp
from frame.errors import FrameError


class ModelError(FrameError, ValueError):
    """A model was configured or called with arguments it cannot accept."""


#: activation name -> function over frame.numpy (works on tracers and on numpy arrays).
ACTIVATIONS = {"tanh": fnp.tanh, "sin": fnp.sin, "softplus": fnp.softplus}


class Network:
    """What every pinn model shares: input rescaling, DeepXDE's feature and output transforms, `__call__`.

    A subclass sets `layer_sizes` (its first entry the input dimension, its last the output's),
    `dtype`, and implements `init(seed)` and `_forward(params, h)` on rescaled, feature-transformed
    inputs. `apply(params, x)` checks x, rescales it to [-1, 1] (`input_bounds`), applies the
    feature transform, runs `_forward` and then the output transform: as DeepXDE's
    `net.apply_feature_transform(fn)` and `net.apply_output_transform(fn)`, `fn(x) -> features` and
    `fn(x, u) -> u` written with `frame.numpy` on the *original* inputs x. An output transform is
    how a PINN imposes a hard constraint, e.g. `lambda x, u: (1 - x**2) * u` makes u(±1) = 0 exactly
    (the condition then needs no loss term). Both transforms must treat rows independently, like
    the networks (pointwise derivatives rely on it, see `pinn.problems.pointwise_derivative`).
    """

    layer_sizes: list[int]
    dtype: str = "float64"
    _shift = _scale = None
    _feature_transform = None
    _output_transform = None
    feature_dim: int | None = None   # the width the feature transform produces (None: in_dim)

    def _setup_bounds(self, input_bounds) -> None:
        self._shift = self._scale = None
        if input_bounds is not None:
            lower, upper = (np.asarray(v, dtype=self.dtype).reshape(-1) for v in input_bounds)
            if lower.shape != (self.in_dim,) or upper.shape != (self.in_dim,) or np.any(upper <= lower):
                raise ModelError(f"{type(self).__name__}: input_bounds must be (lower, upper) with {self.in_dim} "
                                 f"entries each and upper > lower, got {input_bounds!r}")
            # x -> 2 (x - lower) / (upper - lower) - 1, stored as x * scale + shift (row vectors broadcast over N).
            self._scale = (2.0 / (upper - lower)).reshape(1, -1)
            self._shift = (-1.0 - lower * self._scale[0]).reshape(1, -1)
        self.input_bounds = input_bounds

    _raw_in_dim: int | None = None

    @property
    def in_dim(self) -> int:
        """The width of the inputs x (the first layer's, unless a feature transform changes it)."""
        return self.layer_sizes[0] if self._raw_in_dim is None else self._raw_in_dim

    @property
    def out_dim(self) -> int:
        return self.layer_sizes[-1]

    @property
    def num_params(self) -> int:
        import frame
        return int(sum(np.size(v) for v in frame.tree_leaves(self.params)))

    def apply_feature_transform(self, transform: Callable, input_dim: int | None = None) -> "Network":
        """Map inputs through `transform(x) -> features` (rows independent) before the network (DeepXDE's
        `apply_feature_transform`); `layer_sizes[0]` is the features' width, and `input_dim` the width of
        x when the transform changes it (default: the same). Returns self."""
        if not callable(transform):
            raise ModelError(f"apply_feature_transform needs a callable x -> features, got {transform!r}")
        if input_dim is not None and (isinstance(input_dim, bool) or not isinstance(input_dim, (int, np.integer))
                                      or input_dim < 1):
            raise ModelError(f"apply_feature_transform: input_dim must be a positive int, got {input_dim!r}")
        if self.input_bounds is not None and input_dim not in (None, self.layer_sizes[0]):
            raise ModelError("apply_feature_transform: a width-changing transform cannot follow input_bounds "
                             "(they rescale the features' width); rescale inside the transform instead")
        self._feature_transform = transform
        self._raw_in_dim = None if input_dim is None else int(input_dim)
        return self

    def apply_output_transform(self, transform: Callable) -> "Network":
        """Map the network's output through `transform(x, u) -> u` (DeepXDE's `apply_output_transform`):
        hard constraints. Returns self."""
        if not callable(transform):
            raise ModelError(f"apply_output_transform needs a callable (x, u) -> u, got {transform!r}")
        self._output_transform = transform
        return self

    def _check_input(self, x) -> None:
        shape = tuple(x.shape)
        if len(shape) != 2 or shape[1] != self.in_dim:
            raise ModelError(f"{type(self).__name__}.apply: x must have shape (N, {self.in_dim}), got {shape}")

    def apply(self, params, x):
        """The model's output for inputs `x` of shape (N, in_dim): shape (N, out_dim)."""
        self._check_input(x)
        h = x if self._scale is None else x * self._scale + self._shift
        if self._feature_transform is not None:
            h = self._feature_transform(h)
        u = self._forward(params, h)
        if self._output_transform is not None:
            u = self._output_transform(x, u)
        return u

    def _forward(self, params, h):
        raise NotImplementedError

    def init(self, seed: int = 0, dtype: str | None = None):
        """Fresh parameters for `seed`, in `dtype` (default: the model's own; workbench.Model's signature)."""
        raise NotImplementedError

    def __call__(self, x):
        """`apply` with the model's own parameters."""
        return self.apply(self.params, x)


def _glorot(rng, n_in: int, n_out: int, dtype: str) -> dict:
    return {"W": (rng.standard_normal((n_in, n_out)) * np.sqrt(2.0 / (n_in + n_out))).astype(dtype),
            "b": np.zeros(n_out, dtype=dtype)}


def _check_sizes(cls: str, layer_sizes, activation: str, dtype) -> list[int]:
    sizes = list(layer_sizes) if isinstance(layer_sizes, (list, tuple)) else None
    if not sizes or len(sizes) < 2 or any(isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1
                                          for n in sizes):
        raise ModelError(f"{cls}: layer_sizes must be a list of >= 2 positive ints, got {layer_sizes!r}")
    if activation not in ACTIVATIONS:
        raise ModelError(f"{cls}: unknown activation {activation!r}; choose one of {', '.join(ACTIVATIONS)}")
    if np.dtype(dtype).name not in ("float32", "float64"):
        raise ModelError(f"{cls}: dtype must be float32 or float64, got {dtype!r}")
    return [int(n) for n in sizes]


def dense_stack(params, h, act):
    """Dense layers `h W + b`, the activation `act` after each but the last (MLP and the Fourier-feature MLP)."""
    for i, layer in enumerate(params):
        h = fnp.matmul(h, layer["W"]) + layer["b"]
        if i < len(params) - 1:
            h = act(h)
    return h


class MLP(Network):
    """A fully connected network `layer_sizes[0] -> ... -> layer_sizes[-1]` with Glorot/Xavier init.

    `params` is a list with one `{"W": (n_in, n_out), "b": (n_out,)}` dict per layer; `apply(params,
    x)` maps `x` of shape `(N, layer_sizes[0])` to `(N, layer_sizes[-1])`, with the activation after
    every layer but the last. It is written with `frame.numpy`, so it runs eagerly on numpy arrays
    and traces on tracers. Each row of `x` is processed on its own (only matmul over the feature
    axis), which is what lets a PINN take pointwise derivatives by summing (see `pinn.problems`).

    `input_bounds=(lower, upper)` (one entry per input feature) rescales inputs to [-1, 1] inside
    the model, as Raissi et al. do for (x, t) on [-1, 1] x [0, 1].
    """

    def __init__(self, layer_sizes: Sequence[int], activation: str = "tanh", seed: int = 0,
                 dtype: str = "float64", input_bounds=None):
        self.layer_sizes = _check_sizes("MLP", layer_sizes, activation, dtype)
        self.activation = activation
        self.dtype = np.dtype(dtype).name
        self.seed = seed
        self._setup_bounds(input_bounds)
        self.params = self.init(seed)

    @property
    def num_params(self) -> int:
        return sum(n_in * n_out + n_out for n_in, n_out in zip(self.layer_sizes[:-1], self.layer_sizes[1:]))

    def init(self, seed: int = 0, dtype: str | None = None) -> list[dict]:
        """Fresh parameters: Glorot-normal weights (std sqrt(2 / (n_in + n_out))) and zero biases, in
        `dtype` (default: the model's)."""
        rng = np.random.default_rng(seed)
        sizes = self.layer_sizes
        return [_glorot(rng, n_in, n_out, dtype or self.dtype) for n_in, n_out in zip(sizes[:-1], sizes[1:])]

    def apply(self, params, x):
        """The network's output for inputs `x` of shape (N, in_dim): shape (N, out_dim)."""
        if len(params) != len(self.layer_sizes) - 1:
            raise ModelError(f"MLP.apply: expected {len(self.layer_sizes) - 1} layers of params, got {len(params)}")
        return super().apply(params, x)

    def _forward(self, params, h):
        return dense_stack(params, h, ACTIVATIONS[self.activation])

    def __repr__(self):
        return (f"MLP({self.layer_sizes}, activation={self.activation!r}, seed={self.seed}, dtype={self.dtype!r}, "
                f"{self.num_params} params)")


class FourierFeatureMLP(Network):
    """An MLP on random Fourier features (Tancik et al. 2020): gamma(x) = [cos(2 pi x B), sin(2 pi x B)].

    B (in_dim x num_features) is drawn once from N(0, sigma^2) with the model's seed and kept fixed
    (not trained), so the network sees frequencies ~ sigma; a large sigma lets a PINN fit
    high-frequency solutions that a plain MLP's spectral bias leaves out. `layer_sizes` is the
    whole map [in_dim, hidden..., out_dim]; the first hidden layer takes 2 * num_features inputs.
    """

    def __init__(self, layer_sizes: Sequence[int], sigma: float = 1.0, num_features: int = 64,
                 activation: str = "tanh", seed: int = 0, dtype: str = "float64", input_bounds=None):
        self.layer_sizes = _check_sizes("FourierFeatureMLP", layer_sizes, activation, dtype)
        if len(self.layer_sizes) < 3:
            raise ModelError(f"FourierFeatureMLP: needs at least one hidden layer, got {layer_sizes!r}")
        if not (isinstance(sigma, (int, float)) and np.isfinite(sigma) and sigma > 0):
            raise ModelError(f"FourierFeatureMLP: sigma must be a positive number, got {sigma!r}")
        if isinstance(num_features, bool) or not isinstance(num_features, (int, np.integer)) or num_features < 1:
            raise ModelError(f"FourierFeatureMLP: num_features must be a positive int, got {num_features!r}")
        self.activation, self.sigma, self.num_features = activation, float(sigma), int(num_features)
        self.dtype, self.seed = np.dtype(dtype).name, seed
        self._setup_bounds(input_bounds)
        rng = np.random.default_rng([seed, 7919])   # B's stream differs from the weights' stream
        self.B = (2 * np.pi * self.sigma * rng.standard_normal((self.in_dim, self.num_features))).astype(self.dtype)
        self.params = self.init(seed)

    def init(self, seed: int = 0, dtype: str | None = None) -> list[dict]:
        rng = np.random.default_rng(seed)
        sizes = [2 * self.num_features] + self.layer_sizes[1:]
        return [_glorot(rng, n_in, n_out, dtype or self.dtype) for n_in, n_out in zip(sizes[:-1], sizes[1:])]

    def _forward(self, params, h):
        z = fnp.matmul(h, self.B)
        return dense_stack(params, fnp.concatenate([fnp.cos(z), fnp.sin(z)], axis=1), ACTIVATIONS[self.activation])

    def __repr__(self):
        return (f"FourierFeatureMLP({self.layer_sizes}, sigma={self.sigma:g}, num_features={self.num_features}, "
                f"activation={self.activation!r}, seed={self.seed}, {self.num_params} params)")


class ModifiedMLP(Network):
    """Wang, Teng & Perdikaris's (2021) modified MLP: two encoders gate every hidden layer.

    U = act(x W_u + b_u), V = act(x W_v + b_v), H_0 = x; per hidden layer k = 1..L
    Z_k = act(H_{k-1} W_k + b_k), H_k = (1 - Z_k) * U + Z_k * V; the output is H_L W + b (the form of
    the authors' jaxpi code, which gates every hidden layer). All hidden layers have one width.
    Params: {"U": layer, "V": layer, "layers": [layer, ...]}.
    """

    def __init__(self, layer_sizes: Sequence[int], activation: str = "tanh", seed: int = 0,
                 dtype: str = "float64", input_bounds=None):
        self.layer_sizes = _check_sizes("ModifiedMLP", layer_sizes, activation, dtype)
        hidden = self.layer_sizes[1:-1]
        if not hidden or len(set(hidden)) != 1:
            raise ModelError(f"ModifiedMLP: needs >= 1 hidden layer, all of one width, got {layer_sizes!r}")
        self.activation, self.dtype, self.seed = activation, np.dtype(dtype).name, seed
        self._setup_bounds(input_bounds)
        self.params = self.init(seed)

    def init(self, seed: int = 0, dtype: str | None = None) -> dict:
        rng = np.random.default_rng(seed)
        n_in, width = self.layer_sizes[0], self.layer_sizes[1]
        dtype = dtype or self.dtype
        layers = [_glorot(rng, a, b, dtype) for a, b in zip(self.layer_sizes[:-1], self.layer_sizes[1:])]
        return {"U": _glorot(rng, n_in, width, dtype), "V": _glorot(rng, n_in, width, dtype),
                "layers": layers}

    def _forward(self, params, x):
        act = ACTIVATIONS[self.activation]
        U = act(fnp.matmul(x, params["U"]["W"]) + params["U"]["b"])
        V = act(fnp.matmul(x, params["V"]["W"]) + params["V"]["b"])
        layers = params["layers"]
        h = x
        for layer in layers[:-1]:
            z = act(fnp.matmul(h, layer["W"]) + layer["b"])
            h = (1.0 - z) * U + z * V
        return fnp.matmul(h, layers[-1]["W"]) + layers[-1]["b"]

    def __repr__(self):
        return (f"ModifiedMLP({self.layer_sizes}, activation={self.activation!r}, seed={self.seed}, "
                f"{self.num_params} params)")


#: model name -> class, for `default_model(kind=...)` and the command line.
MODELS = {"mlp": MLP, "fourier": FourierFeatureMLP, "modified": ModifiedMLP}
