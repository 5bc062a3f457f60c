"""from_jax of gathers and scatters whose indices fall out of range: JAX's `mode` decides (clip
clamps, fill/drop masks), and frame's import gives the same numbers, never wrapped negatives."""
import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import frame.runtime  # noqa: E402
from frame.interop import check_derivatives, from_jax  # noqa: E402

X = np.arange(1.0, 6.0, dtype=np.float32)
IDS = np.array([0, 1, 1, 2, -1, 3, 7], np.int32)     # -1 and 3, 7 are outside 3 segments
VALUES = np.arange(1.0, 8.0, dtype=np.float32)


def run_both(fn, *args):
    expected = [np.asarray(a) for a in jax.tree_util.tree_leaves(fn(*args))]
    got = frame.runtime.compile(from_jax(fn, *args))(*args)
    return expected, got


@pytest.mark.parametrize("segment", [jax.ops.segment_sum, jax.ops.segment_max, jax.ops.segment_min,
                                     jax.ops.segment_prod])
def test_segment_ops_drop_out_of_range_ids(segment):
    expected, got = run_both(lambda v, i: segment(v, i, num_segments=3), VALUES, IDS)
    np.testing.assert_array_equal(got[0], expected[0])
    assert np.isfinite(got[0]).all() or segment is not jax.ops.segment_sum


def test_segment_sum_drops_negative_ids_instead_of_wrapping():
    expected, got = run_both(lambda v, i: jax.ops.segment_sum(v, i, num_segments=3), VALUES, IDS)
    np.testing.assert_array_equal(got[0], [1.0, 5.0, 4.0])   # 1 | 2+3 | 4: ids -1, 3, 7 dropped
    np.testing.assert_array_equal(expected[0], [1.0, 5.0, 4.0])


def test_segment_sum_gradient_of_dropped_updates_is_zero():
    ids = np.array([0, 1, -1, 2, 5], np.int32)
    graph = from_jax(lambda v: jnp.sum(jax.ops.segment_sum(v, ids, num_segments=3) ** 2), X)
    report = check_derivatives(graph, X, orders=(1,))   # raises OracleMismatch when out of tolerance
    assert report.passed and report.rows(), report


@pytest.mark.parametrize("mode, fill", [("fill", None), ("fill", -7.0), ("clip", None)])
def test_take_modes(mode, fill):
    idx = np.array([0, 4, 5, -2, -9], np.int32)   # 5 and -9 are out of range
    expected, got = run_both(lambda x, i: jnp.take(x, i, mode=mode, fill_value=fill), X, idx)
    np.testing.assert_array_equal(got[0], expected[0])
    if mode == "fill":
        assert np.isnan(got[0][2]) if fill is None else got[0][2] == fill


@pytest.mark.parametrize("method", ["set", "add", "multiply", "min", "max"])
@pytest.mark.parametrize("mode", ["drop", "clip"])
def test_at_updates_modes(method, mode):
    idx = np.array([1, 6, -3, 4], np.int32)
    upd = np.array([10.0, 20.0, 30.0, 0.5], np.float32)
    expected, got = run_both(lambda x, i, u: getattr(jnp.asarray(x).at[i], method)(u, mode=mode), X, idx, upd)
    np.testing.assert_array_equal(got[0], expected[0])


def test_two_dimensional_take_along_rows_fills_whole_rows():
    m = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    idx = np.array([3, -5, 4, 0], np.int32)   # jnp.take wraps -1..-4 as numpy does; -5 is out of range
    expected, got = run_both(lambda a, i: jnp.take(a, i, axis=0, mode="fill", fill_value=0.5), m, idx)
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[0][1], [0.5, 0.5, 0.5])
