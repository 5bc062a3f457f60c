"""`frame.numpy.linalg`: linear algebra under numpy's names."""
from __future__ import annotations

from types import SimpleNamespace

__all__: list[str] = []  # 'linalg' joins once it holds functions


linalg = SimpleNamespace()
