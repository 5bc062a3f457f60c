"""Runtime: compile cache by structural fingerprint, input validation, execution plans."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame import InputError
from frame.ir import parse_graph
from frame.runtime import cache_info, compile as compile_graph
from frame.compiler.pipeline import STAGE_NAMES

TEXT = """graph @f(%0: f32[2,3], %1: f32[3]) {
  %2: f32[2,3] = add(%0, %1)
  %3: f32[2,3] = tanh(%2)
  %4: f32[] = sum(%3) {axes=(0, 1), keepdims=False}
  return (%4, %3)
}"""


def test_pipeline_is_the_nine_named_stages_in_order():
    assert STAGE_NAMES == ("verify", "decompose", "canonicalize", "fold", "simplify", "cse", "dne", "fuse", "plan")


def test_equal_graphs_hit_the_cache():
    g1, g2 = parse_graph(TEXT), parse_graph(TEXT.replace("@f", "@other_name"))
    before = cache_info()
    e1 = compile_graph(g1)
    mid = cache_info()
    e2 = compile_graph(g2)
    after = cache_info()
    assert e1 is e2
    assert mid.misses <= before.misses + 1 and after.hits == mid.hits + 1 and after.misses == mid.misses
    g3 = parse_graph(TEXT.replace("tanh", "sin"))
    compile_graph(g3)
    assert cache_info().misses == after.misses + 1


def test_constants_are_part_of_the_fingerprint():
    a = frame.trace(lambda x: x * np.array([1.0, 2.0]), np.ones(2))
    b = frame.trace(lambda x: x * np.array([1.0, 3.0]), np.ones(2))
    assert compile_graph(a) is not compile_graph(b)
    np.testing.assert_array_equal(compile_graph(b)(np.ones(2))[0], [1.0, 3.0])


def test_executable_runs_and_returns_owned_arrays():
    exe = compile_graph(parse_graph(TEXT))
    x = np.ones((2, 3), "float32")
    s, t = exe(x, np.zeros(3, "float32"))
    assert s.dtype == np.float32 and s.shape == () and t.shape == (2, 3)
    np.testing.assert_allclose(s, 6 * np.tanh(1.0), rtol=1e-6)
    t[0, 0] = 5.0  # outputs belong to the caller
    bcast = compile_graph(frame.trace(lambda v: fnp.broadcast_to(v, (2, 2)), np.ones(2)))(np.ones(2))[0]
    bcast[0, 0] = 3.0


@pytest.mark.parametrize("args,pattern", [
    ((np.ones((2, 3), "float32"),), r"takes 2 input\(s\), got 1"),
    ((np.ones((2, 3), "float32"), np.ones(4, "float32")), r"input 1 .*expected float32\[3\], got float32\[4\]"),
    ((np.ones((2, 3), "float64"), np.ones(3, "float32")), r"input 0 .*expected float32\[2, 3\], got float64\[2, 3\]"),
    ((np.ones((2, 3), "float32"), [1, 2, 3]), r"input 1 .*numpy array"),
])
def test_bad_inputs_raise_input_error_with_position_and_types(args, pattern):
    exe = compile_graph(parse_graph(TEXT))
    with pytest.raises(InputError, match=pattern) as info:
        exe(*args)
    if info.value.position is not None:
        assert info.value.expected is not None and info.value.actual is not None


def test_python_scalars_are_accepted_for_scalar_inputs():
    exe = compile_graph(frame.trace(lambda x, s: x * s, np.ones(2, "float32"), np.float32(1)))
    np.testing.assert_array_equal(exe(np.ones(2, "float32"), 3.0)[0], [3.0, 3.0])


def test_plan_frees_values_after_last_use_and_reports_peak():
    g = frame.trace(lambda x: fnp.sum(fnp.tanh(fnp.sin(x) * 2.0)), np.ones((100,)))
    exe = compile_graph(g)
    freed = [v for s in exe.plan.steps for v in s.free_after]
    assert freed, "intermediate values must be freed after their last use"
    assert "del " in exe.source
    assert exe.plan.peak_bytes >= 100 * 8
    assert "peak" in exe.report()


def test_a_splat_constant_read_by_a_matmul_is_bound_contiguous():
    # numpy's matmul runs zero-stride operands through its slow non-BLAS loop; the executor hands it
    # a contiguous copy of a splat constant (the ones vector of a sum's gradient, here), same numbers.
    import re

    from frame.compiler import build_backward_graph

    x = np.linspace(-1.0, 1.0, 32 * 8).reshape(32, 8)
    w = np.linspace(0.5, 1.5, 8 * 4).reshape(8, 4)
    graph = build_backward_graph(frame.trace(lambda x, w: fnp.sum(x @ w), x, w), 0, [0, 1])
    exe = frame.runtime.compile(graph)
    namespace = exe._tier.run.__globals__
    operands = {name for line in exe.source.splitlines() if "np_matmul(" in line
                for name in re.findall(r"\bc\d+\b", line)}
    assert operands, exe.source   # the seeded ones reach a matmul as a constant
    assert all(namespace[name].flags.c_contiguous for name in operands)
    loss, gx, gw = exe(x, w)
    np.testing.assert_allclose(gx, np.ones((32, 4)) @ w.T)
    np.testing.assert_allclose(gw, x.T @ np.ones((32, 4)))
