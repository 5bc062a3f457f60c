"""Complex numbers: real, imag, conj, angle and building complex values (issue 14 items 1 and 3)."""
from __future__ import annotations
