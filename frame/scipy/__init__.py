"""`frame.scipy`: scipy's functions that differentiable code calls, as `jax.scipy` offers them (`special`, `linalg`, `stats`)."""
from . import linalg, special, stats  # noqa: F401
