"""frame's graph IR: types, values, nodes, graphs, the shared cloner, the verifier and the text form."""
from .clone import clone_graph, inline_graph
from .graph import Graph, Node, Value
from .parser import ParseError, parse_graph
from .printer import fingerprint, print_graph
from .types import DTYPES, TensorType
from .verify import verify

__all__ = ["TensorType", "Value", "Node", "Graph", "clone_graph", "inline_graph", "verify",
           "print_graph", "parse_graph", "fingerprint", "ParseError", "DTYPES"]
