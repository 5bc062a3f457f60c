"""`from_jax` rules for rematerialisation (issue 17, item 4): `name` (jax.ad_checkpoint.checkpoint_name).

- `name` imports as frame's `checkpoint_name` (frame/ops/remat.py): the same value, named for the
  save_only_these_names policy of a checkpoint around it.

`remat2` (jax.checkpoint / jax.remat) is one of jax_import's calls, inlined (the values are the
same; the region and its policy are not kept).

`TRANSLATIONS`: primitive -> rule(importer, eqn, *operands) -> [Value]; `PARAMETERS`: the audit of
each parameter (jax_audit's vocabulary). Both are merged into jax_import's tables.
"""
from __future__ import annotations

from typing import Callable

from .jax_audit import implemented


def _name(imp, eqn, x):
    return imp.node("checkpoint_name", [x], name=str(eqn.params["name"]))


TRANSLATIONS: dict[str, Callable] = {"name": _name}
PARAMETERS: dict[str, dict] = {
    "name": {"name": implemented("checkpoint_name's name: the same string, read by save_only_these_names")},
}
