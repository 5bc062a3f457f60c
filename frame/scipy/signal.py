"""`frame.scipy.signal`: n-dimensional convolution and correlation as jax.scipy.signal offers them: `convolve`,
`correlate` (modes "full", "same", "valid"; method "direct", "fft" or "auto"), `fftconvolve`, and the 2-d
`convolve2d`/`correlate2d` (boundary "fill" with fillvalue 0, as JAX). Compositions of frame.numpy ops, so they
trace and differentiate in both operands to any order.

"direct" sums shifted slices of the zero-padded first operand, one per element of the second (exact in
integers, which keep their dtype as in scipy); "fft" multiplies real n-d FFTs (floats; rounding differs from
the direct sums at the level of the largest terms). "auto" takes "direct" for integers and for second operands
of at most 64 elements, else "fft" (scipy times the two; its choice also gives the same values up to rounding).

Spectral analysis as scipy.signal's legacy functions (and jax.scipy.signal): `detrend` ('linear' with breakpoints
`bp`, or 'constant'), `stft`/`istft`, `welch` and `csd`, with scipy's signatures and defaults (`nperseg` 256 for
named windows, `noverlap` nperseg // 2, `nfft` nperseg; stft pads with 'zeros' at both ends and to whole
segments). Windows are constants, never traced: a name or tuple (default 'hann', which is scipy's
'hann_periodic'; 'boxcar', 'hamming', anything `scipy.signal.get_window` knows, computed by scipy on the concrete
`nperseg`) or a user 1-d array (concrete). Segments are detrended (False/None, 'constant', 'linear' or a
callable), windowed and transformed along `axis` with fnp.fft.rfft (real data, `return_onesided`) or fnp.fft.fft
(complex data, or two-sided). Scaling 'density' (1 / (fs sum w^2)) or 'spectrum' (1 / (sum w)^2) for
welch/csd; stft takes 'spectrum' (default) or 'psd' and the square roots. welch/csd average the segments with
'mean' or 'median' (real and imaginary parts separately, divided by scipy's median bias). stft `boundary` is
'zeros', 'even', 'odd', 'constant' or None, `padded` True/False. Output dtypes are scipy's (complex128/float64
for float64 or integer data, complex64/float32 for float32). A signal shorter than a named window's `nperseg`
shortens it with a warning, as scipy. Not covered: empty signals (refused), traced windows (TraceError).

Segments are static slices: the signal, cut into blocks of `nstep = nperseg - noverlap` samples, gives each
segment as ceil(nperseg / nstep) consecutive blocks joined and cropped; istft's overlap-add is the adjoint
(each block column zero-padded to its offset and summed). Everything composes fnp ops, so values trace and
differentiate to any order in the signal (and in a traced `fs`).
"""
from __future__ import annotations

import warnings

import numpy as _np

from ..errors import ShapeError, TraceError
from ..frontend import numpy as fnp
from ..frontend.args import _dtype, _int, _ndim, _shape
from ..tracing import Tracer

__all__ = ["convolve", "correlate", "fftconvolve", "convolve2d", "correlate2d",
           "detrend", "stft", "istft", "welch", "csd"]

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


# ---------------------------------------------------------------------------------------------------------------
# spectral analysis

def _index(value, what: str, fn: str) -> int:
    if isinstance(value, Tracer):
        raise TraceError(f"scipy.signal.{fn}: {what} must be a concrete integer, got a traced value")
    return _int(value, f"scipy.signal.{fn}", what)


def _axis_of(axis, shape, fn: str, what: str = "axis") -> int:
    a = _index(axis, what, fn)
    if not -len(shape) <= a < len(shape):
        raise ShapeError(f"scipy.signal.{fn}: {what} {a} is out of range for an operand of shape {shape}")
    return a % len(shape)


def _real_of(dtype) -> str:
    return _np.finfo(_np.dtype(dtype)).dtype.name


def _mean(x, axis: int, keepdims: bool = False):
    """The mean along `axis`, complex too (fnp.mean takes real operands only): the sum over the count."""
    return fnp.sum(x, axis=axis, keepdims=keepdims) / _np.asarray(_shape(x)[axis], _real_of(_dtype(x)))


def _fit_last(x, n: int):
    """`x` cropped or zero-padded at the end of its last axis to length `n`."""
    d = _shape(x)[-1]
    if n < d:
        return x[..., :n]
    if n > d:
        return fnp.pad(x, [(0, 0)] * (_ndim(x) - 1) + [(0, n - d)])
    return x


def _get_window(window, nperseg, length, fn: str):
    """(window as a float64/complex numpy array, nperseg) by scipy's rules: a name or tuple is computed for
    `nperseg` (default 256, shortened with a warning to a shorter signal of `length`); an array sets `nperseg`.
    `length` None (istft) skips the signal checks."""
    if nperseg is not None:
        nperseg = _index(nperseg, "nperseg", fn)
        if nperseg < 1:
            raise ShapeError(f"scipy.signal.{fn}: nperseg must be a positive integer, got {nperseg}")
    if isinstance(window, (str, tuple)):
        if nperseg is None:
            nperseg = 256
        if length is not None and nperseg > length:
            warnings.warn(f"scipy.signal.{fn}: nperseg = {nperseg} is greater than the signal length {length}, "
                          f"using nperseg = {length}", stacklevel=3)
            nperseg = length
        from scipy.signal import get_window   # windows are constants; scipy computes them
        try:
            return _np.asarray(get_window(window, nperseg)), nperseg
        except (ValueError, TypeError) as e:
            raise ShapeError(f"scipy.signal.{fn}: window {window!r}: {e}") from None
    if isinstance(window, Tracer):
        raise TraceError(f"scipy.signal.{fn}: the window must be concrete (a name, a tuple or a numpy array), "
                         "got a traced array")
    win = _np.asarray(window)
    if win.ndim != 1:
        raise ShapeError(f"scipy.signal.{fn}: window must be 1-d, got shape {win.shape}")
    if length is not None and win.shape[0] > length:
        raise ShapeError(f"scipy.signal.{fn}: window of length {win.shape[0]} is longer than the signal "
                         f"({length} samples)")
    if nperseg is None:
        nperseg = win.shape[0]
    elif nperseg != win.shape[0]:
        raise ShapeError(f"scipy.signal.{fn}: nperseg = {nperseg} differs from the window length {win.shape[0]}")
    return win, nperseg


def _nfft_noverlap(nfft, noverlap, nperseg: int, fn: str):
    nfft = nperseg if nfft is None else _index(nfft, "nfft", fn)
    if nfft < nperseg:
        raise ShapeError(f"scipy.signal.{fn}: nfft = {nfft} must be at least nperseg = {nperseg}")
    noverlap = nperseg // 2 if noverlap is None else _index(noverlap, "noverlap", fn)
    if not 0 <= noverlap < nperseg:
        raise ShapeError(f"scipy.signal.{fn}: noverlap = {noverlap} must be in [0, nperseg = {nperseg})")
    return nfft, noverlap


def _frames(x, nperseg: int, nstep: int):
    """(..., nseg, nperseg) segments of `x` (..., L) starting every `nstep` samples: the signal cut into blocks
    of nstep samples, k = ceil(nperseg / nstep) consecutive blocks per segment, joined and cropped."""
    nseg = (_shape(x)[-1] - nperseg) // nstep + 1
    k = -(-nperseg // nstep)
    x = _fit_last(x, (nseg + k - 1) * nstep)   # samples past the last segment are cropped away again
    blocks = fnp.reshape(x, _shape(x)[:-1] + (nseg + k - 1, nstep))
    if k == 1:
        return blocks[..., :nseg, :nperseg]
    return fnp.concatenate([blocks[..., b:b + nseg, :] for b in range(k)], axis=-1)[..., :nperseg]


def _overlap_add(frames, nstep: int):
    """The adjoint of `_frames`: (..., nseg, nperseg) segments summed at offsets of `nstep` into a signal of
    nperseg + (nseg - 1) nstep samples. Block column b of every segment lands b blocks later."""
    nseg, nperseg = _shape(frames)[-2:]
    k = -(-nperseg // nstep)
    outer = _shape(frames)[:-2]
    blocks = fnp.reshape(_fit_last(frames, k * nstep), outer + (nseg, k, nstep))
    widths = [(0, 0)] * len(outer)
    total = None
    for b in range(k):
        term = fnp.pad(blocks[..., b, :], widths + [(b, k - 1 - b), (0, 0)])
        total = term if total is None else total + term
    out = fnp.reshape(total, outer + ((nseg + k - 1) * nstep,))
    return out[..., :nperseg + (nseg - 1) * nstep]


def _overlap_add_numpy(frames: _np.ndarray, nstep: int) -> _np.ndarray:
    nseg, nperseg = frames.shape
    out = _np.zeros(nperseg + (nseg - 1) * nstep, frames.dtype)
    for i in range(nseg):
        out[i * nstep:i * nstep + nperseg] += frames[i]
    return out


def _extend(x, n: int, boundary, fn: str):
    """`x` extended by `n` samples at both ends of its last axis, as scipy's even/odd/const/zero_ext."""
    if boundary is None or n == 0:
        return x
    length = _shape(x)[-1]
    if boundary == "zeros":
        return fnp.pad(x, [(0, 0)] * (_ndim(x) - 1) + [(n, n)])
    if boundary == "constant":
        first, last = x[..., :1], x[..., -1:]
        return fnp.concatenate([first] * n + [x] + [last] * n, axis=-1)
    if n > length - 1:
        raise ShapeError(f"scipy.signal.{fn}: boundary {boundary!r} extends by {n} samples, which needs a signal "
                         f"of more than {n} samples, got {length}")
    left = fnp.flip(x[..., 1:n + 1], axis=-1)             # mirror images without the edge sample
    right = fnp.flip(x[..., length - n - 1:length - 1], axis=-1)
    if boundary == "odd":                                 # point reflection through the edge sample
        left, right = 2 * x[..., :1] - left, 2 * x[..., -1:] - right
    return fnp.concatenate([left, x, right], axis=-1)


_DETRENDS = ("constant", "c", "linear", "l")


def _segment_ffts(x, win, detrend_, nperseg: int, nstep: int, nfft: int, onesided: bool, axis: int):
    """The windowed FFTs (..., nseg, nfreq) of the segments of `x` (..., L)."""
    frames = _frames(x, nperseg, nstep)
    if callable(detrend_):
        # scipy hands the callable segments with the data axis where the caller had it
        frames = fnp.moveaxis(detrend_(fnp.moveaxis(frames, -1, axis)), axis, -1) if axis != -1 else \
            detrend_(frames)
    elif detrend_:
        frames = detrend(frames, axis=-1, type=detrend_)
    frames = frames * win
    if onesided:
        if _dtype(frames).startswith("complex"):   # a complex window on real data: scipy keeps the real part
            frames = fnp.real(frames)
        return fnp.fft.rfft(frames, n=nfft, axis=-1)
    return fnp.fft.fft(frames, n=nfft, axis=-1)


def _spectral(x, y, fs, window, nperseg, noverlap, nfft, detrend_, return_onesided, scaling, axis, mode,
              boundary, padded, fn):
    """scipy's legacy `_spectral_helper`: frequencies, segment times and the per-segment spectra, frequency axis
    at `axis` and segments last. `y` None: the auto-spectrum (mode 'psd') or the stft (mode 'stft')."""
    if boundary not in ("even", "odd", "constant", "zeros", None):
        raise ShapeError(f"scipy.signal.{fn}: boundary must be 'even', 'odd', 'constant', 'zeros' or None, "
                         f"got {boundary!r}")
    if not (detrend_ is None or detrend_ is False or callable(detrend_) or detrend_ in _DETRENDS):
        raise ShapeError(f"scipy.signal.{fn}: detrend must be False, 'constant', 'linear' or a callable, "
                         f"got {detrend_!r}")
    if scaling not in ("density", "spectrum"):
        raise ShapeError(f"scipy.signal.{fn}: scaling must be 'density' or 'spectrum', got {scaling!r}")
    operands = [fnp.asarray(x)] + ([] if y is None else [fnp.asarray(y)])
    for v in operands:
        if _ndim(v) == 0 or 0 in _shape(v):
            raise ShapeError(f"scipy.signal.{fn}: needs a non-empty signal of rank >= 1, got shape {_shape(v)}")
    axes = [_axis_of(axis, _shape(v), fn) for v in operands]
    if y is not None:
        outer = [tuple(d for i, d in enumerate(_shape(v)) if i != a) for v, a in zip(operands, axes)]
        try:
            _np.broadcast_shapes(*outer)
        except ValueError:
            raise ShapeError(f"scipy.signal.{fn}: x and y of shapes {_shape(operands[0])} and {_shape(operands[1])} "
                             f"do not broadcast outside axis {axis}") from None
    # scipy's output dtype; the computation runs in its real or complex counterpart
    out_dtype = _np.result_type(*[_dtype(v) for v in operands], _np.complex64).name
    real = _real_of(out_dtype)
    complex_data = any(_dtype(v).startswith("complex") for v in operands)
    operands = [fnp.astype(fnp.moveaxis(v, a, -1), out_dtype if _dtype(v).startswith("complex") else real)
                for v, a in zip(operands, axes)]
    length = max(_shape(v)[-1] for v in operands)
    operands = [_fit_last(v, length) for v in operands]   # csd zero-pads the shorter signal

    win, nperseg = _get_window(window, nperseg, length, fn)
    nfft, noverlap = _nfft_noverlap(nfft, noverlap, nperseg, fn)
    nstep = nperseg - noverlap
    operands = [_extend(v, nperseg // 2, boundary, fn) for v in operands]
    if padded:   # zeros to a whole number of segments (after the extension, so the signal ends in zeros)
        operands = [_fit_last(v, _shape(v)[-1] + (-(_shape(v)[-1] - nperseg) % nstep) % nperseg)
                    for v in operands]
    extended = _shape(operands[0])[-1]

    win = win.astype(out_dtype if win.dtype.kind == "c" else real)   # data's precision, as scipy
    scale = 1.0 / (fs * (win * win).sum()) if scaling == "density" else 1.0 / win.sum() ** 2
    if mode == "stft":
        scale = fnp.sqrt(scale) if isinstance(scale, Tracer) else _np.sqrt(scale)
    onesided = bool(return_onesided) and not complex_data   # complex data has no one-sided spectrum
    spectra = [_segment_ffts(v, win, detrend_, nperseg, nstep, nfft, onesided, axis) for v in operands]
    if mode == "stft":
        result = spectra[0]
    elif y is None:   # |X|^2, real
        result = fnp.real(spectra[0]) ** 2 + fnp.imag(spectra[0]) ** 2
    else:
        result = fnp.conj(spectra[0]) * spectra[1]
    result = result * (scale if isinstance(scale, Tracer) else _np.asarray(scale).astype(_dtype(result)))
    if onesided and mode == "psd":   # the negative frequencies folded in; DC and an even nfft's Nyquist unpaired
        double = _np.full(nfft // 2 + 1, 2.0)
        double[0] = 1.0
        if nfft % 2 == 0:
            double[-1] = 1.0
        result = result * double.astype(real)

    if isinstance(fs, Tracer):
        freqs = (fnp.asarray(_np.fft.rfftfreq(nfft) if onesided else _np.fft.fftfreq(nfft)) * fs)
        times = fnp.asarray(_np.arange(nperseg / 2, extended - nperseg / 2 + 1, nstep)) / fs
        if boundary is not None:
            times = times - (nperseg / 2) / fs
    else:
        freqs = _np.fft.rfftfreq(nfft, 1 / fs) if onesided else _np.fft.fftfreq(nfft, 1 / fs)
        times = _np.arange(nperseg / 2, extended - nperseg / 2 + 1, nstep) / float(fs)
        if boundary is not None:
            times -= (nperseg / 2) / fs
    if mode == "stft":
        result = fnp.astype(result, out_dtype)
    # (..., nseg, nfreq) -> frequencies where the data axis was, segments last
    a = axis - 1 if axis < 0 else axis
    return freqs, times, fnp.moveaxis(result, -1, a)


def _median_bias(n: int) -> float:
    """E[median] / E[mean] of n chi-squared(2) periodogram values: 1 + sum_{i=1}^{(n-1)//2} 1/(2i+1) - 1/(2i)."""
    i = 2.0 * _np.arange(1, (n - 1) // 2 + 1)
    return float(1 + _np.sum(1 / (i + 1) - 1 / i))


def _average(pxy, average: str, fn: str):
    """The mean or bias-corrected median over the segments (the last axis)."""
    nseg = _shape(pxy)[-1]
    if average == "mean":
        return _mean(pxy, -1)
    if average != "median":
        raise ShapeError(f"scipy.signal.{fn}: average must be 'mean' or 'median', got {average!r}")
    if nseg == 1:
        return pxy[..., 0]
    bias = 1.0 / _median_bias(nseg)
    if _dtype(pxy).startswith("complex"):   # real and imaginary parts separately, as scipy
        return (fnp.median(fnp.real(pxy), axis=-1) + 1j * fnp.median(fnp.imag(pxy), axis=-1)) * bias
    return fnp.median(pxy, axis=-1) * bias


def detrend(data, axis: int = -1, type: str = "linear", bp=0, overwrite_data: bool = False):
    """scipy's `detrend`: `data` minus its mean ('constant') or minus its least-squares line ('linear'),
    piecewise between the breakpoints `bp` (concrete ints in [0, n]) along `axis`. Integers become float64."""
    if type not in _DETRENDS:
        raise ShapeError(f"scipy.signal.detrend: type must be 'linear' or 'constant', got {type!r}")
    x = fnp.asarray(data)
    if _ndim(x) == 0:
        raise ShapeError("scipy.signal.detrend: needs an operand of rank >= 1, got a scalar")
    a = _axis_of(axis, _shape(x), "detrend")
    if type in ("constant", "c"):
        if _np.dtype(_dtype(x)).kind in "biu":
            x = fnp.astype(x, "float64")
        return x - _mean(x, a, keepdims=True)
    if _dtype(x) not in ("float32", "float64", "complex64", "complex128"):
        x = fnp.astype(x, "float64")
    n = _shape(x)[a]
    if isinstance(bp, Tracer):
        raise TraceError("scipy.signal.detrend: the breakpoints bp must be concrete integers, got a traced array")
    bps = _np.asarray(bp)
    if bps.dtype.kind not in "iu" and bps.size:
        raise ShapeError(f"scipy.signal.detrend: breakpoints must be integers, got {bp!r}")
    bps = _np.unique(_np.concatenate([[0], bps.ravel().astype(int), [n]]))
    if bps[0] < 0 or bps[-1] > n:
        raise ShapeError(f"scipy.signal.detrend: breakpoints must be in [0, {n}] (the length of axis {axis}), "
                         f"got {bp!r}")
    xm = fnp.moveaxis(x, a, -1)
    real = _real_of(_dtype(x))
    pieces = []
    for lo, hi in zip(bps[:-1], bps[1:]):
        seg = xm[..., int(lo):int(hi)]
        m = int(hi - lo)
        resid = seg - _mean(seg, -1, keepdims=True)
        if m > 1:   # the least-squares slope against centred sample times (a single sample is its own line)
            t = (_np.arange(m) - (m - 1) / 2).astype(real)
            resid = resid - fnp.sum(resid * t, axis=-1, keepdims=True) * (t / (t @ t))
        pieces.append(resid)
    out = pieces[0] if len(pieces) == 1 else fnp.concatenate(pieces, axis=-1)
    return fnp.moveaxis(out, -1, a)


def stft(x, fs=1.0, window="hann", nperseg: int = 256, noverlap=None, nfft=None, detrend=False,
         return_onesided: bool = True, boundary="zeros", padded: bool = True, axis: int = -1,
         scaling: str = "spectrum"):
    """scipy's `stft`: (frequencies, segment times, Zxx) with Zxx's frequency axis at `axis` and the segments
    last. `scaling` 'spectrum' divides by sum(window), 'psd' by sqrt(fs sum(window^2))."""
    if scaling not in ("spectrum", "psd"):
        raise ShapeError(f"scipy.signal.stft: scaling must be 'spectrum' or 'psd', got {scaling!r}")
    return _spectral(x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
                     "density" if scaling == "psd" else "spectrum", axis, "stft", boundary, padded, "stft")


def csd(x, y, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None, detrend="constant",
        return_onesided: bool = True, scaling: str = "density", axis: int = -1, average: str = "mean"):
    """scipy's `csd`: (frequencies, Pxy), Welch's average of conj(X) Y over the segments. `y` None (as
    jax.scipy) is `x`, a real auto-spectrum as `welch`. The shorter signal is zero-padded to the longer."""
    if average not in ("mean", "median"):
        raise ShapeError(f"scipy.signal.csd: average must be 'mean' or 'median', got {average!r}")
    freqs, _, pxy = _spectral(x, None if y is None or y is x else y, fs, window, nperseg, noverlap, nfft, detrend,
                              return_onesided, scaling, axis, "psd", None, False, "csd")
    pxy = _average(pxy, average, "csd")   # segments are last; the frequencies land at `axis`
    if y is None or y is x:
        return freqs, pxy
    out_dtype = _np.result_type(_dtype(fnp.asarray(x)), _dtype(fnp.asarray(y)), _np.complex64).name
    return freqs, fnp.astype(pxy, out_dtype)


def welch(x, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None, detrend="constant",
          return_onesided: bool = True, scaling: str = "density", axis: int = -1, average: str = "mean"):
    """scipy's `welch`: (frequencies, Pxx), the power spectral density as the average periodogram of
    detrended, windowed, overlapping segments (`csd` of `x` with itself, real)."""
    if average not in ("mean", "median"):
        raise ShapeError(f"scipy.signal.welch: average must be 'mean' or 'median', got {average!r}")
    freqs, _, pxx = _spectral(x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided, scaling,
                              axis, "psd", None, False, "welch")
    return freqs, _average(pxx, average, "welch")   # segments are last; the frequencies land at `axis`


def istft(Zxx, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None, input_onesided: bool = True,
          boundary: bool = True, time_axis: int = -1, freq_axis: int = -2, scaling: str = "spectrum"):
    """scipy's `istft`: (times, x), the inverse FFT of each segment, windowed, overlap-added and divided by the
    overlap-added squared window (where above 1e-10; a warning where the NOLA condition fails). `boundary`
    True drops nperseg // 2 samples at both ends (stft's default extension). The times are scipy's,
    arange(x.shape[0]) / fs."""
    fn = "istft"
    z = fnp.asarray(Zxx)
    shape = _shape(z)
    if len(shape) < 2:
        raise ShapeError(f"scipy.signal.istft: Zxx must be at least 2-d, got shape {shape}")
    ta, fa = _axis_of(time_axis, shape, fn, "time_axis"), _axis_of(freq_axis, shape, fn, "freq_axis")
    if ta == fa:
        raise ShapeError(f"scipy.signal.istft: time_axis and freq_axis must differ, got {time_axis} and {freq_axis}")
    if scaling not in ("spectrum", "psd"):
        raise ShapeError(f"scipy.signal.istft: scaling must be 'spectrum' or 'psd', got {scaling!r}")
    kind = _np.dtype(_dtype(z)).kind
    z = fnp.astype(z, _np.result_type(_dtype(z), _np.complex64).name if kind in "fc" else "complex128")
    nseg, nfreq = shape[ta], shape[fa]
    n_default = 2 * (nfreq - 1) if input_onesided else nfreq
    if nperseg is None:
        nperseg = n_default
    win, nperseg = _get_window(window, nperseg, None, fn)
    if nfft is None:   # one-sided: an even nfft by default, or the odd nperseg it can come from
        nfft = nperseg if input_onesided and nperseg == n_default + 1 else n_default
    nfft, noverlap = _nfft_noverlap(nfft, noverlap, nperseg, fn)
    nstep = nperseg - noverlap

    outer = tuple(i for i in range(len(shape)) if i not in (ta, fa))
    z = fnp.transpose(z, outer + (fa, ta))
    xsubs = (fnp.fft.irfft if input_onesided else fnp.fft.ifft)(z, n=nfft, axis=-2)[..., :nperseg, :]
    real = _real_of(_dtype(xsubs))
    win = win.astype(_dtype(xsubs) if win.dtype.kind == "c" else real)
    if scaling == "spectrum":
        gain = win.sum()
    else:
        gain = fnp.sqrt(fs * (win * win).sum()) if isinstance(fs, Tracer) else _np.sqrt(fs * (win * win).sum())
    frames = fnp.swapaxes(xsubs, -1, -2) * gain * win
    x = _overlap_add(frames, nstep)
    norm = _overlap_add_numpy(_np.tile(win * win, (nseg, 1)), nstep)
    if boundary:   # as scipy, [h:-h] (so nperseg 1 leaves nothing)
        h = nperseg // 2
        x, norm = x[..., h:-h], norm[h:-h]
    if not _np.all(norm > 1e-10):
        warnings.warn("scipy.signal.istft: NOLA condition failed, STFT may not be invertible"
                      + ("" if boundary else " (possibly due to missing boundary)"), stacklevel=2)
    x = x / _np.where(norm > 1e-10, norm, 1.0).astype(_dtype(x) if not _dtype(x).startswith("complex") else real)
    if _ndim(x) > 1 and ta != len(shape) - 1:
        x = fnp.moveaxis(x, -1, ta - 1 if fa < ta else ta)
    n0 = _shape(x)[0]
    times = fnp.asarray(_np.arange(n0)) / fs if isinstance(fs, Tracer) else _np.arange(n0) / float(fs)
    return times, x
