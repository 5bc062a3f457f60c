"""Operand rules shared by frame.lax's functions (lax's: one dtype, one shape, no promotion)."""
from __future__ import annotations

import numpy as _np

from ..errors import ShapeError
from ..frontend.args import _dtype, _ints, _shape
from ..tracing import Tracer

_builtin_max, _builtin_min, _builtin_slice, _builtin_complex = max, min, slice, complex   # lax reuses these names


def _is_scalar(x) -> bool:
    return isinstance(x, (bool, int, float, _builtin_complex)) and not isinstance(x, _np.generic)



def _array(x):
    return x if isinstance(x, Tracer) else _np.asarray(x)


def _operands(name: str, *xs):
    """lax's operand rule for n-ary elementwise functions: one dtype, one shape (rank 0 broadcasts).
    A Python scalar is weakly typed: it takes the dtype of the array operands."""
    arrays = [x for x in xs if not _is_scalar(x)]
    if not arrays:
        arrays = [_np.asarray(xs[0])]
    dtypes = {_dtype(x) for x in arrays}
    if len(dtypes) != 1:
        raise ShapeError(f"lax.{name} requires arguments to have the same dtypes, got "
                         f"{', '.join(str(_dtype(x)) for x in arrays)} (fnp.{name} promotes types)")
    dtype = dtypes.pop()
    shapes = {_shape(x) for x in arrays if _shape(x) != ()}
    if len(shapes) > 1:
        raise ShapeError(f"lax.{name} requires arguments of one shape (or rank 0), got shapes "
                         f"{', '.join(str(_shape(x)) for x in arrays)} (lax does not broadcast)")
    return [_np.asarray(x, dtype) if _is_scalar(x) else _array(x) for x in xs]


def _inexact(name: str, x):
    if _np.dtype(_dtype(x)).kind not in "fc":
        raise ShapeError(f"lax.{name} takes a floating-point or complex operand, got {_dtype(x)} of shape {_shape(x)}")



def _rank_axes(name: str, axes, rank: int) -> tuple[int, ...]:
    out = []
    for a in _ints(tuple(axes), name, "dimensions"):
        if not -rank <= a < rank:
            raise ShapeError(f"lax.{name}: dimension {a} is out of range for rank {rank}")
        out.append(a % rank)
    if len(set(out)) != len(out):
        raise ShapeError(f"lax.{name}: repeated dimension in {tuple(axes)}")
    return tuple(out)


def _operands_same_dtype(name, operands):
    xs = [_array(x) for x in operands]
    if not xs or len({_dtype(x) for x in xs}) != 1:
        raise ShapeError(f"lax.{name} requires operands of one dtype, got {[_dtype(x) for x in xs]}")
    return xs
