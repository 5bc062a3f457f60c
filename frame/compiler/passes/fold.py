"""Stage `fold`: constant folding by running each op's own numpy kernel at compile time.

A node whose operands are all constants becomes a constant holding the kernel's result, so the
folded value is exactly what execution would have produced. Two cases:
- all operands are splats (every element equal) and the op is elementwise or only moves
  elements (reshape, broadcast, transpose, slice): the kernel runs on single
  elements and the result is stored as a zero-stride splat, whatever the shape;
- otherwise the kernel runs on the full constants, when the result is small (`FOLD_MAX_ELEMENTS`),
  so folding never inflates the graph with large literal arrays.
Side-effect ops are never folded, nor region ops whose bodies hold one (`has_effects`).
"""
from __future__ import annotations

import numpy as np

from ...ir.graph import Graph, Node, Value
from ...ir.registry import ELEMENTWISE, VIEW, get
from .rewrite import Rewriter, constant_value, has_effects, rewrite, splat_value

FOLD_MAX_ELEMENTS = 4096

def fold_node(rw: Rewriter, node: Node, xs: list[Value]) -> list[Value] | None:
    """The folded outputs of `node` (operands `xs` in `rw`'s graph), or None when it cannot be folded."""
    if node.op == "constant" or not node.outputs or not xs:
        return None
    if any(v.type.is_symbolic for v in node.outputs):   # no constant has a size known only at a call:
        return _fold_symbolic_splat(rw, node, xs)      # only splats fold, into broadcast scalars
    arrays = [constant_value(v) for v in xs]
    if any(a is None for a in arrays):
        return None
    schema = get(node.op)
    if has_effects(node):
        return None
    splats = [splat_value(v) for v in xs]
    if len(node.outputs) == 1 and all(s is not None for s in splats) and (
            schema.has(VIEW) or schema.has(ELEMENTWISE)):
        out_type = node.outputs[0].type
        if schema.has(VIEW):   # a view of a splat is a splat of the output shape with the same element
            element = splats[0]
        else:
            with np.errstate(all="ignore"):  # the same non-finite result execution would produce
                element = schema.kernel(*[np.asarray(s, dtype=v.type.dtype) for s, v in zip(splats, xs)],
                                        **node.attrs)
        return [rw.splat(np.asarray(element, dtype=out_type.dtype), out_type)]
    if any(v.type.size > FOLD_MAX_ELEMENTS for v in node.outputs):
        return None
    with np.errstate(all="ignore"):
        result = schema.kernel(*arrays, **node.attrs)
    results = [result] if len(node.outputs) == 1 else list(result)
    return [rw.constant(np.array(np.asarray(r, dtype=v.type.dtype).reshape(v.type.shape)))
            for r, v in zip(results, node.outputs)]


def _splat_or_broadcast(v: Value):
    """The element of a splat constant, or of a scalar splat broadcast to a symbolic shape; else None."""
    if v.node is not None and v.node.op == "broadcast_to" and v.type.is_symbolic:
        v = v.node.inputs[0]
    return splat_value(v)


def _fold_symbolic_splat(rw: Rewriter, node: Node, xs: list[Value]) -> list[Value] | None:
    """An elementwise op or view of splats with a symbolic result: one broadcast scalar (`x*0 + 1` of a
    symbolic x's zeros is a broadcast one), as `fold_node` folds concrete splats."""
    schema = get(node.op)
    if len(node.outputs) != 1 or has_effects(node) or not (schema.has(VIEW) or schema.has(ELEMENTWISE)):
        return None
    splats = [_splat_or_broadcast(v) for v in xs]
    if any(s is None for s in splats):
        return None
    out_type = node.outputs[0].type
    if schema.has(VIEW):
        element = splats[0]
    else:
        with np.errstate(all="ignore"):
            element = schema.kernel(*[np.asarray(s, dtype=v.type.dtype) for s, v in zip(splats, xs)], **node.attrs)
    if node.op == "broadcast_to" and xs[0].node is not None and xs[0].node.op == "constant":
        return None   # already the folded form
    return [rw.splat(np.asarray(element, dtype=out_type.dtype), out_type)]


def fold(graph: Graph, options=None) -> Graph:
    """Replace every foldable node by its constant result; `graph` is not modified."""
    return rewrite(graph, fold_node)
