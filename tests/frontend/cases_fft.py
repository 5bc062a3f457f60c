"""numpy-agreement cases for frame.numpy.fft (frame/frontend/numpy_fft.py): fft, ifft, rfft, irfft with
`n` (crop and zero-pad), `axis` (last, first, negative), every `norm`, float16/float32/float64/complex/int/bool
operands (float16 computes in single precision, ints and bools in double, as numpy), size-1 and batch axes; fftfreq/rfftfreq.

Derivatives are checked here where the function is real to real (irfft of a real spectrum); the
complex ones are checked against jax.grad in tests/frontend/test_complex.py.
"""
import numpy as np

from tests.frontend.numpy_cases import NumpyCase, uniform

KWARGS = [({}, "default"), ({"n": 5}, "crop"), ({"n": 11}, "pad"), ({"axis": 0}, "axis0"), ({"axis": -2}, "axis-2"),
          ({"norm": "ortho"}, "ortho"), ({"norm": "forward", "n": 9, "axis": 0}, "forward")]
ND_KWARGS = [({}, "default"), ({"axes": (0, 2)}, "axes02"), ({"s": (4, 7), "axes": (1, 2)}, "s"),
             ({"norm": "ortho"}, "ortho")]
OPERANDS = [((3, 8), "float64"), ((4, 7), "float32"), ((3, 6), "complex128"), ((2, 5), "complex64"), ((3, 4), "int64"), ((2, 6), "float16"), ((2, 3), "bool")]


def _irfft_packed(spectrum, n=None):
    """numpy's irfft of the packed (..., m, 2) layout (pino's fast path)."""
    n = 2 * (spectrum.shape[-2] - 1) if n is None else n
    return np.fft.irfft(spectrum[..., 0] + 1j * spectrum[..., 1], n=n, axis=-1).astype(spectrum.dtype)


def _tol(dtype) -> dict:
    # float16: numpy rounds its normalisation factor (1/n, 1/sqrt(n)) to float16 before applying it in single
    # precision, frame applies it unrounded: the results agree to float16's precision (eps 1e-3), not beyond.
    return {"rtol": 1e-3, "atol": 1e-3} if dtype == "float16" else {"rtol": 1e-10, "atol": 1e-12}


def _irfft_kwargs(kw):
    return {k: v for k, v in kw.items()} if kw.get("n") != 11 else {"n": 12}


CASES = [
    *[NumpyCase(f"fft.{name}", lambda rng, s=s, dt=dt: (uniform(rng, s, dt),), kw, label=f"{lb}-{dt}", **_tol(dt))
      for name in ("fft", "ifft") for kw, lb in KWARGS for s, dt in OPERANDS],
    *[NumpyCase("fft.rfft", lambda rng, s=s, dt=dt: (uniform(rng, s, dt),), kw, label=f"{lb}-{dt}", **_tol(dt))
      for kw, lb in KWARGS for s, dt in OPERANDS if not dt.startswith("complex")],
    *[NumpyCase("fft.irfft", lambda rng, s=s, dt=dt: (uniform(rng, s, dt),), _irfft_kwargs(kw), label=f"{lb}-{dt}",
                **_tol(dt), wrt=(0,) if dt == "float64" else ())
      for kw, lb in KWARGS for s, dt in OPERANDS],
    *[NumpyCase(f"fft.{name}", lambda rng: (uniform(rng, (1, 3, 1)),), {"axis": 0}, label="size1", rtol=1e-10, atol=1e-12)
      for name in ("fft", "ifft", "rfft")],
    NumpyCase("fft.irfft", lambda rng: (uniform(rng, (2, 1)),), {"n": 1}, label="n1", wrt=(0,)),
    NumpyCase("fft.irfft", lambda rng: (uniform(rng, (2, 0, 3), "complex128"),), {"axis": -1}, label="empty-batch"),
    NumpyCase("fft.fft", lambda rng: (uniform(rng, (0, 4), "complex128"),), label="empty-batch"),
    *[NumpyCase("fft.irfft_packed", lambda rng, s=s, n=n, dt=dt: (uniform(rng, s, dt), *n), label=f"{s}-{n}-{dt}",
                reference=_irfft_packed, rtol=1e-10, atol=1e-12, wrt=(0,) if dt == "float64" else ())
      for s, n in [((5, 2), ()), ((3, 4, 2), (7,)), ((1, 2), (1,))] for dt in ("float64", "float32")],
    *[NumpyCase(f"fft.{name}", lambda rng, n=n: (n,), kw, label=f"{n}-{kw}") for name in ("fftfreq", "rfftfreq")
      for n, kw in [(1, {}), (8, {}), (7, {"d": 0.1}), (6, {"d": 2})]],
    # the n-d transforms (tests/frontend/test_numpy_fftn.py checks their rules and gradients in depth)
    *[NumpyCase(f"fft.{name}", lambda rng, dt=dt: (uniform(rng, (2, 5, 6), dt),), kw, label=f"{lb}-{dt}", **_tol(dt))
      for name in ("fft2", "ifft2", "fftn", "ifftn") for kw, lb in ND_KWARGS for dt in ("float64", "complex128")],
    *[NumpyCase(f"fft.{name}", lambda rng: (uniform(rng, (2, 5, 6)),), kw, label=lb, rtol=1e-10, atol=1e-12)
      for name in ("rfft2", "rfftn") for kw, lb in ND_KWARGS],
    *[NumpyCase(f"fft.{name}", lambda rng: (uniform(rng, (2, 5, 4), "complex128"),), kw, label=lb, rtol=1e-10,
                atol=1e-12) for name in ("irfft2", "irfftn") for kw, lb in ND_KWARGS],
]
CASES += [
    *[NumpyCase(f"fft.{name}", lambda rng, s=s: (uniform(rng, s),), kw, label=lb, wrt=(0,))
      for name in ("fftshift", "ifftshift") for s, kw, lb in [((4, 5), {}, "all"), ((4, 5), {"axes": 1}, "axis"),
                                                               ((7,), {}, "odd"), ((3, 2, 5), {"axes": (0, -1)}, "axes")]],
    *[NumpyCase("fft.hfft", lambda rng, dt=dt: (uniform(rng, (3, 5), dt),), kw, label=f"{lb}-{dt}", rtol=1e-10,
                atol=1e-12, wrt=(0,) if dt == "float64" else ())
      for kw, lb in [({}, "default"), ({"n": 7, "axis": 0, "norm": "ortho"}, "n-axis-ortho"), ({"norm": "forward"}, "forward")]
      for dt in ("complex128", "float64")],
    *[NumpyCase("fft.ihfft", lambda rng, dt=dt: (uniform(rng, (3, 6), dt),), kw, label=f"{lb}-{dt}", rtol=1e-10,
                atol=1e-12, wrt=(0,) if dt == "float64" else ())
      for kw, lb in [({}, "default"), ({"n": 5, "axis": 0, "norm": "backward"}, "n-axis"), ({"norm": "ortho"}, "ortho")]
      for dt in ("float64", "float32")],
]

