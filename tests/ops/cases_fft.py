"""Op cases for `rfft`/`irfft` (frame/ops/fft.py), with numpy references on the packed (re, im) layout.

Even and odd lengths are both covered because the adjoints differ at the Nyquist bin; n = 1 and
n = 2 are the edge cases where every bin is DC or Nyquist. `irfft` inputs are arbitrary packed
arrays, including non-zero imaginary DC/Nyquist parts that the op must ignore (zero gradient there).
"""
from __future__ import annotations

import numpy as np

from tests.ops.cases import OpCase, _ins, _u


def _pack(spectrum: np.ndarray, dtype) -> np.ndarray:
    return np.stack([spectrum.real, spectrum.imag], axis=-1).astype(dtype)


def _rfft_reference(x):
    return _pack(np.fft.rfft(x.astype(np.float64), axis=-1), x.dtype)


def _irfft_reference(spec, n):
    spectrum = spec[..., 0].astype(np.float64) + 1j * spec[..., 1].astype(np.float64)
    return np.fft.irfft(spectrum, n=n, axis=-1).astype(spec.dtype)


CASES = [
    OpCase("rfft", _ins(_u(8)), _rfft_reference, label="1d-even"),
    OpCase("rfft", _ins(_u(3, 7)), _rfft_reference, label="2d-odd"),
    OpCase("rfft", _ins(_u(2, 2, 6)), _rfft_reference, label="3d-even"),
    OpCase("rfft", _ins(_u(3, 1)), _rfft_reference, label="n1"),
    OpCase("rfft", _ins(_u(2)), _rfft_reference, label="n2"),
    OpCase("irfft", _ins(_u(5, 2)), _irfft_reference, {"n": 8}, label="1d-even"),
    OpCase("irfft", _ins(_u(3, 4, 2)), _irfft_reference, {"n": 7}, label="2d-odd"),
    OpCase("irfft", _ins(_u(2, 2, 4, 2)), _irfft_reference, {"n": 6}, label="3d-even"),
    OpCase("irfft", _ins(_u(3, 1, 2)), _irfft_reference, {"n": 1}, label="n1"),
    OpCase("irfft", _ins(_u(2, 2)), _irfft_reference, {"n": 2}, label="n2"),
]
