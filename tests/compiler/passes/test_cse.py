"""`cse`: duplicate nodes and equal constants merge; side effects never do."""
from frame.compiler.passes.cse import cse
from frame.compiler.passes.dne import dne

from .textcheck import expect


def test_duplicates_and_equal_constants_merge():
    expect(lambda g, o: dne(cse(g, o)), """
graph @g(%0: f32[3]) {
  %1: f32[] = constant() {value=dense<2.0>}
  %2: f32[] = constant() {value=dense<2.0>}
  %3: f32[3] = mul(%0, %1)
  %4: f32[3] = mul(%0, %2)
  %5: f32[3] = tanh(%3)
  %6: f32[3] = tanh(%4)
  %7: f32[3] = sub(%5, %6)
  %8: f32[3] = sum(%7) {axes=(), keepdims=False}
  %9: f32[] = sum(%7) {axes=(0,), keepdims=False}
  return (%8, %9)
}""", """
graph @g(%0: f32[3]) {
  %1: f32[] = constant() {value=dense<2.0>}
  %2: f32[3] = mul(%0, %1)
  %3: f32[3] = tanh(%2)
  %4: f32[3] = sub(%3, %3)
  %5: f32[3] = sum(%4) {axes=(), keepdims=False}
  %6: f32[] = sum(%4) {axes=(0,), keepdims=False}
  return (%5, %6)
}""")


NOTHING_TO_MERGE = """
graph @g(%0: f32[2]) {
  %1: f32[2] = constant() {value=dense<[1.0, 2.0]>}
  %2: f32[2] = constant() {value=dense<[1.0, 3.0]>}
  debug_print(%0) {fmt="{}"}
  debug_print(%0) {fmt="{}"}
  %3: f32[2] = add(%1, %2)
  return (%3)
}"""


def test_side_effects_are_not_merged_and_different_constants_stay():
    expect(cse, NOTHING_TO_MERGE, NOTHING_TO_MERGE)
