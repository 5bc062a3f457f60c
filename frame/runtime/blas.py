"""BLAS threads: plans whose matmuls are all small run BLAS single-threaded.

Measured on the 2-core reference machine: a 1024x64 @ 64x64 float32 matmul took ~0.14 ms on one
OpenBLAS thread and 12-16 ms on two when other processes kept the cores busy, and the PINN step
went from 108 ms to 33 ms; splitting such small products over threads gains little even on an
idle machine. The thread count is process-wide (OpenBLAS has one pool), so frame keeps one record
of it (`BlasThreads`): the first call of such an executable sets it to 1 through threadpoolctl and
it stays so; an executable with a large matmul puts the library's own count back, once. Repeated
calls never touch threadpoolctl: switching the count on every call (as frame once did, set and
restored around each call) made one executable called from 4 threads ~90x slower per call.
numpy's own matmuls in the same process then run on one thread too; `restore_blas_threads()`
gives the library its count back.
"""
from __future__ import annotations

import functools
import threading

from ..backends.segments import numpy_blas_controllers

# Largest matmul (in multiply-adds) that still runs best on one BLAS thread.
SMALL_MATMUL_MACS = 1 << 26


@functools.lru_cache(maxsize=1)
def _blas_threads():
    """threadpoolctl's controller of numpy's BLAS, or None when threadpoolctl or a BLAS is missing."""
    controllers = numpy_blas_controllers()
    return controllers[0] if controllers else None


class BlasThreads:
    """What frame last set the process's BLAS thread count to: set only when it has to change.

    `single()` and `default()` are called on every executable call; once the count is what they
    want they return after one attribute read, without a lock or a call into threadpoolctl."""

    def __init__(self):
        self._lock = threading.Lock()
        self._set = None       # the count frame last set, None while frame has not set one
        self._default = None   # the library's own count, read before frame first changed it

    def single(self) -> None:
        """One BLAS thread (plans whose matmuls are all small)."""
        if self._set != 1:
            self._change(lambda default: 1)

    def default(self) -> None:
        """The library's own count again (plans with a large matmul), if frame had changed it."""
        if self._set is not None and self._set != self._default:
            self._change(lambda default: default)

    def restore(self) -> None:
        """Give the library its own count back and forget frame's setting."""
        with self._lock:
            blas = _blas_threads()
            if blas is not None and self._set is not None and self._set != self._default:
                blas.set_num_threads(self._default)
            self._set = self._default = None

    def _change(self, want) -> None:
        with self._lock:
            blas = _blas_threads()
            if blas is None:
                self._set = self._default = 1   # nothing to control: never look again
                return
            if self._default is None:
                self._default = blas.num_threads
            threads = want(self._default)
            if threads != (self._default if self._set is None else self._set):
                blas.set_num_threads(threads)
            self._set = threads


BLAS = BlasThreads()   # the process's record; looked up at call time, so tests can replace it


def policy(macs: int) -> str | None:
    """What an executable whose largest matmul has `macs` multiply-adds asks of BLAS: "single",
    "default" or nothing (None: no matmul)."""
    return None if macs == 0 else "single" if macs <= SMALL_MATMUL_MACS else "default"


def restore_blas_threads() -> None:
    """Give numpy's BLAS back the thread count it had before frame set it (see the module doc)."""
    BLAS.restore()
