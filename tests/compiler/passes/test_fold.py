"""`fold`: constant folding through the ops' own kernels."""
import numpy as np

from frame.compiler.passes.dne import dne
from frame.compiler.passes.fold import FOLD_MAX_ELEMENTS, fold
from frame.ir import Graph, TensorType

from .textcheck import expect


def test_small_constants_fold_through_kernels():
    expect(lambda g, o: dne(fold(g, o)), """
graph @g(%0: f64[2]) {
  %1: f64[2] = constant() {value=dense<[1.0, 4.0]>}
  %2: f64[2] = sqrt(%1)
  %3: f64[] = sum(%2) {axes=(0,), keepdims=False}
  %4: f64[2] = mul(%0, %3)
  return (%4)
}""", """
graph @g(%0: f64[2]) {
  %1: f64[] = constant() {value=dense<3.0>}
  %2: f64[2] = mul(%0, %1)
  return (%2)
}""")


def test_splats_fold_at_any_size_without_materialising():
    g = Graph("big")
    x = g.add_input(TensorType((1000, 1000), "float32"))
    two = g.constant(np.float32(2.0))
    wide = g.add_node("broadcast_to", [two], {"shape": (1000, 1000)}).output
    g.mark_output(g.add_node("mul", [x, g.add_node("exp", [wide]).output]).output)
    out = dne(fold(g))
    const = [n for n in out.nodes if n.op == "constant"]
    assert [n.op for n in out.nodes] == ["constant", "mul"]
    value = const[0].attrs["value"]
    assert value.shape == (1000, 1000) and value.strides == (0, 0)  # a zero-stride view, not 4 MB
    assert value[0, 0] == np.exp(np.float32(2.0))


def test_large_non_splat_results_are_left_alone_and_side_effects_are_kept():
    g = Graph("g")
    big = g.constant(np.arange(FOLD_MAX_ELEMENTS + 1, dtype="float64"))
    g.mark_output(g.add_node("exp", [big]).output)
    g.add_node("debug_print", [g.constant(np.float64(1.0))], {"fmt": "{}"})
    out = fold(g)
    assert [n.op for n in out.nodes] == ["constant", "exp", "constant", "debug_print"]
