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
from ..ir.types import Dim, TensorType, evaluate_shape
from ..backends.numpy import NUMPY, blas_macs_at, symbol_sources
from . import blas, tiers


SYMBOLIC_NATIVE = {"on": True}
"""Whether executables with symbolic sizes build a native tier (kernels taking the sizes per call); off
only to measure what it brings."""

MAX_SIZES_KEPT = 8
"""A symbolic executable keeps the buffers of this many recent bindings of its symbols (sizes)."""


def _evict_oldest(table: dict, keep: int) -> None:
    """Drop the oldest entries of `table` beyond `keep`; concurrent calls may evict at once, and an entry
    another call removed first is simply gone (a call holding its pool keeps using it)."""
    while len(table) > keep:
        try:
            table.pop(next(iter(table)), None)
        except (RuntimeError, StopIteration):   # the dict changed while another thread evicted
            return



def input_array(graph_name: str, i: int, a, t):
    """Input `i` of `@graph_name` as a numpy array: Python and numpy scalars take the input's dtype;
    anything else is refused (shared by the concrete and symbolic checks, and by row-parallel
    executables, which borrow `Executable._check`)."""
    if isinstance(a, np.ndarray):
        return a
    if isinstance(a, (bool, int, float, np.generic)):
        return np.asarray(a, dtype=t.dtype)
    raise InputError(f"input {i} of @{graph_name}: expected a numpy array of type {t}, got {type(a).__name__}",
                     i, t, type(a).__name__)

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
        # Symbolic input sizes (frame.ir.types.Dim): read from the inputs at every call, checked for
        # agreement, and the arena of buffers kept per binding of the symbols.
        self._symbols = symbol_sources(plan.graph) if any(t.is_symbolic for t in self.input_types) else None
        if self._symbols is not None:
            self._symbol_names = tuple(sorted(self._symbols))
            self._arenas_by_size: dict[str, dict[tuple, list]] = {}   # tier name -> sizes -> arenas
            self._blas_by_size: dict[tuple, str | None] = {}   # the BLAS thread policy of each binding
            # The per-call check's tables: each input's dtype and shape, a symbol alone standing as its name.
            self._symbol_items = tuple(self._symbols.items())
            self._templates = [(np.dtype(t.dtype), tuple(d.symbols[0] if type(d) is Dim and d == Dim.symbol(d.symbols[0])
                                                        else d for d in t.shape)) for t in self.input_types]

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
            if self._symbols is not None and not SYMBOLIC_NATIVE["on"]:
                # Kept on the numpy tier (to measure what the native kernels bring to symbolic graphs).
                self._native_state = "off: symbolic shapes run on the numpy tier"
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
            a = input_array(self.graph.name, i, a, t)
            if a.shape != t.shape or a.dtype.name != t.dtype:
                actual = f"{a.dtype.name}{list(a.shape)}"
                raise InputError(f"input {i} of @{self.graph.name}: expected {t.dtype}{list(t.shape)}, got {actual}",
                                 i, t, actual)
            if not a.dtype.isnative:  # byte-swapped data: native kernels read raw memory in machine order
                a = a.astype(a.dtype.newbyteorder("="))
            arrays.append(a)
        return arrays

    def sizes(self, args) -> dict[str, int]:
        """The value of each symbol for a call with `args` (checked like a call's inputs)."""
        return dict(zip(self._symbol_names, self._check_symbolic(args)[1])) if self._symbols is not None else {}

    def _check_symbolic(self, args):
        """The inputs of a call of a symbolic graph and the symbols' sizes (a tuple in name order): each
        symbol read where it is the whole size of an input axis, then every input's shape checked
        against the types with those sizes (two inputs disagreeing on `n` are named)."""
        fast = self._fast_sizes(args)
        if fast is not None:
            return args, fast
        return self._check_symbolic_slowly(args)

    def _fast_sizes(self, args):
        """The sizes of a call whose inputs are native-order arrays matching the types exactly, else None
        (the checks that name what is wrong run then). ~10x faster than the general check."""
        if len(args) != self._n:
            return None
        try:
            env = {s: args[i].shape[axis] for s, (i, axis) in self._symbol_items}
        except (AttributeError, IndexError):
            return None
        for size in env.values():
            if size < 1:
                return None
        for a, (dtype, template) in zip(args, self._templates):
            if type(a) is not np.ndarray or a.dtype != dtype or not a.dtype.isnative or a.ndim != len(template):
                return None
            for d, t in zip(a.shape, template):
                if d != (t if type(t) is int else env[t] if type(t) is str else t.evaluate(env)):
                    return None
        return tuple(env[s] for s in self._symbol_names)

    def _check_symbolic_slowly(self, args):
        if len(args) != self._n:
            raise InputError(f"@{self.graph.name} takes {self._n} input(s), got {len(args)}",
                             expected=self._n, actual=len(args))
        arrays = []
        for i, (a, t) in enumerate(zip(args, self.input_types)):
            a = input_array(self.graph.name, i, a, t)
            if a.dtype.name != t.dtype or a.ndim != t.rank:
                actual = f"{a.dtype.name}{list(a.shape)}"
                raise InputError(f"input {i} of @{self.graph.name}: expected {t}, got {actual}", i, t, actual)
            if not a.dtype.isnative:
                a = a.astype(a.dtype.newbyteorder("="))
            arrays.append(a)
        env = {}
        for symbol, (i, axis) in self._symbols.items():
            size = arrays[i].shape[axis]
            if size < 1:
                raise InputError(f"input {i} of @{self.graph.name}: axis {axis} has the symbolic size {symbol}, which "
                                 f"must be at least 1, got {size}", i, self.input_types[i], arrays[i].shape)
            env[symbol] = size
        for i, (a, t) in enumerate(zip(arrays, self.input_types)):
            want = evaluate_shape(t.shape, env)
            if a.shape != want:
                axis = next(k for k, (x, y) in enumerate(zip(a.shape, want)) if x != y)
                d = t.shape[axis]
                if type(d) is Dim:
                    src, src_axis = self._symbols[d.symbols[0]] if len(d.symbols) == 1 else (None, None)
                    where = (f" (input {src} has {d.symbols[0]} = {env[d.symbols[0]]} at axis {src_axis})"
                             if src is not None else "")
                    message = (f"input {i} of @{self.graph.name}: axis {axis} has size {a.shape[axis]}, but it is the "
                               f"symbolic size {d} = {want[axis]} in this call{where}; inputs sharing a symbol must "
                               f"agree on its size")
                else:
                    message = f"input {i} of @{self.graph.name}: expected {t}, got {a.dtype.name}{list(a.shape)}"
                raise InputError(message, i, t, a.shape)
        return arrays, tuple(env[s] for s in self._symbol_names)

    def _call_symbolic(self, args) -> list[np.ndarray]:
        arrays, key = self._check_symbolic(args)
        countdown = self._calls_to_hot
        if countdown > 0:   # hot as a concrete executable gets (see __call__)
            self._calls_to_hot = countdown - 1
            if countdown == 1:
                self._start_native(tiers.POLICY["mode"])
        policy = self._blas_by_size.get(key, ())
        if policy == ():
            policy = self._blas_by_size[key] = blas.policy(blas_macs_at(self._tier.plan,
                                                                        dict(zip(self._symbol_names, key))))
            _evict_oldest(self._blas_by_size, 4 * MAX_SIZES_KEPT)
        if policy == "single":
            blas.BLAS.single()
        elif policy == "default":
            blas.BLAS.default()
        tier = self._tier   # read once: a switch between calls never mixes two tiers' arenas
        pools = self._arenas_by_size.get(tier.name)
        if pools is None:
            pools = self._arenas_by_size.setdefault(tier.name, {})
        pool = pools.get(key)
        if pool is None:
            pool = pools.setdefault(key, [])
            _evict_oldest(pools, MAX_SIZES_KEPT)   # the oldest binding's buffers go first
        try:
            arena = pool.pop()
        except IndexError:
            # Buffers of symbolic size are made for this binding; a plan whose buffers are all concrete
            # (the symbolic values are fresh results or views) makes them as for any call.
            arena = (tier.new_arena(dict(zip(self._symbol_names, key))) if getattr(tier, "symbolic", False)
                     else tier.new_arena())
        try:
            outs = tier.run(*arrays, arena)
        finally:
            pool.append(arena)
        return [o if isinstance(o, np.ndarray) and o.flags.writeable else np.array(o) for o in outs]

    def __call__(self, *args) -> list[np.ndarray]:
        if self._symbols is not None:
            return self._call_symbolic(args)
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
        if self._symbols is not None:
            self._arenas_by_size.clear()

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
