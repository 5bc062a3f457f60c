"""The text form of a graph: a typed, one-line-per-node listing that `parse_graph` reads back.

    graph @main(%0: f32[3], %1: f32[3]) {
      %2: f32[3] = mul(%0, %1)
      %3: f32[] = sum(%2) {axes=(0,), keepdims=False}
      return (%3)
    }

A graph-valued attribute (a fused node's body) prints nested, indented under its node.
Constants print their full value (`dense<[1.0, 2.0]>`) or, when all elements are equal, a
splat (`dense<0.0>`), so the text round-trips exactly. `fingerprint_text` swaps constant
values for a digest of their bytes: that is the structural key of the compile cache.
"""
from __future__ import annotations

import hashlib
import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # annotations only: Graph.__str__ prints through this module
    from .graph import Graph, Value


def _is_graph(value) -> bool:
    """A graph-valued attribute, told by its shape (so the printer needs Graph for annotations only)."""
    return hasattr(value, "nodes") and hasattr(value, "outputs")


def format_scalar(x) -> str:
    if isinstance(x, (bool, np.bool_)):
        return "True" if x else "False"
    if isinstance(x, (float, np.floating)):
        x = float(x)
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return repr(x)
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    return repr(x)


def attrs_key(attrs: dict) -> tuple:
    """A hashable key of a node's attrs (the memo key of rule micro-graphs and decompositions)."""
    return tuple(sorted((k, format_attr(v)) for k, v in attrs.items()))


def format_attr(value) -> str:
    if isinstance(value, tuple):
        inner = ", ".join(format_attr(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, np.ndarray):
        return format_dense(value)
    if _is_graph(value):
        return print_graph(value)
    return format_scalar(value)


def _nested(a: np.ndarray) -> str:
    if a.ndim == 0:
        return format_scalar(a.item())
    return "[" + ", ".join(_nested(sub) for sub in a) + "]"


def format_dense(a: np.ndarray, digest: bool = False) -> str:
    if a.size > 0:
        first = a.flat[0]
        if np.array_equal(a, np.full(a.shape, first, dtype=a.dtype), equal_nan=a.dtype.kind == "f"):
            return f"dense<{format_scalar(first)}>"
    if digest:
        return f"dense#{hashlib.sha1(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]}"
    return f"dense<{_nested(a)}>"


def print_graph(graph: Graph, digest_constants: bool = False) -> str:
    names: dict[Value, str] = {}

    def name(v: Value) -> str:
        if v not in names:
            names[v] = f"%<undefined:{id(v):x}>"  # keeps the printer usable on invalid graphs
        return names[v]

    def define(v: Value) -> str:
        names[v] = f"%{len(names)}"
        return f"{names[v]}: {v.type}"

    params = ", ".join(define(v) for v in graph.inputs)
    lines = [f"graph @{graph.name}({params}) {{"]
    for node in graph.nodes:
        operands = ", ".join(name(v) for v in node.inputs)
        attrs = ""
        if node.attrs:
            parts = []
            for k in sorted(node.attrs):
                v = node.attrs[k]
                if isinstance(v, np.ndarray):
                    text = format_dense(v, digest_constants)
                elif _is_graph(v):
                    text = print_graph(v, digest_constants).replace("\n", "\n    ")
                else:
                    text = format_attr(v)
                parts.append(f"{k}={text}")
            attrs = " {" + ", ".join(parts) + "}"
        lhs = ", ".join(define(v) for v in node.outputs)
        lhs = f"{lhs} = " if lhs else ""
        lines.append(f"  {lhs}{node.op}({operands}){attrs}")
    lines.append(f"  return ({', '.join(name(v) for v in graph.outputs)})")
    lines.append("}")
    return "\n".join(lines)


def fingerprint(graph: Graph) -> str:
    """Structural fingerprint: ops, attrs, constants (by digest), types and wiring; not the graph name.

    Memoised on the graph while its size is unchanged: graphs are built by appending and
    passes return new graphs, so a graph with the same node/input/output counts is the same graph.
    """
    stamp = (len(graph.inputs), len(graph.nodes), len(graph.outputs))
    cached = getattr(graph, "_fingerprint", None)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    text = print_graph(graph, digest_constants=True)
    text = text.split("(", 1)[1]  # drop the name
    digest = hashlib.sha256(text.encode()).hexdigest()
    graph._fingerprint = (stamp, digest)
    return digest
