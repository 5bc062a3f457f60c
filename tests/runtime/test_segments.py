"""Native segments (frame/backends/segments.py): runs of native steps, BLAS matmuls included, as one C
call, with the numpy tier's bits."""
from __future__ import annotations

import itertools
import os

import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.backends import native, segments
from frame.runtime import RowPolicy, clear_cache, compile as compile_graph, set_native
from tests.workloads import pinn_problem, pinn_step_fn

needs_cc = pytest.mark.skipif(native.c_compiler() is None, reason="no C compiler: no native tier")
needs_blas = pytest.mark.skipif(not segments.blas_functions(), reason="numpy's BLAS was not found by threadpoolctl")


@pytest.fixture(autouse=True)
def sync_native(monkeypatch, tmp_path):
    monkeypatch.setenv("FRAME_CACHE_DIR", str(tmp_path))
    previous = set_native("sync", after_calls=10**9)
    yield
    set_native(**previous)


def numpy_then_native(fn, *args):
    """(numpy-tier results, native-tier results, native source) of `fn` compiled whole."""
    clear_cache()
    exe = compile_graph(frame.trace(fn, *args), rows=RowPolicy(1, 0))
    leaves = frame.tree_leaves(args)
    first = exe(*leaves)
    assert exe.wait_native(120), exe.native_status
    return first, exe(*leaves), exe.active_source


def assert_same_bits(want, got):
    assert len(want) == len(got)
    for a, b in zip(want, got):
        a, b = np.atleast_1d(a), np.atleast_1d(b)
        assert a.shape == b.shape and a.dtype == b.dtype
        assert np.array_equal(a.view(np.uint8), b.view(np.uint8)), f"max diff {np.max(np.abs(a - b))}"


def calls(source: str, prefix: str) -> int:
    return sum(1 for line in source.splitlines() if line.strip().startswith(prefix))


@needs_cc
@needs_blas
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_pinn_steps_segments_give_the_numpy_tiers_bits(dtype):
    params, x, xb, f = pinn_problem(np.random.default_rng(0), (1, 16, 16, 1), 128, bias_scale=0.5)
    cast = lambda a: np.asarray(a, dtype)  # noqa: E731
    args = ([(cast(w), cast(b)) for w, b in params], cast(x), cast(xb), cast(f))
    want, got, source = numpy_then_native(pinn_step_fn(1e-3), *args)
    assert_same_bits(want, got)
    assert calls(source, "seg") >= 1
    assert "np_tanh(" not in source and "np_add_reduce(" not in source   # numpy's loops, called from C
    # most matmuls moved into segments: only those of shapes numpy computes otherwise stay numpy calls
    assert source.count("np_matmul(") <= 3


@needs_cc
@needs_blas
@pytest.mark.parametrize("m, n, k", [(33, 17, 5), (40, 1, 9), (1, 12, 30), (6, 6, 1), (1, 1, 8)])
@pytest.mark.parametrize("ta, tb", list(itertools.product([False, True], repeat=2)))
def test_matmuls_of_every_layout_keep_numpys_bits(m, n, k, ta, tb):
    rng = np.random.default_rng(m * 100 + n * 10 + k)
    a = rng.standard_normal((k, m) if ta else (m, k)).astype(np.float32)
    b = rng.standard_normal((n, k) if tb else (k, n)).astype(np.float32)
    c = rng.standard_normal((m, n)).astype(np.float32)

    def fn(a, b, c):
        p = (a.T if ta else a) @ (b.T if tb else b)
        return (p * c + 1.0) * c - p, p
    want, got, source = numpy_then_native(fn, a, b, c)
    assert_same_bits(want, got)
    call = segments.blas_call("float32", m, n, k, ta, tb)
    if m > 1 and n > 1:
        assert call is not None and call[0] == "gemm"
    elif m != n:   # numpy's matmul calls gemv for matrix-vector products; tried first
        assert call is not None and call[0] == "gemv"


@needs_cc
def test_without_numpys_blas_segments_hold_only_kernels(monkeypatch):
    monkeypatch.setattr(segments, "blas_functions", lambda: {})
    segments.blas_call.cache_clear()
    try:
        params, x, xb, f = pinn_problem(np.random.default_rng(1), (1, 8, 8, 1), 64)
        want, got, source = numpy_then_native(pinn_step_fn(1e-3), params, x, xb, f)
    finally:
        segments.blas_call.cache_clear()
    assert_same_bits(want, got)
    assert source.count("np_matmul(") >= 10


@needs_cc
def test_segments_can_be_turned_off(monkeypatch):
    monkeypatch.setitem(native.SEGMENTS, "on", False)
    x = np.random.default_rng(2).standard_normal((20, 4))
    w = np.random.default_rng(3).standard_normal((4, 4))
    want, got, source = numpy_then_native(lambda x, w: fnp.sqrt(fnp.square(x @ w) + 1.0) * 2.0 - x, x, w)
    assert_same_bits(want, got)
    assert calls(source, "seg") == 0


@needs_cc
@needs_blas
def test_views_of_inputs_and_fresh_results_feed_segments():
    rng = np.random.default_rng(4)
    x, w, b = rng.standard_normal((30, 6)), rng.standard_normal((6, 6)), rng.standard_normal(6)

    def fn(x, w, b):
        h = x @ w + fnp.reshape(b, (1, 6))           # a view of an input inside the run
        s = fnp.sum(h, axis=0, keepdims=True)        # a numpy reduction: a fresh result
        return (h - s) @ w * 0.5 + h, s
    want, got, source = numpy_then_native(fn, x, w, b)
    assert_same_bits(want, got)
    assert calls(source, "seg") >= 1


@needs_cc
@needs_blas
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_transcendental_ufuncs_run_in_segments_through_numpys_own_loops(dtype):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((40, 8)) * 3).astype(dtype)
    x[0, :6] = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-30]
    w = rng.standard_normal((8, 8)).astype(dtype)

    def fn(x, w):
        h = fnp.tanh(x @ w)
        return fnp.exp(h) * fnp.sin(h @ w) + fnp.cos(h) - fnp.log(fnp.square(h) + 1.0)
    with np.errstate(all="ignore"):
        want, got, source = numpy_then_native(fn, x, w)
    assert_same_bits(want, got)
    for op in ("tanh", "exp", "sin", "cos", "log"):
        assert segments.numpy_loop(op, np.dtype(dtype).name) is not None, op
        assert f"np_{op}(" not in source, op     # called from C inside a segment
    assert calls(source, "seg") == 1


def test_numpy_loops_are_found_only_for_unary_ops_without_a_c_expression():
    table = dict.fromkeys(op for op, _ in segments.loop_table())
    assert {"tanh", "exp", "log", "sin", "cos"} <= set(table)
    assert not {"add", "mul", "sqrt", "neg"} & set(table)         # exact C expressions: kernels, not loops
    assert segments.numpy_loop("tanh", "int32") is None


@needs_cc
@needs_blas
@pytest.mark.parametrize("shape", [(37, 5), (512, 64), (3, 2), (1, 7)])
def test_sums_over_rows_run_in_segments_with_numpys_bits(shape):
    rng = np.random.default_rng(shape[0])
    g = (rng.standard_normal(shape) * np.exp(rng.uniform(-5, 5, shape))).astype(np.float32)
    g[:, 0] = -0.0                                     # numpy adds into +0.0: the column sums to +0.0
    w = rng.standard_normal((shape[1], shape[1])).astype(np.float32)

    def fn(g, w):
        h = g @ w
        return fnp.sum(h * 2.0, axis=0), fnp.sum(h - 1.0, axis=0, keepdims=True) @ w
    want, got, source = numpy_then_native(fn, g, w)
    assert_same_bits(want, got)
    assert "np_add_reduce" not in source
    assert segments.colsum_shape("float32", *shape)


def test_a_sum_over_one_column_stays_numpys_pairwise_sum():
    assert not segments.colsum_shape("float32", 1000, 1)     # a contiguous 1-D sum: numpy adds pairwise
    assert not segments.colsum_shape("int32", 10, 10)


def _numpy_blas_dirs() -> list[str]:
    """The folders a numpy wheel ships its BLAS in (numpy.libs/ beside the package, numpy/.dylibs/), those present."""
    package = os.path.dirname(os.path.realpath(np.__file__))
    return [d for d in (os.path.join(os.path.dirname(package), "numpy.libs"), os.path.join(package, ".dylibs"))
            if os.path.isdir(d)]


class _FakeLibrary:
    def __init__(self, filepath):
        self.filepath = filepath


@pytest.mark.parametrize("scipy_first", [True, False])
def test_numpy_blas_is_numpys_own_library_whatever_order_threadpoolctl_lists(monkeypatch, scipy_first):
    # threadpoolctl listed scipy's bundled OpenBLAS before numpy's in about half the processes; taking
    # the first left numpy's BLAS with its spinning threads (a KdV step 3x slower).
    import threadpoolctl

    site = os.path.dirname(os.path.dirname(os.path.realpath(np.__file__)))
    ours = _FakeLibrary(os.path.join(site, "numpy.libs", "libscipy_openblas64_-x.so"))
    theirs = _FakeLibrary(os.path.join(site, "scipy.libs", "libscipy_openblas-y.so"))
    listed = [theirs, ours] if scipy_first else [ours, theirs]

    class FakeController:
        def select(self, user_api):
            assert user_api == "blas"
            return type("Selection", (), {"lib_controllers": listed})()

    monkeypatch.setattr(threadpoolctl, "ThreadpoolController", FakeController)
    segments.numpy_blas_controllers.cache_clear()
    try:
        assert segments.numpy_blas_controllers() == (ours,)
        listed[:] = [theirs]   # a system numpy shipping no BLAS of its own: every BLAS found
        segments.numpy_blas_controllers.cache_clear()
        assert segments.numpy_blas_controllers() == (theirs,)
    finally:
        segments.numpy_blas_controllers.cache_clear()


def test_numpy_blas_of_this_install_is_the_library_numpy_ships():
    found = segments.numpy_blas_controllers()
    if not found:
        pytest.skip("threadpoolctl finds no BLAS")
    shipped = _numpy_blas_dirs()
    if not shipped:
        pytest.skip("this numpy ships no BLAS of its own")
    assert len(found) == 1 and os.path.dirname(os.path.realpath(found[0].filepath)) in shipped


def test_every_process_controls_numpys_blas_whatever_its_hash_seed():
    # threadpoolctl's order of the BLAS libraries followed the process's string hashing: with
    # PYTHONHASHSEED 1, 3, 5 frame took scipy's bundled OpenBLAS and left numpy's threads spinning.
    import subprocess
    import sys

    shipped = _numpy_blas_dirs()
    if not shipped:
        pytest.skip("this numpy ships no BLAS of its own")
    code = ("import scipy.linalg, frame\n"   # scipy's own BLAS loaded too, as pinn's imports load it
            "from frame.runtime import blas\n"
            "c = blas._blas_threads()\n"
            "print(c.filepath if c is not None else '')\n")
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                             cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
        assert out.returncode == 0, out.stderr
        path = os.path.realpath(out.stdout.strip())
        assert os.path.dirname(path) in shipped, f"PYTHONHASHSEED={seed}: frame controls {path}"
