"""`frame.tree_util`: `jax.tree_util`'s names for frame's pytrees (`frame.frontend.pytree`).

Register your own classes as nodes (`register_dataclass`, `register_pytree_node`, ...) and they pass
through `frame.function`, `grad`, `vmap`, the control-flow functions, custom derivatives, optimisers and
checkpoints like dicts and tuples do: their children are traced, their static data keys the caches.
"""
from .frontend.pytree import (DictKey, FlattenedIndexKey, GetAttrKey, Partial, SequenceKey, all_leaves, keystr,
                              register_dataclass, register_pytree_node, register_pytree_node_class,
                              register_pytree_with_keys, register_pytree_with_keys_class, register_static,
                              tree_all, tree_flatten, tree_flatten_with_path, tree_leaves, tree_leaves_with_path,
                              tree_map, tree_map_with_path, tree_reduce, tree_structure, tree_transpose,
                              tree_unflatten, treedef_children, treedef_is_leaf)
from .frontend.pytree import TreeDef as PyTreeDef

__all__ = ["PyTreeDef", "DictKey", "FlattenedIndexKey", "GetAttrKey", "SequenceKey", "Partial", "all_leaves", "keystr",
           "register_dataclass", "register_pytree_node", "register_pytree_node_class", "register_pytree_with_keys",
           "register_pytree_with_keys_class", "register_static", "tree_all", "tree_flatten", "tree_flatten_with_path",
           "tree_leaves", "tree_leaves_with_path", "tree_map", "tree_map_with_path", "tree_reduce", "tree_structure",
           "tree_transpose", "tree_unflatten", "treedef_children", "treedef_is_leaf"]
