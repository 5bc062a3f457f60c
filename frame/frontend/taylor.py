"""Taylor mode for users: `jet` (JAX's `jax.experimental.jet`), `directional_derivatives`, `laplacian`.

Each traces the function, derives its Taylor-mode graph with `build_taylor_graph` (memoised per
graph fingerprint and series layout) and evaluates it: compiled and run outside a trace, inlined
into the enclosing trace inside one (`frame.grad` of a loss built on `laplacian`, a
`frame.function`), so they nest with every other transform.

- `jet(fun, primals, series)`: series in JAX's convention, the derivatives of the input path:
  x(t) = x + sum_k series[k-1] t^k / k!; returns `(fun(*primals), series_out)` in the same convention.
- `directional_derivatives(fun, direction, order)`: `[u, D u, ..., D^order u]` along one direction
  from one propagation of the line x + t v (only its first-order term is non-zero, so the derived
  graph is smaller than a general jet's); its size grows quadratically with the order, where
  nested reverse mode grows exponentially.
- `laplacian(fun)`: `(u, sum_i d^2u/dx_i^2)` for a pointwise function of rows x (N, d) in one
  collapsed propagation (the forward Laplacian): the d first-order terms per direction, the
  second-order term summed over the directions as it is propagated.
"""
from __future__ import annotations

import functools
from typing import Callable, Sequence

import numpy as np

from ..compiler.taylor import build_taylor_graph
from ..errors import GradientError, ShapeError
from ..ir.graph import Graph
from ..ir.printer import fingerprint
from ..ir.types import TensorType
from ..tracing import Tracer, is_weak_scalar
from ..tracing import full as full_array
from . import numpy as fnp
from .pytree import tree_flatten, tree_paths, tree_unflatten
from .tracer import example_type, trace_function
from .transforms import _argnums_tuple, evaluate, memoised_derivation


def taylor_graph(graph: Graph, wrt: Sequence[int], order: int, input_orders=None, directions=None,
                 factorial_scaled: bool = True) -> Graph:
    """`build_taylor_graph`, memoised (least recently used first out) by graph fingerprint and arguments."""
    key = ("jet", fingerprint(graph), tuple(wrt), order,
           None if input_orders is None else tuple(map(tuple, input_orders)), directions, bool(factorial_scaled))
    return memoised_derivation(key, lambda: build_taylor_graph(graph, wrt, order, input_orders, directions,
                                                               factorial_scaled))


def _is_zero(term) -> bool:
    """A series term known to be zero before anything runs (a concrete array or number of zeros)."""
    if isinstance(term, Tracer):
        return False
    return bool(np.all(np.asarray(term) == 0))


def _term(fn: str, i: int, k: int, path: str, term, like):
    """Series term k of primal i, checked against the primal leaf (a Python number stands for a scalar)."""
    t = example_type(like)
    if is_weak_scalar(term):
        term = np.full(t.shape, term, dtype=t.dtype)
    shape = tuple(getattr(term, "shape", ()))
    dtype = str(getattr(term, "dtype", type(term).__name__))
    if shape != t.shape or dtype != t.dtype:
        raise GradientError(f"{fn}: series[{i}][{k}]{path} must have the primal's shape {t.shape} and dtype {t.dtype}, "
                            f"got shape {shape} and dtype {dtype}")
    return term


def jet(fun: Callable, primals: Sequence, series: Sequence, factorial_scaled: bool = True) -> tuple:
    """Taylor-mode derivatives of `fun` along a polynomial path, like `jax.experimental.jet.jet`.

    `primals` is a tuple of arguments (arrays or pytrees); `series` has one entry per primal, a
    list of K terms each shaped like it: the input path is x(t) = x + sum_k series[i][k-1] t^k / k!.
    Returns `(fun(*primals), series_out)`: for each output leaf a list of K terms, the derivatives
    d^k/dt^k fun(x(t)) at t = 0, in the output's pytree structure. With `factorial_scaled=False`
    (JAX's option) input and output terms are the plain Taylor coefficients instead:
    x(t) = x + sum_k series[i][k-1] t^k.
    """
    if not isinstance(primals, (tuple, list)) or not isinstance(series, (tuple, list)):
        raise GradientError(f"jet: primals and series must be tuples, got {type(primals).__name__} and "
                            f"{type(series).__name__}")
    if len(primals) != len(series):
        raise GradientError(f"jet: {len(primals)} primal(s) but {len(series)} series")
    orders = {len(s) if isinstance(s, (tuple, list)) else None for s in series}
    if None in orders:
        raise GradientError("jet: each series must be a list of terms (one per order)")
    if len(orders) > 1:
        raise GradientError(f"jet: every series needs the same number of terms, got {sorted(orders)}")
    K = orders.pop() if orders else 0
    if K < 1:
        raise GradientError("jet: series need at least one term")
    res = trace_function(fun, tuple(primals), name=getattr(fun, "__name__", "fn"))
    leaves, input_orders, terms = [], [], []
    for i, (p, s) in enumerate(zip(primals, series)):
        p_leaves, p_tree = tree_flatten(p)
        per_order = []
        for k, term in enumerate(s):
            t_leaves, t_tree = tree_flatten(term)
            if t_tree != p_tree:
                raise GradientError(f"jet: series[{i}][{k}] has structure {t_tree}, primal {i} has {p_tree}")
            per_order.append(t_leaves)
        for li, (leaf, path) in enumerate(zip(p_leaves, tree_paths(p_tree))):
            if not example_type(leaf).is_inexact:
                raise GradientError(f"jet: primal {i}{path} must be float or complex, got {example_type(leaf).dtype}")
            given = [(k + 1, _term("jet", i, k, path, per_order[k][li], leaf)) for k in range(K)]
            given = [(k, x) for k, x in given if not _is_zero(x)]
            input_orders.append(tuple(k for k, _ in given))
            terms += [x for _, x in given]
        leaves += p_leaves
    graph = taylor_graph(res.graph, range(len(leaves)), K, input_orders, factorial_scaled=factorial_scaled)
    outs = evaluate(graph, [*leaves, *res.captures, *terms])
    n = len(res.graph.outputs)
    primal_out = tree_unflatten(res.out_tree, outs[:n])
    series_out = tree_unflatten(res.out_tree, [list(outs[n + K * o:n + K * (o + 1)]) for o in range(n)])
    return primal_out, series_out


def _single_argnum(fn_name: str, argnums, nargs: int) -> int:
    if isinstance(argnums, bool) or not isinstance(argnums, (int, np.integer)):
        raise GradientError(f"{fn_name}: argnums must be one int, got {argnums!r}")
    return _argnums_tuple(argnums, nargs)[0]


def _point_argument(fn_name: str, args: tuple, a: int):
    leaves, tree = tree_flatten(args[a])
    if len(leaves) != 1 or tree.kind != "leaf":
        raise GradientError(f"{fn_name}: argument {a} must be one array (the coordinates), got {tree}")
    t = example_type(leaves[0])
    if not t.is_float:
        raise GradientError(f"{fn_name}: argument {a} must be a float array, got {t}")
    return t


def directional_derivatives(fun: Callable, direction=None, order: int = 4, argnums: int = 0) -> Callable:
    """`fun` -> a function returning `[u, D u, D^2 u, ..., D^order u]` from one Taylor propagation.

    D is the derivative along `direction` in argument `argnums`: the line x + t v. `direction`
    broadcasts to the argument's shape, so for a pointwise function of rows x (N, d) a length-d
    vector moves every row along it; by default (None) the argument must be a scalar, or have a
    last axis of size 1 (x shaped (N, 1): the one coordinate), and v is all ones. The derived graph
    grows quadratically with `order` (nested reverse mode grows exponentially). Nests with
    `frame.grad` and inside `frame.function`.
    """
    if isinstance(order, bool) or not isinstance(order, (int, np.integer)) or order < 1:
        raise GradientError(f"directional_derivatives: order must be a positive int, got {order!r}")
    order = int(order)

    @functools.wraps(fun)
    def wrapper(*args):
        a = _single_argnum("directional_derivatives", argnums, len(args))
        t = _point_argument("directional_derivatives", args, a)
        if direction is None:
            if t.rank and t.shape[-1] != 1:
                raise GradientError(f"directional_derivatives: argument {a} has shape {t.shape}; pass direction= (a "
                                    "length-d vector) unless it is a scalar or its last axis has size 1")
            v = full_array(t, 1)   # a traced broadcast when t has symbolic sizes
        else:
            v = direction
            if isinstance(v, Tracer):   # a traced direction (e.g. one being differentiated)
                try:
                    np.broadcast_shapes(v.shape, t.shape)
                except ValueError:
                    raise GradientError(f"directional_derivatives: direction of shape {v.shape} does not broadcast "
                                        f"to argument {a}'s shape {t.shape}") from None
                v = fnp.broadcast_to(fnp.asarray(v, dtype=t.dtype), t.shape)
            else:
                arr = np.asarray(v, dtype=t.dtype)
                try:
                    # a symbolic shape is known per call only: broadcast inside the trace
                    v = full_array(t, arr) if t.is_symbolic else np.ascontiguousarray(np.broadcast_to(arr, t.shape))
                except (ValueError, ShapeError):
                    raise GradientError(f"directional_derivatives: direction of shape {arr.shape} does not broadcast "
                                        f"to argument {a}'s shape {t.shape}") from None
        res = trace_function(fun, args, name=getattr(fun, "__name__", "fn"))
        leaves = tree_flatten(args)[0]
        offset = len(tree_flatten(args[:a])[0])
        graph = taylor_graph(res.graph, [offset], order, [(1,)])
        outs = evaluate(graph, [*leaves, *res.captures, v])
        n = len(res.graph.outputs)
        result = [tree_unflatten(res.out_tree, outs[:n])]
        for k in range(1, order + 1):
            result.append(tree_unflatten(res.out_tree, [outs[n + order * o + k - 1] for o in range(n)]))
        return result

    return wrapper


def laplacian(fun: Callable, argnums: int | Sequence[int] = 0) -> Callable:
    """`fun` -> a function returning `(u, lap_u)`, lap_u = sum_i d^2u/dx_i^2, from one collapsed propagation.

    Argument `argnums` holds coordinates along its last axis: x (N, d) for a pointwise function
    of rows (row r of u depends on row r of x), or x (d,). Several argnums (x (N, 1), y (N, 1), ...:
    equal shapes but for the last axis) are coordinates together, the Laplacian summing over all
    of them. Direction i moves every row's coordinate i; the d first-order terms are propagated
    per direction and the second-order term summed over them (the forward Laplacian), so the cost
    is that of about d first derivatives, not d second ones. Nests with `frame.grad` (a PINN loss
    on it has parameter gradients) and inside `frame.function`.
    """
    if not isinstance(argnums, (tuple, list)):
        _single_argnum("laplacian", argnums, 1 << 30)   # type check now; the range at the call
    elif not argnums:
        raise GradientError("laplacian: argnums names no argument")

    @functools.wraps(fun)
    def wrapper(*args):
        nums = _argnums_tuple(argnums, len(args))
        types = [_point_argument("laplacian", args, a) for a in nums]
        for a, t in zip(nums, types):
            if t.rank == 0:
                raise GradientError(f"laplacian: argument {a} must hold coordinates along its last axis, got a scalar")
            if t.shape[:-1] != types[0].shape[:-1] or t.dtype != types[0].dtype:
                raise GradientError(f"laplacian: the coordinate arguments {nums} must have equal shapes but for the last "
                                    f"axis and one dtype, got {[tt.shape for tt in types]} and "
                                    f"{[tt.dtype for tt in types]}")
        widths = [t.shape[-1] for t in types]
        d = sum(widths)
        if len(nums) == 1:
            body, point, others = fun, args, ()
        else:   # the coordinates as one array: one series input, its slices are the arguments
            offsets = np.cumsum([0] + widths)

            def body(z, *rest):
                full = list(rest)
                for a, lo, hi in sorted(zip(nums, offsets[:-1], offsets[1:])):
                    full.insert(a, z[..., int(lo):int(hi)])
                return fun(*full)

            point = (fnp.concatenate([args[a] for a in nums], axis=-1),)
            others = tuple(x for i, x in enumerate(args) if i not in nums)
        shape = types[0].shape[:-1] + (d,)
        directions = []
        for i in range(d):
            e = np.zeros(d, types[0].dtype)
            e[i] = 1
            directions.append(full_array(TensorType(shape, types[0].dtype), e))
        call_args = (*point, *others) if len(nums) > 1 else args
        a = 0 if len(nums) > 1 else nums[0]
        res = trace_function(body, call_args, name=getattr(fun, "__name__", "fn"))
        leaves = tree_flatten(call_args)[0]
        offset = len(tree_flatten(call_args[:a])[0])
        graph = taylor_graph(res.graph, [offset], 2, [(1,)], directions=d)
        outs = evaluate(graph, [*leaves, *res.captures, *directions])
        n = len(res.graph.outputs)
        per_output = d + 1   # d first-order terms, then the summed second-order one
        u = tree_unflatten(res.out_tree, outs[:n])
        lap = tree_unflatten(res.out_tree, [outs[n + per_output * o + d] for o in range(n)])
        return u, lap

    return wrapper
