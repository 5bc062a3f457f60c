"""Stage `plan`: liveness, buffer reuse and the execution plan.

This is the last stage and the only one that does not return a `Graph`. It
1. flattens the graph into instructions: a `fused_elementwise_internal` node contributes the
   ops of its body (the numpy backend runs a body op by op, in place), unless the backend runs
   it whole (`keep_whole`: the native backend's one-loop kernels, frame/backends/native.py);
2. decides which results are written into preallocated buffers (`out=`): results of ops the
   backend writes in place (`writes_out`, from its emission facts; fused nodes kept whole always
   do), except those a graph output may alias, which the caller owns and so are allocated fresh
   on every call;
3. tracks aliasing: views (ops with the VIEW trait) and opaque kernels keep the buffers they may
   alias alive until their own last use;
4. assigns buffers by liveness, reusing a dead buffer of the same shape and dtype (last freed
   first, so the reused memory is still in cache); an elementwise op may write over an operand
   that dies at that very op;
5. reports the buffers kept alive between calls (the arena), and the peak bytes of inputs,
   buffers and fresh results alive at any step.
The backend turns the plan into straight-line Python source (frame/backends/numpy.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...ir.graph import Graph, Node, Value
from ...ir.types import SIZE_HINT, TensorType, size_hint
from ...ir.registry import ELEMENTWISE, VIEW, find, get

FUSED_OP = "fused_elementwise_internal"


def is_view(op: str) -> bool:
    """Whether `op`'s result is a view of (or is) its operand (the VIEW trait)."""
    schema = find(op)
    return schema is not None and schema.has(VIEW)


@dataclass
class Instr:
    """One step of the plan: `node`'s op applied to values (graph values, or body values of a fused node)."""

    node: Node                             # the graph node, or the body node of a fused node
    inputs: list[Value]
    outputs: list[Value]
    free_after: tuple[Value, ...] = ()     # values whose last use is this step (their buffers are free again)

    @property
    def op(self) -> str:
        return self.node.op

    @property
    def attrs(self) -> dict:
        return self.node.attrs


class _Identity:
    """Stands for the node of an identity step (a fused body returning one of its inputs)."""

    op, attrs = "stop_gradient", {}


_IDENTITY = _Identity()


@dataclass
class ExecutionPlan:
    graph: Graph                            # the optimised graph (fused nodes kept whole)
    instrs: list[Instr]
    buffer_of: dict[Value, int]             # value -> index into `buffers`
    buffers: list[TensorType]               # the arena: preallocated, reused across calls
    peak_bytes: int
    live_at_peak: list[Value] = field(default_factory=list)

    @property
    def arena_bytes(self) -> int:
        return sum(t.nbytes for t in self.buffers)

    @property
    def steps(self) -> list[Instr]:
        return self.instrs

    def report(self) -> str:
        """Steps, the buffers the plan keeps alive between calls, and the peak bytes with what is alive then."""
        lines = [f"execution plan for @{self.graph.name}: {len(self.graph.nodes)} nodes, {len(self.instrs)} steps",
                 f"buffers kept alive between calls: {len(self.buffers)}, {self.arena_bytes} bytes"]
        for i, t in enumerate(self.buffers):
            users = sum(1 for b in self.buffer_of.values() if b == i)
            lines.append(f"  b{i}: {t} ({t.nbytes} bytes), holds {users} value(s)")
        hint = (f" (each symbolic size taken as {SIZE_HINT})"
                if any(v.type.is_symbolic for v in self.graph.inputs) else "")
        lines.append(f"peak bytes alive during a call: {self.peak_bytes}{hint}; alive at the peak:")
        for v in self.live_at_peak:
            where = v.node.op if v.node is not None else f"input {v.index}"
            kind = f"b{self.buffer_of[v]}" if v in self.buffer_of else "fresh"
            lines.append(f"  {v.type} ({v.type.nbytes} bytes, {kind}) from {where}")
        return "\n".join(lines)


def flatten(graph: Graph, keep_whole=None) -> list[Instr]:
    """The graph's nodes as instructions, with the bodies of fused nodes inlined (but those
    `keep_whole(node)` accepts)."""
    instrs: list[Instr] = []
    for node in graph.nodes:
        if node.op != FUSED_OP or (keep_whole is not None and keep_whole(node)):
            instrs.append(Instr(node, list(node.inputs), list(node.outputs)))
            continue
        body = node.attrs["body"]
        result_of: dict[Value, Value] = {}
        for v, r in zip(body.outputs, node.outputs):
            result_of.setdefault(v, r)
        env: dict[Value, Value] = dict(zip(body.inputs, node.inputs))
        for inner in body.nodes:
            outs = [result_of.get(v) or Value(v.type, inner, v.index, graph) for v in inner.outputs]
            instrs.append(Instr(inner, [env[v] for v in inner.inputs], outs))
            env.update(zip(inner.outputs, outs))
        for v, r in zip(body.outputs, node.outputs):
            if env[v] is not r:  # a body input returned as is, or a value returned twice
                instrs.append(Instr(_IDENTITY, [env[v]], [r]))
    return instrs


def plan(graph: Graph, options=None, keep_whole=None, writes_out=None) -> ExecutionPlan:
    """Lower the optimised graph to an `ExecutionPlan` (see the module docstring).

    keep_whole: predicate on fused nodes the backend runs as one step. Such a step writes its
    results element by element after reading its operands at the same element, so a result may
    take the buffer of a same-shaped operand that dies there, as a ufunc's may; not that of an
    owner it also reads through a view (a transpose would be read after being overwritten).
    writes_out: predicate on op names whose results the backend writes into a given buffer
    (`out=`); by default the ops' `numpy_out` facts (the numpy backend's, which runs every op a
    backend does not keep whole). The results of other ops that are not views may alias their
    operands (opaque kernels).
    """
    instrs = flatten(graph, keep_whole)
    writes_out = writes_out or (lambda op: get(op).numpy_out)
    ops = {ins.op for ins in instrs}
    inplace = {op for op in ops if op == FUSED_OP or writes_out(op)}
    views = {op for op in ops if is_view(op)}
    # Elementwise ops written in place may write over an operand that dies at that very op.
    elementwise_inplace = {op for op in inplace if op != FUSED_OP and get(op).has(ELEMENTWISE)}
    n = len(instrs)
    # Which owners (results that have or could have their own storage) each value may share memory with.
    alias: dict[Value, tuple[Value, ...]] = {v: () for v in graph.inputs}
    for ins in instrs:
        if ins.op == "constant":
            alias[ins.outputs[0]] = ()
        elif ins.op in inplace:
            for v in ins.outputs:
                alias[v] = (v,)
        else:
            shared = tuple({o: None for x in ins.inputs for o in alias[x]})
            for v in ins.outputs:
                alias[v] = shared if ins.op in views else shared + (v,)
    escaping = {o for v in graph.outputs for o in alias[v]}
    returned = set(graph.outputs)

    # Last step at which each owner's memory is read, through any alias.
    end: dict[Value, int] = {}
    for i, ins in enumerate(instrs):
        for v in ins.outputs:
            for o in alias[v]:
                end[o] = max(end.get(o, i), i)
        for x in ins.inputs:
            for o in alias[x]:
                end[o] = i

    # Direct last reads, for `del` of fresh results (buffers outlive the call anyway).
    last_read: dict[Value, int] = {}
    for i, ins in enumerate(instrs):
        for x in ins.inputs:
            last_read[x] = i
    frees: list[list[Value]] = [[] for _ in range(n)]
    for v, i in last_read.items():
        if v.node is not None and v.node.op != "constant" and v not in returned:
            frees[i].append(v)

    buffer_of: dict[Value, int] = {}
    buffers: list[TensorType] = []
    free: dict[TensorType, list[int]] = {}
    dying: list[list[Value]] = [[] for _ in range(n)]
    for o, i in end.items():
        dying[i].append(o)

    def release(owners) -> None:
        for o in owners:
            b = buffer_of.get(o)
            if b is not None:
                free.setdefault(buffers[b], []).append(b)

    kept = set(graph.inputs) | returned   # alive for the whole call
    live: dict[Value, int] = {v: _bytes(v.type) for v in graph.inputs}
    live_bytes = sum(live.values())
    peak, peak_step = live_bytes, -1
    for i, ins in enumerate(instrs):
        elementwise = ins.op in elementwise_inplace
        if elementwise:  # may write over an operand that dies here
            release(o for o in dying[i] if o not in ins.outputs)
        elif ins.op == FUSED_OP:
            viewed = {o for x in ins.inputs if alias[x] != (x,) for o in alias[x]}
            early = [o for o in dying[i] if o in ins.inputs and o not in viewed and o not in ins.outputs]
            release(early)
        for v in ins.outputs:
            if ins.op in inplace and v not in escaping:
                pool = free.get(v.type)
                if pool:
                    buffer_of[v] = pool.pop()
                else:
                    buffer_of[v] = len(buffers)
                    buffers.append(v.type)
        for v in _owned_results(ins, alias):
            live[v] = _bytes(v.type)
            live_bytes += live[v]
        if live_bytes > peak:
            peak, peak_step = live_bytes, i
        release(o for o in dying[i] if not (elementwise or ins.op == FUSED_OP and o in early) or o in ins.outputs)
        for o in dying[i]:
            if o in live and o not in kept:
                live_bytes -= live.pop(o)
        ins.free_after = tuple(frees[i])
    at_peak = _alive_after(graph, instrs, alias, dying, kept, peak_step)
    return ExecutionPlan(graph, instrs, buffer_of, buffers, peak, at_peak)


def _bytes(t: TensorType) -> int:
    """A value's bytes for the peak: for a symbolic shape, at the cost models' stand-in size per symbol
    (`frame.ir.types.SIZE_HINT`; the buffers themselves are sized per call)."""
    return t.nbytes if not t.is_symbolic else size_hint(t.nbytes)


def _owned_results(ins: Instr, alias: dict) -> list[Value]:
    """The results of `ins` with storage of their own (not constants, not views)."""
    return [v for v in ins.outputs if ins.op != "constant" and v in alias[v]]


def _alive_after(graph: Graph, instrs: list[Instr], alias: dict, dying: list, kept: set, step: int) -> list[Value]:
    """The values alive once step `step` has made its results (the inputs for step -1).

    The peak's live set is replayed once here: copying the live set at every new peak made
    planning quadratic in a deep graph, whose live set grows at nearly every step."""
    live = dict.fromkeys(graph.inputs)
    for i in range(step + 1):
        live.update(dict.fromkeys(_owned_results(instrs[i], alias)))
        if i < step:
            for o in dying[i]:
                if o not in kept:
                    live.pop(o, None)
    return list(live)
