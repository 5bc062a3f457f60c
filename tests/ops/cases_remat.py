"""Cases of the rematerialisation ops (frame/ops/remat.py): `checkpoint`, whose body is traced here by
frame.checkpoint itself, and the identities `checkpoint_name` and `remat_barrier`.

`checkpoint`'s case is an integer region, as the control-flow ops' are (tests/ops/cases_control.py): the
gradient of a float checkpoint is a checkpoint of a new body (its VJP) at every order, so the shared
gradient-closure walk would never end. Its derivatives, of float regions, are checked in
tests/transforms/test_remat.py: against the unwrapped function (to rounding), central differences and
JAX's jax.checkpoint, to order 2, with forward mode, vmap and every policy.
"""
import numpy as np

import frame
import frame.numpy as fnp
from frame.frontend.remat import checkpoint
from tests.ops.cases import OpCase

I = "int64"


def _attrs(op, fn, *examples):
    """The attributes of the `op` node that tracing `fn` on these example arguments binds."""
    graph = frame.trace(fn, *examples)
    (node,) = [n for n in graph.nodes if n.op == op]
    return dict(node.attrs)


CHECKPOINT = _attrs("checkpoint", checkpoint(lambda a, b: a * 3 + fnp.sum(b, axis=0)), np.zeros((3, 4), I),
                    np.zeros((2, 4), I))


def _checkpoint_reference(a, b, **_):
    return a * 3 + np.sum(b, axis=0)


def _u(*shape):
    return lambda rng, dt: rng.uniform(-1.0, 1.0, shape).astype(dt)


CASES = [
    OpCase("checkpoint", lambda rng, dt: [rng.integers(-5, 6, (3, 4)).astype(I), rng.integers(-5, 6, (2, 4)).astype(I)],
           _checkpoint_reference, CHECKPOINT, wrt=(), label="int"),
    OpCase("checkpoint_name", lambda rng, dt: [_u(3, 4)(rng, dt)], lambda x, **_: x, {"name": "h"}, label="2d"),
    OpCase("remat_barrier", lambda rng, dt: [_u(3, 4)(rng, dt)], lambda x, **_: x, {"region": "r0"}, label="2d"),
]
