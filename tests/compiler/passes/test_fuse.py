"""`fuse`: elementwise chains become `fused_elementwise_internal` nodes carrying their body as a frozen graph."""
import numpy as np
import pytest

import frame
from frame import GradientError
from frame.compiler import build_backward_graph
from frame.compiler.passes.fuse import fuse
from frame.ir import Graph, parse_graph, verify
from frame.ir.printer import fingerprint
from frame.ops.fused import FusedBody

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

BODY_1 = """graph @fused(%0: f32[4,3], %1: f32[3]) {
    %2: f32[4,3] = add(%0, %1)
    %3: f32[4,3] = tanh(%2)
    %4: f32[4,3] = mul(%3, %3)
    %5: f32[] = constant() {value=dense<1.0>}
    %6: f32[4,3] = sub(%5, %4)
    return (%3, %6)
  }"""
BODY_2 = """graph @fused(%0: f32[4,3], %1: f32[4,3]) {
    %2: f32[4,3] = mul(%0, %1)
    %3: f32[4,3] = exp(%2)
    return (%3)
  }"""


def test_chains_fuse_up_to_their_non_elementwise_readers():
    # The first chain closes where matmul reads tanh; it returns tanh (read by matmul) and the
    # sub (read by the second chain and returned). Its scalar constant moves into the body.
    expect(fuse, CHAIN, f"""
graph @g(%0: f32[4,3], %1: f32[3], %2: f32[3,3]) {{
  %3: f32[4,3], %4: f32[4,3] = fused_elementwise_internal(%0, %1) {{body={BODY_1}}}
  %5: f32[4,3] = matmul(%3, %2)
  %6: f32[4,3] = fused_elementwise_internal(%4, %5) {{body={BODY_2}}}
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
    body = out.nodes[-1].attrs["body"]
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


# -- fused bodies: frozen graphs, printed nested, parsed back; chains limited by a backend -------------
def test_a_fused_body_is_a_frozen_hashable_graph_that_round_trips():
    graph = fuse(parse_graph(CHAIN))
    first, second = (n.attrs["body"] for n in graph.nodes if n.op == "fused_elementwise_internal")
    assert isinstance(first, FusedBody) and isinstance(first, Graph)
    with pytest.raises(AttributeError):          # its lists are tuples: nothing can be added
        first.add_node("neg", [first.inputs[0]])
    again = fuse(parse_graph(CHAIN)).nodes[0].attrs["body"]
    assert again is not first and again == first and hash(again) == hash(first) and first != second
    assert len({first, again, second}) == 2
    back = parse_graph(str(graph))               # the printer nests the bodies; the parser reads them
    verify(back)
    assert str(back) == str(graph) and fingerprint(back) == fingerprint(graph)
    assert [n.attrs["body"] for n in back.nodes if n.op == "fused_elementwise_internal"] == [first, second]


def test_the_fingerprint_tells_bodies_apart():
    a = fuse(parse_graph(CHAIN))
    b = fuse(parse_graph(CHAIN.replace("exp(%9)", "sin(%9)")))
    assert [n.op for n in a.nodes] == [n.op for n in b.nodes]
    assert fingerprint(a) != fingerprint(b)


def test_can_fuse_keeps_excluded_ops_out_of_chains():
    # tanh and exp may not join: add stays alone before tanh, and the chain mul-sub-mul (which now
    # starts after tanh and takes in the product of the matmul) closes at exp.
    body = """graph @fused(%0: f32[4,3], %1: f32[4,3]) {
    %2: f32[4,3] = mul(%0, %0)
    %3: f32[] = constant() {value=dense<1.0>}
    %4: f32[4,3] = sub(%3, %2)
    %5: f32[4,3] = mul(%4, %1)
    return (%4, %5)
  }"""
    expect(lambda g, o: fuse(g, o, can_fuse=lambda n: n.op not in ("tanh", "exp")), CHAIN, f"""
graph @g(%0: f32[4,3], %1: f32[3], %2: f32[3,3]) {{
  %3: f32[4,3] = add(%0, %1)
  %4: f32[4,3] = tanh(%3)
  %5: f32[4,3] = matmul(%4, %2)
  %6: f32[4,3], %7: f32[4,3] = fused_elementwise_internal(%4, %5) {{body={body}}}
  %8: f32[4,3] = exp(%7)
  %9: f32[] = sum(%8) {{axes=(0, 1), keepdims=False}}
  return (%9, %6)
}}""")
    assert_same_results(CHAIN, lambda g, o: fuse(g, o, can_fuse=lambda n: n.op not in ("tanh", "exp")))
    # nothing left to fuse: the graph itself comes back
    g = parse_graph(CHAIN)
    assert fuse(g, can_fuse=lambda n: False) is g
