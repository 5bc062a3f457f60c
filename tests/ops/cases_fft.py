"""Op cases for the FFT family (frame/ops/fft.py).

`rfft`/`irfft` are the packed (re, im) ops, with numpy references on that layout. Even and odd
lengths are both covered because the adjoints differ at the Nyquist bin; n = 1 and n = 2 are the edge
cases where every bin is DC or Nyquist. `irfft` inputs are arbitrary packed arrays, including non-zero
imaginary DC/Nyquist parts that the op must ignore (zero gradient there).

`fft` is numpy's transform of kind fft/ifft/rfft/irfft. Its real-valued results (irfft of complex and of
real spectra) are in the shared harness (derivatives for real spectra only); the complex results are `COMPLEX_CASES`, checked against
jax.vjp in tests/frontend/test_complex.py until the harness compares complex values.
"""
from __future__ import annotations

import numpy as np

from tests.ops.cases import OpCase, _ins, _u
from tests.ops.cases_complex import _c


def _pack(spectrum: np.ndarray, dtype) -> np.ndarray:
    return np.stack([spectrum.real, spectrum.imag], axis=-1).astype(dtype)


def _rfft_reference(x):
    return _pack(np.fft.rfft(x.astype(np.float64), axis=-1), x.dtype)


def _irfft_reference(spec, n):
    spectrum = spec[..., 0].astype(np.float64) + 1j * spec[..., 1].astype(np.float64)
    return np.fft.irfft(spectrum, n=n, axis=-1).astype(spec.dtype)


def _numpy_fft(x, kind, n=None):
    y = getattr(np.fft, kind)(x, n=n, axis=-1)
    real = {"complex64": "float32", "complex128": "float64"}.get(x.dtype.name, x.dtype.name)
    return y.astype(real if kind == "irfft" else {"float32": "complex64", "float64": "complex128"}.get(real))


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
    *[OpCase("fft", _ins(make(*shape)), _numpy_fft, {"kind": "irfft", "n": n}, wrt=wrt, label=f"irfft-{what}-n{n}")
      for n, shape in ((8, (5,)), (7, (3, 4)), (1, (2, 1)), (2, (2,)))
      for make, what, wrt in ((_c, "complex", ()), (_u, "real", (0,)))],
]

COMPLEX_CASES = [
    *[OpCase("fft", _ins(_c(*shape)), _numpy_fft, {"kind": kind}, label=f"{kind}-{'x'.join(map(str, shape))}")
      for kind in ("fft", "ifft") for shape in ((8,), (3, 5), (2, 1))],
    *[OpCase("fft", _ins(_u(*shape)), _numpy_fft, {"kind": "rfft"}, label=f"rfft-{'x'.join(map(str, shape))}")
      for shape in ((8,), (3, 7), (2, 1), (2,))],
]
