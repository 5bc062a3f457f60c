"""`import frame.numpy as fnp`: frame's ops under numpy names (see `frame.frontend.numpy`), and numpy's
Python-level loops `vectorize` and `apply_along_axis` as `vmap` (`frame.frontend.vectorize`)."""
from .frontend.numpy import *  # noqa: F401,F403
from .frontend.numpy import __all__ as _names
from .frontend.vectorize import apply_along_axis, vectorize  # noqa: F401

__all__ = [*_names, "vectorize", "apply_along_axis"]
