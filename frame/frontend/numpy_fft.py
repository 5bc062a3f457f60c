"""`frame.numpy.fft`: numpy's 1-D `fft`, `ifft`, `rfft`, `irfft` (complex spectra; `n`, `axis`, `norm`),
`fftfreq`/`rfftfreq`, and the packed-real transforms pino uses (`rfft_packed`, generated from the
registry, and `irfft_packed`).

The transforms are frame's `fft` op along the last axis: another `axis` is moved there and back
(two transposes), `n` crops or zero-pads the operand first (slice / pad), and the norms other than
numpy's default "backward" are a multiplication by a constant afterwards.
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as _np

from ..errors import ShapeError
from ..tracing import Tracer, bind, prim
from .args import _axis, _dtype, _int, _shape

__all__ = ['fft']

_NORMS = ("backward", "ortho", "forward")


def _as_inexact(x, kind: str, want_complex: bool | None):
    """`x` in the dtype numpy's pocketfft computes in: complex64/128 (`want_complex` True), float32/64
    (False), either (None). float16 and float32 compute in single precision, ints and bools in double."""
    dtype = _dtype(x)
    if dtype.startswith("complex"):
        if want_complex is False:   # numpy drops the imaginary part with a warning; frame refuses
            raise ShapeError(f"fnp.fft.{kind} needs a real operand, got {dtype} (take fnp.real first)")
        return x
    real = "float32" if dtype in ("float16", "float32") else "float64"
    target = {"float32": "complex64", "float64": "complex128"}[real] if want_complex else real
    return prim.convert(x, dtype=target) if dtype != target else x


def _length(x, n, axis: int, kind: str) -> int:
    if n is None:
        return _shape(x)[axis]
    n = _int(n, f"fft.{kind}", "n")
    if n < 1:
        raise ShapeError(f"fnp.fft.{kind}: invalid number of FFT data points ({n}) specified")
    return n


def _fit(x, n: int):
    """`x` cropped or zero-padded to length `n` along its last axis, as numpy.fft does for `n`."""
    shape = _shape(x)
    d = shape[-1]
    if n < d:
        return prim.slice(x, starts=(0,) * len(shape), stops=shape[:-1] + (n,), steps=(1,) * len(shape))
    if n > d:
        zeros = (0,) * len(shape)
        return prim.pad(x, lo=zeros, hi=zeros[:-1] + (n - d,), interior=zeros)
    return x


def _scale(y, factor: float):
    return y if factor == 1.0 else y * _np.asarray(factor, _dtype(y))


def _transform(kind: str, a, n, axis, norm, want_complex):
    name = f"fnp.fft.{kind}"
    if norm is None:
        norm = "backward"
    if norm not in _NORMS:
        raise ShapeError(f'{name}: invalid norm value {norm!r}; should be "backward", "ortho" or "forward"')
    shape = _shape(a)
    if not shape:
        raise ShapeError(f"{name} needs an operand of rank >= 1, got a rank-0 {_dtype(a)}")
    axis = _axis(axis, len(shape), f"fft.{kind}")
    x = _as_inexact(a, kind, want_complex)
    # numpy's irfft of a real half-precision spectrum gives half precision back
    out_dtype = "float16" if kind == "irfft" and _dtype(a) == "float16" else None
    last = len(shape) - 1
    perm = tuple(i for i in range(len(shape)) if i != axis) + (axis,)
    if axis != last:
        x = prim.transpose(x, perm=perm)
    if kind == "irfft":
        out_n = 2 * (shape[axis] - 1) if n is None else _length(x, n, -1, kind)
        if out_n < 1:
            raise ShapeError(f"{name}: invalid number of data points ({out_n}) specified")
        y = bind("fft", _fit(x, out_n // 2 + 1), kind=kind, n=out_n)
    else:
        out_n = _length(x, n, -1, kind)
        y = bind("fft", _fit(x, out_n), kind=kind)
    inverse = kind in ("ifft", "irfft")
    factor = {"backward": 1.0, "ortho": math.sqrt(out_n) if inverse else 1 / math.sqrt(out_n),
              "forward": float(out_n) if inverse else 1.0 / out_n}[norm]
    y = _scale(y, factor)
    if out_dtype is not None:
        y = prim.convert(y, dtype=out_dtype)
    if axis != last:
        y = prim.transpose(y, perm=tuple(int(p) for p in _np.argsort(perm)))
    return y


def fft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """Discrete Fourier transform of `a` along `axis` (numpy.fft.fft): complex result, `n` points
    (cropping or zero-padding `a`), `norm` "backward" (default, no factor), "ortho" or "forward" (1/n)."""
    return _transform("fft", a, n, axis, norm, True)


def ifft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """Inverse of `fft` (numpy.fft.ifft): 1/n under the default "backward" norm."""
    return _transform("ifft", a, n, axis, norm, True)


def rfft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """`fft` of a real signal, keeping the `n//2 + 1` non-negative frequencies (numpy.fft.rfft)."""
    return _transform("rfft", a, n, axis, norm, False)


def irfft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """Inverse of `rfft` (numpy.fft.irfft): a real signal of length `n` (default `2*(m-1)` for m bins)
    from its Hermitian half-spectrum, cropped or zero-padded to `n//2 + 1` bins. The imaginary parts
    of the DC and (even n) Nyquist bins are ignored, as numpy does."""
    return _transform("irfft", a, n, axis, norm, None)


def fftfreq(n: int, d=1.0):
    """Sample frequencies of an n-point `fft` with sample spacing `d` (numpy.fft.fftfreq), float64."""
    return _freq(_np.fft.fftfreq, n, d)


def rfftfreq(n: int, d=1.0):
    """Sample frequencies of an n-point `rfft` with sample spacing `d` (numpy.fft.rfftfreq), float64."""
    return _freq(_np.fft.rfftfreq, n, d)


def _freq(numpy_fn, n, d):
    n = _int(n, numpy_fn.__name__, "n")
    if n < 1:
        raise ShapeError(f"fnp.fft.{numpy_fn.__name__}: n must be a positive integer, got {n}")
    if isinstance(d, Tracer):   # a traced spacing: the integer frequencies divided by it
        return numpy_fn(n, 1.0).astype(d.type.dtype) / d
    return numpy_fn(n, d)


def irfft_packed(spectrum, n: int | None = None):
    """Inverse of `rfft_packed`: packed spectrum `(..., m, 2)` to a real signal `(..., n)` along the last axis.

    `n` defaults to `2*(m-1)` like `numpy.fft.irfft`; the spectrum must have exactly `n//2+1` bins.
    The imaginary parts of the DC and (even n) Nyquist bins are ignored, as numpy does.
    """
    shape = _shape(spectrum)
    if n is None:
        if len(shape) < 2:
            raise ShapeError(f"fnp.fft.irfft_packed: the packed spectrum needs shape (..., m, 2), got {tuple(shape)}")
        n = 2 * (shape[-2] - 1)
    if isinstance(n, bool) or not isinstance(n, (int, _np.integer)):
        raise ShapeError(f"fnp.fft.irfft_packed: n must be an int, got {type(n).__name__} {n!r}")
    return bind("irfft", spectrum, n=int(n))


# frame.numpy has these under fft only, as numpy does; fft.rfft_packed is generated from the registry.
fft = SimpleNamespace(fft=fft, ifft=ifft, rfft=rfft, irfft=irfft, fftfreq=fftfreq, rfftfreq=rfftfreq,
                      irfft_packed=irfft_packed)
del ifft, rfft, irfft, fftfreq, rfftfreq, irfft_packed
