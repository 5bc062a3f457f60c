"""Minimal pytrees: nested lists, tuples (incl. namedtuples) and dicts; everything else is a leaf.

Dict keys are flattened in sorted order, as in JAX. `None` is an empty subtree.
"""
from __future__ import annotations

from typing import Any


class TreeDef:
    """The structure of a pytree without its leaves; hashable, so it can key caches."""

    __slots__ = ("kind", "meta", "children", "num_leaves", "_hash")

    def __init__(self, kind: str, meta, children: tuple["TreeDef", ...]):
        self.kind, self.meta, self.children = kind, meta, children
        self.num_leaves = 1 if kind == "leaf" else sum(c.num_leaves for c in children)
        self._hash = hash((kind, meta, children))

    def __eq__(self, other):
        return isinstance(other, TreeDef) and (self.kind, self.meta, self.children) == (other.kind, other.meta, other.children)

    def __hash__(self):
        return self._hash

    def __repr__(self):
        if self.kind == "leaf":
            return "*"
        if self.kind == "none":
            return "None"
        inner = ", ".join(map(repr, self.children))
        if self.kind == "dict":
            inner = ", ".join(f"{k!r}: {c!r}" for k, c in zip(self.meta, self.children))
            return "{" + inner + "}"
        return f"[{inner}]" if self.kind == "list" else f"({inner})"


LEAF = TreeDef("leaf", None, ())


def tree_flatten(tree: Any) -> tuple[list, TreeDef]:
    leaves: list = []

    def walk(node) -> TreeDef:
        if node is None:
            return TreeDef("none", None, ())
        if isinstance(node, dict):
            keys = tuple(sorted(node))
            return TreeDef("dict", keys, tuple(walk(node[k]) for k in keys))
        if isinstance(node, list):
            return TreeDef("list", None, tuple(walk(c) for c in node))
        if isinstance(node, tuple):
            return TreeDef("tuple", type(node) if type(node) is not tuple else None, tuple(walk(c) for c in node))
        leaves.append(node)
        return LEAF

    return leaves, walk(tree)


def tree_unflatten(treedef: TreeDef, leaves) -> Any:
    it = iter(leaves)

    def build(td: TreeDef):
        if td.kind == "leaf":
            return next(it)
        if td.kind == "none":
            return None
        children = [build(c) for c in td.children]
        if td.kind == "dict":
            return dict(zip(td.meta, children))
        if td.kind == "list":
            return children
        return td.meta(*children) if td.meta is not None else tuple(children)

    return build(treedef)


def tree_leaves(tree) -> list:
    return tree_flatten(tree)[0]


def tree_map(fn, tree, *rest):
    leaves, td = tree_flatten(tree)
    others = [tree_flatten(r)[0] for r in rest]
    return tree_unflatten(td, [fn(*xs) for xs in zip(leaves, *others)])


def tree_paths(treedef: TreeDef) -> list[str]:
    """One path string per leaf of `treedef`, in leaf order: `""` for a bare leaf, else e.g. `[0]['w']`."""
    paths: list[str] = []

    def walk(td: TreeDef, prefix: str):
        if td.kind == "leaf":
            paths.append(prefix)
        elif td.kind == "dict":
            for key, child in zip(td.meta, td.children):
                walk(child, f"{prefix}[{key!r}]")
        else:
            fields = getattr(td.meta, "_fields", None)  # namedtuples show field names
            for i, child in enumerate(td.children):
                walk(child, f"{prefix}.{fields[i]}" if fields else f"{prefix}[{i}]")

    walk(treedef, "")
    return paths
