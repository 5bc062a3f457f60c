"""frame.train.lbfgs: scipy's L-BFGS-B driven by frame's compiled value-and-gradient."""
import warnings

import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.errors import TrainingError
from frame.train import Adam, LBFGSResult, Trainer, lbfgs


def _problem(dtype=np.float64):
    rng = np.random.default_rng(7)
    x = np.linspace(-1, 1, 40, dtype=dtype).reshape(-1, 1)
    y = np.sin(3 * x).astype(dtype)
    params = {"w1": rng.normal(size=(1, 10)), "b1": np.zeros(10), "w2": rng.normal(size=(10, 1)) / np.sqrt(10),
              "b2": np.zeros(1)}
    return frame.tree_map(lambda a: a.astype(dtype), params), x, y


def mlp_loss(p, x, y):
    return fnp.mean((fnp.tanh(x @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"] - y) ** 2)


def test_lbfgs_beats_adam_on_the_same_gradient_budget():
    # Budget: 300 loss-and-gradient evaluations each. Measured: Adam (lr 3e-2, the better of
    # 1e-2 and 3e-2) ends at 1.6e-3; L-BFGS ends at 6.6e-7.
    params, x, y = _problem()
    adam = Trainer(mlp_loss, params, Adam(3e-2), progress=False)
    adam_loss = adam.run(300, x, y)[-1]
    result = lbfgs(mlp_loss, params, x, y, maxiter=1000, progress=False, options={"maxfun": 300})
    assert isinstance(result, LBFGSResult)
    assert result.nfev <= 300 + 25  # scipy may finish the line search it is in
    assert result.loss < 1e-2 * adam_loss
    # The reported loss is the loss at the returned params.
    np.testing.assert_allclose(float(frame.value_and_grad(mlp_loss)(result.params, x, y)[0]), result.loss,
                               rtol=1e-12)
    assert result.history[0] == pytest.approx(float(frame.value_and_grad(mlp_loss)(params, x, y)[0]))
    assert all(b <= a for a, b in zip(result.history, result.history[1:]))  # accepted iterates only descend
    assert len(result.history) == result.nit + 1


def test_adam_then_lbfgs_then_back_into_the_trainer():
    params, x, y = _problem()
    trainer = Trainer(mlp_loss, params, Adam(3e-2), progress=False)
    trainer.run(50, x, y)
    result = lbfgs(mlp_loss, trainer.params, x, y, maxiter=100, progress=False)
    assert result.loss < trainer.history[-1] and result.nit <= 100
    trainer.params = result.params
    assert trainer.step(x, y) == pytest.approx(result.loss, rel=1e-12)


def test_float32_params_evaluated_in_float64():
    params, x, y = _problem(np.float32)
    # Measured after 60 iterations: 5.7e-5 evaluating in float64, 5.0e-4 in float32 (from 0.289).
    result = lbfgs(mlp_loss, params, x, y, maxiter=60, dtype="float64", progress=False)
    assert all(a.dtype == np.float32 for a in frame.tree_leaves(result.params))
    plain = lbfgs(mlp_loss, params, x, y, maxiter=60, progress=False)  # float32 throughout also works
    assert result.loss < 2e-4 and plain.loss < 2e-3
    assert set(result.params) == set(params)


def test_compiles_once_and_shows_progress(capsys):
    params, x, y = _problem()
    misses = frame.runtime.cache_info().misses
    result = lbfgs(mlp_loss, params, x, y, maxiter=20, desc="lbfgs-fit")
    assert frame.runtime.cache_info().misses <= misses + 1
    err = capsys.readouterr().err
    assert "lbfgs-fit" in err and "loss=" in err
    assert result.nit == 20 and "ITERATIONS" in result.message.upper()


def test_converged_exactly_solvable_problem():
    # A quadratic with a known minimiser: L-BFGS finds it to near machine precision.
    target = np.array([1.0, -2.0, 3.0])
    result = lbfgs(lambda p: fnp.sum((p - target) ** 2), np.zeros(3), progress=False)
    assert result.success
    np.testing.assert_allclose(result.params, target, atol=1e-8)


def test_nonfinite_start_raises():
    with pytest.raises(TrainingError, match="initial parameters the loss is nan"):
        lbfgs(lambda p: fnp.sum(fnp.log(p - 1.0)), np.zeros(3), progress=False)
    with pytest.raises(TrainingError, match=r"gradient of parameter <root> float64\[2\] contains inf"):
        lbfgs(lambda p: fnp.sum(fnp.sqrt(p)), np.array([0.0, 1.0]), progress=False)


def test_callback_sees_each_reported_iterate_and_its_records_are_kept():
    """callback(iteration, params) every `every` iterations, params in the given dtypes; the loss at
    those params is the history's entry for that iteration; non-None returns land in `metrics`."""
    params, x, y = _problem(np.float32)
    seen = []

    def callback(iteration, p):
        assert all(a.dtype == np.float32 for a in frame.tree_leaves(p))
        seen.append(iteration)
        return {"loss": float(mlp_loss(p, x, y))} if iteration % 6 == 0 else None

    result = lbfgs(mlp_loss, params, x, y, maxiter=12, dtype="float64", progress=False, callback=callback, every=3)
    assert seen == list(range(3, result.nit + 1, 3)) and result.nit == 12
    assert [i for i, _ in result.metrics] == [6, 12]
    for i, record in result.metrics:
        np.testing.assert_allclose(record["loss"], result.history[i], rtol=1e-5)   # float32 params vs float64 loss
    with pytest.raises(frame.FrameError, match="every"):
        lbfgs(mlp_loss, params, x, y, maxiter=2, progress=False, callback=callback, every=0)


def _stalling_problem():
    # a loss whose float32 value stops changing (1 + a small fitted term) while the fit could go on
    rng = np.random.default_rng(0)
    A = rng.standard_normal((200, 20)).astype(np.float32)
    y = rng.standard_normal((200,)).astype(np.float32)

    def loss(p, A, y):
        r = fnp.tanh(A @ p["w"]) - 0.3 * y
        return fnp.mean(r * r) + 1.0

    return loss, {"w": np.zeros(20, np.float32)}, A, y


def test_a_float32_loss_that_stops_changing_is_said_with_the_way_on():
    loss, params, A, y = _stalling_problem()
    with pytest.warns(RuntimeWarning, match=r"stopped after \d+ of 500 iterations because the float32 loss "
                                            r"stopped changing.*dtype='float64'"):
        result = lbfgs(loss, params, A, y, maxiter=500, tol=1e-15, progress=False)
    assert result.nit < 500 and result.history[-1] == result.history[-2]
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # in float64 the same stop is convergence: nothing to say
        lbfgs(loss, params, A, y, maxiter=500, tol=1e-15, progress=False, dtype="float64")
