"""Reductions over empty axes: the compiled graph gives the eager kernel's result (issue 12, item 5).

np.mean over zero elements is 0/0 = nan; the `mean` decomposition once divided by max(count, 1) and
the compiled graph returned 0.0.
"""
import warnings

import numpy as np
import pytest

import frame
from frame.frontend.tracer import bind
from frame.ir.registry import NodeContext, get
from frame.ir.types import TensorType


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,axes,keepdims", [
    ((0,), (0,), False), ((3, 0), (1,), False), ((3, 0), (1,), True), ((0, 3), (0, 1), False),
    ((3, 0), (0,), False), ((2, 0, 4), (1,), True),
])
def test_compiled_mean_of_empty_axes_is_eager_nan(shape, axes, keepdims, dtype):
    x = np.zeros(shape, dtype)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # numpy's "Mean of empty slice"
        eager = bind("mean", x, axes=axes, keepdims=keepdims)
        graph = frame.trace(lambda v: bind("mean", v, axes=axes, keepdims=keepdims), x)
        (compiled,) = frame.runtime.compile(graph)(x)
    assert compiled.shape == eager.shape and compiled.dtype == eager.dtype
    np.testing.assert_array_equal(compiled, eager)   # nan == nan here
    if eager.size and 0 in [shape[a] for a in axes]:
        assert np.isnan(compiled).all()


def _eager_and_compiled(op, x, **attrs):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        eager = bind(op, x, **attrs)
        (compiled,) = frame.runtime.compile(frame.trace(lambda v: bind(op, v, **attrs), x))(x)
    return eager, compiled


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape,axis", [((0,), 0), ((3, 0), 1), ((0, 4), 0), ((2, 0, 3), -2), ((0, 4), 1)])
def test_softmax_over_an_empty_axis_is_empty_not_a_numpy_error(op, shape, axis):
    eager, compiled = _eager_and_compiled(op, np.zeros(shape), axis=axis)
    assert eager.shape == compiled.shape == shape
    assert eager.dtype == compiled.dtype == np.float64


def test_the_softmax_shift_skips_an_empty_axis_where_max_is_refused():
    """The shift is stop_gradient(max(x)); max over an empty axis is an error, as np.max's is, so the
    decomposition leaves the shift out there (the result is empty), and keeps it for every other axis."""
    with pytest.raises(frame.ShapeError, match=r"'max': cannot reduce shape \(3, 0\) over axes \(1,\)"):
        bind("max", np.zeros((3, 0)), axes=(1,), keepdims=True)

    def decomposition_ops(shape, axis):
        micro = get("softmax").decomposition(NodeContext("softmax", [TensorType(shape, "float64")], {"axis": axis}))
        return [n.op for n in micro.nodes]

    assert "max" not in decomposition_ops((3, 0), 1)
    assert {"max", "stop_gradient"} <= set(decomposition_ops((0, 4), 1))
    assert {"max", "stop_gradient"} <= set(decomposition_ops((3, 4), 1))


@pytest.mark.parametrize("op", ["sum", "mean"])
def test_reducing_no_axes_is_the_identity_on_every_path(op):
    # -0.0 stays -0.0: `canonicalize` drops a sum over no axes, so the kernel must not add +0.
    x = np.array([-0.0, 1.5, np.nan, -np.inf])
    eager, compiled = _eager_and_compiled(op, x, axes=())
    for got in (eager, compiled):
        np.testing.assert_array_equal(got, x)
        assert np.signbit(got[0])


def test_concat_of_scalars_is_a_shape_error():
    with pytest.raises(frame.ShapeError, match=r"'concat'.*rank >= 1.*\(\)"):
        bind("concat", np.float64(1.0), np.float64(2.0), axis=0)
