"""Core ops: `constant` (literal tensors) and `debug_print` (the side-effect op)."""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..ir.types import TensorType
from ..ir.registry import SIDE_EFFECT, NodeContext, arity, register_op
from ..tracing import prim
from .batching_rules import traced_batch


def _constant_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 0)
    value = ctx.attrs["value"]
    return [TensorType(value.shape, value.dtype.name)]


# A constant has no inputs, so its (empty) gradient rule is trivially closed.
register_op("constant", shape=_constant_shape, kernel=lambda value: value, num_inputs=0,
            attrs={"value": ((np.ndarray,), True)}, gradient=lambda ctx: _empty_gradient(ctx),
            doc="a literal tensor held in the `value` attribute", jax=lambda J, value: J.jnp.asarray(value))


def _empty_gradient(ctx):
    from ..ir.graph import Graph
    graph = Graph("constant_grad")
    for t in ctx.output_types * 2:  # y and gy are declared though unused
        graph.add_input(t)
    return graph


def _debug_print_shape(ctx: NodeContext):
    if len(ctx.input_types) != 1:
        raise ShapeError(f"op '{ctx.op}' takes 1 operand, got {len(ctx.input_types)}")
    return []


def _debug_print_kernel(x, fmt="{}"):
    print(fmt.format(x), flush=True)
    return ()


def _debug_print_jax(J, x, fmt="{}"):
    J.jax.debug.callback(lambda v: print(fmt.format(np.asarray(v)), flush=True), x)
    return ()


register_op("debug_print", shape=_debug_print_shape, kernel=_debug_print_kernel, num_inputs=1,
            attrs={"fmt": ((str,), False)}, traits=(SIDE_EFFECT,),
            # Batched, it prints the whole batch at once (one line, the batch axis leading).
            batch=traced_batch(lambda ctx, xs, batched, size: prim.debug_print(xs[0], **ctx.attrs) or []),
            doc="prints fmt.format(x) at run time; has no outputs and is never removed",
            jax=_debug_print_jax, frontend=["debug_print"])
