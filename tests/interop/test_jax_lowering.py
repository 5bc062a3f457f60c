"""`to_jax`: every registered op has a lowering, each lowering computes what the op's kernel and
numpy reference compute, lowered graphs work under JAX transforms, bad calls fail clearly, and
`import frame` never needs JAX."""
import subprocess
import sys
import textwrap

import jax
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame import FrameError, InputError
from frame.interop import missing_lowerings, to_jax
from frame.ir import Graph, TensorType
from frame.ops import register_op, unregister_op
from tests.ops.cases import ALL_CASES


def test_every_registered_op_has_a_lowering():
    assert missing_lowerings() == [], "ops without a `jax` fact in their block (frame/ops/)"


def single_op_graph(case, inputs) -> Graph:
    g = Graph(case.op)
    values = [g.add_input(TensorType.of(x)) for x in inputs]
    for v in g.add_node(case.op, values, case.attrs).outputs:
        g.mark_output(v)
    return g


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", ALL_CASES, ids=lambda c: c.id)
def test_lowering_matches_frame_kernel_and_numpy_reference(case, dtype):
    rng = np.random.default_rng(0)
    inputs = case.make_inputs(rng, dtype)
    if case.op == "constant":
        case = type(case)(case.op, case.make_inputs, case.reference, {"value": case.attrs["value"].astype(dtype)})
    graph = single_op_graph(case, inputs)
    frame_outs = frame.runtime.compile(graph)(*inputs)
    with jax.enable_x64(True):   # also makes any stray float32 -> float64 promotion visible to the type check
        jax_outs = to_jax(graph)(*inputs)
    refs = case.reference(*inputs, **case.attrs)
    refs = list(refs) if isinstance(refs, (list, tuple)) else [refs]
    tol = 1e-12 if dtype == "float64" else 2e-6
    assert len(jax_outs) == len(frame_outs) == len(refs)
    for j, f, r, v in zip(jax_outs, frame_outs, refs, graph.outputs):
        assert (j.shape, np.dtype(j.dtype).name) == (v.type.shape, v.type.dtype)
        np.testing.assert_allclose(np.asarray(j), f, rtol=tol, atol=tol, err_msg=f"{case.id}: JAX vs frame kernel")
        np.testing.assert_allclose(np.asarray(j), np.asarray(r, dtype=v.type.dtype), rtol=tol, atol=tol,
                                   err_msg=f"{case.id}: JAX vs numpy reference")


def mlp_loss(w1, w2, x):
    return fnp.mse_loss(fnp.relu(x @ w1) @ w2, fnp.zeros_like(x @ w1 @ w2) + 0.5)


def test_lowered_graph_composes_with_jit_grad_and_vmap():
    rng = np.random.default_rng(2)
    w1, w2, x = rng.standard_normal((3, 5)), rng.standard_normal((5, 2)), rng.standard_normal((4, 3))
    graph = frame.trace(mlp_loss, w1, w2, x)
    with jax.enable_x64(True):
        lowered = to_jax(graph)
        value = lowered(w1, w2, x)[0]
        np.testing.assert_allclose(value, frame.runtime.compile(graph)(w1, w2, x)[0], rtol=1e-13)
        grads = jax.jit(jax.grad(lambda a, b: lowered(a, b, x)[0], argnums=(0, 1)))(w1, w2)
        frame_grads = frame.grad(mlp_loss, argnums=(0, 1))(w1, w2, x)
        for g, f in zip(grads, frame_grads):
            np.testing.assert_allclose(g, f, rtol=1e-12, atol=1e-14)
        # vmap over a batch of first-layer weights: the input check sees per-example shapes.
        batch = np.stack([w1, 2 * w1])
        per_example = jax.vmap(lambda a: lowered(a, w2, x)[0])(batch)
        assert per_example.shape == (2,)
        np.testing.assert_allclose(per_example[1], frame.runtime.compile(graph)(2 * w1, w2, x)[0], rtol=1e-13)


def test_lowering_of_a_derived_graph_with_internal_ops_matches_frame():
    rng = np.random.default_rng(3)
    args = rng.standard_normal((3, 5)), rng.standard_normal((5, 2)), rng.standard_normal((4, 3))
    derived = frame.compiler.build_backward_graph(frame.trace(mlp_loss, *args), 0, [0, 1])
    ops = {n.op for n in derived.nodes}
    assert {"where", "greater", "matmul"} <= ops
    assert {n.attrs.get("transpose_a", False) for n in derived.nodes if n.op == "matmul"} == {False, True}
    with jax.enable_x64(True):
        lowered = jax.jit(to_jax(derived))(*args)
    for j, f in zip(lowered, frame.runtime.compile(derived)(*args)):
        np.testing.assert_allclose(np.asarray(j), f, rtol=1e-12, atol=1e-14)


def test_debug_print_lowers_to_a_jax_debug_callback(capfd):
    g = frame.trace(lambda x: (fnp.debug_print("x is {}", x), x * 2.0)[1], np.arange(3.0, dtype=np.float32))
    out = jax.jit(to_jax(g))(np.arange(3.0, dtype=np.float32))
    jax.effects_barrier()
    np.testing.assert_array_equal(out[0], [0.0, 2.0, 4.0])
    assert "x is [0. 1. 2.]" in capfd.readouterr().out


def test_bad_calls_raise_frame_errors_naming_the_input():
    g = frame.trace(lambda x, y: x * y, np.ones((2, 3), np.float32), np.ones(3, np.float32))
    lowered = to_jax(g)
    with pytest.raises(InputError, match="takes 2 input"):
        lowered(np.ones((2, 3), np.float32))
    with pytest.raises(InputError, match=r"input 1 expected float32\[3\], got float32\[4\]") as info:
        lowered(np.ones((2, 3), np.float32), np.ones(4, np.float32))
    assert info.value.position == 1
    g64 = frame.trace(lambda x: x * 2.0, np.ones(3))
    with jax.enable_x64(False):
        with pytest.raises(FrameError, match="64-bit types but JAX's x64 mode is off"):
            to_jax(g64)(np.ones(3))


def one_node_graph(op: str) -> Graph:
    g = Graph("g")
    x = g.add_input(TensorType((2,), "float32"))
    g.mark_output(g.add_node(op, [x]).output)
    return g


@pytest.fixture
def throwaway_op():
    """Registers test ops `register(name, **facts)` (identity shape, x -> 2x kernel), removed afterwards."""
    names = []

    def register(name, **facts):
        register_op(name, shape=lambda ctx: [ctx.input_types[0]], kernel=lambda x: 2 * x, num_inputs=1,
                    traits=("internal",), **facts)
        names.append(name)
        return one_node_graph(name)

    yield register
    for name in names:
        unregister_op(name)


def test_op_without_lowering_is_named(throwaway_op):
    g = throwaway_op("interop_test_bare_internal")
    assert "interop_test_bare_internal" in missing_lowerings()
    with pytest.raises(FrameError, match="'interop_test_bare_internal' has no JAX lowering"):
        to_jax(g)


@pytest.mark.parametrize("fact, want", [("jnp.positive", lambda x: x), ("lax.neg", np.negative),
                                        ("nn.relu", lambda x: np.maximum(x, 0)),
                                        (lambda J, x: J.jnp.add(x, x), lambda x: 2 * x)],
                         ids=["jnp", "lax", "nn", "function"])
def test_the_blocks_jax_fact_is_the_lowering(throwaway_op, fact, want):
    """A name is resolved on jnp/lax/nn and called with the operands; a function also gets the namespace J."""
    g = throwaway_op("interop_test_fact_internal", jax=fact)
    assert "interop_test_fact_internal" not in missing_lowerings()
    x = np.array([-1.5, 2.0], np.float32)
    np.testing.assert_array_equal(to_jax(g)(x)[0], want(x))


def test_a_name_jax_lacks_is_refused_naming_the_op(throwaway_op):
    g = throwaway_op("interop_test_typo_internal", jax="jnp.no_such_function")
    with pytest.raises(FrameError, match="'interop_test_typo_internal' names JAX lowering 'jnp.no_such_function'"):
        to_jax(g)


def test_wrong_lowering_is_caught_by_the_type_check(throwaway_op):
    g = throwaway_op("interop_test_shape_internal", jax=lambda J, x: J.jnp.concatenate([x, x]))
    with pytest.raises(FrameError, match=r"lowering of 'interop_test_shape_internal' gave float32\[4\]"):
        to_jax(g)(np.ones(2, np.float32))


def test_frame_imports_and_runs_without_jax():
    """With every `jax` import blocked, frame (and frame.interop itself) import and differentiate;
    only using an interop function says JAX is missing."""
    script = textwrap.dedent("""
        import sys
        sys.modules["jax"] = None          # `import jax` now raises ImportError
        import numpy as np
        import frame, frame.numpy as fnp, frame.interop
        g = frame.grad(lambda x: fnp.sum(fnp.tanh(x) ** 2))(np.linspace(-1.0, 1.0, 5))
        assert np.allclose(g, 2 * np.tanh(np.linspace(-1.0, 1.0, 5)) / np.cosh(np.linspace(-1.0, 1.0, 5)) ** 2)
        try:
            frame.interop.to_jax
        except frame.FrameError as e:
            assert "needs JAX" in str(e), e
        else:
            raise AssertionError("to_jax without JAX should raise FrameError")
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_import_frame_does_not_load_jax():
    done = subprocess.run([sys.executable, "-c", "import sys, frame, frame.numpy, frame.interop; "
                           "print('jax' in sys.modules)"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_optimised_graph_with_fused_nodes_lowers_to_the_same_numbers():
    """The pipeline's products (fused elementwise chains) lower too: the lowered optimised graph
    agrees with the lowered source graph."""
    rng = np.random.default_rng(4)
    args = rng.standard_normal((3, 5)), rng.standard_normal((5, 2)), rng.standard_normal((4, 3))

    def smooth_loss(w1, w2, x):
        h = x @ w1
        return fnp.sum(fnp.tanh(h) * fnp.sigmoid(h) + fnp.sin(h) * 0.5) + fnp.sum(fnp.exp(-fnp.square(w2)))

    derived = frame.compiler.build_backward_graph(frame.trace(smooth_loss, *args), 0, [0, 1])
    optimised = frame.compiler.run_pipeline(derived)
    assert any(n.op == "fused_elementwise_internal" for n in optimised.nodes)
    with jax.enable_x64(True):
        for o, s in zip(to_jax(optimised)(*args), to_jax(derived)(*args)):
            np.testing.assert_allclose(np.asarray(o), np.asarray(s), rtol=1e-12, atol=1e-14)
