"""Spin workers (frame/runtime/spin_workers.py): the hand-off of row chunks without a sleep on the hot
path. They must run every job once, in order, give the caller each result or exception, fall back to
sleeping when idle, and give a row-parallel executable the same bits as its thread pool."""
from __future__ import annotations

import contextlib
import threading
import time

import numpy as np
import pytest

import frame
from frame.backends import native
from frame.frontend.pytree import tree_flatten
from frame.runtime import row_parallel, spin_workers
from frame.runtime.compile import compile as compile_graph
from frame.runtime.row_parallel import RowParallelExecutable, RowPolicy
from tests.workloads import pinn_problem, pinn_step_fn

needs_cc = pytest.mark.skipif(native.c_compiler() is None, reason="no C compiler: row chunks use the thread pool")


@pytest.fixture
def worker():
    spin = spin_workers.spin_function(wait=True)
    assert spin is not None
    return spin_workers.SpinWorker(spin, 200_000)   # a worker of its own, 0.2 ms of spin


@needs_cc
def test_a_worker_runs_each_job_once_and_returns_its_result(worker):
    with worker.lock:
        for k in range(200):
            worker.submit(lambda a, b: (a, b, threading.current_thread().name), k, -k)
            assert worker.result() == (k, -k, "frame-rows-spin")


@needs_cc
def test_a_jobs_exception_reaches_the_caller_and_the_worker_goes_on(worker):
    def fail():
        raise ValueError("chunk failed")
    with worker.lock:
        worker.submit(fail)
        with pytest.raises(ValueError, match="chunk failed"):
            worker.result()
        worker.submit(lambda: 7)
        assert worker.result() == 7


@needs_cc
def test_an_idle_worker_sleeps_and_wakes_for_the_next_job(worker):
    with worker.lock:
        worker.submit(lambda: 1)
        assert worker.result() == 1
        time.sleep(0.05)                 # far past its 0.2 ms of spin
        assert worker._sleeping
        worker.submit(lambda: 2)
        assert worker.result() == 2
        worker.submit(time.sleep, 0.03)  # a job longer than the caller's spin: the caller polls
        assert worker.result() is None


def test_spinning_off_gives_no_workers(monkeypatch):
    monkeypatch.setenv("FRAME_SPIN_US", "0")
    assert spin_workers.spin_workers(1) is None


@needs_cc
@pytest.mark.parametrize("spin", ["1000", "0"])
def test_row_chunks_on_spin_workers_give_the_pools_bits(monkeypatch, spin):
    monkeypatch.setattr(row_parallel, "MIN_CHUNK_ELEMENTS", 0)
    monkeypatch.setenv("FRAME_SPIN_US", spin)
    spin_workers.spin_function(wait=True)
    params, x, xb, f = pinn_problem(np.random.default_rng(3), (1, 16, 16, 1), 300)
    leaves = [np.asarray(a) for a in tree_flatten((params, x, xb, f))[0]]
    exe = compile_graph(frame.trace(pinn_step_fn(1e-3), params, x, xb, f), rows=RowPolicy(2, 0))
    assert isinstance(exe, RowParallelExecutable)
    first = exe(*leaves)
    workers = spin_workers.spin_workers(1)
    if spin == "0":
        assert workers is None
    else:
        before = int(workers[0].counters[0])
        again = exe(*leaves)
        assert int(workers[0].counters[0]) == before + 1       # the second chunk ran on the spin worker
        for a, b in zip(first, again):
            assert np.array_equal(a, b)
    with workers[0].lock if workers else contextlib.nullcontext():             # workers busy: the pool takes the chunks
        for a, b in zip(first, exe(*leaves)):
            assert np.array_equal(a, b)

