"""`frame.scipy`: scipy's functions that differentiable code calls, as `jax.scipy` offers them (`special`, `linalg`,
`stats`, `fft`, `signal`, `integrate`, `interpolate`, `ndimage`, `optimize`, `sparse.linalg`)."""
from . import fft, integrate, interpolate, linalg, ndimage, optimize, signal, sparse, special, stats  # noqa: F401
