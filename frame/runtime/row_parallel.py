"""Row-parallel executables: a graph with independent rows run on chunks of rows, in threads.

`compile` hands a graph here first. When `frame.compiler.rows.partition_rows` splits it (a PINN or
regression step: every value runs over the data's rows or reduces them by a sum) and the rows are
many enough, the executable runs the chunk graph on chunks of rows:

- **threads**: the calling thread and a shared pool of `threads - 1` workers each take a contiguous
  run of chunks. numpy's ufuncs and BLAS and the native tier's C kernels release the GIL, so the
  whole step uses every core, not only BLAS (whose threads frame keeps at one for plans of small
  matmuls, where they would spin against each other).
- **tiles**: a chunk has at most `tile` rows (default 1024), so a thread's working set stays in
  the L2 cache when N is large (at N=4096 the whole step's activations are 1 MiB each).

The chunks' partial sums are added in chunk order and the combine graph finishes the step (the
loss value, the optimiser update). Results differ from a whole-graph run only by where the sums
over rows are split, and are the same bits for the same (threads, tile) policy: set
`FRAME_ROW_THREADS` to get the same bits on machines with different core counts. `threads` defaults
to the usable cores (at most 8); `FRAME_ROW_THREADS=1` with `FRAME_ROW_TILE=0` turns row partitions
off.
"""
from __future__ import annotations

import math
import os
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ..compiler.rows import RowPartition
from .executable import Executable
from .spin_workers import spin_workers

MAX_THREADS = 8
DEFAULT_TILE = 1024
# A chunk's row-wise values must hold at least this many elements (all values summed) for a chunk
# to pay for the split: the partial sums, the combine graph and the hand-off to a spin worker cost
# ~0.2 ms a step. Measured on the reference PINN (1-64-64-64-1): N = 256 in two chunks 0.80-0.81 ms
# against 0.86 ms whole; N = 128 0.59 ms against 0.40 ms whole (so it stays whole).
MIN_CHUNK_ELEMENTS = 1 << 19


@dataclass(frozen=True)
class RowPolicy:
    """threads: chunks run at once (1: in the calling thread only); tile: most rows in a chunk (0: no
    limit, so `threads` chunks)."""
    threads: int = 1
    tile: int = DEFAULT_TILE

    def __post_init__(self):
        for name in ("threads", "tile"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < (1 if name == "threads" else 0):
                raise ValueError(f"row policy: {name} must be an int >= {1 if name == 'threads' else 0}, got {value!r}")

    @property
    def off(self) -> bool:
        return self.threads == 1 and self.tile == 0

    def chunks(self, rows: int) -> int:
        """How many chunks `rows` rows make: enough for `tile`, a multiple of `threads`."""
        per_thread = math.ceil(rows / self.threads / self.tile) if self.tile else 1
        return max(1, min(rows, self.threads * per_thread))


def _env_int(name: str, default: int, minimum: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        number = int(value)
        if number >= minimum:
            return number
    except ValueError:
        pass
    warnings.warn(f"{name}={value!r} is not an integer >= {minimum}: using {default}", RuntimeWarning, stacklevel=3)
    return default


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:   # not on Linux
        return os.cpu_count() or 1


def policy_from_environment() -> RowPolicy:
    """FRAME_ROW_THREADS (default: the usable cores, at most 8) and FRAME_ROW_TILE (default 1024)."""
    return RowPolicy(_env_int("FRAME_ROW_THREADS", max(1, min(usable_cores(), MAX_THREADS)), 1),
                     _env_int("FRAME_ROW_TILE", DEFAULT_TILE, 0))


POLICY = {"rows": policy_from_environment()}


def set_row_policy(threads: int | None = None, tile: int | None = None) -> RowPolicy:
    """Set the row policy of executables compiled from now on; returns the previous one. Arguments
    left None keep their current value; `set_row_policy(1, 0)` turns row partitions off and
    `reset_row_policy()` restores the environment's."""
    previous = POLICY["rows"]
    POLICY["rows"] = RowPolicy(previous.threads if threads is None else threads,
                               previous.tile if tile is None else tile)
    return previous


def reset_row_policy() -> RowPolicy:
    previous = POLICY["rows"]
    POLICY["rows"] = policy_from_environment()
    return previous


_POOL: dict = {}
_POOL_LOCK = threading.Lock()


def _pool(workers: int) -> ThreadPoolExecutor | None:
    if workers < 1:
        return None
    with _POOL_LOCK:
        pool = _POOL.get(workers)
        if pool is None:
            pool = _POOL[workers] = ThreadPoolExecutor(workers, thread_name_prefix="frame-rows")
        return pool


def _forget_pools():   # a forked child has none of its parent's pool threads
    _POOL.clear()


os.register_at_fork(after_in_child=_forget_pools)


_CALLS = [0]   # calls of row-parallel executables running now, in all threads
_CALLS_LOCK = threading.Lock()


def chunk_sizes(rows: int, parts: int) -> list[int]:
    """np.array_split's sizes: the first `rows % parts` chunks one row longer."""
    base, extra = divmod(rows, parts)
    return [base + (1 if k < extra else 0) for k in range(parts)]


class RowParallelExecutable:
    """An executable made of a chunk executable run on chunks of rows (in threads) and a combine
    executable; called like `Executable` (numpy arrays in, a list of arrays out)."""

    def __init__(self, partition: RowPartition, compile_fn, options, policy: RowPolicy, parts: int, source_graph,
                 graph):
        self.partition = partition
        self.policy = policy
        self.parts = parts
        self.threads = min(policy.threads, parts)
        self.source_graph = source_graph       # the graph handed to compile
        self.graph = graph                     # the whole graph the partition split
        self.options = options
        self.input_types = [v.type for v in source_graph.inputs]
        self._n = len(self.input_types)
        self._expected = [(t.shape, np.dtype(t.dtype)) for t in self.input_types]
        self.sizes = chunk_sizes(partition.rows, self.parts)
        self.offsets = [sum(self.sizes[:k]) for k in range(self.parts)]
        self.chunks = [compile_fn(partition.chunk_graph(n)) for n in self.sizes]
        self.combine = compile_fn(partition.combine)
        self._free_inputs = [i for i in range(self._n) if i not in partition.row_inputs]
        self._row_inputs = set(partition.row_inputs)
        self._constants = [[np.ascontiguousarray(_take(np.asarray(const.attrs["value"]), axis, o, n))
                            for const, axis in partition.sliced_constants]
                           for o, n in zip(self.offsets, self.sizes)]
        self._pool = _pool(self.threads - 1)
        starts = [0]
        for size in chunk_sizes(parts, self.threads):   # each thread a contiguous run of chunks
            starts.append(starts[-1] + size)
        self._runs = [range(a, b) for a, b in zip(starts, starts[1:])]

    _check = Executable._check

    def _chunk_args(self, arrays, k: int) -> list:
        o, n = self.offsets[k], self.sizes[k]
        return [a[o:o + n] if i in self._row_inputs else a for i, a in enumerate(arrays)] + self._constants[k]

    def _run_all(self, arrays) -> list:
        """Every chunk's results in chunk order. A call alone spreads its chunks (`_run_spread`); a
        call made while another call of a row-parallel executable runs keeps them in its own thread:
        the cores are busy with the other call's chunks, so more threads only add hand-offs and
        spinning (one caller a core)."""
        with _CALLS_LOCK:
            _CALLS[0] += 1
            alone = _CALLS[0] == 1
        try:
            return self._run_spread(arrays) if alone else self._run_here(arrays)
        finally:
            with _CALLS_LOCK:
                _CALLS[0] -= 1

    def _run_spread(self, arrays) -> list:
        """The calling thread runs the first run of chunks, the spin workers
        (frame/runtime/spin_workers.py) or else the pool the others; if a racing call took the
        spin workers first, this one runs all its chunks itself."""
        workers = spin_workers(self.threads - 1) if self.threads > 1 else None
        claimed = []
        if workers is not None:
            for w in workers:   # all or none: another caller may be using them
                if not w.lock.acquire(blocking=False):
                    break
                claimed.append(w)
            if len(claimed) < len(workers):
                for w in claimed:
                    w.lock.release()
                return self._run_here(arrays)
        if not claimed:
            futures = [self._pool.submit(self._run, arrays, run) for run in self._runs[1:]]
            results = self._run(arrays, self._runs[0])
            for f in futures:
                results += f.result()
            return results
        pending = []
        try:
            for w, run in zip(claimed, self._runs[1:]):
                w.submit(self._run, arrays, run)
                pending.append(w)
            results = self._run(arrays, self._runs[0])
            while pending:
                results += pending.pop(0).result()
            return results
        finally:
            for w in pending:   # the calling thread failed: let the workers finish before releasing them
                try:
                    w.result()
                except BaseException:   # noqa: BLE001  (the caller's own error is the one raised)
                    pass
            for w in claimed:
                w.lock.release()

    def __call__(self, *args) -> list[np.ndarray]:
        arrays = self._check(args)
        results = self._run_all(arrays)
        part = self.partition
        sums = {}
        for i in set(part.combine_sums) | {o[1] for o in part.outputs if o[0] == "sum"}:
            total = results[0][i]
            for r in results[1:]:
                total = total + r[i]       # chunk order: the same bits for the same policy
            sums[i] = total
        combined = self.combine(*[arrays[i] for i in self._free_inputs], *[sums[i] for i in part.combine_sums]) \
            if part.combine.outputs else []
        outs = []
        for o in part.outputs:
            if o[0] == "row":
                outs.append(np.concatenate([r[o[1]] for r in results], axis=o[2]))
            elif o[0] == "sum":
                outs.append(np.array(sums[o[1]]))
            else:
                outs.append(combined[o[1]])
        return outs

    def _run(self, arrays, run) -> list:
        return [self.chunks[k](*self._chunk_args(arrays, k)) for k in run]

    def _run_here(self, arrays) -> list:
        """Every chunk in the calling thread, in chunk order."""
        return self._run(arrays, range(self.parts))

    # -- what Executable offers besides calls --------------------------------------------------------
    def _executables(self) -> list:
        return [*dict.fromkeys(self.chunks), self.combine]

    @property
    def tier(self) -> str:
        """"native" once every part runs its native tier, else "numpy"."""
        return "native" if all(e.tier == "native" for e in self._executables()) else "numpy"

    @property
    def native_status(self) -> str:
        return ", ".join(dict.fromkeys(e.native_status for e in self._executables()))

    @property
    def plan(self):
        """The first chunk's execution plan (each chunk runs one like it)."""
        return self.chunks[0].plan

    @property
    def source(self) -> str:
        return self.chunks[0].source

    @property
    def active_source(self) -> str:
        return self.chunks[0].active_source

    def wait_native(self, timeout: float | None = None) -> bool:
        return all([e.wait_native(timeout) for e in self._executables()])

    def release_buffers(self) -> None:
        for e in self._executables():
            e.release_buffers()

    def report(self) -> str:
        head = (f"row-parallel: {self.parts} chunks of {', '.join(map(str, dict.fromkeys(self.sizes)))} rows "
                f"(of {self.partition.rows}) on {self.threads} thread(s), then a combine graph of "
                f"{len(self.combine.graph.nodes)} nodes")
        return head + "\n-- chunk --\n" + self.chunks[0].report() + "\n-- combine --\n" + self.combine.report()

    def __repr__(self):
        return (f"<RowParallelExecutable @{self.graph.name}: {self.parts} chunks of {self.sizes[0]} rows, "
                f"{self.tier} tier>")


def _take(value: np.ndarray, axis: int, start: int, n: int) -> np.ndarray:
    index = [slice(None)] * value.ndim
    index[axis] = slice(start, start + n)
    return value[tuple(index)]
