"""Models over `frame.numpy`: the multilayer perceptron a PINN trains."""
from __future__ import annotations

from typing import Sequence

import numpy as np

import frame.numpy as fnp
from frame.errors import FrameError


class ModelError(FrameError, ValueError):
    """A model was configured or called with arguments it cannot accept."""


#: activation name -> function over frame.numpy (works on tracers and on numpy arrays).
ACTIVATIONS = {"tanh": fnp.tanh, "sin": fnp.sin, "softplus": fnp.softplus}


class MLP:
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
        sizes = list(layer_sizes) if isinstance(layer_sizes, (list, tuple)) else None
        if not sizes or len(sizes) < 2 or any(not isinstance(n, (int, np.integer)) or n < 1 for n in sizes):
            raise ModelError(f"MLP: layer_sizes must be a list of >= 2 positive ints, got {layer_sizes!r}")
        if activation not in ACTIVATIONS:
            raise ModelError(f"MLP: unknown activation {activation!r}; choose one of {', '.join(ACTIVATIONS)}")
        if np.dtype(dtype).name not in ("float32", "float64"):
            raise ModelError(f"MLP: dtype must be float32 or float64, got {dtype!r}")
        self.layer_sizes = [int(n) for n in sizes]
        self.activation = activation
        self.dtype = np.dtype(dtype).name
        self.seed = seed
        self._shift = self._scale = None
        if input_bounds is not None:
            lower, upper = (np.asarray(v, dtype=self.dtype).reshape(-1) for v in input_bounds)
            if lower.shape != (self.in_dim,) or upper.shape != (self.in_dim,) or np.any(upper <= lower):
                raise ModelError(f"MLP: input_bounds must be (lower, upper) with {self.in_dim} entries each and "
                                 f"upper > lower, got {input_bounds!r}")
            # x -> 2 (x - lower) / (upper - lower) - 1, stored as x * scale + shift (row vectors broadcast over N).
            self._scale = (2.0 / (upper - lower)).reshape(1, -1)
            self._shift = (-1.0 - lower * self._scale[0]).reshape(1, -1)
        self.input_bounds = input_bounds
        self.params = self.init(seed)

    @property
    def in_dim(self) -> int:
        return self.layer_sizes[0]

    @property
    def out_dim(self) -> int:
        return self.layer_sizes[-1]

    @property
    def num_params(self) -> int:
        return sum(n_in * n_out + n_out for n_in, n_out in zip(self.layer_sizes[:-1], self.layer_sizes[1:]))

    def init(self, seed: int = 0) -> list[dict]:
        """Fresh parameters: Glorot-normal weights (std sqrt(2 / (n_in + n_out))) and zero biases."""
        rng = np.random.default_rng(seed)
        return [{"W": (rng.standard_normal((n_in, n_out)) * np.sqrt(2.0 / (n_in + n_out))).astype(self.dtype),
                 "b": np.zeros(n_out, dtype=self.dtype)}
                for n_in, n_out in zip(self.layer_sizes[:-1], self.layer_sizes[1:])]

    def apply(self, params, x):
        """The network's output for inputs `x` of shape (N, in_dim): shape (N, out_dim)."""
        shape = tuple(x.shape)
        if len(shape) != 2 or shape[1] != self.in_dim:
            raise ModelError(f"MLP.apply: x must have shape (N, {self.in_dim}), got {shape}")
        if len(params) != len(self.layer_sizes) - 1:
            raise ModelError(f"MLP.apply: expected {len(self.layer_sizes) - 1} layers of params, got {len(params)}")
        act = ACTIVATIONS[self.activation]
        h = x if self._scale is None else x * self._scale + self._shift
        for i, layer in enumerate(params):
            h = fnp.matmul(h, layer["W"]) + layer["b"]
            if i < len(params) - 1:
                h = act(h)
        return h

    def __call__(self, x):
        """`apply` with the model's own parameters."""
        return self.apply(self.params, x)

    def __repr__(self):
        return (f"MLP({self.layer_sizes}, activation={self.activation!r}, seed={self.seed}, dtype={self.dtype!r}, "
                f"{self.num_params} params)")
