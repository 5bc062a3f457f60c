"""`frame.scipy`: scipy's functions that differentiable code calls, as `jax.scipy` offers them (`special`, `linalg`)."""
from . import linalg, special  # noqa: F401
