"""`dne`: dead nodes go, side effects and everything the outputs read stay."""
from frame.compiler.passes.dne import dne

from .textcheck import expect


def test_dead_nodes_removed_side_effects_kept():
    expect(dne, """
graph @g(%0: f32[3]) {
  %1: f32[3] = exp(%0)
  %2: f32[3] = sin(%0)
  %3: f32[3] = cos(%2)
  debug_print(%2) {fmt="{}"}
  return (%1, %1)
}""", """
graph @g(%0: f32[3]) {
  %1: f32[3] = exp(%0)
  %2: f32[3] = sin(%0)
  debug_print(%2) {fmt="{}"}
  return (%1, %1)
}""")
