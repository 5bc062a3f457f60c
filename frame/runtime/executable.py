"""`Executable`: a compiled graph, run as generated straight-line Python over numpy kernels.

The plan is turned into the source of one function (like torch.fx's codegen): one line per
node calling its kernel, `del` right after each value's last use, constants bound once at
compile time. No per-node dictionary lookups happen at run time.
"""
from __future__ import annotations

import functools

import numpy as np

from ..compiler.passes.plan import ExecutionPlan
from ..errors import InputError
from ..ir.graph import Value
from ..ir.types import TensorType
from ..ops.schema import get


def generate_source(plan: ExecutionPlan) -> tuple[str, dict]:
    """Python source of `run(*inputs) -> list` for `plan`, and the namespace it needs."""
    names: dict[Value, str] = {}
    namespace: dict = {"np": np}
    for i, v in enumerate(plan.graph.inputs):
        names[v] = f"a{i}"
    lines = [f"def run({', '.join(names[v] for v in plan.graph.inputs)}):"]
    counter = 0
    for k, step in enumerate(plan.steps):
        node = step.node
        schema = get(node.op)
        if node.op == "constant":
            cname = f"c{k}"
            namespace[cname] = node.attrs["value"]
            names[node.outputs[0]] = cname
            continue
        attrs = {key: val for key, val in node.attrs.items()}
        kname = f"k{k}_{node.op}"
        namespace[kname] = functools.partial(schema.kernel, **attrs) if attrs else schema.kernel
        outs = []
        for v in node.outputs:
            names[v] = f"v{counter}"
            counter += 1
            outs.append(names[v])
        call = f"{kname}({', '.join(names[v] for v in node.inputs)})"
        if not outs:
            lines.append(f"    {call}")
        elif len(outs) == 1:
            lines.append(f"    {outs[0]} = {call}")
        else:
            lines.append(f"    {', '.join(outs)}, = {call}")
        if step.free_after:
            lines.append(f"    del {', '.join(names[v] for v in step.free_after)}")
    lines.append(f"    return [{', '.join(names[v] for v in plan.graph.outputs)}]")
    return "\n".join(lines) + "\n", namespace


class Executable:
    """A compiled graph. Call it with numpy arrays; it returns a list of numpy arrays."""

    def __init__(self, plan: ExecutionPlan, source_graph=None):
        self.plan = plan
        self.graph = plan.graph                 # the optimised graph
        self.source_graph = source_graph        # the graph handed to compile
        self.input_types: list[TensorType] = [v.type for v in plan.graph.inputs]
        self.source, namespace = generate_source(plan)
        exec(compile(self.source, f"<frame plan @{plan.graph.name}>", "exec"), namespace)
        self._run = namespace["run"]
        self._n = len(self.input_types)

    def _check(self, args) -> list[np.ndarray]:
        if len(args) != self._n:
            raise InputError(f"@{self.graph.name} takes {self._n} input(s), got {len(args)}",
                             expected=self._n, actual=len(args))
        arrays = []
        for i, (a, t) in enumerate(zip(args, self.input_types)):
            if not isinstance(a, np.ndarray):
                if isinstance(a, (bool, int, float, np.generic)):
                    a = np.asarray(a, dtype=t.dtype)
                else:
                    raise InputError(f"input {i} of @{self.graph.name}: expected a numpy array of type {t}, got "
                                     f"{type(a).__name__}", i, t, type(a).__name__)
            if a.shape != t.shape or a.dtype.name != t.dtype:
                actual = f"{a.dtype.name}{list(a.shape)}"
                raise InputError(f"input {i} of @{self.graph.name}: expected {t.dtype}{list(t.shape)}, got {actual}",
                                 i, t, actual)
            arrays.append(a)
        return arrays

    def __call__(self, *args) -> list[np.ndarray]:
        outs = self._run(*self._check(args))
        # Returned arrays belong to the caller: copy read-only views (broadcasts, constants).
        return [o if isinstance(o, np.ndarray) and o.flags.writeable else np.array(o) for o in outs]

    def report(self) -> str:
        return self.plan.report()

    def __repr__(self):
        return f"<Executable @{self.graph.name}: {len(self.plan.steps)} steps, peak {self.plan.peak_bytes} B>"
