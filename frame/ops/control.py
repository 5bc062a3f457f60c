"""Control-flow ops with regions (issue 17): `cond`, `scan` and `while`.

A region is a graph held in a node attribute, frozen as a `FusedBody` (immutable, hashed and
compared by its text, printed nested under its node and parsed back), the machinery of the fused
and custom-rule ops. A region is closed: it reads only its own inputs, so everything a body
uses from outside (captured parameters) is an operand of the node. The layouts follow JAX's
primitives, so `to_jax` and `from_jax` are one to one:

- `cond(pred, *operands) {true_body, false_body}`: `pred` a bool scalar; both bodies map the
  operands to the results and must give the same types (`ShapeError` naming the first that differs).
- `scan(*consts, *init, *xs) {body, num_consts, num_carry, length, reverse}`: `body` maps
  `[consts..., carry..., x slices...]` to `[new carry..., y slices...]`; the carry's types are
  fixed (a body giving another type is refused by name); each x has a leading axis of `length`,
  each y is stacked along a new leading axis of `length`. Results: `[final carry..., ys...]`.
  `reverse` walks the steps from the last to the first (ys are still stored at their step's index).
- `while(*cond_consts, *body_consts, *init) {cond_body, body, cond_nconsts, body_nconsts}`:
  `cond_body` maps `[cond_consts..., carry...]` to one bool scalar, `body` maps
  `[body_consts..., carry...]` to the new carry (types fixed). Results: the final carry.

Kernels run the bodies step by step (`run_region`: the reference kernels, op by op, unless the
frontend installed the compiled runner, frame/frontend/control.py). The derivative rules build
graphs of the bodies with frame's own transforms, which live above this layer and are installed
here by frame/compiler (`install_transforms`), as frame/ops/custom.py's reverse mode is:

- reverse mode: `cond`'s gradient is a `cond` of the branches' VJP graphs. `scan`'s gradient is
  a forward scan that also stacks the carry entering each step (the saved carries), then a scan in
  the opposite direction over them whose body is the step's VJP: it carries the cotangent of the
  carry and the sum of the cotangents of the constants, and stacks the cotangents of the xs.
  Both are scans and conds again, so gradients differentiate again, to any order. `while` has a
  dynamic trip count, so it refuses reverse mode by name (as JAX does); `fori_loop` with static
  bounds is a scan.
- forward mode (`jvp` facts): the op on the bodies' forward-mode graphs, tangents carried beside
  the primals (every float carry gets a tangent carry, zeros where the operand has none).
- batching (`batch` facts): the op on the batched bodies; which carries are batched is found by a
  fixed point (a carry is batched when its initial value is, or when the body makes it so). A
  batched predicate of `cond` becomes a `where` of both branches, and a batched `while` runs until
  every example's predicate is false, each example keeping its carry once its own is, as in JAX.
"""
from __future__ import annotations

import functools
from typing import Sequence

import numpy as np

from ..errors import GradientError, ShapeError
from ..ir.clone import inline_graph
from ..ir.graph import Graph, outputs_depending_on
from ..ir.registry import NodeContext, register_op, run_graph
from ..ir.types import TensorType
from ..tracing import Tracer, bind, current_frame, lift, prim, traced_gradient, traced_jvp
from .batching_rules import traced_batch
from .fused import FusedBody

# The graph transforms the rules need (frame.compiler sits above the op families): installed by
# frame/compiler/autograd.py, forward.py and batching.py when they load.
_TRANSFORMS: dict = {}
# How kernels run a region: `run_graph` (op by op, the reference kernels) unless the frontend
# installs a compiled runner (frame/frontend/control.py).
_RUNNER: dict = {"run": None}


def install_transforms(**transforms) -> None:
    """Give the rules frame.compiler's transforms (`build_backward_graph`, `build_forward_graph`,
    `build_batched_graph`, `dne`)."""
    _TRANSFORMS.update(transforms)


def install_runner(run) -> None:
    """`run(graph, arrays) -> list of arrays`: how kernels run a region (None: op by op)."""
    _RUNNER["run"] = run


def _transform(name: str):
    fn = _TRANSFORMS.get(name)
    if fn is None:
        raise GradientError(f"the control-flow ops' rules need {name}: import frame (frame.compiler installs it)")
    return fn


def run_region(body: Graph, arrays: Sequence) -> list:
    """The results of region `body` on `arrays`, as a list."""
    run = _RUNNER["run"]
    if run is not None:
        return list(run(body, list(arrays)))
    if not body.outputs:
        return []
    out = run_graph(body, *arrays)
    return list(out) if len(body.outputs) != 1 else [out]


def _types(values) -> list[TensorType]:
    return [v.type for v in values]


def _fmt(types) -> str:
    return "(" + ", ".join(map(str, types)) + ")"


def _region(ctx: NodeContext, key: str) -> FusedBody:
    body = ctx.attrs[key]
    if not isinstance(body, FusedBody):
        raise ShapeError(f"op '{ctx.op}': attribute '{key}' must be a FusedBody graph, got {type(body).__name__}")
    return body


def _expect(ctx: NodeContext, what: str, got: list[TensorType], want: list[TensorType]) -> None:
    if len(got) != len(want):
        raise ShapeError(f"op '{ctx.op}': {what}: {len(got)} value(s) {_fmt(got)}, expected {len(want)} {_fmt(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            raise ShapeError(f"op '{ctx.op}': {what}: value {i} is {g}, expected {w} (all: {_fmt(got)} against "
                             f"{_fmt(want)})")


def _call(graph: Graph, *operands) -> list:
    """`graph` inlined into the rule being traced, on tracers or arrays."""
    frame = current_frame()
    return [Tracer(v, frame) for v in inline_graph(frame.graph, graph, [lift(x, frame) for x in operands])]


def _as_list(out) -> list:
    if out is None:
        return []
    return list(out) if isinstance(out, tuple) else [out]


def _zeros(t: TensorType) -> np.ndarray:
    return np.zeros(t.shape, t.dtype)


def _no_complex(op: str, body: Graph, what: str) -> None:
    if any(t.is_complex for t in _types(body.inputs) + _types(body.outputs)):
        raise GradientError(f"op '{op}' (@{body.name}): {what} of a region with complex values is not supported "
                            "(the regions' derivative graphs pair real cotangents only)")


# ---------------------------------------------------------------------------------------------
# Derivative and batched graphs of a region, memoised per body (bodies hash by their text)

def vjp_body(body: FusedBody) -> FusedBody:
    """`[ins..., cotangent of each out...] -> [cotangent of each in]` (zeros for non-float inputs):
    reverse mode through `sum(out * ct)` over the float outputs. An input whose cotangent would reach an
    operand without a derivative gets a zero too; `vjp_refusals` names those."""
    return _vjp(body)[0]


def vjp_refusals(body: FusedBody) -> dict[int, tuple]:
    """{body input: (schema, position)}: the inputs whose cotangent would reach operand `position` of an op
    without a derivative there (`OpSchema.no_derivative`), inside `body` or its own regions."""
    return dict(_vjp(body)[1])


@functools.lru_cache(maxsize=512)
def _vjp(body: FusedBody) -> tuple[FusedBody, dict]:
    refusals: dict[int, tuple] = {}
    build = functools.partial(_transform("build_backward_graph"), refusals=refusals)
    contraction = Graph(f"{body.name}_pairing")
    ins = [contraction.add_input(t) for t in _types(body.inputs)]
    outs = inline_graph(contraction, body, ins)
    cts = [contraction.add_input(v.type) for v in outs]
    terms = []
    for y, ct in zip(outs, cts):
        if not y.type.is_float:
            continue
        term = contraction.add_node("sum", [contraction.add_node("mul", [y, ct]).output],
                                    {"axes": tuple(range(y.type.rank)), "keepdims": False}).output
        if term.type.dtype != "float64":   # one dtype for the sum: float64 holds every float exactly
            term = contraction.add_node("convert", [term], {"dtype": "float64"}).output
        terms.append(term)
    wrt = [i for i, v in enumerate(ins) if v.type.is_float]
    result = Graph(f"{body.name}_vjp")
    r_ins = [result.add_input(v.type) for v in ins]
    r_cts = [result.add_input(v.type) for v in cts]
    from .custom import pairing_gradients   # (here, not at import: custom registers its ops after control's)

    grads = pairing_gradients(contraction, terms, wrt, build, result, [*r_ins, *r_cts])
    for i, v in enumerate(r_ins):
        zero = None if i in grads else result.add_node("constant", [], {"value": _zeros(v.type)}).output
        result.mark_output(grads[i] if i in grads else zero)
    return FusedBody.of(_transform("dne")(result)), dict(refusals)   # keyed by body input, as wrt is


@functools.lru_cache(maxsize=512)
def tangent_body(body: FusedBody, wrt: tuple[int, ...], keep_primal: bool) -> FusedBody:
    """`[ins..., tangent of each wrt input...] -> [outs... (when keep_primal), tangent of each out]`."""
    derived = _transform("build_forward_graph")(body, list(wrt))
    if not keep_primal:
        pruned = Graph(derived.name)
        ys = inline_graph(pruned, derived, [pruned.add_input(t) for t in _types(derived.inputs)])
        for y in ys[len(body.outputs):]:
            pruned.mark_output(y)
        derived = pruned
    return FusedBody.of(_transform("dne")(derived))


@functools.lru_cache(maxsize=512)
def batched_body(body: FusedBody, in_axes: tuple, size: int, out_axes: tuple) -> FusedBody:
    return FusedBody.of(_transform("build_batched_graph")(body, list(in_axes), size, list(out_axes)))


depends_on = outputs_depending_on   # which outputs of a body depend on an input marked True


def rearranged(body: Graph, in_types: Sequence[TensorType], in_map: Sequence[int], out_map: Sequence[int],
               name: str | None = None) -> FusedBody:
    """A body with inputs typed `in_types` that runs `body` on inputs `in_map` (an index into them per
    input of `body`) and returns `body`'s outputs `out_map`, in that order."""
    g = Graph(name or body.name)
    ins = [g.add_input(t) for t in in_types]
    outs = inline_graph(g, body, [ins[i] for i in in_map])
    for j in out_map:
        g.mark_output(outs[j])
    return FusedBody.of(g)


# ---------------------------------------------------------------------------------------------
# cond

def _cond_shape(ctx: NodeContext):
    if not ctx.input_types:
        raise ShapeError(f"op '{ctx.op}' needs a predicate operand")
    pred, operands = ctx.input_types[0], list(ctx.input_types[1:])
    if pred.dtype != "bool" or pred.rank != 0:
        raise ShapeError(f"op '{ctx.op}': the predicate must be a bool scalar, got {pred}")
    true_body, false_body = _region(ctx, "true_body"), _region(ctx, "false_body")
    _expect(ctx, "the operands against true_body's inputs", operands, _types(true_body.inputs))
    _expect(ctx, "the operands against false_body's inputs", operands, _types(false_body.inputs))
    _expect(ctx, "false_body's outputs against true_body's (both branches must give the same types)",
            _types(false_body.outputs), _types(true_body.outputs))
    return _types(true_body.outputs)


def _result(outs: list, n: int):
    if n == 1:
        return outs[0]
    return tuple(outs)


def _cond_kernel(pred, *operands, true_body, false_body):
    body = true_body if bool(pred) else false_body
    outs = [np.asarray(o, dtype=v.type.dtype) for o, v in zip(run_region(body, operands), body.outputs)]
    return _result(outs, len(outs))


def _nothing_to_differentiate(ctx: NodeContext) -> bool:
    """No float value flows into the op: every cotangent is zero (and the gradient holds no region op)."""
    return not any(t.is_inexact for t in ctx.input_types)


def _cond_gradient(ctx, xs, ys, gys):
    pred, operands = xs[0], xs[1:]
    if _nothing_to_differentiate(ctx):
        return [None] * len(xs)
    for key in ("true_body", "false_body"):
        _no_complex(ctx.op, ctx.attrs[key], "reverse mode")
    gs = _as_list(bind("cond", pred, *operands, *gys, true_body=vjp_body(ctx.attrs["true_body"]),
                       false_body=vjp_body(ctx.attrs["false_body"])))
    return [None, *gs]


def _cond_refusals(ctx: NodeContext) -> dict:
    if _nothing_to_differentiate(ctx):
        return {}
    return {i + 1: origin for key in ("false_body", "true_body") for i, origin in vjp_refusals(ctx.attrs[key]).items()}


def _cond_jvp(ctx, xs, ys, txs):
    pred, operands, tangents = xs[0], xs[1:], txs[1:]
    wrt = tuple(i for i, t in enumerate(tangents) if t is not None)
    for key in ("true_body", "false_body"):
        _no_complex(ctx.op, ctx.attrs[key], "forward mode")
    return _as_list(bind("cond", pred, *operands, *[tangents[i] for i in wrt],
                         true_body=tangent_body(ctx.attrs["true_body"], wrt, False),
                         false_body=tangent_body(ctx.attrs["false_body"], wrt, False)))


def _cond_batch(ctx, xs, batched, size):
    pred, operands = xs[0], xs[1:]
    axes = tuple(0 if b else None for b in batched[1:])
    outs = tuple(0 for _ in ctx.attrs["true_body"].outputs)
    true_b = batched_body(ctx.attrs["true_body"], axes, size, outs)
    false_b = batched_body(ctx.attrs["false_body"], axes, size, outs)
    if not batched[0]:
        return _as_list(bind("cond", pred, *operands, true_body=true_b, false_body=false_b))
    # A predicate per example: both branches run on every example and each example takes its own
    # branch's results (JAX turns a batched cond into a select the same way).
    t_outs, f_outs = _call(true_b, *operands), _call(false_b, *operands)
    results = []
    for t, f in zip(t_outs, f_outs):
        p = prim.reshape(pred, shape=(size,) + (1,) * (t.ndim - 1))
        results.append(prim.where(prim.broadcast_to(p, shape=t.shape), t, f))
    return results


def _cond_jax(J, pred, *operands, true_body, false_body):
    out = J.lax.cond(pred, lambda *a: tuple(J.call(true_body, *a)), lambda *a: tuple(J.call(false_body, *a)),
                     *operands)
    return out[0] if len(true_body.outputs) == 1 else tuple(out)


register_op("cond", shape=_cond_shape, kernel=_cond_kernel, gradient=traced_gradient(_cond_gradient),
            region_refusals=_cond_refusals, jvp=traced_jvp(_cond_jvp), batch=traced_batch(_cond_batch), jax=_cond_jax,
            attrs={"true_body": ((FusedBody,), True), "false_body": ((FusedBody,), True)},
            doc="true_body(*operands) if pred else false_body(*operands), pred a bool scalar (lax.cond)")


# ---------------------------------------------------------------------------------------------
# scan

def _scan_layout(ctx: NodeContext):
    nc, nk, length = ctx.attrs["num_consts"], ctx.attrs["num_carry"], ctx.attrs["length"]
    n = len(ctx.input_types)
    if nc < 0 or nk < 0 or nc + nk > n:
        raise ShapeError(f"op '{ctx.op}': num_consts={nc} and num_carry={nk} do not fit its {n} operand(s)")
    if length < 0:
        raise ShapeError(f"op '{ctx.op}': length must be >= 0, got {length}")
    return nc, nk, length


def _scan_shape(ctx: NodeContext):
    nc, nk, length = _scan_layout(ctx)
    body = _region(ctx, "body")
    consts, carry, xs = (list(ctx.input_types[:nc]), list(ctx.input_types[nc:nc + nk]),
                         list(ctx.input_types[nc + nk:]))
    slices = []
    for i, x in enumerate(xs):
        if x.rank == 0 or x.shape[0] != length:
            raise ShapeError(f"op '{ctx.op}': xs operand {i} is {x}, which has no leading axis of the scan's length "
                             f"{length}")
        slices.append(TensorType(x.shape[1:], x.dtype, x.device))
    _expect(ctx, "the operands (consts, carry, x slices) against the body's inputs", consts + carry + slices,
            _types(body.inputs))
    outs = _types(body.outputs)
    if len(outs) < nk:
        raise ShapeError(f"op '{ctx.op}': the body gives {len(outs)} output(s), fewer than the {nk} carries")
    _expect(ctx, "the body's carry outputs against the carry (a scan's carry keeps its types)", outs[:nk], carry)
    return carry + [TensorType((length, *t.shape), t.dtype, t.device) for t in outs[nk:]]


def _scan_kernel(*operands, body, num_consts, num_carry, length, reverse=False):
    nc, nk = num_consts, num_carry
    consts, carry, xs = operands[:nc], list(operands[nc:nc + nk]), operands[nc + nk:]
    y_types = _types(body.outputs[nk:])
    ys = [np.empty((length, *t.shape), t.dtype) for t in y_types]
    for i in (range(length - 1, -1, -1) if reverse else range(length)):
        outs = run_region(body, [*consts, *carry, *[x[i] for x in xs]])
        carry = outs[:nk]
        for y, out in zip(ys, outs[nk:]):
            y[i] = out
    carry = [np.asarray(c, dtype=t.dtype) for c, t in zip(carry, _types(body.outputs[:nk]))]
    return _result(carry + ys, nk + len(ys))


def _scan_attrs(ctx: NodeContext, **changes) -> dict:
    attrs = {k: ctx.attrs[k] for k in ("body", "num_consts", "num_carry", "length")}
    attrs["reverse"] = bool(ctx.attrs.get("reverse", False))
    attrs.update(changes)
    return attrs


@functools.lru_cache(maxsize=512)
def _saving_body(body: FusedBody, nc: int, nk: int) -> FusedBody:
    """The body that also returns the carry it was given, stacked by the scan: the saved carries."""
    return body if nk == 0 else _append_inputs(body, list(range(nc, nc + nk)), f"{body.name}_save")


def _append_inputs(body: Graph, positions: list[int], name: str) -> FusedBody:
    g = Graph(name)
    ins = [g.add_input(t) for t in _types(body.inputs)]
    for y in inline_graph(g, body, ins):
        g.mark_output(y)
    for p in positions:
        g.mark_output(ins[p])
    return FusedBody.of(g)


@functools.lru_cache(maxsize=512)
def _scan_backward_body(body: FusedBody, nc: int, nk: int) -> FusedBody:
    """One step of the reverse scan: inputs `[consts..., g_carry..., g_consts_sum..., carry_t..., x_t...,
    g_y_t...]`, outputs `[g_carry entering step t..., g_consts_sum + this step's..., g_x_t...]`."""
    vjp = vjp_body(body)
    types = _types(body.inputs)
    consts, carry, slices = types[:nc], types[nc:nc + nk], types[nc + nk:]
    y_types = _types(body.outputs[nk:])
    g = Graph(f"{body.name}_reverse")
    c_in = [g.add_input(t) for t in consts]
    gk_in = [g.add_input(t) for t in carry]
    gc_sum = [g.add_input(t) for t in consts]
    k_in = [g.add_input(t) for t in carry]
    x_in = [g.add_input(t) for t in slices]
    gy_in = [g.add_input(t) for t in y_types]
    grads = inline_graph(g, vjp, [*c_in, *k_in, *x_in, *gk_in, *gy_in])
    g_consts, g_carry, g_x = grads[:nc], grads[nc:nc + nk], grads[nc + nk:]
    for v in g_carry:
        g.mark_output(v)
    for acc, v in zip(gc_sum, g_consts):
        g.mark_output(g.add_node("add", [acc, v]).output if v.type.is_inexact else acc)
    for v in g_x:
        g.mark_output(v)
    return FusedBody.of(_transform("dne")(g))


def _scan_gradient(ctx, xs, ys, gys):
    body = ctx.attrs["body"]
    if _nothing_to_differentiate(ctx):
        return [None] * len(xs)
    _no_complex(ctx.op, body, "reverse mode")
    nc, nk = ctx.attrs["num_consts"], ctx.attrs["num_carry"]
    reverse = bool(ctx.attrs.get("reverse", False))
    consts, init, seqs = xs[:nc], xs[nc:nc + nk], xs[nc + nk:]
    ny = len(body.outputs) - nk
    # The carries entering each step, recomputed by a scan that also stacks them.
    saved = _as_list(bind("scan", *consts, *init, *seqs, **_scan_attrs(ctx, body=_saving_body(body, nc, nk))))
    carries = saved[nk + ny:]
    g_final, g_ys = gys[:nk], gys[nk:]
    zero_consts = [_zeros(c.type) for c in consts]
    back = _as_list(bind("scan", *consts, *g_final, *zero_consts, *carries, *seqs, *g_ys,
                         **_scan_attrs(ctx, body=_scan_backward_body(body, nc, nk), num_carry=nk + nc,
                                       reverse=not reverse)))
    g_init, g_consts, g_seqs = back[:nk], back[nk:nk + nc], back[nk + nc:]
    return [*g_consts, *g_init, *g_seqs]


def _scan_refusals(ctx: NodeContext) -> dict:
    """The body's refused inputs (consts, carry, xs: the op's operands in order), closed over the steps: what a
    carry output depends on becomes the next step's carry input, so a refused carry input refuses it too
    (by dependency: conservative where the dependence has a zero derivative)."""
    if _nothing_to_differentiate(ctx):
        return {}
    body, nc, nk = ctx.attrs["body"], ctx.attrs["num_consts"], ctx.attrs["num_carry"]
    refused = vjp_refusals(body)
    if not refused:
        return refused
    n = len(body.inputs)
    feeds = [[outputs_depending_on(body, [i == j for i in range(n)])[k] for k in range(nk)] for j in range(n)]
    grown = True
    while grown:
        grown = False
        for j in range(n):
            origin = next((refused[nc + k] for k in range(nk) if feeds[j][k] and nc + k in refused), None)
            if j not in refused and origin is not None and body.inputs[j].type.is_inexact:
                refused[j], grown = origin, True
    return refused


@functools.lru_cache(maxsize=512)
def _scan_tangent_body(body: FusedBody, nc: int, nk: int, t_consts: tuple, t_xs: tuple) -> tuple:
    """The body of the forward-mode scan, laid out `[consts, tangent consts, carry, tangent carry, xs,
    tangent xs] -> [carry, tangent carry, ys, tangent ys]`; tangents for the consts and xs listed,
    every float carry and every float y. Returns (body, float carry positions, float y positions)."""
    types = _types(body.inputs)
    t_carry = tuple(i for i in range(nk) if types[nc + i].is_inexact)
    wrt = tuple([*t_consts, *[nc + i for i in t_carry], *[nc + nk + i for i in t_xs]])
    derived = tangent_body(body, wrt, True)
    n_in, n_out = len(types), len(body.outputs)
    ny = n_out - nk
    y_float = tuple(j for j in range(ny) if body.outputs[nk + j].type.is_inexact)
    # derived inputs: [ins..., t(wrt)...]; its outputs: [outs..., tangent of each out]
    in_types = ([*types[:nc], *[types[i] for i in t_consts], *types[nc:nc + nk], *[types[nc + i] for i in t_carry],
                 *types[nc + nk:], *[types[nc + nk + i] for i in t_xs]])
    groups, k = [], 0   # the positions of each group in the new layout
    for group in (range(nc), t_consts, range(nk), t_carry, range(n_in - nc - nk), t_xs):
        groups.append(list(range(k, k + len(group))))
        k += len(group)
    g_c, g_tc, g_k, g_tk, g_x, g_tx = groups
    in_map = [*g_c, *g_k, *g_x, *g_tc, *g_tk, *g_tx]
    out_map = [*range(nk), *[n_out + i for i in t_carry], *range(nk, n_out), *[n_out + nk + j for j in y_float]]
    return rearranged(derived, in_types, in_map, out_map, name=f"{body.name}_jvp"), t_carry, y_float


def _scan_jvp(ctx, xs, ys, txs):
    body = ctx.attrs["body"]
    _no_complex(ctx.op, body, "forward mode")
    nc, nk = ctx.attrs["num_consts"], ctx.attrs["num_carry"]
    consts, init, seqs = xs[:nc], xs[nc:nc + nk], xs[nc + nk:]
    t_consts = tuple(i for i in range(nc) if txs[i] is not None)
    t_xs = tuple(i for i in range(len(seqs)) if txs[nc + nk + i] is not None)
    tbody, t_carry, y_float = _scan_tangent_body(body, nc, nk, t_consts, t_xs)
    t_init = [txs[nc + i] if txs[nc + i] is not None else _zeros(init[i].type) for i in t_carry]
    outs = _as_list(bind("scan", *consts, *[txs[i] for i in t_consts], *init, *t_init, *seqs,
                         *[txs[nc + nk + i] for i in t_xs],
                         **_scan_attrs(ctx, body=tbody, num_consts=nc + len(t_consts), num_carry=nk + len(t_carry))))
    ny = len(body.outputs) - nk
    k_tan = dict(zip(t_carry, outs[nk:nk + len(t_carry)]))
    y_tan = dict(zip(y_float, outs[nk + len(t_carry) + ny:]))
    return [k_tan.get(i) for i in range(nk)] + [y_tan.get(j) for j in range(ny)]


def _scan_batch(ctx, xs, batched, size):
    body = ctx.attrs["body"]
    nc, nk = ctx.attrs["num_consts"], ctx.attrs["num_carry"]
    consts, init, seqs = xs[:nc], xs[nc:nc + nk], xs[nc + nk:]
    b_consts, b_carry, b_seqs = list(batched[:nc]), list(batched[nc:nc + nk]), list(batched[nc + nk:])
    while True:   # the batched carries: a fixed point (at most nk rounds)
        reached = depends_on(body, b_consts + b_carry + b_seqs)[:nk]
        grown = [a or b for a, b in zip(b_carry, reached)]
        if grown == b_carry:
            break
        b_carry = grown
    init = [x if batched[nc + i] or not b else prim.broadcast_to(x, shape=(size, *x.shape))
            for i, (x, b) in enumerate(zip(init, b_carry))]
    # A batched xs operand arrives as (size, length, ...): the scan walks axis 0, so the batch axis moves to 1.
    seqs = [prim.transpose(x, perm=(1, 0, *range(2, x.ndim))) if b else x for x, b in zip(seqs, b_seqs)]
    in_axes = tuple(0 if b else None for b in b_consts + b_carry + b_seqs)
    out_axes = tuple([0 if b else None for b in b_carry] + [0] * (len(body.outputs) - nk))
    outs = _as_list(bind("scan", *consts, *init, *seqs,
                         **_scan_attrs(ctx, body=batched_body(body, in_axes, size, out_axes))))
    results = [c if b else prim.broadcast_to(c, shape=(size, *c.shape)) for c, b in zip(outs[:nk], b_carry)]
    results += [prim.transpose(y, perm=(1, 0, *range(2, y.ndim))) for y in outs[nk:]]
    return results


def _scan_jax(J, *operands, body, num_consts, num_carry, length, reverse=False):
    nc, nk = num_consts, num_carry
    consts, init, xs = operands[:nc], operands[nc:nc + nk], operands[nc + nk:]

    def step(carry, x):
        outs = J.call(body, *consts, *carry, *x)
        return tuple(outs[:nk]), tuple(outs[nk:])

    carry, ys = J.lax.scan(step, tuple(init), tuple(xs), length=length, reverse=reverse)
    outs = [*carry, *ys]
    return outs[0] if len(outs) == 1 else tuple(outs)


register_op("scan", shape=_scan_shape, kernel=_scan_kernel, gradient=traced_gradient(_scan_gradient),
            region_refusals=_scan_refusals, jvp=traced_jvp(_scan_jvp), batch=traced_batch(_scan_batch), jax=_scan_jax,
            attrs={"body": ((FusedBody,), True), "num_consts": ((int,), True), "num_carry": ((int,), True),
                   "length": ((int,), True), "reverse": ((bool,), False)},
            doc="a loop of `length` steps carrying values and stacking per-step results (lax.scan)")


# ---------------------------------------------------------------------------------------------
# while

def _while_layout(ctx: NodeContext):
    ncc, nbc = ctx.attrs["cond_nconsts"], ctx.attrs["body_nconsts"]
    n = len(ctx.input_types)
    if ncc < 0 or nbc < 0 or ncc + nbc > n:
        raise ShapeError(f"op '{ctx.op}': cond_nconsts={ncc} and body_nconsts={nbc} do not fit its {n} operand(s)")
    return ncc, nbc


def _while_shape(ctx: NodeContext):
    ncc, nbc = _while_layout(ctx)
    cond_body, body = _region(ctx, "cond_body"), _region(ctx, "body")
    types = list(ctx.input_types)
    cond_consts, body_consts, carry = types[:ncc], types[ncc:ncc + nbc], types[ncc + nbc:]
    _expect(ctx, "the operands (cond consts, carry) against cond_body's inputs", cond_consts + carry,
            _types(cond_body.inputs))
    _expect(ctx, "the operands (body consts, carry) against the body's inputs", body_consts + carry,
            _types(body.inputs))
    _expect(ctx, "cond_body's outputs (one bool scalar)", _types(cond_body.outputs), [TensorType((), "bool")])
    _expect(ctx, "the body's outputs against the carry (a while loop's carry keeps its types)",
            _types(body.outputs), carry)
    return carry


def _while_kernel(*operands, cond_body, body, cond_nconsts, body_nconsts):
    ncc, nbc = cond_nconsts, body_nconsts
    cond_consts, body_consts, carry = operands[:ncc], operands[ncc:ncc + nbc], list(operands[ncc + nbc:])
    while bool(run_region(cond_body, [*cond_consts, *carry])[0]):
        carry = run_region(body, [*body_consts, *carry])
    carry = [np.asarray(c, dtype=v.type.dtype) for c, v in zip(carry, body.outputs)]
    return _result(carry, len(carry))


def _while_gradient(ctx, xs, ys, gys):
    ncc, nbc = ctx.attrs["cond_nconsts"], ctx.attrs["body_nconsts"]
    if not any(t.is_inexact for t in ctx.input_types[ncc + nbc:]):
        return [None] * len(xs)   # no float carry: the results are not float, every cotangent is zero
    raise GradientError(f"op 'while' (@{ctx.attrs['body'].name}): reverse-mode differentiation of a while loop is not "
                        "supported: its trip count is only known at run time, so the carries of its steps cannot be "
                        "saved (JAX refuses it too). Use frame.fori_loop with static Python bounds or frame.scan, "
                        "or forward mode (frame.jvp), which while loops support")


@functools.lru_cache(maxsize=512)
def _while_tangent_bodies(cond_body: FusedBody, body: FusedBody, nbc: int, t_consts: tuple):
    """(cond body, body) of the forward-mode loop: carry `[carry..., tangent of each float carry...]`,
    body consts `[consts..., tangent consts listed...]`; the predicate reads the primal carry only."""
    types = _types(body.inputs)
    nk = len(types) - nbc
    t_carry = tuple(i for i in range(nk) if types[nbc + i].is_inexact)
    derived = tangent_body(body, (*t_consts, *[nbc + i for i in t_carry]), True)
    tk_types = [types[nbc + i] for i in t_carry]
    in_types = [*types[:nbc], *[types[i] for i in t_consts], *types[nbc:], *tk_types]
    n_tc = len(t_consts)
    in_map = [*range(nbc), *range(nbc + n_tc, nbc + n_tc + nk), *range(nbc, nbc + n_tc),
              *range(nbc + n_tc + nk, len(in_types))]
    out_map = [*range(nk), *[nk + i for i in t_carry]]
    new_body = rearranged(derived, in_types, in_map, out_map, name=f"{body.name}_jvp")
    c_types = _types(cond_body.inputs)
    new_cond = rearranged(cond_body, c_types + tk_types, range(len(c_types)), range(1), name=cond_body.name)
    return new_cond, new_body, t_carry


def _while_jvp(ctx, xs, ys, txs):
    ncc, nbc = ctx.attrs["cond_nconsts"], ctx.attrs["body_nconsts"]
    cond_body, body = ctx.attrs["cond_body"], ctx.attrs["body"]
    _no_complex(ctx.op, body, "forward mode")
    cond_consts, body_consts, init = xs[:ncc], xs[ncc:ncc + nbc], xs[ncc + nbc:]
    t_consts = tuple(i for i in range(nbc) if txs[ncc + i] is not None)
    new_cond, new_body, t_carry = _while_tangent_bodies(cond_body, body, nbc, t_consts)
    t_init = [txs[ncc + nbc + i] if txs[ncc + nbc + i] is not None else _zeros(init[i].type) for i in t_carry]
    outs = _as_list(bind("while", *cond_consts, *body_consts, *[txs[ncc + i] for i in t_consts], *init, *t_init,
                         cond_body=new_cond, body=new_body, cond_nconsts=ncc, body_nconsts=nbc + len(t_consts)))
    tangents = dict(zip(t_carry, outs[len(init):]))
    return [tangents.get(i) for i in range(len(init))]


def _while_batch(ctx, xs, batched, size):
    ncc, nbc = ctx.attrs["cond_nconsts"], ctx.attrs["body_nconsts"]
    cond_body, body = ctx.attrs["cond_body"], ctx.attrs["body"]
    cond_consts, body_consts, init = xs[:ncc], xs[ncc:ncc + nbc], xs[ncc + nbc:]
    b_cc, b_bc, b_carry = list(batched[:ncc]), list(batched[ncc:ncc + nbc]), list(batched[ncc + nbc:])
    nk = len(init)
    while True:   # batched carries: those batched initially, by the body, or (a batched predicate) all of them
        pred_batched = depends_on(cond_body, b_cc + b_carry)[0]
        reached = [True] * nk if pred_batched else depends_on(body, b_bc + b_carry)
        grown = [a or b for a, b in zip(b_carry, reached)]
        if grown == b_carry:
            break
        b_carry = grown
    init = [x if batched[ncc + nbc + i] or not b else prim.broadcast_to(x, shape=(size, *x.shape))
            for i, (x, b) in enumerate(zip(init, b_carry))]
    carry_axes = tuple(0 if b else None for b in b_carry)
    body_b = batched_body(body, tuple(0 if b else None for b in b_bc) + carry_axes, size, carry_axes)
    cond_axes = tuple(0 if b else None for b in b_cc) + carry_axes
    if not pred_batched:
        cond_b = batched_body(cond_body, cond_axes, size, (None,))
        outs = _as_list(bind("while", *cond_consts, *body_consts, *init, cond_body=cond_b, body=body_b,
                             cond_nconsts=ncc, body_nconsts=nbc))
    else:
        cond_b = batched_body(cond_body, cond_axes, size, (0,))
        outs = _as_list(bind("while", *cond_consts, *cond_consts, *body_consts, *init,
                             cond_body=_any_body(cond_b), body=_selecting_body(cond_b, body_b, ncc),
                             cond_nconsts=ncc, body_nconsts=ncc + nbc))
    return [c if b else prim.broadcast_to(c, shape=(size, *c.shape)) for c, b in zip(outs, b_carry)]


@functools.lru_cache(maxsize=512)
def _any_body(cond_b: FusedBody) -> FusedBody:
    """The batched predicate reduced: the loop runs while any example's predicate holds."""
    g = Graph(f"{cond_b.name}_any")
    ins = [g.add_input(t) for t in _types(cond_b.inputs)]
    (p,) = inline_graph(g, cond_b, ins)
    g.mark_output(g.add_node("any", [p], {"axes": (0,), "keepdims": False}).output)
    return FusedBody.of(g)


@functools.lru_cache(maxsize=512)
def _selecting_body(cond_b: FusedBody, body_b: FusedBody, ncc: int) -> FusedBody:
    """`[cond consts..., body consts..., carry...] -> carry`: a step for the examples whose predicate
    holds; the others keep their carry (every carry is batched here)."""
    c_types, b_types = _types(cond_b.inputs), _types(body_b.inputs)
    nk = len(c_types) - ncc
    g = Graph(f"{body_b.name}_select")
    cc = [g.add_input(t) for t in c_types[:ncc]]
    bc = [g.add_input(t) for t in b_types[:len(b_types) - nk]]
    carry = [g.add_input(t) for t in c_types[ncc:]]
    (p,) = inline_graph(g, cond_b, [*cc, *carry])
    stepped = inline_graph(g, body_b, [*bc, *carry])
    for new, old in zip(stepped, carry):
        mask = g.add_node("reshape", [p], {"shape": (p.type.shape[0],) + (1,) * (old.type.rank - 1)}).output
        mask = g.add_node("broadcast_to", [mask], {"shape": old.type.shape}).output
        g.mark_output(g.add_node("where", [mask, new, old]).output)
    return FusedBody.of(g)


def _while_jax(J, *operands, cond_body, body, cond_nconsts, body_nconsts):
    ncc, nbc = cond_nconsts, body_nconsts
    cond_consts, body_consts, init = operands[:ncc], operands[ncc:ncc + nbc], operands[ncc + nbc:]
    out = J.lax.while_loop(lambda c: J.call(cond_body, *cond_consts, *c)[0],
                           lambda c: tuple(J.call(body, *body_consts, *c)), tuple(init))
    return out[0] if len(out) == 1 else tuple(out)


register_op("while", shape=_while_shape, kernel=_while_kernel, gradient=traced_gradient(_while_gradient),
            jvp=traced_jvp(_while_jvp), batch=traced_batch(_while_batch), jax=_while_jax,
            attrs={"cond_body": ((FusedBody,), True), "body": ((FusedBody,), True),
                   "cond_nconsts": ((int,), True), "body_nconsts": ((int,), True)},
            doc="repeat body on the carry while cond_body holds (lax.while_loop)")


__all__ = ["vjp_body", "tangent_body", "batched_body", "run_region", "install_transforms", "install_runner",
           "depends_on", "rearranged"]
