"""`from_jax` rules for the lax primitives frame has a frame.lax function for, and no op or other rule.

`TRANSLATIONS`: primitive -> rule(importer, eqn, *operands) -> Value or [Value] (see jax_import);
`PARAMETERS`: primitive -> the audit of each of its parameters (jax_audit's vocabulary). Both are
merged into jax_import's tables.

Each primitive imports as frame.lax's function of the same name, traced into a graph and inlined
(`_Importer.compose`), so its values and derivatives are that function's: clz, mulhi (int32),
nextafter, polygamma (a constant order), reduce_precision, reduce_xor, shift_right_logical, top_k,
tile, empty (zeros), stack, unstack, linalg's tridiagonal_solve (the Thomas algorithm as two scans; no
pivoting, so LAPACK's gtsv and it agree to rounding, not to the bit); reduce_window_min is
frame.lax.reduce_window with lax.min. `optimization_barrier` is the identity on its operands (frame.lax's
too: frame's compiler needs no barrier), so its outputs are its operands, with nothing to compose.
The general `reduce` and `reduce_window` carry their combining function as a jaxpr: they import when
it is one equation per output combining the matching operand and init value by a monoid frame.lax.reduce
covers (add, mul, max, min, and, or, xor; reduce_window: add, max, min, one operand), and are refused
naming the equations otherwise (reduce_window's padding holds the reducer's identity and its init value
joins each window once, as XLA computes it and frame.lax.reduce_window does).

`select_and_scatter_add` and `select_and_gather_add` (jax.grad and jax.jvp of max/min pooling) replay
XLA's select loop over the window offsets with frame ops (see `_select_and_scatter_add`).

Not imported: `igamma_grad_a` (frame has no derivative of igamma in a).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .. import lax
from ..errors import FrameError
from ..frontend.args import _shape
from .jax_audit import _SHARDING, checked, implemented, irrelevant


def _via_lax(name: str, fn: Callable) -> Callable:
    """A rule importing the primitive as `fn(params, *operands)` (frame.lax's function) through compose."""
    def rule(imp, eqn, *operands):
        out = imp.compose(name, lambda *xs: fn(eqn.params, *xs), operands)
        return out if len(eqn.outvars) > 1 else out[0]
    return rule


def _barrier(imp, eqn, *operands):
    # lax.optimization_barrier only orders XLA's scheduling: every output is its operand
    return list(operands)


# -- reduce / reduce_window: the combining jaxpr read as monoids ---------------------------------------
_MONOID = {"add": lax.add, "mul": lax.mul, "max": lax.max, "min": lax.min, "and": lax.bitwise_and,
           "or": lax.bitwise_or, "xor": lax.bitwise_xor}
_WINDOW_MONOID = ("add", "max", "min")   # frame.lax.reduce_window's reducers


def _monoids(body, allowed) -> list[str] | None:
    """The monoid combining operand i with init i for each output of the combining jaxpr (2n inputs,
    n outputs, one equation each on the matching pair), or None if it is anything else."""
    jaxpr = getattr(body, "jaxpr", body)
    if getattr(body, "consts", ()) or len(jaxpr.invars) != 2 * len(jaxpr.outvars) or \
            len(jaxpr.eqns) != len(jaxpr.outvars):
        return None
    n, names = len(jaxpr.outvars), []
    for i, out in enumerate(jaxpr.outvars):
        eqn = next((e for e in jaxpr.eqns if e.outvars == [out]), None)
        if eqn is None or eqn.primitive.name not in allowed or any(v is not None for v in eqn.params.values()) or \
                {id(v) for v in eqn.invars} != {id(jaxpr.invars[i]), id(jaxpr.invars[n + i])}:
            return None
        names.append(eqn.primitive.name)
    return names


def _refuse(eqn, allowed) -> FrameError:
    body = eqn.params["jaxpr"]
    return FrameError(f"frame imports a {eqn.primitive.name} whose computation is one of {list(allowed)} per operand "
                      f"(frame.lax's reducers), got the computation {getattr(body, 'jaxpr', body)}")


def _reduce(imp, eqn, *operands):
    names = _monoids(eqn.params["jaxpr"], _MONOID)
    if names is None:
        raise _refuse(eqn, _MONOID)
    n, dims = len(names), tuple(int(d) for d in eqn.params["dimensions"])
    out = imp.compose("reduce", lambda *xs: [lax.reduce(xs[i], xs[n + i], _MONOID[names[i]], dims) for i in range(n)],
                      operands)
    return out if n > 1 else out[0]


def _window(p) -> dict:
    return {"window_dimensions": tuple(int(d) for d in p["window_dimensions"]),
            "window_strides": tuple(int(d) for d in p["window_strides"]),
            "padding": tuple((int(lo), int(hi)) for lo, hi in p["padding"]),
            "base_dilation": tuple(int(d) for d in p["base_dilation"]),
            "window_dilation": tuple(int(d) for d in p["window_dilation"])}


def _reduce_window(imp, eqn, x, init):
    names = _monoids(eqn.params["jaxpr"], _WINDOW_MONOID)
    if names is None or len(names) != 1:
        raise _refuse(eqn, _WINDOW_MONOID)
    fn, w = _MONOID[names[0]], _window(eqn.params)
    (y,) = imp.compose("reduce_window", lambda x, i: lax.reduce_window(x, i, fn, **w), [x, init])
    return y


def _reduce_window_min(imp, eqn, x):
    # reduce_window_min's implicit init is the dtype's largest value, as jnp's min pooling
    dtype = np.dtype(x.type.dtype)
    top = np.asarray(np.inf if dtype.kind == "f" else np.iinfo(dtype).max, dtype)
    w = _window(eqn.params)
    (y,) = imp.compose("reduce_window_min", lambda x: lax.reduce_window(x, top, lax.min, **w), [x])
    return y


def _ones(value, eqn) -> bool:
    return all(int(d) == 1 for d in value)


def _no_perturbation(value, eqn) -> bool:
    return not value


def _jaxpr_is(allowed):
    def accepts(value, eqn):
        names = _monoids(value, allowed)
        if eqn.primitive.name == "reduce":
            return names is not None
        # reduce_window keeps the computation's constants beside its (open) jaxpr; a monoid has none
        return names is not None and len(names) == 1 and not eqn.params.get("consts")
    return accepts


# -- select_and_scatter_add / select_and_gather_add: max (min) pooling's derivatives --------------------
# XLA picks each window's element sequentially in row-major window order: the first element is taken, and a
# later one replaces the pick when select_prim(pick, element) is false (ge: the first maximum; NaNs as XLA's
# loop treats them). These rules replay that loop over the window offsets with frame ops (strided slices of
# the padded operand, one `where` per offset), so the picks are XLA's, ties and NaNs included.
_SELECT = {"ge": lax.ge, "le": lax.le, "gt": lax.gt, "lt": lax.lt}


def _strided_windows(x, fill, window, strides, padding, base_dilation, window_dilation):
    """(offset, the operand's element at that offset of every window) for each window offset in row-major
    order, after padding with `fill` (base dilation's holes too); and the padded shape."""
    xp = lax.pad(x, fill, [(lo, hi, b - 1) for (lo, hi), b in zip(padding, base_dilation)])
    shape = _shape(xp)
    count = [(n - ((w - 1) * d + 1)) // s + 1 for n, w, d, s in zip(shape, window, window_dilation, strides)]
    if any(c <= 0 for c in count):
        raise FrameError(f"a window {window} (dilation {window_dilation}) larger than the padded operand {shape}")
    out = []
    for offset in np.ndindex(*window):
        start = [o * d for o, d in zip(offset, window_dilation)]
        out.append((offset, lax.slice(xp, start, [b + (c - 1) * s + 1 for b, c, s in zip(start, count, strides)],
                                      strides)))
    return out, shape, count


def _select_and_gather_add(imp, eqn, tangents, x):
    """Each window's tangent at the element the select loop picks, the loop starting from -inf (ge/gt) or +inf
    (le/lt) with tangent 0: lax's reduce_window of (operand, tangent) pairs. Windows without padding or
    dilation only: XLA's CPU reduce_window visits a padded window's elements in another order, which picks
    another of tied maxima (measured on jax 0.10), so those are refused rather than imported differently."""
    p = eqn.params
    if not x.type.is_float:
        raise FrameError(f"select_and_gather_add of a {x.type.dtype} operand: frame imports float operands")
    keep_first, name = _SELECT[p["select_prim"].name], p["select_prim"].name
    fill = np.asarray(-np.inf if name in ("ge", "gt") else np.inf, x.type.dtype)
    args = (tuple(int(w) for w in p["window_dimensions"]), tuple(int(s) for s in p["window_strides"]),
            tuple((int(lo), int(hi)) for lo, hi in p["padding"]), tuple(int(b) for b in p["base_dilation"]),
            tuple(int(d) for d in p["window_dilation"]))

    def gather(t, x):
        values, _, count = _strided_windows(x, fill, *args)
        tans, _, _ = _strided_windows(t, np.zeros((), fill.dtype), *args)
        pick, tan = lax.full(count, fill, fill.dtype), lax.full(count, 0, fill.dtype)
        for (_, v), (_, tv) in zip(values, tans):
            keep = keep_first(pick, v)
            pick, tan = lax.select(keep, pick, v), lax.select(keep, tan, tv)
        return tan
    (y,) = imp.compose("select_and_gather_add", gather, [tangents, x])
    return y


def _select_and_scatter_add(imp, eqn, source, x):
    """Each window's source value added at the element the select loop picks (padding never picked), the adds in
    XLA's order: windows in row-major order, so for one element the window offsets from the last to the first."""
    p = eqn.params
    keep_first = _SELECT[p["select_prim"].name]
    window, strides = tuple(int(w) for w in p["window_dimensions"]), tuple(int(s) for s in p["window_strides"])
    padding = tuple((int(lo), int(hi)) for lo, hi in p["padding"])
    ones, dtype = (1,) * len(window), np.dtype(source.type.dtype)

    def scatter(s, x):
        values, shape, count = _strided_windows(x, np.zeros((), np.dtype(eqn.invars[1].aval.dtype)), window, strides,
                                                padding, ones, ones)
        valid, _, _ = _strided_windows(lax.full(eqn.invars[1].aval.shape, True, "bool"), np.asarray(False), window,
                                       strides, padding, ones, ones)
        (_, pick), which = values[0], lax.select(valid[0][1], lax.full(count, 0, "int32"),
                                                 lax.full(count, -1, "int32"))
        for k in range(1, len(values)):
            v, ok = values[k][1], valid[k][1]
            take = lax.bitwise_and(ok, lax.bitwise_or(lax.lt(which, lax.full(count, 0, "int32")),
                                                      lax.bitwise_not(keep_first(pick, v))))
            pick, which = lax.select(take, v, pick), lax.select(take, lax.full(count, k, "int32"), which)
        total = lax.full(shape, 0, dtype)
        zero = lax.full(count, 0, dtype)
        for k in reversed(range(len(values))):
            offset = values[k][0]
            part = lax.select(lax.eq(which, lax.full(count, k, "int32")), s, zero)
            total = lax.add(total, lax.pad(part, np.zeros((), dtype), [
                (o, n - o - ((c - 1) * st + 1), st - 1) for o, n, c, st in zip(offset, shape, count, strides)]))
        return lax.slice(total, [lo for lo, _ in padding], [lo + n for (lo, _), n in
                                                            zip(padding, eqn.invars[1].aval.shape)])
    (y,) = imp.compose("select_and_scatter_add", scatter, [source, x])
    return y


TRANSLATIONS: dict[str, Callable] = {
    "clz": _via_lax("clz", lambda p, x: lax.clz(x)),
    "mulhi": _via_lax("mulhi", lambda p, x, y: lax.mulhi(x, y)),
    "nextafter": _via_lax("nextafter", lambda p, x, y: lax.nextafter(x, y)),
    "optimization_barrier": _barrier,
    "polygamma": _via_lax("polygamma", lambda p, m, x: lax.polygamma(m, x)),
    "reduce_precision": _via_lax("reduce_precision", lambda p, x: lax.reduce_precision(
        x, exponent_bits=int(p["exponent_bits"]), mantissa_bits=int(p["mantissa_bits"]))),
    "reduce_xor": _via_lax("reduce_xor", lambda p, x: lax.reduce_xor(x, tuple(int(a) for a in p["axes"]))),
    "shift_right_logical": _via_lax("shift_right_logical", lambda p, x, s: lax.shift_right_logical(x, s)),
    "top_k": _via_lax("top_k", lambda p, x: list(lax.top_k(x, int(p["k"]), axis=int(p.get("axis", -1))))),
    "tile": _via_lax("tile", lambda p, x: lax.tile(x, tuple(int(r) for r in p["reps"]))),
    "empty": _via_lax("empty", lambda p: lax.empty(tuple(int(d) for d in p["shape"]), p["dtype"])),
    "stack": _via_lax("stack", lambda p, *xs: lax.stack(xs, axis=int(p["axis"]))),
    "unstack": _via_lax("unstack", lambda p, x: list(lax.unstack(x, axis=int(p["axis"])))),
    "tridiagonal_solve": _via_lax("tridiagonal_solve", lambda p, dl, d, du, b: lax.linalg.tridiagonal_solve(
        dl, d, du, b)),
    "reduce": _reduce, "reduce_window": _reduce_window, "reduce_window_min": _reduce_window_min,
    "select_and_gather_add": _select_and_gather_add, "select_and_scatter_add": _select_and_scatter_add,
}

_WINDOW = {
    "window_dimensions": implemented("frame.lax.reduce_window's window_dimensions"),
    "window_strides": implemented("its window_strides"),
    "padding": implemented("its (lo, hi) padding pairs, padded with the reducer's identity (skipped, as XLA)"),
    "base_dilation": implemented("its base_dilation (holes of the reducer's identity)"),
    "window_dilation": checked("frame.lax.reduce_window's windows are dense: only window_dilation 1 imports",
                               lambda value, eqn: all(int(d) == 1 for d in value)),
}
PARAMETERS: dict[str, dict] = {
    **{name: {} for name in ("clz", "mulhi", "nextafter", "optimization_barrier", "polygamma",
                             "shift_right_logical")},
    "reduce_precision": {"exponent_bits": implemented("frame.lax.reduce_precision's exponent_bits"),
                         "mantissa_bits": implemented("its mantissa_bits")},
    "reduce_xor": {"axes": implemented("frame.lax.reduce_xor's axes"), "out_sharding": _SHARDING},
    "top_k": {"k": implemented("frame.lax.top_k's k"), "axis": implemented("its axis (lax's default: the last)")},
    "tile": {"reps": implemented("frame.lax.tile's reps")},
    "empty": {"shape": implemented("frame.lax.empty's shape"), "dtype": implemented("its dtype"),
              "out_sharding": _SHARDING},
    "stack": {"axis": implemented("frame.lax.stack's new axis")},
    "unstack": {"axis": implemented("frame.lax.unstack's axis")},
    "tridiagonal_solve": {"perturb_singular": checked("perturbing a singular pivot (LAPACK-style) is not frame's: "
                                                      "only perturb_singular=False imports", _no_perturbation)},
    "reduce": {"computation": irrelevant("the Python function JAX traced into `jaxpr`; the rule reads the jaxpr"),
               "jaxpr": checked("the combining function: one add/mul/max/min/and/or/xor equation per operand, on it "
                                "and its init value (frame.lax.reduce's monoids)", _jaxpr_is(_MONOID)),
               "dimensions": implemented("frame.lax.reduce's dimensions")},
    "reduce_window": {**_WINDOW,
                      "jaxpr": checked("the combining function: one add, max or min equation on the single operand "
                                       "and its init value (frame.lax.reduce_window's reducers)",
                                       _jaxpr_is(_WINDOW_MONOID)),
                      "consts": implemented("the combining function's constants: an add/max/min equation has none "
                                            "(checked with the jaxpr)")},
    "reduce_window_min": dict(_WINDOW),
    "select_and_gather_add": {
        "select_prim": checked("the comparison of the select loop: ge (max pooling), le (min), gt or lt",
                               lambda value, eqn: getattr(value, "name", None) in _SELECT),
        "window_dimensions": implemented("the window offsets the select loop visits, row-major"),
        "window_strides": implemented("the strides of each offset's slice"),
        "padding": checked("XLA's reduce_window picks another of tied maxima in padded windows (not row-major): "
                           "only unpadded windows import", lambda value, eqn: all(int(v) == 0 for pair in value
                                                                                 for v in pair)),
        "base_dilation": checked("dilation holes are padding (see padding): only 1 imports", _ones),
        "window_dilation": checked("only dense windows import, as for padding", _ones)},
    "select_and_scatter_add": {
        "select_prim": checked("the comparison of the select loop: ge (max pooling), le (min), gt or lt",
                               lambda value, eqn: getattr(value, "name", None) in _SELECT),
        "window_dimensions": implemented("the window offsets the select loop visits, row-major"),
        "window_strides": implemented("the strides of each offset's slice"),
        "padding": checked("lo/hi padding, never picked; negative padding (cropping) is refused",
                           lambda value, eqn: all(int(lo) >= 0 and int(hi) >= 0 for lo, hi in value))},
}
