"""Reverse-mode autodiff as a graph-to-graph transform (ARCH-060..062, ARCH-067/068).

`build_backward_graph` is not a pipeline pass: it runs when a user asks for a gradient, and its
result is an ordinary graph that the pipeline then optimises. Higher orders come from calling
it again on a derived graph (after adding a scalar contraction); there is no tape and no
second engine.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..errors import GradientError, ShapeError
from ..ir.clone import clone_graph, inline_graph
from ..ir.graph import Graph, Node, Value, symbolic_refusal
from ..ir.registry import NodeContext, get
from .collector import collector_paused
from .passes.decompose import expand_composites
from .taylor import ZERO_FACT
from ..ops.remat import retire_barriers


def is_zero_constant(v: Value) -> bool:
    """Whether `v` is a constant of zeros (a rule's symbolic zero), shared by the derivative transforms."""
    node = v.node
    if node is not None and node.op == "broadcast_to" and v.type.is_symbolic:   # a symbolic shape's zero
        node = node.inputs[0].node
    return node is not None and node.op == "constant" and not np.any(node.attrs["value"])


def zeros(graph: Graph, v_type) -> Value:
    """A constant of zeros of type `v_type` in `graph` (a broadcast scalar zero for a symbolic shape)."""
    if v_type.is_symbolic:
        return graph.full(v_type, 0)
    return graph.add_node("constant", [], {"value": np.zeros(v_type.shape, v_type.dtype)}).output


def _check_indices(forward: Graph, loss_output_index: int, wrt_input_indices: Sequence[int]) -> list[int]:
    n_out, n_in = len(forward.outputs), len(forward.inputs)
    if not isinstance(loss_output_index, (int, np.integer)) or not 0 <= loss_output_index < n_out:
        raise GradientError(f"loss_output_index {loss_output_index} is out of range: graph '{forward.name}' has "
                            f"{n_out} output(s)")
    wrt = [int(i) for i in wrt_input_indices]
    for i in wrt:
        if not 0 <= i < n_in:
            raise GradientError(f"wrt input index {i} is out of range: graph '{forward.name}' has {n_in} input(s)")
    if len(set(wrt)) != len(wrt):
        raise GradientError(f"wrt input indices {wrt} contain duplicates")
    return wrt


@collector_paused()
def build_backward_graph(forward: Graph, loss_output_index: int, wrt_input_indices: Sequence[int],
                         refusals: dict | None = None) -> Graph:
    """Derive the training graph `[forward.outputs..., grad(wrt[0]), grad(wrt[1]), ...]`.

    - `forward` is not modified; the result is a clone with gradient nodes appended.
    - The loss (output `loss_output_index`) must be a scalar: rank 0 or one element.
    - Inputs not in `wrt_input_indices` get no gradient: that is the stop-gradient mechanism.
    - A wrt input off the loss's dependency chain gets a zero of its own type.
    - An op on the chain without a gradient rule raises `GradientError` naming it (ARCH-062), and so does
      an operand an op has no derivative in (`OpSchema.no_derivative`) whose cotangent would reach a wrt input.
      Given a dict `refusals`, such wrt inputs are recorded there instead ({wrt input index: (schema,
      position)}) and get a zero: how a region's VJP reports them to its op (`OpSchema.region_refusals`).
    """
    wrt = _check_indices(forward, loss_output_index, wrt_input_indices)
    loss_type = forward.outputs[loss_output_index].type
    if loss_type.size != 1:
        raise GradientError(f"the loss (output {loss_output_index} of '{forward.name}') must be a scalar, "
                            f"got shape {loss_type.shape}")
    if not loss_type.is_float:
        raise GradientError(f"the loss must be a float scalar, got {loss_type}")

    value_map: dict[Value, Value] = {}
    graph = clone_graph(forward, value_map)
    graph.name = f"{forward.name}_grad"
    # A composite op without its own gradient rule is differentiated through its decomposition
    # (Paddle's composite VJP, seed 003 §4): expand it first, then walk the primitives.
    graph = expand_composites(graph, lambda schema: schema.gradient is None)
    # The recomputations of an inner derivation's checkpoints run in this derivation's forward part, where
    # they save nothing: its own checkpoint gradients recompute (frame/ops/remat.py, `retire_barriers`).
    graph = retire_barriers(graph)
    loss = graph.outputs[loss_output_index]
    wrt_values = [graph.inputs[i] for i in wrt]

    # The chain: nodes that depend on a wrt input and that the loss depends on. Only they are differentiated.
    # A value behind an op whose derivative is zero by definition (stop_gradient: its Taylor fact "zero") does not
    # depend on the wrt inputs, so what reads it (a while loop's constants) needs no rule.
    depends: set[Value] = set(wrt_values)
    forward_nodes = list(graph.nodes)
    for node in forward_nodes:
        if any(v in depends for v in node.inputs) and get(node.op).taylor != ZERO_FACT:
            depends.update(node.outputs)
    needed: set[Value] = {loss}
    chain: list[Node] = []
    for node in reversed(forward_nodes):
        if any(v in needed for v in node.outputs) and any(v in depends for v in node.inputs):
            chain.append(node)
            needed.update(v for v in node.inputs if v in depends)

    grads: dict[Value, Value] = {}
    if loss in depends:
        grads[loss] = graph.add_node("constant", [], {"value": np.ones(loss_type.shape, loss_type.dtype)}).output
    # Values whose cotangent does not exist: an operand in an op's `no_derivative` (its rule's None there is no
    # zero) -> the op and position. They pass that back like a cotangent, to the inputs the rule's micro-graph
    # gives a gradient that is not a constant zero (not through stop_gradient, floor, ...); reaching a wrt input
    # is a GradientError, never a silent zero.
    refused: dict[Value, tuple] = {}

    for node in chain:  # already in reverse topological order
        has_grad = any(v in grads for v in node.outputs)
        refusal = next((refused[v] for v in node.outputs if v in refused), None)
        if not has_grad and refusal is None:
            continue
        schema = get(node.op)
        if schema.gradient is None:
            raise GradientError(f"op '{node.op}' has no gradient rule, but it is on the loss's dependency chain "
                                f"(graph '{forward.name}')")
        try:
            micro = schema.gradient(NodeContext(node.op, [v.type for v in node.inputs], node.attrs))
        except (ShapeError, TypeError) as e:   # a rule needing concrete sizes, given symbolic ones, is named
            refusal = symbolic_refusal(node.op, [v.type for v in node.inputs], node.attrs, e)
            if refusal is e:
                raise
            raise refusal from None
        own_refusals = schema.refused_operands(NodeContext(node.op, [v.type for v in node.inputs], node.attrs)) \
            if has_grad else {}
        for i, x in enumerate(node.inputs):
            if x in refused or x not in depends or not x.type.is_inexact:
                continue
            if i in own_refusals:
                refused[x] = own_refusals[i]
            elif refusal is not None and not is_zero_constant(micro.outputs[i]):
                refused[x] = refusal
        if not has_grad:
            continue
        gys = [grads.get(y) or zeros(graph, y.type) for y in node.outputs]
        gxs = inline_graph(graph, micro, [*node.inputs, *node.outputs, *gys])
        for x, gx in zip(node.inputs, gxs):
            if x not in depends or not x.type.is_inexact or is_zero_constant(gx):
                continue
            grads[x] = graph.add_node("add", [grads[x], gx]).output if x in grads else gx

    for i, v in zip(wrt, wrt_values):
        if v in refused and refusals is not None:
            refusals[i] = refused[v]
        elif v in refused:
            schema, position = refused[v]
            raise schema.no_derivative_error(position, f"the derivative w.r.t. input {i} of graph '{forward.name}'")
        graph.mark_output(grads[v] if v in grads else zeros(graph, v.type))
    return graph


def _install_into_control_flow() -> None:
    """The control-flow ops' rules derive VJP graphs of their regions with this transform (frame.ops sits below)."""
    from ..ops import control
    from .passes.dne import dne
    control.install_transforms(build_backward_graph=build_backward_graph, dne=dne)


_install_into_control_flow()
