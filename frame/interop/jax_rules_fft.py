"""`from_jax` rules for FFTs and complex conjugation: JAX primitives that are not one frame op.

`lax.fft` (what every `jnp.fft` function binds) imports as frame's `fft` op: `fft_type`
FFT/IFFT/RFFT/IRFFT is the op's kind, `fft_lengths` the lengths of the last len(fft_lengths) axes
(IRFFT's last one its output length). A 1-D transform is one op along the last axis; a multi-axis
one (jnp.fft.fft2/fftn/rfft2/rfftn/irfft2/irfftn) is frame's op along each of those axes, composed
as numpy defines the n-d transforms (RFFT: rfft of the last axis, then fft of the others; IRFFT:
ifft of the others, then irfft of the last), an axis other than the last moved there and back by
transposes. `lax.conj` imports as `conj` for complex operands (on a real operand lax makes a complex
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


def _lengths_fit(value, eqn) -> bool:
    """lax's rule, checked again: one length per transformed (trailing) axis, each the operand's
    except IRFFT's last (its output length, the operand having n//2 + 1 bins there)."""
    shape = tuple(eqn.invars[0].aval.shape)
    lengths = tuple(int(n) for n in value)
    if not lengths or len(lengths) > len(shape):
        return False
    tail = shape[len(shape) - len(lengths):]
    if _kind(eqn) == "irfft":
        return tail[:-1] == lengths[:-1] and tail[-1] == lengths[-1] // 2 + 1
    return tail == lengths


def _along(imp, x, axis: int, kind: str, n=None):
    """frame's 1-D `fft` op of `kind` along `axis` (moved to the end and back when it is not last)."""
    rank = len(x.type.shape)
    attrs = {"n": int(n)} if kind == "irfft" else {}
    if axis == rank - 1:
        return imp.node("fft", [x], kind=kind, **attrs)
    perm = tuple(i for i in range(rank) if i != axis) + (axis,)
    y = imp.node("fft", [imp.node("transpose", [x], perm=perm)], kind=kind, **attrs)
    return imp.node("transpose", [y], perm=tuple(int(p) for p in np.argsort(perm)))


def _fft(imp, eqn, x):
    kind, lengths = _kind(eqn), [int(n) for n in eqn.params["fft_lengths"]]
    rank = len(eqn.invars[0].aval.shape)
    axes = list(range(rank - len(lengths), rank))
    if kind == "irfft":
        for axis in axes[:-1]:
            x = _along(imp, x, axis, "ifft")
        return _along(imp, x, axes[-1], "irfft", lengths[-1])
    if kind == "rfft":
        x = _along(imp, x, axes[-1], "rfft")
        axes = axes[:-1]
        kind = "fft"
    for axis in reversed(axes):
        x = _along(imp, x, axis, kind)
    return x


def _conj(imp, eqn, x):
    return imp.node("conj", [x])


def _complex_operand(value, eqn) -> bool:
    return np.dtype(value).kind == "c" and np.dtype(value) == np.dtype(eqn.invars[0].aval.dtype)


TRANSLATIONS: dict[str, Callable] = {"fft": _fft, "conj": _conj}
PARAMETERS: dict[str, dict] = {
    "fft": {"fft_type": implemented("the kind of frame's fft op (fft, ifft, rfft, irfft)"),
            "fft_lengths": checked("the lengths of the trailing axes transformed, one frame fft op along each "
                                   "(IRFFT's last length is irfft's n); they must fit the operand as lax requires",
                                   _lengths_fit)},
    "conj": {"input_dtype": checked("conj of a real operand is complex in lax and real in frame (numpy's rule): "
                                    "only complex operands import", _complex_operand)},
}
