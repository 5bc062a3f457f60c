"""`import frame.numpy as fnp`: frame's ops under numpy names (see `frame.frontend.numpy`)."""
from .frontend.numpy import *  # noqa: F401,F403
from .frontend.numpy import __all__  # noqa: F401
