"""Loading JAX for `frame.interop`, the only part of frame that may import it (SPEC §2)."""
from __future__ import annotations

from ..errors import FrameError


def require_jax():
    """Import and return the `jax` module, or raise `FrameError` saying how to get it."""
    try:
        import jax
    except ImportError as e:
        raise FrameError(f"frame.interop needs JAX, which could not be imported ({e}); "
                         "install it with `pip install jax` (or `pip install -e '.[test]'`)") from None
    return jax


def x64_enabled() -> bool:
    """Whether JAX currently allows 64-bit arrays (`jax_enable_x64`)."""
    return bool(require_jax().config.read("jax_enable_x64"))
