"""frame.lax's elementwise functions (see frame.lax)."""
from __future__ import annotations

import enum
import functools

import numpy as _np

from ..errors import ShapeError, TraceError
from ..frontend import numpy as fnp
from ..frontend.args import _dtype, _int, _shape
from ..frontend.custom import custom_vjp
from ..scipy import special as _special
from ..tracing import Tracer, bind
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


def select_n(which, *cases):
    """lax.select_n: cases[which] elementwise; `which` bool (two cases at most: False picks cases[0]) or integer
    (in [0, len(cases)); out of range gives the last case), rank 0 or the cases' shape; cases of one shape and
    dtype."""
    if not cases:
        raise ShapeError("lax.select_n needs at least one case")
    which = _array(which) if not _is_scalar(which) else _np.asarray(which)
    kind = _np.dtype(_dtype(which)).kind
    if kind not in "biu" or (kind == "b" and len(cases) > 2):
        raise ShapeError(f"lax.select_n: which must be bool (for at most 2 cases) or integer, got {_dtype(which)} "
                         f"with {len(cases)} cases")
    cases = _operands("select_n", *cases)
    shapes = {_shape(c) for c in cases}
    if len(shapes) != 1 or _shape(which) not in ((), _shape(cases[0])):
        raise ShapeError(f"lax.select_n: the cases must have one shape and which rank 0 or that shape, got which "
                         f"{_shape(which)} and cases {[_shape(c) for c in cases]}")
    if len(cases) == 1:
        return cases[0]
    if kind == "b":
        return fnp.where(which, cases[1], cases[0])
    out = cases[-1]
    for i in range(len(cases) - 2, -1, -1):
        out = fnp.where(fnp.equal(which, i), cases[i], out)
    return out


def polygamma(m, x):
    """lax.polygamma: the m-th derivative of digamma at x (m and x of one float dtype; m concrete, whole numbers
    >= 0, since the order picks the kernel). Differentiable in x; m is not (as in lax)."""
    m, x = _operands("polygamma", m, x)
    _inexact("polygamma", x)
    if isinstance(m, Tracer):
        raise TraceError(f"lax.polygamma: the order m must be concrete (it picks the kernel), got a traced "
                         f"{_dtype(m)} of shape {_shape(m)}; close over it instead of passing it in")
    orders = _np.unique(m)
    if not (_np.all(orders == _np.floor(orders)) and _np.all(orders >= 0)):
        raise ShapeError(f"lax.polygamma: frame takes whole orders m >= 0, got {orders.tolist()}")
    if orders.size == 1:
        out = _special.polygamma(int(orders[0]), x)
        return out if _shape(out) == _shape(m) or _shape(m) == () else fnp.broadcast_to(out, _shape(m))
    out = fnp.zeros(_np.broadcast_shapes(_shape(m), _shape(x)), _dtype(x))
    for n in orders:   # one kernel per order present
        out = fnp.where(m == n, _special.polygamma(int(n), x), out)
    return out


zeta = _binary("zeta", _special.zeta, floats=True)
bessel_i0e = _unary("bessel_i0e", _special.i0e)
bessel_i1e = _unary("bessel_i1e", _special.i1e)


def betainc(a, b, x):
    """lax.betainc: the regularised incomplete beta function I_x(a, b) (operands of one float dtype and shape);
    differentiable in x only (frame.scipy.special.betainc)."""
    a, b, x = _operands("betainc", a, b, x)
    _inexact("betainc", x)
    return _special.betainc(a, b, x)


def _clz(x):
    # smear the highest set bit into every lower one (logical shifts by 1, 2, 4, ...); then the set bits number
    # width - clz. A negative operand has its top bit set: clz 0.
    dtype = _np.dtype(_dtype(x))
    width = 8 * dtype.itemsize
    s = 1
    while s < width:
        keep = _np.asarray((1 << (width - s)) - 1).astype(dtype)   # masks off the copies of the sign bit
        x = fnp.bitwise_or(x, fnp.bitwise_and(fnp.right_shift(x, _np.asarray(s, dtype)), keep))
        s *= 2
    return _np.asarray(width, dtype) - fnp.astype(fnp.population_count(x), dtype.name)


clz = _bitwise("clz", _clz, "iu")
clz.__doc__ = "lax.clz: the number of leading zero bits of each integer (0 for negatives, the width for 0)"


def _float_layout(dtype):
    info = _np.finfo(dtype)
    return info.nexp, info.nmant, info.minexp   # exponent bits, mantissa bits, smallest normal exponent


def _reduce_precision(x, exponent_bits: int, mantissa_bits: int):
    nexp, nmant, minexp = _float_layout(_dtype(x))
    y = x
    if mantissa_bits < nmant:
        # round-to-nearest-even at the quantum of an m-bit significand: 2^(e - m) for x = 1.f 2^e, and the fixed
        # 2^(minexp - m) for the source's subnormals (XLA rounds the bit pattern, which is this). ldexp is exact,
        # and a carry past the largest exponent gives inf, as the pattern's carry does.
        finite = fnp.isfinite(x)
        safe = fnp.where(finite, x, fnp.zeros_like(x))
        e = fnp.frexp(safe)[1] - 1
        q = fnp.maximum(e, minexp) - mantissa_bits
        with _np.errstate(over="ignore"):   # rounding up past the largest finite value is meant to give inf
            y = fnp.where(finite, fnp.ldexp(fnp.rint(fnp.ldexp(safe, -q)), q), x)
    if exponent_bits < nexp:
        # the reduced format's range: above 2^(bias + 1) overflows to inf, below its smallest normal 2^(1 - bias)
        # flushes to zero (it has no subnormals), both keeping the sign
        bias = (1 << (exponent_bits - 1)) - 1
        big = fnp.abs(y) >= _np.ldexp(_np.asarray(1.0, _dtype(x)), bias + 1)
        small = fnp.abs(y) < _np.ldexp(_np.asarray(1.0, _dtype(x)), 1 - bias)
        y = fnp.where(big, fnp.copysign(_np.asarray(_np.inf, _dtype(x)), y),
                      fnp.where(small, fnp.copysign(_np.zeros((), _dtype(x)), y), y))
    return fnp.where(fnp.isnan(x), x, y)


@functools.lru_cache(maxsize=None)
def _reduce_precision_rule(exponent_bits: int, mantissa_bits: int):
    # lax's reduce_precision is linear for derivatives: its cotangent is reduced too (rint has derivative zero,
    # so the composition alone would give none)
    @custom_vjp
    def rounded(x):
        return _reduce_precision(x, exponent_bits, mantissa_bits)
    rounded.defvjp(lambda x: (rounded(x), None), lambda _, g: (rounded(g),))
    return rounded


def reduce_precision(operand, exponent_bits, mantissa_bits):
    """lax.reduce_precision: each float rounded to a format of `exponent_bits` and `mantissa_bits` (XLA's
    emulation: the significand rounded to nearest even, overflow to inf, results below the format's smallest
    normal flushed to zero, NaN kept), in the operand's dtype. Its derivative reduces the cotangent, as lax's."""
    x = _array(operand) if not _is_scalar(operand) else _np.asarray(operand, _np.float64)
    _inexact("reduce_precision", x)
    e, m = _int(exponent_bits, "reduce_precision", "exponent_bits"), _int(mantissa_bits, "reduce_precision",
                                                                          "mantissa_bits")
    if _np.dtype(_dtype(x)).kind != "f" or e < 1 or m < 0:
        raise ShapeError(f"lax.reduce_precision takes a real float operand, exponent_bits >= 1 and mantissa_bits "
                         f">= 0, got {_dtype(x)}, {e} and {m}")
    return _reduce_precision_rule(e, m)(x)


def optimization_barrier(operand):
    """lax.optimization_barrier: the operand (any pytree) unchanged; frame's compiler needs no barrier."""
    return operand


def _mulhi(x, y):
    # the 64-bit product of two int32s is exact; its high 32 bits are the arithmetic shift by 32
    return fnp.astype(fnp.right_shift(fnp.astype(x, "int64") * fnp.astype(y, "int64"), _np.int64(32)), "int32")


def mulhi(x, y):
    """lax.mulhi: the high half of the double-width product of two int32 operands (int64 would need 128-bit
    arithmetic, which frame does not have)."""
    x, y = _operands("mulhi", x, y)
    if _dtype(x) != "int32":
        raise ShapeError(f"lax.mulhi: frame covers int32 operands only (int64 needs a 128-bit product), got "
                         f"{_dtype(x)}")
    return _mulhi(x, y)
