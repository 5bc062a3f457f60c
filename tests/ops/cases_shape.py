"""OpCases of the shape and indexing ops added for issue 14: rev, gather, scatter_add, scatter."""
import numpy as np

from tests.ops.cases import OpCase, _ins, _u


def _int(*values):
    array = np.array(values, np.int64)
    return lambda rng, dt: array


def _gather_ref(x, *indices):
    return x[indices]


def _scatter_ref(ufunc):
    def reference(x, updates, *indices, mode=None, unique=False):
        out = x.copy()
        if ufunc is None:
            out[indices] = updates
        else:
            ufunc.at(out, indices, updates)
        return out
    return reference


# Index sets: a 1-d one with a repeat and a negative entry, and 2-d ones over two axes.
_ROWS = (_int(2, 0, -1, 2), (4,))
_PAIRS = (_int(0, 2, 1), _int(3, -1, 0))

CASES = [
    OpCase("rev", _ins(_u(3, 4)), lambda x, axes: np.flip(x, axes), {"axes": (1,)}),
    OpCase("rev", _ins(_u(2, 3, 2)), lambda x, axes: np.flip(x, axes), {"axes": (0, 2)}, label="3d"),
    OpCase("rev", _ins(_u(3)), lambda x, axes: x, {"axes": ()}, label="none"),
    OpCase("gather", _ins(_u(3, 4), _ROWS[0]), _gather_ref, label="rows"),
    OpCase("gather", _ins(_u(3, 4), *_PAIRS), _gather_ref, label="pairs"),
    OpCase("gather", _ins(_u(3, 4, 2), _int(1), _int(-1)), _gather_ref, label="leading"),
    OpCase("gather", _ins(_u(3, 2), lambda rng, dt: np.array([[0, 2], [1, 1]])), _gather_ref, label="2d-index"),
    OpCase("scatter_add", _ins(_u(3, 4), _u(4, 4), _ROWS[0]), _scatter_ref(np.add), wrt=(0, 1), label="rows"),
    OpCase("scatter_add", _ins(_u(3, 4), _u(3), *_PAIRS), _scatter_ref(np.add), wrt=(0, 1), label="pairs"),
    OpCase("scatter", _ins(_u(3, 4), _u(3), *_PAIRS), _scatter_ref(None), {"mode": "set"}, wrt=(0, 1), label="set"),
    OpCase("scatter", _ins(_u(3, 4), _u(2, 4), _int(2, 0)), _scatter_ref(None), {"mode": "set"}, wrt=(0, 1),
           label="set-rows"),
    OpCase("scatter", _ins(_u(3, 4), _u(3), *_PAIRS), _scatter_ref(np.multiply), {"mode": "mul", "unique": True},
           wrt=(0, 1), label="mul"),
    OpCase("scatter", _ins(_u(3, 4), _u(4, 4), _ROWS[0]), _scatter_ref(np.minimum), {"mode": "min"}, wrt=(0, 1),
           label="min"),
    OpCase("scatter", _ins(_u(3, 4), _u(4, 4), _ROWS[0]), _scatter_ref(np.maximum), {"mode": "max"}, wrt=(0, 1),
           label="max"),
]
