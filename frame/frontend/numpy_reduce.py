"""frame.numpy's reductions, with numpy's signatures (scipy's for `logsumexp`).

`axis` is None, an int or a tuple of ints (one int for the index and running functions); `dtype=`
converts the operand first, as numpy accumulates in that dtype; `out=` and other arguments frame
does not take are refused by name. `sum` and `mean` keep `(x, axis, keepdims)` as their positional
order (Tracer.sum passes keepdims third); their dtype= is keyword-only.
"""
from __future__ import annotations

import builtins
import math

from ..errors import TraceError
from ..ir.types import canonical_dtype
from ..tracing import bind
from .args import _axes, _axis, _dtype, _ndim, _shape

__all__ = ["sum", "mean", "prod", "max", "amax", "min", "amin", "argmax", "argmin", "cumsum", "cumprod", "var",
           "std", "logsumexp", "all", "any", "count_nonzero"]


def _refuse(op: str, **given) -> None:
    """Refuse numpy arguments frame does not implement, unless left at their defaults (None)."""
    bad = [name for name, value in given.items() if value is not None]
    if bad:
        why = " (frame's functions return new arrays)" if bad == ["out"] else ""
        raise TraceError(f"frame.numpy.{op}: the argument(s) {', '.join(f'{b}=' for b in bad)} are not "
                         f"supported{why}")


def _cast(x, dtype, op: str):
    """numpy's `dtype=` argument: the operand converted to it (None: unchanged; a non-array is left for
    the op to refuse by name)."""
    if dtype is None or _dtype(x) in (None, canonical_dtype(dtype)):
        return x
    return bind("convert", x, dtype=canonical_dtype(dtype))


def _accumulate(op: str, x, dtype, **attrs):
    """`op` accumulating in numpy's `dtype=`: the operand converted to it, and the result too where frame
    widens (int32 sums in int64: the int32 result wraps alike)."""
    y = bind(op, _cast(x, dtype, op), **attrs)
    return y if dtype is None else _cast(y, dtype, op)


def _inexact(x, dtype, op: str):
    """The operand of a function whose result is float (mean, var, logsumexp): bool and integers as
    float64, as numpy computes them; `dtype=` when given."""
    if dtype is None and _dtype(x) in ("bool", "int32", "int64"):
        dtype = "float64"
    return _cast(x, dtype, op)


def _reduce(op: str, x, axis, keepdims):
    return bind(op, x, axes=_axes(axis, _ndim(x), op), keepdims=bool(keepdims))


def sum(x, axis=None, keepdims: bool = False, *, dtype=None, out=None):  # noqa: A001 - numpy name
    """Sum over `axis` (None: all); bool and int32 add up in int64, as numpy's."""
    _refuse("sum", out=out)
    return _accumulate("sum", x, dtype, axes=_axes(axis, _ndim(x), "sum"), keepdims=bool(keepdims))


def mean(x, axis=None, keepdims: bool = False, *, dtype=None, out=None):
    """Arithmetic mean over `axis`; integers and bools are averaged in float64, as numpy's."""
    _refuse("mean", out=out)
    return _reduce("mean", _inexact(x, dtype, "mean"), axis, keepdims)


def prod(a, axis=None, dtype=None, out=None, keepdims: bool = False):
    """Product over `axis` (1 over empty axes); bool and int32 multiply in int64. The derivative is
    the product of the other elements, exact when some are zero."""
    _refuse("prod", out=out)
    return _accumulate("prod", a, dtype, axes=_axes(axis, _ndim(a), "prod"), keepdims=bool(keepdims))


def max(a, axis=None, out=None, keepdims: bool = False):  # noqa: A001 - numpy name
    """The maximum over `axis`; ShapeError over an empty axis (numpy's ValueError). At ties the
    derivative is shared equally (JAX's rule)."""
    _refuse("max", out=out)
    return _reduce("max", a, axis, keepdims)


def min(a, axis=None, out=None, keepdims: bool = False):  # noqa: A001 - numpy name
    """The minimum over `axis`; ShapeError over an empty axis. At ties the derivative is shared equally."""
    _refuse("min", out=out)
    return _reduce("min", a, axis, keepdims)


amax, amin = max, min


def _flat(a):
    return bind("reshape", a, shape=(math.prod(_shape(a)),))


def _arg(op: str, a, axis, out, keepdims):
    _refuse(op, out=out)
    if axis is None:    # numpy: the index into the flattened array; keepdims keeps every axis as size 1
        index = bind(op, _flat(a), axis=0)
        return bind("reshape", index, shape=(1,) * _ndim(a)) if keepdims else index
    return bind(op, a, axis=_axis(axis, _ndim(a), op), keepdims=bool(keepdims))


def argmax(a, axis=None, out=None, *, keepdims: bool = False):
    """The index (int64) of the first maximum along `axis` (None: of the flattened array)."""
    return _arg("argmax", a, axis, out, keepdims)


def argmin(a, axis=None, out=None, *, keepdims: bool = False):
    """The index (int64) of the first minimum along `axis` (None: of the flattened array)."""
    return _arg("argmin", a, axis, out, keepdims)


def _cumulative(op: str, a, axis, dtype, out):
    _refuse(op, out=out)
    if axis is None or _ndim(a) == 0:    # numpy: None runs over the flattened array; a scalar becomes (1,)
        if axis is not None:
            _axis(axis, 1, op)
        a, axis = _flat(a), 0
    return _accumulate(op, a, dtype, axis=_axis(axis, _ndim(a), op))


def cumsum(a, axis=None, dtype=None, out=None):
    """Running sums along `axis` (None: over the flattened array); bool and int32 accumulate in int64."""
    return _cumulative("cumsum", a, axis, dtype, out)


def cumprod(a, axis=None, dtype=None, out=None):
    """Running products along `axis` (None: over the flattened array); the derivative is exact with zeros."""
    return _cumulative("cumprod", a, axis, dtype, out)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims: bool = False):
    """The variance over `axis`, `sum((x - mean)^2) / (n - ddof)`, computed in numpy's order (so with
    its bits); integers in float64. n - ddof <= 0 divides by 0 (inf or nan), as numpy does."""
    _refuse("var", out=out)
    x = _inexact(a, dtype, "var")
    axes = _axes(axis, _ndim(x), "var")
    count = math.prod(_shape(x)[i] for i in axes)
    d = bind("sub", x, bind("mean", x, axes=axes, keepdims=True))
    return bind("div", bind("sum", bind("square", d), axes=axes, keepdims=bool(keepdims)),
                float(builtins.max(count - ddof, 0)))


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims: bool = False):
    """The standard deviation over `axis`: `sqrt(var(a, axis, ddof=ddof))`."""
    _refuse("std", out=out)
    return bind("sqrt", var(a, axis, dtype, None, ddof, keepdims))


def logsumexp(a, axis=None, b=None, keepdims: bool = False, return_sign: bool = False):
    """`log(sum(exp(a)))` over `axis`, computed stably: scipy.special.logsumexp (numpy has none);
    integers in float64. Weights `b` and `return_sign` are not supported."""
    _refuse("logsumexp", b=b, return_sign=return_sign or None)
    return _reduce("logsumexp", _inexact(a, None, "logsumexp"), axis, keepdims)


def all(a, axis=None, out=None, keepdims: bool = False):  # noqa: A001 - numpy name
    """Whether every element over `axis` is nonzero (bool; True over empty axes); any dtype."""
    _refuse("all", out=out)
    return _reduce("all", a, axis, keepdims)


def any(a, axis=None, out=None, keepdims: bool = False):  # noqa: A001 - numpy name
    """Whether some element over `axis` is nonzero (bool; False over empty axes); any dtype."""
    _refuse("any", out=out)
    return _reduce("any", a, axis, keepdims)


def count_nonzero(a, axis=None, *, keepdims: bool = False):
    """The number (int64) of nonzero elements over `axis`; any dtype."""
    return _reduce("count_nonzero", a, axis, keepdims)
