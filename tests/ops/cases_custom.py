"""Cases of the custom-rule ops (frame/ops/custom.py), whose attributes are the traced graphs of a
function and its rules, made here by frame.custom_vjp / frame.custom_jvp themselves.

The graphs fix the operand types, so the inputs are float64 whatever dtype a table-driven test asks
for (as for the fused op). The rules are the exact derivatives, so derivative checks against JAX
(which lowers the op to jax.custom_vjp / jax.custom_jvp with the same rules) test the op's reverse
and forward rules, not a difference of definitions; tests/transforms/test_custom.py runs them on
these functions (tests/transforms/custom_functions.py) and on two-output ones.
"""
import numpy as np

import frame
from tests.ops.cases import OpCase
from tests.transforms.custom_functions import log1pexp, sin_times

A, B = (3, 4), (4,)


def _attrs(fn, *shapes):
    """The attributes of the custom node that calling `fn` on float64 arguments of these shapes binds."""
    graph = frame.trace(fn, *[np.zeros(s) for s in shapes])
    (node,) = [n for n in graph.nodes if n.op.startswith("custom_")]
    return dict(node.attrs)


def _inputs(*shapes, lo=-1.0, hi=1.0):
    return lambda rng, dtype: [rng.uniform(lo, hi, s) for s in shapes]


# Derivatives are checked in tests/transforms/test_custom.py (against JAX, orders 1 and 2, multi-output
# functions there too): the shared float32 checks would call the float64-typed graphs with float32 inputs.
CASES = [
    OpCase("custom_vjp_call", _inputs(A, B), lambda x, y, **_: np.sin(x) * y, _attrs(sin_times, A, B), wrt=(),
           label="bcast"),
    OpCase("custom_jvp_call", _inputs(A, lo=-3.0, hi=3.0), lambda x, **_: np.log1p(np.exp(x)),
           _attrs(log1pexp, A), wrt=(), label="log1pexp"),
]
