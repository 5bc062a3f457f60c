"""Shared test configuration."""
import os

import matplotlib

matplotlib.use("Agg")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

# `--hypothesis-profile=deep` runs every property test with 20x the examples (for bug hunts, not CI).
from hypothesis import settings  # noqa: E402

settings.register_profile("deep", max_examples=600, deadline=None)
