"""`checkpoint` (rematerialisation), `checkpoint_name` and `checkpoint_policies`, with JAX's API (issue 17, item 4).

    layer = frame.checkpoint(lambda w, b, h: fnp.tanh(h @ w + b))
    h = layer(w, b, h)        # one `checkpoint` region: its gradient recomputes tanh(h @ w + b)

A checkpointed function computes what the function computes, bit for bit. Under reverse mode its
intermediates are not kept from the forward part to the backward part: the backward part
recomputes them from the function's inputs (frame/ops/remat.py says how, and why no pass can merge
the recomputation back into the forward). `policy` chooses what is kept all the same, as
`jax.checkpoint_policies` does:

- `checkpoint_policies.nothing_saveable` (the default): keep only the inputs;
- `checkpoint_policies.everything_saveable`: keep everything (as without checkpoint);
- `checkpoint_policies.dots_saveable`: keep the results of matrix products (`@`, `matmul`);
- `checkpoint_policies.save_only_these_names("a", ...)`: keep the values marked with
  `checkpoint_name(x, "a")`.

`prevent_cse=False` lets the pipeline merge the recomputation with the forward (so nothing is
saved in memory; JAX offers it for functions under `scan`, where CSE cannot reach across steps).
`static_argnums` are arguments passed as Python values (not traced), as in `jax.checkpoint`.

Traced values the function uses through a closure (a network's parameters) become operands of the
region, so their gradients flow. Called outside any trace, the function simply runs. Forward mode
and `vmap` go through the region (it stays a checkpoint: a gradient taken afterwards recomputes).
"""
from __future__ import annotations

import functools
from typing import Callable

import numpy as np

from ..errors import TraceError
from ..ops.fused import FusedBody
from ..ops.remat import POLICIES
from ..tracing import Tracer, bind, is_tracing, is_weak_scalar
from .custom import positional_arguments
from .pytree import tree_flatten, tree_unflatten
from .tracer import trace_function

__all__ = ["checkpoint", "remat", "checkpoint_name", "checkpoint_policies", "CheckpointPolicy"]


class CheckpointPolicy:
    """A policy of `checkpoint`: which values of the region its gradient keeps instead of recomputing."""

    __slots__ = ("name", "names")

    def __init__(self, name: str, names: tuple[str, ...] = ()):
        if name not in POLICIES:
            raise TraceError(f"checkpoint: unknown policy {name!r}; policies are {', '.join(POLICIES)}")
        self.name, self.names = name, tuple(names)

    def __eq__(self, other):
        return isinstance(other, CheckpointPolicy) and (self.name, self.names) == (other.name, other.names)

    def __hash__(self):
        return hash((self.name, self.names))

    def __repr__(self):
        args = ", ".join(map(repr, self.names))
        return f"checkpoint_policies.{self.name}" + (f"({args})" if self.name == "save_only_these_names" else "")


def _save_only_these_names(*names: str) -> CheckpointPolicy:
    """Keep the values marked by `checkpoint_name(x, name)` for one of `names`."""
    for n in names:
        if not isinstance(n, str) or not n:
            raise TraceError(f"checkpoint_policies.save_only_these_names: names must be non-empty strings, got {n!r}")
    return CheckpointPolicy("save_only_these_names", tuple(names))


class _Policies:
    """`jax.checkpoint_policies`' names frame implements."""

    nothing_saveable = CheckpointPolicy("nothing_saveable")
    everything_saveable = CheckpointPolicy("everything_saveable")
    dots_saveable = CheckpointPolicy("dots_saveable")
    checkpoint_dots = dots_saveable   # JAX's older name
    save_only_these_names = staticmethod(_save_only_these_names)

    def __repr__(self):
        return "checkpoint_policies"


checkpoint_policies = _Policies()


def _as_policy(policy) -> CheckpointPolicy:
    if policy is None:
        return checkpoint_policies.nothing_saveable
    if isinstance(policy, CheckpointPolicy):
        return policy
    if isinstance(policy, str) and policy in POLICIES and policy != "save_only_these_names":
        return CheckpointPolicy(policy)
    raise TraceError(f"checkpoint: policy must be one of frame.checkpoint_policies (nothing_saveable, "
                     f"everything_saveable, dots_saveable, save_only_these_names(...)), got {policy!r}"
                     + (" (JAX's callables on primitives are not supported: frame's policies are named)"
                        if callable(policy) else ""))


def _static_argnums(static_argnums) -> tuple[int, ...]:
    if isinstance(static_argnums, (int, np.integer)) and not isinstance(static_argnums, bool):
        static_argnums = (static_argnums,)
    try:
        items = tuple(static_argnums)
        if not all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in items):
            raise TypeError
        nums = tuple(int(i) for i in items)
    except TypeError:
        raise TraceError(f"checkpoint: static_argnums must be an int or a sequence of ints, got {static_argnums!r}") \
            from None
    return nums


def _name(fn) -> str:
    return getattr(fn, "__name__", "fn").replace("<", "").replace(">", "")


def _is_array_leaf(leaf) -> bool:
    return isinstance(leaf, (Tracer, np.ndarray, np.generic))


class _Checkpointed:
    """The function `checkpoint` returns."""

    def __init__(self, fun: Callable, prevent_cse: bool, policy: CheckpointPolicy, static_argnums: tuple[int, ...]):
        functools.update_wrapper(self, fun)
        self.fun, self.prevent_cse, self.policy, self.static_argnums = fun, prevent_cse, policy, static_argnums
        self.name = _name(fun)

    def __repr__(self):
        return f"<checkpoint of {self.name} ({self.policy!r})>"

    def __call__(self, *args, **kwargs):
        args = positional_arguments(self.fun, args, kwargs, f"checkpoint '{self.name}'")   # as jax.checkpoint binds
        n = len(args)
        for i in self.static_argnums:
            if not -n <= i < n:
                raise TraceError(f"checkpoint '{self.name}': static_argnums {self.static_argnums} is out of range "
                                 f"for a call with {n} argument(s)")
        static = {i % n for i in self.static_argnums}
        for i in sorted(static):
            if any(isinstance(leaf, Tracer) for leaf in tree_flatten(args[i])[0]):
                raise TraceError(f"checkpoint '{self.name}': argument {i} is in static_argnums but holds a traced "
                                 "array; static arguments are Python values")
        if not is_tracing():
            return self.fun(*args)   # nothing can differentiate plain data: the function simply runs
        diff = [a for i, a in enumerate(args) if i not in static]
        leaves, tree = tree_flatten(tuple(diff))
        for k, leaf in enumerate(leaves):
            if not (_is_array_leaf(leaf) or is_weak_scalar(leaf)):
                raise TraceError(f"checkpoint '{self.name}': argument leaf {k} is a {type(leaf).__name__}, not an "
                                 "array or a number; pass it through static_argnums")
        # Arrays are the region's operands; Python numbers stay numbers inside it (weakly typed, so the body
        # computes exactly what the function computes on them).
        operand_at = [k for k, leaf in enumerate(leaves) if _is_array_leaf(leaf)]
        operands = [leaves[k] for k in operand_at]
        operands = [Tracer(x.value, x.frame, False) if isinstance(x, Tracer) and x.weak else x for x in operands]

        def body(*xs):
            full = list(leaves)
            for k, x in zip(operand_at, xs):
                full[k] = x
            it = iter(tree_unflatten(tree, full))
            return self.fun(*[args[i] if i in static else next(it) for i in range(n)])

        res = trace_function(body, tuple(operands), name=self.name)
        captured = list(res.captures)
        outs = bind("checkpoint", *operands, *captured, body=FusedBody.of(res.graph), policy=self.policy.name,
                    names=self.policy.names, prevent_cse=self.prevent_cse)
        outs = [outs] if len(res.graph.outputs) == 1 else list(outs or ())
        return tree_unflatten(res.out_tree, outs)


def checkpoint(fun: Callable | None = None, policy=None, prevent_cse: bool = True, static_argnums=()):
    """`fun` whose gradient recomputes its values instead of keeping them (`jax.checkpoint`).

    Also a decorator: `@checkpoint` or `@functools.partial(checkpoint, policy=...)`. Raises
    `TraceError` for a non-callable `fun`, an unknown `policy`, bad `static_argnums` or arguments
    that are neither arrays nor numbers (unless static)."""
    pol, nums = _as_policy(policy), _static_argnums(static_argnums)
    if not isinstance(prevent_cse, (bool, np.bool_)):
        raise TraceError(f"checkpoint: prevent_cse must be a bool, got {prevent_cse!r}")
    if fun is None:
        return lambda f: checkpoint(f, pol, prevent_cse, nums)
    if not callable(fun):
        raise TraceError(f"checkpoint needs a callable, got {type(fun).__name__}")
    return _Checkpointed(fun, bool(prevent_cse), pol, nums)


remat = checkpoint   # JAX's other name


def checkpoint_name(x, name: str):
    """`x`, named for `checkpoint_policies.save_only_these_names` (`jax.ad_checkpoint.checkpoint_name`).

    Outside a checkpointed function (or on plain data) it is `x`."""
    if not isinstance(name, str) or not name:
        raise TraceError(f"checkpoint_name: name must be a non-empty string, got {name!r}")
    leaves, tree = tree_flatten(x)
    return tree_unflatten(tree, [bind("checkpoint_name", leaf, name=name) if isinstance(leaf, Tracer) else leaf
                                 for leaf in leaves])
