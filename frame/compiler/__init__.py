"""Graph-to-graph transforms (reverse and forward mode, batching) and the compiler pipeline."""
from .autograd import build_backward_graph
from .batching import build_batched_graph
from .forward import build_forward_graph
from .pipeline import STAGES, STAGE_NAMES, PipelineOptions, run_pipeline

__all__ = ["build_backward_graph", "build_forward_graph", "build_batched_graph", "run_pipeline", "PipelineOptions",
           "STAGES", "STAGE_NAMES"]
