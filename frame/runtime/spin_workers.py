"""Worker threads that take a row chunk without a sleep/wake-up on the hot path.

A row-parallel step hands one chunk to another thread and waits for it. Through a
`ThreadPoolExecutor` each hand-off wakes a sleeping thread (a futex): on the 2-core VMs this
project measures on, the worker started its chunk 60-80 us after the submit and the caller learnt
of its end as late, so an N = 256 PINN step ran two 128-row chunks in 0.85 ms when one chunk alone
takes 0.34 ms. Here a worker that has finished a job spins in C (the GIL released) on a counter
the caller bumps, and the caller spins the same way on the worker's done counter, which the
worker writes from C after letting go of the GIL: a hand-off is a memory write seen within a
microsecond. A spinning thread burns its core, so an idle worker spins for `FRAME_SPIN_US`
(default 1000 us) and then sleeps on an `Event`, as a pool thread would (a caller still waiting
after 20 ms polls every 0.2 ms); `FRAME_SPIN_US=0` turns spinning off, and without a C compiler
the row-parallel executable keeps its thread pool.
"""
from __future__ import annotations

import ctypes
import os
import threading
import time

import numpy as np

DEFAULT_SPIN_US = 1000   # an idle worker spins this long for the next chunk, then sleeps
DONE_SPIN_US = 20000     # the caller waits this long for a worker it expects to finish soon, then sleeps

_SOURCE = r"""
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <time.h>

/* Store `value` at `publish` (when not NULL), then spin until *counter differs from `seen` or
   `max_ns` pass; 1 if it changed. The store happens here, with the GIL released, so whoever spins
   on it can take the GIL at once instead of sleeping until this thread lets go of it. */
int frame_spin_until_changed(volatile int64_t *counter, int64_t seen, int64_t max_ns,
                             volatile int64_t *publish, int64_t value) {
    struct timespec t0, t;
    if (publish) *publish = value;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0;; ++i) {
        if (*counter != seen) return 1;
        if ((i & 127) == 127) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            if ((int64_t)(t.tv_sec - t0.tv_sec) * 1000000000LL + (t.tv_nsec - t0.tv_nsec) > max_ns)
                return *counter != seen;
        }
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
}
"""


def spin_us() -> int:
    """FRAME_SPIN_US (default 1000): microseconds an idle worker spins before it sleeps; 0 turns spinning off."""
    try:
        return max(0, int(os.environ.get("FRAME_SPIN_US", DEFAULT_SPIN_US)))
    except ValueError:
        return DEFAULT_SPIN_US


_BUILD = {"fn": None, "thread": None}
_BUILD_LOCK = threading.Lock()


def _build():
    from ..backends import native
    if native.c_compiler() is None:
        return
    try:
        fn = native.build_library(_SOURCE).frame_spin_until_changed
    except (native.BuildError, OSError):
        return
    fn.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64]
    fn.restype = ctypes.c_int
    _BUILD["fn"] = fn


def spin_function(wait: bool = False):
    """The C spin loop (ctypes releases the GIL around it), or None while it is being built (in a
    background thread, like the native tier: a first step never waits for the compiler) or when
    there is no C compiler. `wait=True` waits for the build."""
    with _BUILD_LOCK:
        if _BUILD["thread"] is None:
            _BUILD["thread"] = threading.Thread(target=_build, name="frame-spin-build", daemon=True)
            _BUILD["thread"].start()
        thread = _BUILD["thread"]
    if wait:
        thread.join()
    return _BUILD["fn"]


class SpinWorker:
    """One daemon thread running `submit`ted calls one at a time; `result()` waits for the last one.

    counters[0] counts jobs posted (written under the GIL), counters[1] jobs done (written by the
    worker's C spin loop); both are read by C spin loops. A caller must hold `lock` from `submit` to
    `result`."""

    def __init__(self, spin, spin_ns: int):
        self._spin, self._spin_ns = spin, spin_ns
        self.counters = np.zeros(2, np.int64)
        self._posted_at = self.counters.ctypes.data
        self._done_at = self._posted_at + 8
        self.lock = threading.Lock()
        self._job = None
        self._outcome = None
        self._wake = threading.Event()
        self._sleeping = False
        threading.Thread(target=self._loop, name="frame-rows-spin", daemon=True).start()

    def _loop(self):
        seen = 0
        while True:
            # the done count of the last job is published by the spin loop itself (see _SOURCE)
            if not self._spin(self._posted_at, seen, self._spin_ns, self._done_at, seen):
                self._wake.clear()          # cleared before the flag: a set() after it is never lost
                self._sleeping = True
                if int(self.counters[0]) == seen:
                    self._wake.wait()
                self._sleeping = False
            seen = int(self.counters[0])
            fn, args = self._job
            try:
                self._outcome = (True, fn(*args))
            except BaseException as e:   # noqa: BLE001  (re-raised in the caller)
                self._outcome = (False, e)
            self._job = None

    def submit(self, fn, *args) -> None:
        self._job = (fn, args)
        self.counters[0] += 1
        if self._sleeping:
            self._wake.set()

    def result(self):
        """The last job's result (its exception re-raised): spins DONE_SPIN_US, then polls every 0.2 ms."""
        target = int(self.counters[0])
        if int(self.counters[1]) != target and not self._spin(self._done_at, target - 1, DONE_SPIN_US * 1000, None, 0):
            while int(self.counters[1]) != target:
                time.sleep(0.0002)
        ok, value = self._outcome
        self._outcome = None
        if not ok:
            raise value
        return value


_WORKERS: dict[int, list[SpinWorker]] = {}
_LOCK = threading.Lock()


def spin_workers(count: int) -> list[SpinWorker] | None:
    """`count` shared spin workers (made once per process), or None when spinning is off or there is
    no C compiler (callers then use their thread pool)."""
    us = spin_us()
    if count < 1 or us == 0:
        return None
    spin = spin_function()
    if spin is None:
        return None
    with _LOCK:
        workers = _WORKERS.get(count)
        if workers is None:
            workers = _WORKERS[count] = [SpinWorker(spin, us * 1000) for _ in range(count)]
        return workers


def _forget_workers():   # a forked child has none of its parent's threads
    _WORKERS.clear()
    if _BUILD["fn"] is None:
        _BUILD["thread"] = None


os.register_at_fork(after_in_child=_forget_workers)
