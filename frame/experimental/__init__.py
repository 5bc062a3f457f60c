"""`frame.experimental`: what JAX keeps under `jax.experimental` (`ode.odeint`)."""
from . import ode  # noqa: F401
