"""Training on generated data: a step either matches the eager loss or raises a FrameError naming the
data argument (non-finite values, shapes and dtypes that do not fit), and params stay untouched."""
from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import frame.numpy as fnp
from frame.train import SGD, Trainer

from .checks import assert_clear_error, call, property_settings
from .strategies import arrays, describe, operands

SETTINGS = property_settings(40)


def _loss(params, x, y):
    return fnp.mean((fnp.tanh(x @ params["w"]) - y) ** 2)


PARAMS = {"w": np.linspace(-1, 1, 6).reshape(3, 2)}


@SETTINGS
@given(x=st.one_of(arrays(dtypes=("float64",), shape=(5, 3)), arrays(dtypes=("float64", "float32", "int64")),
                   operands()),
       y=st.one_of(arrays(dtypes=("float64",), shape=(5, 2)), operands()))
def test_a_step_matches_the_eager_loss_or_names_the_data(x, y):
    trainer = Trainer(_loss, PARAMS, SGD(0.1), progress=False)
    before = {k: v.copy() for k, v in trainer.params.items()}
    kind, got = call(lambda: trainer.step(x, y))
    context = f"Trainer.step({describe(x)}, {describe(y)})"
    if kind == "error":
        assert_clear_error(got, context, ["data", "argument", "input", "operand", "shape", "dtype"])
        for k in before:
            np.testing.assert_array_equal(trainer.params[k], before[k], err_msg=f"{context} changed params")
        return
    finite = all(isinstance(a, np.ndarray) and np.isfinite(a).all() for a in (x, y) if isinstance(a, np.ndarray))
    assert finite, f"{context}: non-finite data was trained on (loss {got})"
    with np.errstate(all="ignore"):
        eager = float(_loss(before, np.asarray(x), np.asarray(y)))
    np.testing.assert_allclose(got, eager, rtol=1e-12, err_msg=context)
