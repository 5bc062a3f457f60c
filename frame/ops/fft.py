"""FFT ops along the last axis: `fft` (numpy's complex spectra, one op for the four transforms, as lax.fft),
and `rfft`/`irfft` over complex spectra packed as a trailing (re, im) axis of size 2 (pino's fast path).

Packed ops `rfft`/`irfft` (frame.numpy's `fft.rfft_packed`/`fft.irfft_packed`):

Both ops are real-linear maps, so each gradient is the adjoint map, and the adjoint of one is the
other up to constant per-bin weights (SPEC §9, ARCH-067):

- A real signal of length n has m = n//2 + 1 spectrum bins. Bin 0 (DC) and, for even n, bin n/2
  (Nyquist) stand for one Fourier mode each; every interior bin k stands for the pair (k, n-k), which
  is why `irfft` counts it twice and why the adjoints weight interior bins by 1/2 or 2.
- `irfft` reads only the real part of the DC and Nyquist bins; the adjoint of `rfft` returns
  exactly zero there too (rfft of a real signal has no imaginary DC/Nyquist part), so both adjoints
  are exact for arbitrary packed inputs.

  rfft:  gx = n * irfft(gy * w, n)   with w_k = 1 at DC/Nyquist, 1/2 in the interior
  irfft: gX = rfft(gx) * c / n       with c_k = 1 at DC/Nyquist, 2 in the interior

Each gradient is built from the other op, `mul` by a constant, and nothing else, so the gradient
micro-graphs are differentiable again without `*_internal` helpers (gradient closure, ARCH-068).
Normalisation is numpy's "backward": no factor on `rfft`, 1/n on `irfft`.
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..ir.types import TensorType
from ..tracing import bind, prim, traced_gradient
from ..ir.registry import LINEAR, NodeContext, arity, register_op, require_float
from .batching_rules import LEADING
from .complex import COMPLEX_OF, REAL_OF

_COMPLEX = {"float32": np.complex64, "float64": np.complex128}


def num_bins(n: int) -> int:
    """Number of bins of the real spectrum of a length-n signal: n//2 + 1."""
    return n // 2 + 1


def bin_multiplicity(n: int, dtype) -> np.ndarray:
    """How many Fourier modes each bin of a length-n real spectrum stands for, shaped (m, 1) for the packed axis.

    1 for DC and (even n) Nyquist, 2 for every interior bin (the bin and its conjugate partner).
    """
    c = np.full(num_bins(n), 2.0)
    c[0] = 1.0
    if n % 2 == 0:
        c[-1] = 1.0
    return c.astype(dtype).reshape(-1, 1)


# -- rfft ---------------------------------------------------------------------------------------
def _rfft_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 1)
    (x,) = ctx.input_types
    require_float(ctx.op, x)
    if x.rank < 1 or x.shape[-1] < 1:
        raise ShapeError(f"op 'rfft' needs an input of rank >= 1 with a non-empty last axis, got shape {x.shape}")
    return [TensorType(x.shape[:-1] + (num_bins(x.shape[-1]), 2), x.dtype, x.device)]


def _rfft_kernel(x):
    spectrum = np.fft.rfft(x, axis=-1).astype(_COMPLEX[x.dtype.name], copy=False)
    # A complex array viewed as reals is the packed (re, im) layout already: no copy.
    return np.ascontiguousarray(spectrum).view(x.dtype).reshape(x.shape[:-1] + (spectrum.shape[-1], 2))


def _rfft_grad(ctx, xs, ys, gys):
    n = xs[0].shape[-1]
    half_interior = (1.0 / bin_multiplicity(n, xs[0].dtype)).astype(xs[0].dtype)
    return [bind("irfft", gys[0] * half_interior, n=n) * float(n)]


def _rfft_jax(J, x):
    spectrum = J.jnp.fft.rfft(x, axis=-1)
    return J.jnp.stack([J.jnp.real(spectrum), J.jnp.imag(spectrum)], axis=-1).astype(x.dtype)


register_op("rfft", shape=_rfft_shape, kernel=_rfft_kernel, num_inputs=1, traits=(LINEAR,),
            gradient=traced_gradient(_rfft_grad), batch=LEADING,
            doc="real FFT along the last axis, output (..., n//2+1, 2) = (re, im); numpy 'backward' norm",
            jax=_rfft_jax, frontend=["fft.rfft_packed"])


# -- irfft --------------------------------------------------------------------------------------
def _irfft_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 1)
    (spec,) = ctx.input_types
    require_float(ctx.op, spec)
    n = ctx.attrs["n"]
    if n < 1:
        raise ShapeError(f"op 'irfft': output length n must be >= 1, got n={n}")
    if spec.rank < 2 or spec.shape[-1] != 2 or spec.shape[-2] != num_bins(n):
        raise ShapeError(f"op 'irfft': for n={n} the packed spectrum must have shape (..., {num_bins(n)}, 2), "
                         f"got {spec.shape}")
    return [TensorType(spec.shape[:-2] + (n,), spec.dtype, spec.device)]


def _irfft_kernel(spec, n):
    packed = np.ascontiguousarray(spec)
    spectrum = packed.view(_COMPLEX[spec.dtype.name]).reshape(spec.shape[:-1])
    return np.fft.irfft(spectrum, n=n, axis=-1).astype(spec.dtype, copy=False)


def _irfft_grad(ctx, xs, ys, gys):
    n = ctx.attrs["n"]
    weight = (bin_multiplicity(n, xs[0].dtype) / n).astype(xs[0].dtype)
    return [bind("rfft", gys[0]) * weight]


register_op("irfft", shape=_irfft_shape, kernel=_irfft_kernel, num_inputs=1, traits=(LINEAR,),
            attrs={"n": ((int,), True)}, gradient=traced_gradient(_irfft_grad), batch=LEADING,
            doc="inverse of rfft: packed (..., n//2+1, 2) spectrum to a length-n real signal; 1/n normalisation",
            jax=lambda J, spec, n: J.jnp.fft.irfft(J.lax.complex(spec[..., 0], spec[..., 1]), n=n,
                                                   axis=-1).astype(spec.dtype),
            frontend=["fft.irfft_packed"])


# -- fft: numpy's complex transforms ---------------------------------------------------------------
# kind -> (operand must be complex, result is complex). irfft also takes a real spectrum, as numpy
# does (its imaginary part is zero); rfft's operand is real. Normalisation is numpy's "backward"
# (1/n on the inverse transforms); frame.numpy scales for the other norms.
FFT_KINDS = {"fft": (True, True), "ifft": (True, True), "rfft": (False, True), "irfft": (None, False)}


def _fft_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 1)
    (x,) = ctx.input_types
    kind, n = ctx.attrs["kind"], ctx.attrs.get("n")
    if kind not in FFT_KINDS:
        raise ShapeError(f"op 'fft': kind must be one of {', '.join(FFT_KINDS)}, got {kind!r}")
    complex_in, complex_out = FFT_KINDS[kind]
    wants = {True: "complex64/complex128", False: "float32/float64", None: "float or complex"}[complex_in]
    complex_ok, real_ok = x.dtype in REAL_OF, x.dtype in COMPLEX_OF   # REAL_OF is keyed by complex dtypes
    if not (complex_ok if complex_in else real_ok if complex_in is False else complex_ok or real_ok):
        raise ShapeError(f"op 'fft' ({kind}) needs a {wants} operand, got {x}")
    if x.rank < 1 or x.shape[-1] < 1:
        raise ShapeError(f"op 'fft' ({kind}) needs an operand of rank >= 1 with a non-empty last axis, got {x}")
    if kind != "irfft":
        if n is not None and n != x.shape[-1]:
            raise ShapeError(f"op 'fft' ({kind}): n={n} differs from the last axis of {x}")
        m = num_bins(x.shape[-1]) if kind == "rfft" else x.shape[-1]
        return [TensorType(x.shape[:-1] + (m,), COMPLEX_OF.get(x.dtype, x.dtype), x.device)]
    if n is None or n < 1 or x.shape[-1] != num_bins(n):
        raise ShapeError(f"op 'fft' (irfft): a length-n signal needs n >= 1 and n//2+1 bins, got n={n} for {x}")
    return [TensorType(x.shape[:-1] + (n,), REAL_OF.get(x.dtype, x.dtype), x.device)]


def _fft_kernel(x, kind, n=None):
    y = getattr(np.fft, kind)(x, n=n if kind == "irfft" else None, axis=-1)
    dtype = x.dtype.name
    return y.astype(REAL_OF.get(dtype, dtype) if kind == "irfft" else COMPLEX_OF.get(dtype, dtype), copy=False)


def _constant(values, like) -> np.ndarray:
    return np.asarray(values, like.type.dtype)


def _fft_grad(ctx, xs, ys, gys):
    """Adjoints under JAX's pairing Re(g * dy) (frame/ops/complex.py), for a length-n transform:

    fft, ifft: the DFT matrices are symmetric, so each is its own adjoint.
    rfft:  gx_j = Re(sum_k g_k w^jk) = n * irfft(conj(g) * u)   (u_k = 1 at DC/Nyquist, 1/2 inside)
    irfft: gX = conj(rfft(g)) * c / n                          (c_k = 1 at DC/Nyquist, 2 inside)
    """
    kind, x, g = ctx.attrs["kind"], xs[0], gys[0]
    if kind in ("fft", "ifft"):
        return [prim.fft(g, kind=kind)]
    if kind == "rfft":
        n = x.shape[-1]
        half_inside = _constant(1.0 / bin_multiplicity(n, np.float64)[:, 0], g)
        return [prim.fft(prim.conj(g) * half_inside, kind="irfft", n=n) * float(n)]
    n = ctx.attrs["n"]
    spectrum = prim.fft(g, kind="rfft")
    spectrum = prim.conj(spectrum) if x.type.is_complex else prim.real(spectrum)
    return [spectrum * _constant(bin_multiplicity(n, np.float64)[:, 0] / n, spectrum)]


def _fft_jax(J, x, kind, n=None):
    y = getattr(J.jnp.fft, kind)(x, n=n if kind == "irfft" else None, axis=-1)
    return y.astype(REAL_OF.get(x.dtype.name, x.dtype.name) if kind == "irfft" else COMPLEX_OF.get(x.dtype.name, x.dtype.name))


register_op("fft", shape=_fft_shape, kernel=_fft_kernel, num_inputs=1, traits=(LINEAR,),
            attrs={"kind": ((str,), True), "n": ((int,), False)}, gradient=traced_gradient(_fft_grad), batch=LEADING,
            doc="numpy's 1-D fft/ifft/rfft/irfft (`kind`) along the last axis, 'backward' norm; irfft's length is n",
            jax=_fft_jax, frontend=["fft.fft", "fft.ifft", "fft.rfft", "fft.irfft"])
