"""`from_jax` rules for the running reductions frame has no op for: `cummax`, `cummin`, `cumlogsumexp`.

`TRANSLATIONS`: primitive -> rule(importer, eqn, *operands) -> Value (see jax_import); `PARAMETERS`:
the audit of each parameter (jax_audit's vocabulary). Both are merged into jax_import's tables.
(`cumsum` and `cumprod` are ops, imported by jax_rules_reduce.)

Each imports as `frame.associative_scan` of the elementwise op (`maximum`, `minimum`, `logaddexp`)
along the same axis and direction, traced into a graph and inlined. That is JAX's own definition of
these primitives' derivatives: their JVP rules are the JVP of `lax.associative_scan` of the same
combine (lax.max, lax.min, logaddexp), and frame's scan combines the same pairs in the same order
(Blelloch's parallel prefix, as JAX's). So values are exact (max and min select elements; logaddexp
is computed in the same pairing), and derivatives are JAX's, including its even split at ties of
max/min (frame's maximum/minimum rule) and logaddexp's exp(a - y) weights.
"""
from __future__ import annotations

from typing import Callable

from ..frontend import numpy as fnp
from ..frontend.sequence import associative_scan
from .jax_audit import implemented

_COMBINE = {"cummax": fnp.maximum, "cummin": fnp.minimum, "cumlogsumexp": fnp.logaddexp}


def _running(primitive: str) -> Callable:
    combine = _COMBINE[primitive]

    def rule(imp, eqn, x):
        axis, reverse = int(eqn.params["axis"]), bool(eqn.params["reverse"])
        (y,) = imp.compose(f"{primitive}_scan", lambda v: associative_scan(combine, v, reverse=reverse, axis=axis),
                           [x])
        return y
    return rule


TRANSLATIONS: dict[str, Callable] = {name: _running(name) for name in _COMBINE}

PARAMETERS: dict[str, dict] = {
    name: {"axis": implemented("the scanned axis of frame.associative_scan"),
           "reverse": implemented("associative_scan's reverse: the scan of the flipped axis, flipped back")}
    for name in _COMBINE
}
