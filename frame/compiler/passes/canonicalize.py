"""Stage `canonicalize`: one spelling per computation, so that `cse` and `simplify` see equal things.

Rewrites (all exact: they never change a single bit of any result):
- commutative `add`/`mul`: constant operand second, otherwise operands in definition order
  (IEEE addition and multiplication commute exactly), so `a*b` and `b*a` become one node in `cse`;
- identities removed: `reshape`/`broadcast_to` to the operand's own shape, `transpose` by the
  identity permutation, `sum` over no axes, a `slice` that keeps everything, `pow` by 1, and
  `stop_gradient` (an identity at run time: the pipeline's product is executed, not differentiated);
- chains composed: `reshape(reshape(x))`, `transpose(transpose(x))`, `broadcast_to(broadcast_to(x))`;
- an outer product is a broadcast `mul`: a matmul (either operand read transposed) whose contracted
  dimension is 1 computes one product per element and sums nothing, so `(N,1) @ (1,M)` is
  `mul((N,1), (1,M))`; as an elementwise op it then fuses with its neighbours (the input layer
  of an MLP, `tanh(x*W1 + b1)`, becomes one chain). A transposed operand with a size-1 dimension
  is a reshape. The one bit this can change is the sign of a zero product: BLAS accumulates from
  +0, so its `(-1) @ 0` is +0.0 where the product is -0.0 (equal values; `simplify`'s `x + 0 -> x`
  makes the same choice).
"""
from __future__ import annotations

from ...ir.graph import Graph, Node, Value
from ...ir.registry import COMMUTATIVE, get
from .rewrite import Rewriter, rewrite


class _Order:
    """Definition order of the values of the graph being built (inputs first), computed incrementally."""

    def __init__(self, rw: Rewriter):
        self.rw, self.seen, self.index = rw, 0, {}
        for i, v in enumerate(rw.graph.inputs):
            self.index[v] = (-1, i)

    def __call__(self, v: Value) -> tuple[int, int]:
        nodes = self.rw.graph.nodes
        while self.seen < len(nodes):
            for out in nodes[self.seen].outputs:
                self.index[out] = (self.seen, out.index)
            self.seen += 1
        return self.index[v]


def _is_constant(v: Value) -> bool:
    return v.node is not None and v.node.op == "constant"


def _outer_product(rw: Rewriter, attrs: dict, a: Value, b: Value, ordered) -> list[Value] | None:
    """`mul` for a matmul whose contracted dimension is 1 (rank >= 2 operands), else None."""
    if a.type.rank < 2 or b.type.rank < 2 or a.type.dtype != b.type.dtype:
        return None
    if attrs.get("transpose_a"):   # a^T: contracting a's second-to-last axis
        if a.type.shape[-2] != 1:
            return None
        a = rw.emit("reshape", [a], {"shape": (*a.type.shape[:-2], a.type.shape[-1], 1)})[0]
    elif a.type.shape[-1] != 1:
        return None
    if attrs.get("transpose_b"):   # b^T: contracting b's last axis
        b = rw.emit("reshape", [b], {"shape": (*b.type.shape[:-2], 1, b.type.shape[-2])})[0]
    return rw.emit("mul", ordered(rw, a, b))


def canonicalize(graph: Graph, options=None) -> Graph:
    """Put the graph in canonical form (see the module docstring); `graph` is not modified."""
    order = None

    def ordered(rw: Rewriter, a: Value, b: Value) -> list[Value]:
        """The operands of a commutative op in canonical order."""
        nonlocal order
        if order is None:
            order = _Order(rw)
        a_const, b_const = _is_constant(a), _is_constant(b)
        return [b, a] if (a_const and not b_const) or (a_const == b_const and order(a) > order(b)) else [a, b]

    def rule(rw: Rewriter, node: Node, xs: list[Value]):
        op, attrs = node.op, node.attrs
        out_type = node.outputs[0].type if node.outputs else None
        if get(op).has(COMMUTATIVE):
            operands = ordered(rw, *xs)
            return None if operands == xs else rw.emit(op, operands)
        if op in ("reshape", "broadcast_to"):
            x = xs[0]
            if x.type == out_type:
                return [x]
            if x.node is not None and x.node.op == op:  # compose the chain
                return rw.emit(op, [x.node.inputs[0]], attrs)
            return None
        if op == "transpose":
            x, perm = xs[0], attrs["perm"]
            if perm == tuple(range(len(perm))):
                return [x]
            if x.node is not None and x.node.op == "transpose":
                inner = x.node.attrs["perm"]
                composed = tuple(inner[p] for p in perm)
                if composed == tuple(range(len(composed))):
                    return [x.node.inputs[0]]
                return rw.emit("transpose", [x.node.inputs[0]], {"perm": composed})
            return None
        if op == "sum" and not attrs["axes"] and xs[0].type == out_type:
            return [xs[0]]
        if op == "slice" and xs[0].type == out_type and all(s == 1 for s in attrs["steps"]):
            return [xs[0]]
        if op == "pow" and attrs["exponent"] == 1.0:
            return [xs[0]]
        if op == "stop_gradient":
            return [xs[0]]
        if op == "matmul":
            return _outer_product(rw, attrs, *xs, ordered)
        return None

    return rewrite(graph, rule)
