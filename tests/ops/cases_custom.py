"""Cases of the custom-rule ops (frame/ops/custom.py), whose attributes are the traced graphs of a
function and its rules, made here by frame.custom_vjp / frame.custom_jvp themselves.

The graphs fix the operand types, so the inputs are float64 whatever dtype a table-driven test asks
for (as for the fused op). The rules are the exact derivatives, so derivative checks against JAX
(which lowers the op to jax.custom_vjp / jax.custom_jvp with the same rules) test the op's reverse
and forward rules, not a difference of definitions; tests/transforms/test_custom.py runs them on
these functions (`FUNCTIONS`) and on two-output ones.
"""
import numpy as np

import frame
import frame.numpy as fnp
from frame.frontend.custom import custom_jvp, custom_vjp
from tests.ops.cases import OpCase

A, B = (3, 4), (4,)


@custom_vjp
def _sin_times(x, y):
    return fnp.sin(x) * y


def _sin_times_fwd(x, y):
    return _sin_times(x, y), (fnp.cos(x), fnp.sin(x), y)


def _sin_times_bwd(res, g):
    cos_x, sin_x, y = res
    return cos_x * g * y, fnp.sum(sin_x * g, axis=0)   # y broadcasts along axis 0


_sin_times.defvjp(_sin_times_fwd, _sin_times_bwd)


@custom_vjp
def _two_outputs(x):
    return {"e": fnp.exp(x), "s": fnp.sum(x * x)}


_two_outputs.defvjp(lambda x: (_two_outputs(x), (fnp.exp(x), x)),
                    lambda res, g: (res[0] * g["e"] + 2.0 * res[1] * g["s"],))


@custom_jvp
def _log1pexp(x):
    return fnp.log(1.0 + fnp.exp(x))


@_log1pexp.defjvp
def _log1pexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _log1pexp(x), t * (1.0 - 1.0 / (1.0 + fnp.exp(x)))


@custom_jvp
def _hypot_and_ratio(x, y):
    return fnp.sqrt(x * x + y * y), x / y


@_hypot_and_ratio.defjvp
def _hypot_and_ratio_jvp(primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    r = fnp.sqrt(x * x + y * y)
    return (r, x / y), ((x * tx + y * ty) / r, tx / y - x * ty / (y * y))


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
    OpCase("custom_vjp_call", _inputs(A, B), lambda x, y, **_: np.sin(x) * y, _attrs(_sin_times, A, B), wrt=(),
           label="bcast"),
    OpCase("custom_jvp_call", _inputs(A, lo=-3.0, hi=3.0), lambda x, **_: np.log1p(np.exp(x)),
           _attrs(_log1pexp, A), wrt=(), label="log1pexp"),
]
