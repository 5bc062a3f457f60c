"""Causal weighting of a time-dependent PDE's residual (Wang, Sankaran & Perdikaris, "Respecting causality").

Wang, Sankaran & Perdikaris (2022, "Respecting causality is all you need for training
physics-informed neural networks", arXiv:2203.07404; used in Wang, Sankaran, Wang & Perdikaris
2023, "An expert's guide to training PINNs", arXiv:2308.08468) observe that a PINN for an
evolution equation happily fits the residual at late times before the solution at early times is
right, and converges to a wrong solution (Allen–Cahn: a relative L2 error near 0.5). Their remedy
splits [t0, t1] into `chunks` time slices, with l_i the mean squared residual in slice i, and
replaces the residual loss by

    L_r = (1 / chunks) sum_i w_i l_i,    w_i = exp(-tol * sum_{k < i} l_k),

the weights held constant in the gradient (stop-gradient): a slice is only trained once every
earlier one fits (w_1 = 1 always; min_i w_i near 1 means the whole interval is being trained).
Their code (PredictiveIntelligenceLab/jaxpi, examples/allen_cahn) sorts a batch by t and reshapes
it into equal-count chunks, with `tol` = 1 and 32 chunks; here the slices are equal-width time
bins computed inside the training graph from the points' t (any number of points, any order, so
resampled or refined points need no sorting), which for uniform or Latin-hypercube points in t
holds about equally many points each.

Use it as a loss option of a `pinn.TimePDE`: `TimePDE(..., causal=CausalWeighting(32, 1.0))`
(or `pinn.AllenCahn(causal_chunks=32)`). Every residual term of the problem is weighted this way;
the conditions' terms are not. Because the weights are not differentiated, the loss L-BFGS sees
is not the potential of its gradient; the line search copes, but the authors train with Adam only.
"""
from __future__ import annotations

import math

import numpy as np

import frame
import frame.numpy as fnp

from .problems import ProblemError


class CausalWeighting:
    """Causal weights over `chunks` equal time slices with tolerance `tol` (see the module doc).

    `bind(geometry)` (done by `pinn.PDE`) takes the time interval from a `GeometryXTime`; `term(r,
    x)` is the weighted residual loss for residual values r (N, 1) at points x (N, dim) (traced or
    numpy); `weights(r, x)` the weights w (chunks,) as numpy, for inspection."""

    def __init__(self, chunks: int = 32, tol: float = 1.0):
        if isinstance(chunks, bool) or not isinstance(chunks, (int, np.integer)) or chunks < 1:
            raise ProblemError(f"CausalWeighting: chunks must be an int >= 1, got {chunks!r}")
        if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not math.isfinite(tol) or tol < 0:
            raise ProblemError(f"CausalWeighting: tol must be a finite number >= 0, got {tol!r}")
        self.chunks, self.tol = int(chunks), float(tol)
        self.t0 = self.t1 = None

    def bind(self, geometry) -> "CausalWeighting":
        """Take [t0, t1] from `geometry` (a `GeometryXTime`: time is the last coordinate); returns self."""
        from .geometry import GeometryXTime

        if not isinstance(geometry, GeometryXTime):
            raise ProblemError(f"CausalWeighting needs a time-dependent problem (a GeometryXTime), got {geometry!r}")
        self.t0, self.t1 = float(geometry.timedomain.l), float(geometry.timedomain.r)
        return self

    def _check_bound(self):
        if self.t0 is None:
            raise ProblemError("CausalWeighting: not bound to a geometry; pass it to a TimePDE as causal=")

    def chunk_losses(self, r, x):
        """(l, counts): the mean squared residual per time slice (chunks,) and the points per slice."""
        self._check_bound()
        dtype = np.dtype(x.dtype).name
        t = x[:, -1:]
        scale = self.chunks / (self.t1 - self.t0)
        # slice index of each point, t1 itself in the last slice
        k = fnp.clip(fnp.floor((t - self.t0) * scale), 0, self.chunks - 1)
        member = fnp.where(fnp.equal(k, np.arange(self.chunks, dtype=dtype).reshape(1, -1)),
                           np.ones((), dtype=dtype), np.zeros((), dtype=dtype))      # (N, chunks) one-hot
        counts = fnp.sum(member, axis=0)
        l = fnp.sum(member * fnp.square(r), axis=0) / fnp.maximum(counts, np.ones((), dtype=dtype))
        return l, counts

    def _weights(self, l, dtype):
        # strictly upper triangular: (l @ U)_i = sum_{k < i} l_k
        upper = np.triu(np.ones((self.chunks, self.chunks), dtype=dtype), k=1)
        return fnp.exp(-self.tol * fnp.matmul(l.reshape(1, -1), upper)).reshape(-1)

    def term(self, r, x):
        """(1 / chunks) sum_i w_i l_i with the weights w held constant in the gradient."""
        l, _ = self.chunk_losses(r, x)
        w = frame.stop_gradient(self._weights(l, np.dtype(x.dtype).name))
        return fnp.mean(w * l)

    def weights(self, r, x) -> np.ndarray:
        """The causal weights (chunks,) for residual values r at points x (numpy in, numpy out)."""
        x = np.asarray(x)
        l, _ = self.chunk_losses(np.asarray(r, dtype=x.dtype), x)
        return np.asarray(self._weights(np.asarray(l), x.dtype.name), dtype=np.float64)

    def __repr__(self):
        return f"CausalWeighting(chunks={self.chunks}, tol={self.tol:g})"
