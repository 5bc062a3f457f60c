"""Pytrees as JAX has them: nested lists, tuples (incl. namedtuples), dicts and None, plus any class
registered as a node (`register_pytree_node`, `register_dataclass`, ...); everything else is a leaf.

Dict keys are flattened in sorted order, as in JAX. `None` is an empty subtree. A registered node is
flattened by its own function into children and auxiliary data; the auxiliary data is part of the
structure (it keys compilation caches, so it must be hashable and comparable with `==`).
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Any, Callable, NamedTuple

from ..errors import InputError, TraceError

_MISSING = object()


# -- key paths: one entry per step from the root to a leaf, printed as JAX prints them

@dataclasses.dataclass(frozen=True)
class SequenceKey:
    idx: int

    def __str__(self):
        return f"[{self.idx}]"


@dataclasses.dataclass(frozen=True)
class DictKey:
    key: Any

    def __str__(self):
        return f"[{self.key!r}]"


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    name: str

    def __str__(self):
        return f".{self.name}"


@dataclasses.dataclass(frozen=True)
class FlattenedIndexKey:
    key: int

    def __str__(self):
        return f"[<flat index {self.key}>]"


def keystr(keys, *, simple: bool = False, separator: str = "/") -> str:
    """A key path as a string: `"['a'][0].w"`, or with `simple=True` the bare keys joined by `separator`."""
    if not simple:
        return "".join(map(str, keys))
    bare = [k.idx if isinstance(k, SequenceKey) else k.key if isinstance(k, (DictKey, FlattenedIndexKey))
            else k.name if isinstance(k, GetAttrKey) else k for k in keys]
    return separator.join(map(str, bare))


# -- the registry of node types

class _NodeType(NamedTuple):
    flatten: Callable | None   # node -> (children, aux); unused when flatten_with_keys is given
    unflatten: Callable        # (aux, children) -> node
    flatten_with_keys: Callable | None   # node -> (((key, child), ...), aux)
    field_names: tuple | None  # attribute names of the children, when fixed (dataclasses)


_REGISTRY: dict[type, _NodeType] = {}
_BUILTIN = (type(None), dict, list, tuple)


def _check_registrable(nodetype, api: str) -> None:
    if not isinstance(nodetype, type):
        raise InputError(f"{api}: expected a class, got {nodetype!r}")
    if nodetype in _BUILTIN or nodetype in _REGISTRY:
        raise InputError(f"{api}: {nodetype.__qualname__} is already a pytree node type")


def register_pytree_node(nodetype: type, flatten_func: Callable, unflatten_func: Callable,
                         flatten_with_keys_func: Callable | None = None) -> None:
    """Make instances of `nodetype` pytree nodes, as `jax.tree_util.register_pytree_node`.

    `flatten_func(node) -> (children, aux_data)` with `children` an iterable of subtrees and `aux_data`
    hashable static data; `unflatten_func(aux_data, children) -> node` rebuilds one. With
    `flatten_with_keys_func(node) -> (((key, child), ...), aux_data)` key paths name the children.
    """
    _check_registrable(nodetype, "register_pytree_node")
    _REGISTRY[nodetype] = _NodeType(flatten_func, unflatten_func, flatten_with_keys_func, None)


def register_pytree_with_keys(nodetype: type, flatten_with_keys: Callable, unflatten_func: Callable,
                              flatten_func: Callable | None = None) -> None:
    """`register_pytree_node` with key paths: `flatten_with_keys(node) -> (((key, child), ...), aux)`, which
    flattening then uses (so `flatten_func`, accepted as JAX takes it, is not needed)."""
    register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def register_pytree_node_class(cls: type) -> type:
    """Class decorator: `cls.tree_flatten(self)` and the classmethod `cls.tree_unflatten(aux, children)`."""
    register_pytree_node(cls, lambda node: node.tree_flatten(), cls.tree_unflatten)
    return cls


def register_pytree_with_keys_class(cls: type) -> type:
    """Class decorator: `cls.tree_flatten_with_keys(self)` and the classmethod `cls.tree_unflatten`."""
    register_pytree_with_keys(cls, lambda node: node.tree_flatten_with_keys(), cls.tree_unflatten,
                              getattr(cls, "tree_flatten", None))
    return cls


def register_dataclass(nodetype: type | None = None, data_fields=None, meta_fields=None, drop_fields=()):
    """Make a dataclass a pytree node, as `jax.tree_util.register_dataclass`: `data_fields` are children
    (arrays or subtrees), `meta_fields` static structure (hashable). Without both lists, a dataclass's
    fields with `field(metadata=dict(static=True))` are meta and the others data. Usable as a decorator.
    Rebuilding calls the constructor with every field as a keyword, so `__init__` must accept them."""
    if nodetype is None:
        return functools.partial(register_dataclass, data_fields=data_fields, meta_fields=meta_fields,
                                 drop_fields=drop_fields)
    api = f"register_dataclass({getattr(nodetype, '__qualname__', nodetype)!s})"
    if (data_fields is None) != (meta_fields is None):
        raise InputError(f"{api}: give both data_fields and meta_fields, or neither")
    if data_fields is None:
        if not dataclasses.is_dataclass(nodetype):
            raise InputError(f"{api}: without data_fields and meta_fields the class must be a dataclass")
        init = [f for f in dataclasses.fields(nodetype) if f.init and f.name not in drop_fields]
        meta_fields = tuple(f.name for f in init if f.metadata.get("static", False))
        data_fields = tuple(f.name for f in init if not f.metadata.get("static", False))
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)
    if dataclasses.is_dataclass(nodetype):
        init = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
        if init != set(data_fields) | set(meta_fields):
            missing, extra = init - set(data_fields) - set(meta_fields), set(data_fields) | set(meta_fields) - init
            raise InputError(f"{api}: data_fields + meta_fields must be the constructor's fields; "
                             f"missing {sorted(missing)}, not fields {sorted(extra)}")

    def flatten(node):
        return [getattr(node, f) for f in data_fields], tuple(getattr(node, f) for f in meta_fields)

    def unflatten(aux, children):
        return nodetype(**dict(zip(meta_fields, aux)), **dict(zip(data_fields, children)))

    _check_registrable(nodetype, "register_dataclass")
    # key paths come from the field names (`child_keys`), so flattening builds no key objects
    _REGISTRY[nodetype] = _NodeType(flatten, unflatten, None, data_fields)
    return nodetype


def register_static(cls: type) -> type:
    """Class decorator: instances are nodes without children, the instance itself their (hashable) static data."""
    register_pytree_node(cls, lambda node: ((), node), lambda aux, _: aux)
    return cls


def registered_node_type(cls) -> bool:
    """Whether `cls` was registered as a pytree node (built-in containers are not listed)."""
    return cls in _REGISTRY


class Partial(functools.partial):
    """`functools.partial` as a pytree, as `jax.tree_util.Partial`: the bound arguments are children,
    the function is static, so a partially applied function can be passed into a `frame.function`."""

    def __new__(cls, func, *args, **kw):
        if isinstance(func, functools.partial):   # as functools.partial, but keep the pytree type
            args, kw, func = func.args + args, {**func.keywords, **kw}, func.func
        return super().__new__(cls, func, *args, **kw)


register_pytree_node(Partial, lambda p: ((p.args, p.keywords), p.func),
                     lambda func, children: Partial(func, *children[0], **children[1]))


# -- structures

class TreeDef:
    """The structure of a pytree without its leaves; hashable, so it can key caches.

    `kind` is leaf, none, list, tuple (`meta` the namedtuple class or None), dict (`meta` the sorted
    keys) or custom (`meta` = (class, aux data)). `keys` (custom nodes only) names the children for
    key paths; it is not part of the structure's identity.
    """

    __slots__ = ("kind", "meta", "children", "num_leaves", "keys", "_hash")

    def __init__(self, kind: str, meta, children: tuple["TreeDef", ...], keys: tuple | None = None):
        self.kind, self.meta, self.children, self.keys = kind, meta, children, keys
        self.num_leaves = 1 if kind == "leaf" else sum(c.num_leaves for c in children)
        self._hash = None

    def __eq__(self, other):
        return isinstance(other, TreeDef) and (self.kind, self.meta, self.children) == (other.kind, other.meta, other.children)

    def __hash__(self):
        if self._hash is None:
            try:
                self._hash = hash((self.kind, self.meta, self.children))
            except TraceError:   # a child's, already named
                raise
            except TypeError:
                cls = self.meta[0].__qualname__ if self.kind == "custom" else self.kind
                raise TraceError(f"pytree node {cls}: its auxiliary (static) data {self.meta[1]!r} is not hashable; "
                                 "static data keys frame's compilation cache, so it must be (use tuples, not lists "
                                 "or arrays)") from None
        return self._hash

    @property
    def num_nodes(self) -> int:
        return 1 + sum(c.num_nodes for c in self.children)

    def unflatten(self, leaves):
        return tree_unflatten(self, leaves)

    def flatten_up_to(self, tree) -> list:
        """The subtrees of `tree` at this structure's leaves (this structure must be a prefix of `tree`'s)."""
        out: list = []
        _flatten_up_to(self, tree, out, "")
        return out

    def __repr__(self):
        if self.kind == "leaf":
            return "*"
        if self.kind == "none":
            return "None"
        inner = ", ".join(map(repr, self.children))
        if self.kind == "dict":
            return "{" + ", ".join(f"{k!r}: {c!r}" for k, c in zip(self.meta, self.children)) + "}"
        if self.kind == "custom":
            cls, aux = self.meta
            return f"{getattr(cls, '__qualname__', cls)}[{aux!r}]({inner})"
        return f"[{inner}]" if self.kind == "list" else f"({inner})"


LEAF = TreeDef("leaf", None, ())
_NONE = TreeDef("none", None, ())


def _node(x):
    """One level of `x`: (kind, meta, children, keys), or None for a leaf."""
    if x is None:
        return "none", None, [], None
    node_type = _REGISTRY.get(type(x))
    if node_type is not None:
        if node_type.flatten_with_keys is not None:
            pairs, aux = node_type.flatten_with_keys(x)
            pairs = list(pairs)
            return "custom", (type(x), aux), [c for _, c in pairs], tuple(k for k, _ in pairs)
        children, aux = node_type.flatten(x)
        return "custom", (type(x), aux), list(children), None
    if isinstance(x, dict):
        keys = tuple(sorted(x))
        return "dict", keys, [x[k] for k in keys], None
    if isinstance(x, list):
        return "list", None, x, None
    if isinstance(x, tuple):
        return "tuple", type(x) if type(x) is not tuple else None, x, None
    return None


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list, TreeDef]:
    """The leaves of `tree` (left to right; dict keys sorted) and its structure. `is_leaf(node)` true
    stops the walk there, making the node a leaf."""
    leaves: list = []

    def walk(node) -> TreeDef:
        level = None if is_leaf is not None and is_leaf(node) else _node(node)
        if level is None:
            leaves.append(node)
            return LEAF
        kind, meta, children, keys = level
        if kind == "none":
            return _NONE
        return TreeDef(kind, meta, tuple(walk(c) for c in children), keys)

    return leaves, walk(tree)


def tree_unflatten(treedef: TreeDef, leaves) -> Any:
    """The pytree of structure `treedef` with `leaves` in leaf order."""
    leaves = list(leaves)
    if len(leaves) != treedef.num_leaves:
        raise InputError(f"tree_unflatten: the structure {treedef} has {treedef.num_leaves} leaves, "
                         f"got {len(leaves)}")
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
        if td.kind == "custom":
            cls, aux = td.meta
            return _REGISTRY[cls].unflatten(aux, children)
        return td.meta(*children) if td.meta is not None else tuple(children)

    return build(treedef)


def node_children(td: TreeDef, value, loose: bool = False) -> list | None:
    """`value`'s children in `td`'s order when `value`'s top node is `td`'s (None if it is not). With
    `loose`, a list may stand for a tuple and the reverse (namedtuples included), as a cotangent may."""
    if td.kind == "leaf":
        return None
    level = _node(value)
    if level is None:
        return None
    kind, meta, children, _ = level
    if loose and kind in ("list", "tuple") and td.kind in ("list", "tuple"):
        return list(children) if len(children) == len(td.children) else None
    if (kind, meta) != (td.kind, td.meta) or len(children) != len(td.children):
        return None
    return list(children)


def _flatten_up_to(td: TreeDef, tree, out: list, path: str) -> None:
    if td.kind == "leaf":
        out.append(tree)
        return
    children = node_children(td, tree)
    if children is None:
        got = tree_flatten(tree)[1]
        raise InputError(f"pytree structure mismatch at {path or 'the root'}: expected {td}, got {got}")
    for child_td, child, key in zip(td.children, children, child_keys(td)):
        _flatten_up_to(child_td, child, out, path + str(key))


def tree_structure(tree, is_leaf=None) -> TreeDef:
    return tree_flatten(tree, is_leaf)[1]


def tree_leaves(tree, is_leaf=None) -> list:
    return tree_flatten(tree, is_leaf)[0]


def tree_map(fn, tree, *rest, is_leaf=None):
    """`fn` applied leaf by leaf; each of `rest` has `tree`'s structure or `tree`'s as a prefix (then
    `fn` gets its whole subtree at each leaf of `tree`), as `jax.tree_util.tree_map`."""
    leaves, td = tree_flatten(tree, is_leaf)
    others = [td.flatten_up_to(r) for r in rest]
    return tree_unflatten(td, [fn(*xs) for xs in zip(leaves, *others)])


def tree_reduce(fn, tree, initializer=_MISSING, is_leaf=None):
    leaves = tree_leaves(tree, is_leaf)
    return functools.reduce(fn, leaves) if initializer is _MISSING else functools.reduce(fn, leaves, initializer)


def tree_all(tree, *, is_leaf=None) -> bool:
    return all(tree_leaves(tree, is_leaf))


def all_leaves(iterable, is_leaf=None) -> bool:
    """Whether every item of `iterable` is a leaf."""
    return all(tree_structure(x, is_leaf) == LEAF for x in iterable)


def treedef_is_leaf(td: TreeDef) -> bool:
    return td.kind == "leaf"


def treedef_children(td: TreeDef) -> list[TreeDef]:
    return list(td.children)


def tree_transpose(outer_treedef: TreeDef, inner_treedef: TreeDef | None, pytree_to_transpose):
    """A tree of structure outer(inner) turned into inner(outer), as `jax.tree_util.tree_transpose`."""
    outer_parts = outer_treedef.flatten_up_to(pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_structure(outer_parts[0]) if outer_parts else LEAF
    inner_parts = [inner_treedef.flatten_up_to(p) for p in outer_parts]
    columns = [tree_unflatten(outer_treedef, [row[i] for row in inner_parts]) for i in range(inner_treedef.num_leaves)]
    return tree_unflatten(inner_treedef, columns)


def child_keys(td: TreeDef) -> list:
    if td.kind == "dict":
        return [DictKey(k) for k in td.meta]
    if td.kind == "custom":
        if td.keys is not None:
            return list(td.keys)
        names = _REGISTRY[td.meta[0]].field_names if td.meta[0] in _REGISTRY else None
        return [GetAttrKey(n) for n in names] if names else [FlattenedIndexKey(i) for i in range(len(td.children))]
    fields = getattr(td.meta, "_fields", None)   # namedtuples show field names
    return [GetAttrKey(f) for f in fields] if fields else [SequenceKey(i) for i in range(len(td.children))]


def key_paths(treedef: TreeDef) -> list[tuple]:
    """One key path (a tuple of key entries) per leaf of `treedef`, in leaf order."""
    paths: list[tuple] = []

    def walk(td: TreeDef, prefix: tuple):
        if td.kind == "leaf":
            paths.append(prefix)
            return
        for key, child in zip(child_keys(td), td.children):
            walk(child, prefix + (key,))

    walk(treedef, ())
    return paths


def tree_paths(treedef: TreeDef) -> list[str]:
    """One path string per leaf of `treedef`, in leaf order: `""` for a bare leaf, else e.g. `[0]['w']`."""
    return [keystr(p) for p in key_paths(treedef)]


def tree_flatten_with_path(tree, is_leaf=None) -> tuple[list[tuple], TreeDef]:
    """[(key path, leaf), ...] and the structure, as `jax.tree_util.tree_flatten_with_path`."""
    leaves, td = tree_flatten(tree, is_leaf)
    return list(zip(key_paths(td), leaves)), td


def tree_leaves_with_path(tree, is_leaf=None) -> list[tuple]:
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(fn, tree, *rest, is_leaf=None):
    """`fn(path, leaf, *others)` leaf by leaf, as `jax.tree_util.tree_map_with_path`."""
    leaves, td = tree_flatten(tree, is_leaf)
    others = [td.flatten_up_to(r) for r in rest]
    return tree_unflatten(td, [fn(p, *xs) for p, *xs in zip(key_paths(td), leaves, *others)])
