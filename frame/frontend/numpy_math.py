"""frame.numpy's elementwise functions that normalise their arguments (`power`, `round`); the one-op
functions (`exp`, `add`, `tan`, `mod`, ...) are generated from the registry."""
from __future__ import annotations

import numpy as _np

from ..errors import ShapeError
from ..tracing import Tracer, bind

__all__ = ['power', 'pow', 'round', 'around']


def power(x, p):
    """`x ** p`, elementwise (numpy's `power`; `pow` is its numpy 2 alias).

    A Python number (or a numpy scalar or 0-d array) exponent is the `pow` op's attribute: a numpy
    exponent must then have `x`'s dtype, since numpy would widen the result. An array or traced
    exponent is the broadcasting `power` op, whose operands are promoted as numpy's.
    """
    if isinstance(p, (list, tuple)):
        p = _np.asarray(p)
    if isinstance(p, Tracer) or isinstance(p, _np.ndarray) and p.ndim > 0:
        return bind("power", x, p)
    if isinstance(p, (_np.generic, _np.ndarray)):
        if _np.dtype(p.dtype) != getattr(x, "dtype", None):
            raise ShapeError(f"op 'pow': the exponent's dtype {p.dtype} differs from the base's "
                             f"{getattr(x, 'dtype', type(x).__name__)}; frame does not promote")
    elif isinstance(p, bool) or not isinstance(p, (int, float)):
        raise ShapeError(f"op 'pow': the exponent must be a number or an array, got {type(p).__name__} {p!r}")
    return bind("pow", x, exponent=float(p))


pow = power  # noqa: A001  (numpy 2's name)


def _rpow(x, base):
    """`base ** x` for a traced `x` (Tracer.__rpow__): the `power` op."""
    return bind("power", base, x)


def _power_of_ten(n: int) -> float:
    # numpy's power_of_ten (multiarray/calculation.c), so that the scale has numpy's bits beyond 1e22.
    if n < 9:
        return 10.0 ** n
    scale = 1e9
    for _ in range(n - 9):
        scale *= 10.0
    return scale


def round(a, decimals: int = 0):  # noqa: A001  (numpy's name)
    """`a` rounded to `decimals` decimal places, half to even (numpy's `round`/`around`).

    As numpy computes it: `rint(a * 10**decimals) / 10**decimals` (for negative `decimals`,
    `rint(a / 10**-decimals) * 10**-decimals`), in the dtype of `a`; integers are returned as they are
    for `decimals >= 0` and computed in float64 then cast back otherwise. The derivative is zero.
    """
    if isinstance(decimals, bool) or not isinstance(decimals, (int, _np.integer)):
        raise ShapeError(f"fnp.round: decimals must be an int, got {type(decimals).__name__} {decimals!r}")
    dtype = _np.dtype(getattr(a, "dtype", None) or _np.asarray(a).dtype)
    if dtype.kind in "iu":
        if decimals >= 0:
            return a if isinstance(a, Tracer) else _np.array(a)
        wide = bind("convert", a, dtype="float64")
        return bind("convert", round(wide, decimals), dtype=dtype.name)
    if dtype.kind not in "f":
        raise ShapeError(f"fnp.round: frame rounds float and integer arrays, got {dtype}")
    if decimals == 0:
        return bind("rint", a)
    scale = _power_of_ten(abs(int(decimals)))
    if decimals > 0:
        return bind("div", bind("rint", bind("mul", a, scale)), scale)
    return bind("mul", bind("rint", bind("div", a, scale)), scale)


around = round
