"""Graph-to-graph transforms (autodiff, optimiser updates) and the compiler pipeline."""
from .autograd import build_backward_graph
from .optim import build_adam_update_graph, build_sgd_update_graph
from .pipeline import STAGES, STAGE_NAMES, PipelineOptions, run_pipeline

__all__ = ["build_backward_graph", "build_sgd_update_graph", "build_adam_update_graph", "run_pipeline", "PipelineOptions", "STAGES", "STAGE_NAMES"]
