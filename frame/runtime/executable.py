"""`Executable`: a compiled graph, called with numpy arrays.

It runs its plan as a backend's `Program`, its tier (frame/runtime/tiers.py): the numpy backend's
first, the native backend's once it is hot and built. Buffers live in an arena owned by the tier and
reused across calls. Each call takes an arena from a pool and gives it back, so concurrent or
re-entrant calls each get their own. Results returned to the caller never live in an arena (the
plan allocates them fresh). Plans whose matmuls are all small run BLAS on one thread
(frame/runtime/blas.py).
"""
from __future__ import annotations

import threading

import numpy as np

from ..compiler.passes.plan import ExecutionPlan
from ..errors import InputError
from ..ir.types import TensorType
from ..backends.numpy import NUMPY
from . import blas, tiers


class Executable:
    """A compiled graph. Call it with numpy arrays; it returns a list of numpy arrays.

    plan: the source graph lowered for the numpy backend; source_graph and options: what it was
    lowered from, lowered again for the native tier (without them, the optimised graph is)."""

    def __init__(self, plan: ExecutionPlan, source_graph=None, options=None):
        self.plan = plan
        self.graph = plan.graph                 # the optimised graph
        self.source_graph = source_graph        # the graph handed to compile
        self.options = options
        self.input_types: list[TensorType] = [v.type for v in plan.graph.inputs]
        self._tier = NUMPY.program(plan)
        self.source = self._tier.source         # the numpy tier's source
        self._n = len(self.input_types)
        self._expected = [(t.shape, np.dtype(t.dtype)) for t in self.input_types]
        self._blas_policy = blas.policy(self._tier.blas_macs)
        self._calls_to_hot = tiers.POLICY["after_calls"]
        self._native_state = "cold"             # cold -> queued -> building -> ready | none | failed | off
        self._native_done = threading.Event()
        self._native_lock = threading.Lock()

    # -- tiers --------------------------------------------------------------------------------------
    @property
    def tier(self) -> str:
        """The tier the next call runs on: "numpy" or "native"."""
        return self._tier.name

    @property
    def native_status(self) -> str:
        """cold (not hot yet), queued, building, ready, none (nothing to compile), failed: <why>, or off."""
        return self._native_state

    @property
    def active_source(self) -> str:
        """The generated Python source of the tier in use."""
        return self._tier.source

    def _start_native(self, mode: str) -> None:
        with self._native_lock:
            if self._native_state != "cold":
                return
            if mode == "off":
                self._native_state = "off"
                self._native_done.set()
                return
            self._native_state = "queued"
        if mode == "sync":
            tiers.build_native(self)
        else:
            tiers.submit_build(self)

    def wait_native(self, timeout: float | None = None) -> bool:
        """Start the native build now if it has not started (unless the mode is "off") and wait for it.

        Returns True when the executable runs native kernels afterwards."""
        self._start_native(tiers.POLICY["mode"])
        self._native_done.wait(timeout)
        return self._tier.name == "native"

    # -- calls ---------------------------------------------------------------------------------------
    def _check(self, args) -> "list[np.ndarray] | tuple":
        if len(args) != self._n:
            raise InputError(f"@{self.graph.name} takes {self._n} input(s), got {len(args)}",
                             expected=self._n, actual=len(args))
        expected = self._expected
        if all(type(a) is np.ndarray and a.shape == shape and a.dtype == dtype
               for a, (shape, dtype) in zip(args, expected)):
            return args  # the common case, checked without building messages
        arrays = []
        for i, (a, t) in enumerate(zip(args, self.input_types)):
            if not isinstance(a, np.ndarray):
                if isinstance(a, (bool, int, float, np.generic)):
                    a = np.asarray(a, dtype=t.dtype)
                else:
                    raise InputError(f"input {i} of @{self.graph.name}: expected a numpy array of type {t}, got "
                                     f"{type(a).__name__}", i, t, type(a).__name__)
            if a.shape != t.shape or a.dtype.name != t.dtype:
                actual = f"{a.dtype.name}{list(a.shape)}"
                raise InputError(f"input {i} of @{self.graph.name}: expected {t.dtype}{list(t.shape)}, got {actual}",
                                 i, t, actual)
            if not a.dtype.isnative:  # byte-swapped data: native kernels read raw memory in machine order
                a = a.astype(a.dtype.newbyteorder("="))
            arrays.append(a)
        return arrays

    def __call__(self, *args) -> list[np.ndarray]:
        arrays = self._check(args)
        countdown = self._calls_to_hot
        if countdown > 0:
            # Concurrent calls may lose a decrement (hot one call later) but never pass zero
            # without one of them seeing 1 and starting the build (which runs once, under its lock).
            self._calls_to_hot = countdown - 1
            if countdown == 1:
                self._start_native(tiers.POLICY["mode"])
        if self._blas_policy == "single":
            blas.BLAS.single()
        elif self._blas_policy == "default":
            blas.BLAS.default()
        tier = self._tier   # read once: a switch between calls never mixes two tiers' arenas
        arenas = tier.arenas
        try:
            arena = arenas.pop()   # list.pop/append are atomic: each concurrent call gets its own arena
        except IndexError:
            arena = tier.new_arena()
        try:
            outs = tier.run(*arrays, arena)
        finally:
            arenas.append(arena)
        # Rank-0 results of numpy ops are numpy scalars, and opaque kernels may return read-only views:
        # the caller gets arrays it owns.
        return [o if isinstance(o, np.ndarray) and o.flags.writeable else np.array(o) for o in outs]

    def release_buffers(self) -> None:
        """Drop the arenas kept between calls (the next call allocates a fresh one)."""
        self._tier.arenas.clear()

    @property
    def _arenas(self) -> list:
        return self._tier.arenas

    def report(self) -> str:
        """The plan's report (buffers kept alive between calls, with bytes, and the peak bytes of a
        call) for the tier in use, and the tier."""
        tier = self._tier
        head = f"tier: {tier.name}"
        if tier.name == "native":
            head += f" ({tier.kernels} fused nodes run as native kernels)"
        elif self._native_state != "cold":
            head += f" (native: {self._native_state})"
        return head + "\n" + tier.plan.report()

    def __repr__(self):
        plan = self._tier.plan
        return (f"<Executable @{self.graph.name}: {len(plan.instrs)} steps, {len(plan.buffers)} buffers "
                f"({plan.arena_bytes} B), peak {plan.peak_bytes} B, {self._tier.name} tier>")
