"""numpy-agreement cases for frame.numpy's sorting, searching and order statistics (frame/frontend/
numpy_sort.py): sort/argsort with ties and NaNs, searchsorted on both sides, interp inside and outside
the table, median/quantile/percentile over axis forms, methods and dtypes. Derivatives (sort, the order
statistics, interp in all three operands) are checked against JAX on distinct values."""
import numpy as np

from tests.frontend.numpy_cases import NumpyCase, uniform


def _ties_nans(rng, shape=(4, 5)):
    x = rng.integers(-2, 3, shape).astype(np.float64)
    x[1, 2] = x[3, 0] = np.nan
    return x


def _table(rng, n=6, dtype="float64"):
    """Increasing knots with gaps of 0.2-1, from about -1."""
    return (np.cumsum(rng.uniform(0.2, 1.0, n)) - 1.5).astype(dtype)


# (make, kwargs, label, differentiable) of median, and of quantile/percentile with q (or q * 100) after a
_ORDER_ROWS = [
    (lambda rng: (uniform(rng, (3, 5)),), {}, "all-odd", True),
    (lambda rng: (uniform(rng, (4, 6)),), {"axis": 1}, "even", True),
    (lambda rng: (uniform(rng, (2, 3, 4)),), {"axis": (0, 2), "keepdims": True}, "tuple-keepdims", True),
    (lambda rng: (uniform(rng, (3, 4), "int32"),), {"axis": -1}, "int32", False),
    (lambda rng: (uniform(rng, (4, 3), "float32"),), {"axis": 0}, "float32", False),
    (lambda rng: (_ties_nans(rng),), {"axis": 1}, "nans", False),
]


def _with_q(make, name):
    if name == "median":
        return make
    q = np.array([0.0, 0.25, 0.6, 1.0]) * (100 if name == "percentile" else 1)
    return lambda rng: (*make(rng), q)


CASES = [
    *[NumpyCase(name, make, kwargs, label=label, wrt=(0,) if name == "sort" and diff else (),
                reference=(lambda a, **kw: np.argsort(a, **{"kind": "stable", **kw})) if name == "argsort" else None)
      for name in ("sort", "argsort")
      for make, kwargs, label, diff in [
          (lambda rng: (uniform(rng, (3, 5)),), {}, "last", True),
          (lambda rng: (uniform(rng, (2, 3, 4)),), {"axis": 0}, "axis0", True),
          (lambda rng: (uniform(rng, (2, 3)),), {"axis": None}, "flat", True),
          (lambda rng: (_ties_nans(rng),), {"axis": 1}, "ties-nans", False),
          (lambda rng: (uniform(rng, (0, 3)),), {}, "empty", False),
          (lambda rng: (uniform(rng, (3, 4), "int32"),), {"axis": 0}, "int32", False),
          (lambda rng: (uniform(rng, (5,), "bool"),), {}, "bool", False),
          (lambda rng: (uniform(rng, (2, 5), "float32"),), {"kind": "stable"}, "float32", False)]],
    NumpyCase("argsort", lambda rng: (np.asarray(2.0),), label="rank0"),
    *[NumpyCase("searchsorted", make, {"side": side}, label=f"{label}-{side}")
      for side in ("left", "right")
      for make, label in [
          (lambda rng: (np.sort(uniform(rng, (7,), "int64")), uniform(rng, (3, 4), "int64")), "int-ties"),
          (lambda rng: (_table(rng), uniform(rng, (5,), lo=-3, hi=4)), "float"),
          (lambda rng: (np.array([0.0, 1.0, 1.0, 2.0, np.nan]), np.array([np.nan, 1.0, -1.0, 5.0, 2.0])), "nans"),
          (lambda rng: (_table(rng), np.asarray(0.3)), "scalar"),
          (lambda rng: (_table(rng, 4, "float32"), uniform(rng, (2, 2), "float32")), "float32")]],
    NumpyCase("searchsorted", lambda rng: (np.array([3.0, 1.0, 2.0]), np.array([0.5, 2.5])),
              {"sorter": np.array([1, 2, 0])}, label="sorter"),
    *[NumpyCase("interp", make, kwargs, label=label, wrt=wrt)
      for make, kwargs, label, wrt in [
          (lambda rng: (uniform(rng, (3, 4), lo=-2, hi=4), _table(rng), uniform(rng, (6,))), {}, "inside-outside", (0, 1, 2)),
          (lambda rng: (uniform(rng, (7,), lo=-2, hi=4), _table(rng), uniform(rng, (6,))), {"left": -5.0, "right": 7.0},
           "left-right", (0, 2)),
          (lambda rng: (np.array([-1.5, 0.0, 1.0, 2.0, np.nan]), np.array([0.0, 1.0, 2.0]), np.array([1.0, -1.0, 3.0])), {},
           "knots-nan", ()),
          (lambda rng: (uniform(rng, (4,)), np.array([0.5]), np.array([2.0])), {}, "one-knot", ()),
          (lambda rng: (uniform(rng, (4,), "float32"), _table(rng, 3, "float32"), uniform(rng, (3,), "float32")), {},
           "float32", ()),
          (lambda rng: (uniform(rng, (4,), lo=-2, hi=4), _table(rng, 3), uniform(rng, (3,), "complex128")), {}, "complex",
           ())]],
    *[NumpyCase(name, _with_q(make, name), kwargs, label=label, wrt=(0,) if diff else ())
      for name in ("median", "quantile", "percentile") for make, kwargs, label, diff in _ORDER_ROWS],
    *[NumpyCase("quantile", lambda rng: (uniform(rng, (3, 7)), np.array([[0.1, 0.35], [0.5, 0.95]])),
                {"axis": 1, "method": method}, label=method, wrt=(0,) if method == "linear" else ())
      for method in ("linear", "lower", "higher", "midpoint", "nearest")],
    NumpyCase("quantile", lambda rng: (uniform(rng, (5,)), 0.3), label="scalar-q", wrt=(0,)),
    *[NumpyCase("quantile", lambda rng, q=q: (uniform(rng, (2, 5), "float32"), q), {"axis": 1}, label=f"float32-{label}")
      for q, label in [(0.3, "python-q"), (np.float64(0.3), "numpy-q")]],
    *[NumpyCase("quantile", lambda rng: (uniform(rng, (3, 4), "int32"), np.array([0.2, 0.5])), {"method": method},
                label=f"int32-{method}") for method in ("lower", "nearest", "midpoint")],
    NumpyCase("percentile", lambda rng: (uniform(rng, (2, 5), "float32"), 40), {"axis": 1}, label="float32-python-q"),
    NumpyCase("percentile", lambda rng: (uniform(rng, (2, 5)), 40), {"axis": 1, "keepdims": True}, label="scalar-q"),
]
def _nans_per_row(rng, shape=(4, 6), full_row=False):
    x = uniform(rng, shape)
    x[0, 1] = x[3, 2] = x[3, 4] = np.nan
    if full_row:
        x[2, :] = np.nan
    return x


CASES += [
    *[NumpyCase(name, (lambda q, full: lambda rng: (_nans_per_row(rng, full_row=full), *(() if q is None else (q,))))(
                q, not diff),
                kw, label=label, wrt=(0,) if diff else ())
      for name, q in [("nanmedian", None), ("nanquantile", np.array([0.1, 0.5, 0.9])), ("nanpercentile", np.array([5, 60]))]
      for kw, label, diff in [({"axis": 1}, "axis1", True), ({}, "all", True), ({"axis": 0, "keepdims": True}, "keepdims", True),
                              ({"axis": 1}, "all-nan-row", False)]],
    *[NumpyCase("nanquantile", lambda rng: (_nans_per_row(rng), np.array([0.0, 0.35, 1.0])), {"axis": 1, "method": m},
                label=m) for m in ("lower", "higher", "nearest", "midpoint")],
    NumpyCase("nanquantile", lambda rng: (_nans_per_row(rng).astype("float32"), 0.3), {"axis": 1}, label="float32"),
    NumpyCase("nanmedian", lambda rng: (uniform(rng, (3, 4), "int32"),), {"axis": 1}, label="int32"),
    *[NumpyCase("digitize", lambda rng, bins=bins: (uniform(rng, (3, 4), lo=-2, hi=2), bins), {"right": right},
                label=f"{label}-{'right' if right else 'left'}")
      for bins, label in [(np.array([-1.0, 0.0, 0.5]), "increasing"), (np.array([0.5, 0.0, -1.0]), "decreasing")]
      for right in (False, True)],
    NumpyCase("digitize", lambda rng: (np.array([0, 1, 2, 3, 5]), np.array([1, 3])), label="int-ties"),
]
CASES += [
    # traced x needs length= (JAX's), which numpy spells minlength= when it is at least max(x) + 1
    *[NumpyCase("bincount", make, kw, label=lb, reference=lambda x, *w, length=0, minlength=0:
                np.bincount(x, *w, minlength=max(length, minlength))) for make, kw, lb in [
        (lambda rng: (rng.integers(0, 6, 20),), {"length": 6}, "counts"),
        (lambda rng: (rng.integers(0, 6, 20), uniform(rng, (20,))), {"length": 8}, "weights"),
        (lambda rng: (rng.integers(0, 3, 7),), {"length": 6}, "length"),
        (lambda rng: (np.zeros(0, np.int64),), {"length": 2}, "empty")]],
    *[NumpyCase("histogram", make, kw, label=lb, wrt=(0,) if lb == "weights" else ()) for make, kw, lb in [
        (lambda rng: (uniform(rng, (50,), lo=-2, hi=2),), {}, "default"),
        (lambda rng: (uniform(rng, (5, 10), lo=-2, hi=2), 7), {}, "bins-2d"),
        (lambda rng: (uniform(rng, (50,), lo=-2, hi=2), 5), {"range": (-1, 1)}, "range"),
        (lambda rng: (uniform(rng, (50,), lo=-2, hi=2), np.array([-3.0, -1.0, 0.0, 0.5, 2.0])), {}, "edges"),
        (lambda rng: (uniform(rng, (50,), lo=-2, hi=2), 6), {"density": True}, "density"),
        (lambda rng: (uniform(rng, (50,), lo=-2, hi=2), 4), {"range": (-2, 2), "weights": np.linspace(0, 1, 50)},
         "weights-kw"),
        (lambda rng: (np.arange(5.0), 4), {}, "edge-values"),
        (lambda rng: (np.ones(5, "float32"), 4), {}, "constant-float32"),
        (lambda rng: (uniform(rng, (9,), "int64"), 3), {}, "int64")]],
]
CASES += [
    NumpyCase("lexsort", lambda rng: ([rng.normal(size=12), rng.integers(0, 3, 12), rng.integers(0, 3, 12)],),
              label="three-keys"),
    NumpyCase("lexsort", lambda rng: (rng.integers(0, 3, (2, 3, 5)),), {"axis": 0}, label="array-axis0"),
    NumpyCase("lexsort", lambda rng: ([uniform(rng, (4, 3), "int32")],), label="one-key"),
]


# -- where the nonzero elements are: numpy's result for concrete operands (lists stay concrete when
# compiled), jax.numpy's size=/fill_value= form for traced ones (numpy's result, padded or cut to size)
def _pad(x, size, fill):
    """numpy's result `x` cut or padded (with `fill`) to `size` along its first axis: jax.numpy's size= form."""
    x = np.asarray(x)
    out = np.full((size,) + x.shape[1:], fill, x.dtype)
    out[:min(size, len(x))] = x[:size]
    return out


def _sparse(rng, shape, dtype="float64"):
    """About half zeros."""
    return (uniform(rng, shape, dtype) * (rng.random(shape) < 0.5)).astype(dtype)


def _nonzero_sized(a, size, fill_value=0):
    fills = fill_value if isinstance(fill_value, tuple) else (fill_value,) * np.ndim(a)
    return tuple(_pad(i, size, f) for i, f in zip(np.nonzero(a), fills))


CASES += [
    *[NumpyCase("nonzero", make, kw, label=lb, reference=_nonzero_sized) for make, kw, lb in [
        (lambda rng: (_sparse(rng, (3, 4)),), {"size": 12}, "pad"),
        (lambda rng: (_sparse(rng, (3, 4)),), {"size": 3, "fill_value": -1}, "cut"),
        (lambda rng: (uniform(rng, (2, 3, 2), "bool"),), {"size": 8, "fill_value": (-1, -2, -3)}, "bool-fills"),
        (lambda rng: (uniform(rng, (7,), "int32"),), {"size": 7}, "int32"),
        (lambda rng: (uniform(rng, (0, 3)),), {"size": 2}, "empty"),
        (lambda rng: (uniform(rng, (2, 2)),), {"size": 0}, "size0")]],
    NumpyCase("nonzero", lambda rng: (_sparse(rng, (3, 4)).tolist(),), label="concrete"),
    *[NumpyCase("flatnonzero", make, kw, label=lb, reference=lambda a, size, fill_value=0:
                _pad(np.flatnonzero(a), size, fill_value)) for make, kw, lb in [
        (lambda rng: (_sparse(rng, (3, 4)),), {"size": 10, "fill_value": 99}, "pad"),
        (lambda rng: (uniform(rng, (), "int64"),), {"size": 2}, "rank0"),
        (lambda rng: (uniform(rng, (5,), "float32"),), {"size": 3}, "float32-cut")]],
    NumpyCase("flatnonzero", lambda rng: ([0, 2, 0, 1],), label="concrete"),
    *[NumpyCase("argwhere", make, kw, label=lb, reference=lambda a, size, fill_value=0:
                _pad(np.argwhere(a), size, fill_value)) for make, kw, lb in [
        (lambda rng: (_sparse(rng, (3, 4)),), {"size": 9}, "2d"),
        (lambda rng: (uniform(rng, (2, 1, 3), "bool"),), {"size": 2, "fill_value": -1}, "bool-cut"),
        (lambda rng: (uniform(rng, (0, 2)),), {"size": 1}, "empty")]],
    *[NumpyCase("argwhere", lambda rng, a=a: (a,), label=lb) for a, lb in [
        ([[0.0, 1.5], [2.0, 0.0]], "concrete"), (3.0, "concrete-rank0"), (0, "concrete-rank0-zero")]],
    *[NumpyCase("extract", make, kw, label=lb, wrt=wrt, reference=lambda c, arr, size=None, fill_value=0:
                np.extract(c, arr) if size is None else _pad(np.extract(c, arr), size, fill_value))
      for make, kw, lb, wrt in [
          (lambda rng: (uniform(rng, (3, 4), "bool"), uniform(rng, (3, 4))), {"size": 9}, "pad", (1,)),
          (lambda rng: (uniform(rng, (3, 4), "int32"), uniform(rng, (3, 4))), {"size": 2, "fill_value": -5.0}, "cut",
           (1,)),
          (lambda rng: (uniform(rng, (6,), "bool").tolist(), uniform(rng, (2, 3))), {}, "concrete-condition", (1,)),
          (lambda rng: ([True, False, True], uniform(rng, (5,), "float32")), {}, "short-condition", ()),
          (lambda rng: (uniform(rng, (4,), "bool"), uniform(rng, (4,), "int64")), {"size": 5}, "int64", ()),
          (lambda rng: (np.zeros(0, bool), np.zeros(0)), {"size": 2, "fill_value": 1.5}, "empty", ())]],
    # any partition is numpy's answer; frame's is the stable sort, compared with numpy's sort here
    # (tests/frontend/test_numpy_sort_and_statistics.py checks numpy's partition property too)
    *[NumpyCase(name, make, kw, label=lb, wrt=wrt if name == "partition" else (),
                reference=(lambda a, kth, axis=-1: np.sort(a, axis=axis)) if name == "partition" else
                (lambda a, kth, axis=-1: np.argsort(a, axis=axis, kind="stable")))
      for name in ("partition", "argpartition")
      for make, kw, lb, wrt in [
          (lambda rng: (uniform(rng, (3, 5)), 2), {}, "last", (0,)),
          (lambda rng: (uniform(rng, (4, 3)), [0, -1]), {"axis": 0}, "axis0-kths", (0,)),
          (lambda rng: (uniform(rng, (2, 3)), np.int64(4)), {"axis": None}, "flat", (0,)),
          (lambda rng: (_ties_nans(rng), 1), {"axis": -1}, "ties-nans", ()),
          (lambda rng: (uniform(rng, (0, 3)), 1), {}, "empty", ()),
          (lambda rng: (uniform(rng, (3, 4), "int32"), 0), {"axis": 0}, "int32", ()),
          (lambda rng: (uniform(rng, (5,), "bool"), 2), {}, "bool", ()),
          (lambda rng: (uniform(rng, (2, 5), "float32"), (1, 3)), {}, "float32", ())]],
    NumpyCase("argpartition", lambda rng: (np.asarray(2.0), 0), label="rank0",
              reference=lambda a, kth: np.argsort(a, kind="stable")),
    *[NumpyCase("sort_complex", lambda rng, dt=dt, shape=shape: (uniform(rng, shape, dt),), label=lb)
      for dt, shape, lb in [("float64", (3, 4), "float64"), ("float32", (5,), "float32"), ("int32", (2, 3), "int32"),
                            ("bool", (4,), "bool"), ("complex64", (2, 3), "complex64"), ("float64", (0, 2), "empty")]],
    NumpyCase("sort_complex", lambda rng: (np.array([1 + 2j, 1 - 1j, np.nan + 0j, -3 + 0j, 1 + 0j, 2j]),),
              label="complex-ties-nan"),
    *[NumpyCase("histogram_bin_edges", make, kw, label=lb) for make, kw, lb in [
        (lambda rng: (uniform(rng, (50,), lo=-2, hi=2),), {}, "default"),
        (lambda rng: (uniform(rng, (5, 10), lo=-2, hi=2), 7), {"range": (-1, 3)}, "range-2d"),
        (lambda rng: (uniform(rng, (9,), "float32"), 4), {}, "float32"),
        (lambda rng: (uniform(rng, (9,), "int64"), 3), {"weights": np.ones(9)}, "int64-weights"),
        (lambda rng: (np.ones(4), 2), {}, "constant"),
        (lambda rng: (np.zeros(0), 3), {}, "empty"),
        (lambda rng: (uniform(rng, (6,)), [-1, 0, 0.5, 1]), {}, "edges")]],
    *[NumpyCase("histogram2d", make, kw, label=lb, wrt=wrt) for make, kw, lb, wrt in [
        (lambda rng: (uniform(rng, (40,), lo=-2, hi=2), uniform(rng, (40,))), {}, "default", ()),
        (lambda rng: (uniform(rng, (40,), lo=-2, hi=2), uniform(rng, (40,)), 4), {}, "count", ()),
        (lambda rng: (uniform(rng, (40,), lo=-2, hi=2), uniform(rng, (40,)), [3, np.array([-1.0, 0.0, 0.5, 1.0])]), {},
         "count-and-edges", ()),
        (lambda rng: (uniform(rng, (40,), lo=-2, hi=2), uniform(rng, (40,), "float32"), np.array([-1.0, 0.0, 1.0])), {},
         "shared-edges", ()),
        (lambda rng: (uniform(rng, (40,), lo=-2, hi=2), uniform(rng, (40,)), 3, [(-1, 1), (0, 1)], True), {},
         "range-density", ()),
        (lambda rng: (uniform(rng, (40,), lo=-2, hi=2), uniform(rng, (40,)), 3, None, False, uniform(rng, (40,))), {},
         "weights", (5,)),
        (lambda rng: (uniform(rng, (9,), "int32"), uniform(rng, (9,), "int32")), {"bins": 2}, "int32", ()),
        (lambda rng: (np.zeros(0), np.zeros(0)), {"bins": 2}, "empty", ())]],
    *[NumpyCase("histogramdd", make, kw, label=lb, wrt=wrt) for make, kw, lb, wrt in [
        (lambda rng: (uniform(rng, (30, 3)),), {"bins": 3}, "nd", ()),
        (lambda rng: (uniform(rng, (30, 2), "float32"), (4, 4)), {}, "float32", ()),
        (lambda rng: (uniform(rng, (30,)), 5), {"range": [(-0.5, 0.5)]}, "1d-range", ()),
        (lambda rng: ([uniform(rng, (20,)), uniform(rng, (20,), "float32")], [np.array([-1, 0, 1]), 2]), {},
         "sequence", ()),
        (lambda rng: (uniform(rng, (30, 2)), 3, None, True, uniform(rng, (30,))), {}, "density-weights", (4,))]],
]
