"""Trainer guards beyond NaN (issue 12): divergence without NaN stops training, NaN/Inf in data is named up front."""
import numpy as np
import pytest

import frame.numpy as fnp
from frame.errors import FrameError, InputError, TrainingError
from frame.train import DEFAULT_DIVERGENCE_FACTOR, SGD, Trainer, lbfgs


def square(params):
    return fnp.sum(params["x"] ** 2)


def test_divergence_without_nan_stops_with_the_step_and_the_losses():
    # SGD with lr 5 on x^2 maps x -> -9x: the loss grows 81x per step and stays finite for a long time.
    trainer = Trainer(square, {"x": np.array([1.0])}, SGD(5.0), progress=False)
    with pytest.raises(TrainingError) as info:
        trainer.run(50)
    message = str(info.value)
    assert info.value.step == 4  # losses 1, 81, 6561, then 531441 > 1 + 1e4 * 1
    assert "step 4" in message and "531441" in message and "first loss 1" in message
    assert "divergence_factor=10000" in message
    assert trainer.step_count == 3 and trainer.history == [1.0, 81.0, 6561.0]
    np.testing.assert_array_equal(trainer.params["x"], [-729.0])  # the params after step 3


def test_divergence_factor_is_configurable_and_none_turns_the_guard_off():
    assert DEFAULT_DIVERGENCE_FACTOR == 1e4
    strict = Trainer(square, {"x": np.array([1.0])}, SGD(5.0), progress=False, divergence_factor=10)
    with pytest.raises(TrainingError, match="step 2"):
        strict.run(50)
    off = Trainer(square, {"x": np.array([1.0])}, SGD(5.0), progress=False, divergence_factor=None)
    assert off.run(20)[-1] == pytest.approx(81.0 ** 19, rel=1e-12)  # rounding of 19 multiplications
    for bad in (0, -1.0, float("nan"), float("inf"), "big", True):
        with pytest.raises(FrameError, match="divergence_factor"):
            Trainer(square, {"x": np.array([1.0])}, SGD(0.1), progress=False, divergence_factor=bad)


def test_a_negative_first_loss_uses_its_magnitude():
    # loss = x^2 - 4 starts at -3; the limit is -3 + 10 * 3 = 27.
    def shifted(params):
        return fnp.sum(params["x"] ** 2) - 4.0

    trainer = Trainer(shifted, {"x": np.array([1.0])}, SGD(5.0), progress=False, divergence_factor=10)
    with pytest.raises(TrainingError, match=r"step 2: the loss 77 exceeds the first loss -3 .*limit 27"):
        trainer.run(10)


def linear_loss(params, x, y):
    return fnp.mean((x @ params["w"] - y) ** 2)


def _xy():
    rng = np.random.default_rng(0)
    return rng.normal(size=(48, 2)), rng.normal(size=(48, 1))


def test_nan_in_data_is_named_with_its_argument_and_index():
    x, y = _xy()
    x[3, 0] = np.nan
    trainer = Trainer(linear_loss, {"w": np.zeros((2, 1))}, SGD(0.1), progress=False)
    with pytest.raises(InputError, match=r"data argument 1 \(x\) float64\[48, 2\] holds nan at index \(3, 0\)"):
        trainer.step(x, y)
    x[3, 0] = 0.0
    y[7, 0] = -np.inf
    with pytest.raises(InputError, match=r"data argument 2 \(y\) float64\[48, 1\] holds inf at index \(7, 0\)"):
        trainer.run(5, x, y)
    assert trainer.step_count == 0 and trainer.history == []
    y[7, 0] = 0.0
    assert len(trainer.run(3, x, y)) == 3


def test_nan_in_a_pytree_data_argument_names_the_leaf():
    def loss(params, batch):
        return fnp.mean((batch["x"] @ params["w"] - batch["y"]) ** 2)

    x, y = _xy()
    y[0, 0] = np.nan
    trainer = Trainer(loss, {"w": np.zeros((2, 1))}, SGD(0.1), progress=False)
    expected = r"data argument 1 \(batch\['y'\]\) float64\[48, 1\] holds nan at index \(0, 0\)"
    with pytest.raises(InputError, match=expected):
        trainer.step({"x": x, "y": y})


def test_new_minibatches_are_checked_each_time():
    x, y = _xy()
    trainer = Trainer(linear_loss, {"w": np.zeros((2, 1))}, SGD(0.1), progress=False)
    for i in range(0, 40, 8):
        trainer.step(x[i:i + 8], y[i:i + 8])
    x[44, 1] = np.nan
    with pytest.raises(InputError, match=r"holds nan at index \(4, 1\)"):
        trainer.step(x[40:48], y[40:48])


def test_lbfgs_checks_its_data_too():
    x, y = _xy()
    x[5, 1] = np.inf
    with pytest.raises(InputError, match=r"data argument 1 \(x\) float64\[48, 2\] holds inf at index \(5, 1\)"):
        lbfgs(linear_loss, {"w": np.zeros((2, 1))}, x, y, maxiter=5, progress=False)


def test_a_nan_loss_from_an_empty_batch_names_the_empty_data_argument():
    # mean over no elements is nan (as in numpy); the error says which data argument was empty
    trainer = Trainer(lambda p, x, y: fnp.mean((x @ p["w"] - y) ** 2), {"w": np.ones((3, 2))}, SGD(0.1), progress=False)
    with pytest.raises(TrainingError, match=r"loss is nan; data argument 1 \(x\) float64\[0, 3\] is empty"):
        trainer.step(np.zeros((0, 3)), np.int32(0))
    np.testing.assert_array_equal(trainer.params["w"], np.ones((3, 2)))
