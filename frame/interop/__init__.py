"""JAX interop: lowering to JAX, importing from JAX, and the derivative oracle. The only place frame imports JAX.

- `to_jax(graph)`: a frame graph as a JAX function (every op, public and internal).
- `from_jax(fn, *example_args)`: a JAX function's jaxpr as a frame graph.
- `check_derivatives(fn, *args, orders=(1, 2), ...)`: frame's first/second derivatives
  cross-checked against `jax.grad`/`jax.hessian`/`jax.jvp` of the independently lowered graph.

JAX is imported on first use of one of these names, so `import frame` (and this package) work
without JAX installed; using them then raises `FrameError` saying how to install it.
"""
from __future__ import annotations

import importlib

_EXPORTS = {
    "to_jax": "jax_lowering", "missing_lowerings": "jax_lowering",
    "from_jax": "jax_import",
    "check_derivatives": "oracle", "OracleReport": "oracle", "OracleEntry": "oracle",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'frame.interop' has no attribute '{name}'")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
