"""OpCases of the reductions (frame/ops/reduce.py) beyond sum and mean, with numpy and scipy references.

Derivative cases differentiate smooth points: `max`/`min` on distinct values (ties are checked against
jax.grad in tests/frontend/test_numpy_reduce.py), `prod`/`cumprod` also with one and two exact zeros.
The index and truth ops have integer or bool results: no derivative cases (wrt=()).
"""
from __future__ import annotations

import numpy as np
import scipy.special

from tests.ops.cases import OpCase, _ins, _u


def _with_zeros(shape, *flat_positions):
    """Uniform values in [0.5, 1.5] with either sign, exact zeros at `flat_positions`."""
    def make(rng, dt):
        x = rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape)
        x.flat[list(flat_positions)] = 0.0
        return x.astype(dt)
    return make


def _ties_and_nans(*shape):
    """Values from {-1, 0, 1} (so ties) with a NaN in every other row: the stable order puts NaNs last."""
    def make(rng, dt):
        x = rng.integers(-1, 2, shape).astype(dt)
        x[::2, 0] = np.nan
        return x
    return make


def _axes_ref(fn):
    return lambda x, axes, keepdims=False: fn(x, axis=axes, keepdims=keepdims)


def _cumulative_ref(fn):
    return lambda x, axis, reverse=False: np.flip(fn(np.flip(x, axis), axis), axis) if reverse else fn(x, axis)


_REDUCTIONS = [((3, 4), {"axes": (1,)}, "axis1"), ((2, 3, 4), {"axes": (0, 2), "keepdims": True}, "keepdims"),
               ((3, 4), {"axes": (0, 1)}, "all"), ((), {"axes": ()}, "rank0")]

CASES = [
    *[OpCase(op, _ins(_u(*s)), _axes_ref(fn), attrs, label=lb, smooth=False)
      for op, fn in (("max", np.max), ("min", np.min)) for s, attrs, lb in _REDUCTIONS],
    *[OpCase(op, _ins(_u(*s)), lambda x, axis, keepdims=False, fn=fn: fn(x, axis=axis, keepdims=keepdims), attrs,
             wrt=(), label=lb)
      for op, fn in (("argmax", np.argmax), ("argmin", np.argmin))
      for s, attrs, lb in [((3, 4), {"axis": 1}, "axis1"), ((2, 3, 4), {"axis": -3, "keepdims": True}, "keepdims"),
                           ((5,), {"axis": 0}, "1d")]],
    *[OpCase("argsort", _ins(maker), lambda x, axis: np.argsort(x, axis=axis, kind="stable"), {"axis": axis},
             wrt=(), label=lb)
      for maker, axis, lb in [(_u(3, 5), 1, "axis1"), (_u(4, 2, 3), -3, "neg-axis"), (_u(1, 2), 0, "size1"),
                              (_ties_and_nans(3, 6), 1, "ties-nans")]],
    *[OpCase("prod", _ins(_u(*s, lo=0.5, hi=1.5)), _axes_ref(np.prod), attrs, label=lb) for s, attrs, lb in _REDUCTIONS],
    OpCase("prod", _ins(_with_zeros((3, 4), 5)), _axes_ref(np.prod), {"axes": (1,)}, label="one-zero"),
    OpCase("prod", _ins(_with_zeros((2, 3, 2), 1, 3)), _axes_ref(np.prod), {"axes": (0, 1)}, label="two-zeros"),
    OpCase("prod", _ins(_with_zeros((4,), 0, 2)), _axes_ref(np.prod), {"axes": (0,)}, label="two-zeros-1d"),
    *[OpCase(op, _ins(maker), _cumulative_ref(fn), attrs, label=lb)
      for op, fn in (("cumsum", np.cumsum), ("cumprod", np.cumprod))
      for maker, attrs, lb in [(_u(3, 5), {"axis": 1}, "axis1"), (_u(4, 2, 3), {"axis": -3}, "neg-axis"),
                               (_u(6), {"axis": 0, "reverse": True}, "reverse"), (_u(1, 2), {"axis": 0}, "size1")]],
    OpCase("cumprod", _ins(_with_zeros((2, 5), 1, 7)), _cumulative_ref(np.cumprod), {"axis": 1}, label="zeros"),
    OpCase("cumprod", _ins(_with_zeros((5,), 1, 3)), _cumulative_ref(np.cumprod), {"axis": 0, "reverse": True},
           label="zeros-reverse"),
    *[OpCase("logsumexp", _ins(_u(*s, lo=-3.0, hi=3.0)), _axes_ref(scipy.special.logsumexp), attrs, label=lb)
      for s, attrs, lb in _REDUCTIONS],
    *[OpCase(op, _ins(lambda rng, dt: (rng.uniform(-1, 1, (3, 4)) * rng.integers(0, 2, (3, 4))).astype(dt)),
             _axes_ref(fn), attrs, wrt=(), label=lb)
      for op, fn in (("all", np.all), ("any", np.any), ("count_nonzero", np.count_nonzero))
      for attrs, lb in [({"axes": (1,)}, "axis1"), ({"axes": (0, 1), "keepdims": True}, "keepdims")]],
]
