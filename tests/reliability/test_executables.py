"""Compiled executables called with generated inputs: right ones give numpy's numbers, wrong ones an
`InputError` naming the input's position and the expected and actual types."""
from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import frame
import frame.numpy as fnp

from .checks import assert_clear_error, assert_same_numbers, call, property_settings
from .strategies import arrays, describe, operands

SETTINGS = property_settings(60)


def _model(x, w):
    return fnp.tanh(x @ w), fnp.sum(x)


EXE = frame.runtime.compile(frame.trace(_model, frame.ShapeDtype((4, 3), "float32"), frame.ShapeDtype((3, 2), "float32")))
EXPECTED = [((4, 3), np.float32), ((3, 2), np.float32)]


def _good(x, i):
    shape, dtype = EXPECTED[i]
    return isinstance(x, np.ndarray) and x.shape == shape and x.dtype == dtype


@SETTINGS
@given(inputs=st.lists(st.one_of(arrays(dtypes=("float32", "float64", "int64", "float16")),
                                 arrays(dtypes=("float32",), shape=(4, 3)), arrays(dtypes=("float32",), shape=(3, 2)),
                                 operands()), max_size=3))
def test_executable_checks_every_input(inputs):
    kind, got = call(lambda: EXE(*inputs))
    context = f"executable({', '.join(map(describe, inputs))})"
    if len(inputs) == 2 and all(_good(x, i) for i, x in enumerate(inputs)):
        assert kind == "ok", f"{context}: {got!r}"
        y, s = got
        with np.errstate(all="ignore"):
            assert_same_numbers(s, inputs[0].sum(dtype=np.float32), context)
            np.testing.assert_allclose(y, np.tanh(inputs[0] @ inputs[1]), rtol=2e-6, atol=1e-6, equal_nan=True)
        return
    assert kind == "error", f"{context} was accepted: {got!r}"
    assert isinstance(got, frame.InputError), f"{context}: {got!r}"
    assert_clear_error(got, context, ["input", "argument", "expected"])
    if len(inputs) == 2:
        bad = next(i for i, x in enumerate(inputs) if not _good(x, i))
        assert got.position == bad, f"{context}: InputError.position {got.position}, the first bad input is {bad}"


@SETTINGS
@given(x=arrays(dtypes=("float32",), shape=(4, 3)), order=st.sampled_from(["C", "F", "strided", "swapped"]))
def test_executable_accepts_any_layout_of_the_right_type(x, order):
    w = np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2)
    if order == "F":
        x = np.asfortranarray(x)
    elif order == "strided":
        x = np.repeat(x, 2, axis=1)[:, ::2]
    elif order == "swapped":
        x = x.astype(x.dtype.newbyteorder())
    kind, got = call(lambda: EXE(x, w))
    assert kind == "ok", f"{order}: {got!r}"
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(got[0], np.tanh(np.asarray(x, np.float32) @ w), rtol=2e-6, atol=1e-6,
                                   equal_nan=True)
