"""`from_jax`: import a JAX function into a frame graph through its jaxpr (SPEC §7a).

`jax.make_jaxpr` gives the function as a list of primitive equations; each primitive is
rewritten into frame ops by one entry of `PRIMITIVES`. Calls with a nested jaxpr (`jit`/`pjit`,
`custom_jvp_call`, `custom_vjp_call`, `closed_call`, `remat`) are inlined: frame differentiates
the inlined body with its own rules (a custom JVP's rule is not imported). A primitive without
an entry raises `FrameError` naming it and showing the equation. The result is an ordinary
graph: it verifies, differentiates and compiles like a traced one.
"""
from __future__ import annotations

import contextlib
from typing import Callable

import numpy as np

from ..errors import FrameError
from ..ir.graph import Graph, Value
from ..ir.types import TensorType, canonical_dtype
from ..ir.verify import verify
from ._jax import require_jax

jax = require_jax()
from jax.extend.core import ClosedJaxpr, Jaxpr, Literal  # noqa: E402


class _Importer:
    """Rewrites jaxpr equations into nodes of `graph`; `env` maps jaxpr variables to frame values."""

    def __init__(self, graph: Graph):
        self.graph = graph
        self.constants: dict[Value, np.ndarray] = {}   # values known at import time (literals, consts)

    # -- building blocks
    def node(self, op: str, inputs, **attrs) -> Value:
        return self.graph.add_node(op, list(inputs), attrs).output

    def constant(self, array) -> Value:
        array = np.asarray(array)
        value = self.node("constant", [], value=array)
        self.constants[value] = array
        return value

    def reshape(self, x: Value, shape) -> Value:
        shape = tuple(int(d) for d in shape)
        if x.type.shape == shape:
            return x
        y = self.node("reshape", [x], shape=shape)
        if x in self.constants:
            self.constants[y] = self.constants[x].reshape(shape)
        return y

    def known(self, v: Value) -> np.ndarray | None:
        """The value of `v` when it is a constant (possibly broadcast or reshaped), else None."""
        return self.constants.get(v)

    # -- jaxpr walking
    def read(self, env: dict, atom) -> Value:
        if isinstance(atom, Literal):
            aval = atom.aval
            return self.constant(np.asarray(atom.val, dtype=np.dtype(aval.dtype)).reshape(aval.shape))
        return env[atom]

    def run(self, jaxpr: Jaxpr, consts, args: list[Value], where: str) -> list[Value]:
        env: dict = {}
        for var, c in zip(jaxpr.constvars, consts):
            env[var] = self.constant(np.asarray(c))
        env.update(zip(jaxpr.invars, args))
        for eqn in jaxpr.eqns:
            name = eqn.primitive.name
            operands = [self.read(env, a) for a in eqn.invars]
            rule = PRIMITIVES.get(name)
            if rule is None:
                sub = _nested_jaxpr(eqn)
                if sub is None:
                    raise FrameError(f"from_jax: JAX primitive '{name}' has no frame equivalent{where}; "
                                     f"equation:\n{eqn}")
                inner_where = f"{where} inside {name}" + (f"[{eqn.params['name']}]" if "name" in eqn.params else "")
                results = self.inline(eqn, sub, operands, inner_where)
            else:
                try:
                    results = rule(self, eqn, *operands)
                except FrameError as e:
                    raise FrameError(f"from_jax: cannot import JAX primitive '{name}'{where}: {e}; "
                                     f"equation:\n{eqn}") from None
                results = results if isinstance(results, list) else [results]
            for var, value in zip(eqn.outvars, results):
                want = _aval_type(var.aval)
                if value.type.shape != want.shape or value.type.dtype != want.dtype:
                    raise FrameError(f"from_jax: importing '{name}'{where} gave {value.type}, the jaxpr says {want}; "
                                     f"equation:\n{eqn}")
                env[var] = value
        return [self.read(env, a) for a in jaxpr.outvars]

    def inline(self, eqn, sub, operands: list[Value], where: str) -> list[Value]:
        if isinstance(sub, ClosedJaxpr):
            jaxpr, consts = sub.jaxpr, sub.consts
        else:
            jaxpr, consts = sub, ()
        args = operands
        if len(args) != len(jaxpr.invars):
            raise FrameError(f"from_jax: cannot inline '{eqn.primitive.name}'{where}: {len(operands)} operands for "
                             f"{len(jaxpr.invars)} jaxpr inputs; equation:\n{eqn}")
        return self.run(jaxpr, consts, args, where)


def _nested_jaxpr(eqn):
    """The body of a call-like equation (jit, custom_jvp_call, ...), or None."""
    for key in ("jaxpr", "call_jaxpr", "fun_jaxpr"):
        sub = eqn.params.get(key)
        if isinstance(sub, (Jaxpr, ClosedJaxpr)):
            return sub
    return None


def _aval_type(aval) -> TensorType:
    try:
        return TensorType(tuple(aval.shape), canonical_dtype(aval.dtype))
    except Exception as e:  # abstract tokens, unsupported dtypes
        raise FrameError(f"from_jax: JAX value {aval} has no frame type ({e})") from None


def _out_type(eqn) -> TensorType:
    return _aval_type(eqn.outvars[0].aval)


# -- primitive rules: rule(importer, eqn, *operands) -> Value or [Value] ------------------------------
def _op(frame_op: str):
    return lambda imp, eqn, *xs: imp.node(frame_op, xs)


def _float_op(frame_op: str):
    def rule(imp, eqn, *xs):
        if not all(x.type.is_float for x in xs):
            raise FrameError(f"frame's '{frame_op}' takes float operands, got {', '.join(str(x.type) for x in xs)}")
        return imp.node(frame_op, xs)
    return rule


def _integer_pow(imp, eqn, x):
    return imp.node("pow", [x], exponent=float(eqn.params["y"]))


def _pow(imp, eqn, x, p):
    exponent = imp.known(p)
    if exponent is None or exponent.size == 0 or not np.all(exponent == exponent.flat[0]):
        raise FrameError("frame's 'pow' needs a constant scalar exponent, the exponent here is computed")
    y = imp.node("pow", [x], exponent=float(exponent.flat[0]))
    out = _out_type(eqn)
    return y if y.type.shape == out.shape else imp.node("broadcast_to", [y], shape=out.shape)


def _rsqrt(imp, eqn, x):
    return imp.node("pow", [x], exponent=-0.5)


def _max(imp, eqn, a, b):
    # frame has relu but no general maximum: max(x, 0) in either order is the one form imported.
    for x, z in ((a, b), (b, a)):
        zero = imp.known(z)
        if zero is not None and not np.any(zero) and x.type.is_float:
            y = imp.node("relu", [x])
            out = _out_type(eqn)
            return y if y.type.shape == out.shape else imp.node("broadcast_to", [y], shape=out.shape)
    raise FrameError("frame imports 'max' only as max(x, 0) (relu); here neither operand is a constant zero")


def _dot_general(imp, eqn, lhs, rhs):
    """Any dot_general as transpose + reshape + (batched) matmul + reshape."""
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    lc, rc, lb, rb = map(lambda t: tuple(int(d) for d in t), (lc, rc, lb, rb))
    out = _out_type(eqn)
    if out.dtype != lhs.type.dtype:
        raise FrameError(f"preferred_element_type {out.dtype} differs from the operand dtype {lhs.type.dtype}")
    ls, rs = lhs.type.shape, rhs.type.shape
    lf = tuple(d for d in range(len(ls)) if d not in lc and d not in lb)
    rf = tuple(d for d in range(len(rs)) if d not in rc and d not in rb)
    batch = tuple(ls[d] for d in lb)
    k = int(np.prod([ls[d] for d in lc], dtype=np.int64))
    m = int(np.prod([ls[d] for d in lf], dtype=np.int64))
    n = int(np.prod([rs[d] for d in rf], dtype=np.int64))
    lhs = imp.reshape(_permute(imp, lhs, lb + lf + lc), batch + (m, k))
    rhs = imp.reshape(_permute(imp, rhs, rb + rc + rf), batch + (k, n))
    y = imp.node("matmul", [lhs, rhs])
    return imp.reshape(y, out.shape)


def _permute(imp, x: Value, perm: tuple[int, ...]) -> Value:
    return x if perm == tuple(range(len(perm))) else imp.node("transpose", [x], perm=perm)


def _reduce_sum(imp, eqn, x):
    return imp.node("sum", [x], axes=tuple(sorted(int(a) for a in eqn.params["axes"])), keepdims=False)


def _broadcast_in_dim(imp, eqn, x):
    shape = tuple(int(d) for d in eqn.params["shape"])
    dims = tuple(int(d) for d in eqn.params["broadcast_dimensions"])
    # Put the operand's axes where broadcast_dimensions says, size-1 elsewhere, then broadcast.
    placed = [1] * len(shape)
    for axis, d in zip(dims, x.type.shape):
        placed[axis] = d
    y = imp.reshape(x, placed)
    if y.type.shape == shape:
        return y
    z = imp.node("broadcast_to", [y], shape=shape)
    if y in imp.constants:   # keep constants recognisable (pow's exponent, max(x, 0)) without copying them
        imp.constants[z] = np.broadcast_to(imp.constants[y], shape)
    return z


def _reshape(imp, eqn, x):
    if eqn.params.get("dimensions") is not None:
        raise FrameError("reshape with `dimensions` (a transposing reshape) is not supported")
    return imp.reshape(x, eqn.params["new_sizes"])


def _squeeze(imp, eqn, x):
    return imp.reshape(x, _out_type(eqn).shape)


def _transpose(imp, eqn, x):
    return _permute(imp, x, tuple(int(p) for p in eqn.params["permutation"]))


def _concatenate(imp, eqn, *xs):
    return imp.node("concat", xs, axis=int(eqn.params["dimension"]))


def _slice(imp, eqn, x):
    starts = tuple(int(s) for s in eqn.params["start_indices"])
    stops = tuple(int(s) for s in eqn.params["limit_indices"])
    steps = eqn.params.get("strides")
    steps = (1,) * len(starts) if steps is None else tuple(int(s) for s in steps)
    return imp.node("slice", [x], starts=starts, stops=stops, steps=steps)


def _convert_element_type(imp, eqn, x):
    new = canonical_dtype(eqn.params["new_dtype"])
    if new != x.type.dtype:
        raise FrameError(f"it changes the dtype ({x.type.dtype} -> {new}); frame has no cast op")
    return x


def _iota(imp, eqn):
    shape, axis = tuple(int(d) for d in eqn.params["shape"]), int(eqn.params["dimension"])
    ramp = np.arange(shape[axis], dtype=np.dtype(eqn.params["dtype"]))
    return imp.constant(np.broadcast_to(ramp.reshape([-1 if i == axis else 1 for i in range(len(shape))]), shape))


def _identity(imp, eqn, x):
    return x


PRIMITIVES: dict[str, Callable] = {
    "add": _op("add"), "sub": _op("sub"), "mul": _op("mul"), "div": _float_op("div"), "neg": _op("neg"),
    "exp": _float_op("exp"), "log": _float_op("log"), "sin": _float_op("sin"), "cos": _float_op("cos"),
    "tanh": _float_op("tanh"), "logistic": _float_op("sigmoid"), "sqrt": _float_op("sqrt"),
    "square": _float_op("square"), "rsqrt": _rsqrt, "integer_pow": _integer_pow, "pow": _pow, "max": _max,
    "dot_general": _dot_general, "reduce_sum": _reduce_sum, "broadcast_in_dim": _broadcast_in_dim,
    "reshape": _reshape, "squeeze": _squeeze, "expand_dims": _squeeze, "transpose": _transpose,
    "concatenate": _concatenate, "slice": _slice, "convert_element_type": _convert_element_type,
    "stop_gradient": _op("stop_gradient"), "copy": _identity, "copy_p": _identity, "iota": _iota,
}


def from_jax(fn: Callable, *example_args, name: str | None = None) -> Graph:
    """Import the JAX function `fn` into a frame `Graph` by tracing it with `jax.make_jaxpr`.

    `example_args` are arrays (or pytrees of arrays, or `jax.ShapeDtypeStruct`s) fixing the
    input shapes and dtypes. Graph inputs are their flattened leaves in order, graph outputs the
    flattened leaves of the result (the same convention as `frame.trace`). 64-bit example
    arguments are traced with JAX's x64 mode on so that the graph keeps their dtypes.

    Covered primitives: add, sub, mul, div, neg, exp, log, sin, cos, tanh, logistic, sqrt,
    rsqrt, square, integer_pow, pow (constant exponent), max(x, 0) (relu), dot_general (any
    contraction, as batched matmul), reduce_sum, broadcast_in_dim, reshape, squeeze,
    expand_dims, transpose, concatenate, slice, convert_element_type (dtype unchanged),
    stop_gradient, iota (as a constant), and nested jaxprs (jit/pjit, custom_jvp_call, custom_vjp_call, ...) by
    inlining. Anything else raises `FrameError` naming the primitive and the equation.
    """
    leaves = jax.tree_util.tree_leaves(example_args)
    wide = any(np.dtype(getattr(leaf, "dtype", np.asarray(leaf).dtype)).itemsize == 8 for leaf in leaves)
    with jax.enable_x64(True) if wide else contextlib.nullcontext():
        closed = jax.make_jaxpr(fn)(*example_args)
    graph = Graph(name or getattr(fn, "__name__", "jax_fn").replace("<", "").replace(">", ""))
    importer = _Importer(graph)
    inputs = [graph.add_input(_aval_type(v.aval)) for v in closed.jaxpr.invars]
    for value in importer.run(closed.jaxpr, closed.consts, inputs, where=""):
        graph.mark_output(value)
    return verify(graph)
