"""frame.numpy's sorting, order statistics and numpy-2 additions beyond the agreement table
(tests/frontend/cases_*.py): refusals by name, a traced q, and sort's derivative with ties."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.errors import LinAlgError, ShapeError, TraceError


@pytest.mark.parametrize("call, error, pattern", [
    (lambda: fnp.searchsorted(np.ones((2, 2)), 0.5), ShapeError, r"searchsorted: a must be 1-d, got shape \(2, 2\)"),
    (lambda: fnp.searchsorted(np.arange(3.0), 0.5, side="middle"), ShapeError, "side must be 'left' or 'right'"),
    (lambda: fnp.interp(np.ones(2), np.arange(3.0), np.arange(3.0), period=1.0), TraceError, r"interp: .*period="),
    (lambda: fnp.interp(np.ones(2), np.arange(3.0), np.arange(4.0)), ShapeError, r"xp and fp must be 1-d of one"),
    (lambda: fnp.quantile(np.ones(4), 1.5), ShapeError, r"quantiles must be in the range \[0, 1\]"),
    (lambda: fnp.quantile(np.ones(4), 0.5, method="hazen"), ShapeError, "method must be one of linear"),
    (lambda: fnp.median(np.ones((0, 3)), axis=0), ShapeError, r"median: the axes \(0,\) of shape \(0, 3\) hold no"),
    (lambda: fnp.median(np.ones(3, dtype=complex)), ShapeError, "median: needs real numbers, got complex128"),
    (lambda: fnp.sort(np.ones(3), order="x"), TraceError, r"sort: the argument\(s\) order="),
    (lambda: fnp.sort(np.ones(3), kind="bogo"), ShapeError, "kind must be one of"),
    (lambda: fnp.average(np.ones(3), weights=np.zeros(3)), ShapeError, "weights sum to zero"),
    (lambda: fnp.average(np.ones((2, 3)), weights=np.ones(3)), ShapeError, "axis must be given"),
    (lambda: fnp.gradient(np.ones(2), edge_order=2), ShapeError, r"too short; it needs at least edge_order \+ 1 = 3"),
    (lambda: fnp.gradient(np.ones((3, 4)), np.arange(3.0), np.arange(3.0)), ShapeError, "coordinates of axis 1"),
    (lambda: fnp.cross(np.ones(4), np.ones(3)), ShapeError, "dimension must be 2 or 3"),
    (lambda: fnp.linalg.matrix_power(np.ones((2, 3)), 2), LinAlgError, "must be square"),
    (lambda: fnp.cumulative_sum(np.ones((2, 2))), ShapeError, "axis must be given for an array of rank 2"),
    (lambda: fnp.diff(np.asarray(1.0)), ShapeError, "at least one dimensional"),
    (lambda: fnp.rot90(np.ones((2, 2)), axes=(0, 0)), ShapeError, "axes must be different"),
    (lambda: fnp.nanargmax(np.array([[1.0, np.nan], [np.nan, np.nan]]), axis=1), ShapeError, "All-NaN slice"),
    (lambda: fnp.delete(np.ones(3), 5), ShapeError, "index 5 is out of bounds for axis 0 with size 3"),
    (lambda: fnp.convolve(np.ones(3), np.ones(2), mode="circular"), ShapeError, "mode must be 'full', 'same' or"),
    (lambda: fnp.convolve(np.ones((2, 2)), np.ones(2)), ShapeError, r"convolve: needs two 1-d arrays"),
    (lambda: fnp.digitize(np.ones(3), np.array([0.0, 2.0, 1.0])), ShapeError, "monotonically increasing or decreasing"),
    (lambda: fnp.geomspace(0.0, 1.0, 3), ShapeError, r"geomspace\(0.0, 1.0\)"),
    (lambda: fnp.linalg.pinv(np.ones((2, 2), complex)), ShapeError, "op 'svd' needs a float operand"),
    (lambda: fnp.linalg.pinv(np.eye(2), rcond=0.1, rtol=0.1), ShapeError, "can't be both set"),
])
def test_bad_arguments_are_refused_by_name(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


def test_a_traced_q_gives_numpy_values_and_jax_derivatives():
    jnp = pytest.importorskip("jax.numpy")
    import jax
    jax.config.update("jax_enable_x64", True)
    x, q = np.random.default_rng(0).normal(size=(3, 7)), np.array([0.15, 0.45, 0.8])   # off the knots j / 6
    got = frame.function(lambda x, q: fnp.quantile(x, q, axis=1))(x, q)
    np.testing.assert_allclose(got, np.quantile(x, q, axis=1), rtol=1e-13)
    np.testing.assert_allclose(frame.function(lambda x, q: fnp.percentile(x, q))(x, q * 100), np.percentile(x, q * 100),
                               rtol=1e-13)
    grad_q = frame.grad(lambda q: fnp.sum(fnp.quantile(x, q, axis=1) ** 2))(q)   # the weight moves with q
    np.testing.assert_allclose(grad_q, jax.grad(lambda q: jnp.sum(jnp.quantile(x, q, axis=1) ** 2))(q), rtol=1e-12)


def test_sort_sends_each_cotangent_to_its_element_ties_included():
    x = np.array([2.0, -1.0, 2.0, 0.5])
    weights = np.array([1.0, 10.0, 100.0, 1000.0])
    # sorted: -1 (x1), 0.5 (x3), 2 (x0), 2 (x2): stable, so the first 2 takes slot 2
    np.testing.assert_array_equal(frame.grad(lambda x: fnp.sum(fnp.sort(x) * weights))(x), [100.0, 1.0, 1000.0, 10.0])
    np.testing.assert_array_equal(fnp.argsort(x), [1, 3, 0, 2])


def test_traced_sort_and_median_batch_under_vmap():
    x = np.random.default_rng(1).normal(size=(4, 5))
    np.testing.assert_array_equal(frame.vmap(fnp.sort)(x), np.sort(x, axis=1))
    np.testing.assert_allclose(frame.vmap(fnp.median)(x), np.median(x, axis=1), rtol=1e-15)


def test_dtype_information_follows_numpy_for_traced_values_too():
    assert fnp.finfo(fnp.float32).eps == np.finfo(np.float32).eps and fnp.iinfo("int32").max == 2 ** 31 - 1
    seen = {}

    def f(x, k):
        seen["x"], seen["x+1.0"], seen["x,k"] = fnp.result_type(x), fnp.result_type(x, 1.0), fnp.result_type(x, k)
        return x

    frame.trace(f, np.ones(2, np.float32), np.ones(2, np.int64))
    assert seen == {"x": np.float32, "x+1.0": np.float32, "x,k": np.float64}


@pytest.mark.parametrize("name, args", [
    ("deg2rad", ([90, 180.0],)), ("rad2deg", ([1.0, 2.0],)), ("isclose", ([1.0, 2.0], [1.0, 2.1])),
    ("allclose", ([1.0, 2.0], [1.0, 2.0])), ("array_equal", ([1, 2], [1, 2])), ("fmax", ([1.0, np.nan], [0.0, 3.0])),
    ("interp", ([0.5, 1.5], [0, 1, 2], [0.0, 10.0, 5.0])), ("searchsorted", ([1, 2, 3], [2.5, 0])),
    ("median", ([3, 1, 2, 5],)), ("quantile", ([3.0, 1.0, 2.0], [0.25, 0.5])), ("diff", ([1, 4, 9, 16],)),
    ("gradient", ([1.0, 4.0, 9.0, 16.0],)), ("trapezoid", ([1.0, 2.0, 4.0], [0.0, 1.0, 3.0])),
    ("cross", ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0])), ("polyval", ([1.0, -2.0, 3.0], [0.5, 2.0])),
    ("convolve", ([1, 2, 3], [0, 1, 0.5])), ("correlate", ([1.0, 2.0, 3.0], [0.0, 1.0])),
])
def test_lists_are_taken_as_arrays_as_numpy_takes_them(name, args):
    got, want = getattr(fnp, name)(*args), getattr(np, name)(*args)
    np.testing.assert_allclose(got, want, rtol=1e-14)
    assert np.asarray(got).dtype == np.asarray(want).dtype


def test_bincount_of_concrete_values_takes_numpy_length_rule():
    x = np.array([0, 3, 3, 1])
    np.testing.assert_array_equal(fnp.bincount(x), np.bincount(x))
    np.testing.assert_array_equal(fnp.bincount(x, minlength=6), np.bincount(x, minlength=6))
    np.testing.assert_allclose(fnp.bincount(x, np.array([0.5, 1, 2, 4])), np.bincount(x, np.array([0.5, 1, 2, 4])))
    with pytest.raises(ShapeError, match="give length= for traced x"):
        frame.function(fnp.bincount)(x)
    with pytest.raises(ShapeError, match="must be non-negative"):
        fnp.bincount(np.array([1, -1]))
    # JAX's rule for traced values beyond length: not counted
    np.testing.assert_array_equal(frame.function(lambda x: fnp.bincount(x, length=2))(x), [1, 1])


def test_infinite_and_nan_operands_do_not_leak_into_weights_identity_or_powers():
    # results built as x * 0 + c would turn inf/nan operands into nan where numpy gives c
    a = np.array([[1.0, np.inf], [2.0, 3.0]])
    np.testing.assert_array_equal(fnp.average(a, axis=0, weights=np.ones((2, 2)), returned=True)[1], [2.0, 2.0])
    np.testing.assert_array_equal(fnp.average(np.array([np.nan, 1.0]), returned=True)[1], 2.0)
    np.testing.assert_array_equal(fnp.linalg.matrix_power(np.array([[np.inf, 0.0], [0.0, 1.0]]), 0), np.eye(2))
    np.testing.assert_array_equal(fnp.vander(np.array([np.inf, 2.0]), 3), np.vander(np.array([np.inf, 2.0]), 3))


X = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]])


@pytest.mark.parametrize("call, error, pattern", [
    (lambda: fnp.nonzero(np.asarray(1.0)), ShapeError, r"op 'nonzero': a 0-d array has no axes"),
    (lambda: frame.trace(fnp.nonzero, X), TraceError, r"op 'nonzero': .*traced a; give size="),
    (lambda: frame.trace(fnp.flatnonzero, X), TraceError, r"op 'flatnonzero': .*traced a; give size="),
    (lambda: frame.trace(fnp.argwhere, X), TraceError, r"op 'argwhere': .*traced a; give size="),
    (lambda: frame.trace(lambda c: fnp.extract(c, X), X > 0), TraceError,
     r"op 'extract': .*traced condition; give size="),
    (lambda: frame.trace(lambda x: fnp.nonzero(x, size=fnp.sum(x)), X), TraceError, "size must be a static int"),
    (lambda: fnp.nonzero(X, size=-1), ShapeError, "size must be non-negative, got -1"),
    (lambda: fnp.nonzero(X, size=2.5), ShapeError, "size must be an integer"),
    (lambda: fnp.nonzero(X, size=3, fill_value=(0, 0, 0)), ShapeError,
     r"fill_value needs one value per axis of a \(2, 3\)"),
    (lambda: fnp.extract([False, False, False, True], np.arange(3.0)), ShapeError,
     "condition is true at index 3, out of bounds for arr of size 3"),
    (lambda: fnp.partition(X, 3), ShapeError, r"op 'partition': kth\(=3\) out of bounds \(3\)"),
    (lambda: fnp.argpartition(X, [0, -7], axis=None), ShapeError, r"op 'argpartition': kth\(=-7\) out of bounds \(6\)"),
    (lambda: fnp.partition(X, 1.0), ShapeError, "op 'partition': kth must be an integer"),
    (lambda: fnp.partition(X, 1, kind="quicksort"), ShapeError, "kind must be 'introselect'"),
    (lambda: fnp.partition(X, 1, order="f"), TraceError, r"partition: the argument\(s\) order="),
    (lambda: frame.trace(lambda k: fnp.partition(X, k), np.int64(1)), TraceError, "kth must be static ints"),
    (lambda: fnp.partition(np.asarray(1.0), 0), ShapeError, "op 'partition': axis -1 is out of range for rank 0"),
    (lambda: fnp.sort_complex(np.asarray(1.0)), ShapeError, "op 'sort_complex': a 0-d array has no axis"),
    (lambda: fnp.histogram_bin_edges(X, "auto"), ShapeError, r"bin estimators such as bins='auto' are not supported"),
    (lambda: fnp.histogram_bin_edges(X, 0), ShapeError, "bins must be positive, when an integer, got 0"),
    (lambda: fnp.histogram_bin_edges(X, 2.5), ShapeError, "bins must be an integer"),
    (lambda: fnp.histogram_bin_edges(X, [[0.0, 1.0]]), ShapeError, r"bins must be an int or a 1-d array of edges"),
    (lambda: fnp.histogram_bin_edges(X, [1.0, 0.0]), ShapeError, "bins must increase monotonically"),
    (lambda: fnp.histogram_bin_edges(X, 3, range=(1, 0)), ShapeError, r"max must be larger than min in range \(1, 0\)"),
    (lambda: fnp.histogram_bin_edges(X, 3, range=(0, np.inf)), ShapeError,
     r"supplied range of \[0, inf\] is not finite"),
    (lambda: fnp.histogram_bin_edges(X, 3, range=0), ShapeError, "range must be a pair"),
    (lambda: fnp.histogram(np.array([1.0, np.inf])), ShapeError, r"op 'histogram': autodetected range of \[1.0, inf\]"),
    (lambda: fnp.histogram(np.array([1.0, 1.0 + 2e-16]), 10), ShapeError, "too many bins for the data range"),
    (lambda: fnp.histogram(X, weights=np.ones(6)), ShapeError, r"weights should have the same shape as a, got \(6,\)"),
    (lambda: fnp.histogram2d(np.ones(3), np.ones(4)), ShapeError, r"x and y must be 1-d of the same length"),
    (lambda: fnp.histogram2d(np.ones(3), np.ones(3), [2]), ShapeError,
     r"dimension of bins must be equal to the .* \(2\)"),
    (lambda: fnp.histogramdd(np.ones((4, 2)), range=[(0, 1)]), ShapeError, "range argument must have one entry per"),
    (lambda: fnp.histogramdd(np.ones((4, 2)), weights=np.ones(3)), ShapeError, r"weights must be 4 real numbers"),
    (lambda: fnp.histogramdd(np.ones((4, 2, 1))), ShapeError, r"sample must be an \(N, D\) array"),
    (lambda: fnp.histogramdd(np.ones((4, 2)), [2, [1.0, 0.0]]), ShapeError, r"bins\[1\] must increase monotonically"),
])
def test_searching_partitions_and_bins_refuse_bad_arguments_by_name(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


def test_nonzero_of_concrete_values_is_numpys_and_traced_values_take_size():
    a = np.random.default_rng(2).integers(-1, 2, (3, 2, 4))
    for name in ("nonzero", "flatnonzero", "argwhere"):
        for got, want in zip(*(np.atleast_1d(*x) if name != "nonzero" else x for x in
                               (getattr(fnp, name)(a), getattr(np, name)(a)))):
            np.testing.assert_array_equal(got, want)
    count = np.count_nonzero(a)
    got = frame.function(lambda a: fnp.nonzero(a, size=count + 1, fill_value=(7, 8, 9)))(a)
    for g, w, f in zip(got, np.nonzero(a), (7, 8, 9)):
        np.testing.assert_array_equal(g, np.append(w, f))
    # np.nonzero on a tracer routes to frame.numpy's, which asks for size=
    with pytest.raises(TraceError, match="op 'nonzero'.*give size="):
        frame.trace(np.nonzero, a)


def test_extract_by_a_concrete_condition_differentiates_into_the_picked_elements():
    x, mask = np.arange(6.0).reshape(2, 3), np.array([[True, False, True], [False, False, True]])
    np.testing.assert_array_equal(frame.function(lambda x: fnp.extract(mask, x))(x), [0.0, 2.0, 5.0])
    weights = np.array([1.0, 10.0, 100.0])
    np.testing.assert_array_equal(frame.grad(lambda x: fnp.sum(fnp.extract(mask, x) * weights))(x),
                                  [[1.0, 0.0, 10.0], [0.0, 0.0, 100.0]])
    # with size=, the padding (fill_value) takes no derivative
    np.testing.assert_array_equal(frame.grad(lambda x: fnp.sum(fnp.extract(mask, x, size=4, fill_value=x[0, 1])))(x),
                                  [[1.0, 1.0, 1.0], [0.0, 0.0, 1.0]])


@pytest.mark.parametrize("axis, kth", [(-1, 2), (0, [0, 2]), (None, (1, 5, -1))])
def test_partition_has_numpys_partition_property(axis, kth):
    x = np.random.default_rng(4).integers(0, 4, (3, 6)).astype(float)   # ties included
    ours, ours_index = fnp.partition(x, kth, axis=axis), fnp.argpartition(x, kth, axis=axis)
    theirs = np.partition(x, kth, axis=axis)
    flat = x.ravel() if axis is None else x
    picked = np.take_along_axis(flat, ours_index, axis=-1 if axis is None else axis)
    for k in np.atleast_1d(kth):   # the kth elements are numpy's; those before are not larger, those after not smaller
        at = np.take(theirs, [k], axis=-1 if axis is None else axis)
        for got in (ours, picked):
            np.testing.assert_array_equal(np.take(got, [k], axis=-1 if axis is None else axis), at)
            n = got.shape[-1 if axis is None else axis]
            before = np.take(got, np.arange(k % n), axis=-1 if axis is None else axis)
            assert np.all(before <= at)


def test_histogramdd_takes_other_bins_per_dimension_and_traced_sequences():
    rng = np.random.default_rng(5)
    x, y, z = rng.normal(size=30), rng.uniform(size=30), rng.normal(size=30).astype(np.float32)
    bins = [3, np.array([0.0, 0.2, 0.5, 1.0]), 5]
    for ours in (fnp.histogramdd([x, y, z], bins),
                 frame.function(lambda x, y, z: fnp.histogramdd([x, y, z], bins))(x, y, z)):
        hist, edges = ours
        want, want_edges = np.histogramdd([x, y, z], bins)
        np.testing.assert_allclose(hist, want, rtol=1e-12)
        assert hist.dtype == want.dtype and hist.shape == (3, 3, 5)
        for e, w in zip(edges, want_edges):
            np.testing.assert_allclose(e, w, rtol=1e-12)
            assert np.asarray(e).dtype == w.dtype
    # the maximum falls in the closed last bin, also for edges from a traced sample's min and max
    got = frame.function(lambda v: fnp.histogram(v, 3)[0])(np.array([-0.9, 0.1, 0.7]))
    np.testing.assert_array_equal(got, np.histogram(np.array([-0.9, 0.1, 0.7]), 3)[0])
