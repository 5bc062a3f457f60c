"""Indexing ops: gather and scatter (integer-array indexing, take, functional updates `x.at[...]`)."""
from __future__ import annotations
