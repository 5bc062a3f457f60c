"""The user-facing layer: tracing user functions, `frame.numpy`, pytrees and transforms."""
from .transforms import RetraceWarning

__all__ = ["RetraceWarning"]
