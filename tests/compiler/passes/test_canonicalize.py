"""`canonicalize`: operand order of commutative ops, identities removed, shape chains composed."""
from frame.compiler.passes.canonicalize import canonicalize
from frame.compiler.passes.cse import cse
from frame.compiler.passes.dne import dne

from .textcheck import assert_same_results, expect

TEXT = """
graph @g(%0: f32[2,3], %1: f32[2,3]) {
  %2: f32[] = constant() {value=dense<2.0>}
  %3: f32[2,3] = mul(%2, %0)
  %4: f32[2,3] = mul(%1, %0)
  %5: f32[2,3] = add(%4, %3)
  %6: f32[2,3] = reshape(%5) {shape=(2, 3)}
  %7: f32[3,2] = transpose(%6) {perm=(1, 0)}
  %8: f32[2,3] = transpose(%7) {perm=(1, 0)}
  %9: f32[6] = reshape(%8) {shape=(6,)}
  %10: f32[3,2] = reshape(%9) {shape=(3, 2)}
  %11: f32[2,3] = stop_gradient(%8)
  %12: f32[2,3] = pow(%11) {exponent=1.0}
  %13: f32[2,3] = sum(%12) {axes=(), keepdims=False}
  %14: f32[2,3] = slice(%13) {starts=(0, 0), stops=(2, 3), steps=(1, 1)}
  return (%10, %14)
}
"""


def test_constants_second_operands_in_definition_order_identities_gone():
    expect(lambda g, o: dne(canonicalize(g, o)), TEXT, """
graph @g(%0: f32[2,3], %1: f32[2,3]) {
  %2: f32[] = constant() {value=dense<2.0>}
  %3: f32[2,3] = mul(%0, %2)
  %4: f32[2,3] = mul(%0, %1)
  %5: f32[2,3] = add(%3, %4)
  %6: f32[3,2] = reshape(%5) {shape=(3, 2)}
  return (%6, %5)
}""")
    assert_same_results(TEXT, canonicalize)


def test_commuted_products_merge_in_cse():
    text = """
graph @g(%0: f32[3], %1: f32[3]) {
  %2: f32[3] = mul(%0, %1)
  %3: f32[3] = mul(%1, %0)
  %4: f32[3] = add(%2, %3)
  return (%4)
}"""
    expect(lambda g, o: dne(cse(canonicalize(g, o), o)), text, """
graph @g(%0: f32[3], %1: f32[3]) {
  %2: f32[3] = mul(%0, %1)
  %3: f32[3] = add(%2, %2)
  return (%3)
}""")


def test_transpose_chain_composes():
    expect(canonicalize, """
graph @g(%0: f32[2,3,4]) {
  %1: f32[3,4,2] = transpose(%0) {perm=(1, 2, 0)}
  %2: f32[4,3,2] = transpose(%1) {perm=(1, 0, 2)}
  return (%2)
}""", """
graph @g(%0: f32[2,3,4]) {
  %1: f32[3,4,2] = transpose(%0) {perm=(1, 2, 0)}
  %2: f32[4,3,2] = transpose(%0) {perm=(2, 1, 0)}
  return (%2)
}""")
