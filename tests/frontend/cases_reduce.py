"""numpy-agreement cases for frame.numpy's reductions (logsumexp against scipy.special's).

float64 meets every shape and axis form below (None, negative, tuples, keepdims, size-1 and empty axes,
rank 0) with derivatives checked against JAX; the other dtypes meet a tuple axis, a size-1 axis and an
empty operand. Empty reductions of max/min/argmax/argmin are errors (tests/frontend/test_numpy_reduce.py).
"""
import numpy as np
import scipy.special

from tests.frontend.numpy_cases import NumpyCase, uniform

DTYPES = ["float32", "int32", "int64", "bool"]

# (shape, axis, keepdims, label); "empty-axis" reduces over an axis of size 0.
AXES = [((3, 4), None, False, "all"), ((3, 4), -1, True, "neg-keepdims"), ((2, 3, 4), (0, -1), False, "tuple"),
        ((1, 3), 0, False, "size1"), ((), None, False, "rank0"), ((0, 3), 1, False, "empty"),
        ((0, 3), 0, True, "empty-axis")]
OTHER_DTYPE_LABELS = ("tuple", "size1", "empty")
REDUCTIONS = ["sum", "mean", "prod", "max", "amax", "min", "amin", "all", "any", "count_nonzero", "var", "std",
              "logsumexp"]
NOT_DIFFERENTIABLE = {"all", "any", "count_nonzero"}
REFERENCES = {"logsumexp": scipy.special.logsumexp}


def _args(shape, dtype, lo=-1.0, hi=1.0):
    return lambda rng: (uniform(rng, shape, dtype, lo, hi),)


def _reduction_cases(name):
    cases = []
    for shape, axis, keepdims, label in AXES:
        if label == "empty-axis" and name in ("max", "amax", "min", "amin"):
            continue
        kwargs = {"axis": axis, "keepdims": keepdims}
        # std at a zero variance (one element) has an infinite derivative, in JAX too: not compared.
        diff = name not in NOT_DIFFERENTIABLE and not (name == "std" and label in ("rank0", "size1"))
        for dtype in ["float64"] + (DTYPES if label in OTHER_DTYPE_LABELS else []):
            lo = 0.5 if name == "prod" and dtype.startswith("float") else -1.0   # products far from underflow
            cases.append(NumpyCase(name, _args(shape, dtype, lo, 1.5 if lo > 0 else 1.0), kwargs,
                                   label=f"{label}-{dtype}", reference=REFERENCES.get(name),
                                   wrt=(0,) if diff and dtype == "float64" else ()))
    return cases


def _indexed_cases(name):
    """argmax/argmin and the running functions: axis None (flattened), an int, a negative int."""
    forms = [((3, 4), None, "flat"), ((3, 4), 1, "axis1"), ((2, 3, 4), -2, "neg"), ((1, 3), 0, "size1"),
             ((), None, "rank0")]
    if name in ("cumsum", "cumprod"):
        forms += [((0, 3), 0, "empty"), ((), 0, "rank0-axis0")]
    else:
        forms += [((0, 3), 1, "empty-kept"), ((2, 3), None, "flat-keepdims"), ((2, 3), -1, "keepdims")]
    cases = []
    for shape, axis, label in forms:
        kwargs = {"axis": axis, **({"keepdims": True} if "keepdims" in label else {})}
        for dtype in ["float64"] + (DTYPES if label in ("neg", "size1", "flat") else []):
            diff = name in ("cumsum", "cumprod") and dtype == "float64"
            cases.append(NumpyCase(name, _args(shape, dtype), kwargs, label=f"{label}-{dtype}", wrt=(0,) if diff else ()))
    return cases


def _with_zeros(shape, *positions):
    def make(rng):
        x = uniform(rng, shape, lo=0.5, hi=1.5)
        x.flat[list(positions)] = 0.0
        return (x,)
    return make


CASES = [
    *[case for name in REDUCTIONS for case in _reduction_cases(name)],
    *[case for name in ("argmax", "argmin", "cumsum", "cumprod") for case in _indexed_cases(name)],
    # sums accumulate bools and int32 in int64, as numpy; dtype= converts first (and the result)
    NumpyCase("sum", _args((3, 4), "int32"), {"axis": 1}, label="int32"),
    NumpyCase("sum", _args((3, 4), "int32"), {"dtype": "int32"}, label="dtype-int32-kept"),
    NumpyCase("prod", _args((2, 3), "bool"), {"axis": 1, "dtype": "bool"}, label="dtype-bool"),
    NumpyCase("sum", _args((3, 4), "float64"), {"dtype": "float32"}, label="dtype-float32"),
    NumpyCase("prod", _args((3, 4), "int32"), {"axis": 0, "dtype": "float64"}, label="dtype-float64"),
    NumpyCase("cumsum", _args((3, 4), "bool"), {"axis": 0, "dtype": "int32"}, label="dtype-int32"),
    NumpyCase("mean", _args((3, 4), "float32"), {"axis": 0, "dtype": "float64"}, label="dtype-float64"),
    # zeros in products: the derivatives are the products of the other elements
    NumpyCase("prod", _with_zeros((3, 4), 5), {"axis": 1}, label="one-zero", wrt=(0,)),
    NumpyCase("prod", _with_zeros((2, 3), 0, 4), label="two-zeros", wrt=(0,)),
    NumpyCase("cumprod", _with_zeros((2, 4), 1, 6), {"axis": -1}, label="zeros", wrt=(0,)),
    # ddof
    *[NumpyCase(name, _args((3, 4), "float64"), {"axis": axis, "ddof": ddof}, label=f"ddof{ddof}-{axis}", wrt=(0,))
      for name in ("var", "std") for axis, ddof in [(0, 1), (None, 2), (-1, 1.5)]],
    NumpyCase("var", _args((2, 3), "int32"), {"axis": 1, "ddof": 1}, label="ddof1-int32"),
    NumpyCase("var", _args((1, 3), "float64"), {"axis": 0, "ddof": 1}, label="ddof-exceeds"),   # 0/0: nan, as numpy
]
def _with_nans(shape=(4, 5), full_row=False):
    """NaNs among the values; with `full_row`, row 2 all NaN (a NaN result, so no derivative check)."""
    def make(rng):
        x = uniform(rng, shape)
        x[0, 1] = x[3, 3] = np.nan
        if full_row:
            x[2, :] = np.nan
        return (x,)
    return make


CASES += [
    *[NumpyCase("ptp", _args(s, "float64"), {"axis": axis, "keepdims": keep}, label=lb, wrt=(0,))
      for s, axis, keep, lb in [((3, 4), None, False, "all"), ((3, 4), 1, True, "keepdims"), ((2, 3, 4), (0, 2), False, "tuple")]],
    NumpyCase("ptp", _args((3, 4), "int32"), {"axis": 0}, label="int32"),
    *[NumpyCase("average", make, kw, label=lb, wrt=wrt) for make, kw, lb, wrt in [
        (_args((3, 4), "float64"), {}, "mean", (0,)),
        (lambda rng: (uniform(rng, (3, 4)), None, uniform(rng, (3, 4), lo=0.2, hi=1.0)), {}, "weights", (0, 2)),
        (lambda rng: (uniform(rng, (3, 4)), 1, uniform(rng, (4,), lo=0.2, hi=1.0)), {}, "weights-1d", (0, 2)),
        (lambda rng: (uniform(rng, (2, 3, 4)), (0, 2), uniform(rng, (2, 3, 4), lo=0.2, hi=1.0)), {"keepdims": True},
         "tuple-keepdims", (0, 2)),
        (lambda rng: (uniform(rng, (3, 4)), 0, uniform(rng, (3, 4), lo=0.2, hi=1.0), True), {}, "returned", ()),
        (lambda rng: (uniform(rng, (3, 4)), 0), {"returned": True}, "returned-unweighted", ()),
        (lambda rng: (uniform(rng, (3, 4), "int32"), 1, uniform(rng, (4,), lo=0.2, hi=1.0)), {}, "int32", ()),
        (lambda rng: (uniform(rng, (3, 4), "float32"), 0, uniform(rng, (3, 4), "float32", lo=0.2, hi=1.0)), {},
         "float32", ())]],
    *[NumpyCase(name, make, kw, label=lb, wrt=(0,) if diff else ())
      for name in ("cumulative_sum", "cumulative_prod") for make, kw, lb, diff in [
          (_args((3, 4), "float64", 0.5, 1.5), {"axis": 1}, "axis1", True),
          (_args((5,), "float64", 0.5, 1.5), {"include_initial": True}, "1d-initial", True),
          (_args((3, 4), "float64", 0.5, 1.5), {"axis": 0, "include_initial": True}, "axis0-initial", True),
          (_args((2, 3), "int32"), {"axis": 0}, "int32", False),
          (_args((4,), "bool"), {}, "bool", False)]],
    *[NumpyCase(name, _with_nans(), kw, label=lb, wrt=(0,))
      for name in ("nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar", "nanstd")
      for kw, lb in [({}, "all"), ({"axis": 1}, "axis1"), ({"axis": 0, "keepdims": True}, "axis0-keepdims")]],
    *[NumpyCase(name, _with_nans(full_row=True), {"axis": 1}, label="all-nan-row")
      for name in ("nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar", "nanstd")],
    *[NumpyCase(name, _args((3, 4), "int32"), {"axis": 1}, label="int32")
      for name in ("nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar", "nanstd")],
    *[NumpyCase(name, lambda rng: (uniform(rng, (3, 4), "float32"),), {"axis": 0}, label="float32")
      for name in ("nansum", "nanmean", "nanvar", "nanmax")],
    *[NumpyCase(name, _with_nans(), {"axis": 1, "ddof": 1}, label="ddof1", wrt=(0,)) for name in ("nanvar", "nanstd")],
    *[NumpyCase(name, make, kw, label=lb, wrt=wrt) for name in ("cov", "corrcoef") for make, kw, lb, wrt in [
        (_args((3, 6), "float64"), {}, "rows", (0,)),
        (_args((6, 3), "float64"), {"rowvar": False}, "columns", (0,)),
        (lambda rng: (uniform(rng, (5,)), uniform(rng, (5,))), {}, "x-y", (0, 1)),
        (_args((2, 4), "int32"), {}, "int32", ()),
        (_args((3, 5), "float32"), {}, "float32", ()),
        (_args((3, 4), "complex128"), {}, "complex", ())]],
    *[NumpyCase("cov", _args((3, 6), "float64"), kw, label=lb, wrt=(0,))
      for kw, lb in [({"bias": True}, "bias"), ({"ddof": 0}, "ddof0")]],
    NumpyCase("cov", _args((3, 5), "float32"), {"dtype": "float32"}, label="dtype-float32"),
    NumpyCase("corrcoef", _args((5,), "float64"), label="one-variable"),
]
CASES += [
    *[NumpyCase(name, _with_nans(), kw, label=lb) for name in ("nanargmax", "nanargmin")
      for kw, lb in [({}, "flat"), ({"axis": 1}, "axis1"), ({"axis": 0, "keepdims": True}, "axis0-keepdims")]],
    *[NumpyCase(name, _args((3, 4), "int32"), {"axis": 1}, label="int32") for name in ("nanargmax", "nanargmin")],
    *[NumpyCase(name, _with_nans(), kw, label=lb, wrt=(0,)) for name in ("nancumsum", "nancumprod")
      for kw, lb in [({}, "flat"), ({"axis": 1}, "axis1")]],
    *[NumpyCase(name, _args((2, 3), "int32"), {"axis": 0}, label="int32") for name in ("nancumsum", "nancumprod")],
]
