"""Tracing from several threads at once: each thread has its own trace stack (issue 12)."""
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import frame
import frame.numpy as fnp

N_THREADS = 8
CALLS_PER_THREAD = 10


@pytest.fixture(autouse=True)
def frequent_thread_switches():
    """Switch threads every microsecond so that traces really interleave (a trace is shorter than 5 ms)."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def _loss(w, x):
    return fnp.sum(fnp.tanh(x @ w) ** 2)


def _second_derivative(x):
    return frame.grad(lambda x: fnp.sum(frame.grad(lambda y: fnp.sum(fnp.sin(y) * y ** 3))(x)))(x)


def _inputs(i):
    rng = np.random.default_rng(i)
    n = 2 + i % 4                      # threads trace different shapes
    return rng.normal(size=(3, 2)), rng.normal(size=(n, 3)), rng.normal(size=(n,))


def _work(forward, i):
    w, x, v = _inputs(i)
    return forward(w, x), frame.grad(_loss)(w, x), _second_derivative(v), frame.function(_second_derivative)(v)


def test_tracing_and_calling_from_eight_threads_matches_single_threaded_results():
    forward = frame.function(lambda w, x: fnp.tanh(x @ w))  # one Function shared by every thread
    expected = [_work(frame.function(lambda w, x: fnp.tanh(x @ w)), i) for i in range(N_THREADS)]
    start = threading.Barrier(N_THREADS)

    def run(i):
        start.wait()
        return [_work(forward, i) for _ in range(CALLS_PER_THREAD)]

    with ThreadPoolExecutor(N_THREADS) as pool:
        results = list(pool.map(run, range(N_THREADS)))
    for i, runs in enumerate(results):
        w, x, v = _inputs(i)
        np.testing.assert_allclose(expected[i][0], np.tanh(x @ w), rtol=1e-14)
        for got in runs:
            for g, e in zip(got, expected[i]):
                np.testing.assert_allclose(g, e, rtol=1e-14)
    assert forward.trace_count == len({_inputs(i)[1].shape for i in range(N_THREADS)})


def test_one_signature_first_called_from_many_threads_traces_once():
    calls = []

    @frame.function
    def f(x):
        calls.append(1)
        time.sleep(0.02)  # a slow trace: the other threads arrive while it runs
        return fnp.sin(x) * 2.0

    start = threading.Barrier(N_THREADS)

    def run(_):
        start.wait()
        return f(np.linspace(0, 1, 5))

    with ThreadPoolExecutor(N_THREADS) as pool:
        outs = list(pool.map(run, range(N_THREADS)))
    for out in outs:
        np.testing.assert_allclose(out, 2 * np.sin(np.linspace(0, 1, 5)), rtol=1e-14)
    assert f.trace_count == 1 and len(calls) == 1


def test_a_tracer_from_another_threads_trace_is_reported():
    seen = []

    def f(x):
        with ThreadPoolExecutor(1) as pool:
            seen.append(pool.submit(lambda: _raises(lambda: x + 1.0)).result())
        return x

    frame.trace(f, np.ones(2))
    assert "another thread" in seen[0]


def _raises(fn):
    try:
        fn()
    except frame.TraceError as e:
        return str(e)
    return ""
