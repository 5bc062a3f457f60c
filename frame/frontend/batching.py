"""`vmap`: JAX's vectorising map, as the graph transform `build_batched_graph` (frame/compiler/batching.py).

`vmap(f)` traces `f` on one example (the arguments with their batch axis removed), derives the graph
that runs it on the whole batch at once, and evaluates that graph like every other transform: compiled
and run outside a trace, inlined into the enclosing trace inside one. So `vmap(vmap(f))`,
`vmap(grad(f))` (per-example gradients), `grad` of a function calling `vmap(f)`, `frame.function(vmap(f))`
and `vmap(frame.function(f))` all nest, to any depth.
"""
from __future__ import annotations

import functools
from typing import Callable, Sequence

from ..compiler.batching import batched_outputs, build_batched_graph
from ..errors import ShapeError, TraceError
from ..ir.graph import Graph
from ..ir.printer import fingerprint
from ..ir.types import TensorType
from .pytree import TreeDef, child_keys, node_children, tree_flatten, tree_leaves, tree_paths, tree_unflatten
from .tracer import example_type, trace_function
from .transforms import evaluate, memoised_derivation


def batched_graph(graph: Graph, in_axes: Sequence[int | None], size: int,
                  out_axes: Sequence[int | None] | None = None) -> Graph:
    """`build_batched_graph`, memoised (least recently used first out) by (fingerprint, in_axes, size, out_axes)."""
    key = ("vmap", fingerprint(graph), tuple(in_axes), size, None if out_axes is None else tuple(out_axes))
    return memoised_derivation(key, lambda: build_batched_graph(graph, in_axes, size, out_axes))


def _is_axis(a) -> bool:
    return a is None or isinstance(a, int) and not isinstance(a, bool)


def _valid_spec(spec) -> bool:
    """An axis, or a pytree (containers or registered nodes) of axes, None counting as an axis."""
    return all(_is_axis(a) for a in tree_leaves(spec, is_leaf=lambda x: x is None))


def _check_spec(spec, name: str) -> None:
    """`in_axes`/`out_axes`: an int, None, or a tuple (per positional argument / per output element) whose
    entries are ints, Nones or pytrees of those matching a prefix of that argument's or output's pytree (as in JAX)."""
    if not _valid_spec(spec) or name == "in_axes" and isinstance(spec, dict):
        raise TraceError(f"vmap: {name} must be an int, None, or a tuple of ints and Nones (one per "
                         f"{'positional argument' if name == 'in_axes' else 'output'}; an entry may be a "
                         f"list/tuple/dict or registered pytree of those matching that pytree), got {spec!r}")


def _describe(td: TreeDef) -> str:
    if td.kind == "leaf":
        return "a single array"
    if td.kind == "dict":
        return f"keys {list(td.meta)}"
    if td.kind == "custom":
        return f"a {td.meta[0].__qualname__} node of {len(td.children)} children"
    return f"{len(td.children)} entries"


def _leaf_specs(spec, td: TreeDef, where: str, name: str, fn_name: str) -> list:
    """One axis per leaf of the structure `td`: `spec` is a prefix of it, an axis standing for every leaf below it."""
    if _is_axis(spec):
        return [spec] * td.num_leaves
    specs = node_children(td, spec, loose=True)   # a list may stand for a tuple and the reverse
    if specs is None:
        raise TraceError(f"vmap of '{fn_name}': {name} {spec!r} does not match the structure of {where}, which has "
                         f"{_describe(td)}; give one int or None per entry (or one for all of it)")
    return [a for sp, sub, key in zip(specs, td.children, child_keys(td))
            for a in _leaf_specs(sp, sub, f"{where}{key}", name, fn_name)]


def _leaf_axis(axis: int | None, rank: int, label: str, fn_name: str, extra: int = 0) -> int | None:
    """`axis` normalised (negative axes count from the end) for a leaf of `rank` (+ `extra` for outputs)."""
    if axis is None:
        return None
    full = rank + extra
    if not -full <= axis < full:
        kind = "out_axes" if extra else "in_axes"
        detail = (f"the per-example output has rank {rank}" if extra else
                  f"it has rank {rank}" + (" (a scalar cannot be mapped over)" if rank == 0 else ""))
        raise ShapeError(f"vmap of '{fn_name}': {kind} {axis} is out of range for {label}: {detail}")
    return axis % full


def vmap(fn: Callable, in_axes=0, out_axes=0) -> Callable:
    """Vectorise `fn` over a batch axis of its arguments, like `jax.vmap`.

    - `in_axes`: an int (the batch axis of every argument), None (an argument shared by every example),
      or a tuple with one entry per positional argument: an int or None applied to every leaf of that
      argument's pytree, or a list/tuple/dict of entries matching its structure (a pytree prefix, as
      in JAX). Negative axes count from the end. Keyword arguments are mapped over axis 0, as in JAX.
      Every mapped leaf must have the same size along its axis (the batch size).
    - `out_axes`: the same for the output (an int, None, or a prefix of the output's pytree): where
      the batch axis goes in each output leaf. None leaves an output unbatched, which needs it not to
      depend on the mapped arguments. Outputs that do not depend on them are broadcast along the axis.
    - Values the function closes over (outer tracers, numpy arrays) are shared by every example.

    `vmap(grad(loss), in_axes=(None, 0))(params, batch)` gives per-example gradients.
    """
    _check_spec(in_axes, "in_axes")
    _check_spec(out_axes, "out_axes")
    if not callable(fn):
        raise TraceError(f"vmap needs a callable, got {type(fn).__name__}")

    @functools.wraps(fn)
    def batched(*args, **kwargs):
        return _vmap_call(fn, in_axes, out_axes, args, kwargs)

    return batched


def _vmap_call(fn, in_axes, out_axes, args: tuple, kwargs: dict):
    name = getattr(fn, "__name__", "fn")
    if isinstance(in_axes, (tuple, list)) and len(in_axes) != len(args):
        raise TraceError(f"vmap of '{name}': in_axes {tuple(in_axes)!r} has {len(in_axes)} entries but it was called "
                         f"with {len(args)} positional arguments; give one int or None per argument")
    arg_axes = in_axes if isinstance(in_axes, (tuple, list)) else [in_axes] * len(args)
    leaves, axes, labels = [], [], []
    parts = [(f"argument {i}", a, ax) for i, (a, ax) in enumerate(zip(args, arg_axes))]
    if kwargs:
        parts.append(("keyword argument", kwargs, 0))
    for label, part, spec in parts:
        part_leaves, tree = tree_flatten(part)
        part_axes = _leaf_specs(spec, tree, label, "in_axes", name)
        for leaf, path, axis in zip(part_leaves, tree_paths(tree), part_axes):
            t = example_type(leaf)
            where = label + path if label != "keyword argument" else f"keyword argument {path[2:-2]}"
            leaves.append(leaf)
            labels.append(f"{where} (shape {t.shape})")
            axes.append(_leaf_axis(axis, t.rank, f"{where} of shape {t.shape}", name))
    sizes = {label: example_type(leaf).shape[ax] for leaf, ax, label in zip(leaves, axes, labels) if ax is not None}
    if not sizes:
        raise TraceError(f"vmap of '{name}' needs at least one mapped argument, but in_axes maps none of its "
                         f"{len(leaves)} argument leaves (in_axes={in_axes!r})")
    if len(set(sizes.values())) > 1:
        listed = ", ".join(f"{label}: {size}" for label, size in sizes.items())
        raise ShapeError(f"vmap of '{name}': the mapped arguments have different sizes along their batch axes "
                         f"({listed}); they must all agree")
    size = next(iter(sizes.values()))

    def one_example(leaf, axis):
        if axis is None:
            return leaf
        t = example_type(leaf)
        return TensorType(t.shape[:axis] + t.shape[axis + 1:], t.dtype, t.device)

    _, in_tree = tree_flatten((args, kwargs))
    example_args, example_kwargs = tree_unflatten(in_tree, [one_example(v, a) for v, a in zip(leaves, axes)])
    res = trace_function(lambda a, k: fn(*a, **k), (example_args, example_kwargs), name=name)
    out_leaf_axes = _output_axes(res, out_axes, name)
    in_leaf_axes = axes + [None] * len(res.captures)   # closed-over values are shared by every example
    mapped = batched_outputs(res.graph, [a is not None for a in in_leaf_axes])
    for path, ax, is_mapped in zip(tree_paths(res.out_tree), out_leaf_axes, mapped):
        if ax is None and is_mapped:
            raise TraceError(f"vmap of '{name}': output{path or ''} depends on the mapped arguments, so out_axes "
                             "None cannot leave it unbatched; give it an axis (e.g. 0)")
    graph = batched_graph(res.graph, in_leaf_axes, size, out_leaf_axes)
    return tree_unflatten(res.out_tree, evaluate(graph, [*leaves, *res.captures]))


def _output_axes(res, out_axes, name: str) -> list[int | None]:
    """One normalised out axis per output leaf (`out_axes` a prefix of the output's pytree)."""
    tree = res.out_tree
    per_leaf = _leaf_specs(out_axes, tree, "the output", "out_axes", name)
    return [_leaf_axis(ax, v.type.rank, f"output{path} of per-example shape {v.type.shape}", name, extra=1)
            for ax, v, path in zip(per_leaf, res.graph.outputs, tree_paths(tree))]
