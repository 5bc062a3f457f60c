"""`memory_report`: the memory a compiled graph takes, in the order its backend runs it (issue 17, item 4).

In the spirit of Slang's checkpoint report (`-report-checkpoint-intermediates`: "checkpointing
context of N bytes associated with: f", then one line per stored type, "count instances of size
bytes (type)"; seed 002, §9), a `MemoryReport` says for a derived graph

- the peak bytes alive at once under the execution plan the backend runs (the plan's liveness:
  inputs, arena buffers holding live values, fresh results), the step of the peak, and what a call
  allocates at that peak (the whole arena of preallocated buffers plus the fresh results alive:
  what `tracemalloc` sees of a first call);
- the values KEPT from the forward part to the backward part (the saved residuals), grouped by type
  with their sizes. The forward part is the steps the primal outputs (output 0, the loss, of a
  training graph) depend on; the backward part the others. A value a forward step makes and a
  backward step reads is kept (alive from its step to that read);
- the values RECOMPUTED in the backward part: its steps that compute what a forward step computed
  (the same op and attrs on the same operands, `remat_barrier` seen through: the recomputations
  `frame.checkpoint` asks for).

Without primal outputs (`n_primal=0`, the layout of `frame.grad`'s graph, whose loss is not an
output) the forward part is the steps up to the peak.
"""
from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from ..backends.numpy import NUMPY
from ..compiler.passes.plan import _IDENTITY, ExecutionPlan, is_view
from ..compiler.pipeline import PipelineOptions, lower
from ..errors import InputError
from ..ir.graph import Graph, Value
from ..ir.printer import format_attr
from ..ir.registry import COMMUTATIVE, get
from ..ir.types import TensorType

BARRIER = "remat_barrier"


@dataclass
class MemoryReport:
    """What `memory_report` finds; `str()` is a readable table."""

    graph_name: str
    tier: str
    steps: int
    peak_bytes: int                   # values alive at once, by the plan's liveness (inputs included)
    peak_step: int
    arena_bytes: int                  # the buffers preallocated for a call (all of them, reused across calls)
    fresh_peak_bytes: int             # the most bytes of fresh (not preallocated) results alive at one step
    input_bytes: int
    forward_steps: int                # steps of the forward part
    n_primal: int
    kept: list[tuple[TensorType, str]] = field(default_factory=list)         # (type, op that made it)
    inputs_read_after: list[TensorType] = field(default_factory=list)        # inputs the backward part reads
    recomputed: list[tuple[TensorType, str]] = field(default_factory=list)   # (type, op)
    note: str = ""

    @property
    def kept_bytes(self) -> int:
        """Bytes of the values kept from the forward part to the backward part (the saved residuals)."""
        return sum(t.nbytes for t, _ in self.kept)

    @property
    def recomputed_bytes(self) -> int:
        return sum(t.nbytes for t, _ in self.recomputed)

    @property
    def allocated_peak_bytes(self) -> int:
        """What a call allocates at most: the arena plus the fresh results alive at once (inputs excluded:
        the caller owns them). An upper estimate of `tracemalloc`'s peak for a first call on a fresh arena."""
        return self.arena_bytes + self.fresh_peak_bytes

    def __str__(self) -> str:
        lines = [f"memory report for @{self.graph_name} ({self.tier} tier, {self.steps} steps)"]
        if self.note:
            lines.append(f"  note: {self.note}")
        lines += [f"  peak bytes alive:          {self.peak_bytes:>14,} (at step {self.peak_step}; inputs "
                  f"{self.input_bytes:,} of them)",
                  f"  allocated at peak:         {self.allocated_peak_bytes:>14,} (arena {self.arena_bytes:,} + fresh "
                  f"results {self.fresh_peak_bytes:,})"]
        where = (f"the steps the first {self.n_primal} output(s) depend on" if self.n_primal
                 else "the steps up to the peak (no primal outputs)")
        lines.append(f"  forward part: {self.forward_steps} of the {self.steps} steps ({where})")
        lines.append(f"  kept from forward to backward: {self.kept_bytes:,} bytes in {len(self.kept)} value(s)")
        lines += _table(self.kept, "made by")
        if self.inputs_read_after:
            lines.append(f"  inputs the backward part reads (caller-owned): {len(self.inputs_read_after)}, "
                         f"{sum(t.nbytes for t in self.inputs_read_after):,} bytes")
        lines.append(f"  recomputed in the backward part: {self.recomputed_bytes:,} bytes in {len(self.recomputed)} "
                     "value(s)")
        lines += _table(self.recomputed, "op")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"<MemoryReport @{self.graph_name}: peak {self.peak_bytes} B, kept {self.kept_bytes} B in "
                f"{len(self.kept)} values, {len(self.recomputed)} recomputed>")


def _table(entries: list[tuple[TensorType, str]], label: str) -> list[str]:
    """Slang's grouping: `count instances of size bytes (type)`, largest total first."""
    if not entries:
        return []
    groups = Counter((str(t), t.nbytes, op) for t, op in entries)
    rows = sorted(groups.items(), key=lambda kv: (-kv[0][1] * kv[1], kv[0][0], kv[0][2]))
    out = [f"    {'count':>6}  {'bytes each':>12}  {'total':>14}  {'type':<24} {label}"]
    for (type_text, nbytes, op), count in rows:
        out.append(f"    {count:>6}  {nbytes:>12,}  {count * nbytes:>14,}  {type_text:<24} {op}")
    return out


def _plan_of(obj, args) -> tuple[ExecutionPlan, str, str]:
    """(plan, tier name, note) of a graph, an execution plan, an Executable (its tier in use), a
    row-parallel executable (its whole graph, lowered as one call) or a `frame.function` with `args`."""
    if args:
        if not hasattr(obj, "compiled"):
            raise InputError(f"memory_report: arguments are for a frame.function (they pick its executable); got a "
                             f"{type(obj).__name__} with {len(args)} argument(s)")
        obj = obj.compiled(*args)
    elif hasattr(obj, "compiled") and not isinstance(obj, Graph):
        raise InputError("memory_report of a frame.function needs the arguments of a call (they pick its "
                         "executable): memory_report(fn, *args)")
    if isinstance(obj, ExecutionPlan):
        return obj, "numpy", ""
    if isinstance(obj, Graph):
        return lower(obj, PipelineOptions(), NUMPY), "numpy", ""
    tier = getattr(obj, "_tier", None)
    if tier is not None and isinstance(getattr(tier, "plan", None), ExecutionPlan):
        return tier.plan, tier.name, ""
    source = getattr(obj, "source_graph", None)
    if isinstance(source, Graph):
        threads = getattr(obj, "threads", 1)
        return (lower(source, getattr(obj, "options", None) or PipelineOptions(), NUMPY), "numpy",
                f"a row-parallel executable: the whole graph as one call (its {getattr(obj, 'parts', '?')} chunks "
                f"run {threads} at a time, each on its share of the rows)")
    raise InputError(f"memory_report takes a Graph, an Executable, an ExecutionPlan or a frame.function with its "
                     f"arguments, got {type(obj).__name__}")


def memory_report(obj, *args, n_primal: int | None = None) -> MemoryReport:
    """The memory report of a compiled graph (see the module docstring).

    obj: a `Graph` (lowered for the numpy backend here), an `Executable` (the plan of the tier it
    runs), an `ExecutionPlan`, or a `frame.function` followed by the arguments of a call.
    n_primal: how many leading outputs are the forward's (default: 1 when output 0 is a float scalar
    and there are more outputs, the layout of a training graph; else 0).
    """
    plan, tier, note = _plan_of(obj, args)
    graph = plan.graph
    instrs = plan.instrs
    n_out = len(graph.outputs)
    if n_primal is None:
        first = graph.outputs[0].type if graph.outputs else None
        n_primal = 1 if n_out > 1 and first is not None and first.size == 1 and first.is_float else 0
    if not isinstance(n_primal, int) or isinstance(n_primal, bool) or not 0 <= n_primal <= n_out:
        raise InputError(f"memory_report: n_primal must be an int in 0..{n_out} (the graph has {n_out} outputs), got "
                         f"{n_primal!r}")

    step_of: dict[Value, int] = {}
    for i, ins in enumerate(instrs):
        for v in ins.outputs:
            step_of[v] = i
    # Storage: which values own memory, and which owners each value may alias (views, barriers).
    inputs = set(graph.inputs)
    owners: dict[Value, tuple] = {v: (v,) for v in graph.inputs}
    kind: dict[Value, str] = {v: "input" for v in graph.inputs}
    for ins in instrs:
        view = ins.op == BARRIER or ins.node is _IDENTITY or is_view(ins.op)
        for j, v in enumerate(ins.outputs):
            if ins.op == "constant":
                owners[v], kind[v] = (), "constant"
            elif view:
                source = ins.inputs[:1] if ins.op == BARRIER else ins.inputs
                owners[v], kind[v] = tuple(dict.fromkeys(o for x in source for o in owners.get(x, ()))), "view"
            else:
                owners[v], kind[v] = (v,), ("arena" if v in plan.buffer_of else "fresh")
    end: dict[Value, int] = {}
    for i, ins in enumerate(instrs):
        for v in ins.outputs:
            for o in owners[v]:
                end[o] = max(end.get(o, i), i)
        for x in ins.inputs:
            for o in owners.get(x, ()):
                end[o] = max(end.get(o, i), i)
    last = len(instrs)
    for v in graph.outputs:   # results leave the call: alive to its end
        for o in owners.get(v, ()):
            end[o] = last

    # The fresh results alive at each step (the arena is allocated whole, before the first step).
    fresh_delta = [0] * (last + 2)
    for o, e in end.items():
        if kind.get(o) == "fresh":
            fresh_delta[step_of[o]] += o.type.nbytes
            fresh_delta[e + 1] -= o.type.nbytes
    fresh_peak, running = 0, 0
    for d in fresh_delta:
        running += d
        fresh_peak = max(fresh_peak, running)

    peak_step = _peak_step(plan, instrs, owners, kind, end)
    if n_primal:   # the forward part: the steps the primal outputs depend on
        needed = set(graph.outputs[:n_primal])
        forward = set()
        for i in range(last - 1, -1, -1):
            ins = instrs[i]
            if any(v in needed for v in ins.outputs):
                forward.add(i)
                needed.update(ins.inputs)
    else:
        forward = set(range(peak_step + 1))
    read_by_backward: set[Value] = set()
    for i, ins in enumerate(instrs):
        if i not in forward:
            for x in ins.inputs:
                read_by_backward.update(owners.get(x, ()))
    outputs = {o for v in graph.outputs for o in owners.get(v, ())}
    kept = [(o.type, instrs[step_of[o]].op) for o in end
            if kind.get(o) in ("arena", "fresh") and step_of[o] in forward and o in read_by_backward
            and o not in outputs]
    read_after = [v.type for v in graph.inputs if v in read_by_backward]
    recomputed = _recomputed(graph, instrs, forward)
    return MemoryReport(graph.name, tier, last, plan.peak_bytes, peak_step, plan.arena_bytes, fresh_peak,
                        sum(v.type.nbytes for v in inputs), len(forward), n_primal, kept, read_after, recomputed, note)


def _peak_step(plan: ExecutionPlan, instrs, owners, kind, end) -> int:
    """The step after which the values owning memory (arena-held and fresh) are the most bytes."""
    delta = [0] * (len(instrs) + 2)
    produced: dict[Value, int] = {}
    for i, ins in enumerate(instrs):
        for v in ins.outputs:
            produced[v] = i
    for o, e in end.items():
        if kind.get(o) in ("arena", "fresh"):
            delta[produced[o]] += o.type.nbytes
            delta[e + 1] -= o.type.nbytes
    best, best_step, running = -1, -1, 0
    for i in range(len(instrs)):
        running += delta[i]
        if running > best:
            best, best_step = running, i
    return best_step


def _recomputed(graph: Graph, instrs, forward: set) -> list[tuple[TensorType, str]]:
    """Steps of the backward part that compute a value a step of the forward part computed: the same op and attrs
    on operands that are the same (a `remat_barrier` stands for its first operand)."""
    key: dict[Value, object] = {v: ("input", i) for i, v in enumerate(graph.inputs)}
    forward_keys: set = set()
    out: list[tuple[TensorType, str]] = []
    for i, ins in enumerate(instrs):
        if ins.op == BARRIER:
            key[ins.outputs[0]] = key.get(ins.inputs[0], ("value", id(ins.inputs[0])))
            continue
        if ins.op == "constant":   # by content: fused bodies hold constants of their own
            a = np.ascontiguousarray(ins.attrs["value"])
            for v in ins.outputs:
                key[v] = ("constant", a.dtype.str, a.shape, hashlib.sha1(a.tobytes()).hexdigest())
            continue
        attrs = tuple(sorted((k, format_attr(a)) for k, a in ins.attrs.items())) if ins.attrs else ()
        operands = [key.get(x, ("value", id(x))) for x in ins.inputs]
        if ins.node is not _IDENTITY and get(ins.op).has(COMMUTATIVE):   # canonicalize may order them either way
            operands.sort(key=repr)
        base = hash((ins.op, attrs, tuple(operands)))
        for j, v in enumerate(ins.outputs):   # j, not v.index: a fused node's result has the node's index
            key[v] = (base, j)
            if i in forward:
                forward_keys.add(key[v])
            elif key[v] in forward_keys and ins.node is not _IDENTITY:
                out.append((v.type, ins.op))
    return out


__all__ = ["MemoryReport", "memory_report"]
