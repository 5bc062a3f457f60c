"""`compile(graph) -> Executable`, cached by the graph's structural fingerprint plus the options."""
from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict, namedtuple

from ..backends.numpy import NUMPY
from ..compiler.pipeline import STAGE_NAMES, PipelineOptions, lower, run_pipeline
from ..compiler.rows import partition_rows, row_counts
from ..ir.graph import Graph, is_symbolic_graph
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


def compile(graph: Graph, options: PipelineOptions | None = None, rows: "row_parallel.RowPolicy | None" = None) -> Executable:  # noqa: A001
    """Run the nine-stage pipeline on `graph` and return its `Executable`.

    A graph whose rows are independent runs on chunks of rows, in threads (frame/runtime/row_parallel.py),
    by the `rows` policy (default `row_parallel.POLICY["rows"]`).
    Equal graphs (same ops, attrs, constants, types and wiring) with equal options share one
    executable: the second compile is a cache hit (see `cache_info`).
    """
    options = options or PipelineOptions()
    policy = row_parallel.POLICY["rows"] if rows is None else rows
    key = (fingerprint(graph), options, policy)
    with _LOCK:
        exe = _CACHE.get(key)
        if exe is not None:
            _STATS["hits"] += 1
            _CACHE.move_to_end(key)
            return exe
        _STATS["misses"] += 1
    built = (None if policy.off else _row_parallel(graph, options, policy)) or \
        Executable(lower(graph, options, NUMPY), source_graph=graph, options=options)
    with _LOCK:
        exe = _CACHE.setdefault(key, built)
        _CACHE.move_to_end(key)
        if len(_CACHE) > MAX_CACHE_ENTRIES:
            _CACHE.popitem(last=False)
    return exe


def _row_parallel(graph: Graph, options: PipelineOptions, policy):
    """A row-parallel executable of `graph` when it partitions and is big enough, else None. The
    partition reads the graph after the stages before `fuse` (composites expanded, the graph
    simplified); only the full pipeline is partitioned (not a restricted or dumping one)."""
    if options.stages is not None or options.dump_ir:
        return None
    if is_symbolic_graph(graph):
        # Chunks of rows are cut by sizes known when compiling; a symbolic row count is known per call
        # only, so such a graph runs whole (one executable serves every size).
        return None
    parts = _parts(graph, policy)
    if parts < 2:
        return None
    early = run_pipeline(graph, dataclasses.replace(options, stages=tuple(s for s in STAGE_NAMES
                                                                          if s not in ("fuse", "plan"))))
    partition = partition_rows(early, min_row_elements=row_parallel.MIN_CHUNK_ELEMENTS * 2)
    if partition is None:
        return None
    parts = min(policy.chunks(partition.rows), partition.row_elements // max(row_parallel.MIN_CHUNK_ELEMENTS, 1))
    if parts < 2:
        return None
    whole = row_parallel.RowPolicy(1, 0)
    return row_parallel.RowParallelExecutable(partition, lambda g: compile(g, options, rows=whole), options, policy,
                                              parts, source_graph=graph, graph=early)


def _parts(graph: Graph, policy) -> int:
    """The most chunks the policy could make of `graph`'s rows (over its candidate row counts), fewer
    when the values with that many rows hold too few elements for each chunk to pay for its call; a
    cheap bound taken before the partition is analysed."""
    best = 1
    for rows in row_counts(graph):
        total = sum(v.type.size for node in graph.nodes for v in node.outputs
                    if v.type.rank >= 1 and rows in v.type.shape)
        best = max(best, min(policy.chunks(rows), total // max(row_parallel.MIN_CHUNK_ELEMENTS, 1)))
    return best


def cache_info() -> CacheInfo:
    with _LOCK:
        return CacheInfo(_STATS["hits"], _STATS["misses"], len(_CACHE))


def clear_cache() -> None:
    with _LOCK:
        _CACHE.clear()
        _STATS["hits"] = _STATS["misses"] = 0
