"""The user-facing layer: tracer, `frame.numpy`, pytrees and transforms."""
