"""Taylor mode as a graph-to-graph transform: `build_taylor_graph` (issue 15 item 3).

Every value x of the graph is carried as a truncated power series x(t) = x_0 + x_1 t + ... + x_K t^K
(x_0 the primal; *normalised* coefficients x_k = x^(k)(0) / k! inside the transform). The graph's
inputs and outputs use `jax.experimental.jet`'s convention instead, the derivatives x^(k) = k! x_k
of the path: input series are scaled by 1/k! where they enter, output series by k! where they
leave. The result is an ordinary graph of differentiable ops: it verifies, compiles, runs, and can
be differentiated again (a PINN loss built on it has parameter gradients) like any graph.

Rules, derived from the registry wherever possible (one rule kind per node, chosen in this order):

- a `taylor` fact in the op's block (below), when the derivation is wrong or much worse;
- `LINEAR` trait: coefficient k is the op applied to the operands' coefficients k (non-float
  operands such as indices or conditions as they are; zero coefficients as zeros);
- `BILINEAR` trait (mul, matmul): the Cauchy product y_k = sum_j op(a_j, b_{k-j});
- `ELEMENTWISE` ops with a gradient rule gy * h_i(x, y) for each operand i: the ODE y' = sum_i h_i x_i',
  i.e. k y_k = sum_i sum_{j=1..k} j x_{i,j} h_{i,k-j}. The h_i are the op's own gradient
  micro-graph (traced with gy = 1, operands broadcast to the result's shape, pruned to the
  differentiated operands) inlined into the graph and Taylor-propagated like every other node,
  lazily: a node needed to order m needs its h only to order m - 1, so h's own h's nest at most K
  deep, and nodes equal to one already propagated (op, attrs, operands) share its series (sin's h
  is cos(x), whose h is -sin(x): the series being built). That covers exp, tanh, sin/cos, sigmoid,
  sqrt, log, the inverse trigonometric functions, erf, ... with no per-op code;
- composites no rule above covers expand into their decompositions first (`expand_composites`).

Fail loud (ARCH-062): an op on the path from the series inputs to an output with none of these
raises `GradientError` naming it, and so does an op that is not analytic there: an elementwise op
whose derivative is zero (sign, floor, ...: piecewise constant), any op that computes a float
from a discrete value (bool, int) that depends on a series input (`where` selecting by a
comparison, a `convert` from one), and an op whose derivative needs one of those (abs through
sign, relu and maximum through a comparison-driven where). A series reaching an operand the op has
no derivative in (`OpSchema.no_derivative`: gammainc's shape a) is refused naming the op and operand.

The `taylor` fact of an op's block (OpSchema.taylor) is one of:

- `"linear"`: the op is linear in its float operands (its other operands held fixed), as the
  LINEAR trait says for ops that are linear in all operands (`where`: linear in its two values
  for a fixed condition; `convert` between float dtypes);
- `"zero"`: the series of the result is zero whatever the operands' (`stop_gradient`): the
  operands' series are not even computed;
- `"not analytic"`: refused, for ops whose derivative rule does not show it (mod, fmod: they jump);
- a recurrence `rule(ctx, k, xs, ys) -> [y_k for each output]`, called once per order k = 1..K:
  `xs[i][j]` (j = 0..k) and `ys[o][j]` (j = 0..k-1) are the operands' and outputs' normalised
  coefficients as objects that support `+ - *` among themselves (elementwise, numpy broadcasting),
  `/` by an order-0 coefficient (a primal), and `*`, `/` by Python numbers; a zero coefficient is
  such an object too (it vanishes in sums and products). Return those objects (or None for zero).
  div's fact is the classic recurrence y_k = (a_k - sum_{j>=1} b_j y_{k-j}) / b_0.

Schedule: node by node in the graph's order, each node propagated to all its orders (with the
derivative nodes it inlined, order by order, since its recurrence reads their lower orders) before
the next one; its operands are complete by then. The derived graph so reads layer by layer, and
the fused kernels of a layer's orders share their operands while they are in cache.

Collapsed Taylor mode (`directions=d`): d series share one primal; coefficients of orders below
K are kept per direction (d values), and the order-K coefficient is summed over the directions
(products of per-direction terms reaching order K are contracted). With K = 2 and the unit
directions that is the forward Laplacian: one propagation gives u, its d first derivatives and
sum_i d^2u/dx_i^2.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ..errors import GradientError
from ..ir.clone import clone_graph, copy_nodes, inline_graph
from ..ir.graph import Graph, Node, Value
from ..ir.printer import attrs_key
from ..ir.registry import BILINEAR, ELEMENTWISE, LINEAR, NodeContext, OpSchema, get
from .collector import collector_paused
from .passes.decompose import expand_composites

LINEAR_FACT, ZERO_FACT, NOT_ANALYTIC_FACT = "linear", "zero", "not analytic"


def _expandable(schema: OpSchema) -> bool:
    """Composites that Taylor mode differentiates through their decomposition: those no rule covers.
    An elementwise composite with a gradient rule keeps it (softplus: h = sigmoid(x) is analytic where
    its stable decomposition goes through relu and |x|)."""
    return schema.taylor is None and not schema.has(LINEAR) and not schema.has(BILINEAR) and not (
        schema.has(ELEMENTWISE) and schema.gradient is not None)


def _splat(v: Value):
    """The one value every element of constant `v` has, or None."""
    node = v.node
    if node is None or node.op != "constant":
        return None
    a = node.attrs["value"]
    if a.size == 0:
        return None
    first = a.flat[0]
    return first if np.all(a == first) else None


class _Coef:
    """A normalised coefficient of order `order` as the recurrences of `taylor` facts see it."""

    __slots__ = ("t", "raw", "order")

    def __init__(self, t: "_Taylor", raw, order: int):
        self.t, self.raw, self.order = t, raw, order

    def _other(self, other) -> "_Coef":
        if isinstance(other, _Coef):
            return other
        if other == 0:
            return _Coef(self.t, None, self.order)
        raise GradientError(f"Taylor rule: a coefficient can only be added to a coefficient, got {other!r}")

    def __add__(self, other):
        other = self._other(other)
        return _Coef(self.t, self.t.add(self.raw, other.raw), max(self.order, other.order))

    __radd__ = __add__

    def __neg__(self):
        return _Coef(self.t, self.t.unary("neg", self.raw), self.order)

    def __sub__(self, other):
        other = self._other(other)
        return _Coef(self.t, self.t.sub(self.raw, other.raw), max(self.order, other.order))

    def __rsub__(self, other):
        return self._other(other) - self

    def __mul__(self, other):
        if isinstance(other, _Coef):
            order = self.order + other.order
            return _Coef(self.t, self.t.product("mul", {}, self.raw, other.raw, order), order)
        return _Coef(self.t, self.t.scale(other, self.raw), self.order)

    __rmul__ = __mul__

    def __truediv__(self, other):
        if isinstance(other, _Coef):
            if other.order != 0:
                raise GradientError("Taylor rule: coefficients can only be divided by a primal (order 0)")
            return _Coef(self.t, self.t.map_binary("div", self.raw, other.raw), self.order)
        return _Coef(self.t, self.t.scale(1.0 / other, self.raw), self.order)


class _Taylor:
    """The transform's state: the graph being built and every propagated value's coefficients."""

    def __init__(self, graph: Graph, order: int, directions: int | None, name: str):
        self.g, self.K, self.d, self.name = graph, order, directions, name
        self.coef: dict[Value, list] = {}       # value -> [primal, c_1, ..., c_m] (None: zero)
        self.discrete: dict[Value, str] = {}    # bool/int values computed from a series input -> the op
        self.owner: dict[Node, str] = {}        # inlined derivative nodes -> the op they differentiate
        self.seen: dict[tuple, Node] = {}       # (op, attrs, operands) -> the node propagated for them
        self.order_of: dict[Node, int] = {}     # propagated node -> the order m it is propagated to
        self.schedule: list = []                # (node, m, step) in propagation order
        self._consts: dict[tuple, Value] = {}
        self._ones: set[Value] = set()          # the gy = 1 of inlined derivatives: products skip it
        self._scaled: dict[tuple, object] = {}

    # -- coefficient algebra: a coefficient is None (zero), a Value, or (collapsed mode, order < K)
    #    a tuple of Values, one per direction
    def node(self, op: str, inputs: Sequence[Value], attrs=None) -> Value:
        return self.g.add_node(op, list(inputs), attrs or {}).output

    def const(self, value: float, dtype: str) -> Value:
        key = (float(np.real(value)), float(np.imag(value)), dtype)
        v = self._consts.get(key)
        if v is None:
            v = self._consts[key] = self.node("constant", [], {"value": np.asarray(value, dtype=dtype)})
        return v

    def full(self, value: float, t) -> Value:
        key = ("full", value, t.shape, t.dtype)
        v = self._consts.get(key)
        if v is None:
            v = self._consts[key] = (self.g.full(t, value) if t.is_symbolic else   # a broadcast scalar for symbols
                                     self.node("constant", [], {"value": np.full(t.shape, value, t.dtype)}))
            if value == 1:
                self._ones.add(v)
        return v

    @staticmethod
    def _map(fn, *cs):
        """fn over the directions when any of `cs` is per direction (the others broadcast)."""
        tuples = [c for c in cs if isinstance(c, tuple)]
        if not tuples:
            return fn(*cs)
        return tuple(fn(*[c[i] if isinstance(c, tuple) else c for c in cs]) for i in range(len(tuples[0])))

    def add(self, a, b):
        if a is None:
            return b
        if b is None:
            return a
        return self._map(lambda x, y: self.node("add", [x, y]), a, b)

    def sub(self, a, b):
        if b is None:
            return a
        if a is None:
            return self.unary("neg", b)
        return self._map(lambda x, y: self.node("sub", [x, y]), a, b)

    def unary(self, op: str, a, attrs=None):
        return None if a is None else self._map(lambda x: self.node(op, [x], attrs), a)

    def map_binary(self, op: str, a, primal: Value):
        return None if a is None else self._map(lambda x: self.node(op, [x, primal]), a)

    def scale(self, c, a):
        if a is None or c == 0:
            return None
        if c == 1:
            return a
        return self._map(lambda x: self.node("mul", [self.const(c, x.type.dtype), x]), a)

    def scaled(self, v: Value, j: int):
        """j * v_j, kept: every order's ODE sum reads it."""
        key = (v, j)
        if key not in self._scaled:
            self._scaled[key] = self.scale(j, self.c(v, j))
        return self._scaled[key]

    def product(self, op: str, attrs, a, b, order: int):
        """op(a, b) for a bilinear op, contracting the directions when the product reaches the top order."""
        if a is None or b is None:
            return None
        if op == "mul":  # the gy = 1 of inlined derivatives (full-shape ones) is skipped
            for x, y in ((a, b), (b, a)):
                if y in self._ones and self._shape(x) == y.type.shape:
                    return x
        apply = lambda x, y: self.node(op, [x, y], attrs)  # noqa: E731
        if isinstance(a, tuple) and isinstance(b, tuple) and order == self.K:
            total = None
            for x, y in zip(a, b):
                total = self.add(total, apply(x, y))
            return total
        return self._map(apply, a, b)

    @staticmethod
    def _shape(c):
        return (c[0] if isinstance(c, tuple) else c).type.shape

    def c(self, v: Value, k: int):
        """Coefficient k of v (its primal for k = 0; None: zero)."""
        if k == 0:
            return v
        series = self.coef.get(v)
        if series is None:
            return None
        if k >= len(series):
            raise AssertionError(f"Taylor mode: coefficient {k} of {v} read before it was computed")
        return series[k]

    def fit(self, c, t):
        """Coefficient c brought to type t (an elementwise rule's terms may broadcast narrower)."""
        def one(x):
            if x.type.shape != t.shape:
                x = self.node("broadcast_to", [x], {"shape": t.shape})
            return x
        return None if c is None else self._map(one, c)

    # -- errors
    def subject(self, node: Node) -> str:
        owner = self.owner.get(node)
        return f"op '{owner}' (its derivative uses '{node.op}')" if owner else f"op '{node.op}'"

    def fail(self, node: Node, why: str):
        raise GradientError(f"Taylor mode: {self.subject(node)} in graph '{self.name}' {why}")

    # -- propagation
    def visit(self, node: Node, m: int, pending: list) -> None:
        """Set node up for orders 1..m and compute its order 1; inlined derivative nodes go to `pending`
        as (node, order they are needed to)."""
        deps = [v for v in node.inputs if v in self.coef or v in self.discrete]
        if not deps:
            return
        outputs_float = [v for v in node.outputs if v.type.is_inexact]
        discrete = [v for v in deps if v in self.discrete]
        if not outputs_float:
            origin = self.discrete[discrete[0]] if discrete else node.op
            for v in node.outputs:
                self.discrete[v] = origin
            return
        if discrete:
            v = discrete[0]
            self.fail(node, f"is not analytic: it computes a float from the {v.type.dtype} result of "
                            f"'{self.discrete[v]}' of a differentiated value, so it is piecewise (Taylor mode needs "
                            "analytic functions)")
        key = (node.op, attrs_key(node.attrs), tuple(node.inputs))
        hit = self.seen.get(key)
        if hit is not None and self.order_of[hit] >= m:
            for old, new in zip(hit.outputs, node.outputs):
                if old in self.coef:
                    self.coef[new] = self.coef[old]
            return
        schema = get(node.op)
        step = self.rule(node, schema, m, pending)
        if step is None:   # a zero series
            return
        for v in node.outputs:
            if v.type.is_inexact:
                self.coef[v] = [v]
        self.seen[key], self.order_of[node] = node, m
        self.run(node, step, 1)
        self.schedule.append((node, m, step))

    def run(self, node: Node, step, k: int) -> None:
        results = step(k)
        for v, c in zip(node.outputs, results):
            if v in self.coef:
                self.coef[v].append(self.fit(c, v.type))

    def rule(self, node: Node, schema: OpSchema, m: int, pending: list):
        for i in schema.no_derivative:   # before any rule: the gradient rule's None there would read as zero
            if node.inputs[i] in self.coef:
                owner = self.owner.get(node)
                where = f"a series (Taylor mode, graph '{self.name}'" + (f", in the derivative of '{owner}')"
                                                                          if owner else ")")
                raise schema.no_derivative_error(i, where)
        fact = schema.taylor
        if fact == ZERO_FACT:
            return None
        if fact == NOT_ANALYTIC_FACT:
            self.fail(node, "is not analytic (its block says so): Taylor mode has no series for it")
        if fact == LINEAR_FACT or (fact is None and schema.has(LINEAR)):
            return lambda k: self.linear(node, k)
        if callable(fact):
            return lambda k: self.recurrence(node, fact, k)
        if fact is not None:
            raise GradientError(f"op '{node.op}': unknown taylor fact {fact!r} (expected 'linear', 'zero', "
                                "'not analytic' or a rule)")
        if schema.has(BILINEAR):
            return lambda k: self.bilinear(node, k)
        if schema.has(ELEMENTWISE) and schema.gradient is not None:
            return self.ode(node, schema, m, pending)
        if schema.gradient is None:
            self.fail(node, "has no derivative, so it has no Taylor rule")
        if any(isinstance(v, Graph) for v in node.attrs.values()):
            self.fail(node, "is control flow (cond, scan, while): Taylor mode does not propagate series through "
                            "regions; nest frame.jvp (forward mode works through them) or unroll the loop")
        self.fail(node, "has no Taylor rule (Taylor mode propagates linear, bilinear and elementwise ops, ops with a "
                        "taylor fact, and composites through their decompositions)")

    def linear(self, node: Node, k: int):
        operands, present = [], False
        for v in node.inputs:
            if not v.type.is_inexact:
                operands.append(v)
            else:
                c = self.c(v, k)
                present |= c is not None
                operands.append(c if c is not None else self.full(0, v.type))
        if not present:
            return [None] * len(node.outputs)
        if any(isinstance(c, tuple) for c in operands):
            per_dir = self._map(lambda *xs: tuple(self.g.add_node(node.op, list(xs), node.attrs).outputs), *operands)
            return [tuple(outs[i] for outs in per_dir) for i in range(len(node.outputs))]
        return self.g.add_node(node.op, operands, node.attrs).outputs

    def bilinear(self, node: Node, k: int):
        a, b = node.inputs
        total = None
        for j in range(k + 1):
            total = self.add(total, self.product(node.op, node.attrs, self.c(a, j), self.c(b, k - j), k))
        return [total]

    def recurrence(self, node: Node, rule, k: int):
        xs = [[_Coef(self, self.c(v, j), j) for j in range(k + 1)] for v in node.inputs]
        ys = [[_Coef(self, self.c(v, j), j) for j in range(k)] for v in node.outputs]
        ctx = NodeContext(node.op, [v.type for v in node.inputs], node.attrs)
        out = rule(ctx, k, xs, ys)
        if len(out) != len(node.outputs):
            raise GradientError(f"taylor rule of '{node.op}' returned {len(out)} coefficients for {len(node.outputs)} "
                                "outputs")
        return [None if c is None or isinstance(c, (int, float)) and c == 0 else c.raw for c in out]

    def ode(self, node: Node, schema: OpSchema, m: int, pending: list):
        """The rule of an elementwise op from its derivative: k y_k = sum_i sum_j j x_{i,j} h_{i,k-j}."""
        (y,) = node.outputs
        dep = tuple(i for i, v in enumerate(node.inputs) if v in self.coef)
        h_graph = _derivative_graph(node.op, tuple(v.type for v in node.inputs), y.type, node.attrs, dep)
        if h_graph is None:
            self.fail(node, f"is not analytic: '{node.op}' is piecewise constant in a differentiated operand (its "
                            "derivative is zero wherever it exists), so Taylor mode has no series for it")
        start, args = len(self.g.nodes), []
        for v in node.inputs:
            if v.type.shape != y.type.shape:   # the derivative at the result's shape, not summed back
                v = self.node("broadcast_to", [v], {"shape": y.type.shape})
            args.append(v)
        hs = inline_graph(self.g, h_graph, [*args, y, self.full(1, y.type)])
        owner = self.owner.get(node, node.op)
        for new in self.g.nodes[start:]:
            self.owner[new] = owner
            if m > 1:   # h is needed to order m - 1 only: h's own h's nest at most K deep
                pending.append((new, m - 1))
        xs = [node.inputs[i] for i in dep]

        def step(k):
            total = None
            for x, h in zip(xs, hs):
                for j in range(1, k + 1):
                    total = self.add(total, self.product("mul", {}, self.scaled(x, j), self.c(h, k - j), k))
            return [self.scale(1.0 / k, total)]
        return step


_DERIVATIVES: dict[tuple, Graph | None] = {}


def _derivative_graph(op: str, input_types: tuple, out_type, attrs: dict, dep: tuple) -> Graph | None:
    """The graph [x..., y, gy] -> [h_i for i in dep] of op's gradient rule, operands at the result's shape,
    composites expanded and pruned to the outputs asked for; None when an h_i is zero."""
    key = (op, input_types, out_type, attrs_key(attrs), dep)
    if key in _DERIVATIVES:
        return _DERIVATIVES[key]
    from ..ir.types import TensorType
    types = [TensorType(out_type.shape, t.dtype, t.device) for t in input_types]
    micro = get(op).gradient(NodeContext(op, types, dict(attrs)))
    micro = expand_composites(micro, _expandable)
    outs = [micro.outputs[i] for i in dep]
    if any(_splat(v) == 0 for v in outs):   # piecewise constant in that operand (floor, heaviside's x1)
        _DERIVATIVES[key] = None
        return None
    needed, keep = set(outs), []
    for n in reversed(micro.nodes):
        if any(v in needed for v in n.outputs):
            keep.append(n)
            needed.update(n.inputs)
    pruned = Graph(f"{op}_taylor_h")
    value_map = {v: pruned.add_input(v.type) for v in micro.inputs}
    copy_nodes(pruned, list(reversed(keep)), value_map)
    for v in outs:
        pruned.mark_output(value_map[v])
    _DERIVATIVES[key] = pruned
    return pruned


def _check(graph: Graph, wrt_input_indices: Sequence[int], order, input_orders, directions):
    n_in = len(graph.inputs)
    if isinstance(order, bool) or not isinstance(order, (int, np.integer)) or order < 1:
        raise GradientError(f"Taylor mode: order must be a positive int, got {order!r}")
    wrt = [int(i) for i in wrt_input_indices]
    for i in wrt:
        if not 0 <= i < n_in:
            raise GradientError(f"Taylor mode: wrt input index {i} is out of range: graph '{graph.name}' has {n_in} "
                                "input(s)")
        if not graph.inputs[i].type.is_inexact:
            raise GradientError(f"Taylor mode: input {i} of graph '{graph.name}' is {graph.inputs[i].type}; series "
                                "need float or complex inputs")
    if len(set(wrt)) != len(wrt):
        raise GradientError(f"Taylor mode: wrt input indices {wrt} contain duplicates")
    if input_orders is None:
        input_orders = [tuple(range(1, order + 1))] * len(wrt)
    input_orders = [tuple(int(k) for k in ks) for ks in input_orders]
    if len(input_orders) != len(wrt) or any(not 1 <= k <= order for ks in input_orders for k in ks) or any(
            len(set(ks)) != len(ks) for ks in input_orders):
        raise GradientError(f"Taylor mode: input_orders {input_orders} must give, for each of the {len(wrt)} wrt "
                            f"input(s), distinct orders in 1..{order}")
    if directions is not None and (isinstance(directions, bool) or not isinstance(directions, (int, np.integer))
                                   or directions < 1):
        raise GradientError(f"Taylor mode: directions must be a positive int or None, got {directions!r}")
    return wrt, input_orders


@collector_paused()
def build_taylor_graph(graph: Graph, wrt_input_indices: Sequence[int], order: int,
                       input_orders: Sequence[Sequence[int]] | None = None, directions: int | None = None,
                       factorial_scaled: bool = True) -> Graph:
    """Derive the Taylor-mode graph of `graph` to order K = `order` (jet's convention, module docstring;
    `factorial_scaled=False`: the normalised coefficients x_k = x^(k) / k! instead, as jet's option).

    Inputs: `graph`'s inputs, then for each wrt input (in the order given) its series terms
    x^(k) for the orders in `input_orders[i]` (default 1..K; orders left out are zero, which makes
    the derived graph smaller: a line x + t v is `input_orders=[(1,)]`). Outputs: `graph`'s
    outputs, then for each output its terms y^(1)..y^(K). With `directions=d` (collapsed mode)
    every term of an order below K is d terms, one per direction, both among the inputs and the
    outputs, and the order-K term of each output is the sum over the directions.

    `graph` is not modified. Inputs not listed have no series (they are held fixed). An op on the
    way from a series to an output without a Taylor rule, or not analytic, raises `GradientError`
    naming it.
    """
    wrt, input_orders = _check(graph, wrt_input_indices, order, input_orders, directions)
    K = int(order)
    d = None if directions is None else int(directions)
    g = clone_graph(graph)
    g.name = f"{graph.name}_taylor{K}"
    g = expand_composites(g, _expandable)
    t = _Taylor(g, K, d, graph.name)

    def factorial(k: int) -> int:
        return math.factorial(k) if factorial_scaled else 1

    def term(x: Value, k: int):   # a series input, normalised (x_k = x^(k) / k!)
        return t.scale(1.0 / factorial(k), g.add_input(x.type))

    for i, ks in zip(wrt, input_orders):
        x = g.inputs[i]
        series = [x] + [None] * K
        for k in ks:
            series[k] = tuple(term(x, k) for _ in range(d)) if d is not None and k < K else term(x, k)
        t.coef[x] = series

    # Only what an output needs: a `zero` fact's operands are not propagated (stop_gradient(max(x))).
    needed = set(g.outputs)
    for node in reversed(g.nodes):
        if any(v in needed for v in node.outputs) and get(node.op).taylor != ZERO_FACT:
            needed.update(v for v in node.inputs if v.type.is_inexact)
    # Node by node, every order of a node (and of the derivative nodes it inlined, which its lagged
    # recurrence reads order by order) before the next node: a node's operands are complete by then,
    # and the graph reads layer by layer, each layer's coefficients together while they are in cache.
    for node in list(g.nodes):
        if not any(v in needed or not v.type.is_inexact for v in node.outputs):
            continue
        start, pending = len(t.schedule), [(node, K)]
        while pending:
            n, m = pending.pop(0)
            t.visit(n, m, pending)
        group = t.schedule[start:]
        for k in range(2, K + 1):
            for n, m, step in group:
                if k <= m:
                    t.run(n, step, k)

    outputs = list(g.outputs)
    for y in outputs:
        for k in range(1, K + 1):
            c = t.c(y, k) if y in t.coef else None
            per_dir = d is not None and k < K
            zero = t.full(0, y.type)
            c = t.scale(factorial(k), c)
            if per_dir:
                for v in (c if c is not None else (zero,) * d):
                    g.mark_output(v)
            else:
                g.mark_output(c if c is not None else zero)
    return g
