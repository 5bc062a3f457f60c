"""`from_jax` rules for elementwise math: JAX primitives that are not one frame op.

`TRANSLATIONS`: primitive -> rule(importer, eqn, *operands) -> Value or [Value] (see jax_import);
`PARAMETERS`: primitive -> the audit of each of its parameters (jax_audit's vocabulary). Both are
merged into jax_import's tables. The one-to-one primitives (tan, asin, ..., floor, ceil, erf, atan2)
are in their ops' `jax_imports` (frame/ops/math.py); only their parameters are audited here.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ._jax import require_jax
from .jax_audit import _UNARY_FLOAT, implemented

jax = require_jax()


def _round(imp, eqn, x):
    """lax.round: half to even is rint; half away from zero (lax's default, C's round) is trunc(x) moved
    one unit away from zero where the dropped fraction is at least 1/2. x - trunc(x) is exact, so is t +- 1
    (below 2^53, and above every float is an integer and the fraction 0); where keeps trunc's -0.0."""
    if eqn.params["rounding_method"] == jax.lax.RoundingMethod.TO_NEAREST_EVEN:
        return imp.node("rint", [x])
    t = imp.node("trunc", [x])
    half = imp.constant(np.asarray(0.5, x.type.dtype))
    far = imp.node("greater_equal", [imp.node("abs", [imp.node("sub", [x, t])]), half])
    return imp.node("where", [far, imp.node("add", [t, imp.node("sign", [x])]), t])


def _rem(imp, eqn, x, y):
    """lax.rem is C's fmod; for integers XLA's x rem 0 is x, where numpy's fmod gives 0, so that case is
    selected apart (with a divisor of 1 in the unused branch, so fmod never divides by zero)."""
    if x.type.is_float:
        return imp.node("fmod", [x, y])
    zero, one = (imp.constant(np.asarray(v, y.type.dtype)) for v in (0, 1))
    by_zero = imp.node("equal", [y, zero])
    safe = imp.node("where", [by_zero, one, y])
    return imp.node("where", [by_zero, x, imp.node("fmod", [x, safe])])


def _pow(imp, eqn, x, p):
    """lax.pow: frame's `pow` for a constant scalar exponent (its attribute), else the broadcasting `power`."""
    exponent = imp.known(p)
    if exponent is None or exponent.size == 0 or not np.all(exponent == exponent.flat[0]):
        return imp.node("power", [x, p])
    y = imp.node("pow", [x], exponent=float(exponent.flat[0]))
    shape = tuple(eqn.outvars[0].aval.shape)
    return y if y.type.shape == shape else imp.node("broadcast_to", [y], shape=shape)


TRANSLATIONS: dict[str, Callable] = {"round": _round, "rem": _rem, "pow": _pow}
PARAMETERS: dict[str, dict] = {
    **{name: _UNARY_FLOAT for name in ("tan", "log1p", "expm1", "exp2", "cbrt")},
    "round": {"rounding_method": implemented("TO_NEAREST_EVEN is frame's rint; AWAY_FROM_ZERO is built exactly "
                                             "from trunc, sign and where")},
    "rem": {}, "pow": {},
}
