"""vmap: the batching transform (frame/compiler/batching.py) and its frontend (frame/frontend/batching.py).

- Every op with cases in tests/ops/cases*.py, batched over 3 generated examples (each operand in turn,
  all of them, and a batch axis at position 1), equals the op applied per example and stacked; and
  every registered op has a batching rule (the coverage test).
- Per-example gradients `vmap(grad(loss), in_axes=(None, 0))` of an MLP equal a loop of `frame.grad`
  and JAX's `jax.vmap(jax.grad(...))` of the lowered loss graph.
- Nesting with vmap, grad, jvp and frame.function, closures, pytrees, in_axes/out_axes; errors.
"""
from __future__ import annotations

import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.compiler.batching import batch_rule, build_batched_graph
from frame.errors import FrameError, ShapeError, TraceError
from frame.frontend.batching import vmap
from frame.ir.graph import Graph
from frame.ir.registry import all_ops, get, run_graph
from frame.ir.types import TensorType
from frame.ir.verify import verify
from frame.runtime.compile import compile as compile_graph
from frame.tracing import bind
from tests.ops.cases import CASES_BY_OP

B = 3
# Ops vmap never meets, so they need no batching rule: `constant` takes no operands (a node without
# batched operands is copied), and `fused_elementwise_internal` is made by the `fuse` pipeline stage,
# after every transform (it has no gradient rule for the same reason).
NO_RULE_NEEDED = {"constant", "fused_elementwise_internal"}


def _op_graph(op: str, inputs: list, attrs: dict) -> Graph:
    graph = Graph(op)
    node = graph.add_node(op, [graph.add_input(TensorType.of(a)) for a in inputs], attrs)
    for v in node.outputs:
        graph.mark_output(v)
    return graph


def _as_list(out) -> list:
    return list(out) if isinstance(out, tuple) else [out]


def _masks(n: int) -> list[tuple[bool, ...]]:
    """Each operand batched alone, then all of them (once when there is one operand)."""
    singles = [tuple(i == j for j in range(n)) for i in range(n)]
    return singles + ([(True,) * n] if n > 1 else [])


def _check_case(case, in_axis_of_first: int = 0):
    examples = [case.make_inputs(np.random.default_rng(100 + b), "float64") for b in range(B)]
    n = len(examples[0])
    graph = _op_graph(case.op, examples[0], case.attrs)
    masks = _masks(n) if in_axis_of_first == 0 else [(True,) + (False,) * (n - 1)]
    for mask in masks:
        in_axes = [(in_axis_of_first if i == 0 else 0) if m else None for i, m in enumerate(mask)]
        operands = [np.stack([ex[i] for ex in examples], axis=in_axes[i]) if m else examples[0][i]
                    for i, m in enumerate(mask)]
        per_example = [[ex[i] if m else examples[0][i] for i, m in enumerate(mask)] for ex in examples]
        want = [np.stack(r) for r in zip(*[_as_list(run_graph(graph, *ins)) for ins in per_example])]
        batched = build_batched_graph(graph, in_axes, B)
        verify(batched)
        got = _as_list(run_graph(batched, *operands))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype, (case.id, mask, g.shape, w.shape)
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12, equal_nan=True, err_msg=f"{case.id} {mask}")


SWEEP_CASES = [c for op, cases in CASES_BY_OP.items() if op not in NO_RULE_NEEDED for c in cases]


@pytest.mark.parametrize("case", SWEEP_CASES, ids=lambda c: c.id)
def test_every_op_batches_like_a_loop(case):
    _check_case(case)


def _first_operand_has_axes(case) -> bool:
    inputs = case.make_inputs(np.random.default_rng(0), "float64")
    return bool(inputs) and np.ndim(inputs[0]) > 0


@pytest.mark.parametrize("case", [cs[0] for op, cs in CASES_BY_OP.items()
                                  if op not in NO_RULE_NEEDED and _first_operand_has_axes(cs[0])], ids=lambda c: c.id)
def test_batch_axis_inside_the_operand(case):
    """The first operand carries its examples along axis 1 (the transform moves it to the front)."""
    _check_case(case, in_axis_of_first=1)


def _float_outputs(op: str, attrs: dict):
    def f(*xs):
        outs = _as_list(bind(op, *xs, **attrs))
        return [o for o in outs if o.dtype.kind in "fc"]
    return f


def _with(fn, operands: list, wrt: tuple):
    """`fn` of the operands at positions `wrt`, the others fixed to `operands`."""
    def partial(*ws):
        full = list(operands)
        for i, w in zip(wrt, ws):
            full[i] = w
        return fn(*full)
    return partial


@pytest.mark.parametrize("case", [c for c in SWEEP_CASES if c.wrt], ids=lambda c: c.id)
def test_derivatives_through_batched_ops_match_the_loop(case):
    """grad of a vmapped op, vmap of its grad and jvp of its vmap equal the per-example derivatives: the
    batched graphs' ops (transposes, reshapes, broadcasts, batch-position gathers) differentiate in both modes."""
    examples = [case.make_inputs(np.random.default_rng(100 + b), "float64") for b in range(B)]
    stacked = [np.stack([ex[i] for ex in examples]) for i in range(len(examples[0]))]
    f, wrt = _float_outputs(case.op, case.attrs), case.wrt

    def total(*xs):
        return sum(fnp.sum(fnp.real(y)) for y in f(*xs))

    loop = [frame.grad(total, argnums=wrt)(*ex) for ex in examples]
    want = [np.stack([g[k] for g in loop]) for k in range(len(wrt))]
    summed = frame.grad(lambda *xs: fnp.sum(vmap(total)(*xs)), argnums=wrt)(*stacked)
    per_example = vmap(frame.grad(total, argnums=wrt))(*stacked)
    for k in range(len(wrt)):
        np.testing.assert_allclose(summed[k], want[k], rtol=1e-9, atol=1e-11, err_msg=f"grad of vmap, {wrt[k]}")
        np.testing.assert_allclose(per_example[k], want[k], rtol=1e-9, atol=1e-11, err_msg=f"vmap of grad, {wrt[k]}")
    rng = np.random.default_rng(1)
    tangents = {i: rng.normal(size=stacked[i].shape).astype(stacked[i].dtype) for i in wrt}
    _, got = frame.jvp(_with(vmap(f), stacked, wrt), tuple(stacked[i] for i in wrt), tuple(tangents[i] for i in wrt))
    for k, tk in enumerate(got):
        loop = [frame.jvp(_with(f, ex, wrt), tuple(ex[i] for i in wrt), tuple(tangents[i][b] for i in wrt))[1][k]
                for b, ex in enumerate(examples)]
        np.testing.assert_allclose(tk, np.stack(loop), rtol=1e-9, atol=1e-11, err_msg=f"jvp of vmap, output {k}")


def test_every_op_has_a_batching_rule():
    missing = sorted(s.name for s in all_ops() if batch_rule(s) is None and s.name not in NO_RULE_NEEDED)
    assert not missing, f"ops without a batching rule (add `batch=` to their block): {missing}"
    untested = sorted(s.name for s in all_ops() if s.name not in CASES_BY_OP and s.name not in NO_RULE_NEEDED
                      and s.name != "debug_print")
    assert not untested, f"ops with a batching rule but no cases to check it: {untested}"


def test_compiled_batched_graphs_agree_with_the_reference_run():
    """The sweep runs the batched graphs op by op; a few go through the whole pipeline too."""
    for op in ("matmul", "gather", "scatter", "softmax", "cumsum", "solve", "lstsq", "mse_loss", "where"):
        case = CASES_BY_OP[op][0]
        examples = [case.make_inputs(np.random.default_rng(b), "float64") for b in range(B)]
        graph = _op_graph(op, examples[0], case.attrs)
        n = len(examples[0])
        batched = build_batched_graph(graph, [0] * n, B)
        operands = [np.stack([ex[i] for ex in examples]) for i in range(n)]
        np.testing.assert_allclose(compile_graph(batched)(*operands)[0], run_graph(batched, *operands),
                                   rtol=1e-12, atol=1e-14)


def test_debug_print_prints_the_whole_batch(capfd):
    def f(x):
        fnp.debug_print("batch {}", x)
        return x * 2.0
    out = vmap(f)(np.arange(6.0).reshape(3, 2))
    np.testing.assert_array_equal(out, np.arange(6.0).reshape(3, 2) * 2.0)
    assert "batch [[0. 1.]" in capfd.readouterr().out


def test_only_lstsq_falls_back_to_a_loop():
    """The per-example fallback grows the graph with the batch; it is reserved for lstsq."""
    from frame.ops.batching_rules import PER_EXAMPLE
    assert sorted(s.name for s in all_ops() if s.batch is PER_EXAMPLE) == ["lstsq"]
    x = np.random.default_rng(0).normal(size=(3, 4))
    graph = _op_graph("exp", [x], {})
    assert [n.op for n in build_batched_graph(graph, [0], 50).nodes] == ["exp"]


# ---------------------------------------------------------------------------------------------
# Per-example gradients

def _mlp_loss(params, example):
    x, y = example
    h = fnp.tanh(x @ params["w1"] + params["b1"])
    out = h @ params["w2"] + params["b2"]
    return fnp.mean((out - y) ** 2)


def _mlp(rng):
    params = {"w1": rng.normal(size=(3, 8)), "b1": rng.normal(size=8), "w2": rng.normal(size=(8, 2)),
              "b2": rng.normal(size=2)}
    batch = (rng.normal(size=(6, 3)), rng.normal(size=(6, 2)))
    return params, batch


def test_per_example_gradients_match_a_loop_and_jax():
    jax = pytest.importorskip("jax")
    rng = np.random.default_rng(0)
    params, (xs, ys) = _mlp(rng)
    grads = vmap(frame.grad(_mlp_loss), in_axes=(None, 0))(params, (xs, ys))
    loop = [frame.grad(_mlp_loss)(params, (xs[i], ys[i])) for i in range(len(xs))]
    for k in params:
        assert grads[k].shape == (len(xs),) + params[k].shape
        np.testing.assert_allclose(grads[k], np.stack([g[k] for g in loop]), rtol=1e-12, atol=1e-14)

    # JAX differentiates and batches the lowered forward graph itself.
    graph = frame.trace(_mlp_loss, params, (xs[0], ys[0]))
    lowered = frame.interop.to_jax(graph)
    keys = sorted(params)
    with jax.enable_x64(True):
        def loss(*leaves):
            return lowered(*leaves)[0]
        per_example = jax.vmap(jax.grad(loss, argnums=tuple(range(len(keys)))), in_axes=(None,) * len(keys) + (0, 0))
        want = per_example(*[params[k] for k in keys], xs, ys)
    for k, w in zip(keys, want):
        np.testing.assert_allclose(grads[k], np.asarray(w), rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------------------------------------
# Nesting

def _f(w, x):
    return fnp.sum(fnp.sin(x @ w) * x[:, :1])


def test_vmap_of_vmap():
    rng = np.random.default_rng(1)
    w, x = rng.normal(size=(3, 4)), rng.normal(size=(5, 2, 3))   # x: (outer 5, inner 2, 3)
    got = vmap(vmap(lambda xi: fnp.sin(xi @ w) + xi[1]))(x)
    np.testing.assert_allclose(got, np.sin(x @ w) + x[..., 1:2], rtol=1e-13)
    # the outer map over the inner axis: out_axes and in_axes together
    got = vmap(vmap(lambda xi: fnp.sum(xi * xi)), in_axes=1, out_axes=0)(x)
    np.testing.assert_allclose(got, np.sum(x * x, axis=-1).T, rtol=1e-13)


def test_vmap_inside_function_and_function_inside_vmap():
    rng = np.random.default_rng(2)
    w, xs = rng.normal(size=(3, 4)), rng.normal(size=(6, 2, 3))
    want = np.stack([_f(w, x) for x in xs])
    jitted = frame.function(vmap(_f, in_axes=(None, 0)))
    np.testing.assert_allclose(jitted(w, xs), want, rtol=1e-13)
    np.testing.assert_allclose(jitted(w, xs), want, rtol=1e-13)
    assert jitted.trace_count == 1
    np.testing.assert_allclose(vmap(frame.function(_f), in_axes=(None, 0))(w, xs), want, rtol=1e-13)


def test_grad_of_a_vmapped_function():
    rng = np.random.default_rng(3)
    w, xs = rng.normal(size=(3, 4)), rng.normal(size=(6, 2, 3))
    got = frame.grad(lambda w: fnp.sum(vmap(_f, in_axes=(None, 0))(w, xs)))(w)
    want = sum(frame.grad(_f)(w, x) for x in xs)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    # a closure over the differentiated tracer: captured values are shared by every example
    got = frame.grad(lambda w: fnp.sum(vmap(lambda x: _f(w, x))(xs)))(w)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_vmap_of_grad_of_vmap_and_jvp():
    rng = np.random.default_rng(4)
    w, xs = rng.normal(size=(3, 4)), rng.normal(size=(6, 2, 3))
    inner = lambda w, x: fnp.sum(vmap(lambda xi: fnp.tanh(xi @ w))(x))   # noqa: E731
    got = vmap(frame.grad(inner), in_axes=(None, 0))(w, xs)
    np.testing.assert_allclose(got, np.stack([frame.grad(inner)(w, x) for x in xs]), rtol=1e-12)
    # jvp of a vmapped function, and vmap of jvp
    t = rng.normal(size=w.shape)
    batched = lambda w: vmap(_f, in_axes=(None, 0))(w, xs)   # noqa: E731
    _, tangent = frame.jvp(batched, (w,), (t,))
    np.testing.assert_allclose(tangent, np.stack([frame.jvp(lambda w: _f(w, x), (w,), (t,))[1] for x in xs]),
                               rtol=1e-12)
    ts = rng.normal(size=(6,) + w.shape)
    got = vmap(lambda t: frame.jvp(lambda w: _f(w, xs[0]), (w,), (t,))[1])(ts)
    np.testing.assert_allclose(got, [frame.jvp(lambda w: _f(w, xs[0]), (w,), (ti,))[1] for ti in ts], rtol=1e-12)


def test_vmap_of_jacobians():
    rng = np.random.default_rng(10)
    w, xs = rng.normal(size=(3, 4)), rng.normal(size=(5, 2, 3))
    g = lambda w, x: fnp.tanh(x @ w)   # noqa: E731
    for jac in (frame.jacfwd, frame.jacrev):
        got = vmap(jac(g), in_axes=(None, 0))(w, xs)
        np.testing.assert_allclose(got, np.stack([jac(g)(w, x) for x in xs]), rtol=1e-12, atol=1e-14)


def test_vmap_and_taylor_mode_nest():
    from frame.frontend.taylor import jet
    rng = np.random.default_rng(11)
    w1, w2 = rng.normal(size=(1, 8)), rng.normal(size=(8, 1))

    def u(x):
        return fnp.sum(fnp.tanh(fnp.reshape(x, (1, 1)) @ w1) @ w2)

    xs = rng.normal(size=5)
    one = lambda x: jet(u, (x,), ((np.ones(()), np.zeros(()), np.zeros(())),))   # noqa: E731
    loop = [one(x) for x in xs]
    primal, series = vmap(one)(xs)
    np.testing.assert_allclose(primal, [p for p, _ in loop], rtol=1e-13)
    for k in range(3):
        np.testing.assert_allclose(series[k], [s[k] for _, s in loop], rtol=1e-12)
    primal, series = jet(vmap(u), (xs,), ((np.ones(5), np.zeros(5), np.zeros(5)),))
    for k in range(3):
        np.testing.assert_allclose(series[k], [s[k] for _, s in loop], rtol=1e-12)


def test_axes_pytrees_keywords_and_constant_outputs():
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=(4, 3)), rng.normal(size=(3, 4))
    # negative in_axes, a tuple of axes per argument, a dict argument mapped on every leaf
    got = vmap(lambda p, y: p["u"] * y + p["v"], in_axes=(0, -1))({"u": a, "v": a * 2}, b)
    np.testing.assert_allclose(got, a * b.T + a * 2)
    # an entry may itself be a pytree prefix of its argument
    got = vmap(lambda p, y: p["u"] * y + p["v"], in_axes=({"u": 0, "v": None}, 1))({"u": a, "v": b[:, 0]}, b)
    np.testing.assert_allclose(got, a * b.T + b[:, 0])
    # keyword arguments are mapped over axis 0, as in JAX
    got = vmap(lambda x, *, scale: x * scale)(a, scale=a[:, :1])
    np.testing.assert_allclose(got, a * a[:, :1])
    # out_axes per output; an output that does not depend on the batch is broadcast (or left alone)
    y, c, d = vmap(lambda x: (x * 2.0, np.ones(2), 3.0), out_axes=(1, 0, None))(a)
    np.testing.assert_allclose(y, (a * 2.0).T)
    np.testing.assert_array_equal(c, np.ones((4, 2)))
    assert float(d) == 3.0
    # a batch of zero examples
    assert vmap(lambda x: x @ b)(np.zeros((0, 3))).shape == (0, 4)


def test_build_batched_graph_contract():
    graph = frame.trace(lambda x, w: fnp.tanh(x @ w), np.zeros((2, 3)), np.zeros((3, 4)))
    batched = build_batched_graph(graph, [2, None], 5, out_axes=[1])
    assert [v.type.shape for v in batched.inputs] == [(2, 3, 5), (3, 4)]
    assert [v.type.shape for v in batched.outputs] == [(2, 5, 4)]
    assert graph.inputs[0].type.shape == (2, 3)   # the source is untouched
    # the batched graph batches again
    twice = build_batched_graph(batched, [0, 0], 7)
    x, w = np.random.default_rng(6).normal(size=(7, 2, 3, 5)), np.random.default_rng(7).normal(size=(7, 3, 4))
    got = compile_graph(twice)(x, w)[0]
    want = np.stack([np.tanh(np.moveaxis(x[i], -1, 0) @ w[i]).transpose(1, 0, 2) for i in range(7)])
    np.testing.assert_allclose(got, want, rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# Errors

def test_mismatched_batch_sizes_name_the_arguments():
    with pytest.raises(ShapeError, match=r"argument 0 \(shape \(3, 2\)\): 3.*argument 1 \(shape \(4,\)\): 4"):
        vmap(lambda x, y: x[0] + y)(np.ones((3, 2)), np.ones(4))
    with pytest.raises(ShapeError, match=r"argument 1\['b'\]"):
        vmap(lambda x, p: x + p["a"] + p["b"])(np.ones(3), {"a": np.ones(3), "b": np.ones(5)})


@pytest.mark.parametrize("in_axes, match", [
    ((0, 0, 0), "has 3 entries but it was called with 2 positional arguments"),
    (({"a": 0}, 0), "in_axes \\{'a': 0\\} does not match the structure of argument 0, which has a single array"),
    (2, "in_axes 2 is out of range for argument 0 of shape \\(3, 2\\)"),
    (-3, "in_axes -3 is out of range"),
    ((None, None), "needs at least one mapped argument"),
])
def test_bad_in_axes(in_axes, match):
    with pytest.raises(FrameError, match=match):
        vmap(lambda x, y: x + y, in_axes=in_axes)(np.ones((3, 2)), np.ones((3, 2)))


def test_bad_axes_specs_and_scalars():
    with pytest.raises(TraceError, match="in_axes must be an int, None, or a tuple"):
        vmap(lambda x: x, in_axes="0")
    with pytest.raises(TraceError, match="out_axes must be an int"):
        vmap(lambda x: x, out_axes=(0, 1.5))
    with pytest.raises(ShapeError, match="a scalar cannot be mapped over"):
        vmap(lambda x: x)(2.0)
    with pytest.raises(ShapeError, match="out_axes 2 is out of range for output"):
        vmap(lambda x: x * 2.0, out_axes=2)(np.ones((3, 2)))
    with pytest.raises(TraceError, match="out_axes \\(0, 0\\) does not match the structure of the output, which has 3"):
        vmap(lambda x: (x, x, x), out_axes=(0, 0))(np.ones(3))


def test_out_axes_none_for_a_batched_output_is_refused():
    with pytest.raises(TraceError, match=r"output\[1\] depends on the mapped arguments.*out_axes None"):
        vmap(lambda x: (x.sum(), x * 2.0), out_axes=(0, None))(np.ones((3, 2)))
    graph = frame.trace(lambda x: x * 2.0, np.ones(2))
    with pytest.raises(TraceError, match="cannot be left unbatched"):
        build_batched_graph(graph, [0], 3, out_axes=[None])
    with pytest.raises(TraceError, match="in_axes\\[0\\] = 2 is not a batch axis position"):
        build_batched_graph(graph, [2], 3)


def test_an_op_without_a_rule_is_named():
    from frame.ir.registry import register_op, unregister_op
    register_op("vmap_test_opaque", shape=lambda ctx: list(ctx.input_types), kernel=lambda x: x, num_inputs=1)
    try:
        graph = Graph("g")
        x = graph.add_input(TensorType((2,), "float64"))
        graph.mark_output(graph.add_node("vmap_test_opaque", [x]).output)
        assert batch_rule(get("vmap_test_opaque")) is None
        with pytest.raises(TraceError, match="op 'vmap_test_opaque' has no batching rule"):
            build_batched_graph(graph, [0], 3)
    finally:
        unregister_op("vmap_test_opaque")


# ---------------------------------------------------------------------------------------------
# User-defined derivative rules survive vmap

def _frozen(fn, *examples):
    from frame.ops.fused import FusedBody
    return FusedBody.of(frame.trace(fn, *examples))


def test_custom_vjp_keeps_the_users_rule_under_vmap():
    x0, y0 = np.zeros(3), np.zeros(3)
    body = _frozen(lambda x, y: fnp.sin(x) * y, x0, y0)
    fwd = _frozen(lambda x, y: (fnp.sin(x) * y, fnp.cos(x), fnp.sin(x), y), x0, y0)
    # a deliberately scaled rule, so the test sees whether the user's rule or the body's derivative ran
    bwd = _frozen(lambda c, s, y, g: (100.0 * c * g * y, s * g), x0, x0, y0, x0)

    def f(x, y):
        return bind("custom_vjp_call", x, y, body=body, fwd=fwd, bwd=bwd)

    rng = np.random.default_rng(8)
    xs, y = rng.normal(size=(4, 3)), rng.normal(size=3)
    np.testing.assert_allclose(vmap(f, in_axes=(0, None))(xs, y), np.sin(xs) * y, rtol=1e-13)
    gx, gy = frame.grad(lambda xs, y: fnp.sum(vmap(f, in_axes=(0, None))(xs, y)), argnums=(0, 1))(xs, y)
    np.testing.assert_allclose(gx, 100.0 * np.cos(xs) * y, rtol=1e-13)
    np.testing.assert_allclose(gy, np.sin(xs).sum(axis=0), rtol=1e-13)   # shared operand: summed over examples
    per_example = vmap(frame.grad(lambda x, y: fnp.sum(f(x, y))), in_axes=(0, None))(xs, y)
    np.testing.assert_allclose(per_example, 100.0 * np.cos(xs) * y, rtol=1e-13)


def test_custom_jvp_keeps_the_users_rule_under_vmap():
    x0 = np.zeros(3)
    body = _frozen(lambda x: fnp.sin(x), x0)
    jvp = _frozen(lambda x, t: (fnp.sin(x), 7.0 * fnp.cos(x) * t), x0, x0)

    def f(x):
        return bind("custom_jvp_call", x, body=body, jvp=jvp)

    rng = np.random.default_rng(9)
    xs, ts = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    _, tangent = frame.jvp(vmap(f), (xs,), (ts,))
    np.testing.assert_allclose(tangent, 7.0 * np.cos(xs) * ts, rtol=1e-13)
    g = frame.grad(lambda xs: fnp.sum(vmap(f)(xs)))(xs)
    np.testing.assert_allclose(g, 7.0 * np.cos(xs), rtol=1e-13)
