"""frame.numpy's reductions, with numpy's signatures (scipy's for `logsumexp`).

`axis` is None, an int or a tuple of ints (one int for the index and running functions); `dtype=`
converts the operand first, as numpy accumulates in that dtype; `out=` and other arguments frame
does not take are refused by name. `sum` and `mean` keep `(x, axis, keepdims)` as their positional
order (Tracer.sum passes keepdims third); their dtype= is keyword-only.
"""
from __future__ import annotations

import builtins
import math

import numpy as _np

from ..errors import ShapeError, TraceError
from ..ir.types import canonical_dtype
from ..tracing import Tracer, bind
from .args import _axes, _axis, _dtype, _ndim, _shape
from .numpy_shape import broadcast_to, diagonal, reshape

__all__ = ["sum", "mean", "prod", "max", "amax", "min", "amin", "argmax", "argmin", "cumsum", "cumprod", "var",
           "std", "logsumexp", "all", "any", "count_nonzero", "ptp", "average", "cumulative_sum", "cumulative_prod",
           "nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar", "nanstd", "nanargmax", "nanargmin", "nancumsum",
           "nancumprod", "cov", "corrcoef"]


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


def ptp(a, axis=None, out=None, keepdims: bool = False):
    """The range `max - min` over `axis` (numpy's `ptp`)."""
    _refuse("ptp", out=out)
    return bind("sub", _reduce("max", a, axis, keepdims), _reduce("min", a, axis, keepdims))


def average(a, axis=None, weights=None, returned: bool = False, *, keepdims: bool = False):
    """numpy's `average`: the mean over `axis`, or `sum(a * w) / sum(w)` with `weights` (of `a`'s shape, or
    1-d along an int `axis`); with `returned`, also the sum of the weights (broadcast to the result).
    Integers in float64; differentiable in `a` and the weights."""
    if weights is None:
        avg = mean(a, axis, keepdims)
        if not returned:
            return avg
        count = math.prod(_shape(a)) // builtins.max(math.prod(_shape(avg)), 1)
        return avg, broadcast_to(_np.asarray(count, _dtype(avg)), _shape(avg))
    shape = _shape(a)
    if _shape(weights) != shape:
        if axis is None:
            raise ShapeError(f"frame.numpy.average: axis must be given when weights {_shape(weights)} and a {shape} "
                             "differ in shape")
        ax = _axis(axis, len(shape), "average")
        if len(_shape(weights)) != 1 or _shape(weights)[0] != shape[ax]:
            raise ShapeError(f"frame.numpy.average: 1-d weights must have the length of axis {ax} of a {shape}, got "
                             f"shape {_shape(weights)}")
        weights = reshape(weights, tuple(-1 if i == ax else 1 for i in range(len(shape))))
    if not isinstance(weights, Tracer) and _np.any(_np.sum(_np.broadcast_to(weights, shape), axis=axis) == 0):
        raise ShapeError("frame.numpy.average: the weights sum to zero, so they cannot be normalized")
    wide = "float64" if _dtype(a) in ("bool", "int32", "int64") else None
    a, weights = _cast(a, wide, "average"), _cast(weights, wide, "average")
    axes = _axes(axis, len(shape), "average")
    scale = bind("sum", broadcast_to(weights, shape), axes=axes, keepdims=bool(keepdims))
    avg = bind("div", bind("sum", bind("mul", a, weights), axes=axes, keepdims=bool(keepdims)), scale)
    return (avg, scale) if returned else avg


def _cumulative_initial(op: str, x, axis, dtype, include_initial: bool):
    if axis is None:
        if _ndim(x) != 1:
            raise ShapeError(f"frame.numpy.{op}: axis must be given for an array of rank {_ndim(x)} "
                             "(numpy's rule; None is for 1-d arrays)")
        axis = 0
    y = _cumulative("cumsum" if op == "cumulative_sum" else "cumprod", x, axis, dtype, None)
    if not include_initial:
        return y
    axis = _axis(axis, _ndim(x), op)
    first = tuple(1 if i == axis else d for i, d in enumerate(_shape(y)))
    start = bind("broadcast_to", _np.asarray(0 if op == "cumulative_sum" else 1, _dtype(y)), shape=first)
    return bind("concat", start, y, axis=axis)


def cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial: bool = False):
    """numpy 2's `cumulative_sum`: `cumsum` along `axis` (required above 1-d), from 0 with `include_initial`."""
    _refuse("cumulative_sum", out=out)
    return _cumulative_initial("cumulative_sum", x, axis, dtype, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial: bool = False):
    """numpy 2's `cumulative_prod`: `cumprod` along `axis` (required above 1-d), from 1 with `include_initial`."""
    _refuse("cumulative_prod", out=out)
    return _cumulative_initial("cumulative_prod", x, axis, dtype, include_initial)


# -- the NaN-ignoring reductions: NaNs stand in as the reduction's identity --------------------------
def _nan_as(a, value):
    if not (_dtype(a) or "").startswith(("float", "complex")):
        return a
    return bind("where", bind("isnan", a), _np.asarray(value, _dtype(a)), a)


def _count(a, axis, keepdims):
    """The non-NaN elements over `axis`, in `a`'s float dtype (numpy divides by the count in that dtype)."""
    present = bind("logical_not", bind("isnan", a))
    return bind("convert", _reduce("sum", present, axis, keepdims), dtype=_dtype(a))


def nansum(a, axis=None, dtype=None, out=None, keepdims: bool = False):
    """`sum` treating NaNs as zero."""
    return sum(_nan_as(a, 0), axis, keepdims, dtype=dtype, out=out)


def nanprod(a, axis=None, dtype=None, out=None, keepdims: bool = False):
    """`prod` treating NaNs as one."""
    return prod(_nan_as(a, 1), axis, dtype, out, keepdims)


def _nan_extremum(op: str, a, axis, out, keepdims):
    _refuse(f"nan{op}", out=out)
    if not (_dtype(a) or "").startswith("float"):
        return _reduce(op, a, axis, keepdims)
    y = _reduce(op, _nan_as(a, -_np.inf if op == "max" else _np.inf), axis, keepdims)
    all_nan = _reduce("all", bind("isnan", a), axis, keepdims)
    return bind("where", all_nan, _np.asarray(_np.nan, _dtype(a)), y)   # numpy: NaN (and a warning)


def nanmax(a, axis=None, out=None, keepdims: bool = False):
    """`max` ignoring NaNs; NaN where a slice holds only NaNs."""
    return _nan_extremum("max", a, axis, out, keepdims)


def nanmin(a, axis=None, out=None, keepdims: bool = False):
    """`min` ignoring NaNs; NaN where a slice holds only NaNs."""
    return _nan_extremum("min", a, axis, out, keepdims)


def nanmean(a, axis=None, dtype=None, out=None, keepdims: bool = False):
    """`mean` of the non-NaN elements; NaN where a slice holds only NaNs."""
    _refuse("nanmean", out=out)
    a = _inexact(a, dtype, "nanmean")
    if not (_dtype(a) or "").startswith("float"):
        return mean(a, axis, keepdims)
    return bind("div", _reduce("sum", _nan_as(a, 0), axis, keepdims), _count(a, axis, keepdims))


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims: bool = False):
    """`var` of the non-NaN elements (divided by their count - `ddof`); NaN where that is <= 0."""
    _refuse("nanvar", out=out)
    a = _inexact(a, dtype, "nanvar")
    if not (_dtype(a) or "").startswith("float"):
        return var(a, axis, None, None, ddof, keepdims)
    count = _count(a, axis, True)
    centred = _nan_as(bind("sub", a, bind("div", _reduce("sum", _nan_as(a, 0), axis, True), count)), 0)
    dof = bind("sub", _count(a, axis, keepdims), float(ddof))
    total = _reduce("sum", bind("square", centred), axis, keepdims)
    return bind("where", bind("less_equal", dof, 0), _np.asarray(_np.nan, _dtype(a)), bind("div", total, dof))


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims: bool = False):
    """`std` of the non-NaN elements: `sqrt(nanvar)`."""
    return bind("sqrt", nanvar(a, axis, dtype, out, ddof, keepdims))


def _nan_arg(op: str, a, axis, out, keepdims):
    _refuse(f"nan{op}", out=out)
    if (_dtype(a) or "").startswith("float"):
        if not isinstance(a, Tracer) and _np.any(_np.all(_np.isnan(a), axis=axis)):
            raise ShapeError(f"frame.numpy.nan{op}: All-NaN slice encountered (numpy raises ValueError too)")
        a = _nan_as(a, -_np.inf if op == "argmax" else _np.inf)
    return _arg(op, a, axis, None, keepdims)


def nanargmax(a, axis=None, out=None, *, keepdims: bool = False):
    """`argmax` ignoring NaNs (a concrete all-NaN slice is refused, as numpy refuses it)."""
    return _nan_arg("argmax", a, axis, out, keepdims)


def nanargmin(a, axis=None, out=None, *, keepdims: bool = False):
    """`argmin` ignoring NaNs (a concrete all-NaN slice is refused, as numpy refuses it)."""
    return _nan_arg("argmin", a, axis, out, keepdims)


def nancumsum(a, axis=None, dtype=None, out=None):
    """`cumsum` treating NaNs as zero."""
    return cumsum(_nan_as(a, 0), axis, dtype, out)


def nancumprod(a, axis=None, dtype=None, out=None):
    """`cumprod` treating NaNs as one."""
    return cumprod(_nan_as(a, 1), axis, dtype, out)


# -- covariance and correlation ---------------------------------------------------------------------
def _observations(m, rowvar: bool, dtype: str):
    """numpy.cov's variables-by-observations matrix: at least 2-d, transposed unless `rowvar`."""
    if _ndim(m) > 2:
        raise ShapeError(f"frame.numpy.cov: m has more than 2 dimensions (shape {_shape(m)})")
    x = _cast(m, dtype, "cov")
    if _ndim(x) < 2:
        x = reshape(x, (1, -1))
    if not rowvar and _shape(x)[0] != 1:
        x = bind("transpose", x, perm=(1, 0))
    return x


def cov(m, y=None, rowvar: bool = True, bias: bool = False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    """numpy's `cov` (without `fweights`/`aweights`): the covariance matrix of the variables in the rows
    of `m` (columns unless `rowvar`), and of `y`'s; float64 unless `dtype` says otherwise."""
    _refuse("cov", fweights=fweights, aweights=aweights)
    if dtype is None:
        dtype = _np.result_type(*(_dtype(v) for v in (m, y) if v is not None), _np.float64).name
    x = _observations(m, rowvar, canonical_dtype(dtype))
    if y is not None:
        x = bind("concat", x, _observations(y, rowvar, canonical_dtype(dtype)), axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    n = _shape(x)[1]
    centred = bind("sub", x, bind("div", bind("sum", x, axes=(1,), keepdims=True), float(n)))
    other = bind("transpose", centred, perm=(1, 0))
    if _dtype(x).startswith("complex"):
        other = bind("conj", other)
    c = bind("mul", bind("matmul", centred, other), 1.0 / (n - ddof) if n > ddof else _np.inf)   # numpy's 1 / fact
    shape = tuple(d for d in _shape(c) if d != 1)
    return bind("reshape", c, shape=shape)


def corrcoef(x, y=None, rowvar: bool = True, *, dtype=None):
    """numpy's `corrcoef`: the correlation coefficients, `cov / (std_i std_j)`, real parts clipped to [-1, 1]."""
    c = cov(x, y, rowvar, dtype=dtype)
    if _ndim(c) == 0:
        return bind("div", c, c)
    d = bind("real", diagonal(c)) if _dtype(c).startswith("complex") else diagonal(c)
    stddev = bind("sqrt", d)
    c = bind("div", bind("div", c, reshape(stddev, (-1, 1))), reshape(stddev, (1, -1)))
    if _dtype(c).startswith("complex"):
        return bind("complex", bind("minimum", bind("maximum", bind("real", c), -1.0), 1.0), bind("imag", c))
    return bind("minimum", bind("maximum", c, -1.0), 1.0)
