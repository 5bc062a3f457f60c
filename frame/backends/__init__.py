"""Backends behind one interface (`Backend`): which ops each computes or fuses and how it emits them,
read from the op registry. The compiler's passes take these capabilities as arguments, so the
pipeline lowers a graph for one backend in one go (`lower(graph, options, backend)`). `numpy`
(frame/backends/numpy.py): generated Python over numpy; `native` (frame/backends/native.py): the
same, with each compilable fused chain run as one generated C loop.
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
        """Whether `node` may join a fused chain (`fuse`'s `can_fuse`) that this backend computes exactly."""

    def runs_whole(self, node) -> bool:
        """Whether the fused `node` runs as one step (`plan`'s `keep_whole`: its body is not inlined)."""

    def writes_out(self, op: str) -> bool:
        """Whether results of `op` are written into buffers the plan preallocates (`plan`'s `writes_out`)."""

    def program(self, plan) -> Program:
        """The plan as a callable `Program`."""
