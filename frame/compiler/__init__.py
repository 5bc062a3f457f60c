"""Graph-to-graph transforms (autodiff) and the compiler pipeline."""
from .autograd import build_backward_graph
from .pipeline import STAGES, STAGE_NAMES, PipelineOptions, run_pipeline

__all__ = ["build_backward_graph", "run_pipeline", "PipelineOptions", "STAGES", "STAGE_NAMES"]
