"""The compiled value-and-gradient of `loss_fn(params, *data)`, and the parameter pytrees it takes.

`LossGraph` traces the loss, derives the training graph `[params..., data...] -> [loss, grads...]`
with `build_backward_graph` and compiles it once per data signature; `Trainer` and `lbfgs` both run it.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ..compiler.autograd import build_backward_graph
from ..errors import GradientError, InputError
from ..frontend.pytree import TreeDef, tree_flatten, tree_unflatten
from ..frontend.tracer import example_type, trace_function
from ..ir.types import TensorType
from ..runtime.compile import compile as compile_graph
from ..runtime.executable import Executable

__all__ = ["LossGraph", "as_param_leaves", "leaf_paths", "scalar"]


def leaf_paths(treedef: TreeDef) -> list[str]:
    """Readable names of a pytree's leaves, e.g. `['layers'][0]['w']`, in flattening order."""
    paths: list[str] = []

    def walk(td: TreeDef, prefix: str):
        if td.kind == "leaf":
            paths.append(prefix or "<root>")
        elif td.kind == "dict":
            for k, c in zip(td.meta, td.children):
                walk(c, f"{prefix}[{k!r}]")
        else:
            for i, c in enumerate(td.children):
                walk(c, f"{prefix}[{i}]")

    walk(treedef, "")
    return paths


def as_param_leaves(params) -> tuple[list[np.ndarray], TreeDef]:
    """Flatten a parameter pytree into fresh float numpy arrays; `InputError` for non-float leaves."""
    leaves, treedef = tree_flatten(params)
    if not leaves:
        raise InputError("params has no leaves: there is nothing to train")
    paths = leaf_paths(treedef)
    arrays = []
    for i, (leaf, path) in enumerate(zip(leaves, paths)):
        a = np.array(leaf)  # a copy: the caller's arrays are never touched
        if a.dtype.name not in ("float32", "float64"):
            raise InputError(f"parameter {path} has dtype {a.dtype.name} and shape {list(a.shape)}; parameters "
                             "must be float32 or float64 arrays", i, "float32|float64", a.dtype.name)
        arrays.append(a)
    return arrays, treedef


class LossGraph:
    """`loss_fn(params, *data)` compiled into its training graph `[params..., data...] -> [loss, grads...]`.

    One executable per data signature (pytree structure, shapes, dtypes): a new batch of the same
    shape reuses it. `.compiled(data)` returns the executable and the flat data arrays;
    `.value_and_grad(param_leaves, data)` runs it.
    """

    def __init__(self, loss_fn: Callable, param_treedef: TreeDef, param_types: Sequence[TensorType]):
        self.loss_fn, self.param_treedef = loss_fn, param_treedef
        self.param_types = list(param_types)
        self._executables: dict[tuple, Executable] = {}
        self._graphs: dict[tuple, object] = {}  # graph_for's traces (data-parallel training compiles on workers)
        self.graph = None  # the latest training graph (for inspection)

    def _trace(self, data: tuple):
        params_example = tree_unflatten(self.param_treedef, self.param_types)
        res = trace_function(lambda p, *d: self.loss_fn(p, *d), (params_example, *data),
                             name=getattr(self.loss_fn, "__name__", "loss_fn").replace("<", "").replace(">", ""))
        if len(res.graph.outputs) != 1:
            raise GradientError(f"loss_fn must return one scalar, got {len(res.graph.outputs)} outputs "
                                f"(structure {res.out_tree})")
        n = len(self.param_types)
        return build_backward_graph(res.graph, 0, list(range(n)))

    @staticmethod
    def _signature(data: tuple) -> tuple[tuple, TreeDef, list]:
        leaves, treedef = tree_flatten(data)
        arrays = [a if isinstance(a, np.ndarray) else np.asarray(a) for a in leaves]
        return (treedef, tuple((a.shape, a.dtype) for a in arrays)), treedef, arrays

    def compiled(self, data: tuple) -> tuple[Executable, list]:
        """The executable for this data signature and the flat data arrays to feed it."""
        key, treedef, arrays = self._signature(data)
        exe = self._executables.get(key)
        if exe is None:
            self.graph = self._trace(tree_unflatten(treedef, [example_type(a) for a in arrays]))
            exe = self._executables[key] = compile_graph(self.graph)
        return exe, arrays

    def graph_for(self, data: tuple):
        """The training graph for this data signature, traced (once per signature) but not compiled.

        `frame.distributed` ships it to the workers, which compile it; the client never runs it.
        """
        key, treedef, arrays = self._signature(data)
        graph = self._graphs.get(key)
        if graph is None:
            graph = self._graphs[key] = self._trace(tree_unflatten(treedef, [example_type(a) for a in arrays]))
        self.graph = graph
        return graph

    def value_and_grad(self, params: Sequence[np.ndarray], data: tuple) -> tuple[np.ndarray, list[np.ndarray]]:
        exe, arrays = self.compiled(data)
        outs = exe(*params, *arrays)
        return outs[0], outs[1:]


def scalar(loss: np.ndarray) -> float:
    """The loss (rank 0 or one element) as a Python float."""
    return float(np.asarray(loss).reshape(-1)[0])
