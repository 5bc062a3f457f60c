"""`to_jax`: lower a frame graph to a JAX function (SPEC §7a).

The lowering is the JAX oracle's independent reading of frame's IR: each op's semantics are
written a second time, in `jax.numpy`/`jax.lax`, in the `LOWERINGS` table below (one entry per
registered op, public and `*_internal` alike; `tests/interop/test_jax_lowering.py` enumerates
the registry and names any op without one). An entry has the same calling convention as the
op's numpy kernel, `lower(*operands, **attrs)`, and returns one array, or a tuple for ops with
several (or no) outputs. Entries never call frame's kernels: an oracle that reused them would
only check frame against itself.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..errors import FrameError, InputError
from ..ir.graph import Graph
from ._jax import require_jax, x64_enabled

jax = require_jax()
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

LoweringFn = Callable[..., object]
LOWERINGS: dict[str, LoweringFn] = {}


def register_lowering(op: str, fn: LoweringFn | None = None):
    """Add the JAX lowering of `op` to the table (usable as a decorator). Each op has exactly one."""

    def add(f: LoweringFn) -> LoweringFn:
        if op in LOWERINGS:
            raise ValueError(f"op '{op}' already has a JAX lowering")
        LOWERINGS[op] = f
        return f

    return add(fn) if fn is not None else add


def lowering_for(op: str) -> LoweringFn:
    """The table entry for `op`; `FrameError` naming the op when there is none."""
    fn = LOWERINGS.get(op)
    if fn is None:
        raise FrameError(f"to_jax: op '{op}' has no JAX lowering (add one to frame/interop/jax_lowering.py)")
    return fn


def _index(starts, stops, steps):
    return tuple(slice(a, b, s) for a, b, s in zip(starts, stops, steps))


def _pow(x, exponent):
    # Integral exponents go through integer_pow, exactly defined for negative bases (as np.power is).
    if float(exponent).is_integer():
        return lax.integer_pow(x, int(exponent))
    return jnp.power(x, jnp.asarray(exponent, x.dtype))


def _sum_grad(gy, input_shape, axes):
    if gy.ndim != len(input_shape):   # gy came from sum(keepdims=False): put the reduced axes back
        gy = jnp.expand_dims(gy, axes)
    return jnp.broadcast_to(gy, input_shape)


def _debug_print(x, fmt="{}"):
    jax.debug.callback(lambda v: print(fmt.format(np.asarray(v)), flush=True), x)
    return ()


# -- core ---------------------------------------------------------------------------------------
register_lowering("constant", lambda value: jnp.asarray(value))
register_lowering("debug_print", _debug_print)

# -- elementwise --------------------------------------------------------------------------------
register_lowering("add", jnp.add)
register_lowering("sub", jnp.subtract)
register_lowering("mul", jnp.multiply)
register_lowering("div", jnp.divide)
register_lowering("neg", jnp.negative)
register_lowering("square", lambda x: x * x)
register_lowering("exp", jnp.exp)
register_lowering("log", jnp.log)
register_lowering("sin", jnp.sin)
register_lowering("cos", jnp.cos)
register_lowering("tanh", jnp.tanh)
register_lowering("sqrt", jnp.sqrt)
register_lowering("sigmoid", jax.nn.sigmoid)
register_lowering("relu", jax.nn.relu)   # its custom JVP takes 0 at the kink, as frame's rule does
register_lowering("pow", _pow)
register_lowering("stop_gradient", lax.stop_gradient)
register_lowering("relu_grad_internal", lambda x, gy: jnp.where(x > 0, gy, jnp.zeros((), gy.dtype)))

# -- reductions ---------------------------------------------------------------------------------
register_lowering("sum", lambda x, axes, keepdims=False: jnp.sum(x, axis=axes, keepdims=keepdims))
register_lowering("mean", lambda x, axes, keepdims=False: jnp.mean(x, axis=axes, keepdims=keepdims))
register_lowering("sum_grad_internal", _sum_grad)

# -- linear algebra -----------------------------------------------------------------------------
register_lowering("matmul", jnp.matmul)
register_lowering("matmul_grad_lhs_internal", lambda gy, b: jnp.matmul(gy, jnp.swapaxes(b, -1, -2)))
register_lowering("matmul_grad_rhs_internal", lambda a, gy: jnp.matmul(jnp.swapaxes(a, -1, -2), gy))

# -- shape --------------------------------------------------------------------------------------
register_lowering("reshape", lambda x, shape: jnp.reshape(x, shape))
register_lowering("transpose", lambda x, perm: jnp.transpose(x, perm))
register_lowering("broadcast_to", lambda x, shape: jnp.broadcast_to(x, shape))
register_lowering("concat", lambda *xs, axis: jnp.concatenate(xs, axis=axis))
register_lowering("slice", lambda x, starts, stops, steps: x[_index(starts, stops, steps)])
register_lowering("slice_grad_internal", lambda gy, input_shape, starts, stops, steps:
                  jnp.zeros(input_shape, gy.dtype).at[_index(starts, stops, steps)].set(gy))

# -- losses -------------------------------------------------------------------------------------
register_lowering("mse_loss", lambda pred, target: jnp.mean(jnp.square(pred - target)))
register_lowering("mse_loss_grad_internal",
                  lambda pred, target, gy: (pred - target) * (gy * (2.0 / max(pred.size, 1))))

# -- neural-network composites (written directly, not through frame's decompositions) -------------
def _layer_norm(x, axes, eps):
    centred = x - jnp.mean(x, axis=axes, keepdims=True)
    return centred / jnp.sqrt(jnp.var(x, axis=axes, keepdims=True) + jnp.asarray(eps, x.dtype))


register_lowering("softplus", jax.nn.softplus)
register_lowering("gelu", lambda x: jax.nn.gelu(x, approximate=True))
register_lowering("softmax", lambda x, axis: jax.nn.softmax(x, axis=axis))
register_lowering("log_softmax", lambda x, axis: jax.nn.log_softmax(x, axis=axis))
register_lowering("layer_norm", _layer_norm)
# frame defines the shift's derivative as zero (it cancels in the softmax family): mirror that, so
# the oracle checks frame's op as defined rather than flagging the declared convention.
register_lowering("max_shift_internal", lambda x, axes: lax.stop_gradient(jnp.max(x, axis=axes, keepdims=True)))


# -- FFT (complex spectra packed as a trailing (re, im) axis) -------------------------------------
def _rfft(x):
    spectrum = jnp.fft.rfft(x, axis=-1)
    return jnp.stack([jnp.real(spectrum), jnp.imag(spectrum)], axis=-1).astype(x.dtype)


def _irfft(spec, n):
    spectrum = lax.complex(spec[..., 0], spec[..., 1])
    return jnp.fft.irfft(spectrum, n=n, axis=-1).astype(spec.dtype)


register_lowering("rfft", _rfft)
register_lowering("irfft", _irfft)


# -- pipeline products ----------------------------------------------------------------------------
def _fused_elementwise(*operands, body):
    """The fused chain's body graph, each of its ops through its own lowering."""
    from ..ops.fused import body_graph

    graph = body_graph(body)
    results = evaluate(graph.nodes, dict(zip(graph.inputs, operands)), graph.outputs)
    return results[0] if len(results) == 1 else tuple(results)


register_lowering("fused_elementwise_internal", _fused_elementwise)


# -----------------------------------------------------------------------------------------------
def evaluate(nodes, env: dict, outputs) -> list:
    """Run `nodes` through their lowerings, reading and extending `env` (frame Value -> JAX array).

    Each result is checked against its node's type, so a wrong table entry fails naming its op.
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


def _needs_x64(graph: Graph) -> bool:
    types = [v.type for v in graph.inputs] + [v.type for n in graph.nodes for v in n.outputs]
    return any(np.dtype(t.dtype).itemsize == 8 for t in types)


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

    Every op goes through its entry in `LOWERINGS`, so the result works under `jax.jit`,
    `jax.grad`, `jax.vmap` and friends. Inputs are checked against the graph's input types
    (`InputError` naming the position). Graphs with 64-bit types need JAX's x64 mode
    (`with jax.enable_x64(True): ...`); calling without it raises `FrameError` instead of
    letting JAX silently compute in 32 bits. Every node's lowered result is checked against
    the node's type, so a wrong table entry fails naming its op.
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
    """Registered ops that have no entry in `LOWERINGS` (the coverage test wants this empty)."""
    from ..ops.schema import all_ops
    return sorted(s.name for s in all_ops() if s.name not in LOWERINGS)
