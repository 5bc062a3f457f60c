"""`simplify`: algebraic identities and zero propagation, text in / text out."""
from frame.compiler.passes.dne import dne
from frame.compiler.passes.simplify import simplify

from .textcheck import assert_same_results, expect

IDENTITIES = """
graph @g(%0: f32[2,3], %1: f32[3]) {
  %2: f32[] = constant() {value=dense<0.0>}
  %3: f32[] = constant() {value=dense<1.0>}
  %4: f32[2,3] = mul(%0, %3)
  %5: f32[2,3] = add(%4, %2)
  %6: f32[3] = mul(%1, %2)
  %7: f32[2,3] = sub(%5, %6)
  %8: f32[2,3] = neg(%7)
  %9: f32[2,3] = neg(%8)
  %10: f32[2,3] = neg(%0)
  %11: f32[2,3] = sub(%9, %10)
  %12: f32[3,3] = constant() {value=dense<0.0>}
  %13: f32[2,3] = matmul(%0, %12)
  %14: f32[2,3] = broadcast_to(%2) {shape=(2, 3)}
  %15: f32[2,3] = add(%11, %14)
  %16: f32[2,3] = add(%15, %13)
  %17: f32[3] = constant() {value=dense<-1.0>}
  %18: f32[2,3] = mul(%17, %0)
  %19: f32[2,3] = div(%18, %3)
  return (%16, %19)
}
"""


def test_identities_and_zero_propagation():
    # x*1 + 0 - 0*y -> x ; neg(neg(.)) -> . ; a - (-b) -> a + b ; matmul by 0 -> 0 ; -1*x -> -x ; x/1 -> x
    expect(lambda g, o: dne(simplify(g, o)), IDENTITIES, """
graph @g(%0: f32[2,3], %1: f32[3]) {
  %2: f32[2,3] = add(%0, %0)
  %3: f32[2,3] = neg(%0)
  return (%2, %3)
}""")
    assert_same_results(IDENTITIES, simplify)


def test_zero_through_linear_ops_and_broadcast_of_constants():
    expect(lambda g, o: dne(simplify(g, o)), """
graph @g(%0: f32[4,3]) {
  %1: f32[3] = constant() {value=dense<0.0>}
  %2: f32[1,3] = reshape(%1) {shape=(1, 3)}
  %3: f32[4,3] = broadcast_to(%2) {shape=(4, 3)}
  %4: f32[3,4] = transpose(%3) {perm=(1, 0)}
  %5: f32[4] = sum(%4) {axes=(0,), keepdims=False}
  %6: f32[4] = neg(%5)
  %7: f32[4,1] = reshape(%6) {shape=(4, 1)}
  %8: f32[4,3] = broadcast_to(%7) {shape=(4, 3)}
  %9: f32[4,3] = add(%0, %8)
  %10: f32[] = constant() {value=dense<2.0>}
  %11: f32[4,3] = broadcast_to(%10) {shape=(4, 3)}
  %12: f32[4,3] = mul(%9, %11)
  %13: f32[4,3] = div(%8, %0)
  return (%12, %13)
}""", """
graph @g(%0: f32[4,3]) {
  %1: f32[4,3] = constant() {value=dense<2.0>}
  %2: f32[4,3] = mul(%0, %1)
  %3: f32[4,3] = constant() {value=dense<0.0>}
  return (%2, %3)
}""")


def test_one_that_broadcasts_keeps_the_shape():
    # x (3,) * ones (2,3) is x broadcast to (2,3), not x; `add` broadcasts x itself, so it reads x.
    text = """
graph @g(%0: f32[3]) {
  %1: f32[2,3] = constant() {value=dense<1.0>}
  %2: f32[2,3] = mul(%0, %1)
  %3: f32[2,3] = add(%1, %2)
  return (%2, %3)
}"""
    expect(lambda g, o: dne(simplify(g, o)), text, """
graph @g(%0: f32[3]) {
  %1: f32[2,3] = constant() {value=dense<1.0>}
  %2: f32[2,3] = broadcast_to(%0) {shape=(2, 3)}
  %3: f32[2,3] = add(%1, %0)
  return (%2, %3)
}""")
    assert_same_results(text, simplify)


def test_broadcast_read_by_a_broadcasting_op_is_dropped_only_when_the_shape_survives():
    # mul(broadcast_to(b), x) -> mul(b, x) when x already has the full shape, or broadcasts with b
    # to it ((2,1) with (3,)); against a (3,) operand the broadcast makes the (2,3) shape and stays.
    text = """
graph @g(%0: f32[3], %1: f32[2,3], %2: f32[2,1]) {
  %3: f32[2,3] = broadcast_to(%0) {shape=(2, 3)}
  %4: f32[2,3] = mul(%3, %1)
  %5: f32[2,3] = sub(%2, %3)
  %6: f32[2,3] = add(%0, %3)
  return (%4, %5, %6)
}"""
    expect(simplify, text, """
graph @g(%0: f32[3], %1: f32[2,3], %2: f32[2,1]) {
  %3: f32[2,3] = broadcast_to(%0) {shape=(2, 3)}
  %4: f32[2,3] = mul(%0, %1)
  %5: f32[2,3] = sub(%2, %0)
  %6: f32[2,3] = add(%0, %3)
  return (%4, %5, %6)
}""")
    assert_same_results(text, simplify)


def test_side_effects_survive():
    text = """
graph @g(%0: f32[3]) {
  %1: f32[] = constant() {value=dense<0.0>}
  %2: f32[3] = mul(%0, %1)
  debug_print(%2) {fmt="{}"}
  return (%0)
}"""
    expect(simplify, text, """
graph @g(%0: f32[3]) {
  %1: f32[] = constant() {value=dense<0.0>}
  %2: f32[3] = constant() {value=dense<0.0>}
  debug_print(%2) {fmt="{}"}
  return (%0)
}""")
