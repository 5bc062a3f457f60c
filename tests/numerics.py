"""Numerical-check helpers of SPEC §11 (the seed's BUILD-011): central differences and tolerances."""
from __future__ import annotations

import numpy as np

RTOL_FIRST, ATOL_FIRST = 1e-5, 1e-7     # float64 analytic vs central differences
RTOL_F32 = 1e-3                          # float32 analytic vs float64 analytic


def central_difference(f, x: np.ndarray, indices=None) -> np.ndarray:
    """d f / d x for scalar `f` by `(f(x+h) - f(x-h)) / 2h`, h = 1e-6 * max(1, |x_i|) per element.

    With `indices` (flat positions), only those entries are differenced and returned, in that order.
    """
    x = np.asarray(x, dtype=np.float64)
    flat = x.reshape(-1)
    positions = range(flat.size) if indices is None else [int(i) for i in indices]
    values = []
    for i in positions:
        h = 1e-6 * max(1.0, abs(flat[i]))
        plus, minus = flat.copy(), flat.copy()
        plus[i] += h
        minus[i] -= h
        values.append((float(f(plus.reshape(x.shape))) - float(f(minus.reshape(x.shape)))) / (2 * h))
    values = np.asarray(values)
    return values.reshape(x.shape) if indices is None else values


def assert_close_first_order(analytic, numeric, what=""):
    np.testing.assert_allclose(analytic, numeric, rtol=RTOL_FIRST, atol=ATOL_FIRST, err_msg=what)


def assert_close_f32(g32, g64, what=""):
    scale = max(1.0, float(np.max(np.abs(g64))) if np.size(g64) else 1.0)
    np.testing.assert_allclose(g32, g64, rtol=RTOL_F32, atol=RTOL_F32 * scale, err_msg=what)
