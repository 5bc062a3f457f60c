"""Eager and compiled execution agree for every op in the registry (issue 12, item 5).

For each op, hypothesis draws operands and attributes (tests/ops/strategies.py: 0-size and size-1
axes, broadcasting, float32 and float64, any float values) and the test runs

  (a) the eager kernel: `bind(op, *arrays, **attrs)` on numpy arrays,
  (b) `frame.runtime.compile` of the traced single-op graph, on the numpy tier, and that graph
      lowered with no optimising stage (so the executor's own spelling of each op is checked too),
  (c) the same executable on the native tier (generated C kernels; when a C compiler exists),

and asserts the three results are equal bit for bit (nan matches nan: a nan's sign and payload are
out of contract, see frame/backends/native.py). Draws the op's shape rule rejects must raise a
`FrameError` subclass in both paths, never a numpy error.

Exclusions: see `EXCLUDED` in tests/ops/strategies.py. Tolerances: `ZERO_SIGN_FREE` only.
"""
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import frame
from frame import FrameError
from frame.frontend.tracer import bind
from frame.ops import all_ops
from frame.compiler.pipeline import PipelineOptions, lower
from frame.backends import native
from frame.backends.numpy import NUMPY
from frame.runtime import Executable, clear_cache, compile as compile_graph
from tests.ops.strategies import EXAMPLES, EXCLUDED

UINT = {"float32": np.uint32, "float64": np.uint64}
UNOPTIMISED = PipelineOptions(stages=())

# Ops compared by value, where +0.0 == -0.0 (every other bit, nans and infinities included, must match).
# Why: `canonicalize` turns a matmul-family op whose contracted dimension is 1 into a broadcast `mul`
# (see frame/compiler/passes/canonicalize.py); BLAS accumulates that one product from +0, so its
# (-1) @ 0 is +0.0 where the product is -0.0. Equal values, a documented pipeline choice.
ZERO_SIGN_FREE = {"matmul": "outer product as mul"}


@pytest.fixture(scope="module", autouse=True)
def _native_on_demand(native_on_demand):
    """Every test here runs with the shared fixture's policy and kernel cache."""


def assert_same_bits(got, want, context: str, zero_sign_free=False) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert (got.shape, got.dtype) == (want.shape, want.dtype), \
        f"{context}: {got.dtype}{list(got.shape)} vs eager {want.dtype}{list(want.shape)}"
    if want.dtype.name not in UINT:
        np.testing.assert_array_equal(got, want, err_msg=context)
        return
    g, w = np.ascontiguousarray(got).reshape(-1), np.ascontiguousarray(want).reshape(-1)
    differ = (g.view(UINT[want.dtype.name]) != w.view(UINT[want.dtype.name])) & ~(np.isnan(g) & np.isnan(w))
    if zero_sign_free:
        differ &= ~((g == 0) & (w == 0))
    bad = np.flatnonzero(differ)
    assert bad.size == 0, (f"{context}: {bad.size} element(s) differ from eager, e.g. {g[bad[:4]].tolist()} vs "
                           f"{w[bad[:4]].tolist()} at flat {bad[:4].tolist()}")


def _results(out) -> list:
    return list(out) if isinstance(out, tuple) else [out]


def _describe(op, inputs, attrs) -> str:
    shown = {k: (f"array{list(v.shape)}" if isinstance(v, np.ndarray) else v) for k, v in attrs.items()
             if k != "body"}
    return f"{op}({', '.join(f'{x.dtype}{list(x.shape)}' for x in inputs)}; {shown})"


def check_op(op: str, inputs: list, attrs: dict) -> None:
    context = _describe(op, inputs, attrs)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # numpy's "Mean of empty slice" and the like
        try:
            eager = _results(bind(op, *inputs, **attrs))
        except FrameError:
            eager = None
        except Exception as e:  # noqa: BLE001 - the finding this test exists for
            pytest.fail(f"eager {context} raised {type(e).__name__} (not a FrameError): {e}")
        try:
            graph = frame.trace(lambda *xs: bind(op, *xs, **attrs), *inputs)
            clear_cache()   # a cold executable: its first calls run the numpy tier
            exe = compile_graph(graph)
            on_numpy = exe(*inputs)
        except FrameError as e:
            assert eager is None, f"compiled {context} raised {type(e).__name__} but eager ran: {e}"
            return
        except Exception as e:  # noqa: BLE001
            pytest.fail(f"compiled {context} raised {type(e).__name__} (not a FrameError): {e}")
        assert eager is not None, f"eager {context} raised a FrameError but the compiled graph ran"
        assert exe.tier == "numpy"
        assert len(on_numpy) == len(eager), context
        for k, (got, want) in enumerate(zip(on_numpy, eager)):
            assert_same_bits(got, want, f"numpy tier, {context}, result {k}", op in ZERO_SIGN_FREE)
        # The executor's own spellings of ops, without the stages that rewrite them away first.
        unoptimised = Executable(lower(graph, UNOPTIMISED, NUMPY), source_graph=graph, options=UNOPTIMISED)(*inputs)
        for k, (got, want) in enumerate(zip(unoptimised, eager)):
            assert_same_bits(got, want, f"numpy tier without optimising stages, {context}, result {k}")
        if native.c_compiler() is not None and exe.wait_native(timeout=120):
            for k, (got, want) in enumerate(zip(exe(*inputs), eager)):
                assert_same_bits(got, want, f"native tier, {context}, result {k}", op in ZERO_SIGN_FREE)


def test_every_registered_op_has_a_strategy_or_a_reason():
    names = {op.name for op in all_ops()}
    assert names - set(EXAMPLES) - set(EXCLUDED) == set(), "ops without a strategy in tests/ops/strategies.py"
    assert set(EXAMPLES) | set(EXCLUDED) <= names, "strategies for ops that are not registered"


@pytest.mark.parametrize("op", sorted(EXAMPLES))
def test_eager_and_compiled_agree(op):
    @settings(max_examples=25, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
    @given(EXAMPLES[op])
    def agree(example):
        inputs, attrs = example
        check_op(op, inputs, attrs)

    agree()
