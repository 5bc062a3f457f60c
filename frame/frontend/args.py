"""Argument normalisation shared by frame.numpy's functions: shapes, ints, axes (numpy's rules)."""
from __future__ import annotations

import operator

import numpy as _np

from ..errors import ShapeError, TraceError
from ..ir.types import Dim
from ..tracing import Tracer

__all__ = ["_shape", "_dtype", "_int", "_ints", "_ndim", "_axes", "_axis"]


def _shape(x) -> tuple[int, ...]:
    if isinstance(x, Tracer):
        return x.shape
    try:
        return _np.shape(x)
    except ValueError:  # a ragged nested list
        raise TraceError(f"cannot use a ragged {type(x).__name__} as an array operand") from None
    except TraceError:  # numpy asked a tracer inside the list for its values
        raise TraceError(f"cannot use a {type(x).__name__} holding traced values as an array operand; "
                         "make it one array with fnp.asarray or fnp.stack") from None


def _dtype(x) -> str | None:
    """The dtype name of operand `x` (a tracer, array, scalar or nested list); None when it is no array
    (a ragged list, a list of tracers), which the op then refuses by name."""
    if isinstance(x, Tracer):
        return x.value.type.dtype
    try:
        return _np.asarray(x).dtype.name
    except (ValueError, TypeError):
        return None


def _int(value, op: str, what: str) -> int:
    """`value` as an int, by numpy's rule (anything with `__index__`; not floats or strings). A symbolic
    dimension (`frame.ir.types.Dim`, a traced array's size known per call) passes as itself: shapes
    made from a traced array's `.shape` reach the op's shape rule, which decides what it can do with it."""
    if type(value) is Dim:
        return value
    try:
        return operator.index(value)
    except TypeError:
        raise ShapeError(f"op '{op}': {what} must be an integer, got {type(value).__name__} {value!r}") from None


def _ints(values, op: str, what: str) -> tuple[int, ...]:
    """An int or a sequence of ints (a shape, axes, a permutation) as a tuple."""
    if isinstance(values, (list, tuple)):
        return tuple(_int(v, op, what) for v in values)
    return (_int(values, op, what),)


def _ndim(x) -> int:
    return len(_shape(x))


def _axes(axis, rank: int, op: str) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(rank))
    if isinstance(axis, list):  # numpy's rule: an int or a tuple of ints
        raise ShapeError(f"op '{op}': axis must be an int or a tuple of ints, got a list {axis}")
    axes = _ints(axis, op, "axis")
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise ShapeError(f"op '{op}': axis {a} is out of range for rank {rank}")
        out.append(a % rank)
    if len(set(out)) != len(out):
        raise ShapeError(f"op '{op}': repeated axis in {axes}")
    return tuple(sorted(out))


def _axis(axis, rank: int, op: str) -> int:
    """One axis (an int, by numpy's rule) normalised to [0, rank)."""
    a = _int(axis, op, "axis")
    if not -rank <= a < rank:
        raise ShapeError(f"op '{op}': axis {a} is out of range for rank {rank}")
    return a % rank
