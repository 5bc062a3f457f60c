"""`from_jax` rules for rematerialisation (issue 17, item 4): `name` (jax.ad_checkpoint.checkpoint_name).

- `name` imports as frame's `checkpoint_name` (frame/ops/remat.py): the same value, named for the
  save_only_these_names policy of a checkpoint around it.

- `remat2` (jax.checkpoint / jax.remat) imports as frame's `checkpoint` region with the same
  policy when frame has it (None and `nothing_saveable`, `everything_saveable`, `dots_saveable`,
  `save_only_these_names(...)`), so the imported gradient recomputes what JAX's does. Any other
  policy (`dots_with_no_batch_dims_saveable`, offloading, a user's callable) is inlined: values
  and derivatives are the same, only the memory saving is lost.

`TRANSLATIONS`: primitive -> rule(importer, eqn, *operands) -> [Value]; `PARAMETERS`: the audit of
each parameter (jax_audit's vocabulary). Both are merged into jax_import's tables.
"""
from __future__ import annotations

from typing import Callable

from .jax_audit import implemented, irrelevant


def _name(imp, eqn, x):
    return imp.node("checkpoint_name", [x], name=str(eqn.params["name"]))


def _policy(policy) -> tuple[str, tuple[str, ...]] | None:
    """frame's (policy, names) for JAX's `policy` parameter, or None when frame has no such policy."""
    import jax

    cp = jax.checkpoint_policies
    if policy is None or policy is cp.nothing_saveable:
        return "nothing_saveable", ()
    if policy is cp.everything_saveable:
        return "everything_saveable", ()
    if type(policy).__name__ == "DotsSaveable" and not getattr(policy, "only_if_no_batch_dims", True):
        return "dots_saveable", ()
    names = getattr(policy, "saveable_names", None)
    if type(policy).__name__ == "SaveOnlyTheseNames" and names is not None:
        return "save_only_these_names", tuple(sorted(str(n) for n in names))
    return None


def _remat(imp, eqn, *operands):
    chosen = _policy(eqn.params["policy"])
    body = eqn.params["jaxpr"]
    if chosen is None:   # a policy frame cannot name: the body inline (same values and derivatives)
        jaxpr, consts = (body.jaxpr, body.consts) if hasattr(body, "consts") else (body, ())
        return imp.run(jaxpr, consts, list(operands), " inside remat2")
    policy, names = chosen
    region = imp.region(body, "checkpoint", " inside remat2")
    node = imp.graph.add_node("checkpoint", list(operands), {"body": region, "policy": policy, "names": names,
                                                             "prevent_cse": bool(eqn.params["prevent_cse"])})
    return list(node.outputs)


TRANSLATIONS: dict[str, Callable] = {"name": _name, "remat2": _remat}
PARAMETERS: dict[str, dict] = {
    "name": {"name": implemented("checkpoint_name's name: the same string, read by save_only_these_names")},
    "remat2": {"jaxpr": implemented("the region's body"),
               "prevent_cse": implemented("the checkpoint region's prevent_cse"),
               "differentiated": irrelevant("bookkeeping of JAX's autodiff"),
               "policy": implemented("the region's policy when frame has it; otherwise the body is inlined "
                                     "(memory only: values and derivatives are the same)")},
}
