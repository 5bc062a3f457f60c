"""`from_jax` rules for shape and indexing (gather, scatter, ...): JAX primitives that are not one frame op.

`TRANSLATIONS`: primitive -> rule(importer, eqn, *operands) -> Value or [Value] (see jax_import);
`PARAMETERS`: primitive -> the audit of each of its parameters (jax_audit's vocabulary). Both are
merged into jax_import's tables.

gather, the scatters, dynamic_slice and dynamic_update_slice import as frame.lax's functions of the same
names (traced into a graph and inlined), so every form lax allows imports: jnp's indexing (`x[idx]`,
`take_along_axis`, `x.at[idx].set/add/...`), windows at computed starts, batching dimensions, and slices
at computed starts (a `fori_loop` writing rows). Indices out of range follow JAX's `mode`: `clip` clamps
the window into the operand; `fill`/`drop` (FILL_OR_DROP: `jnp.take`'s default, and every
`jax.ops.segment_*`) reads the fill value for a gathered window and drops a scattered one (negative
indices included: JAX never wraps them at the primitive); `promise_in_bounds` clamps gathers and drops
scatters, as XLA does. Derivatives are those of frame.lax's compositions: the gather's is a scatter-add,
the indices get none.
"""
from __future__ import annotations

from typing import Callable

from .. import lax
from ..errors import FrameError
from .jax_audit import checked, implemented, irrelevant

_MODE = implemented("frame.lax's GatherScatterMode of the same name: clip clamps the window, fill/drop fills "
                    "a gathered window and drops a scattered one, promise_in_bounds clamps or drops as XLA")
_HINTS = irrelevant("a promise about the indices (sorted, unique) that lets XLA choose a faster algorithm")


def _mode(eqn):
    """JAX's GatherScatterMode as frame.lax's (by name); ONE_HOT is refused by name."""
    name = _mode_name(eqn)
    if name not in lax.GatherScatterMode.__members__:
        raise FrameError(f"frame imports gather/scatter modes {sorted(lax.GatherScatterMode.__members__)}, got {name}")
    return lax.GatherScatterMode[name]


def _gather(imp, eqn, x, indices):
    p = eqn.params
    dn = lax.GatherDimensionNumbers(*(tuple(int(d) for d in getattr(p["dimension_numbers"], f)) for f in
                                      lax.GatherDimensionNumbers._fields))
    sizes, mode, fill = tuple(int(k) for k in p["slice_sizes"]), _mode(eqn), p.get("fill_value")
    return imp.compose("gather", lambda x, i: lax.gather(x, i, dn, sizes, mode=mode, fill_value=fill),
                    [x, indices])[0]


def _scatter(scatter):
    def rule(imp, eqn, x, indices, updates):
        p = eqn.params
        dn = lax.ScatterDimensionNumbers(*(tuple(int(d) for d in getattr(p["dimension_numbers"], f)) for f in
                                           lax.ScatterDimensionNumbers._fields))
        mode, unique = _mode(eqn), bool(p["unique_indices"])
        return imp.compose(scatter.__name__, lambda x, i, u: scatter(x, i, u, dn, unique_indices=unique, mode=mode),
                           [x, indices, updates])[0]
    return rule


def _mode_name(eqn) -> str:
    mode = eqn.params.get("mode")
    return str(getattr(mode, "name", mode)).upper()


def _rev(imp, eqn, x):
    return imp.node("rev", [x], axes=tuple(sorted(int(a) for a in eqn.params["dimensions"])))


def _dynamic_slice(imp, eqn, x, *starts):
    # at the primitive, negative starts are already wrapped by jnp/lax's wrappers: clamping is all that is left
    sizes = tuple(int(k) for k in eqn.params["slice_sizes"])
    return imp.compose("dynamic_slice", lambda x, *s: lax.dynamic_slice(x, s, sizes, allow_negative_indices=False),
                    [x, *starts])[0]


def _dynamic_update_slice(imp, eqn, x, update, *starts):
    return imp.compose("dynamic_update_slice",
                    lambda x, u, *s: lax.dynamic_update_slice(x, u, s, allow_negative_indices=False),
                    [x, update, *starts])[0]


def _split(imp, eqn, x):
    axis, out, start = int(eqn.params["axis"]), [], 0
    for size in (int(s) for s in eqn.params["sizes"]):
        starts, stops = [0] * x.type.rank, list(x.type.shape)
        starts[axis], stops[axis] = start, start + size
        out.append(imp.node("slice", [x], starts=tuple(starts), stops=tuple(stops), steps=(1,) * x.type.rank))
        start += size
    return out


def _scatter_combiner(expected: str | None):
    """update_jaxpr: the combining function JAX records; frame reproduces add/mul/min/max/set by the primitive."""
    def accepts(value, eqn):
        if value is None:
            return True
        body = getattr(value, "jaxpr", value)
        return expected is not None and [e.primitive.name for e in body.eqns] == [expected]
    return checked("the function combining an update with the operand: the primitive's own (add, mul, min, "
                   "max, or none for set)", accepts)


def _scatter_audit(combiner: str | None) -> dict:
    return {"dimension_numbers": implemented("ScatterDimensionNumbers, handed to frame.lax's scatter"),
            "indices_are_sorted": _HINTS, "unique_indices": implemented("mul's derivative to the updates needs it, "
                                                                        "as in JAX; a hint otherwise"),
            "mode": _MODE, "update_jaxpr": _scatter_combiner(combiner),
            "update_consts": checked("constants of the combining function; the built-in combiners have none",
                                     lambda value, eqn: not value)}


TRANSLATIONS: dict[str, Callable] = {
    "gather": _gather, "scatter-add": _scatter(lax.scatter_add), "scatter-sub": _scatter(lax.scatter_sub),
    "scatter": _scatter(lax.scatter), "scatter-mul": _scatter(lax.scatter_mul),
    "scatter-min": _scatter(lax.scatter_min), "scatter-max": _scatter(lax.scatter_max), "rev": _rev,
    "dynamic_slice": _dynamic_slice,
    "dynamic_update_slice": _dynamic_update_slice, "split": _split,
}
PARAMETERS: dict[str, dict] = {
    "gather": {"dimension_numbers": implemented("GatherDimensionNumbers, handed to frame.lax's gather"),
               "slice_sizes": implemented("the window's size along each operand axis, frame.lax.gather's"),
               "indices_are_sorted": _HINTS, "unique_indices": _HINTS, "mode": _MODE,
               "fill_value": implemented("the value of a FILL_OR_DROP window out of range (None: JAX's defaults)")},
    "scatter-add": _scatter_audit("add"), "scatter-sub": _scatter_audit("sub"), "scatter": _scatter_audit(None),
    "scatter-mul": _scatter_audit("mul"), "scatter-min": _scatter_audit("min"), "scatter-max": _scatter_audit("max"),
    "rev": {"dimensions": implemented("frame's rev over the same axes")},
    "dynamic_slice": {"slice_sizes": implemented("frame.lax.dynamic_slice's sizes at the (clamped) starts, constant "
                                                 "or computed")},
    "dynamic_update_slice": {},
    "split": {"axis": implemented("the axis cut"), "sizes": implemented("the pieces' sizes, in order")},
}
