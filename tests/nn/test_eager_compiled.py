"""Eager and compiled execution of the conv family agree bit for bit (issue 12's check, for these ops).

tests/runtime/test_eager_compiled_agree.py runs `check_op` over the strategies of tests/ops/strategies.py;
the conv family's strategies live in tests/ops/cases_conv.py (`STRATEGIES`) and run here through the same
`check_op`: eager kernel, numpy tier, numpy tier without optimising stages, native tier, equal bits or the
same FrameError in both paths for draws the shape rule refuses.
"""
import pytest
from hypothesis import HealthCheck, given, settings

import frame
from frame.runtime import set_native
import tests.ops.cases  # noqa: F401  (collects the case modules first: cases_conv imports it)
from tests.ops.cases_conv import STRATEGIES
from tests.runtime.test_eager_compiled_agree import check_op


@pytest.fixture(scope="module", autouse=True)
def _native_on_demand(tmp_path_factory):
    """As tests/runtime/conftest.py: a fresh kernel cache, executables on numpy until `wait_native`."""
    assert frame.runtime.wait_native_builds(120), "the native builder thread is stuck"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FRAME_CACHE_DIR", str(tmp_path_factory.mktemp("frame-cache")))
        previous = set_native("sync", after_calls=10**9)
        try:
            yield
        finally:
            set_native(**previous)


@pytest.mark.parametrize("op", sorted(STRATEGIES))
def test_eager_and_compiled_agree(op):
    @settings(max_examples=25, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
    @given(STRATEGIES[op])
    def agree(example):
        inputs, attrs = example
        check_op(op, inputs, attrs)

    agree()
