"""FFT ops `rfft`/`irfft` along the last axis, complex spectra packed as a trailing (re, im) axis of size 2.

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
from ..tracing import bind, traced_gradient
from ..ir.registry import LINEAR, NodeContext, arity, register_op, require_float

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
            gradient=traced_gradient(_rfft_grad),
            doc="real FFT along the last axis, output (..., n//2+1, 2) = (re, im); numpy 'backward' norm",
            jax=_rfft_jax, frontend=["fft.rfft"])


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
            attrs={"n": ((int,), True)}, gradient=traced_gradient(_irfft_grad),
            doc="inverse of rfft: packed (..., n//2+1, 2) spectrum to a length-n real signal; 1/n normalisation",
            jax=lambda J, spec, n: J.jnp.fft.irfft(J.lax.complex(spec[..., 0], spec[..., 1]), n=n,
                                                   axis=-1).astype(spec.dtype),
            frontend=["fft.irfft"])
