"""User-facing transforms: `function` (compile like `jax.jit`), `grad`, `value_and_grad`, `vjp`.

All of them trace the Python function into a graph and derive with `build_backward_graph`
(forward mode and Jacobians, built on `tangent_graph`, are in frame/frontend/jacobians.py).
Outside a trace they compile and run on numpy. Inside a trace (e.g. `grad(grad(f))`, or a
`grad` inside a `@frame.function`) they inline the derived graph into the enclosing trace, so
they nest to any depth without a tape (ARCH-067).
"""
from __future__ import annotations

import functools
import inspect
import threading
import warnings
from collections import OrderedDict
from typing import Callable, Sequence

import numpy as np

from ..compiler.autograd import build_backward_graph
from ..compiler.forward import build_forward_graph
from ..errors import GradientError, TraceError
from ..ir.graph import Graph
from ..ir.printer import fingerprint
from ..ir.types import Dim, TensorType, canonical_dtype
from ..runtime.compile import compile as compile_graph
from . import numpy as fnp
from .pytree import TreeDef, tree_flatten, tree_paths, tree_unflatten
from ..tracing import Tracer, is_tracing, is_weak_scalar
from .tracer import ShapeDtype, example_type, inline_into_current, trace_function

_DERIVED: "OrderedDict[tuple, Graph]" = OrderedDict()
_DERIVED_MAX = 256
_DERIVED_LOCK = threading.Lock()  # threads trace concurrently; OrderedDict updates must not interleave


def derived_graph(forward: Graph, loss_index: int, wrt: Sequence[int]) -> Graph:
    """`build_backward_graph`, memoised (least recently used first out) by (forward fingerprint, loss index, wrt)."""
    return memoised_derivation(("grad", fingerprint(forward), loss_index, tuple(wrt)),
                     lambda: build_backward_graph(forward, loss_index, wrt))


def tangent_graph(graph: Graph, wrt: Sequence[int]) -> Graph:
    """`build_forward_graph`, memoised like `derived_graph`."""
    wrt = tuple(wrt)
    return memoised_derivation(("jvp", fingerprint(graph), wrt), lambda: build_forward_graph(graph, wrt))


def memoised_derivation(key: tuple, derive: Callable[[], Graph]) -> Graph:
    """`derive()`, kept in the one cache of derived graphs (least recently used first out) under `key`,
    whose first entry names the transform ("grad", "jvp", "vmap", "jet")."""
    with _DERIVED_LOCK:
        graph = _DERIVED.get(key)
        if graph is not None:
            _DERIVED.move_to_end(key)
            return graph
    # Derived outside the lock: derivations take time and other threads' lookups should not wait.
    graph = derive()
    with _DERIVED_LOCK:
        graph = _DERIVED.setdefault(key, graph)  # a racing thread's equal graph wins; either is correct
        while len(_DERIVED) > _DERIVED_MAX:
            _DERIVED.popitem(last=False)
    return graph


def derived_cache_size() -> int:
    return len(_DERIVED)


def evaluate(graph: Graph, operands: Sequence) -> list:
    """Run `graph` on operands: inline into the current trace when tracing, else compile and execute."""
    if is_tracing() or any(isinstance(x, Tracer) for x in operands):
        return inline_into_current(graph, operands)
    return compile_graph(graph)(*operands)


def _closure_convert(fn, args: tuple, name: str | None = None):
    """`fn` traced once on the example `args` and closure-converted (as jax.closure_convert): (converted,
    consts, res) with converted(*args, *consts) == fn(*args) for arguments like the examples, consts the traced
    values fn closes over (as arguments, a rule that sees only its arguments reaches them too) and res the
    TraceResult (output types and structure, for the caller's checks). Eager or traced, like `evaluate`."""
    res = trace_function(fn, args, name)
    n = len(args)

    def converted(*operands):
        leaves = tree_flatten(operands[:n])[0]
        return tree_unflatten(res.out_tree, evaluate(res.graph, [*leaves, *operands[n:]]))
    return converted, tuple(res.captures), res


def _is_index(a) -> bool:
    return isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_))


def _check_argnums(argnums) -> tuple[int, ...]:
    """`argnums` as a tuple of ints; a `GradientError` naming it when it is not an int or a sequence of ints."""
    if _is_index(argnums):
        return (int(argnums),)
    if isinstance(argnums, (tuple, list)) and all(_is_index(a) for a in argnums):
        return tuple(int(a) for a in argnums)
    raise GradientError(f"argnums must be an int or a tuple of ints, got {argnums!r} ({type(argnums).__name__})")


def _argnums_tuple(argnums, nargs: int) -> tuple[int, ...]:
    nums = _check_argnums(argnums)
    for a in nums:
        if not -nargs <= a < nargs:
            raise GradientError(f"argnums {argnums} is out of range for a call with {nargs} positional argument(s)")
    nums = tuple(a % nargs for a in nums)
    if len(set(nums)) != len(nums):
        raise GradientError(f"argnums {argnums} names an argument twice")
    return nums


def _leaf_offsets(args: tuple) -> list[tuple[int, int]]:
    spans, start = [], 0
    for a in args:
        n = len(tree_flatten(a)[0])
        spans.append((start, start + n))
        start += n
    return spans


def _check_float_arguments(args: tuple, nums: Sequence[int]) -> None:
    """Differentiated arguments must be float: name the argument (and pytree leaf) and dtype otherwise."""
    for a in nums:
        leaves, tree = tree_flatten(args[a])
        for leaf, path in zip(leaves, tree_paths(tree)):
            t = example_type(leaf)
            if not t.is_inexact:
                shape = f" (shape {t.shape})" if t.shape else ""
                raise GradientError(f"grad w.r.t. argument {a}{path} needs float or complex arrays, got {t.dtype}{shape}: "
                                    "cast it to float or leave it out of argnums")


def _check_scalar_loss(res, has_aux: bool, name: str) -> None:
    """The traced function must return one float scalar (the first element of (loss, aux) with has_aux)."""
    loss_tree = res.out_tree.children[0]
    where = "the loss (first element of (loss, aux))" if has_aux else "the output"
    if loss_tree.kind != "leaf":
        got = "None" if loss_tree.kind == "none" else f"a {loss_tree.kind} {loss_tree} of {loss_tree.num_leaves} leaves"
        raise GradientError(f"grad of '{name}' needs {where} to be one scalar, got {got}; to return other values "
                            "next to the loss use has_aux=True and return (loss, aux)")
    t = res.graph.outputs[0].type
    if t.rank != 0:
        raise GradientError(f"grad of '{name}' needs {where} to be a scalar, got shape {t.shape} ({t.dtype}): "
                            "reduce it (fnp.sum, fnp.mean) or use frame.vjp for a non-scalar output")
    if not t.is_float:
        raise GradientError(f"grad of '{name}' needs {where} to be a float scalar, got {t.dtype}")


def _value_and_grad_impl(fn, argnums, has_aux, args, kwargs):
    nums = _argnums_tuple(argnums, len(args))
    _check_float_arguments(args, nums)
    name = getattr(fn, "__name__", "fn")

    def loss_fn(*a):
        out = fn(*a, **kwargs)
        if has_aux:
            if not (isinstance(out, (tuple, list)) and len(out) == 2):
                raise GradientError("has_aux=True needs the function to return a pair (loss, aux)")
            return out[0], out[1]
        return out, None

    res = trace_function(loss_fn, args, name=name)
    _check_scalar_loss(res, has_aux, name)
    leaves = tree_flatten(args)[0]
    spans = _leaf_offsets(args)
    wrt = [i for a in nums for i in range(*spans[a])]
    graph = derived_graph(res.graph, 0, wrt)
    outs = evaluate(graph, [*leaves, *res.captures])
    n_fwd = len(res.graph.outputs)
    value, aux_leaves, grad_leaves = outs[0], outs[1:n_fwd], outs[n_fwd:]
    aux = tree_unflatten(res.out_tree.children[1], aux_leaves) if has_aux else None
    grads, k = [], 0
    for a in nums:
        _, tree = tree_flatten(args[a])
        n = spans[a][1] - spans[a][0]
        grads.append(tree_unflatten(tree, grad_leaves[k:k + n]))
        k += n
    grads = grads[0] if _is_index(argnums) else tuple(grads)
    return value, aux, grads


def value_and_grad(fn: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False) -> Callable:
    """`fn -> (value, grad)` like `jax.value_and_grad`; with `has_aux`, `((value, aux), grad)`."""
    _check_argnums(argnums)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        value, aux, grads = _value_and_grad_impl(fn, argnums, has_aux, args, kwargs)
        return ((value, aux), grads) if has_aux else (value, grads)

    return wrapper


def grad(fn: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False) -> Callable:
    """The gradient of a scalar function w.r.t. argument(s) `argnums` (pytrees allowed), like `jax.grad`.

    Nests to any order: `grad(grad(f))(x)` is f''(x) for scalar f. Raises `GradientError` when
    the output is not one float scalar or a differentiated argument is not float.
    """
    _check_argnums(argnums)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        value, aux, grads = _value_and_grad_impl(fn, argnums, has_aux, args, kwargs)
        return (grads, aux) if has_aux else grads

    return wrapper


def vjp(fn: Callable, *primals):
    """`(fn(*primals), vjp_fn)` where `vjp_fn(cotangent)` returns one cotangent per primal (a tuple)."""
    res = trace_function(fn, primals, name=getattr(fn, "__name__", "fn"))
    leaves = tree_flatten(primals)[0]
    operands = [*leaves, *res.captures]
    out = tree_unflatten(res.out_tree, evaluate(res.graph, operands))

    # Contract the outputs with cotangent inputs into one scalar, then derive w.r.t. the primals.
    contracted = Graph(f"{res.graph.name}_vjp")
    from ..ir.clone import inline_graph
    inputs = [contracted.add_input(v.type) for v in res.graph.inputs]
    ys = inline_graph(contracted, res.graph, inputs)
    cts = [contracted.add_input(y.type) for y in ys]
    terms = [contracted.add_node("sum", [contracted.add_node("mul", [y, c]).output],
                                 {"axes": tuple(range(y.type.rank)), "keepdims": False}).output
             for y, c in zip(ys, cts) if y.type.is_float]
    if not terms:
        raise GradientError("vjp needs at least one float output")
    total = terms[0]
    for t in terms[1:]:
        total = contracted.add_node("add", [total, t]).output
    contracted.mark_output(total)
    n_primal_leaves = len(leaves)
    graph = derived_graph(contracted, 0, list(range(n_primal_leaves)))
    out_types = [y.type for y in res.graph.outputs]

    def vjp_fn(cotangent):
        ct_leaves, ct_tree = tree_flatten(cotangent)
        if ct_tree != res.out_tree:
            raise GradientError(f"vjp_fn: cotangent structure {ct_tree} differs from the output structure {res.out_tree}")
        ct_leaves = [_cotangent_leaf(i, c, t) for i, (c, t) in enumerate(zip(ct_leaves, out_types))]
        outs = evaluate(graph, [*operands, *ct_leaves])
        grad_leaves = outs[1:]
        result, k = [], 0
        for p in primals:
            n = len(tree_flatten(p)[0])
            result.append(tree_unflatten(tree_flatten(p)[1], grad_leaves[k:k + n]))
            k += n
        return tuple(result)

    return out, vjp_fn


def _cotangent_leaf(i: int, ct, expected: TensorType, what: str = "vjp_fn: cotangent", like: str = "output"):
    """Cotangent (or tangent) leaf `i`, checked against output (primal) leaf `i` before anything runs (a
    Python number may stand for a scalar)."""
    if is_weak_scalar(ct) and expected.rank == 0:
        return np.asarray(ct, dtype=expected.dtype)
    shape, dtype = (ct.shape, ct.dtype) if isinstance(ct, (Tracer, np.ndarray, np.generic)) else (None, type(ct).__name__)
    if shape != expected.shape or str(dtype) != expected.dtype:
        raise GradientError(f"{what} leaf {i} must have shape {expected.shape} and dtype {expected.dtype} "
                            f"like {like} leaf {i}, got " + (f"shape {shape} and dtype {dtype}" if shape is not None
                                                            else f"a {dtype}"))
    return ct


def stop_gradient(x):
    """The identity with zero derivative (applied to every leaf of a pytree)."""
    leaves, tree = tree_flatten(x)
    return tree_unflatten(tree, [fnp.stop_gradient(leaf) for leaf in leaves])


DEFAULT_CACHE_SIZE = 64
"""Signatures a `frame.function` keeps compiled unless `cache_size=` says otherwise (least recently used go first)."""

RETRACE_WARNING_AFTER = 8
"""A `RetraceWarning` is issued (once per function) at this many retraces, i.e. on trace number N + 1."""


MAX_ALIASES = 256
"""Concrete signatures a `frame.function` with `dynamic_axes` maps to their symbolic one without rebuilding it."""


class RetraceWarning(UserWarning):
    """A `frame.function` keeps retracing: its arguments' shapes, dtypes or structure keep changing."""


def _call_with_keywords(fn: Callable) -> Callable:
    """`fn` taking `(args, kwargs)` as two arguments, so keyword arguments are traced like positional ones."""
    return lambda args, kwargs: fn(*args, **kwargs)


def _leaf_shape_dtype(key) -> tuple[tuple[int, ...], str]:
    if isinstance(key, TensorType):
        return key.shape, key.dtype
    if isinstance(key, type):   # a Python number: weak, of its type's kind
        return (), f"Python {key.__name__}"
    return tuple(key[0]), canonical_dtype(key[1])


class Function:
    """A Python function compiled per input signature (like `jax.jit`); see `frame.function`."""

    def __init__(self, fn: Callable, cache_size: int | None = None, static_argnums=(), static_argnames=(),
                 dynamic_axes=None):
        functools.update_wrapper(self, fn)
        size = DEFAULT_CACHE_SIZE if cache_size is None else cache_size
        if not _is_index(size) or size < 1:
            raise TraceError(f"frame.function: cache_size must be a positive int, got {cache_size!r}")
        self.fn, self.cache_size = fn, int(size)
        self.static_argnums, self.static_argnames = _static_arguments(fn, static_argnums, static_argnames)
        self.dynamic_axes = _dynamic_axes(fn, dynamic_axes, self.static_argnums, self.static_argnames)
        self._aliases: dict = {}   # with dynamic_axes: concrete signature -> symbolic signature
        self._cache: "OrderedDict[tuple, tuple]" = OrderedDict()   # signature -> (TraceResult, Executable)
        self._lock = threading.Lock()                              # guards _cache, _building, the counters
        self._building: dict[tuple, threading.Lock] = {}           # one lock per signature being traced
        self._last_signature = None
        self._warned = False
        self.trace_count = 0

    def _split_static(self, args: tuple, kwargs: dict):
        """(traced positional args, traced keyword args, the static values' key): static arguments are
        taken out of the call, and keyed by position or name with their type and value."""
        if not self.static_argnums and not self.static_argnames:
            return args, kwargs, ()
        static = []
        for i in self.static_argnums:
            if i < len(args):
                static.append((i, _static_value(self, f"argument {i}", args[i])))
        for name in self.static_argnames:
            if name in kwargs:
                static.append((name, _static_value(self, f"argument '{name}'", kwargs[name])))
        args = tuple(a for i, a in enumerate(args) if i not in self.static_argnums)
        kwargs = {k: v for k, v in kwargs.items() if k not in self.static_argnames}
        return args, kwargs, tuple(static)

    def _with_static(self, static: tuple) -> Callable:
        """`fn` taking the traced arguments only, the static values put back in their places."""
        positions = {k: v for k, v in static if isinstance(k, int)}
        names = {k: v for k, v in static if isinstance(k, str)}
        fn = self.fn

        def call(args, kwargs):
            it, full = iter(args), []
            for i in range(len(args) + len(positions)):
                full.append(positions[i] if i in positions else next(it))
            full.extend(it)
            return fn(*full, **kwargs, **names)

        return call

    def _symbolic_arguments(self, args: tuple, kwargs: dict):
        """`args` and `kwargs` with the leaves of the `dynamic_axes` arguments replaced by `ShapeDtype`s whose
        dynamic axes are symbols: what the trace and the cache key see (one entry for every size)."""
        args = list(args)
        for key, axes in self.dynamic_axes.items():
            if isinstance(key, int):
                if key < len(args):
                    args[key] = _symbolic_leaves(self, f"argument {key}", args[key], axes)
            elif key in kwargs:
                kwargs = {**kwargs, key: _symbolic_leaves(self, f"argument '{key}'", kwargs[key], axes)}
        return tuple(args), kwargs

    def _signature(self, args: tuple, kwargs: dict):
        """The call's leaves (positional, then keyword by sorted name) and its cache key
        `(positional tree, keyword tree or None, leaf keys, static values)`."""
        if self.dynamic_axes:
            leaves = self._signature_leaves(args, kwargs)
            args, kwargs = self._symbolic_arguments(args, kwargs)
            return leaves, self._signature_key(args, kwargs)[1]
        return self._signature_key(args, kwargs)

    def _dynamic_signature(self, args: tuple, kwargs: dict):
        """`_signature` with `dynamic_axes`, through a table from the call's concrete signature to its
        symbolic one: building `ShapeDtype`s per dynamic leaf costs ~8x the concrete key, and a training
        loop calls with a few sizes only (MAX_ALIASES concrete signatures are remembered)."""
        leaves, concrete = self._signature_key(args, kwargs)
        with self._lock:
            sig = self._aliases.get(concrete)
        if sig is None:
            sig = self._signature(args, kwargs)[1]
            with self._lock:
                self._aliases[concrete] = sig
                while len(self._aliases) > MAX_ALIASES:
                    self._aliases.pop(next(iter(self._aliases)))
        return leaves, sig

    def _signature_leaves(self, args: tuple, kwargs: dict) -> list:
        args, kwargs, _ = self._split_static(args, kwargs)
        leaves = tree_flatten(args)[0]
        if kwargs:
            leaves += tree_flatten(kwargs)[0]
        return leaves

    def _signature_key(self, args: tuple, kwargs: dict):
        args, kwargs, static = self._split_static(args, kwargs)
        leaves, tree = tree_flatten(args)
        kw_tree = None
        if kwargs:  # flattened apart: most calls have none, and every flatten costs microseconds
            kw_leaves, kw_tree = tree_flatten(kwargs)
            leaves += kw_leaves
        # Arrays are keyed by (shape, dtype) directly: building a TensorType per leaf on every call
        # cost ~8 us a leaf, 0.1 ms per step of an 11-input training step.
        # A Python number is keyed by its type: it traces as a weak value (`is_weak_scalar`).
        return leaves, (tree, kw_tree, tuple((leaf.shape, leaf.dtype) if type(leaf) is np.ndarray
                                             else type(leaf) if is_weak_scalar(leaf) else example_type(leaf)
                                             for leaf in leaves), static)

    def _entry(self, args: tuple, kwargs: dict):
        if self.dynamic_axes:
            leaves, sig = self._dynamic_signature(args, kwargs)
        else:
            leaves, sig = self._signature(args, kwargs)
        with self._lock:
            entry = self._cache.get(sig)
            if entry is not None:
                self._cache.move_to_end(sig)
                return leaves, entry
            building = self._building.setdefault(sig, threading.Lock())
        # Threads that miss on the same signature wait for the first one's trace instead of repeating it;
        # different signatures trace in parallel.
        with building:
            with self._lock:
                entry = self._cache.get(sig)
            if entry is None:
                entry = self._trace_and_compile(sig, args, kwargs)
        with self._lock:
            if self._building.get(sig) is building:
                del self._building[sig]
        return leaves, entry

    def _trace(self, args: tuple, kwargs: dict, symbolic: bool = False):
        """Trace the call: the traced arguments are graph inputs, the static ones Python values; with
        `symbolic`, the `dynamic_axes` of the arguments are symbols."""
        if symbolic and self.dynamic_axes:
            args, kwargs = self._symbolic_arguments(args, kwargs)
        args, kwargs, static = self._split_static(args, kwargs)
        fn = self._with_static(static) if static else _call_with_keywords(self.fn)
        return trace_function(fn, (args, kwargs), name=getattr(self.fn, "__name__", "fn")), args, kwargs

    def _trace_and_compile(self, sig, args: tuple, kwargs: dict):
        res = self._trace(args, kwargs, symbolic=True)[0]
        entry = (res, compile_graph(res.graph))
        with self._lock:
            self.trace_count += 1
            previous, self._last_signature = self._last_signature, sig
            self._cache[sig] = entry
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
            warn = self.trace_count > RETRACE_WARNING_AFTER and not self._warned
            self._warned |= warn
        if warn:
            name = getattr(self.fn, "__qualname__", getattr(self.fn, "__name__", "fn"))
            warnings.warn(RetraceWarning(
                f"frame.function '{name}' has retraced {self.trace_count - 1} times (each new argument shape, dtype, "
                f"structure or static value traces and compiles again); the latest retrace: "
                f"{self._explain_retrace(previous, sig)}. "
                "Keep shapes and dtypes stable (e.g. pad to a few sizes). This warning is shown once per function."),
                stacklevel=4)
        return entry

    def _argument_names(self) -> list[str]:
        try:
            params = inspect.signature(self.fn).parameters.values()
        except (TypeError, ValueError):
            return []
        return [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]

    def _explain_retrace(self, old, new) -> str:
        """What changed between two signatures, like "argument 0 (x): shape (3,) -> (4,)"."""
        if old is None:
            return "first trace"
        (old_args, old_kw, old_keys, old_static), (new_args, new_kw, new_keys, new_static) = old, new
        if old_static != new_static:
            before, after = dict(old_static), dict(new_static)
            changed = [f"static argument {_label(k)}: {before.get(k, '(not given)')!r} -> "
                       f"{after.get(k, '(not given)')!r}" for k in sorted(set(before) | set(after), key=str)
                       if k not in before or k not in after or type(before[k]) is not type(after[k])
                       or before[k] != after[k]]
            return "; ".join(changed)
        old_kw, new_kw = old_kw or _NO_KEYWORDS, new_kw or _NO_KEYWORDS
        if len(old_args.children) != len(new_args.children) or old_kw.meta != new_kw.meta:
            return (f"the arguments changed from {_describe_call(old_args, old_kw)} "
                    f"to {_describe_call(new_args, new_kw)}")
        names = self._argument_names()
        labels = [f"argument {i}" + (f" ({names[i]})" if i < len(names) else "") for i in range(len(old_args.children))]
        labels += [f"keyword argument {k}" for k in (new_kw.meta or ())]
        changes, start = [], 0
        for label, old_sub, new_sub in zip(labels, [*old_args.children, *old_kw.children],
                                           [*new_args.children, *new_kw.children]):
            if old_sub != new_sub:
                changes.append(f"{label}: structure {old_sub} -> {new_sub}")
                start += old_sub.num_leaves
                continue
            for path, k_old, k_new in zip(tree_paths(new_sub), old_keys[start:], new_keys[start:]):
                (s_old, d_old), (s_new, d_new) = _leaf_shape_dtype(k_old), _leaf_shape_dtype(k_new)
                diffs = [f"shape {s_old} -> {s_new}"] * (s_old != s_new) + [f"dtype {d_old} -> {d_new}"] * (d_old != d_new)
                if diffs:
                    changes.append(f"{label}{path}: {', '.join(diffs)}")
            start += new_sub.num_leaves
        return "; ".join(changes) or "a Python scalar argument became an array or the reverse"

    def __call__(self, *args, **kwargs):
        if is_tracing():
            res, args, kwargs = self._trace(args, kwargs)
            leaves = tree_flatten((args, kwargs))[0]
            return tree_unflatten(res.out_tree, inline_into_current(res.graph, [*leaves, *res.captures]))
        leaves, (res, exe) = self._entry(args, kwargs)
        return tree_unflatten(res.out_tree, exe(*leaves))

    def trace(self, *args, **kwargs) -> Graph:
        """The graph traced for these arguments' signature."""
        return self._entry(args, kwargs)[1][0].graph

    def compiled(self, *args, **kwargs):
        """The `Executable` for these arguments' signature."""
        return self._entry(args, kwargs)[1][1]


_NO_KEYWORDS = tree_flatten({})[1]


def _describe_call(args: TreeDef, kw: TreeDef) -> str:
    return f"{len(args.children)} positional argument(s)" + (f" and keywords {', '.join(kw.meta)}" if kw.meta else "")


def function(fn: Callable | None = None, *, cache_size: int | None = None, static_argnums=(), static_argnames=(),
             dynamic_axes=None, donate_argnums=(), donate_argnames=()):
    """Decorator: trace once per input signature (shapes, dtypes, pytree structure), compile, cache, run.

    Like `jax.jit`, keyword arguments are traced too: their array (and Python number) leaves are
    graph inputs, keyed in the signature by name. `static_argnums` (positions) and
    `static_argnames` (names) mark arguments that are not traced: the function gets their Python
    values (a layer count, a flag, a callable), and each distinct value is part of the cache key, so
    it traces and compiles once per value. Static values must be hashable (a `TraceError` names the
    argument otherwise); as in `jax.jit`, an argument named in one is static however it is passed
    (positions and names are matched through the function's signature). At most `cache_size`
    signatures stay compiled (default `DEFAULT_CACHE_SIZE`, least recently used evicted first); a
    function that retraces `RETRACE_WARNING_AFTER` times issues one `RetraceWarning` naming the
    argument whose shape, dtype or static value changed. Use as `@frame.function`,
    `@frame.function(cache_size=8)` or `@frame.function(static_argnums=(1,))`.

    `dynamic_axes={argnum or argname: axes}` makes axes of those arguments symbolic (issue 17 item 2):
    one trace and one compile serve every size of them, the executable reading the sizes from its
    inputs at each call. `axes` is an int, a tuple of ints or a dict `{axis: symbol name}`; an axis
    given by number alone gets the symbol `n<axis>` (`n0` for axis 0), so the leading axes of all
    dynamic arguments share one size unless named apart. Every array leaf of such an argument has
    those axes symbolic; a call whose inputs disagree on a symbol's size raises `InputError`.

    `donate_argnums`/`donate_argnames` are accepted as `jax.jit` takes them and change nothing: frame's
    executables never write into their arguments, so a donated array simply stays valid.
    """
    for what, donated, kind in (("donate_argnums", donate_argnums, int), ("donate_argnames", donate_argnames, str)):
        items = (donated,) if isinstance(donated, kind) else donated
        if not isinstance(items, (tuple, list)) or not all(isinstance(i, kind) and not isinstance(i, bool)
                                                           for i in items):
            raise TraceError(f"frame.function: {what} must be a{'n int' if kind is int else ' str'} or a tuple of "
                             f"them, got {donated!r}")
    if fn is None:
        return functools.partial(function, cache_size=cache_size, static_argnums=static_argnums,
                                 static_argnames=static_argnames, dynamic_axes=dynamic_axes)
    if not callable(fn):
        raise TraceError(f"frame.function needs a callable, got {type(fn).__name__}")
    return Function(fn, cache_size=cache_size, static_argnums=static_argnums, static_argnames=static_argnames,
                    dynamic_axes=dynamic_axes)


def _label(key) -> str:
    return str(key) if isinstance(key, int) else repr(key)


def _static_value(function: Function, what: str, value):
    """A static argument's value, checked to be hashable (it is part of the cache key) and not an array."""
    name = getattr(function.fn, "__qualname__", getattr(function.fn, "__name__", "fn"))
    if isinstance(value, (Tracer, np.ndarray)):
        raise TraceError(f"frame.function '{name}': static {what} is an array ({type(value).__name__}); static "
                         "arguments are Python values that key the cache (arrays are traced: leave it out of "
                         "static_argnums/static_argnames)")
    try:
        hash(value)
    except TypeError:
        raise TraceError(f"frame.function '{name}': static {what} is a {type(value).__name__}, which is not "
                         "hashable; static arguments are part of the cache key, so they must be hashable (pass a "
                         "tuple instead of a list, or make the argument a traced array)") from None
    return value


def _static_arguments(fn: Callable, argnums, argnames) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """Normalised (static positions, static names), each completed from the other through `fn`'s
    signature when it has one (as jax.jit does)."""
    nums = (argnums,) if _is_index(argnums) else argnums
    names = (argnames,) if isinstance(argnames, str) else argnames
    if not isinstance(nums, (tuple, list)) or not all(_is_index(i) for i in nums):
        raise TraceError(f"frame.function: static_argnums must be an int or a sequence of ints, got {argnums!r}")
    if not isinstance(names, (tuple, list)) or not all(isinstance(n, str) for n in names):
        raise TraceError(f"frame.function: static_argnames must be a str or a sequence of str, got {argnames!r}")
    nums, names = [int(i) for i in nums], list(names)
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = None
    if params is not None:
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        variadic = any(p.kind == p.VAR_POSITIONAL for p in params)
        for i in nums:
            if not variadic and not -len(positional) <= i < len(positional):
                raise TraceError(f"frame.function: static_argnums {tuple(nums)} is out of range: "
                                 f"'{getattr(fn, '__name__', 'fn')}' takes {len(positional)} positional argument(s)")
        nums = [i % len(positional) if i < 0 and positional else i for i in nums]
        names += [positional[i].name for i in nums if i < len(positional)
                  and positional[i].kind == positional[i].POSITIONAL_OR_KEYWORD]
        nums += [k for k, p in enumerate(positional) if p.name in names and p.kind == p.POSITIONAL_OR_KEYWORD]
    elif any(i < 0 for i in nums):
        raise TraceError("frame.function: negative static_argnums need a function with an inspectable signature")
    return tuple(sorted(set(nums))), tuple(sorted(set(names)))


def _dynamic_axes(fn: Callable, dynamic_axes, static_nums, static_names) -> dict:
    """`dynamic_axes` normalised to `{position or name: {axis: symbol}}` (a name of a positional
    parameter becomes its position), refusing static arguments, non-int axes and bad symbol names."""
    if dynamic_axes is None:
        return {}
    fname = getattr(fn, "__name__", "fn")
    if not isinstance(dynamic_axes, dict):
        raise TraceError(f"frame.function: dynamic_axes must be a dict {{argnum or argname: axes}}, got {dynamic_axes!r}")
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    out: dict = {}
    for key, axes in dynamic_axes.items():
        if isinstance(key, str) and key in positional:
            key = positional.index(key)
        elif not (_is_index(key) or isinstance(key, str)):
            raise TraceError(f"frame.function: dynamic_axes keys are argument positions or names, got {key!r}")
        if _is_index(key) and int(key) < 0:
            if not positional:
                raise TraceError("frame.function: negative dynamic_axes positions need an inspectable signature")
            key = int(key) % len(positional)
        key = int(key) if _is_index(key) else key
        if key in static_nums or key in static_names:
            raise TraceError(f"frame.function '{fname}': argument {_label(key)} is static and cannot have dynamic axes")
        if _is_index(axes):
            axes = (axes,)
        if isinstance(axes, (tuple, list)):
            axes = {a: None for a in axes}
        if not isinstance(axes, dict) or not all(_is_index(a) for a in axes):
            raise TraceError(f"frame.function '{fname}': dynamic_axes[{key!r}] must be an axis, a tuple of axes or "
                             f"a dict {{axis: symbol name}}, got {axes!r}")
        named = {}
        for a, name in axes.items():
            name = f"n{a}" if name is None and a >= 0 else name
            if name is None:
                raise TraceError(f"frame.function '{fname}': dynamic axis {a} of argument {_label(key)} is negative; "
                                 "give it a symbol name ({axis: name}) or count it from the front")
            named[int(a)] = Dim.symbol(name)
        out[key] = named
        if isinstance(key, int) and key < len(positional):   # passed by keyword too
            out[positional[key]] = named
    return out


def _symbolic_leaves(function: "Function", what: str, value, axes: dict):
    """`value` (an argument) with each array leaf a `ShapeDtype` whose `axes` are symbolic."""
    leaves, tree = tree_flatten(value)
    out = []
    for path, leaf in zip(tree_paths(tree), leaves):
        if isinstance(leaf, Tracer) or is_weak_scalar(leaf):
            out.append(leaf)
            continue
        t = example_type(leaf)
        shape = list(t.shape)
        for axis, symbol in axes.items():
            k = axis if axis >= 0 else axis + len(shape)
            if not 0 <= k < len(shape):
                name = getattr(function.fn, "__qualname__", getattr(function.fn, "__name__", "fn"))
                raise TraceError(f"frame.function '{name}': dynamic axis {axis} of {what}{path} is out of range for "
                                 f"its shape {t.shape}")
            shape[k] = symbol
        out.append(ShapeDtype(tuple(shape), t.dtype))
    return tree_unflatten(tree, out)
