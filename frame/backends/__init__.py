"""Backends: what each one computes and how it emits it, behind one small interface.

A backend answers three questions the compiler's passes take as arguments, so that the pipeline
lowers a graph for one backend in one go (`lower(graph, options, backend)`):

- `supports(node)`: the node may join a fused chain (`fuse(graph, can_fuse=backend.supports)`);
- `runs_whole(node)`: the plan keeps this fused node as one step instead of inlining its body;
- `writes_out(op)`: the backend writes the op's result into a buffer the plan gives it (`out=`);

and `program(plan) -> Program` turns an execution plan into a function to call. Both backends
read their facts from the op registry (frame/ops/schema.py): `numpy` (frame/backends/numpy.py),
generated Python over numpy, and `native` (frame/backends/native.py), the same with each
compilable fused chain run as one generated C loop.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass
class Program:
    """A plan made callable on one backend: `run(*inputs, arena) -> list`, its source, a factory of
    arenas and the pool of arenas kept between calls."""

    name: str                 # the backend's
    plan: object              # the ExecutionPlan it runs
    source: str
    run: object
    new_arena: object
    kernels: int = 0          # fused nodes run by native kernels
    blas_macs: int = 0        # multiply-adds of the plan's largest BLAS matmul (0: none)
    arenas: list = field(default_factory=list)


class Backend(Protocol):
    """What a backend tells the passes and the runtime."""

    name: str

    def supports(self, node) -> bool:
        """Whether `node` may be part of a fused chain this backend computes exactly."""

    def runs_whole(self, node) -> bool:
        """Whether the fused `node` runs as one step (its body is not inlined into the plan)."""

    def writes_out(self, op: str) -> bool:
        """Whether results of `op` are written into buffers the plan preallocates."""

    def program(self, plan) -> Program:
        """The plan as a callable `Program`."""
