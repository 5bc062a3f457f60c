"""The user-facing layer: tracer, `frame.numpy`, pytrees and transforms."""


def __getattr__(name):
    # Lazy: frame.ops imports frame.frontend.tracer while registering ops, before transforms can load.
    if name == "RetraceWarning":
        from .transforms import RetraceWarning
        return RetraceWarning
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["RetraceWarning"]
