"""argnums and vjp cotangents are checked by name (issue 12, item 12)."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame import GradientError


def test_an_argument_named_twice_in_argnums_is_refused():
    with pytest.raises(GradientError, match="argnums .* twice"):
        frame.grad(lambda x, y: fnp.sum(x * y), argnums=(0, -2))(np.ones(2), np.ones(2))


@pytest.mark.parametrize("ct", [np.ones((), np.uint8), "abc", None, np.ones(3, np.float32)])
def test_a_bad_cotangent_names_the_cotangent(ct):
    _, vjp_fn = frame.vjp(lambda v: fnp.sin(v), np.ones(3))
    with pytest.raises(GradientError, match="cotangent"):
        vjp_fn(ct)


def test_adam_checks_its_hyperparameters_when_built():
    from frame.train import Adam
    for kwargs in ({"b1": 0.0}, {"b2": 1.0}, {"eps": -1.0}, {"b1": "x"}):
        with pytest.raises(frame.FrameError, match="Adam"):
            Adam(1e-3, **kwargs)
