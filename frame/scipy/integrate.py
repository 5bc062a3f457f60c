"""`frame.scipy.integrate`: scipy.integrate's rules for sampled data, `trapezoid` (as jax.scipy.integrate),
`cumulative_trapezoid` and `simpson` (scipy's, with its Cartwright correction of the last interval for an even
number of samples), as compositions of frame.numpy's slicing and arithmetic: traced, differentiable in `y` and
`x` to any order. `x` is 1-d along `axis` or of `y`'s shape; `dx` a number.
"""
from __future__ import annotations

from ..errors import ShapeError
from ..frontend import numpy as fnp
from ..frontend.args import _axis, _ndim, _shape

__all__ = ["trapezoid", "cumulative_trapezoid", "simpson"]

trapezoid = fnp.trapezoid


def _spacings(y, x, dx, axis: int, fn: str):
    """The intervals along `axis`, shaped to broadcast against slices of `y` along it (a number for `dx`)."""
    if x is None:
        return dx
    x = fnp.asarray(x)
    if _ndim(x) == 1:
        if _shape(x)[0] != _shape(y)[axis]:
            raise ShapeError(f"scipy.integrate.{fn}: x has {_shape(x)[0]} points, y {_shape(y)[axis]} along axis "
                             f"{axis}")
        return fnp.reshape(fnp.diff(x), tuple(-1 if i == axis else 1 for i in range(_ndim(y))))
    if _shape(x) != _shape(y):
        raise ShapeError(f"scipy.integrate.{fn}: x must be 1-d or of y's shape {_shape(y)}, got {_shape(x)}")
    return fnp.diff(x, axis=axis)


def _along(y, axis: int, start, stop, step=None):
    return y[tuple(slice(start, stop, step) if i == axis else slice(None) for i in range(_ndim(y)))]


def cumulative_trapezoid(y, x=None, dx=1.0, axis: int = -1, initial=None):
    """scipy's `cumulative_trapezoid`: the running trapezoidal integral along `axis` (one fewer value, or
    `initial` (scipy accepts 0 only) prepended)."""
    y = fnp.asarray(y)
    axis = _axis(axis, _ndim(y), "cumulative_trapezoid")
    d = _spacings(y, x, dx, axis, "cumulative_trapezoid")
    out = fnp.cumsum(d * (_along(y, axis, 1, None) + _along(y, axis, None, -1)) / 2.0, axis=axis)
    if initial is None:
        return out
    if initial != 0:
        raise ShapeError(f"scipy.integrate.cumulative_trapezoid: initial must be None or 0 (scipy's rule), got "
                         f"{initial!r}")
    zero = fnp.zeros_like(_along(out, axis, 0, 1))
    return fnp.concatenate([zero, out], axis=axis)


def _simpson_pairs(y, h, axis: int, n: int):
    """Composite Simpson over the first n samples (n odd): one parabola per pair of intervals."""
    y0, y1, y2 = (_along(y, axis, s, n - 2 + s if n - 2 + s < _shape(y)[axis] else None, 2) for s in (0, 1, 2))
    if not hasattr(h, "shape") or _ndim(h) == 0:   # uniform spacing
        return fnp.sum(h / 3.0 * (y0 + 4.0 * y1 + y2), axis=axis)
    h0, h1 = _along(h, axis, 0, n - 1, 2), _along(h, axis, 1, n - 1, 2)
    hsum, ratio = h0 + h1, h0 / h1
    return fnp.sum(hsum / 6.0 * (y0 * (2.0 - 1.0 / ratio) + y1 * (hsum * hsum / (h0 * h1)) + y2 * (2.0 - ratio)),
                   axis=axis)


def simpson(y, *, x=None, dx=1.0, axis: int = -1):
    """scipy's `simpson` (1.11 and later): composite Simpson's rule along `axis`; with an even number of samples
    the last interval is integrated by the parabola through the last three (Cartwright's correction); two
    samples give the trapezoid."""
    y = fnp.asarray(y)
    axis = _axis(axis, _ndim(y), "simpson")
    n = _shape(y)[axis]
    if n < 2:
        raise ShapeError(f"scipy.integrate.simpson: needs at least 2 samples along axis {axis}, got {n}")
    h = _spacings(y, x, dx, axis, "simpson")
    if n == 2:
        return fnp.sum(h * (_along(y, axis, 1, None) + _along(y, axis, None, -1)) / 2.0, axis=axis)
    if n % 2 == 1:
        return _simpson_pairs(y, h, axis, n)
    total = _simpson_pairs(y, h, axis, n - 1)
    h0, h1 = (_along(h, axis, -2, -1), _along(h, axis, -1, None)) if hasattr(h, "shape") and _ndim(h) else (h, h)
    alpha = (2.0 * h1 * h1 + 3.0 * h0 * h1) / (6.0 * (h0 + h1))
    beta = (h1 * h1 + 3.0 * h0 * h1) / (6.0 * h0)
    eta = h1 * h1 * h1 / (6.0 * h0 * (h0 + h1))
    last = alpha * _along(y, axis, -1, None) + beta * _along(y, axis, -2, -1) - eta * _along(y, axis, -3, -2)
    return total + fnp.sum(last, axis=axis)
