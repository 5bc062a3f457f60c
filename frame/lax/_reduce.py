"""frame.lax's reductions, running reductions, sorts and reduce_window (see frame.lax)."""
from __future__ import annotations

import math
import operator

import numpy as _np

from ..errors import ShapeError
from ..frontend import numpy as fnp
from ..frontend.args import _dtype, _int, _ints, _shape
from ..frontend.sequence import associative_scan
from ..tracing import Tracer, bind
from ._common import _array, _builtin_max, _is_scalar, _rank_axes
from ._elementwise import add, bitwise_and, bitwise_or, bitwise_xor, max, min, mul  # noqa: A004
from ._shape import pad


def _reduction(name: str, fn, kinds=None):
    def function(operand, axes):
        x = _array(operand)
        if kinds and _np.dtype(_dtype(x)).kind not in kinds:
            what = "frame supports bool operands only here" if kinds == "b" else "takes bool or integer operands"
            raise ShapeError(f"lax.{name}: {what}, got {_dtype(x)}")
        axes = _rank_axes(name, axes, len(_shape(x)))
        if not axes:
            return x
        out = fn(x, axis=axes)
        # numpy sums int32 in int64; lax keeps the dtype (the low 32 bits are the same: both wrap)
        return out if _dtype(out) == _dtype(x) else fnp.astype(out, _dtype(x))
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"lax.{name} over `axes`"
    return function


reduce_sum, reduce_prod = _reduction("reduce_sum", fnp.sum), _reduction("reduce_prod", fnp.prod)
reduce_max, reduce_min = _reduction("reduce_max", fnp.max), _reduction("reduce_min", fnp.min)
reduce_and, reduce_or = _reduction("reduce_and", fnp.all, "b"), _reduction("reduce_or", fnp.any, "b")


def argmax(operand, axis, index_dtype):
    """lax.argmax: index (of `index_dtype`) of the first maximum along `axis`."""
    x = _array(operand)
    return fnp.astype(fnp.argmax(x, axis=_rank_axes("argmax", (axis,), len(_shape(x)))[0]),
                      _np.dtype(index_dtype).name)


def argmin(operand, axis, index_dtype):
    """lax.argmin: index (of `index_dtype`) of the first minimum along `axis`."""
    x = _array(operand)
    return fnp.astype(fnp.argmin(x, axis=_rank_axes("argmin", (axis,), len(_shape(x)))[0]),
                      _np.dtype(index_dtype).name)


def _cumulative(name: str, fn):
    def function(operand, axis=0, reverse=False):
        x = _array(operand)
        axis = _rank_axes(name, (axis,), len(_shape(x)))[0]
        if reverse:
            return fnp.flip(fn(fnp.flip(x, axis), axis), axis)
        return fn(x, axis)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"lax.{name}: running reduction along `axis` (from the end with `reverse`), keeping the dtype"
    return function


cumsum = _cumulative("cumsum", lambda x, a: fnp.astype(fnp.cumsum(x, axis=a), _dtype(x)))
cumprod = _cumulative("cumprod", lambda x, a: fnp.astype(fnp.cumprod(x, axis=a), _dtype(x)))
cummax = _cumulative("cummax", lambda x, a: associative_scan(fnp.maximum, x, axis=a))
cummin = _cumulative("cummin", lambda x, a: associative_scan(fnp.minimum, x, axis=a))
cumlogsumexp = _cumulative("cumlogsumexp", lambda x, a: associative_scan(fnp.logaddexp, x, axis=a))


def sort(operand, dimension=-1, is_stable=True, num_keys=1):
    """lax.sort: one array sorted along `dimension`, or a sequence of arrays of one shape sorted together by
    the first `num_keys` of them (lexicographically). Always stable; NaNs last."""
    if isinstance(operand, (list, tuple)):
        xs = [_array(x) for x in operand]
        if len({_shape(x) for x in xs}) != 1 or not 1 <= num_keys <= len(xs):
            raise ShapeError(f"lax.sort: operands must share one shape and 1 <= num_keys <= {len(xs)}, got shapes "
                             f"{[_shape(x) for x in xs]} and num_keys={num_keys}")
        axis = _rank_axes("sort", (dimension,), len(_shape(xs[0])))[0]
        if num_keys == 1:
            order = fnp.argsort(xs[0], axis=axis, stable=True)
        else:   # lexsort sorts by its last key first
            order = fnp.lexsort([xs[i] for i in reversed(range(num_keys))], axis=axis)
        return tuple(fnp.take_along_axis(x, order, axis) for x in xs)
    x = _array(operand)
    return fnp.sort(x, axis=_rank_axes("sort", (dimension,), len(_shape(x)))[0])


def sort_key_val(keys, values, dimension=-1, is_stable=True):
    """lax.sort_key_val: (keys sorted along `dimension`, values in the same order)."""
    return sort((keys, values), dimension, is_stable, 1)


def top_k(operand, k, *, axis=-1):
    """lax.top_k: (the k largest entries along `axis`, largest first, their int32 indices); ties go to the
    lower index."""
    x = _array(operand)
    axis = _rank_axes("top_k", (axis,), len(_shape(x)))[0]
    k = _int(k, "top_k", "k")
    if not 0 <= k <= _shape(x)[axis]:
        raise ShapeError(f"lax.top_k: k={k} must be in [0, {_shape(x)[axis]}] for shape {_shape(x)}, axis {axis}")
    # a stable ascending sort of -x puts equal entries in index order
    key = fnp.logical_not(x) if _dtype(x) == "bool" else fnp.negative(x)
    order = fnp.slice_axes(fnp.argsort(key, axis=axis, stable=True), (0,) * len(_shape(x)),
                           tuple(k if i == axis else n for i, n in enumerate(_shape(x))))
    return fnp.take_along_axis(x, order, axis), fnp.astype(order, "int32")


def padtype_to_pads(in_shape, window_shape, window_strides, padding):
    """lax.padtype_to_pads: explicit (lo, hi) pairs for 'VALID', 'SAME' (the extra on the high side) or
    'SAME_LOWER' (on the low side): SAME keeps ceil(size / stride) outputs."""
    p = padding.upper() if isinstance(padding, str) else padding
    if p == "VALID":
        return [(0, 0)] * len(in_shape)
    if p not in ("SAME", "SAME_LOWER"):
        raise ShapeError(f"lax: padding must be 'VALID', 'SAME', 'SAME_LOWER' or (lo, hi) pairs, got {padding!r}")
    pads = []
    for n, k, s in zip(in_shape, window_shape, window_strides):
        total = _builtin_max((-(-n // s) - 1) * s + k - n, 0)
        small, big = total // 2, total - total // 2
        pads.append((small, big) if p == "SAME" else (big, small))
    return pads


def _pairs(name: str, padding, rank: int):
    pairs = [tuple(_ints(tuple(p), name, "padding")) for p in padding]
    if len(pairs) != rank or any(len(p) != 2 for p in pairs):
        raise ShapeError(f"lax.{name}: padding needs one (lo, hi) pair per window axis ({rank}), got {padding}")
    return pairs


_ADD = {id(f) for f in (operator.add, fnp.add, add)}
_MAX = {id(f) for f in (fnp.maximum, max)}
_MIN = {id(f) for f in (fnp.minimum, min)}


def _identity(kind: str, dtype):
    """The identity of the add/max/min reducer in `dtype`."""
    if kind == "add":
        return _np.zeros((), dtype)
    if _np.dtype(dtype).kind == "f":
        return _np.asarray(-_np.inf if kind == "max" else _np.inf, dtype)
    return _np.asarray(_np.iinfo(dtype).min if kind == "max" else _np.iinfo(dtype).max, dtype)


def reduce_window(operand, init_value, computation, window_dimensions, window_strides=None, padding="VALID",
                  base_dilation=None, window_dilation=None):
    """lax.reduce_window for `computation` add, max or min (this module's, frame.numpy's add/maximum/minimum or
    operator.add): the reduction of each window of the operand dilated by `base_dilation` and padded with
    the reducer's identity (padding a string or (lo, hi) pairs), combined once with `init_value`, as XLA."""
    x = _array(operand)
    shape = _shape(x)
    rank = len(shape)
    kind = "add" if id(computation) in _ADD else "max" if id(computation) in _MAX else \
        "min" if id(computation) in _MIN else None
    if kind is None:
        raise ShapeError(f"lax.reduce_window: frame covers the reducers add, max and min, got {computation!r}")
    window = _ints(tuple(window_dimensions), "reduce_window", "window_dimensions")
    strides = (1,) * rank if window_strides is None else _ints(tuple(window_strides), "reduce_window",
                                                                "window_strides")
    dilation = (1,) * rank if base_dilation is None else _ints(tuple(base_dilation), "reduce_window",
                                                                "base_dilation")
    if window_dilation is not None and any(d != 1 for d in window_dilation):
        raise ShapeError(f"lax.reduce_window: window_dilation {tuple(window_dilation)} is not supported by frame")
    if not len(window) == len(strides) == len(dilation) == rank or any(v < 1 for v in window + strides + dilation):
        raise ShapeError(f"lax.reduce_window: window_dimensions {window}, window_strides {strides} and "
                         f"base_dilation {dilation} need one positive int per axis of {shape}")
    dilated = tuple((n - 1) * d + 1 if n else 0 for n, d in zip(shape, dilation))
    pairs = padtype_to_pads(dilated, window, strides, padding) if isinstance(padding, str) else \
        _pairs("reduce_window", padding, rank)
    init = _np.asarray(init_value, _dtype(x)) if not isinstance(init_value, Tracer) else init_value
    # padding and dilation holes hold the reducer's identity and init_value joins each window once: what XLA
    # computes (an init of 1 in an add adds 1 per window, not per padded element)
    xp = pad(x, _identity(kind, _dtype(x)), [(lo, hi, d - 1) for (lo, hi), d in zip(pairs, dilation)])
    if any(n < k for n, k in zip(_shape(xp), window)):
        raise ShapeError(f"lax.reduce_window: window {window} is larger than the padded operand {_shape(xp)}")
    # frame's pools reduce trailing axes: pool from the first axis with a window or stride
    first = next((i for i in range(rank) if window[i] != 1 or strides[i] != 1), rank)
    if first == rank:
        return add(xp, init) if kind == "add" else (max if kind == "max" else min)(xp, init)
    w, s = window[first:], strides[first:]
    if kind == "add":
        out = bind("avg_pool", xp, window=w, strides=s) * _np.asarray(math.prod(w), _dtype(x))
        return out if isinstance(init, _np.ndarray) and init == 0 else out + init
    if kind == "max":
        out = bind("max_pool", xp, window=w, strides=s)
        return out if isinstance(init, _np.ndarray) and init == -_np.inf else fnp.maximum(out, init)
    out = -bind("max_pool", -xp, window=w, strides=s)
    return out if isinstance(init, _np.ndarray) and init == _np.inf else fnp.minimum(out, init)


def _pairwise(op, x, axis: int, identity):
    """x reduced along `axis` by the associative `op` in log2(n) halvings (an odd length padded with the
    identity), for the bitwise reductions frame.numpy has no reduction of."""
    while _shape(x)[axis] > 1:
        n = _shape(x)[axis]
        if n % 2:
            extra = fnp.full(tuple(1 if i == axis else k for i, k in enumerate(_shape(x))), identity, _dtype(x))
            x, n = fnp.concatenate([x, extra], axis=axis), n + 1
        lo = tuple(0 for _ in _shape(x))
        x = op(fnp.slice_axes(x, lo, tuple(n // 2 if i == axis else k for i, k in enumerate(_shape(x)))),
               fnp.slice_axes(x, tuple(n // 2 if i == axis else 0 for i in range(len(_shape(x)))), _shape(x)))
    return x


def _bitwise_reduction(op, identity_of):
    def reduce_axes(x, axis):
        for a in sorted(axis, reverse=True):
            n = _shape(x)[a]
            if n == 0:
                x = fnp.full(tuple(k for i, k in enumerate(_shape(x)) if i != a), identity_of(_dtype(x)), _dtype(x))
            else:
                x = fnp.squeeze(_pairwise(op, x, a, identity_of(_dtype(x))), a)
        return x
    return reduce_axes


def _all_ones(dtype):
    return True if dtype == "bool" else -1


_reduce_bit_and = _bitwise_reduction(fnp.bitwise_and, _all_ones)
_reduce_bit_or = _bitwise_reduction(fnp.bitwise_or, lambda d: False if d == "bool" else 0)
_reduce_bit_xor = _bitwise_reduction(fnp.bitwise_xor, lambda d: False if d == "bool" else 0)
reduce_xor = _reduction("reduce_xor", _reduce_bit_xor, "biu")
reduce_xor.__doc__ = "lax.reduce_xor over `axes`: bitwise exclusive or of bool or integer operands"


# lax.reduce's monoids: the computation (this package's, frame.numpy's or operator's), the reduction, the identity
# (init values equal to it are not combined again) and the binary operation that combines another init value
_MONOIDS = [
    ((operator.add, fnp.add, add), reduce_sum, lambda d: 0, fnp.add),
    ((operator.mul, fnp.multiply, mul), reduce_prod, lambda d: 1, fnp.multiply),
    ((fnp.maximum, max), reduce_max, lambda d: -_np.inf if d[0] == "f" else _np.iinfo(d).min, fnp.maximum),
    ((fnp.minimum, min), reduce_min, lambda d: _np.inf if d[0] == "f" else _np.iinfo(d).max, fnp.minimum),
    ((operator.and_, fnp.bitwise_and, bitwise_and), _reduce_bit_and, _all_ones, fnp.bitwise_and),
    ((operator.or_, fnp.bitwise_or, bitwise_or), _reduce_bit_or, lambda d: 0, fnp.bitwise_or),
    ((operator.xor, fnp.bitwise_xor, bitwise_xor), _reduce_bit_xor, lambda d: 0, fnp.bitwise_xor),
]


def reduce(operands, init_values, computation, dimensions, out_sharding=None):  # noqa: A001  (lax's name)
    """lax.reduce of one array for `computation` add, mul, max, min, bitwise_and, bitwise_or or bitwise_xor (this
    package's, frame.numpy's or operator's): the reduction over `dimensions`, combined once with `init_values`
    unless that is the computation's identity (lax's result for an associative, commutative computation). No
    dimensions: the operand, as lax. Variadic reductions (several operands) and other computations are not
    covered."""
    if isinstance(operands, (list, tuple)) or isinstance(init_values, (list, tuple)):
        raise ShapeError("lax.reduce: frame covers one array operand (variadic reductions of pytrees need a general "
                         f"reduce op), got {type(operands).__name__} operands")
    monoid = next((m for m in _MONOIDS if any(computation is f for f in m[0])), None)
    if monoid is None:
        raise ShapeError(f"lax.reduce: frame covers the computations add, mul, max, min, bitwise_and, bitwise_or and "
                         f"bitwise_xor (lax's, frame.numpy's or operator's), got {computation!r}")
    _, reduction, identity, combine = monoid
    x = _np.asarray(operands) if _is_scalar(operands) else _array(operands)
    kind = _np.dtype(_dtype(x)).kind
    if combine in (fnp.bitwise_and, fnp.bitwise_or, fnp.bitwise_xor) and kind not in "biu":
        raise ShapeError(f"lax.reduce: bitwise computations take bool or integer operands, got {_dtype(x)}")
    # a Python number is weakly typed (takes the operand's dtype), arrays keep theirs
    init = _np.asarray(init_values, _dtype(x)) if _is_scalar(init_values) else _array(init_values)
    if _shape(init) != () or _dtype(init) != _dtype(x):
        raise ShapeError(f"lax.reduce: init_values must be a scalar of the operand's dtype {_dtype(x)}, got "
                         f"{_dtype(init)} of shape {_shape(init)}")
    dims = _rank_axes("reduce", dimensions, len(_shape(x)))
    if not dims:
        return x
    out = reduction(x, dims)
    if isinstance(init, _np.ndarray) and init == _np.asarray(identity(_dtype(x)), _dtype(x)):
        return out
    return combine(out, init)
