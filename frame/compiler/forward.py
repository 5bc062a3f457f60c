"""Forward-mode autodiff as a graph-to-graph transform, beside reverse mode (seed 002's differential pairs).

`build_forward_graph(graph, wrt)` pairs every value on a wrt input's dependency chain with its
tangent, walking the graph once in order. Like `build_backward_graph` it is not a pipeline
pass: its result is an ordinary graph, so it composes with reverse mode and with itself to any
depth (forward-over-reverse, reverse-over-forward, forward-over-forward; ARCH-067).

Layout (ARCH-061's discipline, applied to tangents): inputs `[graph.inputs..., one tangent per
wrt input, in wrt order]`, outputs `[graph.outputs..., one tangent per output, in order]`. An
input not in `wrt` has a zero tangent (the stop-gradient mechanism); an output off every wrt
chain gets a zero tangent of its own type.

Where an op's tangent rule comes from (`forward_rule_kind`), first match wins:
- "explicit": the op's block has a `jvp` fact (`frame.tracing.traced_jvp`).
- "linear": LINEAR ops are their own tangent maps: the op applied to the operands' tangents
  (zeros where an operand has none; integer and bool operands, such as indices, stay primal).
- "bilinear": BILINEAR ops (mul, matmul) by the product rule, op(ta, b) + op(a, tb).
- "elementwise": one-operand ELEMENTWISE ops from a real type to the same type: the reverse
  rule `gy * f'(x)` is its own transpose, so it is inlined with the tangent in place of gy.
- "transposed": every other op with a reverse rule: the tangent map is the transpose of the
  (linear) cotangent map, J t = d/dgy <J^T gy, t>, derived exactly by reverse mode over the
  op's own gradient micro-graph (closure, ARCH-068, guarantees it is differentiable). The
  pairing is `sum(real(gx * tx))`, under which frame's (JAX's) complex convention makes the
  same derivation exact for complex operands. It is memoised per op signature and tangent mask.
Composite ops with none of these are expanded first, as reverse mode does.
"""
from __future__ import annotations

import threading
from typing import Sequence

import numpy as np

from ..errors import GradientError
from ..ir.clone import clone_graph, inline_graph
from ..ir.graph import Graph, Value
from ..ir.printer import attrs_key
from ..ir.types import TensorType
from ..ir.registry import BILINEAR, ELEMENTWISE, LINEAR, NodeContext, OpSchema, get
from .autograd import build_backward_graph, is_zero_constant, zeros
from .collector import collector_paused
from .passes.decompose import expand_composites


def forward_rule_kind(schema: OpSchema, ctx: NodeContext | None = None) -> str | None:
    """Which derivation gives `schema`'s tangents (module docstring); None when it has none.
    The "elementwise" case needs the node (`ctx`): it holds for a real operand of the result's type."""
    if schema.jvp is not None:
        return "explicit"
    if schema.has(LINEAR):
        return "linear"
    if schema.has(BILINEAR):
        return "bilinear"
    if schema.gradient is None:
        return None
    if schema.has(ELEMENTWISE) and schema.num_inputs == 1 and ctx is not None:
        (t,) = ctx.input_types
        if t.is_float and ctx.output_types == [t]:   # gy has the operand's type: t can stand for it
            return "elementwise"
    return "transposed"


def _check_wrt(graph: Graph, wrt_input_indices: Sequence[int]) -> list[int]:
    wrt = []
    for i in wrt_input_indices:
        if not isinstance(i, (int, np.integer)) or isinstance(i, bool) or not 0 <= i < len(graph.inputs):
            raise GradientError(f"wrt input index {i!r} is out of range: graph '{graph.name}' has "
                                f"{len(graph.inputs)} input(s)")
        t = graph.inputs[i].type
        if not t.is_inexact:
            raise GradientError(f"forward mode w.r.t. input {i} of '{graph.name}' needs a float or complex input, "
                                f"got {t}")
        wrt.append(int(i))
    if len(set(wrt)) != len(wrt):
        raise GradientError(f"wrt input indices {wrt} contain duplicates")
    return wrt


@collector_paused()
def build_forward_graph(graph: Graph, wrt_input_indices: Sequence[int]) -> Graph:
    """Derive `[graph.outputs..., tangent of each output]` from `[graph.inputs..., tangent of each wrt input]`.

    `graph` is not modified. An op on a wrt chain without any rule raises `GradientError` naming it, and so
    does a tangent reaching an operand the op has no derivative in (`OpSchema.no_derivative`).
    """
    wrt = _check_wrt(graph, wrt_input_indices)
    out = clone_graph(graph)
    out.name = f"{graph.name}_jvp"
    out = expand_composites(out, lambda schema: forward_rule_kind(schema) is None)
    tangents: dict[Value, Value] = {}
    primal_inputs = list(out.inputs)
    for i in wrt:
        tangents[primal_inputs[i]] = out.add_input(primal_inputs[i].type)

    # Only nodes some output needs get tangents: a reverse graph keeps primal nodes (a custom_vjp call,
    # refused in forward mode) whose values only its gradient nodes read through their own rules.
    needed = set(out.outputs)
    for node in reversed(out.nodes):
        if any(v in needed for v in node.outputs):
            needed.update(node.inputs)
    for node in list(out.nodes):
        mask = tuple(x in tangents and x.type.is_inexact for x in node.inputs)
        if not any(mask) or not any(y in needed for y in node.outputs):
            continue
        schema = get(node.op)
        for i in schema.no_derivative:   # before any rule: the rule's None there would read as a zero tangent
            if mask[i]:
                raise schema.no_derivative_error(i, f"a tangent (forward mode, graph '{graph.name}')")
        ctx = NodeContext(node.op, [v.type for v in node.inputs], node.attrs)
        txs = [tangents[x] for x, m in zip(node.inputs, mask) if m]
        kind = forward_rule_kind(schema, ctx)
        if kind is None:
            raise GradientError(f"op '{node.op}' has no forward-mode rule (no jvp, linearity or gradient rule), but it "
                                f"is on a tangent's dependency chain (graph '{graph.name}')")
        if kind == "explicit":
            tys = inline_graph(out, schema.jvp(ctx, mask), [*node.inputs, *node.outputs, *txs])
        elif kind == "linear":
            it = iter(txs)
            operands = [next(it) if m else (x if not x.type.is_inexact else zeros(out, x.type))
                        for x, m in zip(node.inputs, mask)]
            tys = out.add_node(node.op, operands, node.attrs).outputs
        elif kind == "bilinear":
            (a, b), terms = node.inputs, []
            if mask[0]:
                terms.append(out.add_node(node.op, [tangents[a], b], node.attrs).output)
            if mask[1]:
                terms.append(out.add_node(node.op, [a, tangents[b]], node.attrs).output)
            tys = [terms[0] if len(terms) == 1 else out.add_node("add", terms).output]
        elif kind == "elementwise":
            tys = inline_graph(out, schema.gradient(ctx), [*node.inputs, *node.outputs, *txs])
        else:
            tys = inline_graph(out, transposed_rule(ctx, mask), [*node.inputs, *node.outputs, *txs])
        for y, ty in zip(node.outputs, tys):
            if y.type.is_inexact and not is_zero_constant(ty):
                tangents[y] = ty

    for y in list(out.outputs):
        out.mark_output(tangents[y] if y in tangents else zeros(out, y.type))
    return out


_TRANSPOSED: dict[tuple, Graph] = {}
_TRANSPOSED_LOCK = threading.Lock()


def transposed_rule(ctx: NodeContext, mask: tuple[bool, ...]) -> Graph:
    """The tangent micro-graph `[x..., y..., tx (masked)...] -> [ty...]` of an op, as the transpose of its
    cotangent map: J t = d/dgy sum(real(J^T gy * t)), by reverse mode over the op's gradient micro-graph.
    The result does not depend on gy (the cotangent map is linear), which is bound to zeros."""
    key = (ctx.op, tuple(ctx.input_types), attrs_key(ctx.attrs), mask)
    with _TRANSPOSED_LOCK:
        hit = _TRANSPOSED.get(key)
    if hit is not None:
        return hit
    out_types = ctx.output_types
    pairing = Graph(f"{ctx.op}_pairing")
    xs = [pairing.add_input(t) for t in ctx.input_types]
    ys = [pairing.add_input(t) for t in out_types]
    gys = [pairing.add_input(t) for t in out_types]
    txs = [pairing.add_input(t) for t, m in zip(ctx.input_types, mask) if m]
    gxs = inline_graph(pairing, get(ctx.op).gradient(ctx), [*xs, *ys, *gys])
    terms = []
    for gx, tx in zip([g for g, m in zip(gxs, mask) if m], txs):
        if is_zero_constant(gx):
            continue
        product = pairing.add_node("mul", [gx, tx]).output
        if product.type.is_complex:
            product = pairing.add_node("real", [product]).output
        terms.append(pairing.add_node("sum", [product], {"axes": tuple(range(product.type.rank)),
                                                          "keepdims": False}).output)
    real_dtype = next((t.dtype for t in ctx.input_types if t.is_float), "float64")
    total = zeros(pairing, TensorType((), real_dtype)) if not terms else terms[0]
    for term in terms[1:]:
        total = pairing.add_node("add", [total, term]).output
    pairing.mark_output(total)
    inexact_outputs = [len(xs) + len(ys) + j for j, t in enumerate(out_types) if t.is_inexact]
    derived = build_backward_graph(pairing, 0, inexact_outputs)

    rule = Graph(f"{ctx.op}_jvp")
    r_xs = [rule.add_input(t) for t in ctx.input_types]
    r_ys = [rule.add_input(t) for t in out_types]
    r_txs = [rule.add_input(t) for t, m in zip(ctx.input_types, mask) if m]
    r_gys = [zeros(rule, t) for t in out_types]
    results = inline_graph(rule, derived, [*r_xs, *r_ys, *r_gys, *r_txs])[1:]
    it = iter(results)
    for t in out_types:
        rule.mark_output(next(it) if t.is_inexact else zeros(rule, t))
    with _TRANSPOSED_LOCK:
        rule = _TRANSPOSED.setdefault(key, rule)
    return rule




def _install_into_control_flow() -> None:
    """The control-flow ops' forward rules derive tangent graphs of their regions with this transform."""
    from ..ops import control
    control.install_transforms(build_forward_graph=build_forward_graph)


_install_into_control_flow()
