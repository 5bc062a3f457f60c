"""`decompose`: composites expand into primitives with unchanged types; options; autodiff through decompositions."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame import VerifyError
from frame.compiler import build_backward_graph
from frame.compiler.passes.decompose import decompose
from frame.compiler.passes.fold import fold
from frame.compiler.pipeline import PipelineOptions
from frame.frontend.tracer import bind
from frame.ir import Graph, TensorType, verify
from frame.ops import all_ops, register_op, traced_decomposition, unregister_op
from frame.ops.elementwise import _unary_shape
from frame.ir.registry import decomposition_kernel
from tests.ops.cases import CASES_BY_OP

from .textcheck import expect


def test_mean_becomes_sum_over_count():
    expect(decompose, """
graph @g(%0: f32[4,3]) {
  %1: f32[3] = mean(%0) {axes=(0,), keepdims=False}
  return (%1)
}""", """
graph @g(%0: f32[4,3]) {
  %1: f32[3] = sum(%0) {axes=(0,), keepdims=False}
  %2: f32[] = constant() {value=dense<4.0>}
  %3: f32[3] = div(%1, %2)
  return (%3)
}""")


def test_nested_composites_expand_fully_and_blacklist_keeps_ops_whole():
    g = frame.trace(lambda x: fnp.layer_norm(x, axis=-1), np.ones((2, 5), "float32"))
    flat = decompose(g, PipelineOptions(only_primitives=True))
    assert {n.op for n in flat.nodes} == {"sum", "constant", "div", "sub", "mul", "add", "sqrt"}
    kept = decompose(g, PipelineOptions(decompose_blacklist=("layer_norm",)))
    assert [n.op for n in kept.nodes] == ["layer_norm"]
    with pytest.raises(VerifyError, match="composite ops remain.*layer_norm"):
        decompose(g, PipelineOptions(decompose_blacklist=("layer_norm",), only_primitives=True))


COMPOSITES = sorted(op.name for op in all_ops() if op.decomposition is not None)


@pytest.mark.parametrize("op", COMPOSITES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_decomposition_keeps_types_and_the_kernels_bits(op, dtype):
    for case in CASES_BY_OP[op]:
        xs = case.make_inputs(np.random.default_rng(3), dtype)
        g = frame.trace(lambda *a: bind(op, *a, **case.attrs), *xs)
        flat = decompose(g)  # check_decomp_outputs runs inside
        verify(flat)
        assert [v.type for v in flat.outputs] == [v.type for v in g.outputs]
        assert all(n.op != op for n in flat.nodes)
        # Kernels follow their decompositions step by step: not one bit differs.
        want = frame.ops.find(op).kernel(*xs, **case.attrs)
        got = frame.runtime.compile(flat, PipelineOptions(stages=("dne",)))(*xs)[0]
        np.testing.assert_array_equal(got, want)


def test_decomposition_with_wrong_types_is_rejected():
    register_op("test_bad_decomp", shape=_unary_shape(True), kernel=lambda x: x,
                decomposition=traced_decomposition(lambda ctx, x: fnp.sum(x)))
    try:
        g = Graph("g")
        x = g.add_input(TensorType((3,), "float32"))
        g.mark_output(g.add_node("test_bad_decomp", [x]).output)
        with pytest.raises(VerifyError, match=r"test_bad_decomp.*f32\[\].*f32\[3\]"):
            decompose(g)
    finally:
        unregister_op("test_bad_decomp")


def test_composite_without_gradient_rule_is_differentiated_through_its_decomposition():
    register_op("test_cube", shape=_unary_shape(True), kernel=lambda x: x * x * x,
                decomposition=traced_decomposition(lambda ctx, x: x * x * x))
    try:
        g = frame.trace(lambda x: fnp.sum(bind("test_cube", x)), np.ones(3))
        derived = build_backward_graph(g, 0, [0])
        verify(derived)
        x = np.array([1.0, 2.0, -3.0])
        loss, grad = frame.runtime.compile(derived)(x)
        np.testing.assert_allclose(grad, 3 * x ** 2)
        assert loss == np.sum(x ** 3)
        # and again: second order through the same decomposition
        second = frame.grad(lambda v: fnp.sum(frame.grad(lambda u: fnp.sum(bind("test_cube", u)))(v)))(x)
        np.testing.assert_allclose(second, 6 * x)
    finally:
        unregister_op("test_cube")


def test_composite_without_kernel_computes_with_its_decomposition():
    """A composite registered without a kernel runs its decomposition eagerly and when folded
    (nn.py's composites and mean have no kernel of their own); an op with neither is refused."""
    register_op("test_twice_plus_one", shape=_unary_shape(True),
                decomposition=traced_decomposition(lambda ctx, x: 2.0 * x + 1.0))
    try:
        x = np.array([-1.5, 0.0, 4.0], dtype=np.float32)
        eager = bind("test_twice_plus_one", x)
        assert eager.dtype == np.float32
        np.testing.assert_array_equal(eager, np.float32(2.0) * x + np.float32(1.0))
        folded = fold(frame.trace(lambda: bind("test_twice_plus_one", x)))   # no decompose stage before it
        assert [n.op for n in folded.nodes] == ["constant"]
        np.testing.assert_array_equal(folded.nodes[0].attrs["value"], eager)
    finally:
        unregister_op("test_twice_plus_one")
    with pytest.raises(ValueError, match="needs a kernel or a decomposition"):
        register_op("test_no_kernel", shape=_unary_shape(True))
    assert frame.ops.find("test_no_kernel") is None
    for op in ("softplus", "gelu", "softmax", "log_softmax", "layer_norm", "mean"):
        assert frame.ops.find(op).kernel.func is decomposition_kernel
