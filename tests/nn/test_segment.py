"""segment_sum/prod/max/min against jax.ops (unsorted, repeated, out-of-range and negative ids, multi-axis ids,
traced ids, empty segments), their data gradients against central differences and JAX (first and
second order through the oracle), the refusal of gradients w.r.t. the ids; frame.nn.embedding against
numpy indexing with PyTorch's padding_idx gradient rule; and the errors."""
from __future__ import annotations

import jax
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame import GradientError, ShapeError
from frame.interop.oracle import check_derivatives
from tests.numerics import assert_close_first_order, central_difference

IDS = [
    np.array([0, 2, 2, 1, 0, 3, 3, 3]),              # unsorted, repeated, every segment used
    np.array([4, -1, 2, 7, 2, 0, 5, -3]),            # out of range both ways: dropped, as in JAX
    np.array([0, 0, 1, 1, 1, 3, 3, 3]),              # sorted, segment 2 empty
]


@pytest.mark.parametrize("ids", IDS, ids=["unsorted", "out-of-range", "sorted-empty"])
@pytest.mark.parametrize("name", ["segment_sum", "segment_prod", "segment_max", "segment_min"])
@pytest.mark.parametrize("traced", [False, True])
def test_segment_reductions_match_jax_ops(ids, name, traced):
    rng = np.random.default_rng(0)
    data = rng.standard_normal((8, 3))
    ours = getattr(frame.nn, name)
    if traced:
        got = frame.function(lambda d, i: ours(d, i, 5))(data, ids)
    else:
        got = ours(data, ids, 5, indices_are_sorted=False)
    with jax.enable_x64(True):
        want = np.asarray(getattr(jax.ops, name)(data, ids, 5))
    assert got.shape == (5, 3) and got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-14)   # inf for empty max/min segments too


def test_segment_sum_takes_multi_axis_ids_integers_and_a_default_count():
    rng = np.random.default_rng(1)
    data = rng.standard_normal((3, 4, 2))
    ids = rng.integers(0, 5, (3, 4))
    with jax.enable_x64(True):   # JAX takes 1-D ids; frame's multi-axis ids are those flattened
        want = np.asarray(jax.ops.segment_sum(data.reshape(12, 2), ids.reshape(12), 6))
    np.testing.assert_allclose(frame.nn.segment_sum(data, ids, 6), want, rtol=1e-14, atol=1e-14)
    # num_segments=None with constant ids: max(id) + 1, as JAX outside jit.
    assert frame.nn.segment_sum(data[0], np.array([0, 3, 1, 3])).shape == (4, 2)
    k = rng.integers(-9, 9, (6,))
    with jax.enable_x64(True):
        for name in ("segment_sum", "segment_prod", "segment_max", "segment_min"):
            got = getattr(frame.nn, name)(k, np.array([1, 0, 1, 2, 2, 2]), 4)
            np.testing.assert_array_equal(got, np.asarray(getattr(jax.ops, name)(k, np.array([1, 0, 1, 2, 2, 2]), 4)))


def _loss(name, ids):
    w = np.linspace(-1.0, 2.0, 12).reshape(4, 3)

    def f(data):
        s = getattr(frame.nn, name)(data, ids, 4)
        if name in ("segment_max", "segment_min"):   # empty segments are -inf/inf: keep the finite ones
            s = fnp.where(fnp.isfinite(s), s, 0.0)
        return fnp.sum(w * s) + fnp.sum(fnp.sin(s) * s)
    return f


def test_segment_prod_gradient_is_refused_by_name_as_in_jax():
    # JAX's scatter_mul has no derivative for repeated ids either (NotImplementedError there).
    with pytest.raises(GradientError, match="op 'scatter' \\(mode 'mul'\\).*unique indices"):
        frame.grad(lambda d: fnp.sum(frame.nn.segment_prod(d, IDS[0], 4)))(np.ones((8, 3)))


@pytest.mark.parametrize("name", ["segment_sum", "segment_max", "segment_min"])
def test_segment_gradients_match_central_differences_and_jax(name):
    rng = np.random.default_rng(2)
    data = rng.standard_normal((8, 3))   # continuous values: no ties, where max/min are differentiable
    ids = IDS[1]
    f = _loss(name, ids)
    g = frame.grad(f)(data)
    assert_close_first_order(g, central_difference(f, data), name)
    report = check_derivatives(f, data, orders=(1, 2))
    assert report.passed and report.entries
    # ...and with the ids a traced int input: the data gradient is the same, the ids get none.
    h = lambda d, i: getattr(frame.nn, name)(d, i, 4)   # noqa: E731
    np.testing.assert_allclose(frame.grad(lambda d, i: fnp.sum(fnp.where(fnp.isfinite(h(d, i)), h(d, i), 0.0)
                                                                * np.linspace(-1.0, 2.0, 12).reshape(4, 3)))(data, ids),
                               frame.grad(lambda d: fnp.sum(fnp.where(fnp.isfinite(h(d, ids)), h(d, ids), 0.0)
                                                            * np.linspace(-1.0, 2.0, 12).reshape(4, 3)))(data))
    with pytest.raises(GradientError, match="argument 1 needs float"):
        frame.grad(lambda d, i: fnp.sum(getattr(frame.nn, name)(d, i, 4)), argnums=1)(data, ids)


def test_segment_errors_name_the_function_and_shapes():
    with pytest.raises(ShapeError, match="segment_sum: segment_ids of shape \\(3,\\) must match"):
        frame.nn.segment_sum(np.ones((4, 2)), np.array([0, 1, 2]), 3)
    with pytest.raises(ShapeError, match="segment_ids must be an integer array"):
        frame.nn.segment_sum(np.ones(3), np.array([0.0, 1.0, 2.0]), 3)
    with pytest.raises(ShapeError, match="num_segments is needed with traced"):
        frame.function(lambda d, i: frame.nn.segment_max(d, i))(np.ones(3), np.array([0, 1, 1]))
    with pytest.raises(ShapeError, match="num_segments must be >= 0"):
        frame.nn.segment_min(np.ones(3), np.array([0, 1, 1]), -1)
    with pytest.raises(ShapeError, match="real float or integer"):
        frame.nn.segment_max(np.ones(3, complex), np.array([0, 1, 1]), 2)


# -- embedding -------------------------------------------------------------------------------------
def test_embedding_reads_rows_and_gathers_gradients_like_torch():
    rng = np.random.default_rng(3)
    table = rng.standard_normal((6, 4))
    ids = np.array([[1, 5, 1], [0, 2, 5]])
    y = frame.nn.embedding(ids, table)
    np.testing.assert_array_equal(y, table[ids])
    np.testing.assert_array_equal(frame.function(lambda i, t: frame.nn.embedding(i, t))(ids, table), table[ids])
    w = rng.standard_normal((2, 3, 4))
    f = lambda t: fnp.sum(w * frame.nn.embedding(ids, t) ** 2)   # noqa: E731
    g = frame.grad(f)(table)
    want = np.zeros_like(table)
    np.add.at(want, ids, 2 * w * table[ids])   # repeated ids accumulate, as torch's embedding_backward
    np.testing.assert_allclose(g, want, rtol=1e-14)
    assert_close_first_order(g, central_difference(f, table), "d/dtable")
    report = check_derivatives(f, table, orders=(1, 2))
    assert report.passed
    # padding_idx: the padding entries read their row but send it no gradient (torch's rule).
    for pad in (5, -1):
        fp = lambda t: fnp.sum(w * frame.nn.embedding(ids, t, padding_idx=pad) ** 2)   # noqa: E731
        np.testing.assert_array_equal(frame.nn.embedding(ids, table, padding_idx=pad), table[ids])
        gp = frame.grad(fp)(table)
        np.testing.assert_allclose(gp[:5], want[:5], rtol=1e-14)
        np.testing.assert_array_equal(gp[5], 0.0)
    with pytest.raises(GradientError, match="argument 0 needs float"):
        frame.grad(lambda i, t: fnp.sum(frame.nn.embedding(i, t)))(ids, table)


def test_embedding_errors_name_the_input():
    table = np.ones((4, 2))
    with pytest.raises(ShapeError, match="id 4 is out of range for a weight of 4 rows"):
        frame.nn.embedding(np.array([0, 4]), table)
    with pytest.raises(ShapeError, match="id -1 is out of range"):
        frame.nn.embedding(np.array([-1]), table)
    with pytest.raises(ShapeError, match="integer ids"):
        frame.nn.embedding(np.array([0.0]), table)
    with pytest.raises(ShapeError, match="weight must be \\(num_embeddings, embedding_dim\\)"):
        frame.nn.embedding(np.array([0]), np.ones(4))
    with pytest.raises(ShapeError, match="padding_idx 4 must be within"):
        frame.nn.embedding(np.array([0]), table, padding_idx=4)
    with pytest.raises(ShapeError, match="max_norm"):
        frame.nn.embedding(np.array([0]), table, max_norm=1.0)


def test_segment_and_embedding_vmap_with_batched_ids():
    rng = np.random.default_rng(4)
    data, ids = rng.standard_normal((4, 6, 2)), rng.integers(-1, 5, (4, 6))   # some ids out of range
    for name in ("segment_sum", "segment_max"):
        got = frame.vmap(lambda d, i: getattr(frame.nn, name)(d, i, 4))(data, ids)
        with jax.enable_x64(True):
            want = np.asarray(jax.vmap(lambda d, i: getattr(jax.ops, name)(d, i, 4))(data, ids))
        np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-14, err_msg=name)
    table, rows = rng.standard_normal((5, 3)), rng.integers(0, 5, (4, 6))
    np.testing.assert_array_equal(frame.vmap(lambda i: frame.nn.embedding(i, table))(rows), table[rows])
