"""Forward mode and Jacobians: `jvp`, `linearize`, `jacfwd`, `jacrev`, `hessian` (JAX's signatures).

`jvp` traces the function and derives with `build_forward_graph`, then runs the derived graph
like `grad` does (compiled outside a trace, inlined inside one), so every transform nests with
every other. `jacfwd` pushes the basis of the argument through one batched forward graph and
`jacrev` pulls the basis of the output through one batched reverse graph (`vmap` over the
basis, as JAX does); `hessian` is forward-over-reverse, `jacfwd(jacrev(f))`.
"""
from __future__ import annotations

import functools
from typing import Callable, Sequence

import numpy as np

from ..errors import GradientError
from . import numpy as fnp
from .pytree import tree_flatten, tree_paths, tree_unflatten
from .tracer import example_type, trace_function
from .transforms import (_argnums_tuple, _check_argnums, _check_float_arguments, _cotangent_leaf, _is_index,
                         evaluate, tangent_graph, vjp)


def _as_tuple(name: str, value) -> tuple:
    if not isinstance(value, (tuple, list)):
        raise GradientError(f"jvp: {name} must be a tuple (or list) with one entry per argument, like jax.jvp, got "
                            f"{type(value).__name__}")
    return tuple(value)


def jvp(fn: Callable, primals, tangents):
    """`(fn(*primals), J tangents)`: the Jacobian-vector product of `fn` at `primals` (like `jax.jvp`).

    `primals` and `tangents` are tuples with one pytree per positional argument, of equal structure,
    shapes and dtypes; the primals must be float or complex. A tangent leaf given as a concrete all-zero
    array (or 0) holds its primal fixed, as a symbolic zero does in JAX: that primal may then enter an
    operand without a derivative (gammainc's shape `a`), and infinities in its column of the Jacobian
    do not turn into NaN.
    """
    primals, tangents = _as_tuple("primals", primals), _as_tuple("tangents", tangents)
    if len(primals) != len(tangents):
        raise GradientError(f"jvp: {len(primals)} primal(s) but {len(tangents)} tangent(s)")
    p_leaves, p_tree = tree_flatten(primals)
    t_leaves, t_tree = tree_flatten(tangents)
    if p_tree != t_tree:
        raise GradientError(f"jvp: the tangents' structure {t_tree} differs from the primals' {p_tree}")
    for path, leaf in zip(tree_paths(p_tree), p_leaves):
        t = example_type(leaf)
        if not t.is_inexact:
            raise GradientError(f"jvp: primal{path} is {t}; forward mode needs float or complex primals (pass "
                                "integer values through a closure or a static argument)")
    t_leaves = [_cotangent_leaf(i, tl, example_type(pl), "jvp: tangent", "primal") for i, (tl, pl)
                in enumerate(zip(t_leaves, p_leaves))]
    res = trace_function(fn, primals, name=getattr(fn, "__name__", "fn"))
    moving = [i for i, tl in enumerate(t_leaves) if not _concrete_zero(tl)]
    graph = tangent_graph(res.graph, moving)
    outs = evaluate(graph, [*p_leaves, *res.captures, *(t_leaves[i] for i in moving)])
    n = len(res.graph.outputs)
    return tree_unflatten(res.out_tree, outs[:n]), tree_unflatten(res.out_tree, outs[n:])


def _concrete_zero(leaf) -> bool:
    return isinstance(leaf, (np.ndarray, np.generic, int, float, complex)) and not np.any(leaf)


def linearize(fn: Callable, *primals):
    """`(fn(*primals), f_jvp)` with `f_jvp(*tangents) = J tangents` at the fixed primals (like `jax.linearize`).
    The forward graph is derived once; each `f_jvp` call runs it."""
    out, _ = jvp(fn, primals, tuple(_zeros_like(p) for p in primals))

    def f_jvp(*tangents):
        return jvp(fn, primals, tangents)[1]

    return out, f_jvp


def _zeros_like(tree):
    leaves, treedef = tree_flatten(tree)
    return tree_unflatten(treedef, [fnp.zeros_like(leaf) if not isinstance(leaf, (int, float, complex))
                                    else type(leaf)(0) for leaf in leaves])


def _basis(types) -> list[np.ndarray]:
    """The standard basis of the flattened leaves of `types`, as one stack per leaf: row k of the
    stack for leaf i is e_k restricted to leaf i (n = total size rows)."""
    sizes = [t.size for t in types]
    n = sum(sizes)
    eye = np.eye(n, dtype=np.result_type(*[t.dtype for t in types]) if types else np.float64)
    stacks, start = [], 0
    for t, size in zip(types, sizes):
        stacks.append(eye[:, start:start + size].astype(t.dtype).reshape((n, *t.shape)))
        start += size
    return stacks


def _map_basis(fn: Callable, stacks: list, n: int) -> list:
    """`fn(*rows)` for each basis row, stacked on a leading axis: one `vmap`ped call when batching exists."""
    try:
        from .batching import vmap
    except ImportError:
        vmap = None
    if vmap is not None:
        return list(vmap(lambda *rows: tuple(fn(*rows)))(*stacks))
    results = [fn(*[s[k] for s in stacks]) for k in range(n)]
    return [fnp.stack([r[j] for r in results], axis=0) for j in range(len(results[0]))]


def _differentiated(fn: Callable, args: tuple, argnums):
    """The leaves (and their types and trees) of the arguments `argnums` names, and `fn` as a function
    of those leaves alone, the other arguments fixed."""
    nums = _argnums_tuple(argnums, len(args))
    _check_float_arguments(args, nums)
    in_trees = [tree_flatten(args[a])[1] for a in nums]
    leaves = [leaf for a in nums for leaf in tree_flatten(args[a])[0]]

    def with_leaves(*new):
        full, k = list(args), 0
        for a, tree in zip(nums, in_trees):
            full[a] = tree_unflatten(tree, list(new[k:k + tree.num_leaves]))
            k += tree.num_leaves
        return fn(*full)

    return leaves, [example_type(x) for x in leaves], in_trees, with_leaves


def _jacobian_tree(blocks, out_tree, in_trees, argnums):
    """Blocks[o][i] (output leaf o, input leaf i) as `out_tree` of (tuple of, for tuple argnums) input trees."""
    result = []
    for row in blocks:
        per_arg, k = [], 0
        for tree in in_trees:
            per_arg.append(tree_unflatten(tree, row[k:k + tree.num_leaves]))
            k += tree.num_leaves
        result.append(per_arg[0] if _is_index(argnums) else tuple(per_arg))
    return tree_unflatten(out_tree, result)


def jacfwd(fn: Callable, argnums: int | Sequence[int] = 0) -> Callable:
    """The Jacobian of `fn` by forward mode (like `jax.jacfwd`): one JVP per input element, batched.

    Block (output leaf o, input leaf i) has shape `o.shape + i.shape`; the result has the output's
    pytree structure, each leaf replaced by the argument's structure (a tuple of them for tuple argnums).
    """
    _check_argnums(argnums)

    @functools.wraps(fn)
    def wrapper(*args):
        leaves, types, in_trees, with_leaves = _differentiated(fn, args, argnums)
        n = sum(t.size for t in types)
        out_tree = None

        def push(*rows):
            nonlocal out_tree
            _, tangent = jvp(with_leaves, tuple(leaves), tuple(rows))
            tangent_leaves, out_tree = tree_flatten(tangent)
            return tangent_leaves

        columns = _map_basis(push, _basis(types), n)   # per output leaf: (n, *o.shape)
        blocks = []
        for col in columns:
            moved = fnp.moveaxis(col, 0, -1) if col.ndim > 1 else col
            o_shape = tuple(col.shape[1:])
            row, start = [], 0
            for t in types:
                part = moved[..., start:start + t.size]
                row.append(fnp.reshape(part, o_shape + t.shape))
                start += t.size
            blocks.append(row)
        return _jacobian_tree(blocks, out_tree, in_trees, argnums)

    return wrapper


def jacrev(fn: Callable, argnums: int | Sequence[int] = 0) -> Callable:
    """The Jacobian of `fn` by reverse mode (like `jax.jacrev`): one VJP per output element, batched;
    the same layout as `jacfwd`."""
    _check_argnums(argnums)

    @functools.wraps(fn)
    def wrapper(*args):
        leaves, types, in_trees, with_leaves = _differentiated(fn, args, argnums)
        out, pull = vjp(with_leaves, *leaves)
        out_leaves, out_tree = tree_flatten(out)
        out_types = [example_type(o) for o in out_leaves]
        if not all(t.is_float for t in out_types):
            raise GradientError(f"jacrev needs float outputs, got {', '.join(map(str, out_types))}")
        m = sum(t.size for t in out_types)

        def pull_row(*rows):
            return list(pull(tree_unflatten(out_tree, list(rows))))

        rows = _map_basis(pull_row, _basis(out_types), m)      # per input leaf: (m, *i.shape)
        blocks, start = [], 0
        for t_out in out_types:
            blocks.append([fnp.reshape(r[start:start + t_out.size], t_out.shape + t.shape)
                           for r, t in zip(rows, types)])
            start += t_out.size
        return _jacobian_tree(blocks, out_tree, in_trees, argnums)

    return wrapper


def hessian(fn: Callable, argnums: int | Sequence[int] = 0) -> Callable:
    """The Hessian of scalar `fn`, forward-over-reverse: `jacfwd(jacrev(fn, argnums), argnums)` (like `jax.hessian`).

    For an array argument of shape S the result has shape S + S; for a pytree argument, a nested tree
    `H[i][j]` of blocks shaped leaf_i.shape + leaf_j.shape. Each Hessian row is an exact
    Hessian-vector product; nothing is summed across directions (ARCH-067).
    """
    return jacfwd(jacrev(fn, argnums), argnums)
