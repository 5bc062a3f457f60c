"""Cases for the numpy-agreement table (tests/frontend/test_numpy_agreement.py): `frame.numpy`
functions called as numpy's, against numpy itself.

Each family puts its cases in `tests/frontend/cases_<family>.py` as `CASES = [NumpyCase(...), ...]`;
they are collected here. Generate the operands with the helpers below so that every function meets
broadcasting, empty and size-1 axes, negative axes and each dtype it supports.
"""
from __future__ import annotations

import importlib
import pathlib
from dataclasses import dataclass, field
from typing import Callable

import numpy as np


@dataclass
class NumpyCase:
    name: str                                      # frame.numpy name, dotted for namespaces ("linalg.norm")
    make_args: Callable[[np.random.Generator], tuple]   # positional arguments (arrays and static values)
    kwargs: dict = field(default_factory=dict)
    label: str = ""
    reference: Callable | None = None              # default: numpy's function of the same (dotted) name
    wrt: tuple[int, ...] = ()                      # float positional arguments whose derivatives are checked
    rtol: float = 1e-12                            # float64 tolerances against numpy; float32 uses 1e-5
    atol: float = 1e-12

    @property
    def id(self) -> str:
        return f"{self.name}[{self.label}]" if self.label else self.name


def resolve(module, dotted: str):
    """`module.a.b` for the dotted name "a.b"."""
    obj = module
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def uniform(rng, shape, dtype="float64", lo=-1.0, hi=1.0):
    """Uniform values of `dtype` (ints and bools drawn to cover negatives, zeros and both truth values)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(int(lo * 5), int(hi * 5) + 1, shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.uniform(lo, hi, shape) + 1j * rng.uniform(lo, hi, shape)).astype(dtype)
    return rng.uniform(lo, hi, shape).astype(dtype)


# Shapes every elementwise/broadcasting function meets: same shape, broadcasting, size-1, empty, rank 0.
BROADCAST_SHAPES = [((3, 4), (3, 4), "same"), ((3, 4), (4,), "row"), ((2, 1, 4), (3, 1), "both"),
                    ((), (2, 3), "rank0"), ((0, 3), (3,), "empty"), ((1, 1), (1,), "size1")]
UNARY_SHAPES = [((3, 4), "2d"), ((), "rank0"), ((0, 2), "empty"), ((1, 3, 1), "size1")]


def _collect() -> list[NumpyCase]:
    cases = []
    here = pathlib.Path(__file__).parent
    for path in sorted(here.glob("cases_*.py")):
        cases.extend(importlib.import_module(f"tests.frontend.{path.stem}").CASES)
    return cases


ALL_CASES = _collect()
