"""Batching (`vmap`) as a graph-to-graph transform, like `build_backward_graph`.

`build_batched_graph(graph, in_axes, size, out_axes=None)` derives the graph that runs `graph` on
`size` examples at once. Its result is an ordinary graph: it verifies, compiles, runs, and is
differentiated, forward-differentiated or batched again like any other, so vmap composes with every
transform to any depth.

- `in_axes[i]` is None when input i is shared by every example (it keeps its type), or an int k
  when input i carries the examples along an extra axis of length `size` at position k.
- `out_axes[j]` (default 0 for every output) is the axis of output j's batch axis; an output that
  depends on no batched input is broadcast along it. None keeps output j unbatched, which is a
  `TraceError` when it depends on a batched input.
- Inside, every batched value has its batch axis at position 0: inputs are transposed there first,
  outputs moved to their `out_axes` last.
- Nodes are walked in order. A node with no batched operand is copied. Otherwise its op's batching
  rule (`batch_rule`) gives a micro-graph from the operands (batched ones with their batch axis
  leading) to the results batched at axis 0, inlined on the node's operands. A composite op without a
  rule is expanded into its decomposition first (as `build_backward_graph` does for gradients).

Rules (the rule signature and `traced_batch` are in frame/ops/batching_rules.py):

- the op's own `batch` field when it has one (reshape, transpose, broadcast_to, slice, pad, gather,
  scatter, scatter_add, mse_loss, debug_print, lstsq; `CUSTOM_VJP`/`CUSTOM_JVP` for custom_vjp_call and
  custom_jvp_call batch their body and rule graphs with this transform, so the user's rules survive);
- ELEMENTWISE ops of any arity, matmul, solve, the numpy.linalg ops and the fft ops: `LEADING` (the
  batch axis is one more leading axis; operands' ranks aligned for numpy's broadcasting), named in the
  non-elementwise ops' blocks as `batch=LEADING`;
- ops with `axis`/`axes` attributes and no rule of their own: `ALONG_AXES` (the axes move up by one;
  unbatched operands broadcast), derived here from the attributes;
- the per-example fallback `PER_EXAMPLE` (slice each example, apply, stack: correct, but the graph
  grows with the batch size) is used by exactly one op: `lstsq` (numpy's takes single matrices only).

Not batchable: `fused_elementwise_internal`, which the `fuse` pipeline stage creates after every
transform has run (so it never reaches one; it has no gradient rule either).
"""
from __future__ import annotations

from typing import Sequence

from ..errors import TraceError
from ..ir.clone import copy_nodes, inline_graph
from ..ir.graph import Graph, Value, outputs_depending_on
from ..ir.registry import ELEMENTWISE, NodeContext, OpSchema, get
from ..ir.types import TensorType
from ..ops.batching_rules import ALONG_AXES, LEADING, batched_type, install_batching
from .collector import collector_paused
from .passes.decompose import expand_composites


def batch_rule(schema: OpSchema):
    """The batching rule `(ctx, batched, size) -> micro-graph` of an op, or None: its `batch` field, else
    `LEADING` for ELEMENTWISE ops, else `ALONG_AXES` for ops with `axis`/`axes` attributes."""
    if schema.batch is not None:
        return schema.batch
    if schema.has(ELEMENTWISE):
        return LEADING
    if "axis" in schema.attrs or "axes" in schema.attrs:
        return ALONG_AXES
    return None


def _check_axes(graph: Graph, in_axes: Sequence, size: int, out_axes: Sequence | None) -> tuple[list, list]:
    if len(in_axes) != len(graph.inputs):
        raise TraceError(f"build_batched_graph: graph '{graph.name}' has {len(graph.inputs)} input(s), got "
                         f"{len(in_axes)} in_axes")
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise TraceError(f"build_batched_graph: the batch size must be a non-negative int, got {size!r}")
    out_axes = [0] * len(graph.outputs) if out_axes is None else list(out_axes)
    if len(out_axes) != len(graph.outputs):
        raise TraceError(f"build_batched_graph: graph '{graph.name}' has {len(graph.outputs)} output(s), got "
                         f"{len(out_axes)} out_axes")
    for kind, axes, values in (("in_axes", in_axes, graph.inputs), ("out_axes", out_axes, graph.outputs)):
        for i, (ax, v) in enumerate(zip(axes, values)):
            if ax is not None and (not isinstance(ax, int) or isinstance(ax, bool) or not 0 <= ax <= v.type.rank):
                where = "input" if kind == "in_axes" else "output"
                raise TraceError(f"build_batched_graph: {kind}[{i}] = {ax!r} is not a batch axis position for "
                                 f"{where} {i} ({v.type} per example): use 0..{v.type.rank} or None")
    return list(in_axes), out_axes


def _move_axis(graph: Graph, v: Value, source: int, dest: int) -> Value:
    if source == dest:
        return v
    perm = list(range(v.type.rank))
    perm.insert(dest, perm.pop(source))
    return graph.add_node("transpose", [v], {"perm": tuple(perm)}).output


def batched_outputs(graph: Graph, batched_inputs: Sequence[bool]) -> list[bool]:
    """Which outputs of `graph` depend on an input marked batched (those vmap gives a batch axis)."""
    return outputs_depending_on(graph, batched_inputs)


@collector_paused()
def build_batched_graph(graph: Graph, in_axes: Sequence[int | None], size: int,
                        out_axes: Sequence[int | None] | None = None) -> Graph:
    """Derive the graph that maps `graph` over `size` examples (see the module docstring for the contract).

    The result's inputs are `graph`'s, each batched input with an axis of length `size` inserted at its
    `in_axes` position; its outputs are `graph`'s, with the batch axis at `out_axes` (default 0).
    `graph` is not modified. An op without a batching rule raises `TraceError` naming it.
    """
    in_axes, out_axes = _check_axes(graph, in_axes, size, out_axes)
    mask = [ax is not None for ax in in_axes]
    for j, (ax, b) in enumerate(zip(out_axes, batched_outputs(graph, mask))):
        if ax is None and b:
            raise TraceError(f"vmap: output {j} of '{graph.name}' ({graph.outputs[j].type} per example) depends on "
                             "a batched input, so it cannot be left unbatched (out_axes None); give it an axis")
    # Composites without a rule of their own are batched through their decomposition.
    source = expand_composites(graph, lambda schema: batch_rule(schema) is None)
    out = Graph(f"{graph.name}_vmap")
    value_map: dict[Value, Value] = {}
    batched: set[Value] = set()
    for v, ax in zip(source.inputs, in_axes):
        if ax is None:
            value_map[v] = out.add_input(v.type)
            continue
        shape = list(v.type.shape)
        shape.insert(ax, size)
        value_map[v] = _move_axis(out, out.add_input(TensorType(tuple(shape), v.type.dtype, v.type.device)), ax, 0)
        batched.add(v)
    for node in source.nodes:
        flags = tuple(v in batched for v in node.inputs)
        if not any(flags):
            copy_nodes(out, [node], value_map)
            continue
        schema = get(node.op)
        rule = batch_rule(schema)
        if rule is None:
            raise TraceError(f"vmap: op '{node.op}' has no batching rule (graph '{graph.name}')")
        micro = rule(NodeContext(node.op, [v.type for v in node.inputs], node.attrs), flags, size)
        results = inline_graph(out, micro, [value_map[v] for v in node.inputs])
        for y, r in zip(node.outputs, results):
            value_map[y] = r
            batched.add(y)
    for v, ax in zip(source.outputs, out_axes):
        r = value_map[v]
        if ax is None:
            out.mark_output(r)
            continue
        if v not in batched:
            r = out.add_node("broadcast_to", [r], {"shape": tuple(batched_type(v.type, size).shape)}).output
        out.mark_output(_move_axis(out, r, 0, ax))
    return out


install_batching(build_batched_graph)   # the rules of ops whose attributes are graphs batch those graphs


def _install_into_control_flow() -> None:
    """The control-flow ops' batching rules batch their regions with this transform."""
    from ..ops import control
    control.install_transforms(build_batched_graph=build_batched_graph)


_install_into_control_flow()
