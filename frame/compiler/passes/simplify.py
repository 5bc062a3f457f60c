"""Stage `simplify`: algebraic identities, mostly to clean up what autodiff leaves behind.

Derived graphs multiply by seeded ones, add zero gradients and negate twice. Rules, with 0 and 1
meaning constants whose every element is 0 or 1 (a result that broadcasts wider than the
surviving operand is written as `broadcast_to` of it):

- `x*1`, `x/1`, `x+0`, `x-0` -> x;  `0-x` -> -x;  `x*-1` -> -x;  `neg(neg(x))` -> x;
- `a - (-b)` -> a + b;  `a + (-b)` -> a - b;  `(-a) + b` -> b - a  (IEEE-exact);
- zero propagation: `x*0`, `0/x`, a bilinear op (matmul) with a zero factor, and a `linear` op whose operands are all zero
  give a zero of the output type. These are the algebra's identities; like every compiler that
  applies them to gradients, they drop the NaN/Inf that `inf*0` or `0/0` would produce at run time;
- splat constants through elementwise and element-moving ops fold into splats (shared with `fold`),
  so broadcasts and reshapes of constants never reach the executor;
- `broadcast_to(x)` read by a broadcasting elementwise op (add, sub, mul, div) whose result
  has the same shape without it -> x: the op broadcasts x itself, and the broadcast array is
  never materialised (a fused kernel then reads x's row instead of a full copy).
"""
from __future__ import annotations

import numpy as np

from ...ir.graph import Graph, Node, Value
from ...errors import ShapeError
from ...ir.registry import BROADCASTING, LINEAR, get
from ...ir.types import broadcast_dims, is_symbolic_shape
from .fold import fold_node
from .rewrite import Rewriter, is_splat, rewrite

def _is_neg(v: Value) -> bool:
    return v.node is not None and v.node.op == "neg"


def _broadcast(a, b):
    """numpy's broadcast of two shapes; with symbolic dimensions, frame's rule (None where it refuses)."""
    if not (is_symbolic_shape(a) or is_symbolic_shape(b)):
        return np.broadcast_shapes(a, b)
    try:
        return broadcast_dims("broadcast", a, b)
    except ShapeError:
        return None


def _unbroadcast(xs: list[Value], out) -> list[Value] | None:
    """The operands with `broadcast_to`s dropped where the result keeps its shape, or None if none is."""
    new = list(xs)
    for i, v in enumerate(xs):
        if v.node is not None and v.node.op == "broadcast_to":
            source = v.node.inputs[0]
            other = new[1 - i].type.shape
            if source.type.dtype == v.type.dtype and _broadcast(source.type.shape, other) == out.shape:
                new[i] = source
    return None if new == xs else new


def simplify(graph: Graph, options=None) -> Graph:
    """Apply the identities above in one forward sweep; `graph` is not modified."""

    def rule(rw: Rewriter, node: Node, xs: list[Value]):
        op = node.op
        if not node.outputs:
            return None
        out = node.outputs[0].type
        schema = get(op)
        if schema.has(BROADCASTING):
            unbroadcast = _unbroadcast(xs, out)
            if unbroadcast is not None:
                return rule(rw, node, unbroadcast) or rw.emit(op, unbroadcast, node.attrs)
        zero = [is_splat(v, 0) for v in xs]
        if op == "add":
            a, b = xs
            if zero[1]:
                return [rw.same_type_or_broadcast(a, out)]
            if zero[0]:
                return [rw.same_type_or_broadcast(b, out)]
            if _is_neg(b):
                return rw.emit("sub", [a, b.node.inputs[0]])
            if _is_neg(a):
                return rw.emit("sub", [b, a.node.inputs[0]])
        elif op == "sub":
            a, b = xs
            if zero[1]:
                return [rw.same_type_or_broadcast(a, out)]
            if zero[0]:
                return [rw.same_type_or_broadcast(rw.emit("neg", [b])[0], out)]
            if _is_neg(b):
                return rw.emit("add", [a, b.node.inputs[0]])
        elif op == "mul":
            a, b = xs
            if zero[0] or zero[1]:
                return [rw.splat(0, out)]
            for x, y in ((a, b), (b, a)):
                if is_splat(y, 1) and x.type.dtype == out.dtype:
                    return [rw.same_type_or_broadcast(x, out)]
                if is_splat(y, -1):
                    return [rw.same_type_or_broadcast(rw.emit("neg", [x])[0], out)]
        elif op == "div":
            if zero[0]:
                return [rw.splat(0, out)]
            if is_splat(xs[1], 1):
                return [rw.same_type_or_broadcast(xs[0], out)]
        elif op == "neg" and _is_neg(xs[0]):
            return [xs[0].node.inputs[0]]
        # ops that are zero as soon as one of the operands their block names is all zero
        if any(zero[i] for i in schema.zero_operands) and len(node.outputs) == 1:
            return [rw.splat(0, out)]
        if xs and all(zero) and schema.has(LINEAR):
            return [rw.splat(0, v.type) for v in node.outputs]
        return fold_node(rw, node, xs)

    return rewrite(graph, rule)
