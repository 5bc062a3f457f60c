"""frame: compile-first differentiable programming.

A tracer turns Python functions into frame's graph IR; reverse-mode autodiff is a graph-to-graph
transform (higher orders by re-applying it); a nine-stage pipeline optimises graphs and a numpy
backend runs them. JAX is only an independent oracle (`frame.interop`).
"""
from .errors import (CheckpointError, FrameError, GradientError, InputError, LinAlgError, OracleMismatch, ShapeError,
                     TraceError, TrainingError, VerifyError)
from . import ir, ops  # noqa: E402  (registers every op)
from . import numpy  # noqa: E402,F401
from .frontend.pytree import tree_flatten, tree_leaves, tree_map, tree_unflatten
from .frontend.tracer import ShapeDtype, trace
from .frontend.transforms import RetraceWarning, function, grad, stop_gradient, value_and_grad, vjp
from .frontend.transforms import function as jit   # jax.jit's name, for code ported from JAX
from .frontend.jacobians import hessian, jacfwd, jacrev, jvp, linearize
from .frontend.batching import vmap
from .frontend.custom import custom_jvp, custom_vjp
from .frontend.taylor import directional_derivatives, jet, laplacian
from .frontend.control import cond, fori_loop, scan, switch, while_loop
from .frontend.sequence import associative_scan, segment_max, segment_min, segment_prod, segment_sum
from .frontend.remat import checkpoint, checkpoint_name, checkpoint_policies, remat
from . import nn  # noqa: E402
from . import scipy  # noqa: E402  (frame.scipy.special; scipy's kernels load on first use)
from . import random  # noqa: E402
from . import lax, optax, tree, tree_util  # noqa: E402
from . import compiler, runtime  # noqa: E402
from .runtime.memory import memory_report
from . import train  # noqa: E402  (scipy and tqdm load only when used)
from . import interop  # noqa: E402  (JAX loads lazily, on first use of an interop name)
from .frontend.numpy import debug_print
from .frontend.jax_api import (ShapeDtypeStruct, block_until_ready, default_backend, device_count, device_get,
                               device_put, devices, eval_shape, jacobian, linear_transpose, local_device_count,
                               local_devices, named_scope)

__version__ = "0.1.0"
__all__ = ["trace", "function", "jit", "grad", "eval_shape", "jacobian", "linear_transpose", "block_until_ready", "device_get",
           "device_put", "devices", "local_devices", "device_count", "local_device_count", "default_backend",
           "named_scope", "ShapeDtypeStruct", "value_and_grad", "vjp", "jvp", "vmap", "linearize", "jacfwd", "jacrev", "hessian", "custom_vjp", "custom_jvp", "jet", "directional_derivatives", "laplacian", "stop_gradient", "ShapeDtype",
           "cond", "switch", "while_loop", "fori_loop", "scan", "associative_scan", "segment_sum", "segment_prod", "segment_max", "segment_min",
           "checkpoint", "checkpoint_name", "checkpoint_policies", "remat", "memory_report",
           "debug_print", "FrameError", "VerifyError", "ShapeError", "GradientError", "TraceError", "InputError",
           "OracleMismatch", "TrainingError", "CheckpointError", "LinAlgError", "RetraceWarning", "tree_flatten", "tree_unflatten", "tree_map", "tree_leaves", "tree", "tree_util", "lax", "optax", "ir",
           "ops", "numpy", "nn", "compiler", "runtime", "train", "interop"]
