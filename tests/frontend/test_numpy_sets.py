"""frame.numpy's set routines beyond the agreement table (tests/frontend/cases_sets.py): refusals by
name, numpy's results for concrete operands, jax.numpy's size= form for traced ones, derivatives."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.errors import ShapeError, TraceError

X = np.array([[3.0, 1.0, 3.0], [np.nan, 2.0, 1.0]])


@pytest.mark.parametrize("call, error, pattern", [
    (lambda: frame.trace(fnp.unique, X), TraceError, r"op 'unique': .*traced ar; give size= .* jax.numpy.unique"),
    (lambda: frame.trace(fnp.unique_all, X), TraceError, r"op 'unique_all': .*traced x; give size="),
    (lambda: frame.trace(fnp.unique_values, X), TraceError, r"op 'unique_values': .*give size="),
    (lambda: frame.trace(lambda x: fnp.union1d(x, [1.0]), X), TraceError, r"op 'union1d': .*traced ar1 and ar2"),
    (lambda: frame.trace(lambda x: fnp.intersect1d([1.0], x), X), TraceError, r"op 'intersect1d': .*give size="),
    (lambda: frame.trace(lambda x: fnp.setdiff1d(x, x), X), TraceError, r"op 'setdiff1d': .*give size="),
    (lambda: frame.trace(lambda x: fnp.setxor1d(x, x), X), TraceError, r"op 'setxor1d': .*give size="),
    (lambda: frame.trace(np.unique, X), TraceError, r"op 'unique': .*give size="),   # numpy's, routed to frame's
    (lambda: frame.trace(lambda x: fnp.unique(x, size=fnp.sum(x > 0)), X), TraceError, "size must be a static int"),
    (lambda: fnp.unique(X, size=-2), ShapeError, "op 'unique': size must be non-negative, got -2"),
    (lambda: fnp.unique(np.zeros(0), size=2), ShapeError, "op 'unique': the operand is empty: .* give fill_value="),
    (lambda: fnp.unique(X, axis=2), ShapeError, "op 'unique': axis 2 is out of range for rank 2"),
    (lambda: fnp.unique(X, axis=2, size=2), ShapeError, "op 'unique': axis 2 is out of range for rank 2"),
    (lambda: fnp.isin(X, [1.0], kind="hash"), ShapeError, "op 'isin': kind must be None, 'sort' or 'table'"),
    (lambda: fnp.isin(X, [1.0], kind="table"), ShapeError, "'table' kind is only for bool or integer arrays"),
])
def test_set_routines_refuse_bad_arguments_by_name(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


def test_concrete_operands_give_numpys_results():
    a, b = np.array([[2, 7, 2], [5, 1, 7]]), [7.0, 0.5, 2.0, 2.0]
    for got, want in zip(fnp.unique(a, True, True, True), np.unique(a, True, True, True)):
        np.testing.assert_array_equal(got, want)
    for got, want in zip(fnp.unique(a, True, True, True, axis=1), np.unique(a, True, True, True, axis=1)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(fnp.unique(a, sorted=False), [1, 2, 5, 7])   # sorted: an order numpy allows
    for got, want in zip(fnp.intersect1d(a, b, return_indices=True), np.intersect1d(a, b, return_indices=True)):
        np.testing.assert_array_equal(got, want)
    for name in ("union1d", "setdiff1d", "setxor1d"):
        got, want = getattr(fnp, name)(a, b), getattr(np, name)(a, b)
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype
    result = fnp.unique_all(X)
    assert type(result).__name__ == "UniqueAllResult" and result._fields == np.unique_all(X)._fields
    np.testing.assert_array_equal(result.inverse_indices, np.unique_all(X).inverse_indices)


def test_traced_unique_pads_as_jax_numpy():
    x = np.array([3, 1, 3, 2, 1, 3])
    values, index, inverse, counts = frame.function(lambda x: fnp.unique(x, True, True, True, size=5))(x)
    np.testing.assert_array_equal(values, [1, 2, 3, 1, 1])     # padded with the smallest value
    np.testing.assert_array_equal(index, [1, 3, 0, 1, 1])      # and the index of its first occurrence
    np.testing.assert_array_equal(inverse, [2, 0, 2, 1, 0, 2])
    np.testing.assert_array_equal(counts, [2, 1, 3, 0, 0])     # padding counts nothing
    got = frame.function(lambda x: fnp.unique_counts(x, size=2, fill_value=-1))(x)
    assert type(got).__name__ == "UniqueCountsResult"
    np.testing.assert_array_equal(got.values, [1, 2])           # cut to size
    np.testing.assert_array_equal(got.counts, [2, 1])


def test_traced_set_operations_take_size():
    a, b = np.array([5.0, 1.0, 3.0, 1.0]), np.array([3.0, 4.0, 5.0])
    values, i1, i2 = frame.function(lambda a, b: fnp.intersect1d(a, b, return_indices=True, size=3))(a, b)
    np.testing.assert_array_equal(values, [3.0, 5.0, 3.0])      # padded with the smallest result
    np.testing.assert_array_equal(i1, [2, 0, 4])                # padded indices: the operands' sizes
    np.testing.assert_array_equal(i2, [0, 2, 3])
    np.testing.assert_array_equal(frame.function(lambda a, b: fnp.setdiff1d(a, b, size=3))(a, b), [1.0, 0.0, 0.0])
    first = frame.function(lambda a, b: fnp.setdiff1d(a, b, True, size=1))(np.array([7.0, 2.0, 3.0]), b)
    np.testing.assert_array_equal(first, [7.0])                 # assume_unique: ar1's own order, as numpy's
    np.testing.assert_array_equal(frame.function(lambda a, b: fnp.setxor1d(a, b, size=2))(a, b), [1.0, 4.0])
    np.testing.assert_array_equal(frame.function(lambda a, b: fnp.union1d(a, b, size=6, fill_value=-1))(a, b),
                                  [1.0, 3.0, 4.0, 5.0, -1.0, -1.0])


def test_unique_values_differentiate_into_their_first_occurrences():
    x = np.array([2.0, -1.0, 2.0, 0.5])
    weights = np.array([1.0, 10.0, 100.0, 1000.0])   # slots: -1 (x1), 0.5 (x3), 2 (x0), padding (x1 again)
    grad = frame.grad(lambda x: fnp.sum(fnp.unique(x, size=4) * weights))(x)
    np.testing.assert_array_equal(grad, [100.0, 1001.0, 0.0, 10.0])
    grad = frame.grad(lambda x: fnp.sum(fnp.union1d(x, x[:2] * 3.0, size=5) * weights[[0, 1, 2, 3, 0]]))(x)
    np.testing.assert_array_equal(grad, [1000.0 + 3.0, 3.0 + 10.0, 0.0, 100.0])   # slots -3, -1, 0.5, 2, 6


def test_isin_traces_and_numpys_isin_routes_to_it():
    x = np.array([[1.0, 2.0], [np.nan, 4.0]])
    np.testing.assert_array_equal(frame.function(lambda x: np.isin(x, [4.0, np.nan, 1.0]))(x), [[True, False],
                                                                                               [False, True]])
    got = frame.function(lambda x, t: fnp.isin(x, t, invert=True))(x, np.array([2.0, 4.0]))
    np.testing.assert_array_equal(got, np.isin(x, [2.0, 4.0], invert=True))
