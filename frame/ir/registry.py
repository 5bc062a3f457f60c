"""The op registry: one `OpSchema` per op, found by name (SPEC §4, ARCH-063).

An op is one block in its family module, registered with `register_op`: attribute spec, shape
rule, reference kernel, gradient rule, decomposition (for composites), traits, and how every
backend and the frontend meet it: the numpy tier's emission, the native tier's C expression, the
JAX lowering and the JAX primitives it imports from, the `frame.numpy` names, `Tracer` operators
and numpy ufuncs it backs. There is no second registry: every other table in frame is derived
from these fields, and coverage tests (tests/ops/test_registry.py, tests/interop/test_registry_coverage.py,
tests/runtime/test_backends.py) fail when a backend or the frontend lacks what an op claims.

The registry is data the IR reads (it lives in `frame.ir`, below the op families that fill it):
this module imports only errors and `ir.types`. Gradient rules and
decompositions are small Python functions over tracers, which `frame.tracing.traced_gradient` /
`traced_decomposition` trace into the standalone micro-graphs the contract asks for.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..errors import GradientError, ShapeError
from .types import TensorType

# Traits (SPEC §4).
SIDE_EFFECT = "side_effect"   # must not be removed or reordered; never differentiable
ELEMENTWISE = "elementwise"   # output[i] depends on input[i] only (after broadcasting)
LINEAR = "linear"             # linear in its (non-attr) inputs: zero in, zero out
INTERNAL = "internal"         # gradient helper, not user facing (`*_internal`)
COMPOSITE = "composite"       # has a decomposition into primitives
VIEW = "view"                 # the result is (a view of) its operand: no data is computed
COMMUTATIVE = "commutative"   # op(a, b) == op(b, a), bit for bit
BROADCASTING = "broadcasting"  # a binary elementwise op that broadcasts its operands (numpy's rules)
BILINEAR = "bilinear"         # linear in each float operand separately: op(a + ta, b) = op(a, b) + op(ta, b)


@dataclass(frozen=True)
class NodeContext:
    """What a shape rule, gradient rule or decomposition sees of a node: op name, input types, attrs."""

    op: str
    input_types: list[TensorType]
    attrs: dict[str, Any] = field(default_factory=dict)

    def attr(self, name: str, default=None):
        return self.attrs.get(name, default)

    @property
    def output_types(self) -> list[TensorType]:
        return get(self.op).shape_infer(self)


# An attribute spec: name -> (python types accepted, required?)
AttrSpec = dict[str, tuple[tuple[type, ...], bool]]

GradientFn = Callable[[NodeContext], "Graph"]     # noqa: F821 - returns frame.ir.Graph
JvpFn = Callable[[NodeContext, tuple], "Graph"]   # noqa: F821 - (ctx, tangent mask) -> micro-graph
DecomposeFn = Callable[[NodeContext], "Graph"]    # noqa: F821


@dataclass
class OpSchema:
    """Everything frame knows about one op. The backend and frontend fields, each optional:

    - `numpy`: how the numpy tier computes it. A numpy function's name, called with the operands
      and writing into the `out=` buffer the execution plan gives it ("add", "matmul"); or
      `emit(e, *operands) -> expression` over the emitter `e` (frame/backends/numpy.py: `e.fn`,
      `e.scalar`, `e.attrs`, `e.out`); None calls `kernel`. `numpy_out`: whether that expression
      writes into `e.out` (always so for a name).
    - `c`: the native tier's C expression for one element, over `{0}`, `{1}`, ... (the operands),
      `{t}` (the C type) and `{f}` (the float suffix, "f" or ""); only ops whose C expression gives
      numpy's bits for every input. `c_dtypes`: the dtypes it holds for. None: not fusable there.
    - `jax`: the JAX lowering: a name under `jnp`, `lax` or `nn` (jax.nn) called with the operands
      and attributes ("jnp.add"), or `lower(J, *operands, **attrs)` with `J` holding those three.
      `jax_imports`: the JAX primitives that import one to one as this op.
    - `frontend`: the `frame.numpy` names it backs; `operators`: the `Tracer` operators; `ufuncs`:
      the numpy ufuncs that map to it when applied to tracers.
    - `jvp`: the forward-mode rule (`frame.tracing.traced_jvp`), when the default derivation is not
      right or not the cheapest (frame/compiler/forward.py says how the default is derived).
    - `batch`: the batching rule for `vmap` (frame/compiler/batching.py): `(ctx, batched, size) ->
      micro-graph`, made by `frame.ops.batching_rules.traced_batch(rule)` from `rule(ctx, xs, batched,
      size) -> [ys]` (`xs[i]` has a leading batch axis of `size` where `batched[i]`; every result is
      batched at axis 0). None: ELEMENTWISE ops take the generic `LEADING` rule, ops with
      `axis`/`axes` attributes `ALONG_AXES`, composites their decomposition's.
    - `taylor`: the Taylor-mode rule (frame/compiler/taylor.py documents its signature and default).
    - `rows`: how the op treats independent rows (frame/compiler/rows.py documents the signature
      and the default for ELEMENTWISE ops); None elsewhere: a graph using it is not row-partitioned.
    - `no_derivative`: operand positions whose derivative does not exist in frame -> why (the shape
      `a` of gammainc: no closed form). The gradient rule gives None there, and every derivative
      transform refuses with `GradientError` naming the op, the operand and the reason before that
      None could stand for a zero: reverse mode when the operand's cotangent would reach a
      differentiated input (frame/compiler/autograd.py), forward and Taylor mode when the operand
      carries a tangent or series. Derivatives in the other operands work to any order.
    - `region_refusals`: for an op with region bodies (cond, scan, checkpoint), `ctx -> {operand
      position: (schema, position)}`: the operands whose cotangent would reach an operand without a
      derivative (the `schema`'s `position`) inside a body. Its gradient rule gives a zero there, which
      reverse mode refuses like a `no_derivative` operand's, naming the inner op.
    - `zero_operands`: operand positions where an all-zero operand makes the result zero.
    - `promote`: operand positions brought to one dtype by numpy's `result_type` before the op
      applies (`where`'s two values). Ops with `ufuncs` are promoted by that ufunc's own rule.
      `to_float`: operand positions that numpy computes in float64 when they hold ints or bools
      (numpy.linalg's rule).
    """

    name: str
    shape_infer: Callable[[NodeContext], list[TensorType]]
    kernel: Callable[..., Any]
    gradient: GradientFn | None = None
    decomposition: DecomposeFn | None = None
    traits: frozenset[str] = frozenset()
    attrs: AttrSpec = field(default_factory=dict)
    doc: str = ""
    num_inputs: int | None = None  # None: variadic
    numpy: str | Callable | None = None
    numpy_out: bool = False
    c: str | None = None
    c_dtypes: tuple[str, ...] = ("float32", "float64")
    jax: str | Callable | None = None
    jax_imports: tuple[str, ...] = ()
    frontend: tuple[str, ...] = ()
    operators: tuple[str, ...] = ()
    ufuncs: tuple[str, ...] = ()
    no_derivative: dict[int, str] = field(default_factory=dict)
    zero_operands: tuple[int, ...] = ()
    promote: tuple[int, ...] = ()
    to_float: tuple[int, ...] = ()
    jvp: JvpFn | None = None
    batch: Callable | None = None
    taylor: Callable | None = None
    rows: Callable | None = None
    region_refusals: Callable[[NodeContext], dict] | None = None

    def has(self, trait: str) -> bool:
        return trait in self.traits

    def refused_operands(self, ctx: NodeContext) -> dict[int, tuple[OpSchema, int]]:
        """{operand position: (schema, position) of the op whose operand has no derivative}: this op's own
        `no_derivative` operands and those its regions refuse (`region_refusals`)."""
        refused = {i: (self, i) for i in self.no_derivative}
        if self.region_refusals is not None:
            refused.update(self.region_refusals(ctx))
        return refused

    def no_derivative_error(self, position: int, where: str) -> GradientError:
        """The refusal of a derivative in operand `position`, listed in `no_derivative`; `where` says which
        derivative asked for it."""
        return GradientError(f"op '{self.name}' has no derivative in operand {position} "
                             f"({self.no_derivative[position]}), but {where} goes through it: hold that operand "
                             "fixed (a constant, or frame.stop_gradient) or differentiate w.r.t. the other operands")

    def check_attrs(self, attrs: dict) -> None:
        for key, value in attrs.items():
            if key not in self.attrs:
                raise ShapeError(f"op '{self.name}': unknown attribute '{key}' (accepted: {sorted(self.attrs) or 'none'})")
            kinds, _ = self.attrs[key]
            if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds and int in kinds):
                names = "/".join(k.__name__ for k in kinds)
                raise ShapeError(f"op '{self.name}': attribute '{key}' must be {names}, got {type(value).__name__} {value!r}")
        missing = [k for k, (_, required) in self.attrs.items() if required and k not in attrs]
        if missing:
            raise ShapeError(f"op '{self.name}': missing attribute(s) {', '.join(missing)}")

    def infer(self, input_types: list[TensorType], attrs: dict | None = None) -> list[TensorType]:
        return self.shape_infer(NodeContext(self.name, list(input_types), dict(attrs or {})))


_REGISTRY: dict[str, OpSchema] = {}


def register_op(name: str, *, shape, kernel=None, gradient=None, decomposition=None, traits=(), attrs=None,
                num_inputs=None, doc: str = "", **facts) -> OpSchema:
    """Register one op; `facts` are the backend and frontend fields of `OpSchema`, and `no_derivative`
    ({operand position: why}, for an op differentiable in some operands only).

    A composite without a kernel of its own computes with its decomposition (`decomposition_kernel`).
    A gradient on a side-effect op is refused here, at import (ARCH-062).
    """
    traits = frozenset(traits) | ({COMPOSITE} if decomposition is not None else frozenset())
    if name in _REGISTRY:
        raise ValueError(f"op '{name}' is registered twice")
    if kernel is None:
        if decomposition is None:
            raise ValueError(f"op '{name}' needs a kernel or a decomposition")
        kernel = functools.partial(decomposition_kernel, name)
    if gradient is not None and SIDE_EFFECT in traits:
        raise GradientError(f"op '{name}' has side effects and cannot have a gradient rule")
    if isinstance(facts.get("numpy"), str):
        facts["numpy_out"] = True
    if "no_derivative" in facts:
        facts["no_derivative"] = dict(facts["no_derivative"])
        for i, why in facts["no_derivative"].items():
            position = isinstance(i, int) and not isinstance(i, bool) and 0 <= i < (num_inputs or i + 1)
            if not position or not isinstance(why, str) or not why:
                raise ValueError(f"op '{name}': no_derivative takes operand positions and their reasons, got {i!r}: "
                                 f"{why!r}")
    for key in ("jax_imports", "frontend", "operators", "ufuncs", "zero_operands", "c_dtypes", "promote", "to_float"):
        if key in facts:
            facts[key] = tuple(facts[key])
    schema = OpSchema(name, shape, kernel, gradient, decomposition, traits, dict(attrs or {}), doc, num_inputs,
                      **facts)
    _REGISTRY[name] = schema
    return schema


def decomposition_kernel(op: str, *arrays, **attrs):
    """The reference kernel of composite `op`: its decomposition (memoised per signature) run with the
    primitives' kernels, so eager calls and constant folding give the bits of the graphs the
    `decompose` stage expands."""
    return run_graph(get(op).decomposition(NodeContext(op, [TensorType.of(a) for a in arrays], attrs)), *arrays)


def run_graph(graph, *arrays):
    """Run a (kept, unchanging) graph node by node with each op's kernel; a result or a tuple of them.
    Intermediates are dropped after their last use, so numpy reuses their memory."""
    steps, n_slots, outputs = _program(graph)
    env = list(arrays) + [None] * (n_slots - len(arrays))
    for kernel, attrs, ins, outs, dead in steps:
        result = kernel(*[env[i] for i in ins], **attrs)
        if len(outs) == 1:
            env[outs[0]] = result
        else:
            for i, r in zip(outs, result):
                env[i] = r
        for i in dead:
            env[i] = None
    results = [env[i] for i in outputs]
    return results[0] if len(results) == 1 else tuple(results)


@functools.lru_cache(maxsize=1024)
def _program(graph):
    """`graph` as steps (kernel, attrs, operand slots, result slots, slots read for the last time)
    over a flat slot list, the graph's inputs first."""
    slot = {v: i for i, v in enumerate(graph.inputs)}
    last_use = {}
    for step, node in enumerate(graph.nodes):
        for v in node.outputs:
            slot[v] = len(slot)
        last_use.update(dict.fromkeys(node.inputs, step))
    dead = [[] for _ in graph.nodes]
    for v, step in last_use.items():
        if v not in graph.outputs and v not in graph.inputs:
            dead[step].append(slot[v])
    steps = [(get(node.op).kernel, node.attrs, [slot[v] for v in node.inputs], [slot[v] for v in node.outputs],
              dead[step]) for step, node in enumerate(graph.nodes)]
    return steps, len(slot), [slot[v] for v in graph.outputs]


def unregister_op(name: str) -> None:
    """Remove an op (used by tests that register throwaway ops)."""
    _REGISTRY.pop(name, None)


def find(name: str) -> OpSchema | None:
    return _REGISTRY.get(name)


def get(name: str) -> OpSchema:
    schema = _REGISTRY.get(name)
    if schema is None:
        raise ShapeError(f"unknown op '{name}'")
    return schema


def all_ops() -> list[OpSchema]:
    return list(_REGISTRY.values())


# ---------------------------------------------------------------------------------------------
# Shared shape helpers


def broadcast_shapes(op: str, *shapes: tuple[int, ...]) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ShapeError(f"op '{op}': shapes {' and '.join(map(str, shapes))} do not broadcast") from None


def same_dtype(op: str, types: list[TensorType]) -> str:
    dtypes = {t.dtype for t in types}
    if len(dtypes) > 1:
        raise ShapeError(f"op '{op}': operand dtypes differ ({', '.join(t.dtype for t in types)}); "
                         "frame does not promote, cast one operand")
    return types[0].dtype


def require_float(op: str, t: TensorType) -> None:
    if not t.is_float:
        raise ShapeError(f"op '{op}' needs a float operand, got {t}")


def normalize_axis(op: str, axis: int, rank: int) -> int:
    if not -rank <= axis < max(rank, 1) or (rank == 0 and axis not in (0, -1)):
        raise ShapeError(f"op '{op}': axis {axis} is out of range for rank {rank}")
    return axis % rank if rank else 0


def arity(op: str, ctx: NodeContext, n: int) -> None:
    if len(ctx.input_types) != n:
        raise ShapeError(f"op '{op}' takes {n} operand(s), got {len(ctx.input_types)}")
