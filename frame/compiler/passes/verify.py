"""Stage 1, `verify`: check V1..V7 before anything else touches the graph."""
from __future__ import annotations

from ...ir.graph import Graph
from ...ir.verify import verify as verify_graph


def verify(graph: Graph, options=None) -> Graph:
    """Raise `VerifyError` on a broken graph; return it unchanged otherwise."""
    return verify_graph(graph)
