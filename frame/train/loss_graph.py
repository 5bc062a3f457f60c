"""The compiled value-and-gradient of `loss_fn(params, *data)`, and the parameter pytrees it takes.

`LossGraph` traces the loss, derives the training graph `[params..., data...] -> [loss, grads...]`
with `build_backward_graph` and compiles it once per data signature; `Trainer` and `lbfgs` both run it.
With `dynamic_axes` (issue 17 item 2) the signature has symbolic sizes on those axes, so one trace and
one compile serve every size of them (a collocation set resampled with a new count, a last short batch).
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ..compiler.autograd import build_backward_graph
from ..errors import GradientError, InputError, TraceError
from ..frontend.pytree import TreeDef, tree_flatten, tree_paths, tree_unflatten
from ..frontend.tracer import ShapeDtype, example_type, trace_function
from ..ir.types import Dim, TensorType
from ..runtime.compile import compile as compile_graph
from ..runtime.executable import Executable

__all__ = ["LossGraph", "as_param_leaves", "leaf_paths", "scalar", "data_dynamic_axes"]

MAX_ALIASES = 256
"""Concrete data signatures a dynamic `LossGraph` maps to its symbolic one without rebuilding it."""


def _is_index(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def data_dynamic_axes(dynamic_axes, owner: str = "Trainer") -> dict[int, dict[int, Dim]]:
    """`dynamic_axes` of the data arguments normalised to `{data argnum: {axis: Dim symbol}}`.

    Keys count the data arguments of `loss_fn(params, *data)` from 0 (`params` is not counted: key 0
    is the first data argument). Values have `frame.function`'s meaning: an axis, a tuple of axes, or
    a dict `{axis: symbol name}`; an axis given by number alone gets the symbol `n<axis>`, so the
    leading axes of all dynamic arguments share one size unless named apart. `TraceError` (a
    `FrameError`) for anything else, naming `owner`.
    """
    if dynamic_axes is None:
        return {}
    if not isinstance(dynamic_axes, dict):
        raise TraceError(f"{owner}: dynamic_axes must be a dict {{data argnum: axes}} (data argument i of "
                         f"loss_fn(params, *data), counted from 0), got {dynamic_axes!r}")
    out: dict[int, dict[int, Dim]] = {}
    for key, axes in dynamic_axes.items():
        if not _is_index(key) or key < 0:
            raise TraceError(f"{owner}: dynamic_axes keys are data argument numbers >= 0 (data argument i of "
                             f"loss_fn(params, *data); params is not counted), got {key!r}")
        if _is_index(axes):
            axes = (axes,)
        if isinstance(axes, (tuple, list)):
            axes = {a: None for a in axes}
        if not isinstance(axes, dict) or not axes or not all(_is_index(a) for a in axes):
            raise TraceError(f"{owner}: dynamic_axes[{key!r}] must be an axis, a tuple of axes or a dict "
                             f"{{axis: symbol name}}, got {axes!r}")
        named = {}
        for a, name in axes.items():
            if name is None and a < 0:
                raise TraceError(f"{owner}: dynamic axis {a} of data argument {key} is negative; give it a "
                                 "symbol name ({axis: name}) or count it from the front")
            if name is not None and not (isinstance(name, str) and name.isidentifier()):
                raise TraceError(f"{owner}: the symbol of dynamic axis {a} of data argument {key} must be a "
                                 f"name (an identifier), got {name!r}")
            named[int(a)] = Dim.symbol(f"n{a}" if name is None else name)
        out[int(key)] = named
    return out


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
    `.value_and_grad(param_leaves, data)` runs it. `trace_count` and `compile_count` count the
    training graphs traced and compiled by this LossGraph.

    `dynamic_axes` (see `data_dynamic_axes`: keys are data argument numbers, 0 being the first
    argument after `params`) makes those axes of every array leaf of those data arguments symbolic
    in the signature: one trace and one compile serve every size, and a call whose arguments
    disagree on a symbol's size raises `InputError` (from the executable's input check).
    """

    def __init__(self, loss_fn: Callable, param_treedef: TreeDef, param_types: Sequence[TensorType],
                 dynamic_axes=None, owner: str = "LossGraph"):
        self.loss_fn, self.param_treedef = loss_fn, param_treedef
        self.param_types = list(param_types)
        self.dynamic_axes = data_dynamic_axes(dynamic_axes, owner)
        self._owner = owner
        self._aliases: dict[tuple, tuple] = {}  # with dynamic_axes: concrete signature -> (symbolic key, examples)
        self._executables: dict[tuple, Executable] = {}
        self._graphs: dict[tuple, object] = {}  # graph_for's traces (data-parallel training compiles on workers)
        self.graph = None  # the latest training graph (for inspection)
        self.trace_count = 0
        self.compile_count = 0

    def _trace(self, data: tuple):
        params_example = tree_unflatten(self.param_treedef, self.param_types)
        res = trace_function(lambda p, *d: self.loss_fn(p, *d), (params_example, *data),
                             name=getattr(self.loss_fn, "__name__", "loss_fn").replace("<", "").replace(">", ""))
        if len(res.graph.outputs) != 1:
            raise GradientError(f"loss_fn must return one scalar, got {len(res.graph.outputs)} outputs "
                                f"(structure {res.out_tree})")
        n = len(self.param_types)
        self.trace_count += 1
        return build_backward_graph(res.graph, 0, list(range(n)))

    @staticmethod
    def _concrete_signature(data: tuple) -> tuple[tuple, TreeDef, list]:
        leaves, treedef = tree_flatten(data)
        arrays = [a if isinstance(a, np.ndarray) else np.asarray(a) for a in leaves]
        return (treedef, tuple((a.shape, a.dtype) for a in arrays)), treedef, arrays

    def _signature(self, data: tuple) -> tuple[tuple, list | None, TreeDef, list]:
        """(cache key, the trace's example leaves or None for concrete ones, data treedef, flat data arrays). Without dynamic_axes the key
        is the concrete signature (the path every existing caller takes, unchanged); with them, a
        table maps the concrete signature to the symbolic one, built once per distinct size."""
        key, treedef, arrays = self._concrete_signature(data)
        if not self.dynamic_axes:
            return key, None, treedef, arrays
        alias = self._aliases.get(key)
        if alias is None:
            alias = self._aliases[key] = self._symbolic(data, treedef, arrays)
            while len(self._aliases) > MAX_ALIASES:
                self._aliases.pop(next(iter(self._aliases)))
        return alias[0], alias[1], treedef, arrays

    def _symbolic(self, data: tuple, treedef: TreeDef, arrays: list) -> tuple[tuple, list]:
        """The symbolic key and example leaves (`ShapeDtype`s, dynamic axes replaced by their symbols)."""
        beyond = [k for k in self.dynamic_axes if k >= len(data)]
        if beyond:
            raise TraceError(f"{self._owner}: dynamic_axes names data argument {beyond[0]}, but loss_fn got "
                             f"{len(data)} data argument(s); keys count the data arguments of "
                             "loss_fn(params, *data) from 0 (params is not counted)")
        examples = []
        for i, arg in enumerate(data):
            leaves, tree = tree_flatten(arg)
            axes = self.dynamic_axes.get(i)
            for path, leaf in zip(tree_paths(tree), leaves):
                t = example_type(leaf if isinstance(leaf, np.ndarray) else np.asarray(leaf))
                if axes is None:
                    examples.append(t)
                    continue
                shape = list(t.shape)
                for axis, symbol in axes.items():
                    k = axis if axis >= 0 else axis + len(shape)
                    if not 0 <= k < len(shape):
                        raise TraceError(f"{self._owner}: dynamic axis {axis} of data argument {i}{path} is out of "
                                         f"range for its shape {t.shape}")
                    shape[k] = symbol
                examples.append(ShapeDtype(tuple(shape), t.dtype))
        key = (treedef, tuple((tuple(e.shape), e.dtype) for e in examples))
        return key, examples

    def _examples(self, treedef: TreeDef, examples: list | None, arrays: list) -> tuple:
        return tree_unflatten(treedef, examples if examples is not None else [example_type(a) for a in arrays])

    def compiled(self, data: tuple) -> tuple[Executable, list]:
        """The executable for this data signature and the flat data arrays to feed it."""
        key, examples, treedef, arrays = self._signature(data)
        exe = self._executables.get(key)
        if exe is None:
            self.graph = self._trace(self._examples(treedef, examples, arrays))
            exe = self._executables[key] = compile_graph(self.graph)
            self.compile_count += 1
        return exe, arrays

    def graph_for(self, data: tuple):
        """The training graph for this data signature, traced (once per signature) but not compiled.

        `frame.distributed` ships it to the workers, which compile it; the client never runs it.
        """
        key, examples, treedef, arrays = self._signature(data)
        graph = self._graphs.get(key)
        if graph is None:
            graph = self._graphs[key] = self._trace(self._examples(treedef, examples, arrays))
        self.graph = graph
        return graph

    def value_and_grad(self, params: Sequence[np.ndarray], data: tuple) -> tuple[np.ndarray, list[np.ndarray]]:
        exe, arrays = self.compiled(data)
        outs = exe(*params, *arrays)
        return outs[0], outs[1:]


def scalar(loss: np.ndarray) -> float:
    """The loss (rank 0 or one element) as a Python float."""
    return float(np.asarray(loss).reshape(-1)[0])
