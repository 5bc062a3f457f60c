"""frame's own float32 tanh (frame/ops/elementwise.py `tanh_f32`) and its C twin (`frame_tanhf` in
frame/runtime/native.py): accurate to 1.5 ulp, and the two give the same bits."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.ops.elementwise import own_tanh, tanh_f32
from frame.runtime import clear_cache, compile as compile_graph, native, set_native


def sweep() -> np.ndarray:
    """Float32 values across tanh's whole behaviour: tiny, the 0.625 branch point, the 10 cap, huge, specials."""
    rng = np.random.default_rng(7)
    parts = [rng.standard_normal(1 << 15) * scale for scale in (1e-30, 1e-6, 1e-2, 0.3, 0.6, 1.0, 3.0, 9.0, 30.0)]
    parts.append(np.linspace(-12.0, 12.0, 1 << 15))
    edges = [0.625, np.nextafter(np.float32(0.625), np.float32(0)), 10.0, 9.01, 20.0, 88.7, 1e30,
             np.finfo(np.float32).max, np.finfo(np.float32).tiny, np.finfo(np.float32).smallest_subnormal]
    parts.append(np.array(edges + [-e for e in edges]))
    return np.concatenate(parts).astype(np.float32)


def test_within_one_and_a_half_ulp_of_the_correctly_rounded_tanh():
    x = sweep()
    got = tanh_f32(x).astype(np.float64)
    exact = np.tanh(x.astype(np.float64))
    ulp = np.spacing(np.abs(exact.astype(np.float32))).astype(np.float64)
    ulp[ulp == 0] = np.finfo(np.float32).smallest_subnormal
    assert np.max(np.abs(got - exact) / ulp) <= 1.5


def test_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45], np.float32)
    y = tanh_f32(x)
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y, x[[0, 1, 0, 0, 4, 5, 6]] + np.float32([0, 0, 1, -1, 0, 0, 0]))
    assert np.signbit(y[1]) and not np.signbit(y[0])


def test_writes_into_out_even_when_out_is_x():
    x = sweep()[:4096].reshape(64, 64)
    want = tanh_f32(x)
    buf = x.copy()
    assert tanh_f32(buf, out=buf) is buf
    np.testing.assert_array_equal(buf, want)
    assert tanh_f32(np.float32(0.5)).shape == ()   # rank 0 too


@pytest.mark.skipif(not native.available(), reason="no C compiler (or FRAME_NATIVE=off): no C twin to compare")
def test_the_c_twin_gives_the_same_bits(monkeypatch, tmp_path):
    assert own_tanh()
    monkeypatch.setenv("FRAME_CACHE_DIR", str(tmp_path))
    previous = set_native("sync", after_calls=10**9)
    try:
        x = sweep()
        clear_cache()
        exe = compile_graph(frame.trace(lambda x: (fnp.tanh(x * 1.0), fnp.sigmoid(x)), x))
        numpy_tier = exe(x)
        assert exe.wait_native(timeout=120), exe.native_status
        assert "np_tanh" not in exe.active_source and "tanh_f32" not in exe.active_source  # both in kernels
        native_tier = exe(x)
    finally:
        set_native(**previous)
    for a, b in zip(native_tier, numpy_tier):
        both_nan = np.isnan(a) & np.isnan(b)
        assert np.array_equal(a.view(np.uint32)[~both_nan], b.view(np.uint32)[~both_nan])
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    np.testing.assert_array_equal(numpy_tier[0], tanh_f32(x))
