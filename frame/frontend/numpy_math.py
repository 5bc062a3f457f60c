"""frame.numpy's elementwise functions that normalise their arguments (`power`, `round`); the one-op
functions (`exp`, `add`, `tan`, `mod`, ...) are generated from the registry."""
from __future__ import annotations

import numpy as _np

from ..errors import ShapeError
from ..tracing import Tracer, bind
from .args import _dtype
from .numpy_logic import astype

__all__ = ['power', 'pow', 'round', 'around']


def power(x, p):
    """`x ** p`, elementwise (numpy's `power`; `pow` is its numpy 2 alias).

    A Python-number exponent of a float base is the `pow` op's attribute; an array, numpy scalar or
    traced exponent is the broadcasting `power` op, whose operands are promoted as numpy's. Integer
    bases follow numpy: a non-negative int exponent keeps integers (repeated products), a float
    exponent computes in float64, a negative int exponent is refused as numpy refuses it (and a bool
    base to an int power, which numpy computes in int8).
    """
    if isinstance(p, (list, tuple)):
        p = _np.asarray(p)
    if isinstance(p, (Tracer, _np.ndarray, _np.generic)):
        return bind("power", x, p)
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise ShapeError(f"op 'pow': the exponent must be a number or an array, got {type(p).__name__} {p!r}")
    try:   # a ragged list (dtype None) or a string is no numeric array; `pow` then refuses it by name
        kind = _np.dtype(_dtype(x)).kind
    except TypeError:
        kind = "f"
    if kind in "iub":
        if isinstance(p, float):
            return bind("pow", astype(x, "float64"), exponent=p)
        if p < 0:
            raise ShapeError(f"op 'pow': integers to negative integer powers are not allowed (numpy refuses "
                             f"them too), got exponent {p}")
        if kind == "b":   # numpy computes bool ** int in int8, a dtype frame does not have
            raise ShapeError("op 'pow': numpy computes a bool base to an int power in int8, which frame does not "
                             "have; cast the base (astype) first")
        return _integer_power(x, p)
    return bind("pow", x, exponent=float(p))


def _integer_power(x, p: int):
    """x ** p for integers by repeated squaring (numpy's integer power, wrapping on overflow as it does)."""
    result, base = None, x
    while p:
        if p & 1:
            result = base if result is None else bind("mul", result, base)
        p >>= 1
        if p:
            base = bind("mul", base, base)
    return bind("add", bind("mul", x, 0), 1) if result is None else result


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
