"""`from_jax` rules for control flow: `cond`, `scan` and `while` import as frame's region ops (issue 17).

The primitives' layouts are frame's (frame/ops/control.py follows them), so each imports as one node
whose regions are the primitive's jaxprs, imported by the same importer into graphs of their own
(`_Importer.region`): every equation inside is checked and translated like the outer ones.

- `scan` (lax.scan, lax.map, lax.fori_loop with a static trip count): `scan` with the same
  num_consts, num_carry, length and reverse.
- `while` (lax.while_loop, lax.fori_loop with a traced trip count): `while` with the same
  cond_nconsts and body_nconsts.
- `cond` (lax.cond, lax.switch): its operand is the branch index (lax.cond passes its predicate
  converted to int32, lax.switch the clamped index); XLA runs the last branch for an index out of
  range. Two branches: `cond(index != 0, branches[1], branches[0])`; more: nested,
  `cond(index == 0, branches[0], cond(index == 1, branches[1], ... branches[-1]))`. The integer
  `clamp` lax.switch applies to its index imports as maximum and minimum; a float clamp as selects
  that carry JAX's derivative rule (nothing at a bound).

`TRANSLATIONS`: primitive -> rule(importer, eqn, *operands) -> [Value]; `PARAMETERS`: the audit of
each parameter (jax_audit's vocabulary). Both are merged into jax_import's tables.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .jax_audit import implemented, irrelevant


def _cond(imp, eqn, index, *operands):
    branches = [imp.region(b, f"cond_branch{i}", " inside cond") for i, b in enumerate(eqn.params["branches"])]
    if len(branches) == 1:
        return list(imp.inline(branches[0], operands))
    return _select(imp, index, branches, operands, 0)


def _select(imp, index, branches, operands, k: int):
    """The results of `branches[k:]` chosen by `index` (the last for an index out of range)."""
    from ..ops.fused import FusedBody
    from ..ir.graph import Graph

    zero = imp.constant(np.asarray(k, index.type.dtype))
    if len(branches) - k == 2:
        pred = imp.node("not_equal" if k == 0 else "equal", [index, zero])
        true_body, false_body = (branches[k + 1], branches[k]) if k == 0 else (branches[k], branches[k + 1])
        return imp.graph.add_node("cond", [pred, *operands], {"true_body": true_body, "false_body": false_body}).outputs
    # index == k picks branch k; the rest is a cond of its own, as the false branch (its index an operand)
    rest = Graph(f"cond_branches{k + 1}_")
    r_index = rest.add_input(index.type)
    r_ops = [rest.add_input(v.type) for v in operands]
    sub = type(imp)(rest, imp.inline_custom_derivatives)
    for v in _select(sub, r_index, branches, r_ops, k + 1):
        rest.mark_output(v)
    rest_body = FusedBody.of(rest)
    first = _with_unused_input(branches[k], index.type)
    pred = imp.node("equal", [index, zero])
    return imp.graph.add_node("cond", [pred, index, *operands], {"true_body": first, "false_body": rest_body}).outputs


def _with_unused_input(body, t):
    from ..ops.control import rearranged
    types = [v.type for v in body.inputs]
    return rearranged(body, [t, *types], range(1, len(types) + 1), range(len(body.outputs)))


def _scan(imp, eqn, *operands):
    body = imp.region(eqn.params["jaxpr"], "scan_body", " inside scan")
    attrs = {"body": body, "num_consts": int(eqn.params["num_consts"]), "num_carry": int(eqn.params["num_carry"]),
             "length": int(eqn.params["length"]), "reverse": bool(eqn.params["reverse"])}
    return imp.graph.add_node("scan", list(operands), attrs).outputs


def _while(imp, eqn, *operands):
    cond_body = imp.region(eqn.params["cond_jaxpr"], "while_cond", " inside while (cond_jaxpr)")
    body = imp.region(eqn.params["body_jaxpr"], "while_body", " inside while (body_jaxpr)")
    attrs = {"cond_body": cond_body, "body": body, "cond_nconsts": int(eqn.params["cond_nconsts"]),
             "body_nconsts": int(eqn.params["body_nconsts"])}
    return imp.graph.add_node("while", list(operands), attrs).outputs


def _clamp(imp, eqn, lo, x, hi):
    """lax.clamp: min(max(x, lo), hi). Integers (lax.switch's index) as just that. Floats (jnp.quantile's
    index, jnp.clip in some versions) carry JAX's derivative rule, which is not maximum/minimum's (those
    split ties): the derivative goes to x strictly inside (lo, hi), to lo strictly below it (lo < hi),
    to hi strictly above it, and nowhere at a bound. As selects over the three operands and the
    stop-gradient value at the bounds, every order of derivative is JAX's."""
    value = imp.node("minimum", [imp.node("maximum", [x, lo]), hi])
    if not any(v.type.is_inexact for v in (lo, x, hi)):
        return value
    shape = eqn.outvars[0].aval.shape

    def full(v):   # where's operands at the result's shape (lax.clamp allows scalar bounds)
        return v if v.type.shape == tuple(shape) else imp.node("broadcast_to", [v], shape=tuple(shape))

    lo, x, hi = full(lo), full(x), full(hi)
    inside = imp.node("logical_and", [imp.node("greater", [x, lo]), imp.node("less", [x, hi])])
    below = imp.node("logical_and", [imp.node("less", [x, lo]), imp.node("less", [lo, hi])])
    above = imp.node("greater", [x, hi])
    at_bound = imp.node("stop_gradient", [full(value)])
    return imp.node("where", [inside, x, imp.node("where", [below, lo, imp.node("where", [above, hi, at_bound])])])


def _platform_index(imp, eqn):
    """lax.platform_dependent's branch index (jnp.diagonal picks a TPU kernel with it): the entry for
    "cpu" (frame's platform), else the default entry (None), as a constant; the cond it feeds then
    runs that branch."""
    platforms = eqn.params["platforms"]
    chosen = next((i for i, names in enumerate(platforms) if names is not None and "cpu" in names),
                  next((i for i, names in enumerate(platforms) if names is None), None))
    if chosen is None:
        from ..errors import FrameError
        raise FrameError(f"platform_index over {platforms}: no branch for cpu and no default branch")
    return imp.constant(np.asarray(chosen, np.dtype(eqn.outvars[0].aval.dtype)))


_LINEAR = irrelevant("which operands JAX knows the body to be linear in: a hint for its own transposition, "
                     "not a value")

TRANSLATIONS: dict[str, Callable] = {"cond": _cond, "scan": _scan, "while": _while, "clamp": _clamp,
                                     "platform_index": _platform_index}
PARAMETERS: dict[str, dict] = {
    "clamp": {},
    "cond": {"branches": implemented("the branches, imported as the regions of (nested) cond ops"),
             "linear": _LINEAR,
             "branches_platforms": irrelevant("which platform each branch is for; the index operand (a constant "
                                              "from platform_index) already picks the cpu or default branch")},
    "platform_index": {"platforms": implemented("the cpu entry, else the default one, picked at import"),
                       "has_default": irrelevant("whether the last entry is the default; platforms says it")},
    "scan": {"jaxpr": implemented("the body, imported as the scan's region"),
             "num_consts": implemented("the same num_consts: the first operands are the body's constants"),
             "num_carry": implemented("the same num_carry"),
             "length": implemented("the same length"),
             "reverse": implemented("the same direction"),
             "unroll": irrelevant("how many steps XLA unrolls into one loop iteration; the steps and values are "
                                  "the same"),
             "linear": _LINEAR,
             "_split_transpose": irrelevant("how JAX splits the transpose of a scan; a scheduling choice")},
    "while": {"cond_jaxpr": implemented("the predicate, imported as the while's cond_body region"),
              "body_jaxpr": implemented("the body, imported as the while's body region"),
              "cond_nconsts": implemented("the same cond_nconsts"),
              "body_nconsts": implemented("the same body_nconsts")},
}
