"""The gradient closure of the control-flow ops on float regions (issue 17, item 1), to a bounded depth.

tests/ops/test_gradient_closure.py walks every gradient of every gradient until no new signature
appears; a float region's gradient is a region op whose body is the region's VJP, a new body at every
order, so that walk would not end (the shared cases of these ops are integer loops, tests/ops/
cases_control.py). Here the walk goes three gradients deep: every micro-graph verifies, and every op
it reaches from its inputs has a gradient rule or a decomposition."""
import numpy as np
import pytest

import frame
from frame.frontend.control import cond, fori_loop, scan
from frame.ir import verify
from frame.ir.registry import NodeContext
from frame.ops import find

DEPTH = 3


def _node(fn, *examples, op):
    graph = frame.trace(fn, *examples)
    return next(n for n in graph.nodes if n.op == op)


def _walk(op, types, attrs, depth, seen):
    micro = find(op).gradient(NodeContext(op, list(types), attrs))
    verify(micro)
    assert len(micro.outputs) == len(types)
    reached = set(micro.inputs)
    for node in micro.nodes:
        if not any(v in reached for v in node.inputs):
            continue
        reached.update(node.outputs)
        schema = find(node.op)
        assert schema.gradient is not None or schema.decomposition is not None, node.op
        seen.add(node.op)
        if depth > 1 and node.op in ("cond", "scan"):
            _walk(node.op, [v.type for v in node.inputs], node.attrs, depth - 1, seen)


W = np.ones((3, 3)) * 0.1
CASES = {
    "scan": _node(lambda u, w: scan(lambda c, x: (np.float64(0.1) * c @ w + x, c * x), u, np.ones((4, 3))),
                  np.ones(3), W, op="scan"),
    "scan_reverse": _node(lambda u: scan(lambda c, x: (c * x, c), u, np.ones(4), reverse=True), 1.0, op="scan"),
    "fori_loop": _node(lambda a: fori_loop(0, 3, lambda i, v: v * v + i, a), 0.5, op="scan"),
    "cond": _node(lambda p, x: cond(p, lambda a: a * a, lambda a: -a, x), True, np.ones(3), op="cond"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_of_float_regions_close_three_orders_deep(name):
    node = CASES[name]
    seen: set = set()
    _walk(node.op, [v.type for v in node.inputs], node.attrs, DEPTH, seen)
    assert node.op in seen   # the gradient of a region op is region ops again (saved-carry and reverse scans)
