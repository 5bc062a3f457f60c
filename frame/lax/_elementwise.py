"""frame.lax's elementwise functions (see frame.lax)."""
from __future__ import annotations

import enum

import numpy as _np

from ..errors import ShapeError
from ..frontend import numpy as fnp
from ..frontend.args import _dtype, _int, _shape
from ..scipy import special as _special
from ..tracing import bind
from ._common import _array, _inexact, _is_scalar, _operands


def _unary(name: str, fn, floats: bool = True):
    def function(x):
        x = _array(x) if not _is_scalar(x) else _np.asarray(x)
        if floats:
            _inexact(name, x)
        return fn(x)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"lax.{name}, elementwise"
    return function


def _binary(name: str, fn, floats: bool = False):
    def function(x, y):
        x, y = _operands(name, x, y)
        if floats:
            _inexact(name, x)
        return fn(x, y)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"lax.{name}, elementwise on operands of one dtype and shape"
    return function


add = _binary("add", fnp.add)
sub = _binary("sub", fnp.subtract)
mul = _binary("mul", fnp.multiply)
max = _binary("max", fnp.maximum)  # noqa: A001
min = _binary("min", fnp.minimum)  # noqa: A001
atan2 = _binary("atan2", fnp.arctan2, floats=True)
nextafter = _binary("nextafter", fnp.nextafter, floats=True)
eq, ne, lt, le, gt, ge = (_binary(n, f) for n, f in (("eq", fnp.equal), ("ne", fnp.not_equal), ("lt", fnp.less),
                                                     ("le", fnp.less_equal), ("gt", fnp.greater),
                                                     ("ge", fnp.greater_equal)))


# Integer division by zero is defined in XLA, as numpy's is not: x / 0 = -1 and x rem 0 = x. The divisor is
# swapped for 1 where it is 0 so that numpy never divides by zero, and the zero case is selected apart.
def _by_zero(y):
    by_zero = fnp.equal(y, 0)
    return by_zero, fnp.where(by_zero, fnp.ones_like(y), y)


def _div(x, y):
    if _np.dtype(_dtype(x)).kind in "iu":   # integer division rounds towards zero in lax (C's rule)
        by_zero, y = _by_zero(y)
        q = fnp.floor_divide(fnp.abs(x), fnp.abs(y))
        return fnp.where(by_zero, -fnp.ones_like(q), fnp.where(fnp.equal(fnp.less(x, 0), fnp.less(y, 0)), q, -q))
    return fnp.divide(x, y)


def _rem(x, y):   # C's remainder (fmod): the dividend's sign
    if _np.dtype(_dtype(x)).kind in "iu":
        by_zero, y = _by_zero(y)
        return fnp.where(by_zero, x, fnp.fmod(x, y))
    return fnp.fmod(x, y)


div = _binary("div", _div)
rem = _binary("rem", _rem)


def pow(x, y):  # noqa: A001  (lax's name)
    """lax.pow: x ** y for a float/complex x and y of x's dtype (or an integer y, as lax allows)."""
    x = _array(x)
    _inexact("pow", x)
    if not _is_scalar(y) and _np.dtype(_dtype(y)).kind not in "iu":
        x, y = _operands("pow", x, y)
    elif not _is_scalar(y) and _shape(y) != _shape(x) and () not in (_shape(x), _shape(y)):
        raise ShapeError(f"lax.pow requires arguments of one shape (or rank 0), got {_shape(x)} and {_shape(y)}")
    return fnp.power(x, y)


def integer_pow(x, y: int):
    """lax.integer_pow: x ** y for a static Python int y (negative y: 1 / x ** -y)."""
    y = _int(y, "integer_pow", "y")
    x = _array(x)
    if y == 0:
        return fnp.ones_like(x)
    return fnp.power(x, y) if y > 0 else fnp.reciprocal(fnp.power(x, -y))


neg = _unary("neg", fnp.negative, floats=False)
sign = _unary("sign", fnp.sign, floats=False)
abs = _unary("abs", fnp.abs, floats=False)  # noqa: A001
square = _unary("square", fnp.square, floats=False)
exp, exp2, log, log1p, expm1, sqrt, cbrt, tanh = (_unary(n, getattr(fnp, n)) for n in
                                                  ("exp", "exp2", "log", "log1p", "expm1", "sqrt", "cbrt", "tanh"))
sin, cos, tan, sinh, cosh = (_unary(n, getattr(fnp, n)) for n in ("sin", "cos", "tan", "sinh", "cosh"))
asin, acos, atan, asinh, acosh, atanh = (_unary(n, getattr(fnp, "arc" + n[1:])) for n in
                                         ("asin", "acos", "atan", "asinh", "acosh", "atanh"))
rsqrt = _unary("rsqrt", lambda x: fnp.reciprocal(fnp.sqrt(x)))
reciprocal = _unary("reciprocal", fnp.reciprocal)
logistic = _unary("logistic", fnp.sigmoid)
erf, erfc = _unary("erf", fnp.erf), _unary("erfc", fnp.erfc)
erf_inv = _unary("erf_inv", _special.erfinv)
lgamma, digamma = _unary("lgamma", _special.gammaln), _unary("digamma", _special.digamma)
igamma = _binary("igamma", _special.gammainc, floats=True)
igammac = _binary("igammac", _special.gammaincc, floats=True)
floor, ceil = _unary("floor", fnp.floor), _unary("ceil", fnp.ceil)
is_finite = _unary("is_finite", fnp.isfinite)
real, imag, conj = _unary("real", fnp.real, False), _unary("imag", fnp.imag, False), _unary("conj", fnp.conj, False)


def complex(x, y):  # noqa: A001  (lax's name)
    """lax.complex: x + i y from two real float operands of one dtype and shape."""
    x, y = _operands("complex", x, y)
    if _np.dtype(_dtype(x)).kind != "f":
        raise ShapeError(f"lax.complex takes real floating-point operands, got {_dtype(x)}")
    return bind("complex", x, y)


class RoundingMethod(enum.IntEnum):
    """lax.RoundingMethod: how `round` breaks ties."""
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):  # noqa: A001
    """lax.round: to the nearest integer, halves away from zero (or to even with TO_NEAREST_EVEN)."""
    x = _array(x)
    _inexact("round", x)
    if int(rounding_method) == RoundingMethod.TO_NEAREST_EVEN:
        return fnp.rint(x)
    if int(rounding_method) != RoundingMethod.AWAY_FROM_ZERO:
        raise ShapeError(f"lax.round: rounding_method must be 0 or 1, got {rounding_method!r}")
    # x - trunc(x) is exact, so the tie test is too (floor(|x| + 0.5) would round 0.49999999999999994 up)
    t = fnp.trunc(x)
    return t + fnp.where(fnp.abs(x - t) >= 0.5, fnp.sign(x), fnp.zeros_like(x))


def clamp(min, x, max):  # noqa: A002  (lax's names)
    """lax.clamp: x limited to [min, max]; min and max are scalars or of x's shape, all of one dtype."""
    lo, x, hi = _operands("clamp", min, x, max)
    return fnp.minimum(fnp.maximum(x, lo), hi)


def select(pred, on_true, on_false):
    """lax.select: on_true where the bool `pred` holds, else on_false (one shape and dtype; pred may be rank 0)."""
    pred = _array(pred)
    if _dtype(pred) != "bool":
        raise ShapeError(f"lax.select: pred must be bool, got {_dtype(pred)}")
    on_true, on_false = _operands("select", on_true, on_false)
    if _shape(pred) not in ((), _shape(on_true)) or _shape(on_true) != _shape(on_false):
        raise ShapeError(f"lax.select: pred {_shape(pred)} must be rank 0 or the shape of the cases, and the cases "
                         f"one shape, got {_shape(on_true)} and {_shape(on_false)}")
    return fnp.where(pred, on_true, on_false)


def _bitwise(name: str, fn, kinds: str = "biu"):
    def function(*xs):
        xs = _operands(name, *xs)
        if _np.dtype(_dtype(xs[0])).kind not in kinds:
            raise ShapeError(f"lax.{name} takes {'integer or bool' if 'b' in kinds else 'integer'} operands, "
                             f"got {_dtype(xs[0])}")
        return fn(*xs)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"lax.{name}: bit by bit on integers ({fn.__name__})"
    return function


bitwise_not = _bitwise("bitwise_not", fnp.bitwise_not)
bitwise_and = _bitwise("bitwise_and", fnp.bitwise_and)
bitwise_or = _bitwise("bitwise_or", fnp.bitwise_or)
bitwise_xor = _bitwise("bitwise_xor", fnp.bitwise_xor)
shift_left = _bitwise("shift_left", fnp.left_shift, "iu")
shift_right_arithmetic = _bitwise("shift_right_arithmetic", fnp.right_shift, "iu")
population_count = _bitwise("population_count", fnp.population_count, "iu")


def _logical_right_shift(x, s):
    # the arithmetic shift with the copies of the sign bit masked off; counts outside [0, width) give 0
    width = 8 * _np.dtype(_dtype(x)).itemsize
    one = _np.asarray(1, _dtype(x))
    shifted = fnp.bitwise_and(fnp.right_shift(x, s), fnp.left_shift(one, width - s) - one)
    return fnp.where((s < 0) | (s >= width), fnp.zeros_like(x), shifted)


shift_right_logical = _bitwise("shift_right_logical", _logical_right_shift, "iu")


def convert_element_type(operand, new_dtype):
    """lax.convert_element_type: operand cast to `new_dtype` (floats to integers truncate)."""
    return fnp.astype(_array(operand), _np.dtype(new_dtype).name)
