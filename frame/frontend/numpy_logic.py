"""frame.numpy's selection, clipping and casting: `where`, `select`, `choose`, `compress`, `piecewise`, `clip`,
`nan_to_num`, `astype`, and `&`, `|`, `^`, `~` on bool values; the tests `isclose`, `array_equal`, `array_equiv`,
`isneginf`, `isposinf`, `isreal`, `iscomplex` and numpy's object-level ones (`isrealobj`, `iscomplexobj`,
`isscalar`, `iterable`). Comparisons and the logical ufuncs are generated from their ops."""
from __future__ import annotations

import numpy as _np

from ..errors import ShapeError, TraceError
from ..ir.types import canonical_dtype
from ..tracing import Tracer, bind
from .args import _axis, _dtype, _ndim, _shape
from .numpy_creation import _has_tracer, as_operand, asarray
from .numpy_shape import broadcast_to, expand_dims, ravel, reshape, stack, take, take_along_axis

__all__ = ["where", "select", "clip", "nan_to_num", "astype", "bitwise_count",
           "isclose", "allclose", "array_equal", "choose", "compress", "piecewise", "array_equiv",
           "isneginf", "isposinf", "isreal", "iscomplex", "isrealobj", "iscomplexobj", "isscalar", "iterable"]


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


def bitwise_count(x):
    """numpy's bitwise_count: the number of 1 bits of |x|, in x's integer dtype (numpy's is uint8, a dtype
    frame does not have)."""
    return bind("population_count", bind("abs", x))


def _all(x):
    """Whether every element of the bool `x` holds (a bool scalar array)."""
    return bind("all", x, axes=tuple(range(len(_shape(x)))), keepdims=False)


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
    return _all(close)


def array_equal(a1, a2, equal_nan=False):
    """numpy's `array_equal`: same shape and elements (NaNs equal only with `equal_nan`), a bool scalar array."""
    a1, a2 = as_operand(a1), as_operand(a2)
    if _shape(a1) != _shape(a2):
        return _np.asarray(False)
    same = bind("equal", a1, a2)
    if equal_nan:
        same = bind("logical_or", same, bind("logical_and", bind("isnan", a1), bind("isnan", a2)))
    return _all(same)


def array_equiv(a1, a2):
    """numpy's `array_equiv`: whether the shapes broadcast and all elements are then equal (a bool scalar array;
    numpy returns a Python bool, which traced code cannot have)."""
    a1, a2 = as_operand(a1), as_operand(a2)
    try:
        _np.broadcast_shapes(_shape(a1), _shape(a2))
    except ValueError:
        return _np.asarray(False)
    same = bind("equal", a1, a2)
    return _all(same)


# -- choosing by index, mask or condition ------------------------------------------------------------
def choose(a, choices, mode="raise"):
    """numpy's `choose`: `choices[a[I]][I]`, `a` and the choices broadcast together, in the choices' promoted
    dtype (`choices` a sequence, or an array whose first axis is the sequence); differentiable in the choices.

    `mode` says what an index outside [0, n) does: 'wrap' takes it modulo n, 'clip' clips it; 'raise' (the
    default) refuses it, which needs its value: as in jax.numpy, a traced `a` with mode='raise' raises
    TraceError (use 'wrap' or 'clip')."""
    a = as_operand(a)
    a = a if isinstance(a, Tracer) else _np.asarray(a)
    if _dtype(a) not in ("bool", "int32", "int64"):
        raise ShapeError(f"op 'choose': the index array a must be integers, got {_dtype(a)}")
    if isinstance(choices, (Tracer, _np.ndarray)):
        parts = [choices[i] for i in range(_shape(choices)[0])] if _ndim(choices) else None
    else:
        parts = [as_operand(c) for c in choices]
    if not parts:
        raise ShapeError("op 'choose': choices must be a non-empty sequence of arrays")
    n = len(parts)
    dtype = _np.result_type(*(_np.dtype(_dtype(c)) if isinstance(c, (Tracer, _np.ndarray)) else c for c in parts))
    try:
        shape = _np.broadcast_shapes(_shape(a), *(_shape(c) for c in parts))
    except ValueError:
        raise ShapeError(f"op 'choose': a {_shape(a)} and the choices {[_shape(c) for c in parts]} do not "
                         "broadcast") from None
    if mode == "raise":
        if isinstance(a, Tracer):
            raise TraceError("op 'choose': mode='raise' checks the values of a, which a traced a does not have "
                             "(as in jax.numpy); use mode='wrap' or mode='clip'")
        bad = a[(a < 0) | (a >= n)]
        if bad.size:
            raise ShapeError(f"op 'choose': index {bad.flat[0]} in a is out of range for {n} choices")
    elif mode == "wrap":
        a = bind("mod", astype(a, "int64"), n)
    elif mode == "clip":
        a = clip(astype(a, "int64"), 0, n - 1)
    else:
        raise ShapeError(f"op 'choose': mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    stacked = stack([broadcast_to(astype(c if isinstance(c, (Tracer, _np.ndarray)) else _np.asarray(c), dtype.name),
                                  shape) for c in parts])
    index = expand_dims(broadcast_to(astype(a, "int64"), shape), 0)
    return reshape(take_along_axis(stacked, index, 0), shape)


def compress(condition, a, axis=None):
    """numpy's `compress`: the slices of `a` along `axis` (None: of the flattened `a`) where the 1-d `condition`
    is true (nonzero; a shorter condition leaves the rest out). The result's shape depends on the condition's
    values, so it must be concrete: a traced condition raises TraceError (fnp.where selects elementwise
    instead); `a` may be traced, and the result is differentiable in it."""
    if _has_tracer(condition):
        raise TraceError("op 'compress': the result's shape depends on the values of condition, which a traced "
                         "condition does not have; pass a concrete condition or select with fnp.where")
    cond = _np.asarray(condition)
    if cond.ndim != 1:
        raise ShapeError(f"op 'compress': condition must be 1-d, got shape {cond.shape}")
    a = as_operand(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = _axis(axis, _ndim(a), "compress")
    index = _np.flatnonzero(cond)
    if index.size and index[-1] >= _shape(a)[axis]:
        raise ShapeError(f"op 'compress': condition of length {cond.size} selects index {index[-1]}, out of bounds "
                         f"for axis {axis} of size {_shape(a)[axis]}")
    return take(a, index, axis)


def _one_condition(condlist, x) -> bool:
    """numpy's test in piecewise: is `condlist` a single condition (to be put in a list), not a sequence of them?"""
    if _np.isscalar(condlist) or (isinstance(condlist, (Tracer, _np.ndarray)) and condlist.ndim == 0):
        return True
    if isinstance(condlist, (Tracer, _np.ndarray)):   # numpy looks at its first element: an array when 2-d+
        first_is_array = condlist.ndim >= 2
    else:
        first_is_array = isinstance(condlist[0], (list, _np.ndarray, Tracer))
    return not first_is_array and _ndim(x) != 0


def piecewise(x, condlist, funclist, *args, **kw):
    """numpy's `piecewise`: where a condition of `condlist` holds (the last true one wins), the value of its entry
    of `funclist` (a function of `x`, called with `*args, **kw`, or a constant); elsewhere the extra last entry
    (when `funclist` has one more) or 0; in `x`'s dtype.

    As in jax.numpy, every function is evaluated on all of `x` and its values selected (numpy calls it on the
    selected elements only): the same for elementwise functions, which they must be. Differentiable in `x`."""
    x = asarray(x)
    if _one_condition(condlist, x):
        condlist = [condlist]
    conds = _truth(asarray(condlist))
    n, funcs = _shape(conds)[0], list(funclist)
    if _shape(conds)[1:] != _shape(x):
        raise ShapeError(f"op 'piecewise': each condition must have x's shape {_shape(x)}, got {_shape(conds)[1:]}")
    if n == len(funcs) - 1:   # the "otherwise" condition
        otherwise = bind("logical_not", bind("any", conds, axes=(0,), keepdims=True))
        conds, n = bind("concat", conds, otherwise, axis=0), n + 1
    elif n != len(funcs):
        raise ShapeError(f"op 'piecewise': with {n} condition(s), either {n} or {n + 1} functions are expected, "
                         f"got {len(funcs)}")
    dtype = _dtype(x)
    y = _np.zeros(_shape(x), dtype)
    for i, func in enumerate(funcs):
        value = func(x, *args, **kw) if callable(func) else func
        value = astype(value, dtype) if isinstance(value, Tracer) else _np.asarray(value).astype(dtype)
        y = bind("where", conds[i], value, y)
    return y


# -- tests of values and of objects ----------------------------------------------------------------
def _infinity(x, sign: float, name: str):
    x = x if isinstance(x, Tracer) else asarray(x)
    dtype = _dtype(x)
    if dtype.startswith("complex"):
        raise ShapeError(f"op '{name}': not defined for {dtype} values (numpy refuses them: it would be ambiguous)")
    if not dtype.startswith("float"):
        return bind("isinf", x)   # all false, as numpy's
    return bind("equal", x, _np.asarray(sign * _np.inf, dtype))


def isneginf(x):
    """numpy's `isneginf`: whether each element is -inf (bool); false for integers, refused for complex values."""
    return _infinity(x, -1.0, "isneginf")


def isposinf(x):
    """numpy's `isposinf`: whether each element is +inf (bool); false for integers, refused for complex values."""
    return _infinity(x, 1.0, "isposinf")


def isreal(x):
    """numpy's `isreal`: whether each element's imaginary part is zero (bool; all true for a real dtype)."""
    x = as_operand(x)
    if (_dtype(x) or "").startswith("complex"):
        return bind("equal", bind("imag", x), 0)
    return _np.ones(_shape(x), bool)[()]


def iscomplex(x):
    """numpy's `iscomplex`: whether each element's imaginary part is nonzero (bool; all false for a real dtype)."""
    x = as_operand(x)
    if (_dtype(x) or "").startswith("complex"):
        return bind("not_equal", bind("imag", x), 0)
    return _np.zeros(_shape(x), bool)[()]


def iscomplexobj(x) -> bool:
    """numpy's `iscomplexobj`: whether `x`'s dtype is complex (a Python bool, from the dtype alone; a traced
    value's dtype is known)."""
    return (_dtype(as_operand(x)) or "").startswith("complex")


def isrealobj(x) -> bool:
    """numpy's `isrealobj`: whether `x`'s dtype is not complex (a Python bool, from the dtype alone)."""
    return not iscomplexobj(x)


def isscalar(element) -> bool:
    """numpy's `isscalar`: whether `element` is a numpy scalar, a Python scalar type (number, str, bytes, ...) or
    a `numbers.Number`. A traced value is an array, never a scalar (also a 0-d one, as a 0-d ndarray)."""
    return _np.isscalar(element)


def iterable(y) -> bool:
    """numpy's `iterable`: whether `iter(y)` works. A traced value is iterable as an ndarray is: unless 0-d."""
    try:
        iter(y)
    except TypeError:
        return False
    return True
