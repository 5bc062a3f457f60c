"""frame.numpy's elementwise functions that normalise their arguments (`power`, `round`) or are built from
other ops (`copysign`, `fmax`, `deg2rad`, `divmod`, `modf`, `ldexp`, `frexp`, ...), the differences, sums and
products along an axis (`diff`, `ediff1d`, `gradient`, `trapezoid`, `cross`, `convolve`, `correlate`, `matvec`,
`vecmat`), the polynomials on coefficient arrays (`polyval`, `poly`, `polyadd`, `polysub`, `polymul`, `polyder`,
`polyint`; `polyfit` is with the least squares in numpy_linalg.py) and the window functions (`hamming`, `hanning`, `blackman`, `bartlett`, `kaiser`) and `i0`; the one-op
functions (`exp`, `add`, `tan`, `mod`, ...) are generated from the registry."""
from __future__ import annotations

import numpy as _np

import builtins
import math

from ..errors import ShapeError, TraceError
from ..tracing import Tracer, bind
from .args import _axis, _dtype, _int, _ndim, _shape
from .numpy_creation import _static_indices, as_operand
from .numpy_logic import astype, clip, where
from .numpy_shape import atleast_1d, broadcast_to, concatenate, getitem, moveaxis, pad, ravel, reshape, stack, take

__all__ = ['power', 'pow', 'round', 'around', 'float_power', 'deg2rad', 'radians', 'rad2deg', 'degrees',
           'signbit', 'copysign', 'fmax', 'fmin', 'diff', 'gradient', 'trapezoid', 'cross', 'polyval', 'convolve',
           'correlate', 'unwrap', 'vander', 'divmod', 'modf', 'ldexp', 'frexp', 'positive', 'ediff1d',
           'real_if_close', 'poly', 'roots', 'polyadd', 'polysub', 'polymul', 'polyder', 'polyint', 'hamming', 'kaiser', 'i0',
           'hanning', 'blackman', 'bartlett', 'matvec', 'vecmat', 'gcd', 'lcm', 'spacing', 'nextafter', 'polydiv']


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
    scheme as numpy evaluates it; differentiable in both. A p of shape (deg + 1, ...) holds one polynomial per
    trailing index, broadcast against x, as numpy's loop over p's rows does."""
    p, x = as_operand(p), as_operand(x)
    if _ndim(p) < 1:
        raise ShapeError(f"frame.numpy.polyval: p must have at least one axis (the coefficients), got shape "
                         f"{_shape(p)}")
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
    """numpy's `vander`: the powers of the 1-d `x` as columns, highest first (lowest with `increasing`), in
    numpy's dtype (`x`'s promoted with int64: float32 gives float64) and numpy's products (x**k as
    `((x * x) * x) ...`, its `multiply.accumulate`)."""
    x = as_operand(x)
    if _ndim(x) != 1:
        raise ShapeError(f"frame.numpy.vander: x must be 1-d, got shape {_shape(x)}")
    n = _shape(x)[0] if N is None else N
    dtype = _np.promote_types(_dtype(x), _np.int64).name
    x = astype(x, dtype)
    if n == 0:
        return bind("mul", reshape(x, (-1, 1)), _np.zeros((1, 0), dtype))
    columns = [_np.ones(_shape(x), dtype)]   # x ** 0 is 1 for inf and nan too
    for k in range(1, n):
        columns.append(x if k == 1 else columns[-1] * x)
    return stack(columns if increasing else columns[::-1], axis=1)


# -- quotients, fractions and powers of two ------------------------------------------------------------
def divmod(x1, x2):  # noqa: A001  (numpy's name)
    """numpy's `divmod`: `(floor_divide(x1, x2), mod(x1, x2))` with numpy's signs (the remainder takes the
    divisor's), zero-divisor results and dtypes. The quotient's derivative is zero, the remainder's JAX's."""
    x1, x2 = as_operand(x1), as_operand(x2)
    return bind("floor_divide", x1, x2), bind("mod", x1, x2)


def _float_operand(x, op: str):
    """`x` as numpy's float-only ufuncs (modf, frexp, ldexp) take it: bool in float16, integers in float64."""
    x = as_operand(x)
    x = x if isinstance(x, Tracer) else _np.asarray(x)
    dtype = _dtype(x)
    if dtype == "bool":
        return astype(x, "float16")
    if dtype in ("int32", "int64"):
        return astype(x, "float64")
    if not (dtype or "").startswith("float"):
        raise ShapeError(f"op '{op}': needs real numbers, got {dtype}")
    return x


def _powers_of_two(dtype: str):
    """(low, high, table) of a float dtype: 2**-low is its smallest subnormal, 2**high its largest power of two,
    and table[k] is 2**(k - low), exactly, for k in [0, low + high]."""
    info = _np.finfo(dtype)
    low, high = info.nmant - info.minexp, info.maxexp - 1
    return low, high, _np.ldexp(_np.ones(low + high + 1, dtype), _np.arange(-low, high + 1))


def _scale(x, e):
    """`x * 2**e` (float `x`, integer `e`) rounded once, as numpy's ldexp: the power is a product of up to three
    exact table entries, taken in an order in which no intermediate product loses a bit that the result keeps
    (a first factor 2**(e + low) that would make it subnormal leaves a result below the smallest subnormal)."""
    low, high, table = _powers_of_two(_dtype(x))
    e = clip(astype(e, "int64"), -2 * low, 3 * high)   # beyond these, every x gives 0, inf or itself
    tiny = e < -low
    first = where(tiny, e + low, bind("minimum", e, high))
    second = where(tiny, -low, bind("minimum", e - first, high))
    for p in (first, second, e - first - second):
        x = x * take(table, p + low)
    return x


def ldexp(x1, x2):
    """numpy's `ldexp`: `x1 * 2**x2` for integer `x2`, bit for bit as numpy (one rounding: overflow to inf,
    gradual underflow), in `x1`'s float dtype (integers in float64, bool in float16); differentiable in `x1`."""
    x1, x2 = _float_operand(x1, "ldexp"), as_operand(x2)
    x2 = x2 if isinstance(x2, Tracer) else _np.asarray(x2)
    if _dtype(x2) not in ("bool", "int32", "int64"):
        raise ShapeError(f"op 'ldexp': the exponent x2 must be integers (numpy refuses others too), got {_dtype(x2)}")
    return _scale(x1, x2)


def frexp(x):
    """numpy's `frexp`: `(m, e)` with `x == m * 2**e`, `|m|` in [0.5, 1) with `x`'s sign and `e` int32; 0, -0.0,
    inf and nan give themselves and exponent 0. Bit for bit as numpy: log2's guess of the exponent is corrected
    against an exact table of the powers of two, and `m` is `x` scaled as `ldexp` scales. Integers in float64,
    bool in float16, as numpy."""
    x = _float_operand(x, "frexp")
    dtype = _dtype(x)
    low, high, table = _powers_of_two(dtype)
    table = _np.concatenate([table, _np.array([_np.inf], dtype)])   # 2**(high + 1), past the largest float
    regular = bind("isfinite", x) & (x != 0)
    a = where(regular, bind("abs", x), _np.asarray(1, dtype))
    guess = bind("floor", bind("log2", astype(a, "float64"))) + 1
    e = astype(clip(guess, 1 - low, high + 1), "int64")
    # 2**(e - 1) <= |x| < 2**e up to log2's last bit: one step up or down makes it exact
    e = e + astype(a >= take(table, e + low), "int64") - astype(a < take(table, e - 1 + low), "int64")
    return where(regular, _scale(x, -e), x), astype(where(regular, e, 0), "int32")


def _ufunc_dtype(ufunc, op: str, *operands) -> str:
    """The dtype numpy's `ufunc` computes `operands` in (Python numbers weak), read off 0-d stand-ins of their
    dtypes; ShapeError naming `op` where numpy has no loop for them."""
    stand_ins = [_np.zeros((), _dtype(x)) if isinstance(x, (Tracer, _np.ndarray, _np.generic)) else x
                 for x in operands]
    try:
        with _np.errstate(all="ignore"):
            return ufunc(*stand_ins).dtype.name
    except (TypeError, ValueError, OverflowError) as e:
        kinds = ", ".join(str(_dtype(x)) for x in operands)
        raise ShapeError(f"op '{op}': numpy has no {op} of operands of dtypes {kinds} ({e})") from None


def _in_dtype(x, dtype: str):
    return astype(x, dtype) if isinstance(x, Tracer) else _np.asarray(x, dtype)


def _integers(x1, x2, op: str) -> tuple:
    """gcd's and lcm's operands in numpy's common integer dtype (bools and floats refused, as numpy refuses them)."""
    x1, x2 = as_operand(x1), as_operand(x2)
    dtype = _ufunc_dtype(_np.gcd, op, x1, x2)
    if dtype not in ("int32", "int64"):
        raise ShapeError(f"op '{op}': frame computes {op} in int32 and int64, got {dtype}")
    return _in_dtype(x1, dtype), _in_dtype(x2, dtype), dtype


def _negated(x):
    """-|x|, which holds every magnitude of x's dtype (-2**63 included) without overflow."""
    return bind("minimum", x, -x)


def _negated_gcd(a, b, dtype: str):
    """-gcd(|a|, |b|) of the negated magnitudes `a`, `b` (see `_negated`) by Euclid's algorithm, `fmod` of non-positive
    numbers staying non-positive (so -2**63 needs no special case), unrolled a static number of steps. By Lame's
    theorem k division steps need the larger operand to be at least the Fibonacci number F(k + 2): magnitudes up to
    2**31 (int32) take at most 44 steps (F(46) <= 2**31 < F(47)), up to 2**63 (int64) at most 90 (F(92) <= 2**63 <
    F(93)). A step after the remainder reached 0 changes nothing."""
    a, b = bind("minimum", a, b), bind("maximum", a, b)   # |a| >= |b|
    for _ in range(44 if dtype == "int32" else 90):
        nonzero = b != 0
        a, b = where(nonzero, b, a), bind("fmod", a, where(nonzero, b, -1))
    return a


def gcd(x1, x2):
    """numpy's `gcd`: the greatest common divisor of |x1| and |x2|, elementwise (>= 0; gcd(0, 0) = 0; gcd(-2**63, 0)
    wraps to -2**63 as numpy's), of integers (int32, int64; bools and floats refused, as numpy refuses them). Euclid's
    algorithm unrolled over where (44 steps for int32, 90 for int64: enough for every pair), so it traces."""
    a, b, dtype = _integers(x1, x2, "gcd")
    return -_negated_gcd(_negated(a), _negated(b), dtype)


def lcm(x1, x2):
    """numpy's `lcm`: the least common multiple of |x1| and |x2|, `|x1| // gcd * |x2|` elementwise (>= 0; 0 when either
    is 0; wrapping on overflow as numpy's), of integers (int32, int64), traceable as `gcd`."""
    a, b, dtype = _integers(x1, x2, "lcm")
    a, b = _negated(a), _negated(b)
    g = _negated_gcd(a, b, dtype)
    # |a| // gcd: exact, and positive unless gcd is 1, where a // -1 could overflow (-2**63): -a wraps as numpy's does
    quotient = where(g < -1, bind("floor_divide", a, where(g < -1, g, 1)), -a)
    return -(quotient * b)


def _neighbour(x, up):
    """The float next to the finite `x` (of a float dtype) towards +inf where `up`, else towards -inf: `x` plus the
    gap, which is exact. For |x| in [2**(e-1), 2**e) (frexp's e) the gap away from zero is 2**(e - 1 - nmant), half
    that towards zero from a power of two, and never below the smallest subnormal, the gap from 0."""
    dtype = _dtype(x)
    low, _, table = _powers_of_two(dtype)
    fraction, e = frexp(x)
    inwards = (x > 0) != up   # towards zero
    k = e + (low - 1 - _np.finfo(dtype).nmant) - astype(inwards & (bind("abs", fraction) == 0.5), "int32")
    gap = take(table, where(x == 0, 0, bind("maximum", k, 0)))
    return x + where(up, gap, -gap)


def spacing(x):
    """numpy's `spacing`: the gap from `x` to its neighbour away from zero, with `x`'s sign (+ for -0.0); numpy's
    float16 routine instead gives the gap upwards (>= 0). inf at the largest float, nan for inf and nan. Bit for bit
    as numpy, in `x`'s float dtype (integers in float64, bool in float16); the derivative is zero."""
    x = _float_operand(x, "spacing")
    dtype = _dtype(x)
    finite = where(bind("isinf", x), _np.asarray(0, dtype), x)
    up = bind("logical_not", finite < 0) if dtype != "float16" else bind("equal", finite, finite)
    gap = _neighbour(finite, up) - finite
    return bind("stop_gradient", where(bind("isinf", x), _np.asarray(_np.nan, dtype), gap))


def nextafter(x1, x2):
    """numpy's `nextafter`: the float next to `x1` towards `x2`, elementwise: `x2` where they are equal (numpy's float16
    routine: `x1`, which differs in the sign of zero), +-the smallest subnormal from zero, the largest float from
    inf, a signed zero from the smallest subnormal, nan if either is nan. Bit for bit as numpy, in numpy's dtype
    (integers in float64, bool in float16, Python numbers weak); the derivative is zero."""
    x1, x2 = as_operand(x1), as_operand(x2)
    dtype = _ufunc_dtype(_np.nextafter, "nextafter", x1, x2)
    x1, x2 = _in_dtype(x1, dtype), _in_dtype(x2, dtype)
    zero, largest = _np.asarray(0, dtype), _np.finfo(dtype).max
    infinite = bind("isinf", x1)
    out = _neighbour(where(infinite, zero, x1), x2 > x1)
    out = where(out == 0, where(x1 < 0, _np.asarray(-0.0, dtype), zero), out)   # x1's sign, as C's nextafter
    out = where(infinite, where(x1 > 0, largest, -largest), out)
    out = where(x1 == x2, x1 if dtype == "float16" else x2, out)
    out = where(bind("isnan", x1) | bind("isnan", x2), _np.asarray(_np.nan, dtype), out)
    return bind("stop_gradient", out)


def modf(x):
    """numpy's `modf`: the fractional and integral parts of `x`, both with `x`'s sign (-0.0 for the fraction of a
    negative integer, (+-0.0, +-inf) for +-inf, nan for nan), in `x`'s float dtype (integers in float64, bool in
    float16). The fraction's derivative is 1, the integral part's 0."""
    x = _float_operand(x, "modf")
    dtype = _dtype(x)
    whole, infinite = bind("trunc", x), bind("isinf", x)
    fraction = x - where(infinite, _np.asarray(0, dtype), whole)   # (inf - inf would be nan)
    signed_zero = where(signbit(x), _np.asarray(-0.0, dtype), _np.asarray(0.0, dtype))
    return where((fraction == 0) | infinite, signed_zero, fraction), whole


def positive(x):
    """numpy's `positive`: `+x`, the values unchanged (a traced `x` is returned as it is); bools are refused,
    as numpy refuses them."""
    x = as_operand(x)
    if _dtype(x) == "bool":
        raise ShapeError("op 'positive': numpy has no positive of bool values, got bool")
    return x if isinstance(x, Tracer) else _np.positive(x)


def ediff1d(ary, to_end=None, to_begin=None):
    """numpy's `ediff1d`: the differences of consecutive elements of the flattened `ary`, after `to_begin` and
    before `to_end` (flattened, in `ary`'s dtype, which they must reach by numpy's same-kind rule);
    differentiable in all three."""
    ary = ravel(as_operand(ary))
    dtype = _dtype(ary)
    if dtype == "bool":
        raise ShapeError("op 'ediff1d': numpy does not subtract bools, got a bool ary")
    parts = [getitem(ary, slice(1, None)) - getitem(ary, slice(None, -1))]
    for name, extra in (("to_begin", to_begin), ("to_end", to_end)):
        if extra is None:
            continue
        extra = as_operand(extra)
        extra = extra if isinstance(extra, Tracer) else _np.asarray(extra)
        if not _np.can_cast(_dtype(extra), dtype, casting="same_kind"):
            raise ShapeError(f"op 'ediff1d': {name} of dtype {_dtype(extra)} cannot be cast to ary's {dtype} by "
                             "the same_kind rule")
        extra = astype(ravel(extra), dtype)
        parts = [extra, *parts] if name == "to_begin" else [*parts, extra]
    return concatenate(parts) if len(parts) > 1 else parts[0]


def real_if_close(a, tol=100):
    """numpy's `real_if_close`: a complex `a` whose imaginary parts are all below `tol` machine epsilons (an
    absolute tolerance when `tol <= 1`) as its real part, anything else as it is. Whether the imaginary parts go,
    and so the result's dtype, depends on the values: a traced complex `a` raises TraceError (take `fnp.real`
    where they are known to be negligible); a traced real `a` is returned as it is."""
    a = as_operand(a)
    if not (_dtype(a) or "").startswith("complex"):
        return a if isinstance(a, Tracer) else _np.asarray(a)
    if isinstance(a, Tracer):
        raise TraceError(f"op 'real_if_close': whether a traced {a.type} loses its imaginary parts (the result's "
                         "dtype) depends on its values; use fnp.real(a) where they are known to be negligible")
    return _np.real_if_close(a, tol)


# -- polynomials: coefficient arrays, highest power first -----------------------------------------------
def poly(seq_of_zeros):
    """numpy's `poly`: the coefficients of the monic polynomial with the given roots, by numpy's convolutions with
    `[1, -root]`, in float64 (float32 roots in float32, complex ones complex); no roots give 1.0. Differentiable
    in real roots. Complex roots give real coefficients when their conjugates are all among them, which numpy
    decides from their values: so complex roots must be concrete (traced ones raise TraceError). A real square
    matrix gives its characteristic polynomial, from its eigenvalues (`linalg.eigvals`), which LAPACK returns in
    exact conjugate pairs: real coefficients, as numpy's, differentiable in the matrix."""
    roots = atleast_1d(as_operand(seq_of_zeros))
    shape = _shape(roots)
    if len(shape) == 2 and shape[0] == shape[1] != 0:
        if (_dtype(roots) or "").startswith("complex"):
            raise ShapeError(f"op 'poly': frame's eigenvalues take real matrices, got a {_dtype(roots)} matrix")
        matrix = _inexact(roots)
        a = _np.ones((1,), {"float32": "complex64"}.get(_dtype(matrix), "complex128"))
        w = bind("eigvals", matrix)
        for i in range(shape[0]):
            a = convolve(a, stack([_np.ones((), a.dtype), -getitem(w, i)]))
        return bind("real", a)
    if len(shape) != 1:
        raise ShapeError(f"op 'poly': seq_of_zeros must be 1-d (or a non-empty square matrix), got shape {shape}")
    dtype = _dtype(roots) if _dtype(roots) in ("float32", "complex64", "complex128") else "float64"  # mintypecode
    if dtype.startswith("complex") and isinstance(roots, Tracer):
        raise TraceError(f"op 'poly': whether the coefficients of traced {roots.type} roots are real (numpy's "
                         "result dtype) depends on their values; pass real roots or concrete ones")
    if shape[0] == 0:
        return 1.0
    roots, one = astype(roots, dtype), _np.ones((1,), dtype)
    a = one
    for i in range(shape[0]):
        a = convolve(a, concatenate([one, reshape(-getitem(roots, i), (1,))]))
    if dtype.startswith("complex"):
        r = _np.asarray(roots, complex)
        if _np.all(_np.sort(r) == _np.sort(r.conjugate())):
            a = bind("real", a)
    return a


def roots(p, *, strip_zeros: bool = True):
    """numpy's `roots`: the roots of the polynomial with coefficients `p` (highest power first), the eigenvalues
    of its companion matrix (differentiable in `p`), always complex as jax.numpy's (numpy's real result when every
    root is real would make the dtype depend on the values). numpy strips leading zeros and turns trailing ones
    into zero roots, which needs the values: a traced `p` must come with `strip_zeros=False` (jax.numpy's flag;
    then a leading zero gives inf/nan roots, trailing zeros zero roots by the eigenvalues)."""
    p = atleast_1d(as_operand(p))
    if _ndim(p) != 1:
        raise ShapeError(f"op 'roots': the coefficients must be 1-d, got shape {_shape(p)}")
    if (_dtype(p) or "").startswith("complex"):
        raise ShapeError(f"op 'roots': frame's eigenvalues take real coefficients, got {_dtype(p)}")
    p = _inexact(p)
    complex_dtype = {"float32": "complex64"}.get(_dtype(p), "complex128")
    trailing = 0
    if strip_zeros:
        if isinstance(p, Tracer):
            raise TraceError(f"op 'roots': stripping the zeros of traced {p.type} coefficients needs their values; "
                             "pass strip_zeros=False (as jax.numpy.roots)")
        nonzero = _np.flatnonzero(p)
        if nonzero.size == 0:
            return _np.zeros(0, complex_dtype)
        trailing = _shape(p)[0] - 1 - int(nonzero[-1])
        p = p[int(nonzero[0]):int(nonzero[-1]) + 1]
    n = _shape(p)[0]
    if n < 2:
        return _np.zeros(trailing, complex_dtype)
    # the companion matrix: -p[1:] / p[0] on the first row, ones below the diagonal (numpy's)
    first = reshape(-getitem(p, slice(1, None)) / getitem(p, 0), (1, n - 1))
    below = _np.eye(n - 2, n - 1, dtype=_dtype(p))
    found = bind("eigvals", concatenate([first, below]) if n > 2 else first)
    return concatenate([found, _np.zeros(trailing, complex_dtype)]) if trailing else found


def _aligned(a1, a2, op: str):
    """polyadd's operands: at least 1-d, the shorter one after leading zeros of its own dtype."""
    a1, a2 = atleast_1d(as_operand(a1)), atleast_1d(as_operand(a2))
    n1, n2 = _shape(a1)[0], _shape(a2)[0]
    short = a1 if n1 < n2 else a2
    if n1 != n2 and _ndim(short) != 1:
        raise ShapeError(f"op '{op}': only a 1-d polynomial can be padded to a longer one's length, got shapes "
                         f"{_shape(a1)} and {_shape(a2)}")
    padded = concatenate([_np.zeros(abs(n1 - n2), _dtype(short)), short]) if n1 != n2 else short
    return (padded, a2) if short is a1 else (a1, padded)


def polyadd(a1, a2):
    """numpy's `polyadd`: the sum of two polynomials, the shorter one's coefficients aligned to the lowest power."""
    a1, a2 = _aligned(a1, a2, "polyadd")
    return bind("add", a1, a2)


def polysub(a1, a2):
    """numpy's `polysub`: `a1 - a2` of two polynomials, the shorter one's coefficients aligned to the lowest power."""
    a1, a2 = _aligned(a1, a2, "polysub")
    return bind("sub", a1, a2)


def _coefficients(a, op: str):
    """numpy's poly1d coefficients: 1-d, leading zeros trimmed ([0] for the zero polynomial). Trimming needs the
    values, so only a concrete array is trimmed: a traced one keeps its length, leading zeros and all."""
    a = atleast_1d(as_operand(a))
    if _ndim(a) != 1:
        raise ShapeError(f"op '{op}': a polynomial must be 1-d, got shape {_shape(a)}")
    if not isinstance(a, Tracer):
        a = _np.trim_zeros(_np.asarray(a), "f")
    return a if _shape(a)[0] else _np.zeros(1, _dtype(a))


def polymul(a1, a2):
    """numpy's `polymul`: the product of two polynomials, the convolution of their coefficients. numpy first drops
    leading zeros, which only concrete coefficients can have dropped: a traced polynomial keeps its length (as
    jax.numpy's default), so its leading zeros give leading zeros of the product."""
    return convolve(_coefficients(a1, "polymul"), _coefficients(a2, "polymul"))


def polydiv(u, v):
    """numpy's `polydiv`: the quotient and remainder of the polynomials `u` / `v` by numpy's long division, in numpy's
    dtype (integers in float64); differentiable in both. As numpy, `v`'s leading zeros are not trimmed (a leading 0
    divides by zero). numpy trims the remainder's leading coefficients within 1e-8 of zero, which depends on the
    values: a concrete remainder is trimmed so; a traced one drops the len(u) - len(v) + 1 leading ones that the
    division zeroes and is `u` itself when len(u) < len(v). That is numpy's result unless the division leaves more
    than 1e-8 in those (rounding can, in float32) or the ones after them are that small."""
    u, v = atleast_1d(as_operand(u)), atleast_1d(as_operand(v))
    if _ndim(u) != 1 or _ndim(v) != 1 or 0 in (_shape(u)[0], _shape(v)[0]):
        raise ShapeError(f"op 'polydiv': u and v must be non-empty 1-d coefficient arrays, got shapes {_shape(u)} "
                         f"and {_shape(v)}")
    du, dv = (_np.result_type(_dtype(x), 0.0).name for x in (u, v))   # numpy's `+ 0.0`
    dtype = _np.result_type(du, dv).name
    r, v = astype(u, dtype), astype(v, dv)
    m, n = _shape(u)[0] - 1, _shape(v)[0] - 1
    scale = 1.0 / getitem(v, 0)
    quotient = []
    for k in range(m - n + 1):   # numpy's r[k:k + n + 1] -= d * v, the zeros around it changing nothing
        quotient.append(scale * getitem(r, k))
        r = r - pad(quotient[-1] * v, (k, m - n - k))
    q = stack(quotient) if quotient else _np.zeros(1, dtype)
    if isinstance(r, Tracer):
        return q, getitem(r, slice(builtins.min(builtins.max(m - n + 1, 0), m), None))
    while _np.allclose(r[0], 0, rtol=1e-14) and r.shape[-1] > 1:
        r = r[1:]
    return q, r


def _polynomial(p, op: str):
    p = as_operand(p)
    if _ndim(p) != 1:
        raise ShapeError(f"op '{op}': p must be a 1-d array of coefficients, got shape {_shape(p)}")
    return p


def polyder(p, m: int = 1):
    """numpy's `polyder`: the `m`-th derivative of the polynomial `p`, `p[:-1] * [n, ..., 1]` repeated, in numpy's
    dtype (the powers are int64: float32 gives float64, as numpy)."""
    m = _int(m, "polyder", "m")
    if m < 0:
        raise ShapeError(f"op 'polyder': the order m must be >= 0 (see polyint), got {m}")
    p = _polynomial(p, "polyder")
    for _ in range(m):
        n = _shape(p)[0] - 1
        p = getitem(p, slice(None, -1)) * _np.arange(n, 0, -1)
    return p


def polyint(p, m: int = 1, k=None):
    """numpy's `polyint`: the `m`-th antiderivative of `p`, `p / [n, ..., 1]` then the integration constant, `m`
    times; `k` gives the constants (one for all, or one per integration, the first first; default 0).
    Differentiable in `p` and `k`."""
    m = _int(m, "polyint", "m")
    if m < 0:
        raise ShapeError(f"op 'polyint': the order m must be >= 0 (see polyder), got {m}")
    k = atleast_1d(as_operand(_np.zeros(m) if k is None else k))
    if _ndim(k) != 1:
        raise ShapeError(f"op 'polyint': k must be a scalar or 1-d, got shape {_shape(k)}")
    if _shape(k)[0] == 1 and m > 1:
        k = getitem(k, 0) * _np.ones(m)
    if _shape(k)[0] < m:
        raise ShapeError(f"op 'polyint': k must be a scalar or hold at least m = {m} constants, got {_shape(k)[0]}")
    p = as_operand(p)
    if m == 0:
        return p if isinstance(p, Tracer) else _np.asarray(p)
    p = _polynomial(p, "polyint")
    for i in range(m):
        y, c = p / _np.arange(_shape(p)[0], 0, -1), reshape(getitem(k, i), (1,))
        dtype = _np.result_type(_dtype(y), _dtype(c)).name
        p = concatenate([astype(y, dtype), astype(c, dtype)])
    return p


# numpy's window functions: their argument is a length, so they are numpy constants (a traced M is refused)
hamming, hanning, blackman, bartlett, kaiser = (_static_indices(n) for n in ("hamming", "hanning", "blackman",
                                                                             "bartlett", "kaiser"))


def i0(x):
    """numpy's `i0`: the modified Bessel function of order 0, as the `i0e` op times e^|x| (ints and bools in
    float64; nan at +-inf, as numpy). Differentiable: i0' = i1."""
    x = _inexact(x)
    if _dtype(x).startswith("complex"):
        raise ShapeError(f"op 'i0': complex values are not supported (numpy refuses them too), got {_dtype(x)}")
    return bind("i0e", x) * bind("exp", bind("abs", x))


# -- numpy 2.2's matrix-vector gufuncs -----------------------------------------------------------------
def _core_shapes(x1, x2, op: str, matrix_first: bool) -> None:
    """Checks matvec's (matrix_first) or vecmat's operands: the contracted sizes agree, the leading axes broadcast."""
    s1, s2 = _shape(x1), _shape(x2)
    c1, c2 = (2, 1) if matrix_first else (1, 2)
    ok = len(s1) >= c1 and len(s2) >= c2 and s1[-1] == s2[-1 if matrix_first else -2]
    try:
        _np.broadcast_shapes(s1[:len(s1) - c1], s2[:len(s2) - c2])
    except ValueError:
        ok = False
    if not ok:
        want = "x1 (..., m, n) and x2 (..., n)" if matrix_first else "x1 (..., n) and x2 (..., n, m)"
        raise ShapeError(f"op '{op}': needs {want} with broadcasting leading axes, got shapes {s1} and {s2}")


def matvec(x1, x2):
    """numpy 2.2's `matvec`: the matrix-vector products `sum_j x1[..., i, j] * x2[..., j]` (no conjugation), the
    leading axes broadcast; differentiable in both."""
    x1, x2 = as_operand(x1), as_operand(x2)
    _core_shapes(x1, x2, "matvec", True)
    return getitem(bind("matmul", x1, reshape(x2, _shape(x2) + (1,))), (Ellipsis, 0))


def vecmat(x1, x2):
    """numpy 2.2's `vecmat`: the vector-matrix products `sum_j conj(x1[..., j]) * x2[..., j, i]` (complex `x1`
    conjugated), the leading axes broadcast; differentiable in both."""
    x1, x2 = as_operand(x1), as_operand(x2)
    _core_shapes(x1, x2, "vecmat", False)
    if (_dtype(x1) or "").startswith("complex"):
        x1 = bind("conj", x1)
    row = reshape(x1, _shape(x1)[:-1] + (1, _shape(x1)[-1]))
    return getitem(bind("matmul", row, x2), (Ellipsis, 0, slice(None)))
