"""Reads the text form printed by `frame.ir.printer` back into a `Graph`."""
from __future__ import annotations

import ast
import re

import numpy as np

from ..errors import FrameError
from .graph import Graph, Value
from .registry import find
from .types import SHORT_TO_DTYPE, Dim, TensorType, dim_of_ast

_TYPE = re.compile(r"^(" + "|".join(sorted(SHORT_TO_DTYPE, key=len, reverse=True)) + r")\[([\w,\s*+\-/]*)\](?:@(\S+))?$")
_HEADER = re.compile(r"^graph\s+@([\w.\-]+)\((.*)\)\s*\{$")
_NODE = re.compile(r"^(?:(?P<lhs>.+?)\s=\s)?(?P<op>[A-Za-z_][\w]*)\((?P<args>[^)]*)\)(?:\s*\{(?P<attrs>.*)\})?$", re.S)
_NAMES = {"inf": float("inf"), "nan": float("nan"), "True": True, "False": False, "None": None}


class ParseError(FrameError):
    """The text is not a graph in frame's text form; the message gives the line."""


def parse_type(text: str) -> TensorType:
    m = _TYPE.match(text.strip())
    if not m:
        raise ParseError(f"bad type {text!r}")
    # A dimension is an int or a symbolic one (`n`, `2*n+1`: frame.ir.types.Dim).
    dims = tuple(int(d) if d.strip().isdigit() else Dim.parse(d) for d in m.group(2).split(",") if d.strip())
    return TensorType(dims, SHORT_TO_DTYPE[m.group(1)], m.group(3) or "cpu")


def _literal(node):
    """A tiny literal evaluator: numbers, strings, tuples, lists, True/False/None, inf, nan, unary minus."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name) and node.id in _NAMES:
        return _NAMES[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_literal(node.operand)
    if isinstance(node, ast.Tuple):
        return tuple(_literal(e) for e in node.elts)
    if isinstance(node, ast.List):
        return [_literal(e) for e in node.elts]
    if isinstance(node, (ast.Name, ast.BinOp)):   # a symbolic dimension in a shape attribute (`shape=(n, 1)`)
        return dim_of_ast(node)
    raise ParseError(f"not a literal: {ast.dump(node)}")


def _split_top(text: str) -> list[str]:
    """Split on commas that are not nested inside (), [], <>, {} or quotes."""
    parts, depth, quote, cur = [], 0, None, []
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([<{":
            depth += 1
        elif ch in ")]>}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def _graph_attr_type(op: str, key: str):
    """The Graph subclass (with an `of(graph)` constructor) that op `op` declares for attribute `key`."""

    schema = find(op)
    kinds = schema.attrs.get(key, ((),))[0] if schema is not None else ()
    for kind in kinds:
        if isinstance(kind, type) and issubclass(kind, Graph) and hasattr(kind, "of"):
            return kind
    raise ParseError(f"op '{op}' takes no graph in attribute '{key}'")


def _parse_attrs(text: str, out_types: list[TensorType], op: str) -> dict:
    attrs = {}
    for item in _split_top(text):
        key, _, raw = item.partition("=")
        key, raw = key.strip(), raw.strip()
        if raw.startswith("dense<") and raw.endswith(">"):
            if not out_types:
                raise ParseError(f"dense attr {key} needs a typed result")
            t = out_types[0]
            literal = _literal(ast.parse(raw[len("dense<"):-1], mode="eval").body)
            arr = np.asarray(literal, dtype=t.dtype)
            attrs[key] = np.full(t.shape, arr, dtype=t.dtype) if arr.ndim == 0 else arr.reshape(t.shape)
        elif raw.startswith("graph "):   # a nested graph (a fused node's body), of the type the op declares
            attrs[key] = _graph_attr_type(op, key).of(parse_graph(raw))
        else:
            attrs[key] = _literal(ast.parse(raw, mode="eval").body)
    return attrs


def _braces(line: str) -> int:
    """How many more `{` than `}` the line opens, outside quotes."""
    depth, quote = 0, None
    for ch in line:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        else:
            depth += (ch == "{") - (ch == "}")
    return depth


def _statements(lines: list[str]):
    """(line number, statement) pairs: a node whose attrs hold a nested graph spans several lines."""
    i = 1
    while i < len(lines):
        start, statement, depth = i, lines[i], _braces(lines[i])
        while depth > 0 and i + 1 < len(lines):
            i += 1
            statement += "\n" + lines[i]
            depth += _braces(lines[i])
        yield start + 1, statement
        i += 1


def parse_graph(text: str) -> Graph:
    """Parse the text form into a new `Graph` (types are re-inferred and checked against the text)."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip() and not ln.strip().startswith("//")]
    if not lines:
        raise ParseError("empty text")
    m = _HEADER.match(lines[0])
    if not m:
        raise ParseError(f"line 1: expected 'graph @name(...) {{', got {lines[0]!r}")
    graph = Graph(m.group(1))
    env: dict[str, Value] = {}
    for param in _split_top(m.group(2)):
        pname, _, ptype = param.partition(":")
        env[pname.strip()] = graph.add_input(parse_type(ptype))
    for lineno, line in _statements(lines):
        if line == "}":
            return graph
        if line.startswith("return"):
            inner = line[len("return"):].strip()
            if not (inner.startswith("(") and inner.endswith(")")):
                raise ParseError(f"line {lineno}: bad return {line!r}")
            for name in _split_top(inner[1:-1]):
                if name not in env:
                    raise ParseError(f"line {lineno}: return of undefined value {name}")
                graph.mark_output(env[name])
            continue
        nm = _NODE.match(line)
        if not nm:
            raise ParseError(f"line {lineno}: cannot parse {line!r}")
        results = []
        if nm.group("lhs"):
            for item in _split_top(nm.group("lhs")):
                rname, _, rtype = item.partition(":")
                results.append((rname.strip(), parse_type(rtype)))
        args = []
        for a in _split_top(nm.group("args")):
            if a not in env:
                raise ParseError(f"line {lineno}: use of undefined value {a}")
            args.append(env[a])
        attrs = _parse_attrs(nm.group("attrs") or "", [t for _, t in results], nm.group("op"))
        node = graph.add_node(nm.group("op"), args, attrs)
        if len(node.outputs) != len(results) or any(v.type != t for v, (_, t) in zip(node.outputs, results)):
            got = ", ".join(str(v.type) for v in node.outputs)
            want = ", ".join(str(t) for _, t in results)
            raise ParseError(f"line {lineno}: '{nm.group('op')}' infers ({got}) but the text says ({want})")
        for v, (rname, _) in zip(node.outputs, results):
            env[rname] = v
    raise ParseError("missing closing '}'")
