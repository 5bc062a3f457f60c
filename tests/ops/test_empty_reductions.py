"""Reductions over empty axes: the compiled graph gives the eager kernel's result (issue 12, item 5).

np.mean over zero elements is 0/0 = nan; the `mean` decomposition once divided by max(count, 1) and
the compiled graph returned 0.0.
"""
import warnings

import numpy as np
import pytest

import frame
from frame.frontend.tracer import bind


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
