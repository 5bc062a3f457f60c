"""`collector_paused`: the cyclic garbage collector is off while a graph is derived or compiled.

Graphs are cyclic (a node lists its outputs, each output names its node and graph), so every
pass allocates objects the collector tracks, and each of its full collections walks all of
them. On deep graphs that made compiling super-linear: a 20,000-node chain spent about half of
its pipeline time in the collector (benchmarks/graph_scaling.py), none with it paused. What the
passes leave behind is collected by the first collection after the pause.
"""
from __future__ import annotations

import contextlib
import gc


@contextlib.contextmanager
def collector_paused():
    """Disable `gc` for the block (also a decorator); re-enabled after it only if it was on before,
    so nested and concurrent uses leave it as they found it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
