"""numpy-agreement cases for frame.numpy's set routines (frame/frontend/numpy_sets.py). Operands given
as lists stay concrete when compiled, so they meet numpy's own result; arrays are traced there and take
jax.numpy's size=/fill_value= form, compared with numpy's result cut or padded to `size` as jax.numpy
pads (unique: the smallest value, index of its first occurrence, count 0; intersect1d and setxor1d: the
smallest result or 0; setdiff1d: 0). Derivatives flow to the values picked (unique, union1d, setdiff1d)."""
import numpy as np

from tests.frontend.cases_sort import _pad
from tests.frontend.numpy_cases import NumpyCase, uniform


def _repeats(rng, shape, dtype="float64", nans=False):
    """Few distinct values, each repeated (and two NaNs when `nans`)."""
    x = rng.choice(np.array([-1.5, 0.25, 2.0, 3.5]), shape).astype(dtype)
    if nans:
        x.flat[1] = x.flat[-1] = np.nan
    return x


def _unique_sized(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
                  equal_nan=True, size, fill_value=None):
    values, index, inverse, counts = np.unique(ar, True, True, True, axis=axis, equal_nan=equal_nan)
    ax = 0 if axis is None else axis
    values = np.moveaxis(values, ax, 0)
    values = np.moveaxis(_pad(values, size, values[0] if fill_value is None else fill_value), 0, ax)
    out = (values,) + ((_pad(index, size, index[0] if len(index) else 0),) if return_index else ()) + \
        ((inverse,) if return_inverse else ()) + ((_pad(counts, size, 0),) if return_counts else ())
    return out if len(out) > 1 else out[0]


def _api_sized(name):
    """numpy 2's unique_* with jax.numpy's size=: numpy's `unique(x, equal_nan=False)` padded."""
    flags = {"unique_values": (), "unique_counts": ("return_counts",), "unique_inverse": ("return_inverse",),
             "unique_all": ("return_index", "return_inverse", "return_counts")}[name]
    return lambda x, size, fill_value=None: _unique_sized(x, **dict.fromkeys(flags, True), equal_nan=False, size=size,
                                                          fill_value=fill_value)


def _sized(name, fill):
    """numpy's `name` padded to size: `fill` (a function of the result) unless fill_value is given."""
    def reference(ar1, ar2, *args, size, fill_value=None):
        out = getattr(np, name)(ar1, ar2, *args)
        values = out[0] if isinstance(out, tuple) else out
        pad = fill(values) if fill_value is None else fill_value
        if isinstance(out, tuple):   # intersect1d's indices: padded with the operands' sizes, as jax.numpy's
            return _pad(values, size, pad), _pad(out[1], size, np.size(ar1)), _pad(out[2], size, np.size(ar2))
        return _pad(values, size, pad)
    return reference


_SMALLEST_OR_0 = lambda v: v[0] if len(v) else 0  # noqa: E731

CASES = [
    *[NumpyCase("unique", make, kw, label=lb, wrt=wrt, reference=_unique_sized) for make, kw, lb, wrt in [
        (lambda rng: (_repeats(rng, (3, 4), nans=True), True, True, True), {"size": 4}, "all-nans", ()),
        (lambda rng: (_repeats(rng, (3, 4), nans=True),), {"size": 6, "equal_nan": False}, "nans-apart", ()),
        (lambda rng: (_repeats(rng, (10,)), False, True, True), {"size": 6, "fill_value": -9.0}, "pad-fill", ()),
        (lambda rng: (_repeats(rng, (10,)), True, False, True), {"size": 2}, "cut", ()),
        (lambda rng: (_repeats(rng, (2, 5)),), {"size": 6}, "values-pad", (0,)),
        (lambda rng: (rng.integers(0, 2, (6, 3)).astype(np.int32), True, True, True, 0), {"size": 5}, "axis0", ()),
        (lambda rng: (rng.integers(0, 2, (2, 6)).astype(np.int32), True, True, True, -1), {"size": 7}, "axis-1", ()),
        (lambda rng: (rng.integers(0, 2, (6, 2)).astype(np.float64), False, False, False, 0), {"size": 4},
         "axis0-values", (0,)),
        (lambda rng: (uniform(rng, (7,), "bool"), True, True, True), {"size": 2}, "bool", ()),
        (lambda rng: (_repeats(rng, (2, 3), "float32"), False, True), {"size": 4}, "float32", ()),
        (lambda rng: (np.zeros((0, 2)), True, True, True), {"size": 2, "fill_value": 1.0}, "empty", ())]],
    *[NumpyCase("unique", lambda rng, ar=ar: (ar, True, True, True, *ax), label=lb) for ar, ax, lb in [
        ([[3.0, np.nan, 1.0], [np.nan, 3.0, 2.0]], (), "concrete"),
        ([[1, 0, 1], [0, 1, 1], [1, 0, 1]], (0,), "concrete-axis0"),
        ([], (), "concrete-empty")]],
    *[NumpyCase(name, make, kw, label=lb, reference=_api_sized(name)) for name in
      ("unique_values", "unique_counts", "unique_inverse", "unique_all") for make, kw, lb in [
          (lambda rng: (_repeats(rng, (3, 4), nans=True),), {"size": 6}, "nans"),
          (lambda rng: (_repeats(rng, (5,), "float32"),), {"size": 3, "fill_value": 7.0}, "float32"),
          (lambda rng: (rng.integers(0, 4, (2, 3)),), {"size": 2}, "int-cut")]],
    NumpyCase("unique_values", lambda rng: ([3, 1, 3, 2],), label="concrete",
              reference=lambda x: np.sort(np.unique_values(x))),   # numpy 2.3+ leaves the order unspecified
    *[NumpyCase(name, lambda rng: ([[2.0, 1.0], [2.0, np.nan]],), label="concrete")
      for name in ("unique_counts", "unique_inverse", "unique_all")],
    *[NumpyCase("isin", make, kw, label=lb) for make, kw, lb in [
        (lambda rng: (uniform(rng, (3, 4), "int64"), uniform(rng, (5,), "int64")), {}, "int"),
        (lambda rng: (_repeats(rng, (2, 3), nans=True), np.array([[0.25, np.nan], [3.5, 9.0]])), {}, "nan-2d-tests"),
        (lambda rng: (uniform(rng, (4,), "int32"), np.array([1.0, -2.5, 0.0])), {"invert": True}, "int-float-invert"),
        (lambda rng: (np.asarray(2.0), _repeats(rng, (6,))), {}, "rank0"),
        (lambda rng: (uniform(rng, (0, 2)), uniform(rng, (3,))), {}, "empty-element"),
        (lambda rng: (uniform(rng, (3,)), np.zeros(0)), {"invert": True}, "empty-tests"),
        (lambda rng: (uniform(rng, (5,), "bool"), np.array([True])), {"assume_unique": True}, "bool"),
        (lambda rng: (uniform(rng, (6,), "int64"), uniform(rng, (2,), "int64")), {"kind": "table"}, "table"),
        (lambda rng: (uniform(rng, (6,), "float32"), uniform(rng, (3,), "float32")), {"kind": "sort"}, "float32")]],
    NumpyCase("isin", lambda rng: (3, [1, 3]), label="python"),
    *[NumpyCase(name, lambda rng, a=a, b=b: (a, b), label="concrete")
      for name in ("union1d", "intersect1d", "setdiff1d", "setxor1d")
      for a, b in [([3, 1, 3, 2, np.nan], [[2.0, 5.0], [np.nan, 1.0]])]],
    NumpyCase("intersect1d", lambda rng: ([3, 1, 3, 2, 7], [2, 7, 7, 0], False, True), label="concrete-indices"),
    NumpyCase("setdiff1d", lambda rng: ([5, 1, 3], [3], True), label="concrete-assume-unique"),
    *[NumpyCase(name, make, kw, label=lb, wrt=wrt, reference=_sized(name, fill)) for name, fill in [
        ("union1d", lambda v: v[0]), ("intersect1d", _SMALLEST_OR_0), ("setdiff1d", lambda v: 0),
        ("setxor1d", _SMALLEST_OR_0)] for make, kw, lb, wrt in [
            (lambda rng: (_repeats(rng, (7,)), np.array([[2.0, 0.5, -1.5], [9.0, 2.0, 0.5]])), {"size": 5}, "float",
             (0, 1)),
            (lambda rng: (rng.integers(0, 6, 8), rng.integers(3, 9, 5).astype(np.int32)), {"size": 9, "fill_value": -1},
             "int-pad", ()),
            (lambda rng: (_repeats(rng, (6,), nans=True), np.array([np.nan, 2.0, 0.25])), {"size": 2}, "nans-cut", ()),
            (lambda rng: (np.zeros(0), _repeats(rng, (3,))), {"size": 3, "fill_value": 0.5}, "empty", ())]],
    NumpyCase("union1d", lambda rng: (np.zeros(0, np.float32), _repeats(rng, (3,), "float32")), {"size": 3},
              label="empty-float32", reference=_sized("union1d", lambda v: v[0])),
    NumpyCase("intersect1d", lambda rng: (rng.integers(0, 6, 8), rng.integers(3, 9, 5), False, True), {"size": 4},
              label="indices", reference=_sized("intersect1d", _SMALLEST_OR_0)),
    NumpyCase("setdiff1d", lambda rng: (rng.permutation(8)[:5], np.array([2, 9, 5]), True), {"size": 6},
              label="assume-unique", reference=_sized("setdiff1d", lambda v: 0)),
]
