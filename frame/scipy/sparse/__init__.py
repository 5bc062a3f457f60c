"""`frame.scipy.sparse`: the iterative solvers of `linalg` (jax.scipy.sparse offers only those)."""
from . import linalg  # noqa: F401
