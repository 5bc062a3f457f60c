"""`custom_vjp` and `custom_jvp`: user-defined derivative rules, with JAX's API (issue 15, item 4).

    @custom_vjp
    def f(x, y):
        return fnp.sin(x) * y

    def f_fwd(x, y):
        return f(x, y), (fnp.cos(x), fnp.sin(x), y)      # (output, residuals)

    def f_bwd(res, g):
        cos_x, sin_x, y = res
        return (cos_x * g * y, sin_x * g)                 # one cotangent per argument

    f.defvjp(f_fwd, f_bwd)

    @custom_jvp
    def log1pexp(x):
        return fnp.log(1.0 + fnp.exp(x))

    @log1pexp.defjvp
    def log1pexp_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return log1pexp(x), t * (1.0 - 1.0 / (1.0 + fnp.exp(x)))

Arguments and outputs are pytrees, residuals any pytree of arrays; a cotangent (tangent) may be
`None` for a zero. `nondiff_argnums` name static arguments (Python values, not traced arrays, as
in JAX since its custom_vjp update): they are passed to the function and its rules as they are,
first to `bwd` (`bwd(*nondiff, res, g)`) and to the jvp rule (`jvp(*nondiff, primals, tangents)`).

Called on plain data the function simply runs (no derivative can be asked of it, as in JAX). On
traced arguments (under `frame.grad`, `frame.vjp`, `frame.jvp`, `frame.function`) the function and
its rules are traced into graphs, checked against each other, and bound as one `custom_vjp_call`
or `custom_jvp_call` node (frame/ops/custom.py), whose reverse and forward rules are the user's.
Rules written in frame ops are themselves differentiable, so derivatives of any order work.
`frame.jvp` of a custom_vjp function is refused, as in JAX.

Inside its own rules the function stands for its body (`fwd` may return `f(x)` as its output): a
derivative through a residual computed by calling it there is the body's, not the rule's again.

The function and its rules must take every traced value they depend on as an argument: a
traced value of an enclosing trace used through a closure is refused (`TraceError`), since the
rules give no derivative with respect to it (JAX refuses to differentiate with respect to it).
"""
from __future__ import annotations

import functools
import inspect
from contextvars import ContextVar
from typing import Callable, Sequence

import numpy as np

from ..compiler.autograd import build_backward_graph
from ..errors import GradientError, TraceError
from ..ir.types import TensorType
from ..ops import custom as custom_ops
from ..ops.fused import FusedBody
from ..tracing import Tracer, bind, is_weak_scalar
from .pytree import TreeDef, child_keys, node_children, tree_flatten, tree_paths, tree_unflatten
from .tracer import example_type, trace_function

custom_ops.install_reverse_mode(build_backward_graph)

# The custom functions whose rules are being traced (by id): inside its own rules a function stands
# for its body, so `fwd` may call it without tracing its rules again (forever).
_IN_RULES: ContextVar[frozenset] = ContextVar("frame_custom_rules", default=frozenset())


def _name(fn) -> str:
    return getattr(fn, "__name__", "fn").replace("<", "").replace(">", "")


_KIND_EXAMPLE = {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}


def _strong(leaf, arrays: list[str]):
    """A Python number (or a weak tracer standing for one) in the dtype numpy 2 gives it next to `arrays`."""
    if not isinstance(leaf, Tracer):
        return np.asarray(leaf, dtype=np.result_type(leaf, *arrays))
    dtype = np.result_type(_KIND_EXAMPLE[leaf.dtype.kind], *arrays).name
    return leaf if dtype == leaf.type.dtype else bind("convert", leaf, dtype=dtype)



def positional_arguments(fun, args: tuple, kwargs: dict, label: str) -> tuple:
    """A call's arguments made positional by `fun`'s signature (defaults applied), as JAX binds the
    keywords of custom-rule and checkpointed functions; keyword-only parameters are refused."""
    if not kwargs:
        return args
    try:
        bound = inspect.signature(fun).bind(*args, **kwargs)
    except (TypeError, ValueError) as e:
        raise TraceError(f"{label}: cannot bind the keyword arguments: {e}") from None
    bound.apply_defaults()
    if bound.kwargs:
        raise TraceError(f"{label}: keyword-only arguments {sorted(bound.kwargs)} are not supported; "
                         "pass them positionally")
    return bound.args

class _CustomFunction:
    """What custom_vjp and custom_jvp share: the wrapped function, its static arguments, the call."""

    kind = ""

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()):
        if not callable(fun):
            raise TraceError(f"{self.kind} needs a callable, got {type(fun).__name__}")
        functools.update_wrapper(self, fun)
        self.fun = fun
        try:
            self.nondiff_argnums = tuple(sorted(int(i) for i in nondiff_argnums))
        except (TypeError, ValueError):
            raise TraceError(f"{self.kind}: nondiff_argnums must be a tuple of ints, got {nondiff_argnums!r}") from None
        self.name = _name(fun)

    def _arguments(self, args: tuple, kwargs: dict) -> tuple:
        """The call's arguments, positional (keywords bound by the signature, as JAX does)."""
        args = positional_arguments(self.fun, args, kwargs, f"{self.kind} '{self.name}'")
        for i in self.nondiff_argnums:
            if not 0 <= i < len(args):
                raise TraceError(f"{self.kind} '{self.name}': nondiff_argnums {self.nondiff_argnums} is out of range "
                                 f"for a call with {len(args)} argument(s)")
            if any(isinstance(leaf, Tracer) for leaf in tree_flatten(args[i])[0]):
                raise TraceError(f"{self.kind} '{self.name}': argument {i} is in nondiff_argnums but holds a traced "
                                 "array; nondiff_argnums are for static Python values (as in JAX): pass arrays as "
                                 "ordinary arguments and return None as their cotangent")
        return tuple(args)

    def _split(self, args: tuple):
        """(static values in order, the differentiated arguments, `merge(diff) -> all arguments`)."""
        static = [args[i] for i in self.nondiff_argnums]
        diff = tuple(a for i, a in enumerate(args) if i not in self.nondiff_argnums)

        def merge(diff_args):
            it, st = iter(diff_args), iter(static)
            return tuple(next(st) if i in self.nondiff_argnums else next(it) for i in range(len(args)))

        return static, diff, merge

    def _trace(self, what: str, fn: Callable, example: Sequence, name: str):
        """Trace `fn(*leaves)`; refuse closures over traced values of an enclosing trace."""
        res = trace_function(fn, tuple(example), name=name)
        if res.captures:
            types = ", ".join(str(c.type) for c in res.captures)
            raise TraceError(f"{self.kind} '{self.name}': {what} uses traced value(s) of an enclosing trace through a "
                             f"closure ({types}); the custom rule gives no derivative with respect to them. Pass "
                             "them as arguments (their cotangents come from the rule; None for a zero)")
        return res

    def __call__(self, *args, **kwargs):
        args = self._arguments(args, kwargs)
        self._check_defined()
        static, diff, merge = self._split(args)
        leaves, in_tree = tree_flatten(diff)
        if id(self) in _IN_RULES.get() or not any(isinstance(leaf, Tracer) for leaf in leaves):
            return self.fun(*args)   # plain data (nothing can differentiate it), or inside its own rules
        # A Python number takes the dtype numpy 2 gives it next to the array arguments (NEP 50), as a
        # weak value would: f(x_f32, 2.0) traces, and its cotangent is expected, in float32.
        # (A weak tracer, standing for a Python number, is converted the same way.)
        weak = [is_weak_scalar(leaf) or isinstance(leaf, Tracer) and leaf.weak for leaf in leaves]
        arrays = [example_type(leaf).dtype for leaf, w in zip(leaves, weak) if not w]
        leaves = [_strong(leaf, arrays) if w else leaf for leaf, w in zip(leaves, weak)]
        operands, types = leaves, [example_type(leaf) for leaf in leaves]
        body = self._trace("the function", lambda *ls: self.fun(*merge(tree_unflatten(in_tree, ls))), leaves,
                           self.name)
        token = _IN_RULES.set(_IN_RULES.get() | {id(self)})
        try:
            attrs = self._rules(static, merge, leaves, in_tree, types, body)
        finally:
            _IN_RULES.reset(token)
        outs = bind(self.op, *operands, body=FusedBody.of(body.graph), **attrs)
        outs = [outs] if len(body.graph.outputs) == 1 else list(outs or ())
        return tree_unflatten(body.out_tree, outs)

    def _check_outputs(self, what: str, tree: TreeDef, out_types, body) -> None:
        """`what`'s output structure and types must be the function's."""
        if tree != body.out_tree:
            raise GradientError(f"{self.kind} '{self.name}': {what} has structure {tree}, but the function returns "
                                f"{body.out_tree}")
        want = [v.type for v in body.graph.outputs]
        for path, got, exp in zip(tree_paths(tree), out_types, want):
            if got != exp:
                raise GradientError(f"{self.kind} '{self.name}': {what}{path} is {got}, but the function's output{path} "
                                    f"is {exp}")


def _no_symbolic_zeros(custom, symbolic_zeros: bool) -> None:
    if symbolic_zeros:
        raise GradientError(f"{custom.kind} '{custom.name}': symbolic_zeros=True is not supported: frame's rules "
                            "always receive arrays (zeros where a value has no tangent or cotangent)")


def _pair(kind: str, name: str, rule: str, result, what: str):
    if not (isinstance(result, (tuple, list)) and len(result) == 2):
        got = f"a {type(result).__name__} of length {len(result)}" if isinstance(result, (tuple, list)) \
            else f"a {type(result).__name__}"
        raise GradientError(f"{kind} '{name}': {rule} must return a pair {what}, got {got}")
    return tuple(result)


def _fill(kind: str, name: str, what: str, value, tree: TreeDef, types: list[TensorType], path: str = "") -> list:
    """The leaves of `value`, of structure `tree` and the given types, `None` standing for zeros
    (of a whole subtree or of one leaf); a `GradientError` naming the path when they do not fit."""
    if value is None:
        return [np.zeros(t.shape, t.dtype) for t in types]
    if tree.kind == "leaf":
        (t,) = types
        if is_weak_scalar(value):
            value = np.asarray(value, dtype=t.dtype)
        if tree_flatten(value)[1].kind != "leaf":
            raise GradientError(f"{kind} '{name}': {what}{path} has structure {tree_flatten(value)[1]}, expected {tree} "
                                f"(an array of {t})")
        if not isinstance(value, (Tracer, np.ndarray, np.generic)):
            raise GradientError(f"{kind} '{name}': {what}{path} must be an array of {t}, got a {type(value).__name__}")
        shape, dtype = (value.shape, value.type.dtype) if isinstance(value, Tracer) else (value.shape, value.dtype.name)
        if not t.is_inexact:
            return [np.zeros(t.shape, t.dtype)]   # an integer argument has no cotangent: whatever the rule says is zero
        if shape != t.shape or dtype != t.dtype:
            raise GradientError(f"{kind} '{name}': {what}{path} has shape {shape} and dtype {dtype}, expected shape "
                                f"{t.shape} and dtype {t.dtype}")
        return [value]
    items = node_children(tree, value, loose=True)   # a list may stand for a tuple and the reverse
    if items is None:
        raise GradientError(f"{kind} '{name}': {what}{path} has structure {tree_flatten(value)[1]}, expected {tree}")
    out, k = [], 0
    for item, sub, key in zip(items, tree.children, child_keys(tree)):
        out += _fill(kind, name, what, item, sub, types[k:k + sub.num_leaves], path + str(key))
        k += sub.num_leaves
    return out


class custom_vjp(_CustomFunction):
    """A function with a user-defined vector-Jacobian product, like `jax.custom_vjp`.

    `f = custom_vjp(fun, nondiff_argnums=())` (or `@custom_vjp`, `@functools.partial(custom_vjp,
    nondiff_argnums=...)`), then `f.defvjp(fwd, bwd)`: `fwd(*args) -> (output, residuals)` with the
    function's signature, `bwd(*nondiff_args, residuals, output_cotangent) -> tuple` of one
    cotangent per (differentiated) argument, each a pytree like the argument or None for zero.
    Forward mode (`frame.jvp`) of it raises `GradientError`, as in JAX.
    """

    kind = "custom_vjp"
    op = "custom_vjp_call"

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()):
        super().__init__(fun, nondiff_argnums)
        self.fwd = self.bwd = None

    def defvjp(self, fwd: Callable, bwd: Callable, symbolic_zeros: bool = False) -> None:
        """Set the rules: `fwd(*args) -> (output, residuals)` and `bwd(*nondiff_args, residuals, g) -> cotangents`."""
        _no_symbolic_zeros(self, symbolic_zeros)
        if not callable(fwd) or not callable(bwd):
            raise GradientError(f"custom_vjp '{self.name}': defvjp needs two callables (fwd, bwd), got "
                                f"{type(fwd).__name__} and {type(bwd).__name__}")
        self.fwd, self.bwd = fwd, bwd

    def _check_defined(self) -> None:
        if self.fwd is None:
            raise GradientError(f"custom_vjp '{self.name}' has no rule: call {self.name}.defvjp(fwd, bwd) before "
                                "calling it")

    def _rules(self, static, merge, leaves, in_tree, types, body) -> dict:
        kind, name, n_out = self.kind, self.name, len(body.graph.outputs)

        def fwd(*ls):
            return _pair(kind, name, "fwd", self.fwd(*merge(tree_unflatten(in_tree, ls))), "(output, residuals)")

        fwd_res = self._trace("fwd", fwd, leaves, f"{name}_fwd")
        out_tree, res_tree = fwd_res.out_tree.children
        self._check_outputs("fwd's output", out_tree, [v.type for v in fwd_res.graph.outputs[:n_out]], body)
        res_types = [v.type for v in fwd_res.graph.outputs[n_out:]]
        out_types = [v.type for v in body.graph.outputs]
        arg_trees = in_tree.children
        n_args = len(arg_trees)

        def bwd(*ls):
            residuals = tree_unflatten(res_tree, ls[:len(res_types)])
            cotangent = tree_unflatten(body.out_tree, ls[len(res_types):])
            cts = self.bwd(*static, residuals, cotangent)
            if not isinstance(cts, (tuple, list)) or len(cts) != n_args:
                got = f"a {type(cts).__name__} of length {len(cts)}" if isinstance(cts, (tuple, list)) \
                    else f"a {type(cts).__name__}"
                raise GradientError(f"custom_vjp '{name}': bwd must return a tuple of {n_args} cotangent(s), one per "
                                    f"argument of the function (None for a zero), got {got}")
            out, k = [], 0
            for i, (ct, tree) in enumerate(zip(cts, arg_trees)):
                out += _fill(kind, name, f"bwd's cotangent of argument {i}", ct, tree, types[k:k + tree.num_leaves])
                k += tree.num_leaves
            return out

        bwd_res = self._trace("bwd", bwd, res_types + out_types, f"{name}_bwd")
        return {"fwd": FusedBody.of(fwd_res.graph), "bwd": FusedBody.of(bwd_res.graph)}


class custom_jvp(_CustomFunction):
    """A function with a user-defined Jacobian-vector product, like `jax.custom_jvp`.

    `f = custom_jvp(fun, nondiff_argnums=())` (or `@custom_jvp`), then `f.defjvp(rule)` (also a
    decorator): `rule(*nondiff_args, primals, tangents) -> (output, tangent_out)` with `primals`
    and `tangents` tuples of the (differentiated) arguments. The rule must be linear in the
    tangents: reverse mode uses its exact transpose.
    """

    kind = "custom_jvp"
    op = "custom_jvp_call"

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()):
        super().__init__(fun, nondiff_argnums)
        self.jvp = None

    def defjvp(self, jvp: Callable, symbolic_zeros: bool = False) -> Callable:
        """Set the rule `jvp(*nondiff_args, primals, tangents) -> (output, tangent_out)`; returns it (a decorator)."""
        _no_symbolic_zeros(self, symbolic_zeros)
        if not callable(jvp):
            raise GradientError(f"custom_jvp '{self.name}': defjvp needs a callable, got {type(jvp).__name__}")
        self.jvp = jvp
        return jvp

    def defjvps(self, *jvps: Callable | None) -> None:
        """One rule per argument, as JAX's `defjvps`: `jvps[i](t_i, output, *primals)` is the tangent the
        output gets from argument i's tangent (None: the output does not depend on it); they add up."""
        if self.nondiff_argnums:
            raise GradientError(f"custom_jvp '{self.name}': defjvps does not take nondiff_argnums; use defjvp")

        def jvp(primals, tangents):
            if len(jvps) != len(primals):
                raise GradientError(f"custom_jvp '{self.name}': defjvps got {len(jvps)} rule(s) for "
                                    f"{len(primals)} argument(s)")
            out = self(*primals)   # inside its rules: the body
            parts = [tree_flatten(fn(t, out, *primals))[0] for fn, t in zip(jvps, tangents) if fn is not None]
            _, out_tree = tree_flatten(out)
            if not parts:
                return out, None
            return out, tree_unflatten(out_tree, [functools.reduce(lambda a, b: a + b, leaves) for leaves in zip(*parts)])

        self.defjvp(jvp)

    def _check_defined(self) -> None:
        if self.jvp is None:
            raise GradientError(f"custom_jvp '{self.name}' has no rule: call {self.name}.defjvp(rule) before "
                                "calling it")

    def _rules(self, static, merge, leaves, in_tree, types, body) -> dict:
        kind, name, n = self.kind, self.name, len(leaves)

        def rule(*ls):
            primals = tree_unflatten(in_tree, ls[:n])
            tangents = tree_unflatten(in_tree, ls[n:])
            out, tangent_out = _pair(kind, name, "the jvp rule", self.jvp(*static, primals, tangents),
                                     "(output, tangent_out)")
            return out, tree_unflatten(body.out_tree, _fill(kind, name, "the jvp rule's tangent_out", tangent_out,
                                                            body.out_tree, [v.type for v in body.graph.outputs]))

        jvp_res = self._trace("the jvp rule", rule, list(leaves) + types, f"{name}_jvp")
        n_out = len(body.graph.outputs)
        self._check_outputs("the jvp rule's output", jvp_res.out_tree.children[0],
                            [v.type for v in jvp_res.graph.outputs[:n_out]], body)
        return {"jvp": FusedBody.of(jvp_res.graph)}
