"""Rematerialisation (issue 17, item 4): `checkpoint`, `remat_barrier` and `checkpoint_name`.

`frame.checkpoint(f)` (frame/frontend/remat.py) traces `f` into a region and binds one node

    checkpoint(*xs) {body, policy, names, prevent_cse}

with `jax.checkpoint`'s meaning: its values are `body`'s, bit for bit (it is a composite whose
decomposition is `body`, so after `decompose` the forward computes exactly the ops `f` traced to),
but its gradient does not read the body's intermediates: it RECOMPUTES them from the operands
inside the backward part. The layout is the region machinery of frame/ops/control.py (a closed
body frozen as a `FusedBody`, printed nested and parsed back, hashed by its text).

Reverse mode (`_gradient`). The gradient is a second `checkpoint` node whose body is the VJP of
`body` (frame/ops/control.py's `vjp_body`: the body's forward ops, then their derivatives), taking
`[xs..., saved..., gys...]`: the values live between forward and backward are only the operands
(and what the policy saves). Its operands go through `remat_barrier(x) {region}` first: an
identity whose result no pass identifies with `x` (CSE merges nodes with the same operands, and the
barrier's result is another value; fold, simplify and fuse have no rule that sees through it), so
the recomputation cannot be merged back into the forward (`prevent_cse`, JAX's name; JAX puts an
`optimization_barrier` there for XLA). `region` (a digest of the body) keeps the barriers of two
different regions on one value apart, so the recomputations of different regions are not merged
into one long-lived copy either. The recomputation runs where the backward part reaches the region:
the backends run a graph in its order, and the gradient's nodes come after the forward's (a
data dependence on the cotangents would say the same, but would tie a parameter's barrier to the
rows of the cotangents and keep the row partition, frame/compiler/rows.py, from running the graph
in chunks).

In a graph differentiated again (grad of grad, a PINN's loss on u_xx), `build_backward_graph`
retires the barriers of the inner derivation first (`retire_barriers`): its recomputations run in
the new forward part, where they save nothing, so CSE may merge them with the forward; the
checkpoint regions stay, and the outer derivation's gradients of them recompute behind barriers of
their own. Only the outermost derivation recomputes, once per region.

The backward is a `checkpoint` again, so the outer gradient of it recomputes it (and what it
recomputes) in its turn; nested checkpoints are checkpoints inside bodies, differentiated by the
same rule.

Policies (attribute `policy`, JAX's `jax.checkpoint_policies`): `nothing_saveable` (the default:
recompute everything), `everything_saveable` (the gradient is the plain VJP inlined: CSE shares
the forward's values, as without checkpoint), `dots_saveable` (the results of `matmul` nodes are
kept), `save_only_these_names` (the results of `checkpoint_name(x, name)` markers whose name is in
`names` are kept). A saved value is computed by the residual graph (the body cut at the saved
nodes, inlined without a barrier, so CSE merges it with the forward's and the forward's value is
the one kept); in the backward body the saved node is replaced by a `custom_vjp_call` whose value
is the saved input and whose VJP is the node's own gradient rule evaluated on the recomputed
operands (so the cotangent still flows through the saved node to what it was computed from).

Forward mode and batching keep the region: `jvp` is a `checkpoint` of the body's tangent graph (its
primal part merges with the forward by CSE, as it should: forward mode saves nothing), `vmap` a
`checkpoint` of the batched body. `checkpoint_name` is an identity marker, decomposed away after
autodiff; `remat_barrier` reaches the backends (an identity their kernels run as one call, VIEW:
its result is its operand).
"""
from __future__ import annotations

import functools
import hashlib

import numpy as np

from ..errors import ShapeError
from ..ir.clone import copy_nodes, inline_graph
from ..ir.graph import Graph, Value
from ..ir.registry import INTERNAL, VIEW, NodeContext, get, register_op
from ..ir.types import TensorType
from ..tracing import bind, traced_gradient, traced_jvp
from . import control
from .batching_rules import traced_batch
from .fused import FusedBody
from . import rows_rules

POLICIES = ("nothing_saveable", "everything_saveable", "dots_saveable", "save_only_these_names")
DOT_OPS = ("matmul",)   # dots_saveable keeps these results (JAX: dot_general)


def _types(values) -> list[TensorType]:
    return [v.type for v in values]


def _fmt(types) -> str:
    return "(" + ", ".join(map(str, types)) + ")"


# ---------------------------------------------------------------------------------------------
# checkpoint_name: an identity marker naming a value for save_only_these_names

def _name_shape(ctx: NodeContext):
    if len(ctx.input_types) != 1:
        raise ShapeError(f"op '{ctx.op}' takes one operand, got {len(ctx.input_types)}")
    name = ctx.attrs.get("name")
    if not isinstance(name, str) or not name:
        raise ShapeError(f"op '{ctx.op}': attribute 'name' must be a non-empty string, got {name!r}")
    return [ctx.input_types[0]]


def _identity_graph(ctx: NodeContext) -> Graph:
    g = Graph(f"{ctx.op}_identity")
    g.mark_output(g.add_input(ctx.input_types[0]))
    return g


def _jax_checkpoint_name(x, name):
    from jax.ad_checkpoint import checkpoint_name   # (the lowering runs with JAX loaded: frame.interop's)
    return checkpoint_name(x, name)


register_op("checkpoint_name", shape=_name_shape, kernel=lambda x, name: x, num_inputs=1, traits=(INTERNAL,),
            decomposition=_identity_graph, attrs={"name": ((str,), True)},
            gradient=traced_gradient(lambda ctx, xs, ys, gys: [gys[0]]),
            jvp=traced_jvp(lambda ctx, xs, ys, txs: [None if txs[0] is None else
                                                     bind("checkpoint_name", txs[0], name=ctx.attrs["name"])]),
            batch=traced_batch(lambda ctx, xs, batched, size: [bind("checkpoint_name", xs[0], name=ctx.attrs["name"])]),
            jax=lambda J, x, name: _jax_checkpoint_name(x, name),
            doc="x, named `name` for checkpoint's save_only_these_names policy (jax.ad_checkpoint.checkpoint_name)")


# ---------------------------------------------------------------------------------------------
# remat_barrier: x, as a value no pass identifies with x (the recomputation's operands)

def _barrier_shape(ctx: NodeContext):
    if len(ctx.input_types) != 1:
        raise ShapeError(f"op '{ctx.op}' takes one operand, got {len(ctx.input_types)}")
    if not isinstance(ctx.attrs.get("region"), str):
        raise ShapeError(f"op '{ctx.op}': attribute 'region' must be a string, got {ctx.attrs.get('region')!r}")
    return [ctx.input_types[0]]


register_op("remat_barrier", shape=_barrier_shape, kernel=lambda x, region: x, num_inputs=1, traits=(INTERNAL, VIEW),
            attrs={"region": ((str,), True)},
            gradient=traced_gradient(lambda ctx, xs, ys, gys: [gys[0]]),
            jvp=traced_jvp(lambda ctx, xs, ys, txs: [txs[0]]),
            batch=traced_batch(lambda ctx, xs, batched, size: [bind("remat_barrier", xs[0],
                                                                    region=ctx.attrs["region"])]),
            rows=rows_rules.elementwise,
            jax=lambda J, x, region: J.lax.optimization_barrier(x),
            doc="x itself, as a value no pass merges with x: what is computed from it is computed again "
                "(checkpoint's recomputation; lax.optimization_barrier); `region` names the region it feeds")


# ---------------------------------------------------------------------------------------------
# checkpoint

def _policy(ctx: NodeContext) -> tuple[str, tuple]:
    policy, names = ctx.attrs.get("policy", "nothing_saveable"), ctx.attrs.get("names", ())
    if policy not in POLICIES:
        raise ShapeError(f"op '{ctx.op}': unknown policy {policy!r}; policies are {', '.join(POLICIES)}")
    if not isinstance(names, tuple) or not all(isinstance(n, str) for n in names):
        raise ShapeError(f"op '{ctx.op}': attribute 'names' must be a tuple of strings, got {names!r}")
    return policy, names


def _checkpoint_shape(ctx: NodeContext):
    body = control._region(ctx, "body")
    _policy(ctx)
    if list(ctx.input_types) != _types(body.inputs):
        raise ShapeError(f"op '{ctx.op}' (@{body.name}): the operands {_fmt(ctx.input_types)} do not match the body's "
                         f"inputs {_fmt(_types(body.inputs))}")
    return _types(body.outputs)


def saved_nodes(body: Graph, policy: str, names: tuple = ()) -> list[int]:
    """Positions in `body.nodes` of the nodes whose (float) results `policy` keeps for the backward."""
    if policy in ("nothing_saveable", "everything_saveable"):
        return []
    wanted = set(names)
    out = []
    for i, node in enumerate(body.nodes):
        if not node.outputs or not all(v.type.is_float for v in node.outputs):
            continue
        if policy == "dots_saveable" and node.op in DOT_OPS:
            out.append(i)
        elif policy == "save_only_these_names" and node.op == "checkpoint_name" and node.attrs["name"] in wanted:
            out.append(i)
    return out


@functools.lru_cache(maxsize=512)
def residual_graph(body: FusedBody, saved: tuple[int, ...]) -> FusedBody:
    """`[xs...] -> [results of the saved nodes...]`: the body cut at the saved nodes (DNE drops the rest)."""
    g = Graph(f"{body.name}_residuals")
    vmap: dict[Value, Value] = {v: g.add_input(v.type) for v in body.inputs}
    copy_nodes(g, body.nodes, vmap)
    for i in saved:
        for v in body.nodes[i].outputs:
            g.mark_output(vmap[v])
    return FusedBody.of(control._transform("dne")(g))


def _saved_value(op: str, in_types: tuple, out_types: tuple, attrs: dict) -> tuple:
    """(body, fwd, bwd) graphs of the `custom_vjp_call` standing for a saved node: its value is the
    saved result (the operands after the node's own), its VJP the node's gradient rule on them."""
    n_in = len(in_types)
    body = Graph(f"saved_{op}")
    for t in in_types:
        body.add_input(t)
    res = [body.add_input(t) for t in out_types]
    for v in res:
        body.mark_output(v)
    fwd = Graph(f"saved_{op}_fwd")
    f_ins = [fwd.add_input(t) for t in in_types + out_types]
    for v in f_ins[n_in:] + f_ins:
        fwd.mark_output(v)
    bwd = Graph(f"saved_{op}_bwd")
    b_ins = [bwd.add_input(t) for t in in_types + out_types + out_types]
    micro = get(op).gradient(NodeContext(op, list(in_types), attrs))
    for v in inline_graph(bwd, micro, b_ins):
        bwd.mark_output(v)
    for t in out_types:   # the saved operand takes no cotangent: its value stands for the node's
        bwd.mark_output(bwd.add_node("constant", [], {"value": np.zeros(t.shape, t.dtype)}).output)
    return FusedBody.of(body), FusedBody.of(fwd), FusedBody.of(bwd)


@functools.lru_cache(maxsize=512)
def backward_body(body: FusedBody, saved: tuple[int, ...]) -> FusedBody:
    """`[xs..., saved results..., cotangent of each out...] -> [cotangent of each x]`: the body's VJP,
    its forward recomputed but for the saved nodes, whose results are read from the saved inputs."""
    n = len(body.inputs)
    if saved:
        cut = Graph(f"{body.name}_cut")
        vmap: dict[Value, Value] = {v: cut.add_input(v.type) for v in body.inputs}
        saved_set = set(saved)
        residuals = {i: [cut.add_input(v.type) for v in body.nodes[i].outputs] for i in saved}
        for i, node in enumerate(body.nodes):
            if i not in saved_set:
                copy_nodes(cut, [node], vmap)
                continue
            sbody, sfwd, sbwd = _saved_value(node.op, tuple(_types(node.inputs)), tuple(_types(node.outputs)),
                                             dict(node.attrs))
            stand_in = cut.add_node("custom_vjp_call", [vmap[v] for v in node.inputs] + residuals[i],
                                    {"body": sbody, "fwd": sfwd, "bwd": sbwd})
            vmap.update(zip(node.outputs, stand_in.outputs))
        for v in body.outputs:
            cut.mark_output(vmap[v])
        source = FusedBody.of(cut)
    else:
        source = body
    vjp = control.vjp_body(source)   # [xs..., saved..., cts...] -> [gx..., g_saved...]
    return control.rearranged(vjp, _types(vjp.inputs), range(len(vjp.inputs)), range(n), name=f"{body.name}_remat_vjp")


def _gradient(ctx, xs, ys, gys):
    body = ctx.attrs["body"]
    policy, names = _policy(ctx)
    if not any(t.is_inexact for t in ctx.input_types):
        return [None] * len(xs)
    control._no_complex(ctx.op, body, "reverse mode")
    if policy == "everything_saveable":
        # Keep everything: the plain VJP inlined, its forward part merged with the forward's by CSE.
        return control._call(control.vjp_body(body), *xs, *gys)
    saved = tuple(saved_nodes(body, policy, names))
    residuals = control._call(residual_graph(body, saved), *xs) if saved else []
    prevent_cse = bool(ctx.attrs.get("prevent_cse", True))
    # The saved values go through the barrier too: what the backward computes from them (tanh of a saved
    # product) is recomputed, not merged with the forward's value, which the policy did not save.
    operands = [*xs, *residuals]
    if prevent_cse:
        region = hashlib.sha1(str(body).encode()).hexdigest()[:16]
        operands = [bind("remat_barrier", x, region=region) for x in operands]
    return control._as_list(bind("checkpoint", *operands, *gys, body=backward_body(body, saved),
                                 policy=policy, names=names, prevent_cse=prevent_cse))


def _refusals(ctx: NodeContext) -> dict:
    return control.vjp_refusals(ctx.attrs["body"]) if any(t.is_inexact for t in ctx.input_types) else {}


def _region_attrs(ctx: NodeContext, body: FusedBody) -> dict:
    policy, names = _policy(ctx)
    return {"body": body, "policy": policy, "names": names, "prevent_cse": bool(ctx.attrs.get("prevent_cse", True))}


def _jvp(ctx, xs, ys, txs):
    body = ctx.attrs["body"]
    control._no_complex(ctx.op, body, "forward mode")
    wrt = tuple(i for i, t in enumerate(txs) if t is not None)
    if not wrt:
        return [None] * len(ys)
    tbody = control.tangent_body(body, wrt, False)
    return control._as_list(bind("checkpoint", *xs, *[txs[i] for i in wrt], **_region_attrs(ctx, tbody)))


def _batch(ctx, xs, batched, size):
    body = ctx.attrs["body"]
    in_axes = tuple(0 if b else None for b in batched)
    out_axes = tuple(0 for _ in body.outputs)
    return control._as_list(bind("checkpoint", *xs, **_region_attrs(ctx, control.batched_body(body, in_axes, size,
                                                                                               out_axes))))


def _checkpoint_jax(J, *xs, body, policy="nothing_saveable", names=(), prevent_cse=True):
    cp = J.jax.checkpoint_policies
    jax_policy = {"nothing_saveable": cp.nothing_saveable, "everything_saveable": cp.everything_saveable,
                  "dots_saveable": cp.dots_saveable,
                  "save_only_these_names": cp.save_only_these_names(*names) if names else cp.nothing_saveable}[policy]
    fn = J.jax.checkpoint(lambda *a: tuple(J.call(body, *a)), policy=jax_policy, prevent_cse=prevent_cse)
    out = fn(*xs)
    return out[0] if len(body.outputs) == 1 else tuple(out)


register_op("checkpoint", shape=_checkpoint_shape, decomposition=lambda ctx: ctx.attrs["body"],
            gradient=traced_gradient(_gradient), region_refusals=_refusals, jvp=traced_jvp(_jvp), batch=traced_batch(_batch), traits=(INTERNAL,),
            attrs={"body": ((FusedBody,), True), "policy": ((str,), True), "names": ((tuple,), False),
                   "prevent_cse": ((bool,), False)},
            jax=_checkpoint_jax,
            doc="body(*xs), its gradient recomputing body's values from xs instead of keeping them "
                "(frame.checkpoint, jax.checkpoint)")


def retire_barriers(graph: Graph) -> Graph:
    """`graph` with every `remat_barrier` replaced by its first operand (`graph` itself when it has none).

    `build_backward_graph` calls it on the graph it differentiates: barriers there come from an inner
    derivation (a `frame.grad` inside the function), whose backward part is now part of the new
    forward part. Recomputing there saves nothing (the new derivation keeps what its forward part
    computes only where its own checkpoint gradients do not recompute it) and costs a forward per
    order, so CSE may merge those recomputations with the forward again; the checkpoint regions stay,
    and the new derivation's gradients of them recompute behind barriers of their own."""
    if not any(node.op == "remat_barrier" for node in graph.nodes):
        return graph
    from ..ir.clone import expand_nodes

    def expansion(node):
        if node.op != "remat_barrier":
            return None
        g = Graph("retired_barrier")
        ins = [g.add_input(v.type) for v in node.inputs]
        g.mark_output(ins[0])
        return g

    return expand_nodes(graph, expansion)


__all__ = ["POLICIES", "DOT_OPS", "saved_nodes", "residual_graph", "backward_body", "retire_barriers"]
