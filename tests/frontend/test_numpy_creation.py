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
