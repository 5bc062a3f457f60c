"""frame.numpy's elementwise functions that normalise their arguments (`power`); the one-op
functions (`exp`, `add`, ...) are generated from the registry."""
from __future__ import annotations

import math

import numpy as _np

from ..errors import ShapeError, TraceError
from ..tracing import Tracer, bind

__all__ = ['power']


def power(x, p):
    """`x ** p` for a Python-number exponent `p` (a traced exponent is not supported by the `pow` op).

    A numpy scalar or 0-d array exponent must have `x`'s dtype: numpy would widen the result otherwise.
    """
    if isinstance(p, Tracer) or isinstance(p, _np.ndarray) and p.ndim > 0:
        raise TraceError("fnp.power: the exponent must be a Python number; for a traced exponent use fnp.exp(p * fnp.log(x))")
    if isinstance(p, (_np.generic, _np.ndarray)):
        if _np.dtype(p.dtype) != getattr(x, "dtype", None):
            raise ShapeError(f"op 'pow': the exponent's dtype {p.dtype} differs from the base's "
                             f"{getattr(x, 'dtype', type(x).__name__)}; frame does not promote")
    elif isinstance(p, bool) or not isinstance(p, (int, float)):
        raise ShapeError(f"op 'pow': the exponent must be a number, got {type(p).__name__} {p!r}")
    return bind("pow", x, exponent=float(p))


def _rpow(x, base):
    if isinstance(base, Tracer):
        raise TraceError("a traced exponent is not supported by '**'; use fnp.exp(p * fnp.log(x))")
    return bind("exp", bind("mul", x, math.log(base)))  # fnp.exp(fnp.multiply(x, log(base)))
