"""`fuse`: elementwise chains become `fused_elementwise_internal` nodes carrying their body as IR text."""
import numpy as np
import pytest

import frame
from frame import GradientError
from frame.compiler import build_backward_graph
from frame.compiler.passes.fuse import fuse
from frame.ir import parse_graph, verify

from .textcheck import assert_same_results, expect

CHAIN = """
graph @g(%0: f32[4,3], %1: f32[3], %2: f32[3,3]) {
  %3: f32[4,3] = add(%0, %1)
  %4: f32[4,3] = tanh(%3)
  %5: f32[] = constant() {value=dense<1.0>}
  %6: f32[4,3] = mul(%4, %4)
  %7: f32[4,3] = sub(%5, %6)
  %8: f32[4,3] = matmul(%4, %2)
  %9: f32[4,3] = mul(%7, %8)
  %10: f32[4,3] = exp(%9)
  %11: f32[] = sum(%10) {axes=(0, 1), keepdims=False}
  return (%11, %7)
}
"""

BODY_1 = ("graph @fused(%0: f32[4,3], %1: f32[3]) {\\n  %2: f32[4,3] = add(%0, %1)\\n  %3: f32[4,3] = tanh(%2)\\n"
          "  %4: f32[4,3] = mul(%3, %3)\\n  %5: f32[] = constant() {value=dense<1.0>}\\n"
          "  %6: f32[4,3] = sub(%5, %4)\\n  return (%3, %6)\\n}")
BODY_2 = ("graph @fused(%0: f32[4,3], %1: f32[4,3]) {\\n  %2: f32[4,3] = mul(%0, %1)\\n  %3: f32[4,3] = exp(%2)\\n"
          "  return (%3)\\n}")


def test_chains_fuse_up_to_their_non_elementwise_readers():
    # The first chain closes where matmul reads tanh; it returns tanh (read by matmul) and the
    # sub (read by the second chain and returned). Its scalar constant moves into the body.
    expect(fuse, CHAIN, f"""
graph @g(%0: f32[4,3], %1: f32[3], %2: f32[3,3]) {{
  %3: f32[4,3], %4: f32[4,3] = fused_elementwise_internal(%0, %1) {{body='{BODY_1}'}}
  %5: f32[4,3] = matmul(%3, %2)
  %6: f32[4,3] = fused_elementwise_internal(%4, %5) {{body='{BODY_2}'}}
  %7: f32[] = sum(%6) {{axes=(0, 1), keepdims=False}}
  return (%7, %4)
}}""")
    assert_same_results(CHAIN, fuse)


def test_open_groups_read_by_one_node_merge_and_order_stays_topological():
    text = """
graph @g(%0: f32[5], %1: f32[5]) {
  %2: f32[5] = exp(%0)
  %3: f32[5] = sin(%1)
  %4: f32[] = sum(%3) {axes=(0,), keepdims=False}
  %5: f32[5] = cos(%1)
  %6: f32[5] = add(%2, %5)
  %7: f32[5] = mul(%6, %4)
  return (%7)
}"""
    out = fuse(parse_graph(text))
    verify(out)
    assert [n.op for n in out.nodes] == ["sin", "sum", "fused_elementwise_internal"]
    body = parse_graph(out.nodes[-1].attrs["body"])
    assert [n.op for n in body.nodes] == ["exp", "cos", "add", "mul"]
    assert_same_results(text, fuse)


def test_fused_node_is_not_differentiable():
    out = fuse(parse_graph(CHAIN))
    with pytest.raises(GradientError, match="fused_elementwise_internal"):
        build_backward_graph(out, 0, [0])


def test_fused_kernel_runs_eagerly_like_its_body():
    node = fuse(parse_graph(CHAIN)).nodes[0]
    x, b = np.ones((4, 3), "float32"), np.arange(3, dtype="float32")
    t, s = frame.ops.find("fused_elementwise_internal").kernel(x, b, **node.attrs)
    np.testing.assert_allclose(t, np.tanh(x + b), rtol=1e-6)
    np.testing.assert_allclose(s, 1 - np.tanh(x + b) ** 2, rtol=1e-6)
