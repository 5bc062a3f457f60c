"""Stage `plan`: liveness analysis and lowering to an `ExecutionPlan`.

This is the last stage and the only one that does not return a `Graph`: it computes, for
every node, which values die after it (their last use), the bytes alive at each step and the
peak, and hands that to the runtime, which turns it into straight-line Python source that
frees each value right after its last use (as torch.fx's codegen does).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...ir.graph import Graph, Node, Value


@dataclass
class Step:
    node: Node
    free_after: tuple[Value, ...]   # values whose last use is this node


@dataclass
class ExecutionPlan:
    graph: Graph
    steps: list[Step]
    peak_bytes: int
    live_at_peak: list[Value] = field(default_factory=list)

    def report(self) -> str:
        """A readable summary: steps, peak bytes and the buffers alive at the peak."""
        lines = [f"execution plan for @{self.graph.name}: {len(self.steps)} steps, peak {self.peak_bytes} bytes",
                 "buffers alive at the peak:"]
        for v in self.live_at_peak:
            where = f"{v.node.op}" if v.node is not None else f"input {v.index}"
            lines.append(f"  {v.type} ({v.type.nbytes} bytes) from {where}")
        return "\n".join(lines)


def plan(graph: Graph, options=None) -> ExecutionPlan:
    outputs = set(graph.outputs)
    last_use: dict[Value, int] = {}
    for i, node in enumerate(graph.nodes):
        for v in node.inputs:
            last_use[v] = i
    frees: list[list[Value]] = [[] for _ in graph.nodes]
    for v, i in last_use.items():
        # Outputs and constants stay alive: outputs are returned, constants are compiled into the plan.
        if v not in outputs and not (v.node is not None and v.node.op == "constant"):
            frees[i].append(v)

    live: dict[Value, int] = {v: v.type.nbytes for v in graph.inputs}
    current = sum(live.values())
    peak, at_peak = current, list(live)
    steps = []
    for node, free in zip(graph.nodes, frees):
        for v in node.outputs:
            live[v] = v.type.nbytes
            current += v.type.nbytes
        if current > peak:
            peak, at_peak = current, list(live)
        for v in free:
            current -= live.pop(v, 0)
        for v in node.outputs:  # results nobody reads die at once (unless returned)
            if v not in last_use and v not in outputs and v in live:
                current -= live.pop(v)
        steps.append(Step(node, tuple(free)))
    return ExecutionPlan(graph, steps, peak, at_peak)
