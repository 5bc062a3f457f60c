"""`frame.scipy.signal`: n-dimensional convolution and correlation as jax.scipy.signal offers them: `convolve`,
`correlate` (modes "full", "same", "valid"; method "direct", "fft" or "auto"), `fftconvolve`, and the 2-d
`convolve2d`/`correlate2d` (boundary "fill" with fillvalue 0, as JAX). Compositions of frame.numpy ops, so they
trace and differentiate in both operands to any order.

"direct" sums shifted slices of the zero-padded first operand, one per element of the second (exact in
integers, which keep their dtype as in scipy); "fft" multiplies real n-d FFTs (floats; rounding differs from
the direct sums at the level of the largest terms). "auto" takes "direct" for integers and for second operands
of at most 64 elements, else "fft" (scipy times the two; its choice also gives the same values up to rounding).
"""
from __future__ import annotations

import numpy as _np

from ..errors import ShapeError
from ..frontend import numpy as fnp
from ..frontend.args import _dtype, _ndim, _shape

__all__ = ["convolve", "correlate", "fftconvolve", "convolve2d", "correlate2d"]

_MODES = ("full", "same", "valid")
_DIRECT_UP_TO = 64   # second-operand elements up to which "auto" sums slices


def _operands(in1, in2, mode: str, method: str, fn: str):
    in1, in2 = fnp.asarray(in1), fnp.asarray(in2)
    if mode not in _MODES:
        raise ShapeError(f"scipy.signal.{fn}: mode must be one of {_MODES}, got {mode!r}")
    if method not in ("auto", "direct", "fft"):
        raise ShapeError(f"scipy.signal.{fn}: method must be 'auto', 'direct' or 'fft', got {method!r}")
    if _ndim(in1) != _ndim(in2):
        raise ShapeError(f"scipy.signal.{fn}: in1 and in2 must have the same number of dimensions, got shapes "
                         f"{_shape(in1)} and {_shape(in2)}")
    if 0 in _shape(in1) or 0 in _shape(in2):
        raise ShapeError(f"scipy.signal.{fn}: empty operands (shapes {_shape(in1)} and {_shape(in2)})")
    if mode == "valid":
        bigger = all(a >= b for a, b in zip(_shape(in1), _shape(in2)))
        smaller = all(a <= b for a, b in zip(_shape(in1), _shape(in2)))
        if not (bigger or smaller):
            raise ShapeError(f"scipy.signal.{fn}: for 'valid' mode, one operand must be at least as large as the "
                             f"other in every dimension, got shapes {_shape(in1)} and {_shape(in2)}")
    dtype = _np.result_type(_dtype(in1), _dtype(in2))
    if dtype == _np.bool_:
        dtype = _np.dtype("int64")
    return fnp.astype(in1, dtype), fnp.astype(in2, dtype)


def _centered(full, shape):
    starts = [(f - s) // 2 for f, s in zip(_shape(full), shape)]
    return full[tuple(slice(a, a + s) for a, s in zip(starts, shape))]


def _crop(full, in1_shape, in2_shape, mode: str):
    if mode == "full":
        return full
    if mode == "same":
        return _centered(full, in1_shape)
    return _centered(full, tuple(abs(a - b) + 1 for a, b in zip(in1_shape, in2_shape)))


def _direct_full(in1, in2):
    """sum_k in2[k] in1[n - k]: the zero-padded in1 shifted once per element of in2."""
    k_shape, n_shape = _shape(in2), _shape(in1)
    full = tuple(n + k - 1 for n, k in zip(n_shape, k_shape))
    padded = fnp.pad(in1, [(k - 1, k - 1) for k in k_shape])
    total = None
    for k in _np.ndindex(*k_shape):
        shifted = padded[tuple(slice(kk - 1 - i, kk - 1 - i + f) for i, kk, f in zip(k, k_shape, full))]
        term = in2[k] * shifted
        total = term if total is None else total + term
    return total


def _fft_full(in1, in2):
    full = tuple(n + k - 1 for n, k in zip(_shape(in1), _shape(in2)))
    axes = tuple(range(len(full)))
    if _dtype(in1).startswith("complex"):
        return fnp.fft.ifftn(fnp.fft.fftn(in1, full, axes) * fnp.fft.fftn(in2, full, axes), full, axes)
    return fnp.fft.irfftn(fnp.fft.rfftn(in1, full, axes) * fnp.fft.rfftn(in2, full, axes), full, axes)


def convolve(in1, in2, mode: str = "full", method: str = "auto", *, precision=None):
    """scipy's `convolve` of two n-d arrays of equal rank (`precision` is JAX's and has no effect)."""
    in1, in2 = _operands(in1, in2, mode, method, "convolve")
    kind = _np.dtype(_dtype(in1)).kind
    if method == "fft" and kind in "iu":
        raise ShapeError("scipy.signal.convolve: method='fft' needs float or complex operands, got "
                         f"{_dtype(in1)}")
    if method == "auto":
        method = "direct" if kind in "iu" or int(_np.prod(_shape(in2))) <= _DIRECT_UP_TO else "fft"
    full = _direct_full(in1, in2) if method == "direct" else _fft_full(in1, in2)
    return _crop(full, _shape(in1), _shape(in2), mode)


def _reversed_conjugate(x):
    x = fnp.flip(x)
    return fnp.conj(x) if _dtype(x).startswith("complex") else x


def correlate(in1, in2, mode: str = "full", method: str = "auto", *, precision=None):
    """scipy's `correlate`: `convolve(in1, in2 reversed and conjugated, mode)`."""
    in1, in2 = _operands(in1, in2, mode, method, "correlate")
    return convolve(in1, _reversed_conjugate(in2), mode, method)


def fftconvolve(in1, in2, mode: str = "full", axes=None):
    """scipy's `fftconvolve` over all axes (`axes=None`; other axes are refused by name)."""
    if axes is not None:
        raise ShapeError("scipy.signal.fftconvolve: only axes=None (all axes) is supported, as jax.scipy.signal")
    return convolve(in1, in2, mode, "fft")


def _two_d(in1, in2, boundary: str, fillvalue, fn: str):
    if _ndim(fnp.asarray(in1)) != 2 or _ndim(fnp.asarray(in2)) != 2:
        raise ShapeError(f"scipy.signal.{fn}: in1 and in2 must be 2-d, got shapes {_shape(fnp.asarray(in1))} and "
                         f"{_shape(fnp.asarray(in2))}")
    if boundary != "fill" or fillvalue != 0:
        raise ShapeError(f"scipy.signal.{fn}: only boundary='fill' with fillvalue=0 is supported (as jax.scipy."
                         f"signal), got boundary={boundary!r}, fillvalue={fillvalue!r}")


def convolve2d(in1, in2, mode: str = "full", boundary: str = "fill", fillvalue=0, precision=None):
    """scipy's `convolve2d` with zero fill (the direct sums)."""
    _two_d(in1, in2, boundary, fillvalue, "convolve2d")
    return convolve(in1, in2, mode, "direct")


def correlate2d(in1, in2, mode: str = "full", boundary: str = "fill", fillvalue=0, precision=None):
    """scipy's `correlate2d` with zero fill (the direct sums). Its "same" window differs from `correlate`'s for
    even second-operand sizes: it starts at k // 2 of the full result, not (k - 1) // 2 (scipy's kernel)."""
    _two_d(in1, in2, boundary, fillvalue, "correlate2d")
    if mode != "same":
        return correlate(in1, in2, mode, "direct")
    full = correlate(in1, in2, "full", "direct")
    return full[tuple(slice(k // 2, k // 2 + n) for n, k in zip(_shape(fnp.asarray(in1)), _shape(fnp.asarray(in2))))]
