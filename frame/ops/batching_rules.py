"""Batching rules for `vmap` (frame/compiler/batching.py): the rule signature, `traced_batch`, the helpers
op blocks write their rules with, and the generic rules the transform derives from traits.

A batching rule is `rule(ctx, xs, batched, size) -> [y, ...]`, a Python function over tracers:

- `ctx` is the *unbatched* node's `NodeContext`: per-example input types and the attrs;
- `xs[i]` has shape `(size, *ctx.input_types[i].shape)` when `batched[i]` (the batch axis leads),
  else the per-example shape itself (the operand is shared by every example);
- it returns one tracer per output of the op, each batched at axis 0: `(size, *out.shape)`.

`traced_batch(rule)` turns a rule into what the registry's `batch` field holds:
`(ctx, batched, size) -> micro-graph` with inputs `xs` (batched ones with their batch axis) and
outputs the batched results, traced once per (op, input types, attrs, batched mask, size).

The generic rules (no per-op code; `frame/compiler/batching.py::batch_rule` picks them):

- `LEADING`: the op maps over leading axes and broadcasts them by numpy's rules (every ELEMENTWISE op,
  of any arity; matmul, solve and the numpy.linalg ops; the fft ops). The batch axis becomes one
  more leading axis: each batched operand of lower per-example rank than the widest operand is
  reshaped `(B, *s) -> (B, 1, .., 1, *s)` so ranks align; unbatched operands broadcast as they are.
- `ALONG_AXES`: ops whose `axis`/`axes` attributes name the operand axes they work along (the
  reductions, cumsum/cumprod, argmax/argmin, rev, concat, softmax/log_softmax/layer_norm): every
  operand gets the batch axis (unbatched ones broadcast) and each axis moves up by one.
- `PER_EXAMPLE`: the fallback for ops that cannot be batched cleanly: slice out each example, apply
  the op, stack the results. Correct, but the graph grows with the batch size; the compiler's
  module docstring lists the ops that use it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from ..errors import TraceError
from ..ir.clone import inline_graph
from ..ir.graph import Graph
from ..ir.printer import attrs_key
from ..ir.registry import NodeContext
from ..ir.types import Dim, TensorType
from ..tracing import bind, prim, trace_rule

if TYPE_CHECKING:
    from .fused import FusedBody

BatchRule = Callable[[NodeContext, list, tuple, int], list]


def batched_type(t: TensorType, size: int) -> TensorType:
    """`t` with a leading batch axis of `size`."""
    return TensorType((size, *t.shape), t.dtype, t.device)


def traced_batch(rule: BatchRule) -> Callable[[NodeContext, tuple, int], Graph]:
    """Turn `rule(ctx, xs, batched, size) -> [ys]` into a batching rule `(ctx, batched, size) -> micro-graph`.

    The micro-graph's inputs are the operands (batched ones typed `(size, *shape)`), its outputs the
    op's results batched at axis 0; memoised per (op, input types, attrs, batched mask, size).
    """
    graphs: dict[tuple, Graph] = {}

    def micro_graph(ctx: NodeContext, batched: tuple[bool, ...], size: int) -> Graph:
        key = (ctx.op, tuple(ctx.input_types), attrs_key(ctx.attrs), tuple(batched), int(size))
        graph = graphs.get(key)
        if graph is None:
            graph = graphs[key] = _trace_batch(rule, ctx, tuple(batched), int(size))
        return graph

    micro_graph.rule = rule
    return micro_graph


def _trace_batch(rule: BatchRule, ctx: NodeContext, batched: tuple[bool, ...], size: int) -> Graph:
    out_types = ctx.output_types
    graph = Graph(f"{ctx.op}_batch")
    xs = [graph.add_input(batched_type(t, size) if b else t) for t, b in zip(ctx.input_types, batched)]

    def body(xs):
        ys = list(rule(ctx, xs, batched, size))
        if len(ys) != len(out_types):
            raise TraceError(f"batching rule of '{ctx.op}' returned {len(ys)} results for {len(out_types)} outputs")
        return ys

    outs = trace_rule(graph, body, xs)
    for i, (v, t) in enumerate(zip(outs, out_types)):
        want = batched_type(t, size)
        if v.type.shape != want.shape or v.type.dtype != want.dtype:
            raise TraceError(f"batching rule of '{ctx.op}' gives output {i} the type {v.type}, expected {want}")
    return graph


# ---------------------------------------------------------------------------------------------
# Helpers for rules

def reshape(x, shape):
    """`x` reshaped to `shape`, without a node when the shape is already that."""
    shape = tuple(d if type(d) is Dim else int(d) for d in shape)   # symbolic sizes stay symbols
    return x if tuple(x.shape) == shape else prim.reshape(x, shape=shape)


def lead(x, rank: int):
    """A batched `x` of shape (B, *s) as (B, 1, .., 1, *s) with `rank` axes after the batch axis, so that
    it broadcasts against per-example operands of that rank as the unbatched `s` would."""
    b, *s = x.shape
    return reshape(x, (b, *(1,) * (rank - len(s)), *s))


def materialize(x, is_batched: bool, size: int):
    """`x` with the batch axis: a batched operand as it is, an unbatched one broadcast to (size, *shape)."""
    return x if is_batched else prim.broadcast_to(x, shape=(size, *x.shape))


def per_example_rank(x, is_batched: bool) -> int:
    return x.ndim - 1 if is_batched else x.ndim


def aligned(xs, batched) -> list:
    """The operands of a broadcasting op with every batched one `lead`-reshaped to the widest per-example rank."""
    rank = max((per_example_rank(x, b) for x, b in zip(xs, batched)), default=0)
    return [lead(x, rank) if b else x for x, b in zip(xs, batched)]


def _as_list(out) -> list:
    return list(out) if isinstance(out, (list, tuple)) else [out]


# ---------------------------------------------------------------------------------------------
# The generic rules

def _leading(ctx, xs, batched, size):
    return _as_list(bind(ctx.op, *aligned(xs, batched), **ctx.attrs))


def _shift_axis(axis: int, rank: int) -> int:
    return (axis % rank if rank else 0) + 1


def _along_axes(ctx, xs, batched, size):
    rank = ctx.input_types[0].rank
    attrs = dict(ctx.attrs)
    if "axis" in attrs:
        attrs["axis"] = _shift_axis(attrs["axis"], rank)
    if "axes" in attrs:
        attrs["axes"] = tuple(_shift_axis(a, rank) for a in attrs["axes"])
    return _as_list(bind(ctx.op, *[materialize(x, b, size) for x, b in zip(xs, batched)], **attrs))


def example(x, is_batched: bool, i: int):
    """Example `i` of a batched operand (an unbatched one is every example)."""
    if not is_batched:
        return x
    r = x.ndim
    part = prim.slice(x, starts=(i,) + (0,) * (r - 1), stops=(i + 1, *x.shape[1:]), steps=(1,) * r)
    return reshape(part, x.shape[1:])


def stack(ys: Sequence) -> object:
    """Per-example results stacked along a new leading axis."""
    rows = [reshape(y, (1, *y.shape)) for y in ys]
    return rows[0] if len(rows) == 1 else prim.concat(*rows, axis=0)


def _per_example(ctx, xs, batched, size):
    if size == 0:
        return [np.zeros((0, *t.shape), t.dtype) for t in ctx.output_types]
    results = [_as_list(bind(ctx.op, *[example(x, b, i) for x, b in zip(xs, batched)], **ctx.attrs))
               for i in range(size)]
    return [stack([r[k] for r in results]) for k in range(len(ctx.output_types))]


LEADING = traced_batch(_leading)
ALONG_AXES = traced_batch(_along_axes)
PER_EXAMPLE = traced_batch(_per_example)


def batch_positions(size: int, shape: Sequence[int], dtype: str = "int64") -> np.ndarray:
    """The batch position of every element of a batched index array of shape (size, *shape): the extra
    leading index that makes gather and scatter reach each example's own slice of a batched operand."""
    arange = np.arange(size, dtype=dtype).reshape((size,) + (1,) * len(shape))
    return np.ascontiguousarray(np.broadcast_to(arange, (size, *shape)))


# ---------------------------------------------------------------------------------------------
# Ops whose attributes are graphs (custom_vjp_call, custom_jvp_call): batch the graphs themselves

# frame.compiler.batching's `build_batched_graph`, installed when that module loads: the transform
# lives above the op families, which cannot import it (as frame/ops/custom.py's reverse mode).
_TRANSFORM: dict = {}


def install_batching(build_batched_graph) -> None:
    """Give the rules below the batching transform (called by frame/compiler/batching.py)."""
    _TRANSFORM["build_batched_graph"] = build_batched_graph


def _batched_body(graph: Graph, in_axes, size: int, sum_outputs=()) -> FusedBody:
    """`graph` batched (outputs at axis 0), frozen as a graph attribute; outputs listed in `sum_outputs`
    summed over the batch axis (the cotangents of operands shared by every example)."""
    from .fused import FusedBody
    batched = _TRANSFORM["build_batched_graph"](graph, list(in_axes), size)
    if sum_outputs:
        out = Graph(batched.name)
        ys = inline_graph(out, batched, [out.add_input(v.type) for v in batched.inputs])
        for i, y in enumerate(ys):
            if i in sum_outputs:
                y = out.add_node("sum", [y], {"axes": (0,), "keepdims": False}).output
            out.mark_output(y)
        batched = out
    return FusedBody.of(batched)


def _custom_vjp_batch(ctx, xs, batched, size):
    """A custom_vjp_call batched keeps the user's rule: body and fwd batched over the mapped operands,
    bwd over all of its inputs (residuals and cotangents are per example), with the per-example
    cotangents of shared operands summed, as the batched function's VJP gives them."""
    body, fwd, bwd = ctx.attrs["body"], ctx.attrs["fwd"], ctx.attrs["bwd"]
    axes = [0 if b else None for b in batched]
    shared = {i for i, b in enumerate(batched) if not b}
    return _as_list(bind(ctx.op, *xs, body=_batched_body(body, axes, size), fwd=_batched_body(fwd, axes, size),
                         bwd=_batched_body(bwd, [0] * len(bwd.inputs), size, shared)))


def _custom_jvp_batch(ctx, xs, batched, size):
    """A custom_jvp_call batched keeps the user's rule: body and jvp batched, a tangent batched with its operand."""
    axes = [0 if b else None for b in batched]
    return _as_list(bind(ctx.op, *xs, body=_batched_body(ctx.attrs["body"], axes, size),
                         jvp=_batched_body(ctx.attrs["jvp"], axes + axes, size)))


CUSTOM_VJP = traced_batch(_custom_vjp_batch)
CUSTOM_JVP = traced_batch(_custom_jvp_batch)
