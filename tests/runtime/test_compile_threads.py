"""`frame.runtime.compile` from several threads: one executable per graph, exact hit/miss counts."""
import importlib
import threading
import time

import numpy as np

import frame
import frame.numpy as fnp
from frame.runtime.compile import cache_info, clear_cache

compile_module = importlib.import_module("frame.runtime.compile")  # the module; frame.runtime.compile is the function


def test_concurrent_compiles_of_one_graph_share_one_executable(monkeypatch):
    clear_cache()
    lower = compile_module.lower

    def slow_lower(*args, **kwargs):  # every thread misses while the first one is still lowering
        time.sleep(0.05)
        return lower(*args, **kwargs)

    monkeypatch.setattr(compile_module, "lower", slow_lower)
    graphs = [frame.trace(lambda x: fnp.sin(x) * 2.0 + 1.0, np.ones((4, 3)), name="same") for _ in range(16)]
    results, barrier = [None] * 16, threading.Barrier(16)

    def worker(i):
        barrier.wait()
        results[i] = frame.runtime.compile(graphs[i])

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(exe) for exe in results}) == 1, "threads compiling one graph got different executables"
    info = cache_info()
    assert info.hits + info.misses == 16 and info.size == 1, info
