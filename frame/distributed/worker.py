"""The worker side of data-parallel training: a cache of compiled training graphs, and one shard's evaluation.

A Dask worker runs `evaluate_shard` (imported by reference: Dask pickles the function as
`frame.distributed.worker.evaluate_shard`, never a closure or the user's loss function). The training
graph arrives as its text form (`frame.ir.print_graph`), which `parse_graph` reads back without
running any code from the sender; the worker checks that the parsed graph has the fingerprint the
client named, compiles it once, and keeps the executable in `_EXECUTABLES` keyed by that fingerprint
for the life of the worker process. Later steps of the same shard signature are cache hits.

Nothing here imports Dask: the module runs in the worker process like any other frame module.
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Sequence

import numpy as np

from ..errors import FrameError
from ..ir.parser import parse_graph
from ..ir.printer import fingerprint
from ..runtime.compile import compile as compile_graph
from ..runtime.executable import Executable

__all__ = ["evaluate_shard", "pack", "unpack", "worker_cache_info", "clear_worker_cache", "wait_native", "MAX_EXECUTABLES"]

# Bounded so that a long-lived worker serving many jobs does not grow without limit; a shard
# signature evicted here is parsed and compiled again (the runtime's own cache may still hit).
MAX_EXECUTABLES = 64
_EXECUTABLES: "OrderedDict[str, Executable]" = OrderedDict()
_STATS = {"compiles": 0, "hits": 0}
_LOCK = threading.Lock()


def _executable(graph_fingerprint: str, text: str) -> Executable:
    with _LOCK:
        exe = _EXECUTABLES.get(graph_fingerprint)
        if exe is not None:
            _STATS["hits"] += 1
            _EXECUTABLES.move_to_end(graph_fingerprint)
            return exe
    graph = parse_graph(text)
    got = fingerprint(graph)
    if got != graph_fingerprint:
        # The text did not survive the trip (or an op does not round-trip its attrs): running it
        # would train a different model than the client traced.
        raise FrameError(f"frame.distributed worker: the training graph text parses to fingerprint {got[:16]}..., "
                         f"not the {graph_fingerprint[:16]}... the client sent; refusing to run it")
    exe = compile_graph(graph)
    with _LOCK:
        _STATS["compiles"] += 1
        _EXECUTABLES[graph_fingerprint] = exe
        if len(_EXECUTABLES) > MAX_EXECUTABLES:
            _EXECUTABLES.popitem(last=False)
    return exe


def pack(arrays: Sequence[np.ndarray]) -> tuple[list[np.ndarray], tuple]:
    """Arrays as one flat array per dtype plus the layout `unpack` needs.

    Dask sends a few large buffers much faster than many small ones (measured here: 2.1 MB of FNO
    parameters as 20 arrays took about twice as long per round trip as the same bytes in one array).
    """
    arrays = [np.asarray(a) for a in arrays]
    dtypes = sorted({a.dtype.str for a in arrays})
    offsets = {d: 0 for d in dtypes}
    layout = []
    for a in arrays:
        d = a.dtype.str
        layout.append((dtypes.index(d), offsets[d], a.shape))
        offsets[d] += a.size
    flats = [np.concatenate([a.reshape(-1) for a in arrays if a.dtype.str == d]) for d in dtypes]
    return flats, tuple(layout)


def unpack(flats: Sequence[np.ndarray], layout: tuple) -> list[np.ndarray]:
    """The arrays `pack` flattened (views into `flats`)."""
    out = []
    for index, offset, shape in layout:
        size = int(np.prod(shape, dtype=np.int64))
        out.append(flats[index][offset:offset + size].reshape(shape))
    return out


def evaluate_shard(graph_fingerprint: str, text: str, params: Sequence[np.ndarray], layout: tuple,
                   *data: np.ndarray) -> tuple[list[np.ndarray], tuple, float]:
    """Run the training graph `[params..., data...] -> [loss, grads...]` on one shard.

    `params` and `layout` are the parameters as `pack` made them. Returns the graph's outputs
    packed the same way (`flats, layout`) and the seconds spent computing them (compile excluded),
    so the client can split a step's wall time into compute and communication.
    """
    exe = _executable(graph_fingerprint, text)
    arrays = unpack(params, layout)
    start = time.perf_counter()
    # Non-finite values are reported by the client's guards, with the step and parameter named.
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        outs = exe(*arrays, *data)
    seconds = time.perf_counter() - start
    flats, out_layout = pack(outs)
    return flats, out_layout, seconds


def worker_cache_info() -> dict:
    """This process's cache: `compiles` (graphs parsed and compiled), `hits`, `size`, and `tiers`
    (the tier each cached executable runs on, "numpy" or "native")."""
    with _LOCK:
        return {**_STATS, "size": len(_EXECUTABLES), "tiers": [exe.tier for exe in _EXECUTABLES.values()]}


def wait_native(timeout: float | None = None) -> list[str]:
    """Build the native tier of every cached executable now and wait for it (warm-up before timing,
    as a single process's `Executable.wait_native`); returns their tiers. Run it on every worker
    with `client.run(wait_native, 600)`."""
    with _LOCK:
        exes = list(_EXECUTABLES.values())
    for exe in exes:
        exe.wait_native(timeout)
    return [exe.tier for exe in exes]


def clear_worker_cache() -> None:
    """Forget every cached executable and reset the counters (tests and benchmarks)."""
    with _LOCK:
        _EXECUTABLES.clear()
        _STATS.update(compiles=0, hits=0)
