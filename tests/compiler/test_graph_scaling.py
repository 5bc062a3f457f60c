"""Deriving and compiling deep graphs is linear in their size (issue 12, item 14).

No wall clock: the work of each stage is counted as hash and equality operations on nodes and
values (every dict, set, sort key, `in list` scan or `list.remove` over graph objects does them),
and it must grow like the graph, on a chain and on one four times as long. The benchmark with
seconds per node is benchmarks/graph_scaling.py.
"""
import gc
import os
import sys
import weakref

import numpy as np
import pytest

from frame.compiler import build_backward_graph
from frame.compiler.passes import plan as plan_module
from frame.compiler.passes.rewrite import splat_value
from frame.compiler.pipeline import STAGES, lower, run_pipeline
from frame.ir import Graph
from frame.ir.graph import Node, Value
from frame.ir.types import TensorType
from frame.runtime import compile as compile_graph

SHORT, LONG = 150, 600   # chain steps (four nodes each)
LINEAR_SLACK = 1.25      # a linear stage does at most 4 * 1.25 times the work on the 4x chain


def chain_graph(steps: int) -> Graph:
    """sum(x -> softplus(sin(x) * 0.9), `steps` times): a chain of 4 * steps + 1 nodes.
    (softplus is a composite op, so `decompose` has work too.)"""
    graph = Graph("chain")
    x = graph.add_input(TensorType((8,), "float64"))
    for _ in range(steps):
        scaled = graph.add_node("mul", [graph.add_node("sin", [x]).output, graph.constant(0.9)]).output
        x = graph.add_node("softplus", [scaled]).output
    graph.mark_output(graph.add_node("sum", [x], {"axes": (0,), "keepdims": False}).output)
    return graph


def chain_value_and_grad(steps: int, x: np.ndarray) -> tuple[float, np.ndarray]:
    """The chain's value and gradient by the chain rule in numpy."""
    slope = np.ones_like(x)
    for _ in range(steps):
        u = np.sin(x) * 0.9
        slope = slope * np.cos(x) * 0.9 / (1.0 + np.exp(-u))
        x = np.logaddexp(0.0, u)
    return float(np.sum(x)), slope


@pytest.fixture
def work(monkeypatch):
    """A counter of hash/eq operations on `Node`s and `Value`s while the test runs."""
    counter = [0]

    def counted_hash(self):
        counter[0] += 1
        return object.__hash__(self)

    def counted_eq(self, other):
        counter[0] += 1
        return self is other

    for cls in (Node, Value):
        monkeypatch.setattr(cls, "__hash__", counted_hash)
        monkeypatch.setattr(cls, "__eq__", counted_eq)

    def measure(fn, *args):
        counter[0] = 0
        fn(*args)
        return counter[0]

    return measure


def stage_inputs(steps: int) -> dict:
    """Each stage's input as the full pipeline feeds it, for the derived chain of `steps`."""
    forward = chain_graph(steps)
    inputs = {"build_backward_graph": forward}
    graph = build_backward_graph(forward, 0, [0])
    for name, stage in STAGES:
        inputs[name] = graph
        if name != "plan":
            graph = stage(graph, None)
    return inputs


@pytest.mark.parametrize("stage", ["build_backward_graph", *(name for name, _ in STAGES)])
def test_each_stage_does_linear_work(work, stage):
    # Before the fix, `fuse` re-sorted a chain's members each time a node joined it: quadratic.
    run = dict(STAGES, build_backward_graph=lambda g, _: build_backward_graph(g, 0, [0]))[stage]
    short, long = stage_inputs(SHORT)[stage], stage_inputs(LONG)[stage]
    ratio = work(run, long, None) / work(run, short, None)
    assert ratio <= 4 * LINEAR_SLACK, f"stage {stage}: {ratio:.1f}x the work on a 4x longer chain"


def test_compile_does_linear_work(work):
    short, long = (build_backward_graph(chain_graph(s), 0, [0]) for s in (SHORT, LONG))
    ratio = work(compile_graph, long) / work(compile_graph, short)
    assert ratio <= 4 * LINEAR_SLACK, f"compile: {ratio:.1f}x the work on a 4x longer chain"


def test_plan_copies_linear_data(monkeypatch):
    # Before the fix, `plan` copied the live set at every new peak; in a derived chain it grows at
    # nearly every step (the forward values wait for the backward sweep), so planning copied O(N^2).
    copied = [0]

    def counting_list(items=()):
        result = list(items)
        copied[0] += len(result)
        return result

    monkeypatch.setattr(plan_module, "list", counting_list, raising=False)
    sizes = []
    for steps in (SHORT, LONG):
        graph = stage_inputs(steps)["plan"]
        copied[0] = 0
        plan_module.plan(graph)
        sizes.append(copied[0])
    assert sizes[1] <= 4 * LINEAR_SLACK * sizes[0], f"plan copied {sizes} values for chains of {SHORT}, {LONG} steps"


def test_live_at_peak_is_the_live_set_at_the_peak():
    plan = plan_module.plan(stage_inputs(SHORT)["plan"])
    assert sum(v.type.nbytes for v in plan.live_at_peak) == plan.peak_bytes
    assert len(set(plan.live_at_peak)) == len(plan.live_at_peak)


def test_deriving_and_compiling_do_not_run_the_cyclic_collector():
    # Graphs are cyclic; the collector's full sweeps over them made deep graphs super-linear.
    forward = chain_graph(LONG)
    backward = build_backward_graph(forward, 0, [0])
    collections = []

    def on_gc(phase, info):
        """Record collections that start inside frame's code (not the one due right after the pause)."""
        if phase != "start":
            return
        f = sys._getframe(1)
        while f is not None and os.sep + "frame" + os.sep not in f.f_code.co_filename:
            f = f.f_back
        if f is not None and not f.f_code.co_filename.endswith("collector.py"):
            collections.append((info["generation"], f.f_code.co_name))

    gc.callbacks.append(on_gc)
    try:
        build_backward_graph(forward, 0, [0])
        run_pipeline(backward)
        lower(backward)
    finally:
        gc.callbacks.remove(on_gc)
    assert collections == []
    assert gc.isenabled()  # switched on again afterwards


def test_splat_memo_keeps_no_graph_alive():
    # The memo was keyed by node, and a node refers to its graph: every intermediate graph of the
    # pipeline stayed alive until 100,000 constants had been seen.
    graph = Graph("g")
    c = graph.constant(np.full((4,), 2.5))
    assert splat_value(c) == 2.5
    alive = weakref.ref(graph)
    del graph, c
    gc.collect()
    assert alive() is None


def test_a_20000_node_chain_derives_and_runs():
    steps = 20_000 // 4
    x = np.linspace(0.0, 1.0, 8)
    exe = compile_graph(build_backward_graph(chain_graph(steps), 0, [0]))
    value, grad = exe(x)
    want_value, want_grad = chain_value_and_grad(steps, x)
    np.testing.assert_allclose(value, want_value, rtol=1e-12)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-10)
