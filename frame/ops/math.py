"""Elementwise math beyond arithmetic: trigonometric, hyperbolic, exponential and logarithmic
functions, rounding, division with remainder, special functions (issue 14 item 3)."""
from __future__ import annotations
