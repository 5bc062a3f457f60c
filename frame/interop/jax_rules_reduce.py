"""`from_jax` rules for reductions: JAX primitives that are not one frame op.

`TRANSLATIONS`: primitive -> rule(importer, eqn, *operands) -> Value or [Value] (see jax_import);
`PARAMETERS`: primitive -> the audit of each of its parameters (jax_audit's vocabulary). Both are
merged into jax_import's tables.

Every primitive here carries its axes as parameters, so none is one-to-one. JAX keeps int32
sums and products in int32 where frame (numpy) accumulates them in int64: the result is converted
back, which gives the same wrapped value. reduce_max/reduce_min derivatives are JAX's (ties share
the cotangent equally), reduce_prod's and cumprod's are exact with zeros in both. lax.sort
imports as frame's stable argsort (a pass per key) and gathers (its gradient is then the gather's, as JAX's is).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..errors import FrameError
from .jax_audit import _SHARDING, checked, implemented


def _as_jax_dtype(imp, eqn, y):
    """`y` in the dtype the jaxpr gives (int32 where frame accumulated in int64)."""
    dtype = np.dtype(eqn.outvars[0].aval.dtype).name
    return y if y.type.dtype == dtype else imp.node("convert", [y], dtype=dtype)


def _reduction(op: str, truth: bool = False):
    def rule(imp, eqn, x):
        if truth and x.type.dtype != "bool":
            raise FrameError(f"lax.{eqn.primitive.name} of {x.type.dtype} operands is bitwise; frame's '{op}' is a "
                             "truth test, so only bool operands import")
        y = imp.node(op, [x], axes=tuple(sorted(int(a) for a in eqn.params["axes"])), keepdims=False)
        return _as_jax_dtype(imp, eqn, y)
    return rule


def _index(op: str):
    def rule(imp, eqn, x):
        (axis,) = eqn.params["axes"]
        return _as_jax_dtype(imp, eqn, imp.node(op, [x], axis=int(axis), keepdims=False))
    return rule


def _cumulative(op: str):
    def rule(imp, eqn, x):
        y = imp.node(op, [x], axis=int(eqn.params["axis"]), reverse=bool(eqn.params["reverse"]))
        return _as_jax_dtype(imp, eqn, y)
    return rule


def _sort(imp, eqn, *operands):
    """lax.sort (jnp.sort, jnp.argsort's (key, iota) pair, jnp.lexsort): frame's stable argsort of the
    key along `dimension` (several keys: one stable pass per key, the last key first), every operand
    gathered by it. JAX's float order matches numpy's here: -0.0 ties with 0.0 and every NaN sorts last
    (lax's _float_to_int_for_sort)."""
    axis = int(eqn.params["dimension"])
    shape = operands[0].type.shape
    others = [imp.constant(np.broadcast_to(np.arange(d).reshape([-1 if j == k else 1 for j in range(len(shape))]),
                                           shape).copy()) if k != axis else None for k, d in enumerate(shape)]

    def gather(x, perm):   # x reordered along `axis` by `perm` (take_along_axis)
        return imp.node("gather", [x, *(perm if g is None else g for g in others)])

    # num_keys > 1 is lexicographic, the first key most significant: stable passes from the last key
    order = None
    for key in reversed(operands[:int(eqn.params["num_keys"])]):
        step = imp.node("argsort", [key if order is None else gather(key, order)], axis=axis)
        order = step if order is None else gather(order, step)
    return [gather(x, order) for x in operands]


TRANSLATIONS: dict[str, Callable] = {
    "sort": _sort,
    "reduce_max": _reduction("max"), "reduce_min": _reduction("min"), "reduce_prod": _reduction("prod"),
    "reduce_and": _reduction("all", truth=True), "reduce_or": _reduction("any", truth=True),
    "argmax": _index("argmax"), "argmin": _index("argmin"),
    "cumsum": _cumulative("cumsum"), "cumprod": _cumulative("cumprod"),
}

_AXES = {"axes": implemented("frame's reduction over the same axes, sorted (an empty max/min is refused by the op)"),
         "out_sharding": _SHARDING}
_INDEX = {"axes": checked("frame's argmax/argmin take one axis (JAX's take one too)", lambda value, eqn: len(value) == 1),
          "index_dtype": checked("frame's indices are int64, converted exactly to int32; other index dtypes are "
                                 "refused", lambda value, eqn: np.dtype(value).name in ("int32", "int64"))}
_RUNNING = {"axis": implemented("frame's cumsum/cumprod along the same axis"),
            "reverse": implemented("frame's `reverse`: accumulate from the end")}
_SORT = {"dimension": implemented("frame's argsort along the same axis"),
         "is_stable": implemented("frame's argsort is stable, which an unstable sort also allows (ties can only "
                                  "reorder the other operands)"),
         "num_keys": implemented("one stable argsort pass per key, the least significant first")}
PARAMETERS: dict[str, dict] = {
    "sort": _SORT,
    **{name: _AXES for name in ("reduce_max", "reduce_min", "reduce_prod", "reduce_and", "reduce_or")},
    "argmax": _INDEX, "argmin": _INDEX, "cumsum": _RUNNING, "cumprod": _RUNNING,
}
