"""`from_jax`: import a JAX function into a frame graph through its jaxpr (SPEC §7a).

`jax.make_jaxpr` gives the function as a list of primitive equations; each primitive is
rewritten into frame ops by one entry of `PRIMITIVES`: a primitive an op block lists in its
`jax_imports` fact becomes that op (`ONE_TO_ONE`, derived from the registry), the others are
translated by the rules in `TRANSLATIONS`, facts about JAX rather than about one frame op.
The import is exact or it is refused: every equation's parameters are checked against
`PARAMETERS`, the audit of what each parameter means and whether frame reproduces it, and
anything frame would not compute exactly (values and derivatives) raises `TraceError` at
import time naming the primitive and the parameter:

- a primitive without an entry, or a parameter nobody audited (a newer JAX may add one);
- a parameter value frame does not reproduce (an accuracy hint, a transposing reshape, ...);
- `select_n` with an integer predicate;
- a custom derivative rule (`custom_jvp_call`, `custom_vjp_call`): frame would differentiate the
  body instead, so derivatives could differ from JAX's. `inline_custom_derivatives=True` imports
  the body anyway. `jax.nn.relu` is the exception: its rule is frame's relu rule.

Calls (`jit`, `closed_call`) are inlined: their other parameters are placement and compilation,
neither of which changes a value. `jax.checkpoint` (`remat2`) becomes frame's `checkpoint` region
with its policy (jax_rules_remat.py). Control flow (`cond`, `scan`,
`while`: lax.cond, lax.switch, lax.scan, lax.map, lax.fori_loop, lax.while_loop) imports as
frame's region ops, their jaxprs imported as the regions (jax_rules_control.py), so a loop is
one node, never inlined once. The result is an ordinary graph:
it verifies, differentiates and compiles like a traced one.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
from typing import Callable

import numpy as np

from ..errors import FrameError, TraceError
from ..ir.graph import Graph, Value
from ..ir.types import TensorType, canonical_dtype
from ..ir.verify import verify
from ..ops import all_ops
from ._jax import require_jax
from .jax_audit import (_CUSTOM_RULE, _PLACEMENT, _SHARDING, _UNARY_FLOAT, Decision, _increasing, _is_none,
                        _operand_dtype, _precision_level, checked, implemented, irrelevant)
from . import (jax_rules_control, jax_rules_conv, jax_rules_fft, jax_rules_lax, jax_rules_linalg, jax_rules_math,
               jax_rules_reduce, jax_rules_remat, jax_rules_sequence, jax_rules_shape)

jax = require_jax()
from jax.extend.core import ClosedJaxpr, Literal  # noqa: E402


class _Importer:
    """Rewrites jaxpr equations into nodes of `graph`; `env` maps jaxpr variables to frame values."""

    def __init__(self, graph: Graph, inline_custom_derivatives: bool):
        self.graph = graph
        self.inline_custom_derivatives = inline_custom_derivatives
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

    def run(self, jaxpr, consts, args: list[Value], where: str) -> list[Value]:
        env: dict = {}
        for var, c in zip(jaxpr.constvars, consts):
            env[var] = self.constant(np.asarray(c))
        env.update(zip(jaxpr.invars, args))
        for eqn in jaxpr.eqns:
            name = eqn.primitive.name
            _refuse_unsupported(eqn, where)
            operands = [self.read(env, a) for a in eqn.invars]
            if name in CALLS:
                results = self.call(eqn, operands, where)
            else:
                try:
                    results = PRIMITIVES[name](self, eqn, *operands)
                except FrameError as e:   # a rule or frame op refusing its operands names them
                    raise TraceError(f"from_jax: cannot import JAX primitive '{name}'{where}: {e}; "
                                     f"equation:\n{eqn}") from None
                results = results if isinstance(results, list) else [results]
            for var, value in zip(eqn.outvars, results):
                want = _aval_type(var.aval)
                if value.type.shape != want.shape or value.type.dtype != want.dtype:
                    raise TraceError(f"from_jax: importing '{name}'{where} gave {value.type}, the jaxpr says {want}; "
                                     f"equation:\n{eqn}")
                env[var] = value
        return [self.read(env, a) for a in jaxpr.outvars]

    def region(self, closed, name: str, where: str):
        """A nested (closed) jaxpr imported into a graph of its own, frozen as a region (a control-flow
        op's body): its inputs are the jaxpr's, and every equation is checked and translated as here."""
        from ..ops.fused import FusedBody

        graph = Graph(name)
        importer = _Importer(graph, self.inline_custom_derivatives)
        jaxpr, consts = (closed.jaxpr, closed.consts) if isinstance(closed, ClosedJaxpr) else (closed, ())
        inputs = [graph.add_input(_aval_type(v.aval)) for v in jaxpr.invars]
        for value in importer.run(jaxpr, consts, inputs, where):
            graph.mark_output(value)
        return FusedBody.of(graph)

    def inline(self, body: Graph, operands) -> list[Value]:
        """`body`'s nodes copied into this graph on `operands`; its outputs here."""
        from ..ir.clone import inline_graph
        return inline_graph(self.graph, body, list(operands))

    def compose(self, name: str, fn: Callable, operands) -> list[Value]:
        """`fn` (a frame function of the operands, e.g. frame.lax's of the primitive's name) traced into a
        graph and inlined: a primitive that is a composition of frame ops. Operands known at import time go
        in as numpy arrays, so `fn` sees them concrete (static slices, constant index arithmetic)."""
        from ..frontend.tracer import ShapeDtype, trace

        known = [self.known(v) for v in operands]
        free = [v for v, k in zip(operands, known) if k is None]

        def body(*traced):
            it = iter(traced)
            return fn(*[next(it) if k is None else k for k in known])
        return self.inline(trace(body, *[ShapeDtype(v.type.shape, v.type.dtype) for v in free], name=name), free)

    def call(self, eqn, operands: list[Value], where: str) -> list[Value]:
        """Inline a call's body; a custom derivative rule is refused unless the caller opted in."""
        name = eqn.primitive.name
        body = eqn.params[CALLS[name]]
        source = _function_source(body)
        label = eqn.params.get("name") or (source.split(" at ")[0] if source else "")
        if name in CUSTOM_RULES:
            if _is_jax_relu(body) and len(operands) == 1 and operands[0].type.is_float:
                return [self.node("relu", operands)]
            if not self.inline_custom_derivatives:
                raise TraceError(
                    f"from_jax: JAX primitive '{name}'{where} calls '{source or 'a function'}', which has a custom "
                    "derivative rule frame does not import: frame would differentiate the body instead, so "
                    "derivatives could differ from JAX's. Pass inline_custom_derivatives=True to from_jax to "
                    f"import the body anyway (values exact, derivatives frame's own); equation:\n{eqn}")
        if isinstance(body, ClosedJaxpr):
            jaxpr, consts = body.jaxpr, body.consts
        else:
            jaxpr, consts = body, ()
        if len(operands) != len(jaxpr.invars):
            raise TraceError(f"from_jax: cannot inline '{name}'{where}: {len(operands)} operands for "
                             f"{len(jaxpr.invars)} jaxpr inputs; equation:\n{eqn}")
        return self.run(jaxpr, consts, operands, f"{where} inside {name}" + (f"[{label}]" if label else ""))


def _refuse_unsupported(eqn, where: str) -> None:
    """Raise `TraceError` unless frame imports `eqn` exactly: its primitive and every parameter value."""
    name = eqn.primitive.name
    audit = PARAMETERS.get(name)
    if audit is None:
        raise TraceError(f"from_jax: JAX primitive '{name}' has no frame equivalent{where}; equation:\n{eqn}")
    for param, value in eqn.params.items():
        decision = audit.get(param)
        if decision is None:
            raise TraceError(f"from_jax: cannot import JAX primitive '{name}'{where}: parameter {param}={value} has "
                             "not been audited for import (frame refuses a parameter it does not know rather than "
                             f"ignore it); equation:\n{eqn}")
        if decision.kind == "checked" and not decision.accepts(value, eqn):
            raise TraceError(f"from_jax: cannot import JAX primitive '{name}'{where}: parameter {param}={value} is "
                             f"not supported ({decision.why}); equation:\n{eqn}")


def _function_source(body) -> str | None:
    """'f at file:line' for the Python function a nested jaxpr was traced from, when JAX recorded it."""
    jaxpr = body.jaxpr if isinstance(body, ClosedJaxpr) else body
    return getattr(getattr(jaxpr, "debug_info", None), "func_src_info", None) or None


@functools.lru_cache(maxsize=1)
def _jax_relu_source() -> str | None:
    """Where `jax.nn.relu` is defined, as JAX records it in debug info; None if its rule is not frame's.

    frame's relu derivative is 1 where x > 0 and 0 elsewhere (0 at the kink), and its own
    derivative is 0: JAX's custom rule for relu is `select(x > 0, g, 0)`, the same. Checked here
    on the installed JAX rather than assumed, so a changed rule is refused instead of imported."""
    with jax.enable_x64(True):
        x = np.array([-1.0, 0.0, 1.0])
        first = jax.vmap(jax.grad(jax.nn.relu))(x)
        second = jax.vmap(jax.grad(jax.grad(jax.nn.relu)))(x)
    if not (np.array_equal(first, [0.0, 0.0, 1.0]) and np.array_equal(second, [0.0, 0.0, 0.0])):
        return None
    fun = inspect.unwrap(getattr(jax.nn.relu, "fun", jax.nn.relu))
    code = getattr(fun, "__code__", None)
    return None if code is None else f"{fun.__name__} at {code.co_filename}:{code.co_firstlineno}"


def _is_jax_relu(body) -> bool:
    source = _jax_relu_source()
    return source is not None and _function_source(body) == source


def _aval_type(aval) -> TensorType:
    try:
        return TensorType(tuple(aval.shape), canonical_dtype(aval.dtype))
    except Exception as e:  # abstract tokens, unsupported dtypes
        raise TraceError(f"from_jax: JAX value {aval} has no frame type ({e})") from None


def _out_type(eqn) -> TensorType:
    return _aval_type(eqn.outvars[0].aval)


# -- primitive rules: rule(importer, eqn, *operands) -> Value or [Value] ------------------------------
# A rule raises FrameError(reason) for operands it cannot import; `run` adds the primitive and equation.
def _op(frame_op: str):
    # The op's shape rule refuses operands it does not take ("op 'exp' needs a float operand").
    return lambda imp, eqn, *xs: imp.node(frame_op, xs)


def _integer_pow(imp, eqn, x):
    return imp.node("pow", [x], exponent=float(eqn.params["y"]))


def _rsqrt(imp, eqn, x):
    return imp.node("pow", [x], exponent=-0.5)


def _dot_general(imp, eqn, lhs, rhs):
    """Any dot_general as transpose + reshape + (batched) matmul + reshape."""
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    lc, rc, lb, rb = map(lambda t: tuple(int(d) for d in t), (lc, rc, lb, rb))
    out = _out_type(eqn)
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
    # Put the operand's axes where broadcast_dimensions says (in order: the audit checks they increase),
    # size-1 elsewhere, then broadcast.
    placed = [1] * len(shape)
    for axis, d in zip(dims, x.type.shape):
        placed[axis] = d
    y = imp.reshape(x, placed)
    if y.type.shape == shape:
        return y
    z = imp.node("broadcast_to", [y], shape=shape)
    if y in imp.constants:   # keep constants recognisable (pow's exponent) without copying them
        imp.constants[z] = np.broadcast_to(imp.constants[y], shape)
    return z


def _reshape(imp, eqn, x):
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


def _pad(imp, eqn, x, fill):
    value = imp.known(fill)
    if value is None or np.any(value != 0):
        raise FrameError("frame's 'pad' fills with zeros; this lax.pad's padding value is not a constant zero")
    lo, hi, interior = zip(*((int(a), int(b), int(c)) for a, b, c in eqn.params["padding_config"])) or ((), (), ())
    return imp.node("pad", [x], lo=tuple(lo), hi=tuple(hi), interior=tuple(interior))


def _iota(imp, eqn):
    shape, axis = tuple(int(d) for d in eqn.params["shape"]), int(eqn.params["dimension"])
    ramp = np.arange(shape[axis], dtype=np.dtype(eqn.params["dtype"]))
    return imp.constant(np.broadcast_to(ramp.reshape([-1 if i == axis else 1 for i in range(len(shape))]), shape))


def _identity(imp, eqn, x):
    return x


def _convert(imp, eqn, x):
    dtype = canonical_dtype(eqn.params["new_dtype"])
    if x.type.dtype == dtype:
        return x
    y = imp.node("convert", [x], dtype=dtype)
    known = imp.known(x)
    if known is not None:   # a converted constant stays known (jnp.fft's n/s pads with a converted int 0)
        imp.constants[y] = known.astype(dtype)
    return y


def _select_n(imp, eqn, which, *cases):
    # select_n(p, on_false, on_true) for a bool predicate; an int predicate picks among n cases.
    if which.type.dtype != "bool" or len(cases) != 2:
        raise FrameError("frame's where takes a bool predicate and two cases; this select_n has "
                         f"a {which.type.dtype} predicate and {len(cases)} cases")
    return imp.node("where", [which, cases[1], cases[0]])


# JAX primitive -> the frame op whose block lists it in `jax_imports`.
ONE_TO_ONE: dict[str, str] = {primitive: s.name for s in all_ops() for primitive in s.jax_imports}
# Primitives that are not one frame op: rewritten into several, or read through their parameters.
TRANSLATIONS: dict[str, Callable] = {
    "rsqrt": _rsqrt, "integer_pow": _integer_pow,
    "dot_general": _dot_general, "reduce_sum": _reduce_sum, "broadcast_in_dim": _broadcast_in_dim,
    "reshape": _reshape, "squeeze": _squeeze, "transpose": _transpose,
    "concatenate": _concatenate, "slice": _slice, "pad": _pad, "convert_element_type": _convert, "copy": _identity,
    "select_n": _select_n, "iota": _iota,
}
RULE_FAMILIES = (jax_rules_control, jax_rules_conv, jax_rules_fft, jax_rules_lax, jax_rules_linalg, jax_rules_math,
                 jax_rules_reduce, jax_rules_remat, jax_rules_sequence, jax_rules_shape)
for _family in RULE_FAMILIES:
    TRANSLATIONS.update(_family.TRANSLATIONS)
PRIMITIVES: dict[str, Callable] = {**{p: _op(op) for p, op in ONE_TO_ONE.items()}, **TRANSLATIONS}

# Calls whose body is inlined, and the parameter holding the body.
CALLS: dict[str, str] = {
    "jit": "jaxpr", "pjit": "jaxpr",                  # `jit` since JAX 0.7, `pjit` before
    "closed_call": "call_jaxpr",                       # remat2 (jax.checkpoint): jax_rules_remat
    "custom_jvp_call": "call_jaxpr", "custom_vjp_call": "call_jaxpr",
    "custom_vjp_call_jaxpr": "fun_jaxpr",            # custom_vjp_call's name before JAX 0.5
}
CUSTOM_RULES = frozenset({"custom_jvp_call", "custom_vjp_call", "custom_vjp_call_jaxpr"})

# Every accepted primitive, each parameter decided; a one-to-one primitive not named below has no parameters.
PARAMETERS: dict[str, dict[str, Decision]] = {
    **{primitive: {} for primitive in ONE_TO_ONE}, "copy": {},
    "mul": {"out_dtype": checked("an output dtype other than the operands' (JAX's mixed-precision multiply)",
                                 _is_none)},
    "select_n": {},
    **{name: _UNARY_FLOAT for name in ("exp", "log", "sin", "cos", "tanh", "logistic", "sqrt", "rsqrt")},
    "integer_pow": {"y": implemented("frame's pow with exponent float(y): a small integer is exact as a float")},
    "dot_general": {
        "dimension_numbers": implemented("any contraction and batch axes, by transposing into a batched matmul"),
        "precision": checked("a dot algorithm preset prescribes input and accumulation types frame does not use; "
                             "the Precision levels are accepted: frame computes at the operands' full precision, "
                             "which meets or exceeds each", _precision_level),
        "preferred_element_type": checked("an accumulation/output type other than the operands' dtype; "
                                          "frame's matmul accumulates in the operands' dtype", _operand_dtype),
        "out_sharding": _SHARDING},
    "reduce_sum": {"axes": implemented("frame's sum over the same axes"), "out_sharding": _SHARDING},
    "broadcast_in_dim": {
        "shape": implemented("the broadcast result shape"),
        "broadcast_dimensions": checked("the rule places operand axes in order, so the dimensions must increase "
                                        "(JAX itself requires it)", _increasing),
        "sharding": _SHARDING},
    "reshape": {"new_sizes": implemented("frame's reshape (row-major, as JAX's)"),
                "dimensions": checked("a transposing reshape (dimensions is the transpose applied first)", _is_none),
                "sharding": _SHARDING},
    "squeeze": {"dimensions": implemented("the squeezed axes have size 1: a reshape to the output shape")},
    "transpose": {"permutation": implemented("frame's transpose with the same permutation")},
    "concatenate": {"dimension": implemented("frame's concat along the same axis")},
    "slice": {"start_indices": implemented("frame's slice starts"), "limit_indices": implemented("its stops"),
              "strides": implemented("its steps (None: all 1)")},
    "pad": {"padding_config": checked("frame's pad lo/hi/interior; negative lo or hi (cropping) is refused",
                                      lambda value, eqn: all(int(a) >= 0 and int(b) >= 0 for a, b, _ in value))},
    "convert_element_type": {
        "new_dtype": implemented("frame's convert to the same dtype (numpy's astype: the same values, "
                                 "floats to ints truncating toward zero as XLA does)"),
        "weak_type": irrelevant("JAX's type-promotion flag for Python scalars; the value is unchanged"),
        "sharding": _SHARDING},
    "iota": {"dtype": implemented("the constant's dtype"), "shape": implemented("the constant's shape"),
             "dimension": implemented("the axis that counts up"), "sharding": _SHARDING},
    **{name: {"jaxpr": implemented("the body, inlined"), "name": irrelevant("the function's name (shown in errors)"),
              **{p: _PLACEMENT for p in ("in_shardings", "out_shardings", "in_layouts", "out_layouts",
                                         "donated_invars", "ctx_mesh", "resource_env", "keep_unused", "inline",
                                         "compiler_options_kvs")}}
       for name in ("jit", "pjit")},
    "closed_call": {"call_jaxpr": implemented("the body, inlined")},
    "custom_jvp_call": {"call_jaxpr": implemented("the primal body"), "jvp_jaxpr_fun": _CUSTOM_RULE,
                        "jvp_jaxpr_thunk": _CUSTOM_RULE,     # the name before JAX 0.4.36
                        "num_consts": implemented("the first operands are the body's constants, passed in order"),
                        "symbolic_zeros": irrelevant("how the custom rule receives zero tangents")},
    **{name: {body: implemented("the primal body"), "fwd_jaxpr_thunk": _CUSTOM_RULE, "bwd": _CUSTOM_RULE,
              "out_trees": irrelevant("the custom rule's output structure"),
              "num_consts": implemented("the first operands are the body's constants, passed in order"),
              "symbolic_zeros": irrelevant("how the custom rule receives zero cotangents")}
       for name, body in (("custom_vjp_call", "call_jaxpr"), ("custom_vjp_call_jaxpr", "fun_jaxpr"))},
}
for _family in RULE_FAMILIES:
    PARAMETERS.update(_family.PARAMETERS)


def from_jax(fn: Callable, *example_args, name: str | None = None,
             inline_custom_derivatives: bool = False) -> Graph:
    """Import the JAX function `fn` into a frame `Graph` by tracing it with `jax.make_jaxpr`.

    `example_args` are arrays (or pytrees of arrays, or `jax.ShapeDtypeStruct`s) fixing the
    input shapes and dtypes. Graph inputs are their flattened leaves in order, graph outputs the
    flattened leaves of the result (the same convention as `frame.trace`). 64-bit example
    arguments are traced with JAX's x64 mode on so that the graph keeps their dtypes.

    Covered primitives: those op blocks list in `jax_imports` (add, sub, mul, div, neg, exp,
    log, sin, cos, tanh, logistic, sqrt, square, stop_gradient, ...: `ONE_TO_ONE`), rsqrt,
    integer_pow, dot_general (any contraction, as batched matmul),
    reduce_sum, broadcast_in_dim, reshape, squeeze, transpose, concatenate, slice, pad,
    convert_element_type, select_n (bool predicate), and/or/xor/not of bools, copy, iota (as a
    constant), jax.nn.relu, the family rules (jax_rules_*.py), and calls
    (jit, closed_call) by inlining; jax.checkpoint as frame's checkpoint region. Anything frame would not compute exactly raises
    `TraceError` naming the primitive, the parameter and the equation (see the module docstring
    and `PARAMETERS`): integer select_n, accuracy hints, ... Control flow (cond, scan, while)
    imports as frame's cond, scan and while ops.

    A function with a custom derivative rule (`jax.custom_jvp`/`jax.custom_vjp`, other than
    jax.nn.relu) is refused, because frame would differentiate its body rather than use the rule.
    `inline_custom_derivatives=True` imports the body anyway: values are exact, derivatives are
    frame's derivatives of the body, which differ from JAX's wherever the rule is not the body's
    true derivative (a clipped gradient, a numerically stabler formula).
    """
    leaves = jax.tree_util.tree_leaves(example_args)
    dtypes = [np.dtype(getattr(leaf, "dtype", np.asarray(leaf).dtype)) for leaf in leaves]
    wide = any(dt.itemsize == 8 and dt.kind != "c" or dt == np.complex128 for dt in dtypes)
    with jax.enable_x64(True) if wide else contextlib.nullcontext():
        closed = jax.make_jaxpr(fn)(*example_args)
    name = name or getattr(fn, "__name__", "jax_fn").replace("<", "").replace(">", "")
    return import_jaxpr(closed, name=name, inline_custom_derivatives=inline_custom_derivatives)


def import_jaxpr(closed: ClosedJaxpr, name: str = "jaxpr", inline_custom_derivatives: bool = False) -> Graph:
    """The frame graph of a closed jaxpr (what `from_jax` does after tracing); same rules and errors."""
    graph = Graph(name)
    importer = _Importer(graph, inline_custom_derivatives)
    inputs = [graph.add_input(_aval_type(v.aval)) for v in closed.jaxpr.invars]
    for value in importer.run(closed.jaxpr, closed.consts, inputs, where=""):
        graph.mark_output(value)
    return verify(graph)
