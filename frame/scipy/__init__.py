"""`frame.scipy`: scipy's functions that differentiable code calls, as `jax.scipy` offers them (`special`)."""
from . import special  # noqa: F401
