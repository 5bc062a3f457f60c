"""Fixtures shared by the runtime tests."""
import pytest

import frame
from frame.runtime import set_native


@pytest.fixture(scope="module")
def native_on_demand(tmp_path_factory):
    """A fresh disk cache for the module's built kernels, and the "sync" policy with a call count no
    test reaches: executables stay on numpy until a test calls `wait_native` (or sets its own policy)."""
    # No build queued by an earlier test may write into this module's cache.
    assert frame.runtime.wait_native_builds(120), "the native builder thread is stuck"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FRAME_CACHE_DIR", str(tmp_path_factory.mktemp("frame-cache")))
        previous = set_native("sync", after_calls=10**9)
        try:
            yield
        finally:
            set_native(**previous)
