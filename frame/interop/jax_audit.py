"""The vocabulary of `from_jax`'s parameter audit (`PARAMETERS` in jax_import and the family rule
modules `jax_rules_<family>.py`): what frame does with each parameter of a JAX primitive."""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from ._jax import require_jax

jax = require_jax()


class Decision(NamedTuple):
    """What frame does with one parameter of a JAX primitive, and why that is exact.

    kind: "implemented" (the rule reads it and reproduces its meaning), "irrelevant" (it does
    not change any value or derivative), or "checked" (`accepts(value, eqn)` says whether frame
    reproduces the value; other values are refused, `why` saying what is not supported).
    """
    kind: str
    why: str
    accepts: Callable | None = None


def implemented(why: str) -> Decision:
    return Decision("implemented", why)


def irrelevant(why: str) -> Decision:
    return Decision("irrelevant", why)


def checked(why: str, accepts: Callable) -> Decision:
    return Decision("checked", why, accepts)


def _is_none(value, eqn) -> bool:
    return value is None


def _operand_dtype(value, eqn) -> bool:
    return value is None or all(np.dtype(value) == np.dtype(v.aval.dtype) for v in eqn.invars)


def _precision_level(value, eqn) -> bool:
    levels = value if isinstance(value, tuple) else (value,)
    return all(p is None or isinstance(p, jax.lax.Precision) for p in levels)


def _increasing(value, eqn) -> bool:
    return all(a < b for a, b in zip(value, value[1:]))


_ACCURACY = checked("an accuracy request: frame computes with numpy/libm and promises no requested tolerance, "
                    "so only JAX's default accuracy=None imports", _is_none)
_SHARDING = irrelevant("device placement; values do not depend on it and frame runs on one device")
_PLACEMENT = irrelevant("placement, layout, buffer donation or compiler options of the call; not values")
_CUSTOM_RULE = implemented("the custom rule: refused unless inline_custom_derivatives=True drops it knowingly, "
                           "or the function is jax.nn.relu, whose rule is frame's relu rule")
_UNARY_FLOAT = {"accuracy": _ACCURACY}
