"""numpy-agreement cases for frame.numpy's shape and indexing functions (issue 14 item 5).

Functions of several arrays take them as a list (numpy's signature), which the table's derivative
check does not differentiate (it takes array arguments): their derivatives are checked against JAX
in tests/frontend/test_numpy_shape.py, and the op behind them is concat (tests/ops). Functions
returning lists (split) are compared on pieces of one shape (numpy's list and frame's stack to
the same array); ragged splits are checked in tests/frontend/test_numpy_shape.py.
"""
import numpy as np

from tests.frontend.numpy_cases import NumpyCase, uniform

DTYPES = ["float32", "int32", "int64", "bool", "complex128"]


def _x(*shape, dtype="float64"):
    return lambda rng: (uniform(rng, shape, dtype),)


def _xs(*shapes, dtype="float64"):
    return lambda rng: ([uniform(rng, s, dtype) for s in shapes],)


def _with(*shape, extra=(), dtype="float64"):
    return lambda rng: (uniform(rng, shape, dtype), *extra)


def _cases(name, table, wrt=(0,)):
    """NumpyCases of `name` from (make_args, kwargs, label) rows; float64 rows differentiate `wrt`."""
    return [NumpyCase(name, make, kwargs, label=label, wrt=() if label.startswith("dtype") else wrt)
            for make, kwargs, label in table]


def _dtype_rows(make):
    return [(make(d), {}, f"dtype-{d}") for d in DTYPES]


CASES = [
    *_cases("reshape", [(_with(3, 4, extra=((2, -1),)), {}, "infer"), (_with(0, 3, extra=((3, 0),)), {}, "empty"),
                        (_with(extra=((1, 1),)), {}, "rank0"), (_with(1, 3, 1, extra=((3,),)), {}, "size1")]
            + [(_with(2, 3, extra=((3, 2),), dtype=d), {}, f"dtype-{d}") for d in DTYPES]),
    *_cases("transpose", [(_x(2, 3, 4), {}, "reverse"), (_x(2, 3, 4), {"axes": (1, -1, 0)}, "neg-axis"),
                          (_x(0, 3), {}, "empty"), (_x(), {}, "rank0")] + _dtype_rows(lambda d: _x(2, 3, dtype=d))),
    *_cases("swapaxes", [(_with(2, 3, 4, extra=(0, -1)), {}, "neg-axis"), (_with(1, 0, extra=(0, 1)), {}, "empty")]
            + _dtype_rows(lambda d: _with(2, 3, extra=(0, 1), dtype=d))),
    *_cases("broadcast_to", [(_with(3, 1, extra=((2, 3, 4),)), {}, "bcast"), (_with(extra=((0, 2),)), {}, "empty"),
                             (_with(1, extra=((1, 1),)), {}, "size1")]
            + _dtype_rows(lambda d: _with(3, extra=((2, 3),), dtype=d))),
    *[NumpyCase(name, _xs((2, 3), (1, 3), (0, 3)), {"axis": 0}, label="axis0") for name in ("concatenate", "concat")],
    NumpyCase("concatenate", _xs((2, 3), (2, 1)), {"axis": -1}, label="neg-axis"),
    NumpyCase("concatenate", _xs((2, 3), (4,)), {"axis": None}, label="flat"),
    *[NumpyCase("concatenate", _xs((2,), (3,), dtype=d), label=f"dtype-{d}") for d in DTYPES],
    *_cases("expand_dims", [(_with(2, 3, extra=(-1,)), {}, "neg-axis"), (_with(extra=(0,)), {}, "rank0"),
                            (_with(0, 2, extra=(1,)), {}, "empty")] + _dtype_rows(lambda d: _with(2, extra=(0,), dtype=d))),
    *_cases("squeeze", [(_x(1, 3, 1), {}, "all"), (_x(1, 3, 1), {"axis": -1}, "neg-axis"), (_x(0, 1), {"axis": 1}, "empty"),
                        (_x(), {}, "rank0")] + _dtype_rows(lambda d: _x(1, 2, dtype=d))),
    *_cases("stack", [(_xs((2, 3), (2, 3)), {}, "axis0"), (_xs((2, 3), (2, 3), (2, 3)), {"axis": -1}, "neg-axis"),
                      (_xs((0, 2), (0, 2)), {"axis": 1}, "empty"), (_xs((), ()), {}, "rank0")]
            + _dtype_rows(lambda d: _xs((2,), (2,), dtype=d)), wrt=()),
    *[NumpyCase(name, make, label=label) for name in ("hstack", "vstack", "column_stack")
      for make, label in [(_xs((2, 3), (2, 3)), "2d"), (_xs((3,), (3,)), "1d"), (_xs((), ()), "rank0")]],
    NumpyCase("hstack", _xs((2, 0), (2, 3)), label="empty"), NumpyCase("vstack", _xs((0, 3), (1, 3)), label="empty"),
    NumpyCase("column_stack", _xs((3,), (3, 2)), label="mixed"),
    *[NumpyCase(name, _xs((2,), (2,), dtype=d), label=f"dtype-{d}") for name in ("hstack", "vstack", "column_stack")
      for d in DTYPES],
    *[NumpyCase(name, _with(6, 2, extra=(3,)), kwargs, label=label, wrt=(0,)) for name in ("split", "array_split")
      for kwargs, label in [({}, "sections"), ({"axis": 0}, "axis0")]],
    NumpyCase("split", _with(2, 6, extra=([2, 4],)), {"axis": -1}, label="indices", wrt=(0,)),
    NumpyCase("array_split", _with(3, 4, extra=([1, 2],)), {"axis": 0}, label="indices", wrt=(0,)),
    NumpyCase("split", _with(0, 4, extra=(2,)), {"axis": 1}, label="empty"),
    *[NumpyCase("split", _with(4, extra=(2,), dtype=d), label=f"dtype-{d}") for d in DTYPES],
    *_cases("tile", [(_with(2, 3, extra=(2,)), {}, "int"), (_with(2, 3, extra=((2, 1, 3),)), {}, "longer-reps"),
                     (_with(2, 1, 3, extra=((2, 1),)), {}, "shorter-reps"), (_with(extra=(3,)), {}, "rank0"),
                     (_with(0, 2, extra=(2,)), {}, "empty"), (_with(2, extra=(0,)), {}, "zero")]
            + _dtype_rows(lambda d: _with(2, extra=((2, 2),), dtype=d))),
    *_cases("repeat", [(_with(2, 3, extra=(2,)), {}, "flat"), (_with(2, 3, extra=(2,)), {"axis": -1}, "neg-axis"),
                       (_with(2, 3, extra=([1, 0, 2],)), {"axis": 1}, "per-element"), (_with(extra=(3,)), {}, "rank0"),
                       (_with(0, 2, extra=(2,)), {"axis": 0}, "empty")] + _dtype_rows(lambda d: _with(3, extra=(2,), dtype=d))),
    *_cases("flip", [(_x(2, 3), {}, "all"), (_x(2, 3, 4), {"axis": -1}, "neg-axis"), (_x(2, 3, 4), {"axis": (0, 2)}, "tuple"),
                     (_x(0, 3), {"axis": 1}, "empty"), (_x(), {}, "rank0")] + _dtype_rows(lambda d: _x(3, dtype=d))),
    *_cases("roll", [(_with(5, extra=(2,)), {}, "1d"), (_with(2, 3, extra=(-4,)), {}, "flat"),
                     (_with(2, 3, extra=(1,)), {"axis": -1}, "neg-axis"), (_with(3, 4, extra=((1, 2),)), {"axis": (0, 1)}, "tuple"),
                     (_with(3, 4, extra=((1, 2),)), {"axis": (1, 1)}, "same-axis"), (_with(0, 3, extra=(1,)), {"axis": 0}, "empty")]
            + _dtype_rows(lambda d: _with(4, extra=(1,), dtype=d))),
    *_cases("pad", [(_with(2, 3, extra=(1,)), {}, "zero"), (_with(2, 3, extra=(((1, 0), (2, 1)),)), {"constant_values": 1.5}, "value"),
                    (_with(2, 3, extra=((1, 2),)), {"constant_values": ((1.0, 2.0), (3.0, 4.0))}, "values"),
                    (_with(3, 4, extra=(((2, 1), (1, 3)),)), {"mode": "reflect"}, "reflect"),
                    (_with(2, 3, extra=(((3, 4), (1, 0)),)), {"mode": "reflect"}, "reflect-wide"),
                    (_with(3, 4, extra=((2, 5),)), {"mode": "symmetric"}, "symmetric"),
                    (_with(3, 4, extra=(((1, 4), (2, 0)),)), {"mode": "wrap"}, "wrap"),
                    (_with(3, 4, extra=(2,)), {"mode": "edge"}, "edge"),
                    (_with(0, 2, extra=(1,)), {}, "empty"), (_with(1, extra=(0,)), {}, "size1")]
            + [(_with(3, extra=((1, 2),), dtype=d), {"mode": m}, f"dtype-{d}-{m}") for d in DTYPES for m in ("edge", "wrap")]
            + [(_with(3, extra=(1,), dtype=d), {}, f"dtype-{d}") for d in ("float32", "int32", "int64", "complex128")]),
    *_cases("take", [(_with(3, 4, extra=(np.array([2, 0, -1]),)), {}, "flat"),
                     (_with(3, 4, extra=(np.array([[2, 0], [1, -1]]),)), {"axis": 1}, "2d-index"),
                     (_with(3, 4, extra=(2,)), {"axis": -2}, "scalar"), (_with(3, 4, extra=(np.zeros(0, np.int64),)), {"axis": 0}, "empty"),
                     (_with(2, 3, 4, extra=(np.array([3, 3]),)), {"axis": 2}, "repeat")]
            + _dtype_rows(lambda d: _with(3, extra=(np.array([2, 0]),), dtype=d))),
    *_cases("take_along_axis", [(_with(3, 4, extra=(np.array([[0], [3], [-1]]), 1)), {}, "rows"),
                                (_with(3, 4, extra=(np.array([[2, 0, 1, 1]]), 0)), {}, "bcast"),
                                (_with(2, 3, 4, extra=(np.zeros((2, 0, 4), np.int64), -2)), {}, "empty"),
                                (_with(5, extra=(np.array([4, 0, 0]), None)), {}, "flat")]
            + _dtype_rows(lambda d: _with(3, extra=(np.array([2, 0]), 0), dtype=d))),
    *[NumpyCase(name, _x(*s), label=lb, reference=lambda x: np.ravel(x), wrt=(0,)) for name in ("ravel", "flatten")
      for s, lb in [((2, 3), "2d"), ((), "rank0"), ((0, 2), "empty")]],
    *[NumpyCase(name, _x(2, dtype=d), label=f"dtype-{d}", reference=np.ravel) for name in ("ravel", "flatten") for d in DTYPES],
    *_cases("moveaxis", [(_with(2, 3, 4, extra=(0, -1)), {}, "one"), (_with(2, 3, 4, extra=((0, 1), (2, 0))), {}, "two"),
                         (_with(0, 3, extra=(1, 0)), {}, "empty")] + _dtype_rows(lambda d: _with(2, 3, extra=(0, 1), dtype=d))),
    *[row for name in ("tril", "triu") for row in _cases(name, [
        (_x(3, 4), {}, "2d"), (_x(2, 3, 3), {"k": 1}, "batched"), (_x(4, 3), {"k": -2}, "below"), (_x(3), {}, "1d"),
        (_x(0, 3), {}, "empty")] + _dtype_rows(lambda d: _x(2, 2, dtype=d)))],
    *_cases("diagonal", [(_x(3, 4), {}, "2d"), (_x(3, 4), {"offset": 2}, "above"), (_x(4, 3), {"offset": -1}, "below"),
                         (_x(2, 3, 4), {"axis1": -1, "axis2": 0}, "neg-axis"), (_x(3, 3), {"offset": 5}, "empty"),
                         (_x(0, 2), {}, "empty-axis")] + _dtype_rows(lambda d: _x(2, 2, dtype=d))),
    *_cases("diag", [(_x(3), {}, "vector"), (_x(3), {"k": 2}, "above"), (_x(2), {"k": -1}, "below"), (_x(0), {"k": 1}, "empty"),
                     (_x(3, 4), {"k": 1}, "matrix")] + _dtype_rows(lambda d: _x(3, dtype=d))),
    *_cases("meshgrid", [(lambda rng: (uniform(rng, (3,)), uniform(rng, (2,))), {}, "xy"),
                         (lambda rng: (uniform(rng, (3,)), uniform(rng, (2,)), uniform(rng, (4,))), {"indexing": "ij"}, "ij"),
                         (lambda rng: (uniform(rng, (3,)), uniform(rng, (2, 1))), {"sparse": True}, "sparse"),
                         ], wrt=(0, 1)),
    NumpyCase("meshgrid", lambda rng: (uniform(rng, (0,)), uniform(rng, ())), label="empty"),
    *[NumpyCase("meshgrid", lambda rng, d=d: (uniform(rng, (2,), d), uniform(rng, (3,), d)), label=f"dtype-{d}")
      for d in DTYPES],
]
CASES += [
    *[NumpyCase(name, make, label=lb) for name in ("atleast_1d", "atleast_2d", "atleast_3d")
      for make, lb in [(lambda rng: (uniform(rng, ()),), "rank0"), (lambda rng: (uniform(rng, (3,)),), "1d"),
                       (lambda rng: (uniform(rng, (2, 3)),), "2d"), (lambda rng: (uniform(rng, (2, 3, 1, 2), "int32"),), "4d"),
                       (lambda rng: (uniform(rng, ()), uniform(rng, (2,)), uniform(rng, (2, 2))), "several")]],
    *[NumpyCase(name, _x(3, 4, 2), label="3d", wrt=(0,)) for name in ("fliplr", "flipud", "matrix_transpose")],
    NumpyCase("flipud", _x(4, dtype="bool"), label="bool"),
    *[NumpyCase("rot90", _with(2, 3, 4, extra=(k, axes)), label=f"k{k}-{axes}", wrt=(0,))
      for k, axes in [(1, (0, 1)), (2, (0, 1)), (3, (2, 0)), (-1, (1, 2)), (0, (0, 2)), (5, (-1, 0))]],
    NumpyCase("rot90", _x(2, 3, dtype="int32"), label="default"),
    NumpyCase("dstack", _xs((2, 3), (2, 3)), label="2d"), NumpyCase("dstack", _xs((3,), (3,)), label="1d"),
    NumpyCase("append", lambda rng: (uniform(rng, (2, 3)), uniform(rng, (4,))), label="flat", wrt=(0, 1)),
    NumpyCase("append", lambda rng: (uniform(rng, (2, 3)), uniform(rng, (1, 3))), {"axis": 0}, label="axis0", wrt=(0, 1)),
    NumpyCase("permute_dims", _with(2, 3, 4, extra=((2, 0, 1),)), label="perm", wrt=(0,)),
    NumpyCase("permute_dims", _x(2, 3), label="reverse"),
    *[NumpyCase("unstack", _x(2, 3, 4), {"axis": axis}, label=f"axis{axis}") for axis in (0, -1)],
    *[NumpyCase("copy", _x(2, 3, dtype=d), label=d, wrt=(0,) if d == "float64" else ()) for d in ("float64", "int32")],
]
CASES += [
    *[NumpyCase("delete", _with(3, 5, extra=(obj, axis)), label=lb, wrt=(0,))
      for obj, axis, lb in [(1, 0, "int"), ([0, -1], 1, "list"), (slice(1, None, 2), 1, "slice"), (2, None, "flat")]],
    NumpyCase("delete", _with(4, extra=([0, 0],), dtype="int32"), label="repeated"),
    *[NumpyCase(name, _x(2, 3, 4), label="3d") for name in ("ndim", "shape", "size")],
    NumpyCase("size", _with(2, 3, 4, extra=(-1,)), label="axis"),
]


def _filled(a, val, wrap=False, inplace=False):
    """numpy's in-place fill_diagonal as a function returning the filled copy (frame's inplace=False)."""
    out = np.array(a, copy=True)
    np.fill_diagonal(out, val, wrap)
    return out


def _put(arr, indices, values, axis, inplace=False):
    """numpy's in-place put_along_axis as a function returning the updated copy (frame's inplace=False)."""
    out = np.array(arr, copy=True)
    np.put_along_axis(out, indices, values, axis)
    return out


CASES += [
    *[NumpyCase("broadcast_shapes", lambda rng, a=a: a, label=lb) for a, lb in [
        (((3, 1), 4, (2, 1, 1)), "mixed"), (((0, 3), (1,)), "empty"), (((), (2,)), "rank0"), ((), "none"), (((1, 1), 1), "size1")]],
    *[NumpyCase("broadcast_arrays", lambda rng, a=a, b=b: (uniform(rng, a), uniform(rng, b)), label=lb, wrt=(0, 1))
      for a, b, lb in [((3, 4), (4,), "row"), ((2, 1, 4), (3, 1), "both"), ((), (2, 3), "rank0"), ((1, 1), (1,), "size1")]],
    # (the derivative check of an empty case sums the result, which for several results it cannot)
    NumpyCase("broadcast_arrays", lambda rng: (uniform(rng, (0, 3)), uniform(rng, (3,))), label="empty"),
    NumpyCase("broadcast_arrays", lambda rng: (uniform(rng, (2, 1)), 1.5, uniform(rng, (3,), "int32")), label="scalar"),
    *[NumpyCase("broadcast_arrays", lambda rng, d=d: (uniform(rng, (2, 1), d), uniform(rng, (3,), d)), label=f"dtype-{d}")
      for d in DTYPES],
    NumpyCase("broadcast_arrays", lambda rng: (), label="none"),
    *[NumpyCase("block", make, label=lb) for make, lb in [
        (lambda rng: ([[uniform(rng, (2, 2)), uniform(rng, (2, 1))], [uniform(rng, (1, 3))]],), "2x2"),
        (lambda rng: ([uniform(rng, (3,)), uniform(rng, ()), uniform(rng, (0,))],), "1d"),
        (lambda rng: ([[uniform(rng, ())], [uniform(rng, ())]],), "rank0-in-2d"),
        (lambda rng: ([[[uniform(rng, (2, 1))], [uniform(rng, (2, 1))]]],), "depth3"),
        (lambda rng: ([uniform(rng, (2,), "int32"), uniform(rng, (3,), "float32"), uniform(rng, (1,), "bool")],), "promote"),
        (lambda rng: (uniform(rng, (2, 3)),), "no-list"), (lambda rng: (1.5,), "scalar")]],
    *[NumpyCase("block", lambda rng, d=d: ([[uniform(rng, (1, 2), d)], [uniform(rng, (2, 2), d)]],), label=f"dtype-{d}")
      for d in DTYPES],
    *_cases("hsplit", [(_with(2, 6, extra=(3,)), {}, "2d"), (_with(6, extra=([2, 4],)), {}, "1d")]
            + _dtype_rows(lambda d: _with(2, 4, extra=(2,), dtype=d))),
    NumpyCase("hsplit", _with(2, 0, extra=(2,)), label="empty"),
    *_cases("vsplit", [(_with(4, 3, extra=(2,)), {}, "2d"), (_with(6, 2, 2, extra=([2, -2],)), {}, "3d")]
            + _dtype_rows(lambda d: _with(2, 2, extra=(2,), dtype=d))),
    *_cases("dsplit", [(_with(2, 1, 4, extra=(2,)), {}, "3d"), (_with(1, 2, 6, 2, extra=([3],)), {}, "4d")]
            + _dtype_rows(lambda d: _with(1, 1, 2, extra=(2,), dtype=d))),
    *_cases("rollaxis", [(_with(2, 3, 4, 5, extra=(3, 1)), {}, "back"), (_with(2, 3, 4, 5, extra=(1, 4)), {}, "to-end"),
                         (_with(2, 3, 4, extra=(-1, -2)), {}, "neg-axis"), (_with(2, 3, 4, extra=(1, 2)), {}, "same"),
                         (_with(0, 3, extra=(1,)), {}, "empty")] + _dtype_rows(lambda d: _with(2, 3, extra=(1,), dtype=d))),
    *_cases("diagflat", [(_x(2, 2), {}, "2d"), (_x(3), {"k": 1}, "above"), (_x(3), {"k": -2}, "below"), (_x(), {}, "rank0"),
                         (_x(0), {}, "empty")] + _dtype_rows(lambda d: _x(2, dtype=d))),
    *_cases("insert", [(lambda rng: (uniform(rng, (3, 4)), 1, uniform(rng, (4,)), 0), {}, "int-row"),
                       (lambda rng: (uniform(rng, (3, 4)), -1, uniform(rng, (3,)), 1), {}, "int-column"),
                       (lambda rng: (uniform(rng, (3, 4)), 1, uniform(rng, (3, 1))), {"axis": -1}, "int-moved"),
                       (lambda rng: (uniform(rng, (3, 4)), [2], uniform(rng, (3, 2)), 1), {}, "one-index-many"),
                       (lambda rng: (uniform(rng, (3, 4)), [0, 2, 2, -1], uniform(rng, (4,)), 1), {}, "indices"),
                       (lambda rng: (uniform(rng, (3, 4)), slice(0, None, 2), uniform(rng, ())), {}, "slice-flat"),
                       (lambda rng: (uniform(rng, (3, 4)), 12, uniform(rng, (2,))), {}, "end"),
                       (lambda rng: (uniform(rng, (0, 2)), 0, uniform(rng, (2,)), 0), {}, "empty")], wrt=(0, 2)),
    NumpyCase("insert", lambda rng: (np.arange(3), [-4, 0], np.array([7.6, 8.2])), label="numpy-quirk-cast"),
    NumpyCase("insert", lambda rng: (np.arange(3), [True, False, True], np.array([7, 8])), label="mask",
              reference=lambda arr, obj, values: np.insert(arr, np.array(obj), values)),   # numpy needs the mask an array
    NumpyCase("insert", lambda rng: (np.arange(3), [], np.array([], np.int64)), label="nothing"),
    *[NumpyCase("insert", lambda rng, d=d: (uniform(rng, (2, 2), d), 1, uniform(rng, (2,), d), 1), label=f"dtype-{d}")
      for d in DTYPES],
    *[NumpyCase("trim_zeros", lambda rng, a=a: a, kw, label=lb) for a, kw, lb in [
        (([0, 0, 1, 2, 0, 3, 0, 0],), {}, "fb"), (([0, 1.5, 0],), {"trim": "f"}, "f"), (([0, 1, 0],), {"trim": "B"}, "b"),
        (([0, 0],), {}, "zeros"), (([],), {}, "empty"), (([False, True, False],), {}, "bool")]],
    *_cases("resize", [(_with(3, extra=((2, 4),)), {}, "repeat"), (_with(2, 3, extra=(4,)), {}, "shrink"),
                       (_with(extra=((2, 2),)), {}, "rank0"), (_with(0, extra=(3,)), {}, "empty-input"),
                       (_with(2, 2, extra=((0, 3),)), {}, "empty-shape"), (_with(1, 2, extra=((3, 1, 2),)), {}, "size1")]
            + _dtype_rows(lambda d: _with(3, extra=((2, 2),), dtype=d))),
    *[NumpyCase("fill_diagonal", make, {"inplace": False, **kw}, label=lb, reference=_filled, wrt=(0, 1))
      for make, kw, lb in [(lambda rng: (uniform(rng, (3, 3)), uniform(rng, ())), {}, "square"),
                           (lambda rng: (uniform(rng, (5, 3)), uniform(rng, (2,))), {"wrap": True}, "wrap"),
                           (lambda rng: (uniform(rng, (5, 3)), uniform(rng, (2,))), {}, "tall"),
                           (lambda rng: (uniform(rng, (2, 4)), uniform(rng, (2, 2))), {}, "wide-2d-val"),
                           (lambda rng: (uniform(rng, (3, 3, 3)), uniform(rng, (5,))), {}, "3d")]],
    *[NumpyCase("fill_diagonal", make, {"inplace": False}, label=lb, reference=_filled) for make, lb in [
        (lambda rng: (uniform(rng, (0, 0)), 1.0), "empty"), (lambda rng: (uniform(rng, (2, 2)), np.zeros(0)), "empty-val"),
        (lambda rng: (uniform(rng, (3, 3), "int32"), np.array([1.7, -2.2])), "cast"),
        *[(lambda rng, d=d: (uniform(rng, (2, 3), d), uniform(rng, (), d)), f"dtype-{d}") for d in DTYPES]]],
    *[NumpyCase("put_along_axis", make, {"inplace": False}, label=lb, reference=_put, wrt=(0, 2)) for make, lb in [
        (lambda rng: (uniform(rng, (3, 4)), np.array([[0], [3], [-1]]), uniform(rng, (3, 1)), 1), "rows"),
        (lambda rng: (uniform(rng, (3, 4)), np.array([[2, 0, 1, 1]]), uniform(rng, ()), 0), "bcast"),
        (lambda rng: (uniform(rng, (2, 3, 4)), np.array([[[1], [0], [2]]]), uniform(rng, (2, 3, 4)), -2), "neg-axis"),
        (lambda rng: (uniform(rng, (2, 3)), np.array([4, 0, -1]), uniform(rng, (3,)), None), "flat"),
        (lambda rng: (uniform(rng, (3, 4)), np.zeros((3, 0), np.int64), uniform(rng, (3, 0)), 1), "empty")]],
    NumpyCase("put_along_axis", lambda rng: (uniform(rng, (4,)), np.array([1, 1, 3]), np.array([1.0, 2.0, 3.0]), 0),
              {"inplace": False}, label="repeated", reference=_put),
    *[NumpyCase("put_along_axis", lambda rng, d=d: (uniform(rng, (2, 3), d), np.array([[2], [0]]), uniform(rng, (2, 1), d), 1),
                {"inplace": False}, label=f"dtype-{d}", reference=_put) for d in DTYPES],
    NumpyCase("put_along_axis", lambda rng: (uniform(rng, (2, 3), "int32"), np.array([[2], [0]]), np.array([[1.7], [-2.5]]), 1),
              {"inplace": False}, label="cast", reference=_put),
    *[NumpyCase("apply_over_axes", lambda rng, f=f, s=s, ax=ax: (f, uniform(rng, s), ax), label=lb, wrt=(1,))
      for f, s, ax, lb in [(np.sum, (2, 3, 4), (0, 2), "sum"), (np.mean, (2, 3, 4), -1, "mean-neg-axis"),
                           (np.cumsum, (2, 3), [1, 0], "keeps-rank"), (np.sum, (0, 3), 0, "empty")]],
    NumpyCase("apply_over_axes", lambda rng: (np.max, uniform(rng, (2, 3), "int32"), (1,)), label="int32"),
]


def _put_copy(a, ind, v, mode="raise", inplace=False):
    """numpy's in-place put as a function returning the updated copy (frame's inplace=False)."""
    out = np.array(a, copy=True)
    np.put(out, ind, v, mode)
    return out


def _placed(arr, mask, vals, inplace=False):
    """numpy's in-place place as a function returning the updated copy (frame's inplace=False)."""
    out = np.array(arr, copy=True)
    np.place(out, mask, vals)
    return out


_MASK = [[True, False, True, False], [False, False, True, True], [True, False, False, False]]
CASES += [
    # mode 'raise' needs concrete indices: lists, which the compiled run keeps constant; 'wrap' and 'clip' trace them
    *[NumpyCase("put", make, {"inplace": False, **kw}, label=lb, reference=_put_copy, wrt=(0, 2)) for make, kw, lb in [
        (lambda rng: (uniform(rng, (3, 4)), [0, -1, 5, 5], uniform(rng, (2,))), {}, "raise-repeated"),
        (lambda rng: (uniform(rng, (3, 4)), [[1, 2], [11, -12]], uniform(rng, (2, 2))), {}, "raise-2d-ind"),
        (lambda rng: (uniform(rng, (3, 4)), np.array([-13, 12, 3, 30]), uniform(rng, (3,))), {"mode": "wrap"}, "wrap"),
        (lambda rng: (uniform(rng, (3, 4)), np.array([-13, 12, 3, 30]), uniform(rng, (3,))), {"mode": "clip"}, "clip"),
        (lambda rng: (uniform(rng, (2, 3)), np.array([1, 4]), uniform(rng, (5,))), {"mode": "wrap"}, "v-longer"),
        (lambda rng: (uniform(rng, (2, 3)), 4, uniform(rng, ())), {}, "scalars"),
        (lambda rng: (uniform(rng, ()), [0], uniform(rng, (1,))), {}, "rank0"),
        (lambda rng: (uniform(rng, (2, 3)), [], uniform(rng, (2,))), {}, "no-indices"),
        (lambda rng: (uniform(rng, (2, 3)), [1], uniform(rng, (0,))), {}, "empty-v"),
        (lambda rng: (uniform(rng, (0, 3)), np.zeros(0, np.int64), uniform(rng, (2,))), {"mode": "clip"}, "empty-a")]],
    *[NumpyCase("put", make, {"inplace": False, **kw}, label=lb, reference=_put_copy) for make, kw, lb in [
        (lambda rng: (np.arange(5), [0, 1], np.array([1.7, -2.5])), {}, "cast"),
        (lambda rng: (np.arange(5), [True, False], [7, 8]), {}, "bool-ind"),
        (lambda rng: (np.arange(5), np.array([1, -1], np.int32), 7), {"mode": "wrap"}, "int32-ind"),
        *[(lambda rng, d=d: (uniform(rng, (2, 3), d), np.array([5, 0]), uniform(rng, (2,), d)), {"mode": "wrap"}, f"dtype-{d}")
          for d in DTYPES]]],
    *[NumpyCase("place", make, {"inplace": False}, label=lb, reference=_placed, wrt=(0, 2)) for make, lb in [
        (lambda rng: (uniform(rng, (3, 4)), _MASK, uniform(rng, (6,))), "exact"),
        (lambda rng: (uniform(rng, (3, 4)), _MASK, uniform(rng, (2,))), "repeated"),
        (lambda rng: (uniform(rng, (3, 4)), _MASK, uniform(rng, (2, 5))), "longer-2d"),
        (lambda rng: (uniform(rng, (3, 4)), [[0, 1, 2, 0, 0, 0]] * 2, uniform(rng, ())), "int-mask-other-shape"),
        (lambda rng: (uniform(rng, (2, 2)), [[False, False], [False, False]], uniform(rng, (0,))), "nothing"),
        (lambda rng: (uniform(rng, ()), True, uniform(rng, (3,))), "rank0"),
        (lambda rng: (uniform(rng, (0, 2)), [], uniform(rng, (2,))), "empty")]],
    *[NumpyCase("place", make, {"inplace": False}, label=lb, reference=_placed) for make, lb in [
        (lambda rng: (np.arange(6), [1, 0, 1, 0, 1, 0], [1.9, -2.9]), "cast"),
        *[(lambda rng, d=d: (uniform(rng, (2, 3), d), [[1, 0, 1], [0, 1, 0]], uniform(rng, (2,), d)), f"dtype-{d}")
          for d in DTYPES]]],
]
