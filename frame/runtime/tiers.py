"""Tiers: when an executable moves from the numpy backend's program to the native one's, and the
builder thread that makes the native one.

An executable starts on the numpy tier (frame/backends/numpy.py). Once it is hot (called
`after_calls` times, default 3) it builds its native tier in a background thread: the source
graph is lowered again through the pipeline for the native backend (frame/backends/native.py),
whose fused chains hold only the ops its C loops compute exactly, and each chain it can compile
runs as one generated C loop called through ctypes; the rest runs as on numpy. When the library
is loaded the executable switches over between two calls. Without a C compiler, or with
`FRAME_NATIVE=off`, it stays on numpy. `set_native` changes the policy; `wait_native_builds`
blocks until every queued build has finished (benchmarks, tests).
"""
from __future__ import annotations

import dataclasses
import os
import queue
import threading
import time
import warnings

from ..backends import Program, native
from ..backends.native import NATIVE
from ..compiler.pipeline import PipelineOptions, lower

MODES = ("auto", "sync", "off")
_MODE_SPELLINGS = {"": "auto", "1": "auto", "on": "auto", "true": "auto", "yes": "auto",
                   "0": "off", "false": "off", "no": "off"}


def mode_from_environment() -> str:
    """The native-tier mode that `FRAME_NATIVE` asks for (auto, sync or off; 0/1 spellings too)."""
    value = os.environ.get("FRAME_NATIVE", "").strip().lower()
    mode = _MODE_SPELLINGS.get(value, value)
    if mode not in MODES:
        warnings.warn(f"FRAME_NATIVE={value!r} is not one of {MODES} (or 0/1): using 'auto'", RuntimeWarning,
                      stacklevel=2)
        mode = "auto"
    return mode


POLICY = {"mode": mode_from_environment(), "after_calls": 3}


def set_native(mode: str | None = None, *, after_calls: int | None = None) -> dict:
    """When executables move to native kernels for their fused chains; returns the previous settings.

    mode: "auto" (default; build in a background thread once an executable is hot), "sync" (build
        in the calling thread, at that call) or "off" (numpy only). The environment variable
        `FRAME_NATIVE` sets the default.
    after_calls: how many calls make an executable hot (default 3).
    """
    if mode is not None and mode not in MODES:
        raise ValueError(f"native mode must be one of {MODES}, got {mode!r}")
    if after_calls is not None and after_calls < 1:
        raise ValueError(f"after_calls must be >= 1, got {after_calls}")
    previous = dict(POLICY)
    if mode is not None:
        POLICY["mode"] = mode
    if after_calls is not None:
        POLICY["after_calls"] = int(after_calls)
    return previous


def native_tier(source_graph, options: PipelineOptions | None) -> Program | None:
    """The native tier of a source graph, lowered for the native backend (its IR is not dumped a
    second time), or None when none of its chains can be compiled."""
    options = dataclasses.replace(options or PipelineOptions(), dump_ir=())
    return NATIVE.program(lower(source_graph, options, NATIVE))


def build_native(exe) -> None:
    """Build `exe`'s native tier and switch to it; its status says what happened."""
    exe._native_state = "building"
    try:
        if native.c_compiler() is None:
            exe._native_state = "none: no C compiler"
            return
        tier = native_tier(exe.source_graph or exe.graph, exe.options)
        if tier is None:
            exe._native_state = "none"
            return
        exe._tier = tier          # one attribute store: the next call takes the whole new tier
        exe._native_state = "ready"
    except Exception as e:  # noqa: BLE001 - the numpy tier keeps running; say why once
        exe._native_state = f"failed: {type(e).__name__}: {e}"
        warnings.warn(f"frame: @{exe.graph.name} stays on the numpy tier, its native kernels failed to build "
                      f"({type(e).__name__}: {e})", RuntimeWarning, stacklevel=2)
    finally:
        exe._native_done.set()
        QUEUED.discard(exe)


_BUILDS: "queue.Queue" = queue.Queue()


def _build_worker(builds: "queue.Queue") -> None:
    while True:
        build_native(builds.get())


_WORKER: list = []          # [pid of the process whose builder thread runs]
_WORKER_LOCK = threading.Lock()
QUEUED: set = set()         # executables whose background build has not finished


def submit_build(exe) -> None:
    """Queue a native build on the one background builder thread (a daemon: exit does not wait for it).

    A forked child inherits the record of its parent's thread but not the thread: it starts its own
    (see `_after_fork_in_child`)."""
    global _BUILDS
    with _WORKER_LOCK:
        if not _WORKER or _WORKER[0] != os.getpid():
            _BUILDS = queue.Queue()
            threading.Thread(target=_build_worker, args=(_BUILDS,), name="frame-native-builder", daemon=True).start()
            _WORKER[:] = [os.getpid()]
    QUEUED.add(exe)
    _BUILDS.put(exe)


def _after_fork_in_child() -> None:
    """A forked child has no builder thread: builds its parent had queued start again on next use."""
    _WORKER.clear()
    for exe in list(QUEUED):
        exe._native_state = "cold"
        exe._native_done = threading.Event()
        exe._calls_to_hot = 1
    QUEUED.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def wait_native_builds(timeout: float | None = None) -> bool:
    """Wait until every queued background build has finished (benchmarks call it after warm-up).

    Returns False when `timeout` seconds passed first."""
    deadline = None if timeout is None else time.monotonic() + timeout
    for exe in list(QUEUED):
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        if not exe._native_done.wait(left):
            return False
    return True
