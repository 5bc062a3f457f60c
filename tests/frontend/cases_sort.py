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
