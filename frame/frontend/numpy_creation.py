"""frame.numpy's array creation: `asarray`, `zeros_like`, `ones_like`."""
from __future__ import annotations

import numpy as _np

from ..errors import ShapeError, TraceError
from ..tracing import Tracer
from .args import _shape
from ..ir.types import canonical_dtype

__all__ = ['asarray', 'zeros_like', 'ones_like']


def asarray(x, dtype=None):
    """`x` as an array: tracers pass through (a dtype change of a traced value is not supported yet)."""
    if dtype is not None:
        dtype = canonical_dtype(dtype)
    if isinstance(x, Tracer):
        if dtype is not None and dtype != x.type.dtype:
            raise TraceError(f"fnp.asarray: casting a traced {x.type} to {dtype} is not supported yet (no cast op)")
        return x
    try:
        a = _np.asarray(x, dtype=dtype)
    except (TypeError, ValueError, OverflowError) as e:
        raise ShapeError(f"fnp.asarray: cannot make a {dtype or 'numeric'} array of {type(x).__name__} {x!r} ({e})") from None
    canonical_dtype(a.dtype)
    return a


def _like_dtype(x) -> str:
    # callers take _shape(x) first, which already refuses ragged lists
    return x.type.dtype if isinstance(x, Tracer) else canonical_dtype(_np.asarray(x).dtype)


def zeros_like(x):
    return _np.zeros(_shape(x), dtype=_like_dtype(x))


def ones_like(x):
    return _np.ones(_shape(x), dtype=_like_dtype(x))
