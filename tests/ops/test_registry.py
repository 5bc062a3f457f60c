"""Table-driven tests over the whole registry: kernels against numpy references, shape rules
against the kernels' actual outputs, and the error messages of bad operands per op family."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame import GradientError, ShapeError
from frame.ir import TensorType
from frame.ops import SIDE_EFFECT, all_ops, find, register_op, unregister_op
from frame.ir.registry import NodeContext
from frame.tracing import Tracer, bind, install_operators
from tests.ops.cases import ALL_CASES, CASES_BY_OP, NO_CASES_NEEDED


def test_every_registered_op_has_a_case():
    missing = sorted(op.name for op in all_ops() if op.name not in CASES_BY_OP and op.name not in NO_CASES_NEEDED)
    assert not missing, f"ops without an OpCase in tests/ops/cases*.py: {missing}"


def test_registry_lookup():
    assert find("matmul").name == "matmul"
    assert find("no_such_op") is None
    names = [op.name for op in all_ops()]
    assert len(names) == len(set(names))
    assert find("mse_loss").gradient is not None  # ARCH-064
    assert all(find(n).has("internal") for n in names if n.endswith("_internal"))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", ALL_CASES, ids=lambda c: c.id)
def test_kernel_matches_numpy_reference_and_shape_rule(case, dtype):
    rng = np.random.default_rng(0)
    inputs = case.make_inputs(rng, dtype)
    attrs = dict(case.attrs)
    if case.op == "constant":
        attrs["value"] = attrs["value"].astype(dtype)
    schema = find(case.op)
    result = schema.kernel(*inputs, **attrs)
    outs = [result] if len(schema.infer([TensorType.of(x) for x in inputs], attrs)) == 1 else list(result)
    refs = case.reference(*inputs, **attrs)
    refs = refs if isinstance(refs, (list, tuple)) else [refs]
    inferred = schema.infer([TensorType.of(x) for x in inputs], attrs)
    assert len(outs) == len(refs) == len(inferred)
    tol = 1e-5 if dtype == "float32" else 1e-12
    for out, ref, t in zip(outs, refs, inferred):
        out = np.asarray(out)
        assert (out.shape, out.dtype.name) == (t.shape, t.dtype), f"{case.id}: kernel gives {out.dtype}{out.shape}, rule {t}"
        np.testing.assert_allclose(out, np.asarray(ref, dtype=out.dtype), rtol=tol, atol=tol)


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda c: c.id)
def test_traced_op_runs_like_the_eager_op(case):
    """Tracing an op and running the compiled graph gives the eager (kernel) result."""
    rng = np.random.default_rng(1)
    inputs = case.make_inputs(rng, "float64")
    eager = bind(case.op, *inputs, **case.attrs)
    graph = frame.trace(lambda *xs: bind(case.op, *xs, **case.attrs), *inputs)
    frame.ir.verify(graph)
    compiled = frame.runtime.compile(graph)(*inputs)
    eager = list(eager) if isinstance(eager, tuple) else [eager]
    for a, b in zip(compiled, eager):
        np.testing.assert_array_equal(a, b)


# -- errors name the op, and the shapes/dtypes seen, per family -----------------------------------
F32, F64 = "float32", "float64"


def _t(shape, dtype=F32):
    return TensorType(shape, dtype)


@pytest.mark.parametrize("op,types,attrs,pattern", [
    ("add", [_t((3, 4)), _t((5,))], {}, r"'add'.*\(3, 4\).*\(5,\)"),
    ("mul", [_t((3,)), _t((3,), F64)], {}, r"'mul'.*float32.*float64"),
    ("exp", [_t((2,), "int64")], {}, r"'exp'.*float.*i64\[2\]"),
    ("matmul", [_t((2, 3)), _t((4, 5))], {}, r"'matmul'.*\(2, 3\).*\(4, 5\)"),
    ("matmul", [_t((3,)), _t((3, 2))], {}, r"'matmul'.*rank >= 2"),
    ("matmul", [_t((2, 2, 3)), _t((3, 3, 4))], {}, r"'matmul'.*do not broadcast"),
    ("sum", [_t((2, 3))], {"axes": (2,), "keepdims": False}, r"'sum'.*axes \(2,\).*rank 2"),
    ("reshape", [_t((2, 3))], {"shape": (4, 2)}, r"'reshape'.*\(2, 3\).*\(4, 2\)"),
    ("transpose", [_t((2, 3))], {"perm": (0, 0)}, r"'transpose'.*\(0, 0\).*\(2, 3\)"),
    ("broadcast_to", [_t((3, 2))], {"shape": (3, 3)}, r"'broadcast_to'.*\(3, 2\).*\(3, 3\)"),
    ("concat", [_t((2, 3)), _t((2, 4))], {"axis": 0}, r"'concat'.*\(2, 3\).*\(2, 4\)"),
    ("concat", [_t((2, 3))], {"axis": 3}, r"'concat'.*axis 3.*rank 2"),
    ("slice", [_t((4,))], {"starts": (0,), "stops": (6,), "steps": (1,)}, r"'slice'.*size 4"),
    ("mse_loss", [_t((3,)), _t((4,))], {}, r"'mse_loss'.*\(3,\).*\(4,\)"),
])
def test_shape_errors_name_op_and_shapes(op, types, attrs, pattern):
    with pytest.raises(ShapeError, match=pattern):
        find(op).infer(types, attrs)


def test_eager_and_traced_calls_raise_the_same_clear_errors():
    a, b = np.ones((2, 3), "float32"), np.ones((4, 5), "float32")
    with pytest.raises(ShapeError, match="matmul"):
        fnp.matmul(a, b)
    with pytest.raises(ShapeError, match="matmul"):
        frame.trace(lambda x, y: x @ y, a, b)
    with pytest.raises(ShapeError, match="'sub'.*bool"):
        frame.trace(lambda x: x - np.ones(3, bool), np.ones(3, bool))
    with pytest.raises(ShapeError, match="unknown attribute"):
        bind("sum", a, axes=(0,), keepdims=False, bogus=1)


def test_python_scalars_are_weakly_typed():
    x = np.ones(3, "float32")
    for y in (x * 2.0, 2.0 * x, fnp.multiply(x, 2), fnp.add(x, 0.5)):
        assert y.dtype == np.float32
    g = frame.trace(lambda v: v * 2.5 + 1, x)
    assert all(n.outputs[0].type.dtype == "float32" for n in g.nodes)


def test_numpy_scalars_are_strongly_typed_as_in_numpy_2():
    # np.add(float32 array, np.float64(0.5)) is float64 in numpy 2 (NEP 50), and so in frame.
    x = np.ones(3, "float32")
    assert np.add(x, np.float64(0.5)).dtype == fnp.add(x, np.float64(0.5)).dtype == np.float64
    assert frame.function(lambda v: v + np.float64(0.5))(x).dtype == np.float64
    assert fnp.add(x, np.float32(0.5)).dtype == np.float32


def test_side_effect_op_cannot_get_a_gradient():
    with pytest.raises(GradientError, match="side effects"):
        register_op("test_effect_with_grad", shape=lambda ctx: [], kernel=lambda x: (), traits=(SIDE_EFFECT,),
                    gradient=lambda ctx: None)
    assert find("test_effect_with_grad") is None
    unregister_op("test_effect_with_grad")


def test_debug_print_prints_at_run_time_and_survives_compilation(capsys):
    def f(x):
        y = x * 2.0
        fnp.debug_print("y = {}", y)
        return fnp.sum(x)

    g = frame.trace(f, np.arange(3.0))
    assert [n.op for n in g.nodes].count("debug_print") == 1
    assert capsys.readouterr().out == ""  # tracing does not print
    exe = frame.runtime.compile(g)
    assert any(s.node.op == "debug_print" for s in exe.plan.steps)  # dne keeps side effects
    out = exe(np.arange(3.0))
    assert out[0] == 3.0
    assert capsys.readouterr().out.strip() == "y = [0. 2. 4.]"


def test_node_context_output_types():
    ctx = NodeContext("matmul", [_t((2, 3)), _t((3, 5))], {})
    assert ctx.output_types == [_t((2, 5))]


# -- the frontend derived from the registry: frame.numpy names, Tracer operators, numpy ufuncs -------
def _frontend_function(dotted: str):
    namespace, name = fnp, dotted
    if "." in dotted:
        space, name = dotted.split(".")
        namespace = getattr(fnp, space)
    return getattr(namespace, name, None)


def test_every_frontend_name_is_in_frame_numpy():
    missing = [f"{op.name}: fnp.{n}" for op in all_ops() for n in op.frontend if _frontend_function(n) is None]
    assert not missing, f"frontend names of registry blocks missing from frame.numpy: {missing}"
    undotted = [n for op in all_ops() for n in op.frontend if "." not in n]
    assert set(undotted) <= set(fnp.__all__), "every frame.numpy name of a block is exported"


def test_every_operator_is_on_tracer():
    missing = [f"{op.name}: {d}" for op in all_ops() for d in op.operators if not hasattr(Tracer, d)]
    assert not missing, f"Tracer lacks operators that registry blocks claim: {missing}"


@pytest.mark.parametrize("op", [op for op in all_ops() if op.ufuncs], ids=lambda op: op.name)
def test_every_ufunc_on_a_tracer_becomes_its_op(op):
    x = (np.array([[True, False], [False, True]]) if op.name.startswith("logical") else
         np.array([[1, 2], [3, 4]]) if op.name.startswith("bitwise") or op.name.endswith("_shift") else
         np.full((2, 2), 1.5))
    for ufunc in op.ufuncs:
        operands = (2.0,) if ufunc == "power" else (x,) * ((op.num_inputs or 1) - 1)
        graph = frame.trace(lambda t: getattr(np, ufunc)(t, *operands), x)
        assert [n.op for n in graph.nodes if n.op != "constant"] == [op.name], ufunc


def test_one_op_functions_are_generated_with_the_blocks_doc():
    for name, op in (("add", "add"), ("exp", "exp"), ("mse_loss", "mse_loss"), ("isnan", "isnan")):
        assert _frontend_function(name).__doc__ == find(op).doc
    x = np.linspace(0.1, 1.0, 4)
    np.testing.assert_array_equal(fnp.sqrt(x), np.sqrt(x))
    assert [n.op for n in frame.trace(fnp.sigmoid, x).nodes] == ["sigmoid"]


def test_operators_and_ufuncs_of_a_new_block_reach_tracer():
    # round(x) and np.positive: a dunder and a ufunc no real block claims
    register_op("test_round", shape=lambda ctx: [ctx.input_types[0]], kernel=np.round, num_inputs=1,
                operators=["__round__"], ufuncs=["positive"])
    try:
        install_operators()
        x = np.array([1.5, 2.0])
        assert [n.op for n in frame.trace(lambda t: round(t), x).nodes] == ["test_round"]
        assert [n.op for n in frame.trace(lambda t: np.positive(t), x).nodes] == ["test_round"]
    finally:
        unregister_op("test_round")
        install_operators()
    assert not hasattr(Tracer, "__round__")


def test_reflected_operators_swap_operands_and_keep_the_frontend_checks():
    x = np.array([1.0, 2.0], "float32")
    graph = frame.trace(lambda t: 3.0 - t, x)
    sub = next(n for n in graph.nodes if n.op == "sub")
    assert sub.inputs[1] is graph.inputs[0]     # sub(3, x), not sub(x, 3)
    with pytest.raises(ShapeError, match="negative integer powers"):
        frame.trace(lambda t: t ** -2, np.arange(3))        # __pow__ goes through fnp.power
    with pytest.raises(ShapeError, match="too many indices"):
        frame.trace(lambda t: t[0, 0], x)                    # __getitem__ through fnp.getitem
