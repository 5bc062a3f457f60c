"""`frame.scipy.fft`: scipy.fft's discrete cosine transforms `dct`, `idct`, `dctn`, `idctn`, as jax.scipy.fft
offers them and more: all four of scipy's types (JAX: type 2 only), norms None/"backward", "ortho" and "forward",
`n` / `s` cropping or zero-padding, `axis` / `axes`, and scipy's keyword `orthogonalize`.

Each 1-D transform is frame.numpy's FFT of a length-2N signal along the last axis (the transformed axis is
moved there and back), with twiddle factors and the real part taken elementwise, so the transforms trace and
differentiate to any order (their derivatives are the FFT ops' adjoints). From the definitions:
  type 1: the even extension [x0 .. x(N-1), x(N-2) .. x1] has the real DFT y (N >= 2, as scipy requires);
  type 2: y[k] = 2 Re(exp(-i pi k / 2N) X[k]), X the 2N-point DFT of x zero-padded;
  type 3: y = the unnormalised 2N-point inverse real DFT of the half-spectrum x[n] exp(i pi n / 2N), cropped to N;
  type 4: y[k] = 2 Re(exp(-i pi (2k+1) / 4N) W[k]), W the 2N-point DFT of x[n] exp(-i pi n / 2N).
`idct` of type t is the `dct` of the inverse type (1 and 4 are their own, 2 and 3 each other's) with the norm's
direction swapped, as scipy defines it; the n-d transforms apply the 1-D one along each of `axes`.

dtypes are scipy's: float32 (and float16) compute and return float32, float64 and bool/integers float64; a complex
operand is transformed in its real and imaginary parts (the transforms are real-linear), complex64 or complex128.
`overwrite_x` and `workers` are not taken (frame never writes into its operands).
"""
from __future__ import annotations

import math
import operator

import numpy as _np

from ..errors import ShapeError, TraceError
from ..frontend import numpy as fnp
from ..frontend.args import _dtype, _shape
from ..frontend.numpy_creation import as_operand

__all__ = ["dct", "idct", "dctn", "idctn"]

_TYPES = (1, 2, 3, 4)
_NORMS = (None, "backward", "ortho", "forward")
_INVERSE_TYPE = {1: 1, 2: 3, 3: 2, 4: 4}
_SWAPPED_NORM = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


# -- arguments -----------------------------------------------------------------------------------------
def _check_type_norm(name: str, type, norm, orthogonalize):
    if isinstance(type, bool) or type not in _TYPES:
        raise ShapeError(f"frame.scipy.fft.{name}: type must be 1, 2, 3 or 4, got {type!r}")
    if norm not in _NORMS:
        raise ShapeError(f'frame.scipy.fft.{name}: invalid norm {norm!r}; should be None, "backward", "ortho" '
                         f'or "forward"')
    if orthogonalize not in (None, True, False):
        raise ShapeError(f"frame.scipy.fft.{name}: orthogonalize must be None, True or False, got {orthogonalize!r}")


def _index(value, name: str, what: str) -> int:
    if isinstance(value, bool):
        raise ShapeError(f"frame.scipy.fft.{name}: {what} must be an integer, got bool {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise ShapeError(f"frame.scipy.fft.{name}: {what} must be an integer, got {type(value).__name__} "
                         f"{value!r}") from None


def _operand(x, name: str):
    """`x` as an array in scipy's compute dtype: float32 for float16/32, float64 for float64, bool and ints;
    complex operands as they are."""
    x = as_operand(x)
    dtype = _dtype(x)
    if dtype is None:
        raise ShapeError(f"frame.scipy.fft.{name}: cannot make an array of a {type(x).__name__}")
    if dtype.startswith("complex") or dtype in ("float32", "float64"):
        return x
    return fnp.astype(x, "float32" if dtype == "float16" else "float64")


def _check_axis(axis, shape, name: str) -> int:
    axis = _index(axis, name, "axis")
    if not -len(shape) <= axis < len(shape):
        raise ShapeError(f"frame.scipy.fft.{name}: axis {axis} is out of range for an operand of shape {shape}")
    return axis % len(shape)


def _check_length(n, name: str) -> int:
    n = _index(n, name, "n")
    if n < 1:
        raise ShapeError(f"frame.scipy.fft.{name}: invalid number of data points ({n}) specified")
    return n


def _nd_args(name: str, shape, s, axes):
    """scipy's rules for `s` and `axes`: ints or sequences; `axes` None means the last len(s) axes (all
    when `s` is None too); an entry -1 in `s` keeps the operand's length; axes unique and in range."""
    rank = len(shape)
    if s is not None:
        s = [_index(v, name, "s")
             for v in (s if isinstance(s, (list, tuple, _np.ndarray)) else [s])]
    if axes is None:
        if s is not None and len(s) > rank:
            raise ShapeError(f"frame.scipy.fft.{name}: s={tuple(s)} has more entries than the operand's "
                             f"{rank} axes (shape {shape})")
        axes = list(range(rank - len(s), rank)) if s is not None else list(range(rank))
    else:
        axes = [_check_axis(a, shape, name)
                for a in (axes if isinstance(axes, (list, tuple, _np.ndarray)) else [axes])]
        if len(set(axes)) != len(axes):
            raise ShapeError(f"frame.scipy.fft.{name}: all axes must be unique, got {tuple(axes)}")
    if s is None:
        s = [shape[a] for a in axes]
    if len(s) != len(axes):
        raise ShapeError(f"frame.scipy.fft.{name}: s={tuple(s)} and axes={tuple(axes)} must have the same length")
    s = [shape[a] if v == -1 else v for v, a in zip(s, axes)]
    for v in s:
        _check_length(v, name)
    return s, axes


# -- the 1-D transform along the last axis ----------------------------------------------------------------
def _fit(x, n: int):
    """`x` cropped or zero-padded to length `n` along its last axis (scipy's `n`)."""
    d = _shape(x)[-1]
    if n < d:
        return x[..., :n]
    if n > d:
        return fnp.pad(x, [(0, 0)] * (len(_shape(x)) - 1) + [(0, n - d)])
    return x


def _dct_last(x, type: int, norm, orthogonalize: bool, name: str):
    """scipy's DCT of `type` of the real float array `x` along its last axis."""
    N = _shape(x)[-1]
    if not isinstance(N, int):
        raise TraceError(f"frame.scipy.fft.{name} needs a concrete length along the transformed axis, got {N}")
    if type == 1 and N < 2:
        raise ShapeError(f"frame.scipy.fft.{name}: the type 1 DCT needs at least 2 points, got {N}")
    real = _dtype(x)
    cplx = "complex64" if real == "float32" else "complex128"
    k = _np.arange(N, dtype=_np.float64)
    sqrt2 = math.sqrt(2.0)

    if orthogonalize and type in (1, 3):   # the pre-scaling that makes the matrix orthogonal (scipy's)
        pre = _np.ones(N)
        pre[0] = sqrt2
        if type == 1:
            pre[-1] = sqrt2
        x = x * pre.astype(real)

    if type == 1:
        # the DFT of the even extension of period 2(N-1) is real: x0 + (-1)^k x(N-1) + 2 sum x_n cos(pi k n/(N-1))
        v = fnp.concatenate([x, fnp.flip(x[..., 1:N - 1], axis=-1)], axis=-1) if N > 2 else x
        y = fnp.real(fnp.fft.rfft(v))
    elif type == 2:
        # 2 cos(pi k (2n+1) / 2N) = 2 Re(exp(-i pi k / 2N) exp(-2 pi i k n / 2N))
        X = fnp.fft.rfft(x, n=2 * N)[..., :N]
        y = fnp.real(X * (2 * _np.exp(-0.5j * _np.pi * k / N)).astype(cplx))
    elif type == 3:
        # x0 + 2 sum_{n>0} x_n cos(pi n (2k+1) / 2N): the Hermitian spectrum Z_n = x_n exp(i pi n / 2N)
        # (Z_0 real, Z_N = 0) summed by the unnormalised inverse real DFT of length 2N
        Z = x * _np.exp(0.5j * _np.pi * k / N).astype(cplx)
        y = fnp.fft.irfft(Z, n=2 * N, norm="forward")[..., :N]
    else:
        # (2n+1)(2k+1)/4N = nk/N + n/2N + (2k+1)/4N: twiddle before and after a 2N-point DFT
        W = fnp.fft.fft(x * _np.exp(-0.5j * _np.pi * k / N).astype(cplx), n=2 * N)[..., :N]
        y = fnp.real(W * (2 * _np.exp(-0.25j * _np.pi * (2 * k + 1) / N)).astype(cplx))

    post = _np.ones(N)
    if orthogonalize and type in (1, 2):
        post[0] = 1 / sqrt2
        if type == 1:
            post[-1] = 1 / sqrt2
    period = 2 * (N - 1) if type == 1 else 2 * N
    scale = {None: 1.0, "backward": 1.0, "ortho": 1 / math.sqrt(period), "forward": 1.0 / period}[norm]
    post = post * scale
    return y if (post == 1.0).all() else y * post.astype(real)


def _dct_along(x, type, n, axis: int, norm, orthogonalize, name: str):
    """The DCT of the real or complex array `x` along `axis`, `n` points (checked)."""
    if orthogonalize is None:
        orthogonalize = norm == "ortho"
    if _dtype(x).startswith("complex"):   # real-linear: transform the real and imaginary parts
        re = _dct_along(fnp.real(x), type, n, axis, norm, orthogonalize, name)
        im = _dct_along(fnp.imag(x), type, n, axis, norm, orthogonalize, name)
        return re + 1j * im
    rank = len(_shape(x))
    last = axis == rank - 1
    y = x if last else fnp.moveaxis(x, axis, -1)
    if n is not None:
        y = _fit(y, n)
    y = _dct_last(y, type, norm, orthogonalize, name)
    return y if last else fnp.moveaxis(y, -1, axis)


def _one(name: str, x, type, n, axis, norm, orthogonalize, inverse: bool):
    _check_type_norm(name, type, norm, orthogonalize)
    x = _operand(x, name)
    shape = tuple(_shape(x))
    if not shape:
        raise ShapeError(f"frame.scipy.fft.{name} needs an operand of rank >= 1, got a rank-0 {_dtype(x)}")
    axis = _check_axis(axis, shape, name)
    if n is not None:
        n = _check_length(n, name)
    if inverse:
        type, norm = _INVERSE_TYPE[type], _SWAPPED_NORM[norm]
    return _dct_along(x, type, n, axis, norm, orthogonalize, name)


def _many(name: str, x, type, s, axes, norm, orthogonalize, inverse: bool):
    _check_type_norm(name, type, norm, orthogonalize)
    x = _operand(x, name)
    shape = tuple(_shape(x))
    s, axes = _nd_args(name, shape, s, axes)
    if inverse:
        type, norm = _INVERSE_TYPE[type], _SWAPPED_NORM[norm]
    for n, axis in zip(s, axes):   # separable: one 1-D transform per axis, in any order
        x = _dct_along(x, type, n, axis, norm, orthogonalize, name)
    return x


# -- public ------------------------------------------------------------------------------------------
def dct(x, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None, *, orthogonalize=None):
    """scipy.fft.dct: the discrete cosine transform of `type` (1-4) of `x` along `axis`, `n` points (cropping
    or zero-padding `x`), `norm` None/"backward" (no factor), "ortho" or "forward"; `orthogonalize` (default:
    norm == "ortho") rescales the first/last terms of types 1-3 to make the transform orthogonal."""
    return _one("dct", x, type, n, axis, norm, orthogonalize, False)


def idct(x, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None, *, orthogonalize=None):
    """scipy.fft.idct: the inverse of `dct` with the same `type` and `norm` (for `n` points along `axis`)."""
    return _one("idct", x, type, n, axis, norm, orthogonalize, True)


def dctn(x, type: int = 2, s=None, axes=None, norm: str | None = None, *, orthogonalize=None):
    """scipy.fft.dctn: `dct` along each of `axes` (default: the last len(s), or all), `s` the lengths
    (cropping or zero-padding; -1 keeps an axis' length)."""
    return _many("dctn", x, type, s, axes, norm, orthogonalize, False)


def idctn(x, type: int = 2, s=None, axes=None, norm: str | None = None, *, orthogonalize=None):
    """scipy.fft.idctn: the inverse of `dctn`, `idct` along each of `axes`."""
    return _many("idctn", x, type, s, axes, norm, orthogonalize, True)
