"""Reference solvers both workbenches use: the ETDRK4 time stepper for `v_t = L v + N(v)` with diagonal L.

Exponential time differencing with fourth-order Runge–Kutta (Cox & Matthews 2002), with the
phi-functions evaluated by Kassam & Trefethen's (2005) contour means, which avoid the cancellation
of their closed forms near 0. pinn's periodic references (Allen–Cahn, KdV: full complex FFT,
snapshots in time) and pino's Burgers solver (batched real FFT, de-aliased) both step with it;
each keeps its own spatial discretisation (how `N(v)` is evaluated).
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

__all__ = ["etdrk4_coefficients", "etdrk4_step"]


def etdrk4_coefficients(linear, dt: float, contour_points: int = 32):
    """ETDRK4 weights `(E, E2, Q, f1, f2, f3)` for the diagonal linear part `linear` (its Fourier symbol
    values) and step `dt`.

    `E = exp(dt L)` and `E2 = exp(dt L / 2)` keep `linear`'s dtype (complex for a complex array);
    `Q, f1, f2, f3` are the contour means over `contour_points` points of a unit circle around each
    `dt L`, real when every L is real (Kassam & Trefethen take the real part), else complex
    (dispersive symbols such as KdV's `i d k^3`).
    """
    linear = np.asarray(linear)
    if linear.dtype.kind not in "fc":
        linear = linear.astype(np.float64)
    hl = dt * linear
    roots = np.exp(1j * math.pi * (np.arange(1, contour_points + 1) - 0.5) / contour_points)
    lr = hl[:, None] + roots[None, :]
    exp_lr = np.exp(lr)
    real = np.all(np.isreal(linear))
    means = [np.mean((np.exp(lr / 2) - 1) / lr, axis=1),
             np.mean((-4 - lr + exp_lr * (4 - 3 * lr + lr ** 2)) / lr ** 3, axis=1),
             np.mean((2 + lr + exp_lr * (-2 + lr)) / lr ** 3, axis=1),
             np.mean((-4 - 3 * lr - lr ** 2 + exp_lr * (4 - lr)) / lr ** 3, axis=1)]
    q, f1, f2, f3 = (dt * (np.real(m) if real else m) for m in means)
    return np.exp(hl), np.exp(hl / 2), q, f1, f2, f3


def etdrk4_step(v, nonlinear: Callable, coefficients):
    """One ETDRK4 step of `v_t = L v + N(v)` in the diagonalising (Fourier) basis: `v` the coefficients,
    `nonlinear(v)` the coefficients of N at them, `coefficients` from `etdrk4_coefficients`."""
    e, e2, q, f1, f2, f3 = coefficients
    nv = nonlinear(v)
    a = e2 * v + q * nv
    na = nonlinear(a)
    b = e2 * v + q * na
    nb = nonlinear(b)
    c = e2 * a + q * (2 * nb - nv)
    nc = nonlinear(c)
    return e * v + nv * f1 + 2 * (na + nb) * f2 + nc * f3
