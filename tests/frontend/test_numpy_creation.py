"""Creation inside traced code: what enters as a traced value (asarray of nested lists of tracers,
full's fill value, linspace's end points) carries derivatives; what does not is a numpy constant."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp


def test_asarray_stacks_nested_tracers_in_numpys_promoted_dtype():
    f = frame.function(lambda x, y: fnp.asarray([[x, y, 1.0], [y, x, 2]]))
    x, y = np.asarray(1.0, np.float32), np.asarray(3.0, np.float32)
    got = f(x, y)
    want = np.asarray([[x, y, 1.0], [y, x, 2]])
    assert got.dtype == want.dtype == np.float64   # Python floats count as float64 in numpy's array coercion
    np.testing.assert_array_equal(got, want)
    mixed = frame.function(lambda a, i: fnp.array([a, i]))(np.asarray(1.5), np.asarray(2, np.int32))
    assert mixed.dtype == np.asarray([np.float64(1.5), np.int32(2)]).dtype
    assert frame.function(lambda a, b: fnp.asarray([a, b]))(x, y).dtype == np.float32
    rows = frame.function(lambda v: fnp.asarray((v, 2.0 * v)))(np.arange(3.0))
    np.testing.assert_array_equal(rows, [[0.0, 1.0, 2.0], [0.0, 2.0, 4.0]])


def test_asarray_casts_a_tracer_with_convert():
    graph = frame.trace(lambda v: fnp.asarray(v, "float32"), np.arange(3.0))
    assert [n.op for n in graph.nodes] == ["convert"]
    assert frame.trace(lambda v: fnp.asarray(v), np.arange(3.0)).nodes == []


def test_derivatives_flow_through_asarray_full_and_linspace():
    g = frame.grad(lambda x: fnp.sum(fnp.asarray([[x, 2.0 * x], [x * x, 1.0]])))(np.asarray(1.5))
    assert g == pytest.approx(1.0 + 2.0 + 3.0)
    g = frame.grad(lambda x: fnp.sum(fnp.full((2, 3), x) ** 2.0))(np.asarray(0.5))
    assert g == pytest.approx(6 * 2 * 0.5)
    # sum(linspace(a, b, n)^2): d/da = 2 sum(y_i (1 - t_i)), d/db = 2 sum(y_i t_i)
    a, b = np.asarray(0.5), np.asarray(2.0)
    ga, gb = frame.grad(lambda a, b: fnp.sum(fnp.linspace(a, b, 5) ** 2.0), argnums=(0, 1))(a, b)
    t, y = np.linspace(0, 1, 5), np.linspace(0.5, 2.0, 5)
    assert (ga, gb) == (pytest.approx(2 * np.sum(y * (1 - t))), pytest.approx(2 * np.sum(y * t)))


def test_constants_stay_numpy_arrays_inside_traced_code():
    seen = {}

    def f(x):
        for name, value in (("zeros_like", fnp.zeros_like(x)), ("ones_like", fnp.ones_like(x, dtype="int32")),
                            ("eye", fnp.eye(3)), ("arange", fnp.arange(4)), ("linspace", fnp.linspace(0, 1, 3))):
            seen[name] = value
        return x + fnp.zeros_like(x)

    frame.trace(f, np.ones((2, 3)))
    assert all(isinstance(v, np.ndarray) for v in seen.values())
    assert seen["ones_like"].dtype == np.int32 and seen["zeros_like"].shape == (2, 3)


@pytest.mark.parametrize("call, error, pattern", [
    (lambda: frame.trace(lambda n: fnp.arange(n), np.asarray(3)), frame.TraceError, r"fnp.arange: start must be static"),
    (lambda: frame.trace(lambda n: fnp.zeros((2, n)), np.asarray(3)), frame.TraceError, r"fnp.zeros: shape must be"),
    (lambda: fnp.zeros((2, -1)), frame.ShapeError, r"negative dimensions"),
    (lambda: fnp.zeros(3, dtype="complex256"), frame.ShapeError, r"not supported by frame"),
    (lambda: fnp.eye(2.5), frame.ShapeError, r"'eye': N must be an integer"),
    (lambda: fnp.linspace(0.0, 1.0, -1), frame.ShapeError, r"must be non-negative"),
    (lambda: fnp.arange(0, 3, 0), frame.ShapeError, r"fnp.arange"),
    (lambda: frame.trace(lambda x: fnp.asarray([x, np.ones(3)]), np.ones(2)), frame.ShapeError, r"one shape"),
])
def test_bad_arguments_are_refused_clearly(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


# -- index arrays and index arithmetic ------------------------------------------------------------
def test_unravel_index_of_traced_indices_as_jax_out_of_bounds_clipped():
    jnp = pytest.importorskip("jax.numpy")
    i = np.array([-25, -24, -7, -1, 0, 5, 23, 24, 100])
    for order in ("C", "F"):
        got = frame.function(lambda i: fnp.unravel_index(i, (2, 3, 4), order=order))(i)
        inside = (i >= -24) & (i < 24)
        want = np.unravel_index(np.where(inside, i % 24, 0), (2, 3, 4), order=order)
        for g, w in zip(got, want):
            assert g.dtype == np.int64
            np.testing.assert_array_equal(g[inside], w[inside])   # in bounds: numpy's (negative: from the end)
        if order == "C":   # jax.numpy's unravel_index is row-major only
            for g, j in zip(got, jnp.unravel_index(jnp.asarray(i), (2, 3, 4))):
                np.testing.assert_array_equal(g, np.asarray(j))
    assert frame.function(lambda i: fnp.unravel_index(i, ()))(np.asarray(0)) == ()


def test_ravel_multi_index_of_traced_indices_and_its_inverse():
    m = np.array([[1, 2, 0], [3, 0, 2]])
    flat = frame.function(lambda m: fnp.ravel_multi_index((m[0], m[1]), (3, 4), mode="clip"))(m)
    np.testing.assert_array_equal(flat, np.ravel_multi_index(m, (3, 4)))
    back = frame.function(lambda f: fnp.unravel_index(f, (3, 4)))(flat)
    np.testing.assert_array_equal(np.stack(back), m)
    # a traced index next to a concrete one
    got = frame.function(lambda i: fnp.ravel_multi_index((i, 1), (3, 4), mode="wrap"))(np.array([-1, 4]))
    np.testing.assert_array_equal(got, np.ravel_multi_index((np.array([-1, 4]), 1), (3, 4), mode="wrap"))


def test_ix_reshapes_traced_integer_indices_and_gathers_with_them():
    rows, cols = np.array([2, 0]), np.array([1, 3, 3])
    x = np.arange(12.0).reshape(3, 4)
    got = frame.function(lambda x, r, c: x[fnp.ix_(r, c)])(x, rows, cols)
    np.testing.assert_array_equal(got, x[np.ix_(rows, cols)])


def test_fromfunction_computes_with_the_tracers_it_closes_over():
    f = frame.function(lambda s: fnp.fromfunction(lambda i, j: s * i + j, (2, 3)))
    np.testing.assert_array_equal(f(np.asarray(2.0)), np.fromfunction(lambda i, j: 2.0 * i + j, (2, 3)))
    assert frame.grad(lambda s: fnp.sum(fnp.fromfunction(lambda i, j: s * i + j, (2, 3))))(np.asarray(2.0)) == 3.0


def test_indices_from_a_traced_array_are_constants_of_its_shape():
    seen = {}

    def f(x):
        seen.update(diag=fnp.diag_indices_from(x), tril=fnp.tril_indices_from(x, -1), triu=fnp.triu_indices_from(x))
        return x[seen["tril"]]

    x = np.arange(9.0).reshape(3, 3)
    np.testing.assert_array_equal(frame.function(f)(x), x[np.tril_indices_from(x, -1)])
    assert all(isinstance(a, np.ndarray) for v in seen.values() for a in v)


@pytest.mark.parametrize("call, error, pattern", [
    (lambda: frame.trace(lambda i: fnp.ravel_multi_index((i, i), (3, 4)), np.array([1])), frame.TraceError,
     r"op 'ravel_multi_index': mode='raise' .* use mode='wrap' or mode='clip'"),
    (lambda: frame.trace(lambda i: fnp.ravel_multi_index((i,), (3, 4), mode="wrap"), np.array([1])), frame.ShapeError,
     r"op 'ravel_multi_index': needs one index array"),
    (lambda: frame.trace(lambda i: fnp.ravel_multi_index((i, i), (3, 4), mode="drop"), np.array([1])), frame.ShapeError,
     r"op 'ravel_multi_index': needs one index array and one mode"),
    (lambda: frame.trace(lambda i: fnp.ravel_multi_index((i, i), (3, 4), mode="wrap"), np.array([1.0])), frame.ShapeError,
     r"op 'ravel_multi_index': indices must be integers, got float64"),
    (lambda: fnp.ravel_multi_index(([1], [4]), (3, 4)), frame.ShapeError, r"op 'ravel_multi_index': invalid entry"),
    (lambda: frame.trace(lambda i: fnp.ravel_multi_index((i, i[:2]), (3, 4), mode="clip"), np.array([1, 2, 0])),
     frame.ShapeError, r"op 'ravel_multi_index': shapes \(3,\) and \(2,\) do not broadcast"),
    (lambda: frame.trace(lambda i: fnp.unravel_index(i, (0, 2)), np.array([1])), frame.ShapeError,
     r"op 'unravel_index': shape \(0, 2\) has no elements"),
    (lambda: frame.trace(lambda i: fnp.unravel_index(i, (2, 2), order="K"), np.array([1])), frame.ShapeError,
     r"op 'unravel_index': needs order 'C' or 'F'"),
    (lambda: fnp.unravel_index([1, 6], (2, 3)), frame.ShapeError, r"op 'unravel_index': index 6 is out of bounds"),
    (lambda: frame.trace(lambda m: fnp.ix_(m > 0), np.ones(3)), frame.TraceError,
     r"op 'ix_': argument 0 is a traced boolean mask"),
    (lambda: fnp.ix_([1], [[1]]), frame.ShapeError, r"op 'ix_': argument 1 must be 1-d"),
    (lambda: fnp.diag_indices_from(np.ones((2, 3))), frame.ShapeError, r"op 'diag_indices_from': .*all sides equal"),
    (lambda: fnp.tril_indices_from(np.ones(3)), frame.ShapeError, r"op 'tril_indices_from': input array must be 2-d"),
    (lambda: fnp.triu_indices_from(np.ones((2, 2, 2))), frame.ShapeError, r"op 'triu_indices_from': .*2-d"),
    (lambda: fnp.mask_indices(-1, np.triu), frame.ShapeError, r"op 'mask_indices': n must be non-negative"),
    (lambda: frame.trace(lambda x: fnp.mask_indices(2, lambda m, k: m * x), np.ones(())), frame.TraceError,
     r"op 'mask_indices': mask_func returned a traced value"),
])
def test_index_functions_refuse_bad_arguments(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()
