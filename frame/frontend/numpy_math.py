"""frame.numpy's elementwise functions that normalise their arguments (`power`, `round`) or are built from
other ops (`copysign`, `fmax`, `deg2rad`, ...), and the differences, sums and products along an
axis (`diff`, `gradient`, `trapezoid`, `cross`, `polyval`, `convolve`, `correlate`); the one-op functions (`exp`, `add`, `tan`,
`mod`, ...) are generated from the registry."""
from __future__ import annotations

import numpy as _np

import builtins
import math

from ..errors import ShapeError
from ..tracing import Tracer, bind
from .args import _axis, _dtype, _ndim, _shape
from .numpy_creation import as_operand
from .numpy_logic import astype, where
from .numpy_shape import broadcast_to, concatenate, getitem, moveaxis, pad, reshape, stack, take

__all__ = ['power', 'pow', 'round', 'around', 'float_power', 'deg2rad', 'radians', 'rad2deg', 'degrees',
           'signbit', 'copysign', 'fmax', 'fmin', 'diff', 'gradient', 'trapezoid', 'cross', 'polyval', 'convolve',
           'correlate', 'unwrap', 'vander']


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


# -- elementwise functions built from other ops ------------------------------------------------------
def _inexact(x):
    """`x` as numpy's float ufuncs see it (lists as arrays): bool and integers in float64."""
    x = as_operand(x)
    return astype(x, "float64") if _dtype(x) in ("bool", "int32", "int64") else x


def float_power(x1, x2):
    """numpy's `float_power`: `x1 ** x2` computed in float64 (complex128 for complex operands)."""
    wide = "complex128" if any((_dtype(x) or "").startswith("complex") for x in (x1, x2)) else "float64"
    return bind("power", astype(x1, wide), astype(x2, wide))


def deg2rad(x):
    """Degrees to radians, `x * (pi / 180)` as numpy computes it (integers in float64)."""
    return _inexact(x) * (math.pi / 180.0)


def rad2deg(x):
    """Radians to degrees, `x * (180 / pi)` as numpy computes it (integers in float64)."""
    return _inexact(x) * (180.0 / math.pi)


radians, degrees = deg2rad, rad2deg


def signbit(x):
    """Whether the sign bit is set (bool): true for negative numbers and -0.0 (-0.0 is told from +0.0
    by `arctan2(x, -1)`, -pi against pi); false for NaN (a NaN with its sign bit set included)."""
    dtype = _dtype(x)
    if dtype == "bool":
        return bind("not_equal", x, x)
    if dtype in ("int32", "int64"):
        return bind("less", x, 0)
    return bind("less", bind("arctan2", x, _np.asarray(-1.0, dtype)), 0)


def copysign(x1, x2):
    """`|x1|` with the sign of `x2` (its sign bit, so -0.0 counts as negative); integers in float64."""
    x1, x2 = _inexact(x1), _inexact(x2)
    magnitude = bind("abs", x1)
    return where(signbit(x2), -magnitude, magnitude)


def _nan_ignoring(op: str):
    def function(x1, x2):
        x1, x2 = as_operand(x1), as_operand(x2)
        if not any((_dtype(x) or "").startswith(("float", "complex")) for x in (x1, x2)):
            return bind(op, x1, x2)
        return where(bind("isnan", x2), x1, where(bind("isnan", x1), x2, bind(op, x1, x2)))
    function.__name__ = function.__qualname__ = "f" + op[:3]
    function.__doc__ = (f"numpy's `f{op[:3]}`: the elementwise {op}, ignoring NaNs (NaN only where both are NaN); "
                        f"ties share the derivative as `{op}`'s do")
    return function


fmax, fmin = _nan_ignoring("maximum"), _nan_ignoring("minimum")


# -- differences, integrals and products along an axis -----------------------------------------------
def _along(axis: int, index):
    return (slice(None),) * axis + (index,)


def diff(a, n: int = 1, axis: int = -1, prepend=None, append=None):
    """numpy's `diff`: the `n`-th forward difference `a[i + 1] - a[i]` along `axis` (bool: `!=`), after
    joining `prepend`/`append` (scalars broadcast to one slice)."""
    if isinstance(n, bool) or not isinstance(n, (int, _np.integer)) or n < 0:
        raise ShapeError(f"frame.numpy.diff: order n must be a non-negative int, got {n!r}")
    a, prepend, append = as_operand(a), as_operand(prepend), as_operand(append)
    rank = _ndim(a)
    if rank == 0:
        raise ShapeError("frame.numpy.diff requires an input that is at least one dimensional")
    axis = _axis(axis, rank, "diff")
    parts = []
    for extra in (prepend, a, append):
        if extra is None:
            continue
        if extra is not a and _ndim(extra) == 0:
            extra = broadcast_to(extra, tuple(1 if i == axis else d for i, d in enumerate(_shape(a))))
        parts.append(extra)
    y = concatenate(parts, axis=axis) if len(parts) > 1 else a
    for _ in range(int(n)):
        later, earlier = getitem(y, _along(axis, slice(1, None))), getitem(y, _along(axis, slice(None, -1)))
        y = bind("not_equal", later, earlier) if _dtype(y) == "bool" else later - earlier
    return y


def _spacing(h, length: int, axis: int):
    """numpy.gradient's spacing for one axis: a scalar, or coordinates (1-d, `length` of them) whose
    differences become the spacing (a scalar again when concrete and uniform, as numpy decides; traced
    coordinates take the general formula, equal up to rounding)."""
    if _ndim(h) == 0:
        return h if isinstance(h, Tracer) else float(h)
    if _ndim(h) != 1 or _shape(h)[0] != length:
        raise ShapeError(f"frame.numpy.gradient: the coordinates of axis {axis} must be 1-d of its length {length}, "
                         f"got shape {_shape(h)}")
    if isinstance(h, Tracer):
        return diff(astype(h, "float64") if _dtype(h) in ("int32", "int64") else h)
    h = _np.asarray(h)
    dx = _np.diff(h.astype(_np.float64) if h.dtype.kind in "iub" else h)
    return float(dx[0]) if _np.ptp(dx) == 0 else dx


def gradient(f, *varargs, axis=None, edge_order: int = 1):
    """numpy's `gradient`: second-order central differences inside, first- or second-order (`edge_order`)
    one-sided ones at the ends, along every axis (or `axis`); the spacing per axis is a number or the
    coordinates (uniform or not), as numpy takes it. One array for one axis, else a tuple."""
    f = as_operand(f)
    shape = _shape(f)
    axes = tuple(range(len(shape))) if axis is None else \
        tuple(_axis(a, len(shape), "gradient") for a in ((axis,) if isinstance(axis, (int, _np.integer)) else axis))
    if edge_order not in (1, 2):
        raise ShapeError(f"frame.numpy.gradient: edge_order must be 1 or 2, got {edge_order!r}")
    if len(varargs) not in (0, 1, len(axes)):
        raise ShapeError(f"frame.numpy.gradient: {len(varargs)} spacings given for {len(axes)} axes")
    spacings = list(varargs) * len(axes) if len(varargs) == 1 else list(varargs) or [1.0] * len(axes)
    if _dtype(f) in ("bool", "int32", "int64"):
        f = astype(f, "float64")
    outputs = [_gradient_along(f, ax, _spacing(h, shape[ax], ax), edge_order) for ax, h in zip(axes, spacings)]
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def _gradient_along(f, axis: int, dx, edge_order: int):
    n, rank, dtype = _shape(f)[axis], _ndim(f), _dtype(f)
    if n < edge_order + 1:
        raise ShapeError(f"frame.numpy.gradient: axis {axis} of shape {_shape(f)} is too short; it needs at least "
                         f"edge_order + 1 = {edge_order + 1} elements")
    part = lambda start, stop=None: getitem(f, _along(axis, slice(start, stop)))     # noqa: E731
    at = lambda i: getitem(f, _along(axis, slice(i, i + 1 if i != -1 else None)))    # noqa: E731

    def coef(c):   # coefficients in f's dtype, laid along `axis`
        c = astype(c, dtype) if isinstance(c, Tracer) else _np.asarray(c, dtype)
        return reshape(c, _shape(c) + (1,) * (rank - axis - 1)) if _ndim(c) else c

    uniform = _ndim(dx) == 0
    if uniform:
        inner = (part(2) - part(None, -2)) / coef(2.0 * dx)
    else:
        dx1, dx2 = getitem(dx, slice(None, -1)), getitem(dx, slice(1, None))
        inner = coef(-dx2 / (dx1 * (dx1 + dx2))) * part(None, -2) + coef((dx2 - dx1) / (dx1 * dx2)) * part(1, -1) \
            + coef(dx1 / (dx2 * (dx1 + dx2))) * part(2)
    if edge_order == 1:
        first = (at(1) - at(0)) / coef(dx if uniform else getitem(dx, 0))
        last = (at(-1) - at(-2)) / coef(dx if uniform else getitem(dx, -1))
    else:
        if uniform:
            a, b, c = -1.5 / dx, 2.0 / dx, -0.5 / dx
            a2, b2, c2 = 0.5 / dx, -2.0 / dx, 1.5 / dx
        else:
            d1, d2 = getitem(dx, 0), getitem(dx, 1)
            a, b, c = -(2.0 * d1 + d2) / (d1 * (d1 + d2)), (d1 + d2) / (d1 * d2), -d1 / (d2 * (d1 + d2))
            d1, d2 = getitem(dx, -2), getitem(dx, -1)
            a2, b2, c2 = d2 / (d1 * (d1 + d2)), -(d2 + d1) / (d1 * d2), (2.0 * d2 + d1) / (d2 * (d1 + d2))
        first = coef(a) * at(0) + coef(b) * at(1) + coef(c) * at(2)
        last = coef(a2) * at(-3) + coef(b2) * at(-2) + coef(c2) * at(-1)
    return concatenate([first, inner, last], axis=axis) if n > 2 else concatenate([first, last], axis=axis)


def trapezoid(y, x=None, dx=1.0, axis: int = -1):
    """numpy's `trapezoid`: the integral of `y` along `axis` by the trapezoidal rule, over the sample
    points `x` (1-d, or `y`'s shape) or with the spacing `dx`; differentiable in `y` and `x`."""
    y, x = as_operand(y), as_operand(x)
    rank = _ndim(y)
    axis = _axis(axis, rank, "trapezoid")
    if x is None:
        d = dx
    else:
        d = diff(x, axis=-1 if _ndim(x) == 1 else axis)
        if _ndim(x) == 1:
            d = reshape(d, tuple(-1 if i == axis else 1 for i in range(rank)))
    later, earlier = getitem(y, _along(axis, slice(1, None))), getitem(y, _along(axis, slice(None, -1)))
    return bind("sum", d * (later + earlier) / 2.0, axes=(axis,), keepdims=False)


def cross(a, b, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis=None):
    """numpy's `cross` of 3-vectors (and 2-vectors: their z component, or a 3-vector with the other) along
    `axisa`/`axisb` (`axis` sets all three), the result's components along `axisc`; broadcasting."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = as_operand(a), as_operand(b)
    a = moveaxis(a, _axis(axisa, _ndim(a), "cross"), -1)
    b = moveaxis(b, _axis(axisb, _ndim(b), "cross"), -1)
    na, nb = _shape(a)[-1], _shape(b)[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ShapeError(f"frame.numpy.cross: incompatible dimensions for cross product (dimension must be 2 or 3), "
                         f"got {na} and {nb}")
    ac = [getitem(a, (Ellipsis, i)) for i in range(na)]
    bc = [getitem(b, (Ellipsis, i)) for i in range(nb)]
    if na == nb == 2:
        return ac[0] * bc[1] - ac[1] * bc[0]
    if na == 2:
        parts = [ac[1] * bc[2], -(ac[0] * bc[2]), ac[0] * bc[1] - ac[1] * bc[0]]
    elif nb == 2:
        parts = [-(ac[2] * bc[1]), ac[2] * bc[0], ac[0] * bc[1] - ac[1] * bc[0]]
    else:
        parts = [ac[1] * bc[2] - ac[2] * bc[1], ac[2] * bc[0] - ac[0] * bc[2], ac[0] * bc[1] - ac[1] * bc[0]]
    shape = _np.broadcast_shapes(*(_shape(p) for p in parts))
    c = stack([broadcast_to(p, shape) for p in parts], axis=-1)
    return moveaxis(c, -1, _axis(axisc, len(shape) + 1, "cross"))


def polyval(p, x):
    """numpy's `polyval`: the polynomial with coefficients `p` (highest power first) at `x`, by Horner's
    scheme as numpy evaluates it; differentiable in both."""
    p, x = as_operand(p), as_operand(x)
    if _ndim(p) != 1:
        raise ShapeError(f"frame.numpy.polyval: p must be 1-d, got shape {_shape(p)}")
    y = bind("mul", x, 0) if _dtype(x) != "bool" else astype(x, "int64") * 0
    for i in range(_shape(p)[0]):
        y = y * x + getitem(p, i)
    return y


def _sliding(a, v, mode: str, op: str):
    """numpy's 1-d discrete convolution of `a` with `v` in `mode` (full, same, valid): the padded `a` read
    through a window matrix (a gather with static indices) times the reversed `v`, summed. O(len(a) len(v))."""
    a, v = as_operand(a), as_operand(v)
    if _ndim(a) != 1 or _ndim(v) != 1:
        raise ShapeError(f"frame.numpy.{op}: needs two 1-d arrays, got shapes {_shape(a)} and {_shape(v)}")
    if mode not in ("full", "same", "valid"):
        raise ShapeError(f"frame.numpy.{op}: mode must be 'full', 'same' or 'valid', got {mode!r}")
    n, m = _shape(a)[0], _shape(v)[0]
    if n == 0 or m == 0:
        raise ShapeError(f"frame.numpy.{op}: the arrays must not be empty, got shapes {_shape(a)} and {_shape(v)}")
    padded = pad(a, (m - 1, m - 1))
    windows = take(padded, _np.arange(n + m - 1)[:, None] + _np.arange(m)[None, :])   # (n + m - 1, m)
    product = windows * getitem(v, slice(None, None, -1))
    full = astype(bind("sum", product, axes=(1,), keepdims=False), _dtype(product))   # ints stay in their dtype
    if mode == "full":
        return full
    if mode == "valid":
        return getitem(full, slice(builtins.min(n, m) - 1, builtins.max(n, m)))
    start = (builtins.min(n, m) - 1) // 2
    return getitem(full, slice(start, start + builtins.max(n, m)))


def convolve(a, v, mode: str = "full"):
    """numpy's `convolve` of two 1-d arrays (modes full, same, valid); differentiable in both."""
    return _sliding(a, v, mode, "convolve")


def correlate(a, v, mode: str = "valid"):
    """numpy's `correlate` of two 1-d arrays, `c[k] = sum_n a[n + k] conj(v[n])` (modes valid, same, full)."""
    a, v = as_operand(a), as_operand(v)
    if _ndim(v) == 1 and (_dtype(v) or "").startswith("complex"):
        v = bind("conj", v)
    backwards = slice(None, None, -1)
    if _ndim(a) == 1 and _ndim(v) == 1 and _shape(v)[0] > _shape(a)[0]:   # numpy swaps, then reverses the result
        return getitem(_sliding(v, getitem(a, backwards), mode, "correlate"), backwards)
    return _sliding(a, getitem(v, backwards) if _ndim(v) == 1 else v, mode, "correlate")


def unwrap(p, discont=None, axis: int = -1, *, period: float = 2 * math.pi):
    """numpy's `unwrap`: jumps between neighbours larger than `discont` (default period / 2) along `axis`
    replaced by their complement modulo `period`, as numpy computes it (float operands)."""
    p = _inexact(p)
    axis = _axis(axis, _ndim(p), "unwrap")
    dd = diff(p, axis=axis)
    discont = period / 2 if discont is None else discont
    high = period / 2
    ddmod = bind("mod", dd + high, period) - high
    ddmod = where((ddmod == -high) & (dd > 0), high, ddmod)   # numpy's choice at exactly half a period
    correction = where(bind("abs", dd) < discont, 0.0, ddmod - dd)
    first = getitem(p, _along(axis, slice(0, 1)))
    rest = getitem(p, _along(axis, slice(1, None))) + bind("cumsum", correction, axis=axis)
    return concatenate([first, rest], axis=axis)


def vander(x, N=None, increasing: bool = False):
    """numpy's `vander`: the powers of the 1-d `x` as columns, highest first (lowest with `increasing`)."""
    x = as_operand(x)
    if _ndim(x) != 1:
        raise ShapeError(f"frame.numpy.vander: x must be 1-d, got shape {_shape(x)}")
    n = _shape(x)[0] if N is None else N
    powers = _np.arange(n) if increasing else _np.arange(n)[::-1]
    if n == 0:
        return bind("mul", reshape(x, (-1, 1)), _np.zeros((1, 0), _dtype(x)))
    ones = _np.ones(_shape(x), _dtype(x))   # x ** 0 is 1 for inf and nan too
    columns = [ones if k == 0 else x if k == 1 else power(x, int(k)) for k in powers]
    return stack(columns, axis=1)
