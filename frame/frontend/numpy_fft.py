"""`frame.numpy.fft`: numpy's 1-D `fft`, `ifft`, `rfft`, `irfft` (complex spectra; `n`, `axis`, `norm`),
their n-d forms `fft2`, `ifft2`, `rfft2`, `irfft2`, `fftn`, `ifftn`, `rfftn`, `irfftn` (`s`, `axes`,
`norm`), the Hermitian `hfft`/`ihfft`, `fftfreq`/`rfftfreq`, `fftshift`/`ifftshift`, and the packed-real transforms pino uses (`rfft_packed`, generated
from the registry, and `irfft_packed`).

The n-d transforms are numpy's own definition (numpy/fft/_pocketfft.py `_raw_fftnd`, `rfftn`,
`irfftn`): 1-D transforms composed axis by axis, the last axis of `axes` first for fftn/ifftn/rfftn
(rfftn: rfft there, fft on the others) and last for irfftn (ifft on `axes[:-1]`, then irfft). So
every rule of the 1-D functions (dtypes, cropping/padding by `s`, norms) holds per axis, a repeated
axis is transformed again as numpy does, and the gradients are the 1-D ops' adjoints composed.

The transforms are frame's `fft` op along the last axis: another `axis` is moved there and back
(two transposes), `n` crops or zero-pads the operand first (slice / pad), and the norms other than
numpy's default "backward" are a multiplication by a constant afterwards.
"""
from __future__ import annotations

import math
import warnings
from types import SimpleNamespace

import numpy as _np

from ..errors import ShapeError
from ..tracing import Tracer, bind, prim
from .args import _axis, _dtype, _int, _shape
from .numpy_shape import roll

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


# -- n-d transforms: numpy's composition of 1-D ones ---------------------------------------------------
def _nd_args(name: str, a, s, axes, inverse_real: bool) -> tuple[list, list[int]]:
    """numpy's `_cook_nd_args`: the lengths `s` and `axes` of an n-d transform, checked with `name`.

    `axes` None: the last len(s) axes (all when `s` is None too); `s` None: the operand's lengths
    (irfftn: `2*(m-1)` on the last axis); an entry -1 takes the operand's length, None (deprecated
    in numpy 2.0) the 1-D transform's default. `s` without `axes` is deprecated in numpy 2.0 and
    warns the same way here."""
    shape = _shape(a)
    rank = len(shape)
    if axes is not None:
        if isinstance(axes, (int, _np.integer)) or not hasattr(axes, "__len__"):
            raise ShapeError(f"{name}: axes must be a sequence of ints, got {type(axes).__name__} {axes!r}")
        axes = [_int(ax, name[len("fnp."):], "axes") for ax in axes]
        for ax in axes:
            if not -rank <= ax < rank:
                raise ShapeError(f"{name}: axis {ax} is out of range for an operand of shape {tuple(shape)}")
        axes = [ax % rank for ax in axes]
    if s is None:
        if axes is None:
            axes = list(range(rank))
        lengths = [shape[ax] for ax in axes]
        if inverse_real and axes:
            lengths[-1] = 2 * (shape[axes[-1]] - 1)
        return lengths, axes
    if isinstance(s, (int, _np.integer)) or not hasattr(s, "__len__"):
        raise ShapeError(f"{name}: s must be a sequence of ints, got {type(s).__name__} {s!r}")
    lengths = [None if n is None else _int(n, name[len("fnp."):], "s") for n in s]
    if axes is None:
        warnings.warn(f"{name}: `axes` should not be `None` if `s` is not `None` (deprecated in NumPy 2.0); the "
                      f"last {len(lengths)} axes are transformed", DeprecationWarning, stacklevel=4)
        if len(lengths) > rank:
            raise ShapeError(f"{name}: s={tuple(s)} has more entries than the operand's {rank} axes")
        axes = list(range(rank - len(lengths), rank))
    if len(lengths) != len(axes):
        raise ShapeError(f"{name}: shape and axes have different lengths: s={tuple(s)}, axes={tuple(axes)}")
    if None in lengths:
        warnings.warn(f"{name}: None in `s` is deprecated in NumPy 2.0 (the 1-D transform's default length is "
                      f"used)", DeprecationWarning, stacklevel=4)
    lengths = [shape[ax] if n == -1 else n for n, ax in zip(lengths, axes)]
    for n in lengths:
        if n is not None and n < 1:
            raise ShapeError(f"{name}: invalid number of FFT data points ({n}) specified in s={tuple(s)}")
    return lengths, axes


def _nd(kind: str, a, s, axes, norm, alias: str | None = None):
    name = f"fnp.fft.{alias or kind}"     # errors name the function called (fft2), not the one it is (fftn)
    lengths, axes = _nd_args(name, a, s, axes, kind == "irfftn")
    if not axes:
        if kind in ("fftn", "ifftn"):
            return a                       # numpy's fftn over no axes returns its operand as it is
        raise ShapeError(f"{name} needs at least one axis to transform, got axes=() for shape {tuple(_shape(a))}")
    if kind == "irfftn":
        x = a
        for n, ax in zip(lengths[:-1], axes[:-1]):
            x = _along(name, "ifft", x, n, ax, norm, True)
        out = lengths[-1]
        if out is None:
            out = 2 * (_shape(x)[axes[-1]] - 1)
        if out < 1:
            raise ShapeError(f"{name}: invalid number of data points ({out}) for the last axis {axes[-1]} "
                             f"(2*(m-1) for m = {_shape(x)[axes[-1]]} bins); pass s")
        return _along(name, "irfft", x, out, axes[-1], norm, None)
    x = a
    if kind == "rfftn":
        x = _along(name, "rfft", x, lengths[-1], axes[-1], norm, False)
        lengths, axes = lengths[:-1], axes[:-1]
    one = "fft" if kind in ("fftn", "rfftn") else "ifft"
    for n, ax in zip(reversed(lengths), reversed(axes)):
        x = _along(name, one, x, n, ax, norm, True)
    return x


def _along(name: str, kind: str, x, n, axis: int, norm, want_complex):
    """One 1-D transform of an n-d one; its errors name the n-d function and the axis."""
    try:
        return _transform(kind, x, n, axis, norm, want_complex)
    except ShapeError as error:
        raise ShapeError(f"{name} (its {kind} along axis {axis}): {error}") from None


def fftn(a, s=None, axes=None, norm: str | None = None):
    """n-d discrete Fourier transform over `axes` (numpy.fft.fftn): `fft` along each, the last first;
    `s` the lengths (cropping/zero-padding; -1: the operand's), `axes` default all (or the last len(s))."""
    return _nd("fftn", a, s, axes, norm)


def ifftn(a, s=None, axes=None, norm: str | None = None):
    """Inverse of `fftn` (numpy.fft.ifftn): `ifft` along each of `axes` (1/prod(s) under "backward")."""
    return _nd("ifftn", a, s, axes, norm)


def rfftn(a, s=None, axes=None, norm: str | None = None):
    """n-d FFT of a real operand (numpy.fft.rfftn): `rfft` along the last of `axes` (s[-1]//2 + 1 bins),
    then `fft` along the others."""
    return _nd("rfftn", a, s, axes, norm)


def irfftn(a, s=None, axes=None, norm: str | None = None):
    """Inverse of `rfftn` (numpy.fft.irfftn): `ifft` along `axes[:-1]`, then `irfft` along the last to
    `s[-1]` points (default `2*(m-1)` for m bins: pass `s` for odd lengths). Real result."""
    return _nd("irfftn", a, s, axes, norm)


def fft2(a, s=None, axes=(-2, -1), norm: str | None = None):
    """2-d FFT over `axes` (default the last two; numpy.fft.fft2): `fftn` with those axes."""
    return _nd2("fftn", "fft2", a, s, axes, norm)


def ifft2(a, s=None, axes=(-2, -1), norm: str | None = None):
    """Inverse of `fft2` (numpy.fft.ifft2)."""
    return _nd2("ifftn", "ifft2", a, s, axes, norm)


def rfft2(a, s=None, axes=(-2, -1), norm: str | None = None):
    """2-d FFT of a real operand (numpy.fft.rfft2): `rfftn` over the last two axes by default."""
    return _nd2("rfftn", "rfft2", a, s, axes, norm)


def irfft2(a, s=None, axes=(-2, -1), norm: str | None = None):
    """Inverse of `rfft2` (numpy.fft.irfft2): `irfftn` over the last two axes by default."""
    return _nd2("irfftn", "irfft2", a, s, axes, norm)


def _nd2(kind: str, alias: str, a, s, axes, norm):
    return _nd(kind, a, s, axes, norm, alias)


_SWAPPED_NORM = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


def hfft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """numpy's `hfft`: the real spectrum of a signal with Hermitian symmetry given by its first half,
    `irfft(conj(a), n)` with the norm's direction swapped (numpy's definition)."""
    if norm not in _SWAPPED_NORM:
        raise ShapeError(f"fnp.fft.hfft: norm must be one of {', '.join(_NORMS)} or None, got {norm!r}")
    return fft.irfft(bind("conj", _as_inexact(a, "hfft", True)), n, axis, _SWAPPED_NORM[norm])   # the namespace below


def ihfft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """numpy's `ihfft`: the inverse of `hfft`, `conj(rfft(a, n))` with the norm's direction swapped."""
    if norm not in _SWAPPED_NORM:
        raise ShapeError(f"fnp.fft.ihfft: norm must be one of {', '.join(_NORMS)} or None, got {norm!r}")
    return bind("conj", fft.rfft(a, n, axis, _SWAPPED_NORM[norm]))


def _shift(x, axes, sign: int, name: str):
    shape = _shape(x)
    axes = tuple(range(len(shape))) if axes is None else (axes,) if isinstance(axes, int) else tuple(axes)
    axes = tuple(_axis(a, len(shape), name) for a in axes)
    return roll(x, tuple(sign * (shape[a] // 2) for a in axes), axes) if axes else x


def fftshift(x, axes=None):
    """numpy's `fftshift`: the zero frequency moved to the centre (a roll by n // 2 along `axes`, None: all)."""
    return _shift(x, axes, 1, "fftshift")


def ifftshift(x, axes=None):
    """numpy's `ifftshift`: the inverse of `fftshift` (a roll by -(n // 2))."""
    return _shift(x, axes, -1, "ifftshift")


# frame.numpy has these under fft only, as numpy does; fft.rfft_packed is generated from the registry.
fft = SimpleNamespace(fft=fft, ifft=ifft, rfft=rfft, irfft=irfft, fft2=fft2, ifft2=ifft2, rfft2=rfft2, irfft2=irfft2,
                      fftn=fftn, ifftn=ifftn, rfftn=rfftn, irfftn=irfftn, fftfreq=fftfreq, rfftfreq=rfftfreq,
                      irfft_packed=irfft_packed, hfft=hfft, ihfft=ihfft, fftshift=fftshift, ifftshift=ifftshift)
del ifft, rfft, irfft, fft2, ifft2, rfft2, irfft2, fftn, ifftn, rfftn, irfftn, fftfreq, rfftfreq, irfft_packed, hfft, ihfft
del fftshift, ifftshift
