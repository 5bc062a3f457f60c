"""`compile(graph) -> Executable`, cached by the graph's structural fingerprint plus the options."""
from __future__ import annotations

import threading
from collections import OrderedDict, namedtuple

from ..backends.numpy import NUMPY
from ..compiler.pipeline import PipelineOptions, lower
from ..ir.graph import Graph
from ..ir.printer import fingerprint
from .executable import Executable

CacheInfo = namedtuple("CacheInfo", ["hits", "misses", "size"])

_CACHE: "OrderedDict[tuple, Executable]" = OrderedDict()
_STATS = {"hits": 0, "misses": 0}
MAX_CACHE_ENTRIES = 512
# Guards _CACHE and _STATS: executables are compiled from several threads (frame.function callers).
# Lowering runs outside the lock; two threads that miss on one graph may both lower it, and the
# first to finish wins, so every caller of a fingerprint gets the same executable.
_LOCK = threading.Lock()


def compile(graph: Graph, options: PipelineOptions | None = None) -> Executable:  # noqa: A001
    """Run the nine-stage pipeline on `graph` and return its `Executable`.

    Equal graphs (same ops, attrs, constants, types and wiring) with equal options share one
    executable: the second compile is a cache hit (see `cache_info`).
    """
    options = options or PipelineOptions()
    key = (fingerprint(graph), options)
    with _LOCK:
        exe = _CACHE.get(key)
        if exe is not None:
            _STATS["hits"] += 1
            _CACHE.move_to_end(key)
            return exe
        _STATS["misses"] += 1
    built = Executable(lower(graph, options, NUMPY), source_graph=graph, options=options)
    with _LOCK:
        exe = _CACHE.setdefault(key, built)
        _CACHE.move_to_end(key)
        if len(_CACHE) > MAX_CACHE_ENTRIES:
            _CACHE.popitem(last=False)
    return exe


def cache_info() -> CacheInfo:
    with _LOCK:
        return CacheInfo(_STATS["hits"], _STATS["misses"], len(_CACHE))


def clear_cache() -> None:
    with _LOCK:
        _CACHE.clear()
        _STATS["hits"] = _STATS["misses"] = 0
