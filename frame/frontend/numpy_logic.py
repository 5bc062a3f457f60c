"""frame.numpy's selection, clipping and casting: `where`, `select`, `clip`, `nan_to_num`, `astype`,
and `&`, `|`, `^`, `~` on bool values. Comparisons and the logical ufuncs are generated from their ops."""
from __future__ import annotations

import numpy as _np

from ..errors import ShapeError, TraceError
from ..ir.types import canonical_dtype
from ..tracing import bind
from .args import _dtype, _shape
from .numpy_creation import as_operand

__all__ = ["where", "select", "clip", "nan_to_num", "astype", "bitwise_and", "bitwise_or", "bitwise_xor",
           "bitwise_not", "invert", "isclose", "allclose", "array_equal"]


def _truth(cond):
    """`cond` as bool (numpy's truth value: nonzero is true). A Python number becomes a numpy bool: as a
    weak scalar it would take the values' dtype in the op's promotion."""
    if isinstance(cond, (bool, int, float, complex)):
        return _np.asarray(bool(cond))
    return cond if _dtype(cond) == "bool" else bind("not_equal", cond, 0)


def where(condition, x=None, y=None):
    """`x` where `condition` (nonzero) holds, else `y`; the three broadcast, `x` and `y` promote.

    The one-argument form (`np.nonzero`) has a data-dependent shape, which traced code cannot have."""
    if x is None or y is None:
        raise TraceError("fnp.where needs three arguments (condition, x, y); where(condition) has a "
                         "data-dependent shape (numpy's nonzero), which frame cannot trace")
    return bind("where", _truth(condition), x, y)


def select(condlist, choicelist, default=0):
    """numpy's `select`: the first choice whose condition holds, else `default`."""
    condlist, choicelist = list(condlist), list(choicelist)
    if len(condlist) != len(choicelist):
        raise ShapeError(f"fnp.select: {len(condlist)} conditions for {len(choicelist)} choices")
    if not condlist:
        raise ShapeError("fnp.select needs at least one condition")
    result = default
    for cond, choice in reversed(list(zip(condlist, choicelist))):
        if _dtype(cond) != "bool":
            raise ShapeError(f"fnp.select: conditions must be bool arrays, got {_dtype(cond)}")
        result = bind("where", cond, choice, result)
    return result


def clip(a, a_min=None, a_max=None, *, min=None, max=None):  # noqa: A002 - numpy 2's keyword names
    """numpy's `clip`: `minimum(maximum(a, a_min), a_max)` (a_max wins where a_min > a_max); either bound
    may be None. The derivative is JAX's: ties with a bound split it evenly."""
    lo = a_min if min is None else min
    hi = a_max if max is None else max
    if lo is None and hi is None:
        raise ShapeError("fnp.clip: at least one of a_min and a_max must be given")
    y = a if lo is None else bind("maximum", a, lo)
    return y if hi is None else bind("minimum", y, hi)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """nan -> `nan`, +inf -> `posinf` (default: the dtype's largest finite value), -inf -> `neginf`.
    Complex values have their real and imaginary parts replaced separately, as numpy does."""
    dtype = _dtype(x)
    if dtype is None or _np.dtype(dtype).kind not in "fc":
        return x
    if _np.dtype(dtype).kind == "c":
        parts = [nan_to_num(bind(part, x), copy, nan, posinf, neginf) for part in ("real", "imag")]
        return bind("complex", *parts)
    info = _np.finfo(dtype)
    hi = info.max if posinf is None else posinf
    lo = info.min if neginf is None else neginf
    y = bind("where", bind("isnan", x), _np.asarray(nan, dtype), x)
    y = bind("where", bind("equal", x, _np.asarray(_np.inf, dtype)), _np.asarray(hi, dtype), y)
    return bind("where", bind("equal", x, _np.asarray(-_np.inf, dtype)), _np.asarray(lo, dtype), y)


def astype(x, dtype, copy=True):
    """`x` cast to `dtype` (numpy's `astype`, unsafe casting: floats to ints truncate toward zero)."""
    dtype = canonical_dtype(dtype)
    if _dtype(x) == dtype:
        return x
    return bind("convert", x, dtype=dtype)


def _bool_only(name: str, op: str):
    def function(*operands):
        for x in operands:
            if _dtype(x) != "bool":
                raise ShapeError(f"fnp.{name}: frame has bitwise ops for bool values only, got {_dtype(x)}")
        return bind(op, *operands)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"numpy's {name} of bool values ({op})"
    return function


bitwise_and, bitwise_or, bitwise_xor = (_bool_only(f"bitwise_{n}", f"logical_{n}") for n in ("and", "or", "xor"))
bitwise_not = invert = _bool_only("invert", "logical_not")


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """numpy's `isclose`: `|a - b| <= atol + rtol * |b|` elementwise (bool), with equal infinities close
    and NaNs close to each other only with `equal_nan`; `b` computed as float, as numpy does."""
    a, b = as_operand(a), as_operand(b)
    if (_dtype(b) or "float64") in ("bool", "int32", "int64"):
        b = astype(b, "float64")
    close = bind("less_equal", bind("abs", a - b), atol + rtol * bind("abs", b))
    result = bind("logical_or", bind("logical_and", close, bind("isfinite", b)), bind("equal", a, b))
    if equal_nan:
        result = bind("logical_or", result, bind("logical_and", bind("isnan", a), bind("isnan", b)))
    return result


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element of `a` and `b` is `isclose` (a bool scalar array; numpy returns a Python bool,
    which traced code cannot have)."""
    close = isclose(a, b, rtol, atol, equal_nan)
    return bind("all", close, axes=tuple(range(len(_shape(close)))), keepdims=False)


def array_equal(a1, a2, equal_nan=False):
    """numpy's `array_equal`: same shape and elements (NaNs equal only with `equal_nan`), a bool scalar array."""
    a1, a2 = as_operand(a1), as_operand(a2)
    if _shape(a1) != _shape(a2):
        return _np.asarray(False)
    same = bind("equal", a1, a2)
    if equal_nan:
        same = bind("logical_or", same, bind("logical_and", bind("isnan", a1), bind("isnan", a2)))
    return bind("all", same, axes=tuple(range(len(_shape(same)))), keepdims=False)
