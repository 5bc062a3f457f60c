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

__all__ = ["evaluate_shard", "worker_cache_info", "clear_worker_cache", "MAX_EXECUTABLES"]

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


def evaluate_shard(graph_fingerprint: str, text: str, params: Sequence[np.ndarray],
                   *data: np.ndarray) -> tuple[list[np.ndarray], float]:
    """Run the training graph `[params..., data...] -> [loss, grads...]` on one shard.

    Returns the graph's outputs and the seconds spent computing them (compile excluded), so the
    client can split a step's wall time into compute and communication.
    """
    exe = _executable(graph_fingerprint, text)
    start = time.perf_counter()
    # Non-finite values are reported by the client's guards, with the step and parameter named.
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        outs = exe(*params, *data)
    return outs, time.perf_counter() - start


def worker_cache_info() -> dict:
    """This process's cache counters: `compiles` (graphs parsed and compiled), `hits`, `size`."""
    with _LOCK:
        return {**_STATS, "size": len(_EXECUTABLES)}


def clear_worker_cache() -> None:
    """Forget every cached executable and reset the counters (tests and benchmarks)."""
    with _LOCK:
        _EXECUTABLES.clear()
        _STATS.update(compiles=0, hits=0)
