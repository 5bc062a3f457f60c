"""Cases of the control-flow ops (frame/ops/control.py), whose attributes are the traced regions made by
frame.frontend.control itself.

The regions fix the operand types, so the inputs are what the regions were traced with whatever dtype a
table-driven test asks for (as for the custom-rule ops). They are integer loops and branches: the shared
gradient-closure walk (tests/ops/test_gradient_closure.py) walks the gradient of every gradient of a case,
and a float region's gradient is a region op with a new body (its VJP) at every order, so the walk would
never end. Their derivatives, of float regions, are checked in tests/control/ instead: against JAX's
lax.cond / lax.scan / lax.fori_loop to order 2 (reverse over reverse, forward over reverse), forward mode
and vmap, and through check_derivatives (which also lowers every derived graph with to_jax).
"""
import numpy as np

import frame
from frame.frontend.control import cond, scan, while_loop
from tests.ops.cases import OpCase

I = "int64"


def _attrs(op, fn, *examples):
    """The attributes of the `op` node that tracing `fn` on these example arguments binds."""
    graph = frame.trace(fn, *examples)
    (node,) = [n for n in graph.nodes if n.op == op]
    return dict(node.attrs)


def _ints(*shape, lo=-5, hi=6):
    return lambda rng: rng.integers(lo, hi, shape).astype(I)


COND = _attrs("cond", lambda p, x: cond(p, lambda a: a * 3, lambda a: a - 1, x), True, np.zeros((3, 4), I))


def _cond_reference(p, x, **_):
    return x * 3 if p else x - 1


SCAN = _attrs("scan", lambda c, xs: scan(lambda k, x: (k + x, k * x), c, xs), np.zeros(2, I), np.zeros((5, 2), I))
SCAN_REV = dict(SCAN, reverse=True)


def _scan_reference(c, xs, reverse=False, **_):
    ys = np.zeros_like(xs)
    for i in (range(len(xs) - 1, -1, -1) if reverse else range(len(xs))):
        c, ys[i] = c + xs[i], c * xs[i]
    return [c, ys]


def _doubling(limit, x):   # while x < limit: x = 2 x + 1 (limit is the predicate's constant)
    return while_loop(lambda v: v < limit, lambda v: v * 2 + 1, x)


WHILE = _attrs("while", _doubling, np.zeros((), I), np.zeros((), I))


def _while_reference(limit, x, **_):
    while x < limit:
        x = x * 2 + 1
    return x


CASES = [
    OpCase("cond", lambda rng, dt: [np.asarray(True), _ints(3, 4)(rng)], _cond_reference, COND, wrt=(), label="true"),
    OpCase("cond", lambda rng, dt: [np.asarray(False), _ints(3, 4)(rng)], _cond_reference, COND, wrt=(),
           label="false"),
    OpCase("scan", lambda rng, dt: [_ints(2)(rng), _ints(5, 2)(rng)], _scan_reference, SCAN, wrt=(), label="int"),
    OpCase("scan", lambda rng, dt: [_ints(2)(rng), _ints(5, 2)(rng)], _scan_reference, SCAN_REV, wrt=(),
           label="reverse"),
    OpCase("while", lambda rng, dt: [np.asarray(rng.integers(50, 500), I), np.asarray(rng.integers(0, 5), I)],
           _while_reference, WHILE, wrt=(), label="doubling"),
]
