"""`from_jax` rules for FFTs and complex conjugation: JAX primitives that are not one frame op.

`lax.fft` (what every `jnp.fft` function binds) imports as frame's `fft` op for 1-D transforms along
the last axis: `fft_type` FFT/IFFT/RFFT/IRFFT is the op's kind, `fft_lengths` its length n (the
operand's last axis, or IRFFT's output length). Multi-axis transforms (fft2/fftn) are refused by
name. `lax.conj` imports as `conj` for complex operands (on a real operand lax makes a complex
result, frame's conj keeps the real dtype: refused).

`TRANSLATIONS`: primitive -> rule(importer, eqn, *operands) -> Value; `PARAMETERS`: the audit of
each parameter (jax_audit's vocabulary). Both are merged into jax_import's tables.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .jax_audit import checked, implemented

KINDS = ("fft", "ifft", "rfft", "irfft")   # lax.FftType's values 0..3, in order


def _kind(eqn) -> str:
    return KINDS[int(eqn.params["fft_type"])]


def _one_axis(value, eqn) -> bool:
    return len(value) == 1


def _fft(imp, eqn, x):
    kind, (n,) = _kind(eqn), eqn.params["fft_lengths"]
    return imp.node("fft", [x], kind=kind, **({"n": int(n)} if kind == "irfft" else {}))


def _conj(imp, eqn, x):
    return imp.node("conj", [x])


def _complex_operand(value, eqn) -> bool:
    return np.dtype(value).kind == "c" and np.dtype(value) == np.dtype(eqn.invars[0].aval.dtype)


TRANSLATIONS: dict[str, Callable] = {"fft": _fft, "conj": _conj}
PARAMETERS: dict[str, dict] = {
    "fft": {"fft_type": implemented("the kind of frame's fft op (fft, ifft, rfft, irfft)"),
            "fft_lengths": checked("frame's fft transforms one axis, the last: only 1-D transforms (fft, ifft, rfft, "
                                   "irfft; not fft2/fftn/rfftn) import; the length is the op's n (the shape rule "
                                   "checks it against the operand)", _one_axis)},
    "conj": {"input_dtype": checked("conj of a real operand is complex in lax and real in frame (numpy's rule): "
                                    "only complex operands import", _complex_operand)},
}
