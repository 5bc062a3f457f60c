"""Stage `canonicalize`: identity for now.

The foundation issue leaves this stage as an identity pass; the pipeline issue fills it in.
"""
from __future__ import annotations

from ...ir.graph import Graph


def canonicalize(graph: Graph, options=None) -> Graph:
    """Identity pass (placeholder until the pipeline issue implements `canonicalize`)."""
    return graph
