"""Row partition (frame/compiler/rows.py) and row-parallel executables (frame/runtime/row_parallel.py).

A partitioned graph must give the whole graph's results up to the reassociation of its sums over
rows, for every output kind (row-wise values concatenated, partial sums added, values computed after
the sums), with ragged chunks, resized and sliced constants, and concurrent callers; and graphs that
mix rows other than by sums must stay whole."""
from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.compiler.rows import partition_rows, why_not_partitioned
from frame.frontend.pytree import tree_flatten
from frame.runtime import row_parallel
from frame.runtime.compile import compile as compile_graph
from frame.runtime.row_parallel import (RowParallelExecutable, RowPolicy, chunk_sizes, policy_from_environment,
                                        reset_row_policy, set_row_policy)
from tests.workloads import pinn_problem, pinn_step_fn


@pytest.fixture
def any_size(monkeypatch):
    """Partition graphs of any size (the default threshold keeps small graphs whole)."""
    monkeypatch.setattr(row_parallel, "MIN_CHUNK_ELEMENTS", 0)


def _leaves(*args):
    return [np.asarray(a) for a in tree_flatten(args)[0]]


def assert_same_results(fn, args, policy, rtol):
    """`fn` compiled whole and by `policy` (a RowPolicy, or a thread count with one chunk per thread):
    a row-parallel executable, with equal results."""
    graph = frame.trace(fn, *args)
    leaves = _leaves(*args)
    whole = compile_graph(graph, rows=RowPolicy(1, 0))(*leaves)
    exe = compile_graph(graph, rows=policy if isinstance(policy, RowPolicy) else RowPolicy(policy, 0))
    assert isinstance(exe, RowParallelExecutable), "the graph was expected to partition"
    split = exe(*leaves)
    assert len(split) == len(whole)
    for a, b in zip(whole, split):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(b, a, rtol=rtol, atol=rtol * float(np.max(np.abs(a), initial=1.0)))
    return exe


@pytest.mark.parametrize("dtype, rtol", [(np.float64, 1e-12), (np.float32, 2e-5)])
@pytest.mark.parametrize("n, parts", [(256, 2), (250, 3), (256, RowPolicy(2, 64))])
def test_pinn_step_runs_on_chunks_with_the_whole_steps_results(any_size, dtype, rtol, n, parts):
    rng = np.random.default_rng(0)
    params, x, xb, f = pinn_problem(rng, (1, 16, 16, 1), n)
    cast = lambda a: np.asarray(a, dtype)  # noqa: E731
    params = [(cast(w), cast(b)) for w, b in params]
    exe = assert_same_results(pinn_step_fn(1e-3), (params, cast(x), cast(xb), cast(f)), parts, rtol)
    assert exe.sizes == chunk_sizes(n, exe.parts) and sum(exe.sizes) == n
    assert exe.partition.row_inputs == (6, 8)     # x and f; the 2 boundary points are not rows
    assert "row-parallel" in exe.report()


def test_row_wise_outputs_are_concatenated(any_size):
    w = np.random.default_rng(1).standard_normal((3, 4))
    x = np.random.default_rng(2).standard_normal((100, 3))
    exe = assert_same_results(lambda w, x: (fnp.tanh(x @ w), (x @ w).T), (w, x), 2, 1e-13)
    assert [o[0] for o in exe.partition.outputs] == ["row", "row"]
    assert [o[2] for o in exe.partition.outputs] == [0, 1]   # the transpose puts the rows on axis 1


def test_sums_over_rows_are_added_and_finish_in_the_combine_graph(any_size):
    x = np.random.default_rng(3).standard_normal((90, 3))
    y = np.random.default_rng(4).standard_normal((90, 1))

    def fn(x, y):
        gram = x.T @ x                       # a sum over rows through matmul
        total = fnp.sum(x * y, axis=0)       # through sum
        return gram, total, fnp.sqrt(fnp.sum(total * total)) + fnp.sum(gram)
    exe = assert_same_results(fn, (x, y), 3, 1e-12)
    assert [o[0] for o in exe.partition.outputs] == ["sum", "sum", "combine"]


def test_constants_that_reach_the_rows_are_resized_or_sliced(any_size):
    n = 64
    dense = np.linspace(0.0, 1.0, n).reshape(n, 1)
    x = np.random.default_rng(5).standard_normal((n, 2))

    def fn(x):
        ones = fnp.ones((n, 1))               # a splat: resized per chunk
        return fnp.sum((x + ones) * dense), fnp.mean(x * dense, axis=0)
    exe = assert_same_results(fn, (x,), 2, 1e-12)
    assert len(exe.partition.sliced_constants) == 1      # the dense one; the splat is resized


def test_reshapes_that_keep_the_row_axis_partition(any_size):
    x = np.random.default_rng(6).standard_normal((40, 6))
    assert_same_results(lambda x: fnp.sum(fnp.reshape(x, (40, 2, 3)) ** 2, axis=(0, 2)), (x,), 2, 1e-12)


def test_rows_merged_with_other_axes_by_reshapes_partition(any_size):
    """A batch axis folded into a GEMM's rows and split out again (an FNO's spectral convolution: the
    batch merged with the channels after it, or with the real/imaginary axis before it)."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((12, 3, 8))
    w, v = rng.standard_normal((8, 5)), rng.standard_normal((5, 4))

    def fn(x, w, v):
        h = fnp.reshape(fnp.reshape(x, (36, 8)) @ w, (12, 3, 5))                  # rows x 3 merged, then split
        pair = fnp.transpose(fnp.stack([h, 2.0 * h]), (3, 0, 1, 2))              # (5, 2, 12, 3)
        mixed = fnp.reshape(pair, (5, 72)).T @ v                                 # (72, 4): 2 x rows x 3
        return fnp.sum(fnp.tanh(mixed) ** 2) + fnp.sum(h * h), fnp.reshape(x, (-1,)) * 2.0

    exe = assert_same_results(fn, (x, w, v), 2, 1e-12)
    assert exe.partition.rows == 12
    grads = frame.grad(lambda w, x: fn(x, w, v)[0])
    assert_same_results(lambda w, x: grads(w, x), (w, x), 3, 1e-12)


def test_the_batch_is_found_when_parameters_are_longer():
    """Row counts are tried largest first: a (64, 64) weight is not the batch of 20 samples."""
    rng = np.random.default_rng(12)
    x, w = rng.standard_normal((20, 64)), rng.standard_normal((64, 64))
    graph = frame.trace(lambda x, w: fnp.sum(fnp.tanh(x @ w) ** 2), x, w)
    part = partition_rows(graph)
    assert part is not None and part.rows == 20 and part.row_inputs == (0,)
    assert why_not_partitioned(frame.trace(lambda w: fnp.max(w @ w), w)).startswith("64 rows:")


@pytest.mark.parametrize("name, fn", [
    ("max over rows", lambda x: fnp.max(x, axis=0)),
    ("row-wise after a sum", lambda x: x - fnp.mean(x, axis=0)),
    ("rows reversed", lambda x: x[::-1] * x),
    ("rows times rows", lambda x: x @ x.T),
    ("rows interleaved with another axis in an output", lambda x: fnp.reshape(x.T, (-1,)) * 2.0),
])
def test_graphs_that_mix_rows_other_than_by_sums_stay_whole(any_size, name, fn):
    x = np.random.default_rng(7).standard_normal((32, 4))
    graph = frame.trace(fn, x)
    assert partition_rows(graph) is None, name
    exe = compile_graph(graph, rows=RowPolicy(2, 0))
    assert not isinstance(exe, RowParallelExecutable)
    np.testing.assert_allclose(exe(x)[0], np.asarray(fn(x)), rtol=1e-12)


def test_small_graphs_stay_whole_by_default():
    x = np.random.default_rng(8).standard_normal((64, 2))
    exe = compile_graph(frame.trace(lambda x: fnp.sum(x * x), x), rows=RowPolicy(2, 0))
    assert not isinstance(exe, RowParallelExecutable)


def test_concurrent_callers_get_their_own_results(any_size):
    rng = np.random.default_rng(9)
    w = rng.standard_normal((4, 4))
    xs = [rng.standard_normal((128, 4)) for _ in range(8)]
    fn = lambda w, x: fnp.sum(fnp.tanh(x @ w) ** 2)  # noqa: E731
    exe = compile_graph(frame.trace(fn, w, xs[0]), rows=RowPolicy(2, 16))
    assert isinstance(exe, RowParallelExecutable)
    expected = [float(np.sum(np.tanh(x @ w) ** 2)) for x in xs]
    got = [None] * len(xs)

    def call(i):
        for _ in range(20):
            got[i] = float(exe(w, xs[i])[0])
    threads = [threading.Thread(target=call, args=(i,)) for i in range(len(xs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_a_call_while_another_runs_keeps_its_chunks_in_its_own_thread(any_size, monkeypatch):
    # With the cores busy with another call's chunks, handing chunks to more threads only adds
    # hand-offs and spinning: threaded_calls.py's 2 callers went from 0.91x to 1.56x one caller's
    # throughput when each ran its own chunks.
    rng = np.random.default_rng(3)
    w, x = rng.standard_normal((4, 4)), rng.standard_normal((128, 4))
    fn = lambda w, x: fnp.sum(fnp.tanh(x @ w) ** 2)  # noqa: E731
    exe = compile_graph(frame.trace(fn, w, x), rows=RowPolicy(2, 16))
    assert isinstance(exe, RowParallelExecutable) and exe.threads == 2
    alone = exe(w, x)

    class NoPool:
        def submit(self, *args):
            raise AssertionError("a chunk was handed to the pool while another call was running")

    def no_spin_workers(count):
        raise AssertionError("a chunk was handed to a spin worker while another call was running")
    monkeypatch.setattr(exe, "_pool", NoPool())
    monkeypatch.setattr(row_parallel, "spin_workers", no_spin_workers)
    row_parallel._CALLS[0] += 1   # another call is running
    try:
        beside = exe(w, x)
        assert row_parallel._CALLS[0] == 1
    finally:
        row_parallel._CALLS[0] -= 1
    assert [a.tobytes() for a in beside] == [a.tobytes() for a in alone]   # the same chunks, the same order


def test_bad_inputs_are_named_as_for_any_executable(any_size):
    w, x = np.ones((2, 2)), np.ones((16, 2))
    exe = compile_graph(frame.trace(lambda w, x: fnp.sum(x @ w), w, x), rows=RowPolicy(2, 0))
    assert isinstance(exe, RowParallelExecutable)
    with pytest.raises(frame.InputError, match="input 1"):
        exe(w, np.ones((15, 2)))


def test_the_policy_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("FRAME_ROW_THREADS", "3")
    monkeypatch.setenv("FRAME_ROW_TILE", "256")
    assert policy_from_environment() == RowPolicy(3, 256)
    monkeypatch.setenv("FRAME_ROW_THREADS", "many")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert 1 <= policy_from_environment().threads <= row_parallel.MAX_THREADS
    assert "FRAME_ROW_THREADS" in str(caught[0].message)
    previous = set_row_policy(1, 0)
    try:
        assert row_parallel.POLICY["rows"].off
        with pytest.raises(ValueError, match="threads must be an int >= 1"):
            set_row_policy(0)
    finally:
        set_row_policy(previous.threads, previous.tile)
    monkeypatch.setenv("FRAME_ROW_THREADS", "2")
    monkeypatch.setenv("FRAME_ROW_TILE", "0")
    reset_row_policy()
    try:
        assert row_parallel.POLICY["rows"] == RowPolicy(2, 0)
    finally:
        set_row_policy(previous.threads, previous.tile)


@pytest.mark.parametrize("policy, rows, chunks", [(RowPolicy(2, 1024), 1024, 2), (RowPolicy(2, 1024), 4096, 4),
                                                  (RowPolicy(1, 1024), 4096, 4), (RowPolicy(1, 1024), 1000, 1),
                                                  (RowPolicy(3, 0), 10, 3), (RowPolicy(4, 2), 5, 4)])
def test_the_policy_makes_enough_chunks_for_the_tile_and_a_multiple_of_the_threads(policy, rows, chunks):
    assert policy.chunks(rows) == chunks


def test_tiles_run_in_sequence_and_threads_take_contiguous_runs(any_size):
    x = np.random.default_rng(12).standard_normal((100, 3))
    exe = assert_same_results(lambda x: (fnp.sum(x * x, axis=0), fnp.exp(x)), (x,), RowPolicy(2, 20), 1e-12)
    assert exe.parts == 6 and exe.threads == 2 and [list(r) for r in exe._runs] == [[0, 1, 2], [3, 4, 5]]
    one = assert_same_results(lambda x: fnp.sum(x * x), (x,), RowPolicy(1, 30), 1e-12)
    assert one.parts == 4 and one.threads == 1


def test_chunk_sizes_are_numpys_array_split_sizes():
    for rows, parts in [(10, 3), (8, 2), (5, 5), (7, 1)]:
        assert chunk_sizes(rows, parts) == [len(c) for c in np.array_split(np.arange(rows), parts)]


def test_row_free_values_computed_from_row_sized_constants_are_promoted(any_size):
    # Forward and Taylor seeds: a constant direction of ones per point, times a weight, meets the rows.
    rng = np.random.default_rng(10)
    w, x = rng.standard_normal((2, 8)), rng.standard_normal((60, 2))

    def fn(w, x):
        seed = fnp.concatenate([fnp.ones((60, 1)), fnp.zeros((60, 1))], axis=1)
        return fnp.sum((seed @ w) * fnp.tanh(x @ w), axis=0)
    assert_same_results(fn, (w, x), 2, 1e-12)


def test_a_taylor_mode_laplacian_pinn_step_partitions(any_size):
    from frame.frontend.taylor import laplacian

    rng = np.random.default_rng(11)
    params = [(rng.standard_normal((2, 8)), rng.standard_normal(8)), (rng.standard_normal((8, 1)), np.zeros(1))]
    z, f = rng.uniform(size=(80, 2)), rng.standard_normal((80, 1))

    def loss(p, z, f):
        lap = laplacian(lambda z: fnp.tanh(z @ p[0][0] + p[0][1]) @ p[1][0] + p[1][1])(z)[1]
        return fnp.mean((lap + f) ** 2)
    assert_same_results(frame.value_and_grad(loss), (params, z, f), 2, 1e-11)


def test_a_loss_weighted_by_an_input_partitions(any_size):
    # pinn.train passes its loss weights as data: the mean's gradient seed is an input weight broadcast
    # to the row count, which each chunk broadcasts to its own length (it used to keep the graph whole).
    rng = np.random.default_rng(12)
    w, x, weights = rng.standard_normal((2, 8)), rng.standard_normal((70, 2)), np.array([0.5, 2.0])

    def loss(w, x, weights):
        r = fnp.tanh(x @ w)
        return weights[0] * fnp.mean(r ** 2) + weights[1] * fnp.mean(r[:, :1])
    graph = frame.trace(frame.value_and_grad(loss), w, x, weights)
    assert any(n.op == "broadcast_to" for n in graph.nodes)
    assert_same_results(frame.value_and_grad(loss), (w, x, weights), 2, 1e-12)


def test_pinn_training_graphs_run_row_parallel(any_size, monkeypatch):
    import pinn
    from frame.train import loss_graph

    compiled = []
    original = loss_graph.LossGraph.compiled

    def record(self, data):
        exe, arrays = original(self, data)
        compiled.append(exe)
        return exe, arrays
    monkeypatch.setattr(loss_graph.LossGraph, "compiled", record)
    problem = pinn.Heat(n_collocation=200, n_boundary=20, n_initial=20)   # a pinn.PDE: loss weights are data
    pinn.train(problem, steps=2, lbfgs_steps=2, progress=False, derivative_mode="reverse")
    assert compiled and all(isinstance(exe, RowParallelExecutable) for exe in compiled)   # Adam's and L-BFGS's
