"""Op cases for the complex family (frame/ops/complex.py): real, imag, conj, angle, complex; and abs of
complex operands (its block is in frame/ops/elementwise.py).

The shared harness (test_gradients, the oracle matrix, the lowering table) compares real outputs and
differences real inputs, so the derivative cases here are those it can check: real operands (numpy's
real/imag/conj/angle take them). Complex operands and results are checked for values here (wrt=())
and for derivatives against jax.vjp in tests/frontend/test_complex.py, which also runs
`COMPLEX_CASES` below (complex results, which the shared lowering table cannot compare yet).
"""
from __future__ import annotations

import numpy as np

from tests.ops.cases import OpCase, _away_from_zero, _ins, _u

COMPLEX = {"float32": "complex64", "float64": "complex128"}


def _c(*shape):
    """Complex values with real and imaginary parts in [-1, 1] (away from 0 in modulus: angle is smooth)."""
    def make(rng, dt):
        z = rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)
        return np.where(np.abs(z) < 0.2, z + 0.5, z).astype(COMPLEX[dt])
    return make


SHAPES = [((3, 4), "2d"), ((), "rank0")]

CASES = [
    # complex operands first: the from_jax round trip imports lax.real/lax.imag on the first case's operands
    *[OpCase(op, _ins(_c(*s)), ref, wrt=(), label=f"complex-{lb}") for op, ref in (("real", np.real), ("imag", np.imag),
                                                                        ("angle", np.angle)) for s, lb in SHAPES],
    *[OpCase(op, _ins(_u(*s)), ref, label=f"real-{lb}") for op, ref in (("real", np.real), ("imag", np.imag),
                                                                     ("conj", np.conj)) for s, lb in SHAPES],
    OpCase("angle", _ins(_away_from_zero(3, 4)), np.angle, label="real", smooth=False),
    # |z| is real: the shared tables compare it; its derivative is checked in tests/frontend/test_complex_abs.py
    *[OpCase("abs", _ins(_c(*s)), np.abs, wrt=(), label=f"complex-{lb}") for s, lb in SHAPES],
]

# Complex results: their derivative checks live in tests/frontend/test_complex.py (against jax.vjp).
COMPLEX_CASES = [
    *[OpCase("conj", _ins(_c(*s)), np.conj, label=f"complex-{lb}") for s, lb in SHAPES],
    OpCase("complex", _ins(_u(3, 4), _u(3, 4)), lambda re, im: re + 1j * im, wrt=(0, 1), label="same"),
    OpCase("complex", _ins(_u(2, 1, 4), _u(3, 1)), lambda re, im: re + 1j * im, wrt=(0, 1), label="broadcast"),
]
# `complex` needs one shared case to be registered as covered; it runs once the harness compares complex results.
CASES += [OpCase("complex", _ins(_u(3, 4), _u(3, 4)), lambda re, im: re + 1j * im, wrt=(), label="shared")]
