"""The native tier (frame/backends/native.py, frame/runtime/tiers.py): fused elementwise chains
run as generated C, and executables move from the numpy tier to it between two calls.

The contract under test: the native tier computes exactly the bits of the numpy tier (signed zeros,
infinities, nans, subnormals, every broadcast and memory layout), so an executable may switch tiers
at any call without changing a result.
"""
import shutil
import subprocess
import threading
import warnings

import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.ir import parse_graph
from frame.ops.fused import FusedBody
from frame.ir.registry import ELEMENTWISE, all_ops, get
from frame.backends import native
from frame.runtime import clear_cache, compile as compile_graph, set_native, tiers
from tests.workloads import pinn_problem, pinn_step_fn

needs_cc = pytest.mark.skipif(native.c_compiler() is None,
                              reason="no C compiler ($CC, cc, gcc or clang): the native tier cannot be built")

UINT = {"float32": np.uint32, "float64": np.uint64}


@pytest.fixture(autouse=True)
def kernels_one_by_one(monkeypatch):
    """These tests read the generated source for each kernel call, so runs of native steps stay
    separate calls here; tests/runtime/test_segments.py covers them as one C call."""
    monkeypatch.setitem(native.SEGMENTS, "on", False)
IR_DTYPE = {"float32": "f32", "float64": "f64"}


# -- helpers ---------------------------------------------------------------------------------------------
def drain_builder(timeout: float = 120.0) -> None:
    """Wait until the background builder has finished every build queued so far (by earlier tests)."""
    assert frame.runtime.wait_native_builds(timeout), "the native builder thread is stuck"


def cold(graph):
    """A new executable of `graph` (never one an earlier call made hot or native)."""
    clear_cache()
    return compile_graph(graph)


def numpy_then_native(exe, *args):
    """The results of `exe` on the numpy tier, then on the native tier (which it has to reach)."""
    assert exe.tier == "numpy"
    with np.errstate(all="ignore"):
        want = exe(*args)
        assert exe.wait_native(timeout=120), exe.native_status
        assert exe.tier == "native" and exe.native_status == "ready"
        got = exe(*args)
    return want, got


def bit_mismatches(got, want) -> np.ndarray:
    """Flat indices where `got` and `want` differ in bits, nans aside (any nan matches any nan)."""
    got, want = np.ascontiguousarray(got).reshape(-1), np.ascontiguousarray(want).reshape(-1)
    u = UINT[want.dtype.name]
    both_nan = np.isnan(got) & np.isnan(want)
    return np.flatnonzero((got.view(u) != want.view(u)) & ~both_nan)


def assert_same_bits(got, want, context=""):
    """Equal bit for bit (signed zeros, infinities, subnormals), nans in the same places.

    The sign and payload of a nan are out of contract (see frame/backends/native.py)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, context
    bad = bit_mismatches(got, want)
    g, w = got.reshape(-1)[bad[:6]], want.reshape(-1)[bad[:6]]
    assert bad.size == 0, (f"{bad.size} element(s) differ {context}: native {g.tolist()} vs numpy {w.tolist()} "
                           f"(signbit {np.signbit(g).tolist()} vs {np.signbit(w).tolist()}) at {bad[:6].tolist()}")


def assert_all_same_bits(gots, wants, context=""):
    assert len(gots) == len(wants)
    for k, (g, w) in enumerate(zip(gots, wants)):
        assert_same_bits(g, w, f"{context} (result {k})")


def kernel_lines(source: str) -> list[str]:
    return [ln.strip() for ln in source.splitlines() if ln.strip().startswith("nk")]


def special_values(dtype: str) -> np.ndarray:
    fi = np.finfo(dtype)
    return np.array([0.0, -0.0, 1.0, -1.0, 0.1, -2.5, 3.0, 7e-3, fi.tiny, -fi.tiny, fi.smallest_subnormal,
                     -fi.smallest_subnormal, 5 * fi.smallest_subnormal, fi.max, -fi.max, fi.max / 3, np.inf,
                     -np.inf, np.nan], dtype)


def with_specials(rng, shape, dtype):
    """Random normals with signed zeros, infinities, a nan and a subnormal sprinkled in."""
    a = np.array(rng.standard_normal(shape), dtype)
    flat = a.reshape(-1)   # a view: writes go to `a`
    for k, v in enumerate([0.0, -0.0, np.inf, -np.inf, np.nan, np.finfo(dtype).smallest_subnormal, -1e-3]):
        if flat.size:
            flat[(k * 5) % flat.size] = v
    return a


@pytest.fixture(scope="module", autouse=True)
def _native_on_demand(native_on_demand):
    """Every test here runs with the shared fixture's policy and kernel cache."""


@pytest.fixture
def policy():
    """`set_native`, with the settings restored after the test."""
    previous = set_native()
    yield set_native
    set_native(**previous)


# -- 1. every exact op, every special value, bit for bit ---------------------------------------------
EXACT_OPS = [s.name for s in all_ops() if s.c is not None and s.has(ELEMENTWISE)]


def test_the_exact_ops_are_the_elementwise_ones_with_rules():
    assert {"add", "sub", "mul", "div", "neg", "square", "sqrt", "relu", "abs"} <= set(EXACT_OPS)
    for op in ("exp", "log", "sin", "cos", "pow", "tanh", "sigmoid"):
        assert get(op).c is None, f"{op} is not correctly rounded everywhere: it must stay a numpy call"


@needs_cc
def test_tanh_stays_a_numpy_call_between_kernels():
    x = np.linspace(-3, 3, 40)
    exe = cold(frame.trace(lambda x: fnp.tanh(x * 1.5 + 1.0) * x - x, x))
    want, got = numpy_then_native(exe, x)
    assert "np_tanh" in exe.active_source and len(kernel_lines(exe.active_source)) == 2
    assert_all_same_bits(got, want)


def _op_graph(op: str, dtype: str, n: int) -> str:
    """`op` on every pair of special values (%2) and at the end of a chain x*1.5 + y (%6); %7 reads
    both, so all of it is one fused node."""
    t = IR_DTYPE[dtype]
    binary = get(op).num_inputs == 2
    raw = f"{op}(%0, %1)" if binary else f"{op}(%0)"
    chained = f"{op}(%5, %1)" if binary else f"{op}(%5)"
    return f"""
graph @exact_{op}_{t}(%0: {t}[{n}], %1: {t}[{n}]) {{
  %2: {t}[{n}] = {raw}
  %3: {t}[] = constant() {{value=dense<1.5>}}
  %4: {t}[{n}] = mul(%0, %3)
  %5: {t}[{n}] = add(%4, %1)
  %6: {t}[{n}] = {chained}
  %7: {t}[{n}] = mul(%6, %2)
  return (%2, %6, %7)
}}"""


@needs_cc
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", EXACT_OPS)
def test_exact_op_gives_numpys_bits_on_every_special_value(op, dtype):
    s = special_values(dtype)
    x, y = (a.reshape(-1).copy() for a in np.meshgrid(s, s, indexing="ij"))   # every pair, 361 elements
    exe = cold(parse_graph(_op_graph(op, dtype, x.size)))
    assert [n.op for n in exe.graph.nodes] == ["fused_elementwise_internal"]
    if op != "stop_gradient":   # (canonicalize drops stop_gradient: its rule is tested on a body below)
        assert f"= {op}(" in str(exe.graph.nodes[0].attrs["body"])
    want, got = numpy_then_native(exe, x, y)
    assert len(kernel_lines(exe.active_source)) == 1 and not kernel_lines(exe.source)
    assert exe.report().startswith("tier: native (1 fused nodes run as native kernels)")
    assert_all_same_bits(got, want, f"for {op} in {dtype}")


@needs_cc
def test_stop_gradient_rule_is_the_identity():
    spec = native.kernel_spec(_body("""
graph @fused(%0: f64[19], %1: f64[19]) {
  %2: f64[19] = stop_gradient(%0)
  %3: f64[19] = mul(%2, %1)
  return (%2, %3)
}"""))
    kernel, = native.load_kernels([spec])
    x = special_values("float64")
    y = x[::-1].copy()
    a, b = np.empty_like(x), np.empty_like(x)
    with np.errstate(all="ignore"):
        kernel(x.ctypes.data, y.ctypes.data, a.ctypes.data, b.ctypes.data)
        want = x * y
    assert a.view(np.uint64).tolist() == x.view(np.uint64).tolist()
    assert_same_bits(b, want)


@needs_cc
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_results_are_nan_in_the_same_places_and_other_bits_agree(dtype):
    # Out of contract (frame/backends/native.py): the sign and payload of a nan. gcc may compute
    # x / -x as -x / x, so for x = nan numpy gives +nan and the kernel -nan. Everything else agrees.
    x = np.array([np.nan, 2.0, -0.0], dtype)
    exe = cold(frame.trace(lambda x: (x * -x, x / -x, -x - x * 3.0), x))
    want, got = numpy_then_native(exe, x)
    u = UINT[dtype]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
        keep = ~np.isnan(w)
        assert g[keep].view(u).tolist() == w[keep].view(u).tolist()


# -- 2. broadcasting ------------------------------------------------------------------------------------
BROADCASTS = {
    "full": ((6, 5), (6, 5)),
    "row": ((6, 5), (5,)),
    "column": ((6, 5), (6, 1)),
    "leading-1": ((6, 5), (1, 5)),
    "scalar": ((6, 5), ()),
    "outer": ((6, 1), (1, 5)),
    "rank-3": ((2, 3, 4), (3, 1)),
    "rank-0": ((), ()),
    "empty": ((0, 3), (3,)),
}


@needs_cc
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(BROADCASTS))
def test_broadcast_operands_give_numpys_bits(name, dtype):
    sa, sb = BROADCASTS[name]
    rng = np.random.default_rng(len(name))
    a, b = with_specials(rng, sa, dtype), with_specials(rng, sb, dtype)
    exe = cold(frame.trace(lambda a, b: ((a * 1.5 - b) / (b * b + 2.0) + fnp.sqrt(fnp.square(a) + b), a - b),
                           a, b))
    want, got = numpy_then_native(exe, a, b)
    assert len(kernel_lines(exe.active_source)) == 1
    assert_all_same_bits(got, want, name)


@needs_cc
def test_five_broadcast_operands_in_one_kernel():
    rng = np.random.default_rng(5)
    n, m = 33, 17   # odd sizes: vector loops and their remainders
    args = [with_specials(rng, s, "float32") for s in [(n, m), (m,), (n, 1), (1, m), ()]]
    exe = cold(frame.trace(lambda a, r, c, lead, s: ((a * r + c) * lead - s) / (c - r), *args))
    want, got = numpy_then_native(exe, *args)
    assert len(kernel_lines(exe.active_source)) == 1
    assert_all_same_bits(got, want)


@pytest.mark.parametrize("shapes,full,extents,strides", [
    ([(6, 5), (6, 5)], (6, 5), [30], [[1], [1]]),                                  # all full: one flat loop
    ([(6, 5), ()], (6, 5), [30], [[1], [0]]),                                      # a scalar broadcasts everywhere
    ([(6, 5), (5,), (6, 1)], (6, 5), [6, 5], [[5, 1], [0, 1], [1, 0]]),
    ([(6, 1), (1, 5)], (6, 5), [6, 5], [[1, 0], [0, 1]]),
    ([(2, 3, 4), (3, 4)], (2, 3, 4), [2, 12], [[12, 1], [0, 1]]),                  # trailing dims merge
    ([(2, 3, 4), (3, 1)], (2, 3, 4), [2, 3, 4], [[12, 4, 1], [0, 1, 0]]),
    ([(4, 1, 5), (5,)], (4, 1, 5), [4, 5], [[5, 1], [0, 1]]),                      # size-1 dims dropped
    ([(2, 1, 3), (1, 1, 3), (2, 1, 1)], (2, 1, 3), [2, 3], [[3, 1], [0, 1], [1, 0]]),
    ([(), ()], (), [], [[], []]),
])
def test_loop_dims_collapse_the_iteration_space(shapes, full, extents, strides):
    assert native._loop_dims(shapes, full) == (extents, strides)


# -- 3. transcendental ops stay numpy calls between kernels ---------------------------------------------
@needs_cc
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_transcendental_ops_run_on_numpy_between_native_kernels(dtype):
    rng = np.random.default_rng(3)
    x, y = with_specials(rng, (40, 24), dtype), with_specials(rng, (24,), dtype)
    exe = cold(frame.trace(
        lambda x, y: fnp.sin(fnp.exp(fnp.tanh(x * 1.5 + y) * y - 0.5) + x) * (y - x) + fnp.sqrt(fnp.square(x)),
        x, y))
    want, got = numpy_then_native(exe, x, y)
    source = exe.active_source
    for ufunc in ("np_exp(", "np_sin(", "np_tanh("):
        assert ufunc in source
    assert len(kernel_lines(source)) >= 2, source
    assert_all_same_bits(got, want)


# -- 4. which bodies compile -----------------------------------------------------------------------------
def _body(text: str) -> FusedBody:
    return FusedBody.of(parse_graph(text))


def test_kernel_spec_refuses_an_op_without_a_rule():
    assert native.kernel_spec(_body("""
graph @fused(%0: f32[4], %1: f32[4]) {
  %2: f32[4] = add(%0, %1)
  %3: f32[4] = exp(%2)
  return (%3)
}""")) is None
    assert native.kernel_spec(_body("""
graph @fused(%0: f64[4], %1: f64[4]) {
  %2: f64[4] = add(%0, %1)
  %3: f64[4] = tanh(%2)
  return (%3)
}""")) is None   # tanh is numpy's on every tier


def test_kernel_spec_refuses_mixed_and_non_float_dtypes():
    assert native.kernel_spec(_body("""
graph @fused(%0: f32[4], %1: f64[4]) {
  %2: f32[4] = neg(%0)
  %3: f64[4] = neg(%1)
  return (%2, %3)
}""")) is None
    assert native.kernel_spec(_body("""
graph @fused(%0: i64[4], %1: i64[4]) {
  %2: i64[4] = add(%0, %1)
  %3: i64[4] = mul(%2, %0)
  return (%3)
}""")) is None


def test_kernel_spec_refuses_outputs_of_different_shapes():
    assert native.kernel_spec(_body("""
graph @fused(%0: f32[4,3], %1: f32[3]) {
  %2: f32[4,3] = add(%0, %1)
  %3: f32[3] = neg(%1)
  return (%2, %3)
}""")) is None


@pytest.mark.parametrize("dtype,ctype,two", [("f32", "float", "0x1.0000000000000p+1f"),
                                             ("f64", "double", "0x1.0000000000000p+1")])
def test_kernel_spec_of_a_plain_chain(dtype, ctype, two):
    spec = native.kernel_spec(_body(f"""
graph @fused(%0: {dtype}[4,3], %1: {dtype}[3]) {{
  %2: {dtype}[4,3] = add(%0, %1)
  %3: {dtype}[] = constant() {{value=dense<2.0>}}
  %4: {dtype}[4,3] = mul(%2, %3)
  %5: {dtype}[4,3] = sqrt(%4)
  return (%5, %2)
}}"""))
    assert isinstance(spec, native.KernelSpec)
    assert (spec.num_operands, spec.num_results) == (2, 2)
    c = spec.c_body
    assert c.startswith(f"const {ctype} *in0, const {ctype} *in1, {ctype} *out0, {ctype} *out1)")
    assert "for (long i0 = 0; i0 < 4; ++i0)" in c and "for (long i1 = 0; i1 < 3; ++i1)" in c
    assert "in1[i1]" in c and "in0[i0 * 3 + i1]" in c   # the (3,) operand is read with stride 0 over rows
    assert "(x0 + x1)" in c and f"= {two};" in c and "(t0 * t1)" in c
    assert ("sqrtf(t2)" if ctype == "float" else "sqrt(t2)") in c
    assert "out0[i0 * 3 + i1] = t3;" in c and "out1[i0 * 3 + i1] = t0;" in c
    assert f"void k0({c}" in native.library_source([spec])


def test_supports_exact_float_ops_only():
    g = parse_graph("""
graph @g(%0: f32[4], %1: i64[4]) {
  %2: f32[4] = add(%0, %0)
  %3: f32[4] = tanh(%2)
  %4: i64[4] = add(%1, %1)
  %5: f32[] = sum(%3) {axes=(0,), keepdims=False}
  return (%4, %5)
}""")
    assert [native.supports(n) for n in g.nodes] == [True, False, False, False]


@needs_cc
def test_loaded_kernel_computes_its_body_on_raw_buffers():
    spec = native.kernel_spec(_body("""
graph @fused(%0: f64[4,3], %1: f64[3]) {
  %2: f64[4,3] = sub(%0, %1)
  %3: f64[4,3] = div(%2, %1)
  return (%3)
}"""))
    kernel, = native.load_kernels([spec])
    a, b = np.arange(12.0).reshape(4, 3), np.array([1.0, -2.0, 0.5])
    out = np.full((4, 3), np.nan)
    kernel(a.ctypes.data, b.ctypes.data, out.ctypes.data)
    np.testing.assert_array_equal(out, (a - b) / b)


# -- 5. the tier policy ----------------------------------------------------------------------------------
def _policy_graph(k: float):
    return frame.trace(lambda x, y: fnp.tanh(x * k + y) * y - fnp.sqrt(fnp.square(y) + k), np.ones((16, 8)),
                       np.ones(8))


def _policy_args():
    rng = np.random.default_rng(0)
    return rng.standard_normal((16, 8)), rng.standard_normal(8)


def test_set_native_returns_the_previous_settings_and_validates(policy):
    before = policy()
    assert before == {"mode": "sync", "after_calls": 10**9}   # the module's settings, unchanged by the query
    assert policy("off", after_calls=5) == before
    assert policy() == {"mode": "off", "after_calls": 5}
    assert policy(after_calls=7) == {"mode": "off", "after_calls": 5}
    assert policy("auto") == {"mode": "off", "after_calls": 7}
    with pytest.raises(ValueError, match="native mode"):
        policy("fast")
    with pytest.raises(ValueError, match="after_calls"):
        policy(after_calls=0)
    assert policy() == {"mode": "auto", "after_calls": 7}


def test_a_rejected_set_native_call_changes_nothing(policy):
    policy("off", after_calls=5)
    with pytest.raises(ValueError):
        policy("sync", after_calls=0)   # a valid mode with an invalid count
    assert policy() == {"mode": "off", "after_calls": 5}


def test_off_keeps_the_numpy_tier(policy):
    policy("off", after_calls=1)
    exe = cold(_policy_graph(1.25))
    args = _policy_args()
    first = exe(*args)
    for _ in range(5):
        assert_all_same_bits(exe(*args), first)
    assert exe.tier == "numpy" and exe.native_status == "off"
    assert not exe.wait_native(timeout=5)
    assert exe.tier == "numpy" and not kernel_lines(exe.active_source)
    assert exe.report().startswith("tier: numpy (native: off)")


@pytest.fixture
def built_in(monkeypatch):
    """The threads that loaded native kernels during the test, in order."""
    threads = []
    load = native.load_library
    monkeypatch.setattr(native, "load_library", lambda *args: threads.append(threading.current_thread()) or
                        load(*args))
    return threads


@needs_cc
def test_sync_switches_exactly_at_the_hot_call_in_the_calling_thread(policy, built_in):
    policy("sync", after_calls=2)
    exe = cold(_policy_graph(1.5))
    args = _policy_args()
    r1 = exe(*args)
    assert exe.tier == "numpy" and exe.native_status == "cold" and not built_in
    r2 = exe(*args)   # the second call builds, then runs on the native tier
    assert exe.tier == "native" and exe.native_status == "ready"
    assert built_in == [threading.current_thread()]
    assert kernel_lines(exe.active_source) and not kernel_lines(exe.source)
    assert exe.report().startswith("tier: native (")
    r3 = exe(*args)
    assert_all_same_bits(r2, r1)
    assert_all_same_bits(r3, r1)
    assert exe.wait_native() and built_in == [threading.current_thread()]   # nothing built twice


@needs_cc
def test_auto_builds_in_the_background_once_hot(policy, built_in):
    policy("auto", after_calls=2)
    exe = cold(_policy_graph(1.75))
    args = _policy_args()
    r1 = exe(*args)
    assert exe.native_status == "cold"
    exe(*args)
    assert exe.native_status in ("queued", "building", "ready")   # the second call started the build
    assert exe.wait_native(timeout=60), exe.native_status
    assert exe.tier == "native"
    assert len(built_in) == 1 and built_in[0] is not threading.current_thread() and built_in[0].daemon
    assert_all_same_bits(exe(*args), r1)


@needs_cc
def test_a_graph_without_compilable_chains_stays_on_numpy():
    exe = cold(frame.trace(lambda x, w: fnp.sum(fnp.tanh(x @ w)), np.ones((4, 4)), np.ones((4, 4))))
    args = np.eye(4), np.full((4, 4), 0.5)
    want = exe(*args)
    assert not exe.wait_native(timeout=60)
    assert exe.native_status == "none" and exe.tier == "numpy"
    assert_all_same_bits(exe(*args), want)


# -- 6. no compiler ---------------------------------------------------------------------------------------
def test_without_a_compiler_the_executable_stays_on_numpy(monkeypatch, policy):
    monkeypatch.setattr(native, "c_compiler", lambda: None)
    policy("sync", after_calls=1)
    exe = cold(_policy_graph(2.25))
    args = _policy_args()
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # no compiler is not an error: nothing to warn about
        want = exe(*args)
        assert not exe.wait_native()
    assert exe.native_status == "none: no C compiler" and exe.tier == "numpy"
    assert exe.report().startswith("tier: numpy (native: none: no C compiler)")
    x, y = args
    np.testing.assert_allclose(want[0], np.tanh(x * 2.25 + y) * y - np.sqrt(np.square(y) + 2.25), rtol=1e-15)
    assert_all_same_bits(exe(*args), want)


# -- 7. build failures --------------------------------------------------------------------------------------
def test_a_failing_build_warns_once_and_keeps_numpy(monkeypatch):
    def broken(source):
        raise OSError("disk full")

    monkeypatch.setattr(native, "c_compiler", lambda: "/usr/bin/cc")
    monkeypatch.setattr(native, "build_library", broken)
    exe = cold(_policy_graph(2.5))
    args = _policy_args()
    want = exe(*args)
    with pytest.warns(RuntimeWarning, match="stays on the numpy tier.*disk full"):
        assert not exe.wait_native()
    assert exe.native_status == "failed: OSError: disk full" and exe.tier == "numpy"
    assert exe.report().startswith("tier: numpy (native: failed: OSError: disk full)")
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # said once: later waits and calls are quiet
        assert not exe.wait_native()
        assert_all_same_bits(exe(*args), want)


@pytest.mark.skipif(shutil.which("false") is None, reason="no `false` program to stand for a broken compiler")
def test_a_compiler_that_fails_leaves_no_files_behind(tmp_path):
    cache = tmp_path / "cache"
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("CC", shutil.which("false"))
            mp.setenv("FRAME_CACHE_DIR", str(cache))
            native.c_compiler.cache_clear()
            exe = cold(_policy_graph(2.75))
            args = _policy_args()
            want = exe(*args)
            with pytest.warns(RuntimeWarning, match="stays on the numpy tier"):
                assert not exe.wait_native()
            assert exe.native_status.startswith("failed: BuildError: ") and exe.tier == "numpy"
            assert_all_same_bits(exe(*args), want)
            leftovers = [p.name for p in cache.rglob("*") if p.is_file()]
            assert leftovers == [], f"temporary or partial files left in the cache: {leftovers}"
    finally:
        native.c_compiler.cache_clear()


# -- 8. the disk cache ----------------------------------------------------------------------------------------
@needs_cc
def test_a_library_is_compiled_once_and_then_loaded_from_disk(tmp_path, monkeypatch):
    drain_builder()
    monkeypatch.setenv("FRAME_CACHE_DIR", str(tmp_path))
    compiles = []
    run = subprocess.run

    def counting_run(argv, *a, **k):
        if "-shared" in argv:
            compiles.append(argv)
        return run(argv, *a, **k)

    monkeypatch.setattr(native.subprocess, "run", counting_run)
    graph = _policy_graph(3.25)
    args = _policy_args()
    first = cold(graph)
    want, got = numpy_then_native(first, *args)
    libraries = list(native.cache_dir().glob("*.so"))
    assert native.cache_dir() == tmp_path / "native"
    assert len(compiles) == 1 and len(libraries) == 1
    stamp = libraries[0].stat()

    second = cold(graph)   # a new executable of the same graph: same source, same library
    assert second is not first
    want2, got2 = numpy_then_native(second, *args)
    assert len(compiles) == 1, "the second build compiled again instead of loading the cached library"
    assert list(native.cache_dir().glob("*.so")) == libraries
    assert (libraries[0].stat().st_mtime_ns, libraries[0].stat().st_ino) == (stamp.st_mtime_ns, stamp.st_ino)
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == [libraries[0].name]   # no *.c left
    assert_all_same_bits(got, want)
    assert_all_same_bits(got2, want)
    assert_all_same_bits(want2, want)

    other = cold(_policy_graph(3.5))   # another source: another library
    numpy_then_native(other, *args)
    assert len(compiles) == 2 and len(list(native.cache_dir().glob("*.so"))) == 2


# -- 9. switching tiers under concurrent calls ----------------------------------------------------------------
@needs_cc
def test_the_switch_while_other_threads_call_never_gives_a_wrong_result(policy):
    policy("auto", after_calls=4)
    rng = np.random.default_rng(9)
    x, y = with_specials(rng, (256, 64), "float32"), with_specials(rng, (64,), "float32")
    exe = cold(frame.trace(lambda x, y: (fnp.tanh(x * 1.5 + y) * y - fnp.sqrt(fnp.square(x) + 1.0),
                                         fnp.sum(fnp.exp(-fnp.square(x - y)) * 0.5)), x, y))
    with np.errstate(all="ignore"):
        reference = [r.copy() for r in exe(x, y)]
    stop = threading.Event()
    seen = [[] for _ in range(3)]   # per worker: (tier before the call, same bits?)

    def worker(k):
        with np.errstate(all="ignore"):
            while not stop.is_set():
                tier = exe.tier
                out = exe(x, y)
                same = all(o.shape == r.shape and bit_mismatches(o, r).size == 0 for o, r in zip(out, reference))
                seen[k].append((tier, same))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    try:
        while sum(map(len, seen)) < 6 and all(t.is_alive() for t in threads):   # the workers make it hot
            stop.wait(0.001)
        assert exe.wait_native(timeout=60), exe.native_status
        target = [len(s) + 20 for s in seen]
        while any(len(s) < n for s, n in zip(seen, target)) and all(t.is_alive() for t in threads):
            stop.wait(0.005)
    finally:
        stop.set()
        for t in threads:
            t.join(60)
    for s in seen:
        assert s and all(same for _, same in s), f"{sum(not same for _, same in s)} wrong result(s)"
        assert any(tier == "native" for tier, _ in s)
    assert any(tier == "numpy" for s in seen for tier, _ in s)


# -- 10. layouts of inputs, and constants ---------------------------------------------------------------------
@needs_cc
def test_non_contiguous_inputs_and_constant_operands():
    rng = np.random.default_rng(10)
    n, m = 12, 7
    splat = np.broadcast_to(np.float32(2.5), (n, m))                              # zero-stride, all equal
    rows = np.broadcast_to(np.linspace(-1, 1, m, dtype=np.float32), (n, m))       # zero-stride, not a splat
    dense = rng.standard_normal((n, m)).astype(np.float32)
    example = np.ones((n, m), "float32")
    exe = cold(frame.trace(lambda x, w: ((x * splat + dense) * 0.5 - x * w + rows, (x - rows) * w), example, example))
    x = with_specials(rng, (m, n), "float32").T                                   # a transposed view
    w = np.broadcast_to(np.float32(-3.0), (n, m))                                  # a zero-stride input
    strided = with_specials(rng, (n, 2 * m), "float32")[:, ::2]                    # a strided slice
    assert not x.flags.c_contiguous and not strided.flags.c_contiguous
    x_before = x.copy()
    want = exe(x, w)
    want_strided = exe(strided, w)
    assert exe.wait_native()
    got, got_strided = exe(x, w), exe(strided, w)
    assert_all_same_bits(got, want)
    assert_all_same_bits(got_strided, want_strided)
    assert_all_same_bits(exe(np.ascontiguousarray(x), np.ascontiguousarray(w)), want)
    assert bit_mismatches(x, x_before).size == 0   # inputs are read, never written


@needs_cc
def test_inputs_in_non_native_byte_order():
    # The executable accepts a big-endian float32 array (its dtype name is float32); the numpy tier
    # computes on its values, so the native tier has to as well.
    x = np.linspace(-2, 2, 12, dtype="float32").reshape(3, 4)
    exe = cold(frame.trace(lambda x, y: fnp.sqrt(fnp.square(x * 1.5 + y)) - y, x, x))
    swapped = x.astype(x.dtype.newbyteorder())
    want, got = numpy_then_native(exe, swapped, x)
    np.testing.assert_array_equal(want[0], np.sqrt(np.square(x * np.float32(1.5) + x)) - x)
    assert_all_same_bits(got[0], want[0])


# -- 12. a PINN training step -----------------------------------------------------------------------------------
@needs_cc
def test_a_pinn_training_step_is_bit_identical_on_both_tiers():
    params, x, xb, f = pinn_problem(np.random.default_rng(12), (1, 16, 16, 1), 64, bias_scale=0.1)
    clear_cache()
    step = frame.function(pinn_step_fn(1e-3))
    exe = step.compiled(params, x, xb, f)
    assert exe.tier == "numpy"
    want = frame.tree_leaves(step(params, x, xb, f))
    assert exe.wait_native(timeout=120), exe.native_status
    got = frame.tree_leaves(step(params, x, xb, f))
    assert exe.tier == "native" and len(kernel_lines(exe.active_source)) >= 3
    assert_all_same_bits(got, want)
    # and a few steps of training stay identical too (each tier fed its own previous parameters)
    p_numpy = p_native = params
    for _ in range(3):
        _, p_native = step(p_native, x, xb, f)
    clear_cache()
    numpy_step = frame.function(pinn_step_fn(1e-3))
    assert numpy_step.compiled(params, x, xb, f).tier == "numpy"
    for _ in range(3):
        _, p_numpy = numpy_step(p_numpy, x, xb, f)
    assert numpy_step.compiled(params, x, xb, f).tier == "numpy"
    assert_all_same_bits(frame.tree_leaves(p_native), frame.tree_leaves(p_numpy))


@pytest.mark.parametrize("value, mode", [("", "auto"), ("off", "off"), ("0", "off"), ("no", "off"), ("sync", "sync"),
                                         ("1", "auto"), ("ON", "auto")])
def test_frame_native_environment_spellings(monkeypatch, value, mode):
    monkeypatch.setenv("FRAME_NATIVE", value)
    assert tiers.mode_from_environment() == mode


def test_an_unknown_frame_native_value_warns_and_means_auto(monkeypatch):
    monkeypatch.setenv("FRAME_NATIVE", "fast")
    with pytest.warns(RuntimeWarning, match="FRAME_NATIVE"):
        assert tiers.mode_from_environment() == "auto"


FORK_SCRIPT = """
import os, sys
import numpy as np
import frame, frame.numpy as fnp
from frame.runtime import compile as compile_graph, set_native, tiers

set_native("auto", after_calls=10**9)
x = np.linspace(-1.0, 1.0, 64)
exe = compile_graph(frame.trace(lambda x: x * 2.25 + x * x, x))
want = exe(x)
exe._native_state = "queued"        # as if the builder had it queued, not yet built, at the fork
tiers.QUEUED.add(exe)
pid = os.fork()
if pid == 0:                        # the child has no builder thread: it must not wait forever
    ok = exe.wait_native(timeout=60) and exe.tier == "native" and np.array_equal(exe(x)[0], want[0])
    os._exit(0 if ok else 2)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
"""


@needs_cc
@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_a_forked_child_rebuilds_what_its_parent_had_queued(tmp_path):
    # In a fresh interpreter: forking the test process itself would fork JAX's threads too.
    import os
    import sys

    env = dict(os.environ, FRAME_CACHE_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", FORK_SCRIPT], env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
