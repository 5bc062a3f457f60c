"""The op registry (`find`, `all_ops`) and the op families that fill it."""
from ..ir.registry import (BILINEAR, COMPOSITE, ELEMENTWISE, INTERNAL, LINEAR, SIDE_EFFECT, NodeContext, OpSchema, all_ops, find,
                     get, register_op, unregister_op)
from ..tracing import install_operators, traced_decomposition, traced_gradient, traced_jvp
from . import core, elementwise, math, complex, reduce, linalg, shape, indexing, loss, nn, fft, conv, control, fused, custom, remat, random  # noqa: E402,F401  (registration order)

install_operators()  # Tracer's operators and ufuncs, from the blocks just registered

__all__ = ["OpSchema", "NodeContext", "find", "get", "all_ops", "register_op", "unregister_op", "traced_gradient",
           "traced_decomposition", "traced_jvp", "SIDE_EFFECT", "ELEMENTWISE", "LINEAR", "BILINEAR", "INTERNAL", "COMPOSITE"]
