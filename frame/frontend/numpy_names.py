"""frame.numpy's remaining jax.numpy names: constants, numpy's dtype objects, `ndarray`, index helpers, bit packing,
`einsum_path` and numpy's printing functions, so that code written against `jnp.` finds them on `fnp.`.

- constants `inf`, `nan`, `newaxis`, `euler_gamma` (`pi` and `e` live in frame.numpy itself);
- numpy's own dtype objects and abstract scalar classes (`dtype`, `generic`, `number`, `integer`, `floating`, ...,
  `float_` and `complex_` as numpy 1 had them), as jax.numpy re-exports numpy's; `fnp.issubdtype(x.dtype,
  fnp.floating)` works on numpy arrays and traced values alike. The dtypes frame's IR does not carry (`int8`,
  `uint8`, ...) are there for dtype tests; making an array of one raises frame's unsupported-dtype ShapeError;
- `ndarray`: an abstract class that numpy arrays and frame's traced values are instances of (as jax arrays and
  tracers are of `jnp.ndarray`);
- `index_exp` and `s_` (numpy's), `mgrid` and `ogrid` (numpy's grids of static bounds, as numpy arrays), and `r_`,
  `c_`: numpy's concatenation by index syntax of arrays, traced values, scalars, slices (`1:5`, `0:1:5j`) and a
  leading `'axis[,ndmin[,trans1d]]'` directive string, composed of frame.numpy functions so it traces;
- `packbits`, `unpackbits` (of bool and integer arrays, traced too; the bytes are int32, see their docstrings);
- `einsum_path`: numpy's, computed from the operands' shapes only, so it also answers for traced operands;
- `array_repr`, `array_str`, `printoptions`, `get_printoptions`, `set_printoptions`: numpy's, for concrete values;
  a traced value has none to print (TraceError).
"""
from __future__ import annotations

import abc
import builtins

import numpy as _np

from ..errors import ShapeError, TraceError
from ..ir.types import canonical_dtype
from ..tracing import Tracer
from .args import _axis
from .numpy_creation import _has_tracer, asarray
from .numpy_shape import concatenate, moveaxis, pad, ravel, reshape, transpose

__all__ = ["inf", "nan", "newaxis", "euler_gamma",
           "dtype", "generic", "number", "integer", "signedinteger", "unsignedinteger", "inexact", "floating",
           "complexfloating", "character", "flexible", "object_", "bool", "float_", "complex_", "double", "single",
           "cdouble", "csingle", "int_", "int8", "int16", "uint8", "uint16", "uint32", "uint64", "uint",
           "ndarray", "index_exp", "s_", "mgrid", "ogrid", "r_", "c_", "packbits", "unpackbits", "einsum_path",
           "array_repr", "array_str", "printoptions", "get_printoptions", "set_printoptions"]

# -- constants ---------------------------------------------------------------------------------
inf, nan, newaxis, euler_gamma = _np.inf, _np.nan, None, _np.euler_gamma

# -- numpy's dtype objects (jax.numpy's abstract classes are numpy's too) --------------------------
dtype, generic, number, integer = _np.dtype, _np.generic, _np.number, _np.integer
signedinteger, unsignedinteger, inexact, floating = _np.signedinteger, _np.unsignedinteger, _np.inexact, _np.floating
complexfloating, character, flexible, object_ = _np.complexfloating, _np.character, _np.flexible, _np.object_
float_, complex_ = _np.float64, _np.complex128   # numpy 1's names (numpy 2 dropped them, jax.numpy kept them)
double, single, cdouble, csingle, int_ = _np.double, _np.single, _np.cdouble, _np.csingle, _np.int_
int8, int16, uint8, uint16, uint32, uint64, uint = _np.int8, _np.int16, _np.uint8, _np.uint16, _np.uint32, \
    _np.uint64, _np.uint


# -- ndarray ----------------------------------------------------------------------------------
class ndarray(metaclass=abc.ABCMeta):
    """The array type for isinstance tests: numpy arrays and frame's traced values are instances (as jax arrays
    and tracers are of `jnp.ndarray`). It makes no arrays: use `fnp.asarray`."""

    def __new__(cls, *args, **kwargs):
        raise TypeError("fnp.ndarray is an abstract type for isinstance tests; make arrays with fnp.asarray or "
                        "fnp.zeros")


ndarray.register(_np.ndarray)
ndarray.register(Tracer)


# -- index helpers ----------------------------------------------------------------------------
index_exp, s_ = _np.index_exp, _np.s_


def _refuse_traced_slices(name: str, key) -> None:
    """A grid's length is its bounds' function, so they must be concrete."""
    for item in key if isinstance(key, tuple) else (key,):
        parts = (item.start, item.stop, item.step) if isinstance(item, slice) else (item,)
        if any(isinstance(p, Tracer) for p in parts):
            raise TraceError(f"fnp.{name}: the grid's bounds and steps must be concrete numbers (its shape depends "
                             f"on them), got a traced value in {key!r}")


class _Grid:
    """numpy's `mgrid` (dense) or `ogrid` (open) on static bounds: numpy's arrays, in dtypes frame carries."""

    def __init__(self, name: str, grid):
        self._name, self._grid = name, grid

    def __getitem__(self, key):
        _refuse_traced_slices(self._name, key)
        out = self._grid[key]
        for part in out if isinstance(out, (tuple, list)) else (out,):
            canonical_dtype(part.dtype)   # a float128 or uint bound makes a grid frame cannot carry: say so
        return out

    def __repr__(self):
        return f"fnp.{self._name}"


mgrid, ogrid = _Grid("mgrid", _np.mgrid), _Grid("ogrid", _np.ogrid)


def _with_ndmin(x, ndmin: int):
    """`x` with leading axes of length 1 up to `ndmin` dimensions (numpy's array(x, ndmin=ndmin))."""
    extra = ndmin - x.ndim
    return reshape(x, (1,) * extra + tuple(x.shape)) if extra > 0 else x


def _directive(name: str, text: str) -> tuple:
    """`'axis'`, `'axis,ndmin'` or `'axis,ndmin,trans1d'` as ints."""
    if text in ("r", "c"):
        raise ShapeError(f"fnp.{name}: the matrix directives 'r' and 'c' make numpy matrices, which frame does not "
                         "have")
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        values = []
    if not 1 <= len(values) <= 3:
        raise ShapeError(f"fnp.{name}: unknown directive {text!r} (expected 'axis', 'axis,ndmin' or "
                         "'axis,ndmin,trans1d')")
    return tuple(values)


class _Concatenate:
    """numpy's `r_` / `c_`: the key's arrays, scalars and slice ranges, each brought to `ndmin` dimensions (a
    lower-dimensional array's own axes placed at `trans1d`), in their common dtype, joined along `axis`."""

    def __init__(self, name: str, axis: int, ndmin: int, trans1d: int):
        self._name, self._defaults = name, (axis, ndmin, trans1d)

    def _range(self, item: slice, ndmin: int, trans1d: int):
        if any(isinstance(p, Tracer) for p in (item.start, item.stop, item.step)):
            raise TraceError(f"fnp.{self._name}: a slice's bounds and step must be concrete numbers (the length "
                             f"depends on them), got {item!r}")
        start = 0 if item.start is None else item.start
        step = 1 if item.step is None else item.step
        if isinstance(step, (complex, _np.complexfloating)):   # numpy's convention: an imaginary step counts points
            out = _np.linspace(start, item.stop, num=int(abs(step)))
        else:
            out = _np.arange(start, item.stop, step)
        if ndmin > 1:
            out = out.reshape((1,) * (ndmin - 1) + out.shape)
            out = out if trans1d == -1 else _np.swapaxes(out, -1, trans1d)
        return out

    def _array(self, item, ndmin: int, trans1d: int):
        x = item if isinstance(item, Tracer) else asarray(item) if _has_tracer(item) else _np.asarray(item)
        own = x.ndim
        x = _with_ndmin(x, ndmin)
        if trans1d != -1 and own < ndmin:
            # the item's own axes move from the end to position trans1d, the added ones go around them
            k1, k2 = trans1d + (ndmin - own + 1 if trans1d < 0 else 0), ndmin - own
            order = list(range(ndmin))
            x = transpose(x, order[:k1] + order[k2:] + order[k1:k2])
        return x

    def __getitem__(self, key):
        axis, ndmin, trans1d = self._defaults
        items = list(key) if isinstance(key, tuple) else [key]
        if items and isinstance(items[0], str):
            values = _directive(self._name, items.pop(0))
            axis, ndmin, trans1d = values + (axis, ndmin, trans1d)[len(values):]
        parts, types = [], []
        for item in items:
            if isinstance(item, str):
                raise ShapeError(f"fnp.{self._name}: a directive string must come first, got {item!r} later")
            if isinstance(item, slice):
                part = self._range(item, ndmin, trans1d)
                types.append(part.dtype)
            elif type(item) in (builtins.bool, int, float, complex) or isinstance(item, _np.generic):
                part = item   # a scalar: weak (Python) or typed (numpy) in the common dtype, as numpy's
                types.append(item)
            else:
                part = self._array(item, ndmin, trans1d)
                types.append(part.dtype)
            parts.append(part)
        if not parts:
            raise ShapeError(f"fnp.{self._name}[...] needs at least one array, scalar or slice to concatenate")
        common = canonical_dtype(_np.result_type(*types))
        parts = [_with_ndmin(asarray(p, common), ndmin) for p in parts]
        return concatenate(parts, axis=axis)

    def __repr__(self):
        return f"fnp.{self._name}"


r_ = _Concatenate("r_", 0, 1, -1)
c_ = _Concatenate("c_", -1, 2, 0)


# -- bit packing ------------------------------------------------------------------------------
_BYTE_DTYPE = "int32"   # numpy's bytes are uint8, which frame does not carry; int32 is the smallest int holding 0..255


def _bit_weights(bitorder: str, name: str):
    if bitorder not in ("big", "little"):
        raise ShapeError(f"fnp.{name}: bitorder must be 'big' or 'little', got {bitorder!r}")
    weights = 1 << _np.arange(8, dtype=_BYTE_DTYPE)   # little: the first bit is the least significant
    return weights[::-1].copy() if bitorder == "big" else weights


def _integer_or_bool(a, name: str):
    a = asarray(a)
    if _np.dtype(a.dtype).kind not in "biu":
        raise ShapeError(f"fnp.{name} takes bool or integer arrays, got {a.dtype}{tuple(a.shape)}")
    return a


def packbits(a, axis=None, bitorder="big"):
    """numpy's `packbits`: each run of 8 elements along `axis` (the flattened array when None; the last run padded
    with zeros) as one byte, a nonzero element a set bit, the first the most significant for `bitorder='big'`.
    The bytes have numpy's values (0..255) in dtype int32: frame has no uint8."""
    a = _integer_or_bool(a, "packbits")
    if axis is None:
        a, axis = ravel(a), 0
    axis = _axis(axis, a.ndim, "packbits")
    bits = moveaxis(asarray(a != 0, _BYTE_DTYPE), axis, -1)
    n = bits.shape[-1]
    padded = pad(bits, [(0, 0)] * (bits.ndim - 1) + [(0, -n % 8)])
    groups = reshape(padded, tuple(padded.shape[:-1]) + (-(-n // 8), 8))
    packed = (groups * _bit_weights(bitorder, "packbits")).sum(axis=-1)
    return moveaxis(asarray(packed, _BYTE_DTYPE), -1, axis)


def unpackbits(a, axis=None, count=None, bitorder="big"):
    """numpy's `unpackbits`: each element's low 8 bits (numpy's uint8 byte; for other integers the byte numpy's
    astype(uint8) keeps) as 8 elements 0/1 along `axis` (the flattened array when None), most significant first
    for `bitorder='big'`; `count` keeps that many bits (zeros appended past the end, a negative count drops
    bits from the end). The bits are int32 (numpy: uint8, which frame does not carry)."""
    a = _integer_or_bool(a, "unpackbits")
    if axis is None:
        a, axis = ravel(a), 0
    axis = _axis(axis, a.ndim, "unpackbits")
    weights = _bit_weights(bitorder, "unpackbits")
    x = moveaxis(asarray(a, _BYTE_DTYPE), axis, -1)
    bits = ((x[..., None] & weights) != 0)   # (..., n, 8): bit k of each byte in the chosen order
    bits = reshape(asarray(bits, _BYTE_DTYPE), tuple(x.shape[:-1]) + (8 * x.shape[-1],))
    if count is not None:
        if not isinstance(count, (int, _np.integer)) or isinstance(count, builtins.bool):
            raise ShapeError(f"fnp.unpackbits: count must be an int or None, got {count!r}")
        total = bits.shape[-1]
        keep = max(total + int(count), 0) if count < 0 else min(int(count), total)
        bits = bits[..., :keep]
        if count > total:
            bits = pad(bits, [(0, 0)] * (bits.ndim - 1) + [(0, int(count) - total)])
    return moveaxis(bits, -1, axis)


# -- einsum_path ------------------------------------------------------------------------------
def einsum_path(*operands, optimize="greedy", einsum_call=False):
    """numpy's `einsum_path` (the contraction order and its report). It reads only the operands' shapes, so traced
    operands are replaced by numpy arrays of their shape and numpy answers."""
    def concrete(x):
        if not isinstance(x, Tracer):
            return x
        if not all(isinstance(d, (int, _np.integer)) for d in x.shape):
            raise TraceError(f"fnp.einsum_path needs concrete shapes, got a traced {x.type}")
        return _np.zeros(x.shape, x.dtype)
    return _np.einsum_path(*map(concrete, operands), optimize=optimize, einsum_call=einsum_call)


# -- printing ---------------------------------------------------------------------------------
printoptions, get_printoptions, set_printoptions = _np.printoptions, _np.get_printoptions, _np.set_printoptions


def _printable(a, name: str):
    if _has_tracer(a):
        raise TraceError(f"fnp.{name} needs concrete values, and a traced value has none while tracing; return the "
                         "array from the traced function and print it outside (or use fnp.debug_print)")
    return a


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None):
    """numpy's `array_repr` of a concrete array; TraceError for a traced value."""
    return _np.array_repr(_printable(arr, "array_repr"), max_line_width, precision, suppress_small)


def array_str(a, max_line_width=None, precision=None, suppress_small=None):
    """numpy's `array_str` of a concrete array; TraceError for a traced value."""
    return _np.array_str(_printable(a, "array_str"), max_line_width, precision, suppress_small)


# Last: from here on `bool` in this module is numpy's (the functions above use builtins.bool).
bool = _np.bool  # noqa: A001 - numpy's name
