"""`frame.scipy`: scipy's functions that differentiable code calls, as `jax.scipy` offers them (`special`, `linalg`,
`stats`, `fft`, `signal`, `integrate`, `interpolate`, `ndimage`)."""
from . import fft, integrate, interpolate, linalg, ndimage, signal, special, stats  # noqa: F401
