"""`from_jax` rules for reductions: JAX primitives that are not one frame op.

`TRANSLATIONS`: primitive -> rule(importer, eqn, *operands) -> Value or [Value] (see jax_import);
`PARAMETERS`: primitive -> the audit of each of its parameters (jax_audit's vocabulary). Both are
merged into jax_import's tables.
"""
from __future__ import annotations

from typing import Callable

TRANSLATIONS: dict[str, Callable] = {}
PARAMETERS: dict[str, dict] = {}
