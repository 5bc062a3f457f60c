"""`to_jax`: lower a frame graph to a JAX function (SPEC §7a).

The lowering is the JAX oracle's independent reading of frame's IR: each op's semantics are
written a second time, in `jax.numpy`/`jax.lax`/`jax.nn`, as the `jax` fact of its registry
block (frame/ops/*.py). A name ("jnp.add", "lax.stop_gradient", "nn.relu") is looked up on the
namespace `J` below and called as `fn(*operands, **attrs)`; a function is called as
`fn(J, *operands, **attrs)`, so the blocks never import JAX. Either returns one array, or a tuple
for ops with several (or no) outputs. Lowerings never call frame's kernels: an oracle that reused
them would only check frame against itself. Only the pipeline's products, which evaluate their
body through the other lowerings, have theirs here (`PIPELINE_LOWERINGS`).
"""
from __future__ import annotations

import functools
from types import SimpleNamespace
from typing import Callable

import numpy as np

from ..errors import FrameError, InputError
from ..ir.graph import Graph
from ..ops import all_ops, find
from ._jax import require_jax, x64_enabled

jax = require_jax()
import jax.numpy as jnp  # noqa: E402

LoweringFn = Callable[..., object]
J = SimpleNamespace(jnp=jnp, lax=jax.lax, nn=jax.nn, jax=jax)   # what the blocks' `jax` facts are written over (+ `call`, below)


def _fused_elementwise(*operands, body):
    """The fused chain's body graph, each of its ops through its own lowering."""
    results = evaluate(body.nodes, dict(zip(body.inputs, operands)), body.outputs)
    return results[0] if len(results) == 1 else tuple(results)


PIPELINE_LOWERINGS: dict[str, LoweringFn] = {"fused_elementwise_internal": _fused_elementwise}


def lowering_for(op: str) -> LoweringFn:
    """`op`'s lowering `fn(*operands, **attrs)`, from its block's `jax` fact; `FrameError` naming the op if none."""
    if op in PIPELINE_LOWERINGS:
        return PIPELINE_LOWERINGS[op]
    schema = find(op)
    fact = None if schema is None else schema.jax
    if fact is None:
        raise FrameError(f"to_jax: op '{op}' has no JAX lowering (give its block in frame/ops/ a `jax` fact)")
    if callable(fact):
        return functools.partial(fact, J)
    try:
        return functools.reduce(getattr, fact.split("."), J)
    except AttributeError:
        raise FrameError(f"to_jax: op '{op}' names JAX lowering '{fact}', which this JAX does not have") from None


# -----------------------------------------------------------------------------------------------
def evaluate(nodes, env: dict, outputs) -> list:
    """Run `nodes` through their lowerings, reading and extending `env` (frame Value -> JAX array).

    Each result is checked against its node's type, so a wrong lowering fails naming its op.
    """
    for node in nodes:
        result = lowering_for(node.op)(*[env[v] for v in node.inputs], **node.attrs)
        results = [result] if len(node.outputs) == 1 else list(result)
        if len(results) != len(node.outputs):
            raise FrameError(f"to_jax: lowering of '{node.op}' gave {len(results)} results for "
                             f"{len(node.outputs)} outputs")
        for v, r in zip(node.outputs, results):
            if tuple(jnp.shape(r)) != v.type.shape or np.dtype(r.dtype).name != v.type.dtype:
                raise FrameError(f"to_jax: lowering of '{node.op}' gave {np.dtype(r.dtype).name}"
                                 f"{list(jnp.shape(r))}, but the op's type is {v.type}")
            env[v] = r
    return [env[v] for v in outputs]


def call(graph: Graph, *operands) -> list:
    """`graph` (a node's graph-valued attribute) on JAX arrays, each of its ops through its lowering:
    `J.call`, with which the custom-rule ops (frame/ops/custom.py) lower their bodies and rules."""
    return evaluate(graph.nodes, dict(zip(graph.inputs, operands)), graph.outputs)


J.call = call


def _needs_x64(graph: Graph) -> bool:
    types = [v.type for v in graph.inputs] + [v.type for n in graph.nodes for v in n.outputs]
    # 64-bit elements: complex64 is two 32-bit parts, complex128 two 64-bit ones
    return any(t.dtype in ("float64", "int64", "complex128") for t in types)


def _check_arg(graph: Graph, i: int, arg):
    t = graph.inputs[i].type
    if not hasattr(arg, "shape"):
        arg = jnp.asarray(arg, dtype=t.dtype)   # Python scalars take the input's dtype, as in Executable
    if tuple(arg.shape) != t.shape or np.dtype(arg.dtype).name != t.dtype:
        actual = f"{np.dtype(arg.dtype).name}{list(arg.shape)}"
        raise InputError(f"to_jax(@{graph.name}): input {i} expected {t.dtype}{list(t.shape)}, got {actual}",
                         i, t, actual)
    return arg


def to_jax(graph: Graph) -> Callable[..., list]:
    """Lower `graph` to a JAX-traceable function `f(*inputs) -> [outputs...]`.

    Every op goes through its block's `jax` lowering, so the result works under `jax.jit`,
    `jax.grad`, `jax.vmap` and friends. Inputs are checked against the graph's input types
    (`InputError` naming the position). Graphs with 64-bit types need JAX's x64 mode
    (`with jax.enable_x64(True): ...`); calling without it raises `FrameError` instead of
    letting JAX silently compute in 32 bits. Every node's lowered result is checked against
    the node's type, so a wrong lowering fails naming its op.
    """
    for node in graph.nodes:          # fail at lowering time, not deep inside a later JAX trace
        lowering_for(node.op)
    needs_x64 = _needs_x64(graph)
    nodes, inputs, outputs = list(graph.nodes), list(graph.inputs), list(graph.outputs)

    def lowered(*args):
        if needs_x64 and not x64_enabled():
            raise FrameError(f"to_jax(@{graph.name}): the graph uses 64-bit types but JAX's x64 mode is off; "
                             "call it inside `with jax.enable_x64(True):`")
        if len(args) != len(inputs):
            raise InputError(f"to_jax(@{graph.name}) takes {len(inputs)} input(s), got {len(args)}",
                             expected=len(inputs), actual=len(args))
        env = {v: _check_arg(graph, i, a) for i, (v, a) in enumerate(zip(inputs, args))}
        return evaluate(nodes, env, outputs)

    lowered.__name__ = f"{graph.name}_jax"
    lowered.__doc__ = f"JAX lowering of frame graph @{graph.name}."
    return lowered


def missing_lowerings() -> list[str]:
    """Registered ops with no JAX lowering, in their block or `PIPELINE_LOWERINGS` (the coverage test wants none)."""
    return sorted(s.name for s in all_ops() if s.jax is None and s.name not in PIPELINE_LOWERINGS)
