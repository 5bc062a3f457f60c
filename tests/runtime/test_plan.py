"""The execution plan: buffer reuse, in-place chains, aliasing through views, owned outputs, report."""
import threading

import numpy as np

import frame
import frame.numpy as fnp
from frame.compiler.passes.plan import plan
from frame.ir import parse_graph
from frame.runtime import compile as compile_graph


def test_elementwise_chain_runs_in_one_buffer():
    g = frame.trace(lambda x: fnp.sum(fnp.tanh(fnp.sin(x) * 2.0 + 1.0)), np.ones((64, 8), "float32"))
    exe = compile_graph(g)
    assert len(exe.plan.buffers) == 1 and exe.plan.buffers[0].shape == (64, 8)
    assert exe.source.count("out=b0") == 4  # sin, mul, add, tanh all write b0
    x = np.linspace(-1, 1, 512, dtype="float32").reshape(64, 8)
    np.testing.assert_allclose(exe(x)[0], np.sum(np.tanh(np.sin(x) * 2 + 1)), rtol=1e-5)


def test_a_buffer_seen_through_a_view_is_not_reused_while_the_view_lives():
    # v is a view of exp(x)'s buffer; sin(x) must not overwrite that buffer before v is read.
    text = """
graph @g(%0: f64[4,4]) {
  %1: f64[4,4] = exp(%0)
  %2: f64[4,4] = transpose(%1) {perm=(1, 0)}
  %3: f64[4,4] = sin(%0)
  %4: f64[4,4] = cos(%3)
  %5: f64[4,4] = add(%2, %4)
  %6: f64[] = sum(%5) {axes=(0, 1), keepdims=False}
  return (%6)
}"""
    g = parse_graph(text)
    p = plan(g)
    owner = g.nodes[0].outputs[0]
    sin_out = g.nodes[2].outputs[0]
    assert p.buffer_of[owner] != p.buffer_of[sin_out]
    x = np.arange(16.0).reshape(4, 4) / 16
    want = np.sum(np.exp(x).T + np.cos(np.sin(x)))
    assert compile_graph(g)(x)[0] == want


def test_results_are_owned_by_the_caller_across_calls():
    exe = compile_graph(frame.trace(lambda x: (fnp.exp(x) * 2.0, fnp.reshape(x, (4,)), x), np.ones((2, 2))))
    x1 = np.zeros((2, 2))
    a1, r1, i1 = exe(x1)
    a2, _, _ = exe(np.ones((2, 2)))
    np.testing.assert_array_equal(a1, 2.0)  # the second call did not write into the first call's result
    assert not np.shares_memory(a1, a2)
    r1[0] = 7.0
    i1[0, 0] = 7.0
    assert x1[0, 0] == 0.0  # returned views and inputs are copies


def test_concurrent_calls_use_separate_arenas():
    exe = compile_graph(frame.trace(lambda x: fnp.tanh(fnp.sin(x) * x) + x, np.ones((200, 50))))
    inputs = [np.full((200, 50), 0.01 * k) for k in range(8)]
    want = [np.tanh(np.sin(x) * x) + x for x in inputs]
    got = [None] * len(inputs)

    def work(k):
        for _ in range(20):
            got[k] = exe(inputs[k])[0]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_report_lists_the_buffers_kept_alive_and_the_peak():
    exe = compile_graph(frame.trace(lambda x, w: fnp.sum(fnp.tanh(x @ w) ** 2.0), np.ones((32, 16), "float32"),
                                    np.ones((16, 16), "float32")))
    report = exe.report()
    assert f"buffers kept alive between calls: {len(exe.plan.buffers)}, {exe.plan.arena_bytes} bytes" in report
    assert "b0: f32[32,16] (2048 bytes)" in report
    assert f"peak bytes alive during a call: {exe.plan.peak_bytes}" in report
    # inputs (2048 + 1024) and at least the matmul's result are alive at the peak
    assert exe.plan.peak_bytes >= 2048 + 1024 + 2048
    x, w = np.ones((32, 16), "float32"), np.eye(16, dtype="float32")
    first = exe(x, w)[0]
    assert len(exe._arenas) == 1  # kept for the next call
    exe.release_buffers()
    assert not exe._arenas and exe(x, w)[0] == first


def test_fused_bodies_are_inlined_into_the_plan():
    g = frame.trace(lambda x, w: fnp.tanh(x @ w) * 3.0 - 1.0, np.ones((4, 4)), np.ones((4, 4)))
    exe = compile_graph(g)
    assert [n.op for n in exe.graph.nodes].count("fused_elementwise_internal") == 1
    assert [i.op for i in exe.plan.instrs if i.op != "constant"] == ["matmul", "tanh", "mul", "sub"]
    x = np.eye(4)
    np.testing.assert_allclose(exe(x, x)[0], np.tanh(x) * 3 - 1)


# -- fused nodes kept whole (the native tier's kernels) ----------------------------------------------------
import pytest  # noqa: E402

from frame.compiler.passes.fuse import fuse  # noqa: E402
from frame.backends import native  # noqa: E402
from frame.runtime import clear_cache, set_native  # noqa: E402

KEEP_DYING_OPERAND = """
graph @g(%0: f64[4,4]) {
  %1: f64[4,4] = exp(%0)
  %2: f64[4,1] = sum(%1) {axes=(1,), keepdims=True}
  %3: f64[4,4] = sub(%1, %2)
  %4: f64[4,4] = mul(%3, %3)
  %5: f64[] = sum(%4) {axes=(0, 1), keepdims=False}
  return (%5)
}"""

OWNER_AND_ITS_TRANSPOSE = """
graph @g(%0: f64[4,4]) {
  %1: f64[4,4] = exp(%0)
  %2: f64[4,4] = transpose(%1) {perm=(1, 0)}
  %3: f64[4,4] = mul(%1, %2)
  %4: f64[4,4] = sub(%3, %1)
  %5: f64[] = sum(%4) {axes=(0, 1), keepdims=False}
  return (%5)
}"""


def _whole_fused_plan(text):
    g = fuse(parse_graph(text))
    assert [n.op for n in g.nodes] == ["exp", *(["transpose"] if "transpose" in text else ["sum"]),
                                       "fused_elementwise_internal", "sum"]
    p = plan(g, keep_whole=lambda n: True)
    fused = next(i for i in p.instrs if i.op == "fused_elementwise_internal")
    assert fused.node is g.nodes[2]   # one instruction, its body not inlined
    return g, p


def test_a_whole_fused_node_writes_over_an_operand_that_dies_there():
    g, p = _whole_fused_plan(KEEP_DYING_OPERAND)
    owner, result = g.nodes[0].outputs[0], g.nodes[2].outputs[0]
    assert p.buffer_of[result] == p.buffer_of[owner]
    assert len([t for t in p.buffers if t.shape == (4, 4)]) == 1


def test_a_whole_fused_node_does_not_write_over_an_owner_it_reads_through_a_view():
    # The kernel reads exp(x)[j, i] after writing element [i, j]: its result needs its own buffer.
    g, p = _whole_fused_plan(OWNER_AND_ITS_TRANSPOSE)
    owner, result = g.nodes[0].outputs[0], g.nodes[2].outputs[0]
    assert owner in p.buffer_of and result in p.buffer_of
    assert p.buffer_of[result] != p.buffer_of[owner]


@pytest.fixture
def native_sync(tmp_path, monkeypatch):
    monkeypatch.setenv("FRAME_CACHE_DIR", str(tmp_path))
    previous = set_native("sync", after_calls=10**9)
    yield
    set_native(**previous)


@pytest.mark.skipif(native.c_compiler() is None, reason="no C compiler: the native tier cannot be built")
@pytest.mark.parametrize("text", [KEEP_DYING_OPERAND, OWNER_AND_ITS_TRANSPOSE], ids=["dying-operand", "transpose"])
def test_whole_fused_nodes_compute_the_numpy_tiers_bits(text, native_sync):
    clear_cache()
    exe = compile_graph(parse_graph(text))
    x = np.arange(16.0).reshape(4, 4) / 7 - 1
    e = np.exp(x)
    want = np.sum(np.square(e - e.sum(1, keepdims=True))) if text is KEEP_DYING_OPERAND else np.sum(e * e.T - e)
    numpy_result = exe(x)[0]
    np.testing.assert_allclose(numpy_result, want, rtol=1e-13)
    assert exe.wait_native() and exe.tier == "native"
    native_plan = exe._tier.plan
    fused = [i for i in native_plan.instrs if i.op == "fused_elementwise_internal"]
    assert len(fused) == 1
    owner = next(i for i in native_plan.instrs if i.op == "exp").outputs[0]
    shares = native_plan.buffer_of.get(fused[0].outputs[0]) == native_plan.buffer_of.get(owner)
    assert shares == (text is KEEP_DYING_OPERAND)
    for _ in range(2):   # the arena is reused across calls
        assert exe(x)[0].tobytes() == numpy_result.tobytes()
