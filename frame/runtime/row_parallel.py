"""Row-parallel executables: a graph with independent rows run on chunks of rows in threads.

`compile` hands a graph here first. When `frame.compiler.rows.partition_rows` splits it (a PINN or
regression step: every value runs over the data's rows or reduces them by a sum) and the rows are
many enough, the executable runs the chunk graph on `parts` chunks of rows at once: the calling
thread takes the first chunk, a shared pool of `parts - 1` worker threads the others. numpy's
ufuncs and BLAS and the native tier's C kernels release the GIL, so the chunks use every core for
the whole step, not only inside BLAS (whose threads frame keeps at one for plans of small matmuls,
where they would spin against each other). The chunks' partial sums are added in chunk order and
the combine graph finishes the step (the loss value, the optimiser update).

`parts` is the number of usable cores, at most 8; `FRAME_ROW_PARTS=1` turns this off, another
value fixes it. Results differ from a whole-graph run only by where the sums over rows are split,
and are reproducible for a fixed `parts` (set FRAME_ROW_PARTS to get the same bits on machines with
different core counts).
"""
from __future__ import annotations

import os
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..compiler.rows import RowPartition
from .executable import Executable

MAX_PARTS = 8
# A chunk's row-wise values must hold at least this many elements (all values summed) for threads
# to pay off: a hand-off to a pool thread costs tens of microseconds (see benchmarks/README.md).
MIN_CHUNK_ELEMENTS = 1 << 20


def parts_from_environment() -> int:
    """How many chunks a row-parallel executable uses: FRAME_ROW_PARTS, else the usable cores (<= 8)."""
    value = os.environ.get("FRAME_ROW_PARTS", "").strip()
    if value:
        try:
            parts = int(value)
            if parts >= 1:
                return parts
        except ValueError:
            pass
        warnings.warn(f"FRAME_ROW_PARTS={value!r} is not a positive integer: using the core count", RuntimeWarning,
                      stacklevel=2)
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:   # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_PARTS))


POLICY = {"parts": parts_from_environment()}


def set_row_parts(parts: int | None) -> int:
    """Set how many chunks row-parallel executables compiled from now on use (1: none); returns the
    previous value. None restores the default (FRAME_ROW_PARTS, else the core count)."""
    previous = POLICY["parts"]
    if parts is None:
        parts = parts_from_environment()
    if not isinstance(parts, int) or isinstance(parts, bool) or parts < 1:
        raise ValueError(f"row parts must be a positive int, got {parts!r}")
    POLICY["parts"] = parts
    return previous


_POOL: dict = {}
_POOL_LOCK = threading.Lock()


def _pool(workers: int) -> ThreadPoolExecutor:
    with _POOL_LOCK:
        pool = _POOL.get(workers)
        if pool is None:
            pool = _POOL[workers] = ThreadPoolExecutor(workers, thread_name_prefix="frame-rows")
        return pool


def _forget_pools():   # a forked child has none of its parent's pool threads
    _POOL.clear()


os.register_at_fork(after_in_child=_forget_pools)


def chunk_sizes(rows: int, parts: int) -> list[int]:
    """np.array_split's sizes: the first `rows % parts` chunks one row longer."""
    base, extra = divmod(rows, parts)
    return [base + (1 if k < extra else 0) for k in range(parts)]


class RowParallelExecutable:
    """An executable made of a chunk executable run on `parts` chunks of rows in threads and a
    combine executable; called like `Executable` (numpy arrays in, a list of arrays out)."""

    def __init__(self, partition: RowPartition, compile_fn, options, parts: int, source_graph, graph):
        self.partition = partition
        self.parts = parts
        self.source_graph = source_graph       # the graph handed to compile
        self.graph = graph                     # the whole graph the partition split
        self.options = options
        self.input_types = [v.type for v in source_graph.inputs]
        self._n = len(self.input_types)
        self._expected = [(t.shape, np.dtype(t.dtype)) for t in self.input_types]
        self.sizes = chunk_sizes(partition.rows, parts)
        self.offsets = [sum(self.sizes[:k]) for k in range(parts)]
        self.chunks = [compile_fn(partition.chunk_graph(n)) for n in self.sizes]
        self.combine = compile_fn(partition.combine)
        self._free_inputs = [i for i in range(self._n) if i not in partition.row_inputs]
        self._row_inputs = set(partition.row_inputs)
        self._constants = [[np.ascontiguousarray(_take(np.asarray(const.attrs["value"]), axis, o, n))
                            for const, axis in partition.sliced_constants]
                           for o, n in zip(self.offsets, self.sizes)]
        self._pool = _pool(parts - 1)

    _check = Executable._check

    def _chunk_args(self, arrays, k: int) -> list:
        o, n = self.offsets[k], self.sizes[k]
        return [a[o:o + n] if i in self._row_inputs else a for i, a in enumerate(arrays)] + self._constants[k]

    def __call__(self, *args) -> list[np.ndarray]:
        arrays = self._check(args)
        futures = [self._pool.submit(self.chunks[k], *self._chunk_args(arrays, k)) for k in range(1, self.parts)]
        first = self.chunks[0](*self._chunk_args(arrays, 0))
        results = [first] + [f.result() for f in futures]
        part = self.partition
        sums = {}
        for i in set(part.combine_sums) | {o[1] for o in part.outputs if o[0] == "sum"}:
            total = results[0][i]
            for r in results[1:]:
                total = total + r[i]       # chunk order: reproducible for a fixed number of parts
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
                f"(of {self.partition.rows}) in threads, then a combine graph of {len(self.combine.graph.nodes)} nodes")
        return head + "\n-- chunk --\n" + self.chunks[0].report() + "\n-- combine --\n" + self.combine.report()

    def __repr__(self):
        return (f"<RowParallelExecutable @{self.graph.name}: {self.parts} chunks of {self.sizes[0]} rows, "
                f"{self.tier} tier>")


def _take(value: np.ndarray, axis: int, start: int, n: int) -> np.ndarray:
    index = [slice(None)] * value.ndim
    index[axis] = slice(start, start + n)
    return value[tuple(index)]
