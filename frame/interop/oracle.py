"""The derivative oracle: frame's first and second derivatives cross-checked against JAX (SPEC §7a).

JAX never computes anything for frame here; it checks frame's answers. `check_derivatives`
traces a function to a frame graph and derives it with frame's own machinery
(`build_backward_graph`, applied once for gradients and again on the derived graph for
second order, ARCH-067). Independently, the *forward* graph is lowered with `to_jax` and
differentiated by `jax.grad`, `jax.hessian` and `jax.jvp`, all in float64. The two are
compared element by element and summarised per output and order in an `OracleReport`.

Non-scalar outputs are contracted with a fixed random cotangent `w` (seeded): the first-order
check is then a vector-Jacobian product and the second-order check the Hessian of
`sum(y * w)`, which exercises every element of the output's Jacobian.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from ..compiler.autograd import build_backward_graph
from ..errors import GradientError, OracleMismatch
from ..frontend.pytree import tree_flatten, tree_map
from ..frontend.tracer import is_tracing, trace_function
from ..frontend.transforms import _argnums_tuple, _leaf_offsets
from ..ir.clone import inline_graph
from ..ir.graph import Graph, Value
from ..runtime.compile import compile as compile_graph
from ._jax import require_jax
from .jax_lowering import to_jax

jax = require_jax()
import jax.numpy as jnp  # noqa: E402


@dataclass(frozen=True)
class OracleEntry:
    """One comparison: forward output `output`, derivative `order`, and how far frame is from JAX.

    `check` says what was compared: `value` (order 0), `gradient` (order 1), `hessian` (the full
    second-derivative matrix) or `hvp` (Hessian-vector products in random directions), or
    `lowered derived graph` (frame's derived graph run by frame and by its JAX lowering).
    `tolerance_ratio` is max |frame - jax| / (atol + rtol |jax|): the entry passes when it is <= 1.
    `max_rel_err` is taken over elements with |jax| > atol (smaller ones are judged by atol).
    """

    output: int
    order: int
    check: str
    size: int
    max_abs_err: float
    max_rel_err: float
    tolerance_ratio: float
    worst_index: tuple[int, ...] = ()
    frame_value: float = 0.0
    jax_value: float = 0.0

    @property
    def ok(self) -> bool:
        return bool(self.tolerance_ratio <= 1.0)

    def describe(self) -> str:
        return (f"output {self.output}, order {self.order} ({self.check}): max abs err {self.max_abs_err:.3e}, "
                f"max rel err {self.max_rel_err:.3e}, {self.tolerance_ratio:.3g}x the tolerance; worst at "
                f"{self.worst_index}: frame {self.frame_value!r} vs jax {self.jax_value!r}")


@dataclass
class OracleReport:
    """Every comparison `check_derivatives` made, with the tolerances it judged them by."""

    name: str
    wrt: tuple[int, ...]
    rtol: float
    atol: float
    entries: list[OracleEntry] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(e.ok for e in self.entries)

    def worst(self, n: int = 5) -> list[OracleEntry]:
        """The `n` entries furthest from tolerance, worst first."""
        return sorted(self.entries, key=lambda e: -e.tolerance_ratio)[:n]

    def max_abs_err(self, order: int | None = None) -> float:
        errs = [e.max_abs_err for e in self.entries if order is None or e.order == order]
        return max(errs, default=0.0)

    def rows(self) -> list[dict]:
        """The entries as dicts (one row per comparison), e.g. for a table in a notebook."""
        return [{"output": e.output, "order": e.order, "check": e.check, "size": e.size,
                 "max_abs_err": e.max_abs_err, "max_rel_err": e.max_rel_err,
                 "tolerance_ratio": e.tolerance_ratio, "ok": e.ok} for e in self.entries]

    def __str__(self) -> str:
        head = (f"JAX oracle for '{self.name}' w.r.t. graph inputs {list(self.wrt)} (rtol={self.rtol:g}, "
                f"atol={self.atol:g}): {'passed' if self.passed else 'FAILED'}")
        lines = [head, f"{'output':>6} {'order':>5}  {'check':<22} {'size':>6} {'max abs err':>12} "
                       f"{'max rel err':>12} {'tol ratio':>10}  ok"]
        for e in self.entries:
            lines.append(f"{e.output:>6} {e.order:>5}  {e.check:<22} {e.size:>6} {e.max_abs_err:>12.3e} "
                         f"{e.max_rel_err:>12.3e} {e.tolerance_ratio:>10.3g}  {'yes' if e.ok else 'NO'}")
        return "\n".join(lines)


def compare(output: int, order: int, check: str, frame_result, jax_result, rtol: float, atol: float) -> OracleEntry:
    """Compare two arrays elementwise (allclose semantics) into an `OracleEntry`."""
    f = np.asarray(frame_result, dtype=np.float64)
    j = np.asarray(jax_result, dtype=np.float64)
    if f.shape != j.shape:
        raise OracleMismatch(f"output {output}, order {order} ({check}): frame gives shape {f.shape}, "
                             f"JAX gives {j.shape}")
    if f.size == 0:
        return OracleEntry(output, order, check, 0, 0.0, 0.0, 0.0)
    err = np.abs(f - j)
    err = np.where(np.isnan(f) & np.isnan(j), 0.0, err)   # both NaN agree; one NaN is an infinite error
    err = np.where(np.isnan(err), np.inf, err)
    ratio = err / (atol + rtol * np.abs(j))
    big = np.abs(j) > atol
    rel = np.where(big, err / np.where(big, np.abs(j), 1.0), 0.0)
    k = int(np.argmax(ratio))
    index = tuple(int(i) for i in np.unravel_index(k, f.shape))
    return OracleEntry(output, order, check, int(f.size), float(err.max()), float(rel.max()), float(ratio.flat[k]),
                       index, float(f.flat[k]), float(j.flat[k]))


def _as_float64(leaf):
    a = np.asarray(leaf)
    return a.astype(np.float64) if a.dtype.kind == "f" else a


def _forward_graph(fn, args) -> tuple[Graph, str]:
    if isinstance(fn, Graph):
        return fn, fn.name
    name = getattr(fn, "__name__", "fn")
    res = trace_function(fn, tuple(args), name=name)
    if res.captures:
        raise GradientError(f"check_derivatives: '{name}' captured traced values of an enclosing trace")
    return res.graph, name


def _contraction(forward: Graph, k: int, w: np.ndarray) -> Graph:
    """`forward`'s inputs -> sum(output_k * w): the scalar whose derivatives are compared."""
    g = Graph(f"{forward.name}_out{k}")
    ys = inline_graph(g, forward, [g.add_input(v.type) for v in forward.inputs])
    y = g.add_node("mul", [ys[k], g.constant(w)]).output
    g.mark_output(g.add_node("sum", [y], {"axes": tuple(range(y.type.rank)), "keepdims": False}).output)
    return g


def _directional(first_order: Graph, n_grads: int) -> Graph:
    """Inputs `[x..., v...]` -> sum_i sum(grad_i * v_i): re-deriving it gives Hessian-vector products."""
    g = Graph(f"{first_order.name}_dir")
    xs = [g.add_input(v.type) for v in first_order.inputs]
    outs = inline_graph(g, first_order, xs)
    grads = outs[len(outs) - n_grads:]
    total: Value | None = None
    for gi in grads:
        vi = g.add_input(gi.type)
        term = g.add_node("mul", [gi, vi]).output
        term = g.add_node("sum", [term], {"axes": tuple(range(gi.type.rank)), "keepdims": False}).output
        total = term if total is None else g.add_node("add", [total, term]).output
    g.mark_output(total)
    return g


def check_derivatives(fn: Callable | Graph, *args, orders: Sequence[int] = (1, 2), argnums: int | Sequence[int] = 0,
                      rtol: float = 1e-7, atol: float = 1e-10, seed: int = 0, full_hessian_max: int = 64,
                      num_directions: int = 3, check_lowering: bool = True,
                      raise_on_mismatch: bool = True) -> OracleReport:
    """Cross-check frame's derivatives of `fn` at `args` against JAX, in float64.

    `fn` is a Python function over `frame.numpy` (traced with `frame.trace`; float arguments are
    cast to float64 first) or a frame `Graph` (its inputs are the flattened `args`, kept in the
    graph's own dtypes, and `argnums` then indexes graph inputs). `argnums` picks the positional
    arguments (pytrees allowed) to differentiate. Per float output of `fn`:

    - order 0: the output's values, frame execution vs the `to_jax` lowering;
    - order 1: frame's gradient of `sum(y * w)` from `build_backward_graph` vs `jax.grad`;
    - order 2: frame's second derivative, from `build_backward_graph` applied again to the
      first-order graph contracted with a direction `v`, vs JAX: the full Hessian
      (`jax.hessian`, one frame run per basis direction) when the differentiated leaves hold at
      most `full_hessian_max` elements, else `num_directions` random Hessian-vector products
      (`jax.jvp` of `jax.grad`).

    With `check_lowering`, each derived graph frame built is also lowered with `to_jax` and its
    results compared with frame's execution, which checks the lowerings of internal gradient ops.
    `w` is 1 for scalar outputs and a seeded standard-normal array otherwise.

    Returns an `OracleReport`; raises `OracleMismatch` listing the worst entries when any
    comparison is out of tolerance (|frame - jax| > atol + rtol |jax|), unless
    `raise_on_mismatch=False`.
    """
    if is_tracing():
        raise GradientError("check_derivatives runs frame and JAX on concrete values; call it outside a trace")
    orders = tuple(sorted(set(int(o) for o in orders)))
    if not set(orders) <= {1, 2}:
        raise GradientError(f"check_derivatives: orders must be drawn from (1, 2), got {orders}")
    if not isinstance(fn, Graph):
        args = tree_map(_as_float64, tuple(args))
    leaves = [np.asarray(leaf) for leaf in tree_flatten(tuple(args))[0]]
    forward, name = _forward_graph(fn, args)
    if len(forward.inputs) != len(leaves):
        raise GradientError(f"check_derivatives: graph '{name}' has {len(forward.inputs)} inputs, "
                            f"got {len(leaves)} argument leaves")
    if isinstance(fn, Graph):   # a given graph keeps its own input dtypes
        wrt = list(_argnums_tuple(argnums, len(leaves)))
        leaves = [a.astype(v.type.dtype, copy=False) for a, v in zip(leaves, forward.inputs)]
    else:
        spans = _leaf_offsets(tuple(args))
        wrt = [i for a in _argnums_tuple(argnums, len(args)) for i in range(*spans[a])]
    for i in wrt:
        if not forward.inputs[i].type.is_float:
            raise GradientError(f"check_derivatives: input {i} of '{name}' is {forward.inputs[i].type}; "
                                "only float inputs can be differentiated")
    report = OracleReport(name, tuple(wrt), rtol, atol)
    rng = np.random.default_rng(seed)

    with jax.enable_x64(True):
        _run_checks(report, forward, leaves, wrt, orders, rng, full_hessian_max, num_directions, check_lowering)

    if raise_on_mismatch and not report.passed:
        bad = [e for e in report.worst(len(report.entries)) if not e.ok][:5]
        listing = "\n  ".join(e.describe() for e in bad)
        raise OracleMismatch(f"frame's derivatives of '{name}' disagree with JAX (rtol={rtol:g}, atol={atol:g}); "
                             f"worst entries:\n  {listing}\n{report}")
    return report


# The oracle's programs run once each: XLA's backend optimisation costs more compile time than it saves.
# (Only LLVM code generation is affected; HLO semantics, and so the float64 numerics, are not.)
_XLA_OPTIONS = {"xla_backend_optimization_level": 0}


def _key(*parts) -> str:
    # Result dicts pass through jax.jit as pytrees, whose dict keys must sort: use strings.
    return "/".join(map(str, parts))


def _run_checks(report: OracleReport, forward: Graph, leaves: list, wrt: list[int], orders, rng,
                full_hessian_max: int, num_directions: int, check_lowering: bool) -> None:
    """Run frame's side, then every JAX computation in one `jax.jit` (one XLA compile), then compare."""
    wrt_types = [forward.inputs[i].type for i in wrt]
    offsets = np.cumsum([0] + [t.size for t in wrt_types])
    n = int(offsets[-1])
    z0 = np.concatenate([leaves[i].reshape(-1) for i in wrt]) if wrt else np.zeros(0)

    def split(z) -> list:
        return [z[lo:hi].reshape(t.shape) for lo, hi, t in zip(offsets[:-1], offsets[1:], wrt_types)]

    # -- frame: forward values, then per float output the derived graphs and their results
    frame_side: dict = {"values": compile_graph(forward)(*leaves)}
    plans = []   # (k, w, first-order graph, second-order graph, directions, second-order operands)
    for k, out in enumerate(forward.outputs):
        if not out.type.is_float or not wrt:
            continue
        w = (np.ones(out.type.shape) if out.type.size == 1 else rng.standard_normal(out.type.shape))
        w = w.astype(out.type.dtype)
        first = build_backward_graph(_contraction(forward, k, w), 0, wrt)
        second, directions, second_operands = None, None, None
        if 1 in orders:
            outs = compile_graph(first)(*leaves)
            frame_side[_key(k, 1)] = np.concatenate([g.reshape(-1) for g in outs[1:]])
            frame_side[_key(k, 1, "derived")] = outs
        if 2 in orders:
            second = build_backward_graph(_directional(first, len(wrt)), 0, wrt)
            run_second = compile_graph(second)
            directions = np.eye(n) if n <= full_hessian_max else rng.standard_normal((num_directions, n))
            rows = []
            for v in directions:
                second_operands = [*leaves, *[a.astype(t.dtype) for a, t in zip(split(v), wrt_types)]]
                outs = run_second(*second_operands)
                rows.append(np.concatenate([h.reshape(-1) for h in outs[1:]]))
            frame_side[_key(k, 2)] = np.stack(rows)
            frame_side[_key(k, 2, "derived")] = outs    # the last direction's run, checked against the lowering
        plans.append((k, w, first, second, directions, second_operands))

    # -- JAX: the independently lowered forward graph, differentiated by JAX; the lowered derived graphs
    jax_forward = to_jax(forward)
    lowered = {_key(k, 1): to_jax(first) for k, _, first, _, _, _ in plans}
    lowered.update({_key(k, 2): to_jax(second) for k, _, _, second, _, _ in plans if second is not None})

    def jax_side(leaves, z0, second_operands):
        result = {"values": jax_forward(*leaves)}
        for k, w, _, _, directions, _ in plans:
            def s_flat(z, k=k, w=w):
                operands = list(leaves)
                for i, part in zip(wrt, split(z)):
                    operands[i] = part
                return jnp.sum(jax_forward(*operands)[k] * w)

            if 1 in orders:
                result[_key(k, 1)] = jax.grad(s_flat)(z0)
                if check_lowering:
                    result[_key(k, 1, "derived")] = lowered[_key(k, 1)](*leaves)
            if 2 in orders:
                if n <= full_hessian_max:
                    result[_key(k, 2)] = jax.hessian(s_flat)(z0)
                else:
                    hvp = lambda v, s_flat=s_flat: jax.jvp(jax.grad(s_flat), (z0,), (v,))[1]  # noqa: E731
                    result[_key(k, 2)] = jax.vmap(hvp)(jnp.asarray(directions))
                if check_lowering:
                    result[_key(k, 2, "derived")] = lowered[_key(k, 2)](*second_operands[_key(k)])
        return result

    second_operands = {_key(k): ops for k, _, _, _, _, ops in plans}
    jax_results = jax.jit(jax_side, compiler_options=_XLA_OPTIONS)(leaves, z0, second_operands)

    rtol, atol = report.rtol, report.atol
    for k, (fv, jv) in enumerate(zip(frame_side["values"], jax_results["values"])):
        report.entries.append(compare(k, 0, "value", fv, jv, rtol, atol))
        for order, check in ((1, "gradient"), (2, "hessian" if n <= full_hessian_max else "hvp")):
            if _key(k, order) not in frame_side:
                continue
            report.entries.append(compare(k, order, check, frame_side[_key(k, order)],
                                          jax_results[_key(k, order)], rtol, atol))
            if check_lowering:  # all outputs of the derived graph, flattened into one comparison
                mine, theirs = frame_side[_key(k, order, "derived")], jax_results[_key(k, order, "derived")]
                report.entries.append(compare(k, order, "lowered derived graph",
                                              np.concatenate([np.ravel(a) for a in mine]),
                                              np.concatenate([np.ravel(a) for a in theirs]), rtol, atol))
