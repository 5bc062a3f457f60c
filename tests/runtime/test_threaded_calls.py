"""One executable called from several threads (issue 12, item 9): the BLAS thread count is set once,
not switched on every call, and concurrent calls give the results of serial ones."""
import threading

import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.compiler.pipeline import PipelineOptions, lower
from frame.backends.numpy import NUMPY
from frame.runtime import Executable, blas
from tests.workloads import pinn_problem, pinn_step_fn


class CountingController:
    """Stands in for threadpoolctl's BLAS controller and counts what frame asks of it."""

    def __init__(self, threads: int = 2):
        self.threads, self.sets, self.reads = threads, 0, 0
        self.lock = threading.Lock()

    @property
    def num_threads(self) -> int:
        with self.lock:
            self.reads += 1
        return self.threads

    def set_num_threads(self, n: int) -> None:
        with self.lock:
            self.sets += 1
            self.threads = n


@pytest.fixture
def controller(monkeypatch):
    """A counting controller, and frame's process-wide BLAS state as if frame had never set it."""
    fake = CountingController()
    monkeypatch.setattr(blas, "_blas_threads", lambda: fake)
    monkeypatch.setattr(blas, "BLAS", blas.BlasThreads())
    return fake


def fresh(fn, *args) -> Executable:
    """A new executable (not the compile cache's) of `fn` traced on `args`."""
    graph = frame.trace(fn, *args)
    return Executable(lower(graph, PipelineOptions(), NUMPY), source_graph=graph)


def small_matmul(a, b):
    return fnp.tanh(a @ b)


def call_from_threads(exe, args, threads: int, calls: int) -> list:
    results: list = [None] * threads

    def work(k):
        results[k] = [exe(*args) for _ in range(calls // threads)]

    pool = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return [r for rs in results for r in rs]


@pytest.mark.parametrize("threads", [1, 4])
def test_blas_threads_are_set_a_constant_number_of_times_not_per_call(controller, threads):
    a, b = np.ones((8, 4)), np.ones((4, 3))
    exe = fresh(small_matmul, a, b)
    assert len(call_from_threads(exe, (a, b), threads, 100)) == 100
    assert controller.threads == 1          # small matmuls run on one BLAS thread
    assert controller.sets <= 1 and controller.reads <= 1, (controller.sets, controller.reads)
    # a second executable with small matmuls finds the policy in place
    exe2 = fresh(lambda a, b: fnp.sin(a @ b), a, b)
    call_from_threads(exe2, (a, b), threads, 100)
    assert controller.sets <= 1 and controller.reads <= 1


def test_a_large_matmul_gets_the_library_default_back(controller, monkeypatch):
    monkeypatch.setattr(blas, "SMALL_MATMUL_MACS", 8 * 4 * 3 - 1)
    a, b = np.ones((8, 4)), np.ones((4, 3))
    small = fresh(small_matmul, np.ones((2, 4)), np.ones((4, 3)))
    large = fresh(small_matmul, a, b)
    small(np.ones((2, 4)), b)
    assert controller.threads == 1
    for _ in range(50):
        large(a, b)
    assert controller.threads == 2 and controller.sets == 2   # back to the default once, not per call
    no_matmul = fresh(fnp.sin, a)
    for _ in range(50):
        no_matmul(a)
    assert controller.sets == 2 and controller.threads == 2


def test_restore_blas_threads_gives_back_the_library_default(controller):
    a, b = np.ones((8, 4)), np.ones((4, 3))
    fresh(small_matmul, a, b)(a, b)
    assert controller.threads == 1
    frame.runtime.restore_blas_threads()
    assert controller.threads == 2
    frame.runtime.restore_blas_threads()   # nothing to undo: no further call
    assert controller.sets == 2


def test_four_threads_calling_the_pinn_step_get_the_serial_results():
    params, x, xb, f = pinn_problem(np.random.default_rng(3), (1, 16, 16, 1), 64, bias_scale=0.5)
    exe = fresh(pinn_step_fn(1e-2), params, x, xb, f)
    args = [a for w, b in params for a in (w, b)] + [x, xb, f]
    serial = exe(*args)
    got = call_from_threads(exe, args, 4, 40)
    assert len(got) == 40
    for outs in got:
        assert len(outs) == len(serial)
        for o, s in zip(outs, serial):
            np.testing.assert_array_equal(o, s)



def test_the_blas_policy_reads_one_gemms_size_not_the_batchs():
    # numpy runs a stacked matmul one GEMM per matrix: 20 GEMMs of 64x64x64 are small ones
    w, x = np.ones((64, 64)), np.ones((20, 64, 64))
    exe = frame.runtime.compile(frame.trace(lambda w, x: w @ x, w, x), rows=frame.runtime.RowPolicy(1, 0))
    assert exe._tier.blas_macs == 64 ** 3
    assert blas.policy(exe._tier.blas_macs) == "single"
