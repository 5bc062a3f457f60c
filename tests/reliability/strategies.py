"""Hypothesis strategies for the reliability suite: the good, bad and odd values a user passes in.

Values range over every dtype a user might have (including ones frame does not support), empty and
size-1 axes, non-finite elements, Python scalars, ragged lists and objects that are not data at all.
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

SUPPORTED_FLOATS = ("float32", "float64")
ALL_DTYPES = ("float32", "float64", "int32", "int64", "bool", "float16", "complex128", "uint8")

#: Things that are not numeric data at all.
JUNK = (None, "abc", b"xy", object(), {"a": 1.0}, [1.0, [2.0, 3.0]], print)


def shapes(min_rank: int = 0, max_rank: int = 3, max_side: int = 3):
    """Shapes with empty and size-1 axes among the sides."""
    return st.lists(st.integers(0, max_side), min_size=min_rank, max_size=max_rank).map(tuple)


def _elements(dtype: str):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        width = 16 if dt.itemsize == 2 else 32 if dt.itemsize == 4 else 64
        return st.floats(-4, 4, width=width) | st.sampled_from([np.nan, np.inf, -np.inf, 0.0, -0.0])
    if dt.kind == "c":
        return st.complex_numbers(max_magnitude=4, allow_nan=False)
    if dt.kind == "b":
        return st.booleans()
    return st.integers(-3, 3) if dt.kind == "i" else st.integers(0, 3)


def arrays(dtypes=ALL_DTYPES, shape=None, **shape_kw):
    """numpy arrays of the given dtypes; `shape` fixes the shape, else `shapes(**shape_kw)`."""
    shape_st = st.just(shape) if shape is not None else shapes(**shape_kw)
    return st.sampled_from(dtypes).flatmap(
        lambda dt: hnp.arrays(np.dtype(dt), shape_st, elements=_elements(dt)))


def finite_arrays(dtypes=SUPPORTED_FLOATS, shape=None, **shape_kw):
    """Float arrays of supported dtypes with finite, moderate elements (for checking numbers)."""
    shape_st = st.just(shape) if shape is not None else shapes(**shape_kw)
    return st.sampled_from(dtypes).flatmap(
        lambda dt: hnp.arrays(np.dtype(dt), shape_st, elements=st.floats(-3, 3, width=32)))


def operands(**shape_kw):
    """Anything a user may pass as an operand: arrays of any dtype, Python scalars, lists, junk."""
    return st.one_of(
        arrays(**shape_kw),
        arrays(**shape_kw),  # arrays twice as likely as the rest
        st.floats(-3, 3) | st.integers(-3, 3) | st.booleans(),
        st.lists(st.floats(-3, 3), max_size=3),
        st.sampled_from(JUNK),
    )


def axis_args(max_rank: int = 3):
    """`axis=` arguments: None, ints in and out of range, tuples (maybe repeated), and nonsense."""
    ints = st.integers(-max_rank - 1, max_rank)
    return st.one_of(st.none(), ints, st.lists(ints, max_size=3).map(tuple), st.sampled_from(["0", 1.5, [0]]))


def describe(x) -> str:
    if isinstance(x, np.ndarray):
        return f"array({x.dtype}, {x.shape})"
    return repr(x)
