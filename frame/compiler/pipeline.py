"""The compiler pipeline: nine named stages, in this order (SPEC §6).

    verify -> decompose -> canonicalize -> fold -> simplify -> cse -> dne -> fuse -> plan

The first eight are `Graph -> Graph` passes; `plan` lowers the optimised graph to an
`ExecutionPlan`. `run_pipeline` runs the first eight and returns the optimised graph so that it
can be inspected; `lower` runs all nine. Both take the backend the graph is lowered for
(frame/backends/): `fuse` gets its `supports`, `plan` its `runs_whole` and `writes_out`, so the
runtime lowers a source graph once per backend and never undoes a pass. `build_backward_graph`
is deliberately not a stage (ARCH-060): it runs on request, and its result then goes through
this list.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir.graph import Graph
from ..ir.verify import verify as verify_graph
from .collector import collector_paused
from .passes.canonicalize import canonicalize
from .passes.cse import cse
from .passes.decompose import decompose
from .passes.dne import dne
from .passes.fold import fold
from .passes.fuse import fuse
from .passes.plan import ExecutionPlan, plan
from .passes.simplify import simplify
from .passes.verify import verify

STAGES = [
    ("verify", verify),
    ("decompose", decompose),
    ("canonicalize", canonicalize),
    ("fold", fold),
    ("simplify", simplify),
    ("cse", cse),
    ("dne", dne),
    ("fuse", fuse),
    ("plan", plan),
]
STAGE_NAMES = tuple(name for name, _ in STAGES)


@dataclass(frozen=True)
class PipelineOptions:
    """Which stages run and how.

    stages: names of the stages to run (default: all); `verify` and `plan` always run.
    dump_ir: stage names after which the IR text is printed (or "all"); for `plan`, its report
        (the buffers kept alive between calls and the peak bytes).
    verify_each: re-verify the graph after every stage.
    decompose_blacklist: composite ops to keep whole.
    only_primitives: fail if composite ops remain after `decompose`.
    """

    stages: tuple[str, ...] | None = None
    dump_ir: tuple[str, ...] | str = ()
    verify_each: bool = False
    decompose_blacklist: tuple[str, ...] = ()
    only_primitives: bool = False

    def __post_init__(self):
        unknown = [s for s in (self.stages or ()) if s not in STAGE_NAMES]
        dumps = () if self.dump_ir == "all" else self.dump_ir
        unknown += [s for s in dumps if s not in STAGE_NAMES]
        if unknown:
            raise ValueError(f"unknown pipeline stage(s) {unknown}; stages are {', '.join(STAGE_NAMES)}")

    def runs(self, stage: str) -> bool:
        return stage in ("verify", "plan") or self.stages is None or stage in self.stages

    def dumps(self, stage: str) -> bool:
        return self.dump_ir == "all" or stage in self.dump_ir


UNOPTIMIZED = PipelineOptions(stages=("verify", "dne", "plan"))


def _capabilities(backend) -> dict[str, dict]:
    """The arguments each stage takes from the backend (none without one)."""
    if backend is None:
        return {}
    return {"fuse": {"can_fuse": backend.supports},
            "plan": {"keep_whole": backend.runs_whole, "writes_out": backend.writes_out}}


@collector_paused()
def run_pipeline(graph: Graph, options: PipelineOptions | None = None, backend=None) -> Graph:
    """Run the graph stages (all but `plan`) for `backend` and return the optimised graph; `graph` is
    not modified. Without a backend, `fuse` fuses every elementwise chain."""
    options = options or PipelineOptions()
    capabilities = _capabilities(backend)
    for name, stage in STAGES[:-1]:
        if not options.runs(name):
            continue
        graph = stage(graph, options, **capabilities.get(name, {}))
        if options.verify_each:
            verify_graph(graph)
        if options.dumps(name):
            print(f"// IR after {name}\n{graph}", flush=True)
    return graph


@collector_paused()
def lower(graph: Graph, options: PipelineOptions | None = None, backend=None) -> ExecutionPlan:
    """All nine stages for `backend`: the optimised graph's execution plan (its report is printed
    when `plan` is dumped). Without a backend, the stages' defaults: the numpy backend's."""
    options = options or PipelineOptions()
    result = plan(run_pipeline(graph, options, backend), options, **_capabilities(backend).get("plan", {}))
    if options.dumps("plan"):
        print(f"// plan\n{result.report()}", flush=True)
    return result
