"""Shared test configuration."""
import os

import matplotlib

matplotlib.use("Agg")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

# `--hypothesis-profile=deep` runs every property test with 20x the examples (for bug hunts, not CI).
from hypothesis import settings  # noqa: E402

settings.register_profile("deep", max_examples=600, deadline=None)

import pytest  # noqa: E402


@pytest.fixture(scope="module")
def jax_x64():
    """JAX's x64 mode on for one test module, restored after it. (A module-level
    `jax.config.update("jax_enable_x64", True)` stays on for every test collected after it, so
    float32 tests elsewhere would silently compare against float64 JAX.)"""
    jax = pytest.importorskip("jax")
    previous = bool(jax.config.jax_enable_x64)
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", previous)
