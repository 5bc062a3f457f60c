"""User-defined derivative rules: `custom_vjp_call` and `custom_jvp_call` (issue 15, item 4).

`frame.custom_vjp` / `frame.custom_jvp` (frame/frontend/custom.py) trace the user's function and
rules into graphs and bind one of these ops; its attributes are those graphs, frozen (`FusedBody`:
immutable, hashed by text, printed nested and parsed back):

- `custom_vjp_call(*xs) {body, fwd, bwd}`: `body` is the function `[xs] -> [ys]`; `fwd` the user's
  forward rule `[xs] -> [ys..., residuals...]`; `bwd` the user's backward rule
  `[residuals..., gys...] -> [gx for each x]`.
- `custom_jvp_call(*xs) {body, jvp}`: `jvp` is the user's rule `[xs..., txs...] -> [ys..., tys...]`
  (a tangent per operand, of the operand's type; zeros for integer operands).

They are INTERNAL: users meet them through frame.custom_vjp / frame.custom_jvp, never by name.
Both are composites whose decomposition is `body`: the pipeline's `decompose` stage expands them
(after autodiff, which keeps composites that have a gradient rule), so backends meet only the
primal body's ops and the ops need no numpy or C facts; eager calls run the body.

Reverse mode. `custom_vjp_call`'s gradient inlines `fwd` on the operands to recompute the
residuals, then `bwd`. Recomputing rather than carrying the residuals as extra outputs keeps the
op's outputs the function's own, and keeps higher orders right: the derivative of the backward
graph flows through the residuals into `fwd`'s ops, as JAX's grad-of-grad does. Once `decompose`
expands the op, CSE merges `fwd`'s ops with the body's equal ones, so the recomputation is free
whenever `fwd` computes its output as the body does. `custom_jvp_call`'s gradient is the
transpose of the user's (linear in the tangents) rule, taken exactly by reverse mode through the
rule's graph: `vjp(gy) = d/dt sum(jvp(x, t) * gy)` at t = 0. Reverse mode lives in frame.compiler,
above this layer, so frame.frontend.custom installs it here (`install_reverse_mode`), as
frame.numpy attaches itself to the tracing core. The rules are frame graphs, so the gradients
are differentiable again, to any order.

Batching (`batch` facts, frame/ops/batching_rules.py): the graphs are batched themselves, so a
vmapped custom function keeps its rules. Forward mode (`jvp` facts, frame/compiler/forward.py): `custom_jvp_call`'s is the user's rule;
`custom_vjp_call` refuses with `GradientError`, as JAX refuses `jvp` of a custom_vjp function.
"""
from __future__ import annotations

import functools

import numpy as np

from ..errors import GradientError, ShapeError
from ..ir.clone import inline_graph
from ..ir.graph import Graph
from ..ir.registry import INTERNAL, NodeContext, register_op
from ..ir.types import TensorType
from ..tracing import Tracer, current_frame, lift, traced_gradient, traced_jvp
from .batching_rules import CUSTOM_JVP, CUSTOM_VJP
from .fused import FusedBody

_REVERSE_MODE: dict = {}   # "build_backward_graph": frame.compiler's, installed by frame.frontend.custom


def install_reverse_mode(build_backward_graph) -> None:
    """Give `custom_jvp_call`'s gradient rule reverse mode (frame.compiler sits above the op families)."""
    _REVERSE_MODE["build_backward_graph"] = build_backward_graph


def call(graph: Graph, *operands) -> list[Tracer]:
    """`graph` inlined into the rule being traced, its inputs bound to `operands` (tracers or arrays)."""
    frame = current_frame()
    return [Tracer(v, frame) for v in inline_graph(frame.graph, graph, [lift(x, frame) for x in operands])]


def _zeros(t: TensorType) -> np.ndarray:
    return np.zeros(t.shape, t.dtype)


def _types(values) -> list[TensorType]:
    return [v.type for v in values]


def _expect(ctx: NodeContext, what: str, got: list[TensorType], want: list[TensorType]) -> None:
    if got != want:
        name = ctx.attrs["body"].name
        raise ShapeError(f"op '{ctx.op}' (@{name}): {what} are ({', '.join(map(str, got))}), expected "
                         f"({', '.join(map(str, want))})")


# -- custom_vjp_call ------------------------------------------------------------------------------
def _vjp_call_shape(ctx: NodeContext):
    body, fwd, bwd = ctx.attrs["body"], ctx.attrs["fwd"], ctx.attrs["bwd"]
    xs, ys = list(ctx.input_types), _types(body.outputs)
    _expect(ctx, "the operands", xs, _types(body.inputs))
    _expect(ctx, "fwd's inputs", _types(fwd.inputs), xs)
    _expect(ctx, "fwd's first outputs", _types(fwd.outputs)[:len(ys)], ys)
    _expect(ctx, "bwd's inputs", _types(bwd.inputs), _types(fwd.outputs)[len(ys):] + ys)
    _expect(ctx, "bwd's outputs (one cotangent per operand)", _types(bwd.outputs), xs)
    return ys


def _vjp_call_gradient(ctx, xs, ys, gys):
    residuals = call(ctx.attrs["fwd"], *xs)[len(ys):]
    return call(ctx.attrs["bwd"], *residuals, *gys)


def _vjp_call_no_forward_mode(ctx: NodeContext, mask=None):
    raise GradientError(f"op 'custom_vjp_call' (@{ctx.attrs['body'].name}): forward-mode differentiation (jvp) of a "
                        "custom_vjp function is not defined: its rule gives vector-Jacobian products only (JAX refuses "
                        "it too). Define the function with frame.custom_jvp to use forward mode.")


register_op("custom_vjp_call", shape=_vjp_call_shape, decomposition=lambda ctx: ctx.attrs["body"],
            gradient=traced_gradient(_vjp_call_gradient), jvp=_vjp_call_no_forward_mode, traits=(INTERNAL,),
            attrs={"body": ((FusedBody,), True), "fwd": ((FusedBody,), True), "bwd": ((FusedBody,), True)},
            batch=CUSTOM_VJP, jax=lambda J, *xs, body, fwd, bwd: _jax_custom_vjp(J, xs, body, fwd, bwd),
            doc="a function with a user-defined VJP (frame.custom_vjp): body, fwd and bwd graphs")


# -- custom_jvp_call ------------------------------------------------------------------------------
def _jvp_call_shape(ctx: NodeContext):
    body, jvp = ctx.attrs["body"], ctx.attrs["jvp"]
    xs, ys = list(ctx.input_types), _types(body.outputs)
    _expect(ctx, "the operands", xs, _types(body.inputs))
    _expect(ctx, "jvp's inputs (primals, then tangents)", _types(jvp.inputs), xs + xs)
    _expect(ctx, "jvp's outputs (primal outputs, then tangents)", _types(jvp.outputs), ys + ys)
    return ys


def _jvp_call_forward(ctx, xs, ys, txs):
    tangents = [_zeros(x.type) if t is None else t for x, t in zip(xs, txs)]
    return call(ctx.attrs["jvp"], *xs, *tangents)[len(ys):]


@functools.lru_cache(maxsize=256)
def transpose_graph(jvp: FusedBody, n_inputs: int, name: str = "") -> Graph:
    """`[xs..., gys...] -> [gx for each x]`: the transpose of the linear map `t -> jvp(x, t)[tangents]`,
    as reverse mode through `d/dt sum(tangent_out * gy)` with the tangents t bound to zero."""
    build = _REVERSE_MODE.get("build_backward_graph")
    if build is None:
        raise GradientError("custom_jvp_call's gradient needs reverse mode: import frame (frame.frontend.custom "
                            "installs it)")
    xs_t = [v.type for v in jvp.inputs[:n_inputs]]
    n_out = len(jvp.outputs) // 2
    if any(t.is_complex for t in xs_t + [v.type for v in jvp.outputs]):
        raise GradientError(f"op 'custom_jvp_call' (@{name or jvp.name}): reverse mode through a custom_jvp rule with complex "
                            "operands or results is not supported (the transpose would need frame's complex pairing); "
                            "use frame.custom_vjp for it")
    contraction = Graph(f"{jvp.name}_contraction")
    xs = [contraction.add_input(t) for t in xs_t]
    ts = [contraction.add_input(t) for t in xs_t]
    tys = inline_graph(contraction, jvp, [*xs, *ts])[n_out:]
    gys = [contraction.add_input(v.type) for v in tys]
    terms = [contraction.add_node("sum", [contraction.add_node("mul", [ty, gy]).output],
                                  {"axes": tuple(range(ty.type.rank)), "keepdims": False}).output
             for ty, gy in zip(tys, gys) if ty.type.is_float]
    wrt = [n_inputs + i for i, t in enumerate(xs_t) if t.is_float]
    transpose = Graph(f"{jvp.name}_transpose")
    x_in = [transpose.add_input(t) for t in xs_t]
    gy_in = [transpose.add_input(v.type) for v in gys]
    zeros = {t: transpose.add_node("constant", [], {"value": _zeros(t)}).output for t in dict.fromkeys(xs_t)}
    grads = pairing_gradients(contraction, terms, wrt, build, transpose, [*x_in, *[zeros[t] for t in xs_t], *gy_in])
    for i, t in enumerate(xs_t):
        transpose.mark_output(grads.get(n_inputs + i, zeros[t]))
    return transpose


def pairing_gradients(contraction: Graph, terms: list, wrt: list[int], build, target: Graph, operands: list) -> dict:
    """Gradients of `sum(terms)`, the output `contraction` gets here, w.r.t. its inputs `wrt` (by
    `build`, reverse mode), inlined into `target` on `operands`: {input index: gradient}, {} when
    nothing is differentiable. The transposes of custom_jvp rules and the VJPs of region bodies
    (frame/ops/control.py) are such pairings."""
    if not terms or not wrt:
        return {}
    total = terms[0]
    for term in terms[1:]:
        total = contraction.add_node("add", [total, term]).output
    contraction.mark_output(total)
    return dict(zip(wrt, inline_graph(target, build(contraction, 0, wrt), operands)[1:]))


def _jvp_call_gradient(ctx, xs, ys, gys):
    return call(transpose_graph(ctx.attrs["jvp"], len(xs), ctx.attrs["body"].name), *xs, *gys)


register_op("custom_jvp_call", shape=_jvp_call_shape, decomposition=lambda ctx: ctx.attrs["body"],
            gradient=traced_gradient(_jvp_call_gradient), jvp=traced_jvp(_jvp_call_forward), traits=(INTERNAL,),
            attrs={"body": ((FusedBody,), True), "jvp": ((FusedBody,), True)},
            batch=CUSTOM_JVP, jax=lambda J, *xs, body, jvp: _jax_custom_jvp(J, xs, body, jvp),
            doc="a function with a user-defined JVP (frame.custom_jvp): body and jvp graphs")


# -- JAX lowerings: jax.custom_vjp / jax.custom_jvp over the bodies, each lowered by `J.call` ------
def _jax_custom_vjp(J, xs, body, fwd, bwd):
    n = len(body.outputs)
    floats = [v.type.is_inexact for v in body.inputs]
    fn = J.jax.custom_vjp(lambda *a: tuple(J.call(body, *a)))

    def fn_fwd(*a):
        outs = J.call(fwd, *a)
        return tuple(outs[:n]), tuple(outs[n:])

    def fn_bwd(residuals, gys):   # JAX takes None as the zero cotangent of an integer operand
        return tuple(g if f else None for g, f in zip(J.call(bwd, *residuals, *gys), floats))

    fn.defvjp(fn_fwd, fn_bwd)
    out = fn(*xs)
    return out[0] if n == 1 else out


def _jax_custom_jvp(J, xs, body, jvp):
    n = len(body.outputs)
    float0 = J.jax.dtypes.float0
    fn = J.jax.custom_jvp(lambda *a: tuple(J.call(body, *a)))

    def rule(primals, tangents):   # JAX's tangents of integers are float0; frame's are zeros of the integer type
        ts = [J.jnp.zeros(J.jnp.shape(p), v.type.dtype) if getattr(t, "dtype", None) == float0
              else J.jnp.asarray(t, v.type.dtype) for p, t, v in zip(primals, tangents, body.inputs)]
        outs = J.call(jvp, *primals, *ts)
        tys = [t if v.type.is_inexact else np.zeros(v.type.shape, float0) for t, v in zip(outs[n:], body.outputs)]
        return tuple(outs[:n]), tuple(tys)

    fn.defjvp(rule)
    out = fn(*xs)
    return out[0] if n == 1 else out
