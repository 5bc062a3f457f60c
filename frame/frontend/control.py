"""Structured control flow with JAX's signatures: `cond`, `switch`, `while_loop`, `fori_loop`, `scan` (issue 17).

    def step(u, _):
        u = u + 0.1 * fnp.tanh(u @ w)
        return u, fnp.sum(u ** 2)

    u_final, energies = scan(step, u0, None, length=50)    # one `scan` node, whatever the length

Each traces its functions once into graphs (regions) and binds one op (frame/ops/control.py), so a
loop of any length is one node, and `if` on a traced value is `cond`. Arguments, carries and
results are pytrees (nested tuples, lists, dicts). Traced values of enclosing traces that the
functions use through closures (a network's parameters) become operands of the op, so
derivatives with respect to them flow through the loop. Called on plain data (outside any
trace) the functions are traced all the same and the op runs at once, as in JAX.

Types are checked as JAX checks them: both branches of `cond` must return the same structure
and types, a loop body must return its carry with the carry's structure and types (a Python
number in the initial carry takes the dtype the body gives it, as JAX's weak types do), and
`cond_fun` must return a bool scalar; `TraceError` (structure) or `ShapeError` (types) names the
path of the first leaf that differs.

Derivatives: reverse mode through `cond`, `scan` and `fori_loop` with static Python bounds (a
`scan`); `while_loop` and `fori_loop` with traced bounds refuse reverse mode by name, as JAX does
(forward mode works). Forward mode and `vmap` work through all of them.
"""
from __future__ import annotations

import operator
import threading
from typing import Callable

import numpy as np

from ..errors import ShapeError, TraceError
from ..ir.types import TensorType
from ..ops import control as control_ops
from ..runtime.compile import compile as compile_graph
from ..tracing import Tracer, bind, is_weak_scalar
from .pytree import TreeDef, tree_flatten, tree_paths, tree_unflatten
from .tracer import ShapeDtype, TraceResult, example_type, trace_function

__all__ = ["cond", "while_loop", "fori_loop", "scan", "switch"]


_EXECUTABLES: dict = {}   # region -> its Executable: a loop runs its body once per step, the compile cache's
_EXECUTABLES_MAX = 512    # lookup (options, fingerprint, lock) cost a third of a small step
_EXECUTABLES_LOCK = threading.Lock()


def _compiled_run(body, arrays):
    """Run a region compiled (the pipeline optimises the body, once per body; the runtime's tiers apply)."""
    exe = _EXECUTABLES.get(body)
    if exe is None:
        exe = compile_graph(body)   # equal bodies get one executable from the compile cache, whichever thread wins
        with _EXECUTABLES_LOCK:
            while len(_EXECUTABLES) >= _EXECUTABLES_MAX:
                _EXECUTABLES.pop(next(iter(_EXECUTABLES)))   # the oldest first
            _EXECUTABLES[body] = exe
    return exe(*[_contiguous(a) for a in arrays])


def _contiguous(a) -> np.ndarray:
    """`a` as a C-contiguous array (x slices of a transposed operand are not; native kernels read raw memory)."""
    a = np.asarray(a)
    return a if a.flags.c_contiguous else np.ascontiguousarray(a)


control_ops.install_runner(_compiled_run)


def _name(fn) -> str:
    return getattr(fn, "__name__", "fn").replace("<", "").replace(">", "")


def _strong(x):
    """A tracer as a strongly typed operand: `bind` gives weak operands (standing for Python numbers)
    their partners' dtype, but a region's operands have the types its body was traced with."""
    return Tracer(x.value, x.frame, False) if isinstance(x, Tracer) and x.weak else x


def _as_operand(leaf, t: TensorType):
    """A leaf as an operand of type `t`: tracers as they are (converted when a weak one changed dtype),
    everything else as an array of `t`."""
    if isinstance(leaf, Tracer):
        return _strong(leaf if leaf.type.dtype == t.dtype else bind("convert", leaf, dtype=t.dtype))
    return np.asarray(leaf, dtype=t.dtype)


def _leaf_types(leaves) -> list[TensorType]:
    try:
        return [example_type(leaf) for leaf in leaves]
    except TraceError as e:
        raise TraceError(f"control flow: {e}") from None


def _unique_captures(results: list[TraceResult]) -> list[Tracer]:
    """The outer tracers the traced functions use, each once (in first-use order)."""
    seen, out = set(), []
    for res in results:
        for c in res.captures:
            if id(c.value) not in seen:
                seen.add(id(c.value))
                out.append(c)
    return out


def _capture_map(res: TraceResult, captures: list[Tracer], offset: int) -> list[int]:
    index = {id(c.value): offset + i for i, c in enumerate(captures)}
    return [index[id(c.value)] for c in res.captures]


def _check_same(api: str, what: str, got_tree: TreeDef, got_types, want_what: str, want_tree: TreeDef, want_types,
                leaf_label: str = "") -> None:
    """Structure and types of `what` must equal those of `want_what` (JAX's rule), named by path."""
    if got_tree != want_tree:
        raise TraceError(f"{api}: {what} has structure {got_tree}, but {want_what} has {want_tree}; they must be "
                         "the same")
    for path, g, w in zip(tree_paths(want_tree), got_types, want_types):
        if g != w:
            raise ShapeError(f"{api}: {what}{path} is {g}, but {want_what}{path} is {w}; they must have the same "
                             "shape and dtype" + leaf_label)


# ---------------------------------------------------------------------------------------------
# cond

def _predicate(api: str, pred):
    """A bool scalar from `pred` (a bool or integer scalar; nonzero is true, as in lax.cond)."""
    if isinstance(pred, Tracer):
        t = pred.type
        if t.rank != 0:
            raise ShapeError(f"{api}: the predicate must be a scalar, got {t}")
        if t.dtype == "bool":
            return pred
        if t.dtype in ("int32", "int64"):
            return bind("not_equal", pred, np.zeros((), t.dtype))
        raise ShapeError(f"{api}: the predicate must be a bool or integer scalar, got {t}")
    a = np.asarray(pred)
    if a.ndim != 0:
        raise ShapeError(f"{api}: the predicate must be a scalar, got shape {a.shape}")
    if a.dtype.kind not in "biu":
        raise ShapeError(f"{api}: the predicate must be a bool or integer scalar, got {a.dtype}")
    return np.asarray(bool(a))


def cond(pred, true_fun: Callable, false_fun: Callable, *operands):
    """`true_fun(*operands)` if `pred` else `false_fun(*operands)`, like `jax.lax.cond`.

    `pred` is a bool or integer scalar (nonzero is true), traced or not; both functions are traced,
    must return the same pytree structure and types, and one `cond` node picks at run time. Under
    `vmap` with a batched predicate both branches run and each example takes its own branch's
    results (a `where`), as in JAX."""
    for fn, label in ((true_fun, "true_fun"), (false_fun, "false_fun")):
        if not callable(fn):
            raise TraceError(f"cond: {label} must be callable, got {type(fn).__name__}")
    p = _predicate("cond", pred)
    leaves, in_tree = tree_flatten(operands)
    types = _leaf_types(leaves)
    examples = [leaf if isinstance(leaf, Tracer) or is_weak_scalar(leaf) else ShapeDtype(t.shape, t.dtype)
                for leaf, t in zip(leaves, types)]
    args = tree_unflatten(in_tree, examples)
    res_t = trace_function(lambda *a: true_fun(*a), tuple(args), name=_name(true_fun))
    res_f = trace_function(lambda *a: false_fun(*a), tuple(args), name=_name(false_fun))
    _check_same("cond", "false_fun's output", res_f.out_tree, [v.type for v in res_f.graph.outputs],
                "true_fun's output", res_t.out_tree, [v.type for v in res_t.graph.outputs])
    captures = _unique_captures([res_t, res_f])
    n = len(leaves)
    in_types = types + [c.type for c in captures]
    n_out = len(res_t.graph.outputs)
    bodies = [control_ops.rearranged(res.graph, in_types, [*range(n), *_capture_map(res, captures, n)],
                                     range(n_out)) for res in (res_t, res_f)]
    outs = bind("cond", _strong(p), *[_as_operand(x, t) for x, t in zip(leaves, types)], *map(_strong, captures),
                true_body=bodies[0], false_body=bodies[1])
    return tree_unflatten(res_t.out_tree, _outputs(outs, n_out))


def switch(index, branches, *operands):
    """`branches[clamp(index, 0, len(branches) - 1)](*operands)`, like `jax.lax.switch`: nested `cond`s."""
    branches = list(branches)
    if not branches:
        raise TraceError("switch: needs at least one branch")
    if len(branches) == 1:
        return branches[0](*operands)
    if not isinstance(index, Tracer):
        a = np.asarray(index)
        if a.ndim != 0 or a.dtype.kind not in "iu":
            raise ShapeError(f"switch: the index must be an integer scalar, got {a.dtype}{list(a.shape)}")
        index = np.asarray(int(np.clip(a, 0, len(branches) - 1)), "int64")
    elif index.type.rank != 0 or index.type.dtype not in ("int32", "int64"):
        raise ShapeError(f"switch: the index must be an integer scalar, got {index.type}")
    first = bind("less_equal", index, np.zeros((), np.dtype(index.dtype).name))
    return cond(first, branches[0], lambda *a: switch(_minus_one(index), branches[1:], *a), *operands)


def _minus_one(index):
    return bind("sub", index, np.ones((), np.dtype(index.dtype).name))


def _outputs(outs, n: int) -> list:
    if n == 0:
        return []
    return [outs] if n == 1 else list(outs)


# ---------------------------------------------------------------------------------------------
# loops: the carry

def _trace_step(api: str, fn: Callable, carry_leaves, carry_tree: TreeDef, extra_examples, extra_tree,
                split_output: bool, name: str):
    """Trace `fn(carry)` (while) or `fn(carry, x)` (scan) with the carry fixed; return the trace, the
    carry types and the output's carry and extra structures.

    A Python number in the initial carry is weak: when the body gives that leaf another dtype, the
    carry takes the body's dtype and the body is traced again (JAX's weak-type promotion)."""
    types = _leaf_types(carry_leaves)
    for attempt in range(2):
        examples = [leaf if isinstance(leaf, Tracer) and leaf.type == t or attempt == 0 and is_weak_scalar(leaf)
                    else ShapeDtype(t.shape, t.dtype) for leaf, t in zip(carry_leaves, types)]
        carry = tree_unflatten(carry_tree, examples)
        if split_output:
            args = (carry, tree_unflatten(extra_tree, extra_examples) if extra_tree is not None else None)
        else:
            args = (carry,)
        res = trace_function(lambda *a: fn(*a), args, name=name)
        if split_output:
            tree = res.out_tree
            if tree.kind not in ("tuple", "list") or len(tree.children) != 2:
                raise TraceError(f"{api}: the body must return a pair (carry, y), got structure {tree}")
            out_carry_tree, y_tree = tree.children
        else:
            out_carry_tree, y_tree = res.out_tree, None
        out_types = [v.type for v in res.graph.outputs[:out_carry_tree.num_leaves]]
        if out_carry_tree != carry_tree:
            raise TraceError(f"{api}: the body's carry output has structure {out_carry_tree}, but the initial carry "
                             f"has {carry_tree}; they must be the same")
        promoted = [o if (is_weak_scalar(leaf) or isinstance(leaf, Tracer) and leaf.weak) and o.shape == t.shape
                    and o.dtype != t.dtype else t for leaf, t, o in zip(carry_leaves, types, out_types)]
        if promoted == types or attempt == 1:
            break
        types = promoted
    _check_same(api, "the body's carry output", out_carry_tree, out_types, "the initial carry", carry_tree, types,
                " (a loop's carry keeps its type: cast the initial value or the body's result)")
    return res, types, y_tree


def _loop_operands(leaves, types):
    return [_as_operand(x, t) for x, t in zip(leaves, types)]


def while_loop(cond_fun: Callable, body_fun: Callable, init_val):
    """Repeat `val = body_fun(val)` while `cond_fun(val)`, like `jax.lax.while_loop`; returns the final `val`.

    `cond_fun` must return a bool scalar; `body_fun` must return the carry with its structure and
    types. Reverse mode is refused by name (the trip count is dynamic, as in JAX): use `scan` or
    `fori_loop` with static bounds for gradients."""
    for fn, label in ((cond_fun, "cond_fun"), (body_fun, "body_fun")):
        if not callable(fn):
            raise TraceError(f"while_loop: {label} must be callable, got {type(fn).__name__}")
    leaves, tree = tree_flatten(init_val)
    body_res, types, _ = _trace_step("while_loop", body_fun, leaves, tree, None, None, False, _name(body_fun))
    examples = tree_unflatten(tree, [ShapeDtype(t.shape, t.dtype) for t in types])
    cond_res = trace_function(lambda c: cond_fun(c), (examples,), name=_name(cond_fun))
    outs = cond_res.graph.outputs
    if cond_res.out_tree.kind != "leaf" or outs[0].type.rank != 0 or outs[0].type.dtype != "bool":
        got = ", ".join(str(v.type) for v in outs) or "nothing"
        raise ShapeError(f"while_loop: cond_fun must return a bool scalar, got {cond_res.out_tree} of ({got})")
    nk = len(leaves)
    cond_caps, body_caps = _unique_captures([cond_res]), _unique_captures([body_res])
    cond_body = control_ops.rearranged(cond_res.graph, [c.type for c in cond_caps] + types,
                                       [*range(len(cond_caps), len(cond_caps) + nk),
                                        *_capture_map(cond_res, cond_caps, 0)], range(1))
    body = control_ops.rearranged(body_res.graph, [c.type for c in body_caps] + types,
                                  [*range(len(body_caps), len(body_caps) + nk), *_capture_map(body_res, body_caps, 0)],
                                  range(nk))
    out = bind("while", *map(_strong, cond_caps), *map(_strong, body_caps), *_loop_operands(leaves, types),
               cond_body=cond_body, body=body,
               cond_nconsts=len(cond_caps), body_nconsts=len(body_caps))
    return tree_unflatten(tree, _outputs(out, nk))


def _static_int(x):
    """`x` as a Python int when it is a concrete integer (a static trip count), else None."""
    if isinstance(x, Tracer):
        return None
    if isinstance(x, (bool, np.bool_)):
        return None
    try:
        return operator.index(x) if not isinstance(x, np.ndarray) else (int(x) if x.ndim == 0 and x.dtype.kind in "iu"
                                                                         else None)
    except TypeError:
        return None


def fori_loop(lower, upper, body_fun: Callable, init_val, *, unroll=None):
    """`val = body_fun(i, val)` for i in range(lower, upper), like `jax.lax.fori_loop`; returns the final `val`.

    With concrete integer bounds it is a `scan` of `upper - lower` steps carrying `(i, val)`, so
    reverse mode works through it; with a traced bound it is a `while_loop` (no reverse mode, as
    in JAX). The counter has the bounds' integer dtype (int64 for Python ints). `unroll` changes
    no value (frame runs the steps one by one) and is accepted for JAX's signature."""
    if not callable(body_fun):
        raise TraceError(f"fori_loop: body_fun must be callable, got {type(body_fun).__name__}")
    lo, hi = _static_int(lower), _static_int(upper)
    dtype = _counter_dtype(lower, upper)
    if lo is not None and hi is not None:
        def step(carry, _):
            i, val = carry
            return (bind("add", i, np.ones((), dtype)), body_fun(i, val)), None

        (_, val), _ = scan(step, (np.asarray(lo, dtype), init_val), None, length=max(hi - lo, 0))
        return val

    def keep_going(carry):
        return bind("less", carry[0], carry[1])

    def body(carry):
        i, stop, val = carry
        return bind("add", i, np.ones((), dtype)), stop, body_fun(i, val)

    start, stop = (_as_counter(b, dtype) for b in (lower, upper))
    return while_loop(keep_going, body, (start, stop, init_val))[2]


def _counter_dtype(lower, upper) -> str:
    kinds = []
    for b in (lower, upper):
        if isinstance(b, Tracer):
            if b.type.rank != 0 or b.type.dtype not in ("int32", "int64"):
                raise ShapeError(f"fori_loop: the bounds must be integer scalars, got {b.type}")
            kinds.append(np.dtype(b.type.dtype))
        else:
            a = np.asarray(b)
            if a.ndim != 0 or a.dtype.kind not in "iu" or isinstance(b, (bool, np.bool_)):
                raise ShapeError(f"fori_loop: the bounds must be integer scalars, got {a.dtype}{list(a.shape)}")
            kinds.append(int if is_weak_scalar(b) else a.dtype)
    dts = [k for k in kinds if k is not int]
    return np.result_type(*dts).name if dts else "int64"


def _as_counter(b, dtype: str):
    if isinstance(b, Tracer):
        return b if b.type.dtype == dtype else bind("convert", b, dtype=dtype)
    return np.asarray(b, dtype)


def scan(f: Callable, init, xs=None, length: int | None = None, reverse: bool = False, unroll=1,
         _split_transpose: bool = False):
    """`jax.lax.scan`: `carry, y = f(carry, x)` over the leading axis of `xs`; returns `(carry, ys)`.

    `xs` is a pytree of arrays sharing a leading axis (or None, with `length`); `ys` stacks each
    step's `y` (a pytree, or None) along a new leading axis. `reverse=True` walks from the last
    step to the first (ys keep their step's index). The carry keeps its structure and types. One
    `scan` node for any length; its reverse mode is a scan over the saved carries. `unroll`
    changes no value and is accepted for JAX's signature."""
    if not callable(f):
        raise TraceError(f"scan: f must be callable, got {type(f).__name__}")
    x_leaves, x_tree = tree_flatten(xs)
    x_leaves = [x if isinstance(x, Tracer) else np.asarray(x) for x in x_leaves]
    x_types = _leaf_types(x_leaves)
    lengths = {t.shape[0] if t.rank else None for t in x_types}
    if None in lengths:
        bad = next(p for p, t in zip(tree_paths(x_tree), x_types) if not t.rank)
        raise ShapeError(f"scan: xs{bad} is a scalar; every leaf of xs needs a leading axis to scan over")
    if len(lengths) > 1:
        found = ", ".join(f"xs{p}: {t.shape[0]}" for p, t in zip(tree_paths(x_tree), x_types))
        raise ShapeError(f"scan: the leaves of xs have different leading axis lengths ({found})")
    if length is not None:
        length = _static_int(length)
        if length is None or length < 0:
            raise ShapeError(f"scan: length must be a non-negative Python int, got {length!r}")
        if lengths and length not in lengths:
            raise ShapeError(f"scan: length={length} but the leaves of xs have leading axis {lengths.pop()}")
    elif lengths:
        length = lengths.pop()
    else:
        raise ShapeError("scan: there are no xs to scan over and length is not given")
    carry_leaves, carry_tree = tree_flatten(init)
    slices = [ShapeDtype(t.shape[1:], t.dtype) for t in x_types]
    res, types, y_tree = _trace_step("scan", f, carry_leaves, carry_tree, slices, x_tree if xs is not None else None,
                                     True, _name(f))
    captures = _unique_captures([res])
    nc, nk, nx = len(captures), len(carry_leaves), len(x_leaves)
    n_out = len(res.graph.outputs)
    body = control_ops.rearranged(res.graph, [c.type for c in captures] + types + [s for s in _slice_types(x_types)],
                                  [*range(nc, nc + nk + nx), *_capture_map(res, captures, 0)], range(n_out))
    outs = _outputs(bind("scan", *map(_strong, captures), *_loop_operands(carry_leaves, types), *map(_strong, x_leaves),
                         body=body,
                         num_consts=nc, num_carry=nk, length=int(length), reverse=bool(reverse)), n_out)
    return tree_unflatten(carry_tree, outs[:nk]), tree_unflatten(y_tree, outs[nk:])


def _slice_types(x_types):
    return [TensorType(t.shape[1:], t.dtype, t.device) for t in x_types]
