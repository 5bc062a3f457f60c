"""`frame.tree`: the short names of `jax.tree` (`frame.tree.map`, `frame.tree.leaves`, ...)."""
from .frontend.pytree import (tree_all as all, tree_flatten as flatten,  # noqa: A004 (jax.tree's names)
                              tree_flatten_with_path as flatten_with_path, tree_leaves as leaves,
                              tree_leaves_with_path as leaves_with_path, tree_map as map,
                              tree_map_with_path as map_with_path, tree_reduce as reduce, tree_structure as structure,
                              tree_transpose as transpose, tree_unflatten as unflatten)

__all__ = ["all", "flatten", "flatten_with_path", "leaves", "leaves_with_path", "map", "map_with_path", "reduce",
           "structure", "transpose", "unflatten"]
