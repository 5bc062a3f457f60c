"""The nine-stage pipeline: options, dumps, and the property that optimised execution agrees with
unoptimised execution and with a plain node-by-node interpreter, on random graphs and on derived
first- and second-order graphs."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import frame
import frame.numpy as fnp
from frame.compiler import PipelineOptions, build_backward_graph, run_pipeline
from frame.compiler.pipeline import STAGE_NAMES, UNOPTIMIZED
from frame.frontend.tracer import bind
from frame.ir import Graph, inline_graph, verify
from frame.ops import find
from frame.runtime import compile as compile_graph
from tests.ops.cases import ALL_CASES
from tests.workloads import pinn_problem, pinn_step_fn


def interpret(graph: Graph, args) -> list:
    """The reference semantics: each node's kernel, in order (no plan, no buffers, no codegen)."""
    env = dict(zip(graph.inputs, args))
    for node in graph.nodes:
        result = find(node.op).kernel(*[env[v] for v in node.inputs], **node.attrs)
        results = [result] if len(node.outputs) == 1 else list(result or ())
        env.update(zip(node.outputs, results))
    return [np.asarray(env[v]) for v in graph.outputs]


def assert_agree(graph: Graph, args, rtol: float) -> None:
    want = interpret(graph, args)
    plain = compile_graph(graph, UNOPTIMIZED)(*args)
    optimised = compile_graph(graph)(*args)
    again = compile_graph(graph)(*args)  # a second call reuses the arena
    for w, p, o, a in zip(want, plain, optimised, again):
        assert o.shape == w.shape and o.dtype == w.dtype
        np.testing.assert_allclose(p, w, rtol=rtol, atol=rtol)
        np.testing.assert_allclose(o, w, rtol=rtol, atol=rtol)
        np.testing.assert_array_equal(a, o)


# -- random graphs over the registry ----------------------------------------------------------------
UNARY = ["neg", "tanh", "sin", "cos", "sigmoid", "gelu", "softplus", "square", "exp_tanh", "stop_gradient"]
BINARY = ["add", "sub", "mul"]
SHAPED = ["sum", "mean", "softmax", "log_softmax", "layer_norm", "matmul", "reshape", "transpose", "slice",
          "broadcast", "zero_mul", "one_mul", "pow"]


def _fits(a, b) -> bool:
    """b broadcasts into a's shape."""
    try:
        return np.broadcast_shapes(a.shape, b.shape) == a.shape
    except ValueError:
        return False


def _apply(kind: str, a, b, w):
    if kind == "exp_tanh":
        return fnp.exp(fnp.tanh(a))
    if kind in UNARY:
        return {"neg": fnp.negative, "tanh": fnp.tanh, "sin": fnp.sin, "cos": fnp.cos, "sigmoid": fnp.sigmoid,
                "gelu": fnp.gelu, "softplus": fnp.softplus, "square": fnp.square,
                "stop_gradient": fnp.stop_gradient}[kind](a)
    if kind in BINARY:
        if not _fits(a, b):
            b = a
        return {"add": fnp.add, "sub": fnp.subtract, "mul": fnp.multiply}[kind](a, b)
    rank = a.ndim
    if kind == "zero_mul":
        return a * 0.0 + b * 1.0 if _fits(a, b) else a * 0.0
    if kind == "one_mul":
        return (a * 1.0 - 0.0) / 1.0
    if kind == "pow":
        return fnp.power(a, 2.0) + fnp.power(a, 1.0)
    if rank == 0:
        return -a
    if kind == "sum":
        return fnp.sum(a, axis=-1, keepdims=bool(rank % 2))
    if kind == "mean":
        return fnp.mean(a, axis=0, keepdims=True)
    if kind == "softmax":
        return fnp.softmax(a, axis=-1)
    if kind == "log_softmax":
        return fnp.log_softmax(a, axis=0)
    if kind == "layer_norm":
        return fnp.layer_norm(a, axis=-1, eps=0.1)
    if kind == "matmul":
        return a @ w if a.shape[-1] == 4 and rank == 2 else a
    if kind == "reshape":
        return fnp.reshape(a, (-1,))
    if kind == "transpose":
        return fnp.transpose(a)
    if kind == "slice":
        return a[..., :1] if a.shape[-1] > 1 else a
    if kind == "broadcast":
        return fnp.broadcast_to(a, (2,) + a.shape)[1]
    raise AssertionError(kind)


program = st.lists(st.tuples(st.sampled_from(UNARY + BINARY + SHAPED), st.integers(0, 50), st.integers(0, 50)),
                   min_size=1, max_size=10)


def _build(steps):
    w = np.linspace(-0.5, 0.5, 16).reshape(4, 4)

    def fn(x, y, z):
        pool = [x, y, z]
        for kind, i, j in steps:
            pool.append(_apply(kind, pool[i % len(pool)], pool[j % len(pool)], w.astype(x.dtype)))
        last = pool[-1]
        return fnp.sum(last * last), last, pool[-2]

    return fn


def _inputs(dtype):
    rng = np.random.default_rng(7)
    return [rng.uniform(-1, 1, (3, 4)).astype(dtype), rng.uniform(-1, 1, (3, 4)).astype(dtype),
            rng.uniform(-1, 1, (4,)).astype(dtype)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program)
def test_random_graphs_optimised_and_unoptimised_agree(steps):
    args = _inputs("float64")
    graph = frame.trace(_build(steps), *args)
    assert_agree(graph, args, rtol=1e-12)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program)
def test_random_graphs_agree_in_float32(steps):
    args = _inputs("float32")
    assert_agree(frame.trace(_build(steps), *args), args, rtol=1e-5)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program)
def test_derived_first_and_second_order_graphs_agree(steps):
    args = _inputs("float64")
    forward = frame.trace(_build(steps), *args)
    first = build_backward_graph(forward, 0, [0, 1, 2])
    verify(first)
    assert_agree(first, args, rtol=1e-10)
    # second order: contract grad(x) with a fixed direction and derive again
    contracted = Graph("contracted")
    ins = [contracted.add_input(v.type) for v in first.inputs]
    outs = inline_graph(contracted, first, ins)
    gx = outs[len(forward.outputs)]
    direction = contracted.constant(np.linspace(-1, 1, 12).reshape(3, 4))
    prod = contracted.add_node("mul", [gx, direction]).output
    contracted.mark_output(contracted.add_node("sum", [prod], {"axes": (0, 1), "keepdims": False}).output)
    second = build_backward_graph(contracted, 0, [0, 1, 2])
    verify(second)
    assert_agree(second, args, rtol=1e-9)


# -- options -----------------------------------------------------------------------------------------
def _mlp_loss_graph():
    def loss(w, x):
        h = fnp.tanh(x @ w)
        return fnp.mean(h * h) + 0.0 * fnp.sum(w)
    return frame.trace(loss, np.ones((4, 4)), np.ones((8, 4)))


def test_run_pipeline_returns_the_optimised_graph_and_leaves_the_input_alone():
    g = build_backward_graph(_mlp_loss_graph(), 0, [0])
    before = str(g)
    opt = run_pipeline(g)
    assert str(g) == before
    verify(opt)
    assert len(opt.nodes) < len(g.nodes)
    assert "fused_elementwise_internal" in {n.op for n in opt.nodes}
    assert "mean" not in {n.op for n in opt.nodes}  # decomposed


def test_stage_selection_dump_and_verify_each(capsys):
    g = build_backward_graph(_mlp_loss_graph(), 0, [0])
    only_cse = run_pipeline(g, PipelineOptions(stages=("cse",), dump_ir=("cse",), verify_each=True))
    text = capsys.readouterr().out
    assert text.startswith("// IR after cse\n") and str(only_cse) in text
    assert "fused_elementwise_internal" not in text
    compile_graph(g, PipelineOptions(dump_ir="all"))
    dumped = capsys.readouterr().out
    for stage in STAGE_NAMES[:-1]:
        assert f"// IR after {stage}" in dumped
    assert "// plan" in dumped and "buffers kept alive between calls" in dumped
    with pytest.raises(ValueError, match="unknown pipeline stage"):
        PipelineOptions(stages=("nope",))


def test_side_effects_survive_the_whole_pipeline(capsys):
    def f(x):
        y = x * 0.0 + 1.0
        fnp.debug_print("y={}", y)
        return fnp.sum(x)

    g = frame.trace(f, np.ones(2))
    opt = run_pipeline(g)
    assert [n.op for n in opt.nodes].count("debug_print") == 1
    compile_graph(g)(np.ones(2))
    assert capsys.readouterr().out.strip() == "y=[1. 1.]"


def test_pinn_training_graph_compiles_and_agrees():
    """The reference PINN step (u_xx residual, boundary loss, parameter gradients): optimised = reference."""
    params, x, xb, f = pinn_problem(np.random.default_rng(0), (1, 16, 16, 1), 32)
    step = pinn_step_fn(0.01)
    graph = frame.trace(step, params, x, xb, f)
    args = frame.tree_leaves((params, x, xb, f))
    opt = run_pipeline(graph)
    assert len(opt.nodes) < len(graph.nodes) / 2
    assert_agree(graph, args, rtol=2e-5)


# -- every registered op through the pipeline, forward and derived ---------------------------------------


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda c: c.id)
def test_every_op_case_agrees_through_the_pipeline_and_its_derivative(case):
    xs = case.make_inputs(np.random.default_rng(5), "float64")

    def fn(*a):
        out = bind(case.op, *a, **case.attrs)
        outs = list(out) if isinstance(out, tuple) else [out]
        floats = [o for o in outs if o is not None and o.dtype.kind == "f"]
        total = fnp.sum(floats[0] * floats[0]) if floats else None
        return (total, *outs) if total is not None else tuple(outs)

    graph = frame.trace(fn, *xs)
    assert_agree(graph, xs, rtol=1e-12)
    if case.wrt and graph.outputs and graph.outputs[0].type.shape == ():
        derived = build_backward_graph(graph, 0, list(case.wrt))
        assert_agree(derived, xs, rtol=1e-10)


# -- lowering for a backend: its capabilities reach `fuse` and `plan` ------------------------------------
class _OnlyAdds:
    """A backend that fuses only adds, keeps its fused nodes whole and writes only adds in place."""

    name = "only-adds"

    def supports(self, node):
        return node.op == "add"

    def runs_whole(self, node):
        return True

    def writes_out(self, op):
        return op == "add"


def test_lower_passes_the_backends_capabilities_to_fuse_and_plan():
    from frame.compiler.pipeline import lower

    x = np.linspace(-1.0, 1.0, 12).reshape(3, 4)
    graph = frame.trace(lambda x: fnp.sum(fnp.tanh(x + 1.0 + x) * x * x), x)
    optimised = run_pipeline(graph, None, _OnlyAdds())
    fused = [n for n in optimised.nodes if n.op == "fused_elementwise_internal"]
    assert len(fused) == 1 and {n.op for n in fused[0].attrs["body"].nodes} <= {"add", "constant"}
    assert "mul" in [n.op for n in optimised.nodes]   # muls stay out of the chain
    plan = lower(graph, None, _OnlyAdds())
    assert [i.op for i in plan.instrs if i.op == "fused_elementwise_internal"] == ["fused_elementwise_internal"]
    assert {i.op for i in plan.instrs if i.outputs and i.outputs[0] in plan.buffer_of} <= {
        "fused_elementwise_internal", "add"}
    # without a backend: every elementwise chain fuses
    assert [n.op for n in run_pipeline(graph).nodes if n.op != "constant"] == ["fused_elementwise_internal", "sum"]
