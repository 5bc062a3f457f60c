"""`compile(graph) -> Executable`, cached by the graph's structural fingerprint plus the options."""
from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict, namedtuple

from ..backends.numpy import NUMPY
from ..compiler.pipeline import STAGE_NAMES, PipelineOptions, lower, run_pipeline
from ..compiler.rows import partition_rows
from ..ir.graph import Graph
from ..ir.printer import fingerprint
from .executable import Executable
from . import row_parallel

CacheInfo = namedtuple("CacheInfo", ["hits", "misses", "size"])

_CACHE: "OrderedDict[tuple, Executable]" = OrderedDict()
_STATS = {"hits": 0, "misses": 0}
MAX_CACHE_ENTRIES = 512
# Guards _CACHE and _STATS: executables are compiled from several threads (frame.function callers).
# Lowering runs outside the lock; two threads that miss on one graph may both lower it, and the
# first to finish wins, so every caller of a fingerprint gets the same executable.
_LOCK = threading.Lock()


def compile(graph: Graph, options: PipelineOptions | None = None, row_parts: int | None = None) -> Executable:  # noqa: A001
    """Run the nine-stage pipeline on `graph` and return its `Executable`.

    A graph whose rows are independent runs on chunks of rows in threads (frame/runtime/row_parallel.py):
    `row_parts` chunks, default `row_parallel.POLICY["parts"]` (1: never).
    Equal graphs (same ops, attrs, constants, types and wiring) with equal options share one
    executable: the second compile is a cache hit (see `cache_info`).
    """
    options = options or PipelineOptions()
    parts = row_parallel.POLICY["parts"] if row_parts is None else row_parts
    key = (fingerprint(graph), options, parts)
    with _LOCK:
        exe = _CACHE.get(key)
        if exe is not None:
            _STATS["hits"] += 1
            _CACHE.move_to_end(key)
            return exe
        _STATS["misses"] += 1
    built = (_row_parallel(graph, options, parts) if parts > 1 else None) or \
        Executable(lower(graph, options, NUMPY), source_graph=graph, options=options)
    with _LOCK:
        exe = _CACHE.setdefault(key, built)
        _CACHE.move_to_end(key)
        if len(_CACHE) > MAX_CACHE_ENTRIES:
            _CACHE.popitem(last=False)
    return exe


def _row_parallel(graph: Graph, options: PipelineOptions, parts: int):
    """A row-parallel executable of `graph` when it partitions and is big enough, else None. The
    partition reads the graph after the stages before `fuse` (composites expanded, the graph
    simplified); only the full pipeline is partitioned (not a restricted or dumping one)."""
    if options.stages is not None or options.dump_ir or not _may_partition(graph, parts):
        return None
    early = run_pipeline(graph, dataclasses.replace(options, stages=tuple(s for s in STAGE_NAMES
                                                                          if s not in ("fuse", "plan"))))
    partition = partition_rows(early, min_row_elements=row_parallel.MIN_CHUNK_ELEMENTS * parts)
    if partition is None:
        return None
    return row_parallel.RowParallelExecutable(partition, lambda g: compile(g, options, row_parts=1), options, parts,
                                              source_graph=graph, graph=early)


def _may_partition(graph: Graph, parts: int) -> bool:
    """A cheap bound first: the values with the inputs' largest leading size hold enough elements."""
    leading = [v.type.shape[0] for v in graph.inputs if v.type.rank >= 1]
    if not leading:
        return False
    rows = max(leading)
    total = sum(v.type.size for node in graph.nodes for v in node.outputs
                if v.type.rank >= 1 and rows in v.type.shape)
    return rows >= 2 * parts and total >= row_parallel.MIN_CHUNK_ELEMENTS * parts


def cache_info() -> CacheInfo:
    with _LOCK:
        return CacheInfo(_STATS["hits"], _STATS["misses"], len(_CACHE))


def clear_cache() -> None:
    with _LOCK:
        _CACHE.clear()
        _STATS["hits"] = _STATS["misses"] = 0
