"""frame.distributed: data-parallel training on a Dask LocalCluster (2 worker processes) equals single-process
training to rounding (SGD, Adam, L-BFGS), compiles once per worker, survives a killed worker, and refuses bad input.

Tolerances: a 2-shard loss is `n0/N mean_0 + n1/N mean_1`, the single-process loss `mean`; they differ
by where the sum over rows is split, i.e. by rounding (~1e-16 relative per evaluation). Over tens of
optimiser steps that difference grows by the conditioning of the trajectory, measured at < 1e-13
relative here; rtol=1e-10 leaves that room and still fails on any wrong weighting (which is O(1)).
"""
import json
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

import frame  # noqa: E402
import frame.numpy as fnp  # noqa: E402
from frame.distributed import (DataParallel, WorkerFailure, add_cli_arguments, clear_worker_cache,  # noqa: E402
                               cli_problem, client_from_args, evaluate_shard, reduce_shards, shard_bounds,
                               wait_native, worker_cache_info)
from frame.distributed.worker import pack, unpack  # noqa: E402
from frame.errors import FrameError, InputError  # noqa: E402
from frame.train import SGD, Adam, Trainer, lbfgs  # noqa: E402

RTOL = 1e-10


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                       worker_dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture
def two_workers(client):
    """The module's client with both workers up (a fault test may have replaced one) and empty caches."""
    client.wait_for_workers(2, timeout=60)
    client.run(clear_worker_cache)
    return client


def _problem(n=101, seed=0):
    """A PINN-like problem: fit u' = cos(x) * y on n points (sharded), u = 0 on 5 boundary points (replicated)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, (n, 1))
    y = rng.uniform(0.5, 1.5, (n, 1))
    xb = np.linspace(-1, 1, 5).reshape(-1, 1)
    params = {"w": rng.normal(size=(1, 12)), "b": rng.normal(size=12), "v": rng.normal(size=(12, 1)) * 0.3}
    return params, (x, y, xb)


def _model(p, x):
    return fnp.tanh(x @ p["w"] + p["b"]) @ p["v"]


def pinn_loss(p, x, y, xb):
    du = frame.grad(lambda xx: fnp.sum(_model(p, xx)))(x)   # a nested derivative in the training graph
    return fnp.mean((du - fnp.cos(x) * y) ** 2) + fnp.mean(_model(p, xb) ** 2)


def assert_same_training(ref: Trainer, got: Trainer, rtol=RTOL):
    np.testing.assert_allclose(got.history, ref.history, rtol=rtol)
    for a, b in zip(frame.tree_leaves(ref.params), frame.tree_leaves(got.params)):
        np.testing.assert_allclose(b, a, rtol=rtol, atol=1e-14)
    for a, b in zip(ref.opt_state, got.opt_state):
        np.testing.assert_allclose(b, a, rtol=rtol, atol=1e-14)


def test_shard_bounds_and_the_weighted_reduction():
    assert shard_bounds(101, 2) == [(0, 51), (51, 101)]
    assert [hi - lo for lo, hi in shard_bounds(10, 3)] == [len(a) for a in np.array_split(np.arange(10), 3)]
    rows = np.arange(10.0) ** 2
    bounds = shard_bounds(10, 3)
    # per shard: its mean loss and a float32 "gradient" (the mean of the shard's rows times (1, 2))
    outs = [[np.asarray(rows[lo:hi].mean()), (rows[lo:hi].mean() * np.array([1, 2])).astype(np.float32)]
            for lo, hi in bounds]
    loss, grad = reduce_shards(outs, [(hi - lo) / 10 for lo, hi in bounds])
    np.testing.assert_allclose(loss, rows.mean(), rtol=1e-15)
    np.testing.assert_allclose(grad, rows.mean() * np.array([1, 2]), rtol=1e-7)
    assert loss.dtype == np.float64 and loss.shape == () and grad.dtype == np.float32


def test_sgd_on_two_workers_equals_one_process(two_workers):
    params, data = _problem()
    ref = Trainer(pinn_loss, params, SGD(0.05), progress=False)
    ref.run(15, *data)
    got = Trainer(pinn_loss, params, SGD(0.05), progress=False, client=two_workers, shard=(0, 1))
    got.run(15, *data)
    assert_same_training(ref, got)
    dp = got.data_parallel
    assert dp.n_shards == 2 and len(set(dp.assignment)) == 2 and dp.events == []
    # 101 rows make shards of 51 and 50 rows: each worker compiled its shard's graph once and hit after.
    info = two_workers.run(worker_cache_info)
    assert sorted((i["compiles"], i["hits"]) for i in info.values()) == [(1, 14), (1, 14)]


def test_adam_on_two_workers_equals_one_process_and_is_reproducible(two_workers):
    params, data = _problem(n=96, seed=3)
    ref = Trainer(pinn_loss, params, Adam(2e-2), progress=False)
    ref.run(25, *data)
    runs = []
    for i in range(3):
        t = Trainer(pinn_loss, params, Adam(2e-2), progress=False, client=two_workers, shard=(0, 1))
        t.run(25, *data)
        assert_same_training(ref, t)
        runs.append(t)
        if i == 0:  # the workers' executables switch to their native tier in the background: settle it
            assert all(tiers for tiers in two_workers.run(wait_native, 600).values())
    # The shards and their order are fixed, so a run on the same workers (same tiers) repeats another exactly.
    assert runs[1].history == runs[2].history
    for a, b in zip(frame.tree_leaves(runs[1].params), frame.tree_leaves(runs[2].params)):
        np.testing.assert_array_equal(a, b)
    assert ref.history[-1] < 0.5 * ref.history[0]  # it trains


def test_lbfgs_on_two_workers_equals_one_process(two_workers):
    params, data = _problem(n=64, seed=5)
    ref = lbfgs(pinn_loss, params, *data, maxiter=25, progress=False)
    got = lbfgs(pinn_loss, params, *data, maxiter=25, progress=False, client=two_workers, shard=(0, 1))
    assert (got.nit, got.nfev) == (ref.nit, ref.nfev)
    np.testing.assert_allclose(got.history, ref.history, rtol=1e-9)  # L-BFGS's line search: looser, see module doc
    for a, b in zip(frame.tree_leaves(ref.params), frame.tree_leaves(got.params)):
        np.testing.assert_allclose(b, a, rtol=1e-8, atol=1e-12)
    assert got.loss < 0.6 * got.history[0]  # measured 0.32 from 0.67 in 25 iterations


def test_minibatches_of_float32_data_are_scattered_each_step(two_workers):
    # pino-style training: new (inputs, targets) arrays every step; both arguments are sharded.
    rng = np.random.default_rng(2)
    a = rng.normal(size=(64, 8)).astype(np.float32)
    u = (a @ rng.normal(size=(8, 3))).astype(np.float32)
    params = {"w": np.zeros((8, 3), np.float32)}

    def loss(p, a, u):
        return fnp.mean(fnp.sum((a @ p["w"] - u) ** 2, axis=1))

    batches = [(a[i:i + 16], u[i:i + 16]) for i in range(0, 64, 16)] * 3
    ref = Trainer(loss, params, Adam(5e-2), progress=False)
    got = Trainer(loss, params, Adam(5e-2), progress=False, client=two_workers, shard=(0, 1))
    for batch in batches:
        ref.step(*batch)
        got.step(*batch)
    # float32 shards summed in float64 against one float32 mean: float32 rounding (eps 1.2e-7).
    np.testing.assert_allclose(got.history, ref.history, rtol=1e-5)
    np.testing.assert_allclose(got.params["w"], ref.params["w"], rtol=1e-4, atol=1e-5)
    assert got.params["w"].dtype == np.float32


def test_an_error_in_the_graph_propagates_and_is_not_retried(two_workers):
    params, data = _problem(n=20)
    trainer = Trainer(pinn_loss, params, SGD(0.1), progress=False)
    wrong = trainer._loss_graph.graph_for(data[:1] + data[1:])  # a graph for 20 rows ...
    dp = DataParallel(two_workers, (0, 1))
    with pytest.raises(InputError):  # ... fed a shard of 10 rows: the worker's executable refuses it
        dp.value_and_grad(lambda shard_data: wrong, frame.tree_leaves(params), data)
    assert dp.events == []


def test_the_worker_checks_the_graph_text_against_its_fingerprint():
    params, data = _problem(n=8)
    graph = Trainer(pinn_loss, params, SGD(0.1), progress=False)._loss_graph.graph_for(data)
    text = frame.ir.print_graph(graph)
    flats, layout = pack(frame.tree_leaves(params))
    out_flats, out_layout, seconds = evaluate_shard(frame.ir.fingerprint(graph), text, flats, layout, *data)
    loss, grads = frame.value_and_grad(pinn_loss)(params, *data)
    outs = unpack(out_flats, out_layout)
    np.testing.assert_allclose(outs[0], loss, rtol=1e-14)
    for got, want in zip(outs[1:], frame.tree_leaves(grads)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    assert seconds >= 0
    with pytest.raises(FrameError, match="refusing to run it"):
        evaluate_shard("0" * 64, text, flats, layout, *data)


def test_pack_round_trips_mixed_dtypes_and_shapes():
    arrays = [np.arange(6.0).reshape(2, 3), np.float32(2.5) * np.ones(4, np.float32), np.array(7.0),
              np.zeros((0, 3))]
    flats, layout = pack(arrays)
    assert len(flats) == 2  # one buffer per dtype
    for a, b in zip(arrays, unpack(flats, layout)):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


def test_bad_input(two_workers):
    params, data = _problem(n=10)
    with pytest.raises(FrameError, match="needs client="):
        Trainer(pinn_loss, params, SGD(0.1), shard=(0,))
    with pytest.raises(FrameError, match="client must be a dask.distributed.Client"):
        Trainer(pinn_loss, params, SGD(0.1), client="tcp://x", shard=(0,))
    with pytest.raises(FrameError, match="shard must be a non-empty tuple"):
        Trainer(pinn_loss, params, SGD(0.1), client=two_workers)
    with pytest.raises(FrameError, match="needs client="):
        lbfgs(pinn_loss, params, *data, shard=(0,), progress=False)
    t = Trainer(pinn_loss, params, SGD(0.1), progress=False, client=two_workers, shard=(0, 7))
    with pytest.raises(InputError, match="names data argument 7, but the step has 3"):
        t.step(*data)
    t = Trainer(pinn_loss, params, SGD(0.1), progress=False, client=two_workers, shard=(0, 2))
    with pytest.raises(InputError, match=r"share their length along axis 0.*\[10, 1\].*\[5, 1\]"):
        t.step(*data)
    dp = DataParallel(two_workers, (0, 1), shards=4)
    small = (data[0][:3], data[1][:3], data[2])
    with pytest.raises(InputError, match="4 shards need at least 4 rows"):
        dp.value_and_grad(lambda d: None, frame.tree_leaves(params), small)


def test_import_frame_imports_neither_frame_distributed_nor_dask():
    code = "import sys, frame, frame.train; assert 'frame.distributed' not in sys.modules; " \
           "assert 'distributed' not in sys.modules and 'dask' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_cli_arguments_and_client_from_args(client):
    import argparse

    parser = argparse.ArgumentParser()
    add_cli_arguments(parser)
    args = parser.parse_args([])
    assert (args.workers, args.scheduler) == (None, None) and cli_problem(args) is None
    assert client_from_args(args.workers, args.scheduler) is None
    assert parser.parse_args(["--workers", "3"]).workers == 3
    assert cli_problem(parser.parse_args(["--workers", "0"])) == "--workers must be >= 1, got 0"
    with pytest.raises(SystemExit):  # argparse: not allowed with argument --workers
        parser.parse_args(["--workers", "2", "--scheduler", "tcp://h:8786"])
    with pytest.raises(FrameError, match="not both"):
        client_from_args(2, "tcp://h:8786")
    args = parser.parse_args(["--scheduler", client.scheduler.address])
    other = client_from_args(args.workers, args.scheduler)
    try:
        assert len(other.scheduler_info()["workers"]) >= 1
    finally:
        other.close()


def _kill_one_worker_when(trainer: Trainer, step: int, client, killed: list):
    """In a thread: once `trainer` reaches `step`, SIGKILL the process of the worker holding shard 1."""
    pids = client.run(os.getpid)

    def run():
        while trainer.step_count < step:
            time.sleep(0.002)
        victim = trainer.data_parallel.assignment[1]
        os.kill(pids[victim], signal.SIGKILL)
        killed.append(victim)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_a_killed_worker_is_replaced_and_training_equals_the_reference(two_workers):
    params, data = _problem(n=101, seed=11)
    ref = Trainer(pinn_loss, params, Adam(2e-2), progress=False)
    ref.run(30, *data)
    got = Trainer(pinn_loss, params, Adam(2e-2), progress=False, client=two_workers, shard=(0, 1))
    killed: list = []
    thread = _kill_one_worker_when(got, 8, two_workers, killed)
    got.run(30, *data)
    thread.join(timeout=30)
    assert killed, "the worker was not killed"
    dp = got.data_parallel
    # The lost shard was recomputed on a live worker before the update: training went on unharmed.
    assert any(e["shard"] == 1 and e["worker"] == killed[0] and e["new_worker"] != killed[0] for e in dp.events)
    assert killed[0] not in dp.assignment and got.step_count == 30
    assert_same_training(ref, got)


def test_a_worker_killed_during_minibatch_training_is_replaced(two_workers):
    # New batches every step: each step scatters its shards, so the kill can also land in a scatter.
    rng = np.random.default_rng(21)
    a = rng.normal(size=(120, 6))
    u = np.tanh(a @ rng.normal(size=(6, 2)))
    params = {"w": rng.normal(size=(6, 2)) * 0.1, "b": np.zeros(2)}

    def loss(p, a, u):
        return fnp.mean(fnp.sum((fnp.tanh(a @ p["w"] + p["b"]) - u) ** 2, axis=1))

    batches = [(a[i:i + 24].copy(), u[i:i + 24].copy()) for i in range(0, 120, 24)] * 4
    ref = Trainer(loss, params, Adam(3e-2), progress=False)
    got = Trainer(loss, params, Adam(3e-2), progress=False, client=two_workers, shard=(0, 1))
    killed: list = []
    thread = _kill_one_worker_when(got, 6, two_workers, killed)
    for batch in batches:
        ref.step(*batch)
        got.step(*batch)
    thread.join(timeout=30)
    assert killed and got.step_count == len(batches)
    assert killed[0] not in got.data_parallel.assignment
    assert_same_training(ref, got)


def test_with_no_retries_a_lost_step_leaves_the_parameters_as_they_were(two_workers, tmp_path):
    params, data = _problem(n=40, seed=12)
    ref = Trainer(pinn_loss, params, Adam(2e-2), progress=False)
    ref.run(12, *data)
    got = Trainer(pinn_loss, params, Adam(2e-2), progress=False, client=two_workers, shard=(0, 1))
    got.data_parallel.retries = 0
    got.run(6, *data, checkpoint=tmp_path / "ckpt.npz")
    before = [a.copy() for a in frame.tree_leaves(got.params)] + [s.copy() for s in got.opt_state]
    pids = two_workers.run(os.getpid)
    os.kill(pids[got.data_parallel.assignment[1]], signal.SIGKILL)
    with pytest.raises(WorkerFailure, match="retries=0 exhausted; parameters keep their values"):
        got.run(6, *data)
    after = frame.tree_leaves(got.params) + got.opt_state
    assert got.step_count == 6 and all(np.array_equal(a, b) for a, b in zip(before, after))
    # Resume from the last checkpoint on the cluster as it is now: the trajectory is the reference's.
    resumed = Trainer.restore(tmp_path / "ckpt.npz", pinn_loss, progress=False, client=two_workers, shard=(0, 1))
    resumed.run(6, *data)
    assert_same_training(ref, resumed)


def test_the_scaling_benchmark_runs_tiny_and_its_projection_is_consistent(tmp_path, capsys, monkeypatch):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                    "benchmarks"))
    import scaling

    # The model: one worker is compute + overhead; more workers divide the compute only.
    one = scaling.project(1.0, 0.1, 8_000_000, 1)
    assert one["star_eff"] == pytest.approx(1.0 / (1.0 + 0.1 + 2 * 8e6 / scaling.BANDWIDTH + 2 * scaling.LATENCY
                                                   + 8e6 / 4e9))
    effs = [scaling.project(1.0, 0.1, 8_000_000, w) for w in (1, 2, 8, 64)]
    assert all(a["star_eff"] > b["star_eff"] for a, b in zip(effs, effs[1:]))
    assert effs[-1]["ring_eff"] > effs[-1]["star_eff"]  # 64 gradients through one link cost more than a ring
    out = tmp_path / "s.json"
    monkeypatch.setenv("FRAME_NATIVE", "off")  # the benchmark's processes (and their workers) skip the C build
    scaling.main(["--cases", "pinn", "--configs", "1 process", "1 worker", "--n", "256", "--steps", "2",
                  "--pairs", "1", "--json", str(out)])
    printed = capsys.readouterr().out
    assert "PINN step N=256" in printed and "projection per step" in printed and "W=64" in printed
    rows = {s["label"]: s for s in json.loads(out.read_text())[0]["summary"]}
    assert rows["1 worker"]["grad_bytes"] == 4 * (64 + 64 * 64 * 2 + 64 * 3 + 64 + 1)  # float32 MLP 1-64-64-64-1
    assert 0.0 <= rows["1 worker"]["comm"] <= 1.0
    np.testing.assert_allclose(rows["1 worker"]["loss"], rows["1 process"]["loss"], rtol=1e-5)


def test_pinn_train_with_a_client_equals_one_process(two_workers):
    """pinn.train(client=) shards the problem's residual points (Burgers1D.sharded_arguments) for Adam
    and L-BFGS; the result equals single-process training to rounding."""
    import pinn
    problem = pinn.Burgers1D(n_collocation=96)
    kwargs = dict(steps=12, lr=3e-3, lbfgs_steps=8, seed=0, progress=False, derivative_mode="reverse", eval_every=6)
    ref = pinn.train(problem, problem.default_model(seed=0, layers=[2, 8, 8, 1]), **kwargs)
    got = pinn.train(problem, problem.default_model(seed=0, layers=[2, 8, 8, 1]), client=two_workers, **kwargs)
    np.testing.assert_allclose(got.history, ref.history, rtol=1e-9)
    for a, b in zip(frame.tree_leaves(got.params), frame.tree_leaves(ref.params)):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-12)
    assert got.lbfgs_iterations == ref.lbfgs_iterations


def test_pinn_train_refuses_a_client_for_a_problem_it_cannot_shard(two_workers):
    import pinn
    problem = pinn.Poisson1D(n_collocation=16)
    problem.sharded_arguments = None
    with pytest.raises(pinn.ProblemError, match="sharded_arguments"):
        pinn.train(problem, steps=1, progress=False, client=two_workers)


def test_the_pinn_cli_trains_on_local_workers(tmp_path, capsys):
    """`python -m pinn --workers 2` starts a local cluster, trains on it and stops it."""
    from pinn.__main__ import main
    assert main(["--problem", "burgers1d", "--steps", "3", "--lbfgs", "0", "--collocation", "64", "--workers", "2",
                 "--no-progress", "--derivatives", "reverse", "--out", str(tmp_path)]) == 0
    assert "relative L2 error" in capsys.readouterr().out
    assert json.loads((tmp_path / "metrics.json").read_text())["adam_steps"] == 3


def test_pino_train_operator_with_a_client_equals_one_process(two_workers):
    """pino.train_operator(client=) splits each batch's inputs and outputs across the workers."""
    import pino
    problem = pino.Burgers1D()
    train, test = problem.sample(8, 32, seed=0), problem.sample(4, 32, seed=1)
    model = pino.FNO1d(modes=4, width=6, layers=1)
    kwargs = dict(steps=4, batch_size=4, lr=1e-3, seed=0, progress=False, dtype="float64")
    ref = pino.train_operator(model, train, test, **kwargs)
    got = pino.train_operator(model, train, test, client=two_workers, **kwargs)
    np.testing.assert_allclose(got.history, ref.history, rtol=1e-10)
    np.testing.assert_allclose(got.test_error, ref.test_error, rtol=1e-9)


def test_the_pino_cli_trains_on_local_workers(tmp_path, capsys):
    from pino.__main__ import main
    assert main(["--problem", "burgers-operator1d", "--n", "32", "--train", "8", "--test", "4", "--steps", "2", "--batch", "4",
                 "--modes", "4", "--width", "6", "--layers", "1", "--workers", "2", "--no-progress", "--no-plot",
                 "--out", str(tmp_path)]) == 0
    assert "test rel. L2" in capsys.readouterr().out
