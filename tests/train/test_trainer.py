"""frame.train.Trainer: stepping, optimisers, schedules, the NaN guard, callbacks, progress and bad input."""
from collections import namedtuple

import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.errors import FrameError, GradientError, InputError, TrainingError
from frame.train import SGD, Adam, Trainer


def _data(seed=0, n=48):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, size=(n, 2))
    y = np.sin(2 * x[:, :1]) * x[:, 1:]
    return x, y


def _init(seed=1, hidden=12):
    rng = np.random.default_rng(seed)
    return {"hidden": {"w": rng.normal(size=(2, hidden)), "b": np.zeros(hidden)},
            "out": [rng.normal(size=(hidden, 1)) / np.sqrt(hidden), np.zeros(1)]}


def mlp_loss(params, x, y):
    h = fnp.tanh(x @ params["hidden"]["w"] + params["hidden"]["b"])
    w, b = params["out"]
    return fnp.mean((h @ w + b - y) ** 2)


def test_adam_trains_a_pytree_of_params():
    x, y = _data()
    trainer = Trainer(mlp_loss, _init(), Adam(2e-2), progress=False)
    losses = trainer.run(300, x, y)
    assert len(losses) == 300 and trainer.history == losses and trainer.step_count == 300
    assert losses[-1] < 0.05 * losses[0]
    params = trainer.params
    assert set(params) == {"hidden", "out"} and isinstance(params["out"], list)
    assert params["hidden"]["w"].shape == (2, 12)
    # The reported loss of a step is the loss before its update: re-evaluating at the final params
    # gives a value below the last recorded one.
    value = frame.value_and_grad(mlp_loss)(params, x, y)[0]
    assert float(value) < losses[-1]


def test_step_matches_value_and_grad_and_the_sgd_rule():
    x, y = _data()
    params = _init()
    loss, grads = frame.value_and_grad(mlp_loss)(params, x, y)
    trainer = Trainer(mlp_loss, params, SGD(0.5), progress=False)
    assert trainer.step(x, y) == float(loss)
    expected = frame.tree_map(lambda p, g: p - 0.5 * g, params, grads)
    for got, want in zip(frame.tree_leaves(trainer.params), frame.tree_leaves(expected)):
        np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15)


def test_caller_params_are_not_modified():
    x, y = _data()
    params = _init()
    before = [p.copy() for p in frame.tree_leaves(params)]
    Trainer(mlp_loss, params, SGD(0.1), progress=False).run(3, x, y)
    for a, b in zip(frame.tree_leaves(params), before):
        np.testing.assert_array_equal(a, b)


def test_lr_schedule_is_a_graph_input_and_never_recompiles():
    x, y = _data()
    seen = []

    def schedule(step):
        seen.append(step)
        return 0.05 * 0.99 ** step

    trainer = Trainer(mlp_loss, _init(), Adam(schedule), progress=False)
    trainer.step(x, y)
    misses = frame.runtime.cache_info().misses
    trainer.run(20, x, y)
    assert frame.runtime.cache_info().misses == misses
    assert seen == list(range(21))  # step index of each update, from 0


def test_constant_schedule_equals_baked_lr_bit_for_bit():
    x, y = _data()
    baked = Trainer(mlp_loss, _init(), Adam(0.01), progress=False)
    fed = Trainer(mlp_loss, _init(), Adam(lambda step: 0.01), progress=False)
    assert baked.run(10, x, y) == fed.run(10, x, y)
    for a, b in zip(frame.tree_leaves(baked.params), frame.tree_leaves(fed.params)):
        np.testing.assert_array_equal(a, b)


def test_new_data_shape_compiles_once_more_then_hits():
    x, y = _data()
    trainer = Trainer(mlp_loss, _init(), SGD(0.1), progress=False)
    trainer.step(x, y)
    misses = frame.runtime.cache_info().misses
    x2, y2 = _data(seed=5, n=20)
    trainer.step(x2, y2)
    trainer.step(x2, y2)
    trainer.step(x, y)
    assert frame.runtime.cache_info().misses == misses + 1


def test_nonfinite_loss_stops_with_the_step_and_keeps_last_finite_params():
    # A quartic with a too-large SGD step diverges on purpose: |x| grows like x^3 until overflow.
    def quartic(params):
        return fnp.sum(params["x"] ** 4)

    start = {"x": np.array([1.5, -0.5])}
    trainer = Trainer(quartic, start, SGD(0.5), progress=False)
    with pytest.raises(TrainingError) as info:
        trainer.run(100, callback=None)
    err = info.value
    failed = err.step
    assert f"step {failed}" in str(err)
    assert trainer.step_count == failed - 1 and len(trainer.history) == failed - 1
    assert all(np.isfinite(trainer.history))
    x = trainer.params["x"]
    assert np.isfinite(x).all()
    # Those are exactly the params after step failed-1 of an identical run.
    replay = Trainer(quartic, start, SGD(0.5), progress=False)
    replay.run(failed - 1)
    np.testing.assert_array_equal(replay.params["x"], x)


def test_nonfinite_gradient_names_the_parameter():
    # sqrt at 0 has an infinite derivative while the loss itself stays finite.
    def loss(params):
        return fnp.sum(fnp.sqrt(params["a"])) + fnp.sum(params["b"] ** 2)

    trainer = Trainer(loss, {"a": np.array([1.0, 0.0]), "b": np.ones(2)}, SGD(0.1), progress=False)
    with pytest.raises(TrainingError, match=r"step 1: the gradient of parameter \['a'\] float64\[2\] contains inf"):
        trainer.step()
    np.testing.assert_array_equal(trainer.params["a"], [1.0, 0.0])
    assert trainer.step_count == 0


def test_callback_metrics_every_k_steps():
    x, y = _data()
    calls = []

    def callback(step, params):
        calls.append(step)
        if step == 20:
            return None  # nothing recorded
        return {"w_norm": float(np.linalg.norm(params["hidden"]["w"])), "step_seen": step}

    trainer = Trainer(mlp_loss, _init(), Adam(1e-2), progress=False)
    trainer.run(25, x, y, callback=callback, every=10)
    trainer.run(15, x, y, callback=callback, every=10)
    assert calls == [10, 20, 30, 40]
    assert [s for s, _ in trainer.metrics] == [10, 30, 40]
    assert all(m["step_seen"] == s for s, m in trainer.metrics)


def test_progress_bar_shows_the_loss(capsys):
    x, y = _data()
    trainer = Trainer(mlp_loss, _init(), SGD(0.1), progress=True, desc="fit")
    trainer.run(5, x, y)
    err = capsys.readouterr().err
    assert "fit" in err and "loss=" in err and "5/5" in err


def test_namedtuple_and_float32_params():
    Layer = namedtuple("Layer", ["w", "b"])
    rng = np.random.default_rng(0)
    params = Layer(rng.normal(size=(3, 1)).astype(np.float32), np.zeros(1, np.float32))
    x = rng.normal(size=(16, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32))

    def linear_loss(p, x, y):
        return fnp.mean((x @ p.w + p.b - y) ** 2)

    trainer = Trainer(linear_loss, params, Adam(5e-2), progress=False)
    losses = trainer.run(200, x, y)
    assert isinstance(trainer.params, Layer) and trainer.params.w.dtype == np.float32
    assert losses[-1] < 1e-3 * losses[0]


def test_loss_with_a_nested_derivative_trains():
    # A PINN-style residual: d/dx of the model inside the loss (grad inlined into the trace).
    x = np.linspace(0, 1, 16).reshape(-1, 1)

    def model(p, x):
        return fnp.tanh(x @ p["w"] + p["b"]) @ p["v"]

    def loss(p, x):
        du = frame.grad(lambda xx: fnp.sum(model(p, xx)))(x)
        return fnp.mean((du - 1.0) ** 2)  # want u' = 1

    rng = np.random.default_rng(4)
    params = {"w": rng.normal(size=(1, 8)), "b": rng.normal(size=8), "v": rng.normal(size=(8, 1)) * 0.3}
    trainer = Trainer(loss, params, Adam(2e-2), progress=False)
    losses = trainer.run(200, x)
    assert losses[-1] < 0.01 * losses[0]


def test_params_setter_checks_structure():
    x, y = _data()
    trainer = Trainer(mlp_loss, _init(), SGD(0.1), progress=False)
    trainer.params = _init(seed=9)
    np.testing.assert_array_equal(trainer.params["hidden"]["w"], _init(seed=9)["hidden"]["w"])
    with pytest.raises(InputError, match="must match"):
        trainer.params = _init(hidden=5)


def test_bad_input():
    x, y = _data()
    with pytest.raises(InputError, match=r"parameter \['n'\] has dtype int64"):
        Trainer(mlp_loss, {"n": np.arange(3)}, SGD(0.1))
    with pytest.raises(InputError, match="no leaves"):
        Trainer(mlp_loss, {}, SGD(0.1))
    with pytest.raises(FrameError, match="optimizer must be"):
        Trainer(mlp_loss, _init(), "adam")
    with pytest.raises(FrameError, match="lr must be a finite float"):
        SGD(float("inf"))
    trainer = Trainer(lambda p, x: p["w"] * x, {"w": np.ones(3)}, SGD(0.1), progress=False)
    with pytest.raises(GradientError, match=r"must be a scalar, got shape \(3,\)"):
        trainer.step(np.ones(3))
    with pytest.raises(FrameError, match="steps must be a non-negative int"):
        trainer.run(-1)
    with pytest.raises(FrameError, match="lr schedule|learning-rate schedule returned nan"):
        Trainer(mlp_loss, _init(), SGD(lambda s: float("nan")), progress=False).step(x, y)


# -- run(batches, steps, callbacks=...): minibatch iterables and callbacks (issue 20 item 1)

def _batches(x, y, size=12, seed=0):
    rng = np.random.default_rng(seed)
    while True:
        idx = rng.permutation(len(x))[:size]
        yield x[idx], y[idx]


def test_run_over_batches_equals_stepping_by_hand():
    x, y = _data()
    by_hand = Trainer(mlp_loss, _init(), Adam(1e-2), progress=False)
    expected = [by_hand.step(*batch) for _, batch in zip(range(15), _batches(x, y))]
    trainer = Trainer(mlp_loss, _init(), Adam(1e-2), progress=False)
    losses = trainer.run(_batches(x, y), 15)
    assert losses == expected and trainer.step_count == 15 and trainer.history == expected
    for a, b in zip(frame.tree_leaves(trainer.params), frame.tree_leaves(by_hand.params)):
        np.testing.assert_array_equal(a, b)
    # a finite iterable ends the run early; steps=None runs until it is exhausted
    assert len(Trainer(mlp_loss, _init(), SGD(0.1), progress=False).run([(x, y)] * 4, 10)) == 4
    assert len(Trainer(mlp_loss, _init(), SGD(0.1), progress=False).run([(x, y)] * 3)) == 3


def test_callbacks_see_step_loss_trainer_and_respect_their_period():
    x, y = _data()
    seen, every_third = [], []

    def each(step, loss, trainer):
        seen.append((step, loss, trainer.step_count))

    def third(step, loss, trainer):
        every_third.append(step)
        return {"double": 2 * loss}

    third.period = 3
    trainer = Trainer(mlp_loss, _init(), Adam(1e-2), progress=False)
    losses = trainer.run(itertools_repeat((x, y)), 7, callbacks=[each, third])
    assert [s for s, _, _ in seen] == list(range(1, 8)) and [l for _, l, _ in seen] == losses
    assert all(s == c for s, _, c in seen)            # called after the step's update
    assert every_third == [3, 6]
    assert trainer.metrics == [(3, {"double": 2 * losses[2]}), (6, {"double": 2 * losses[5]})]


def test_stop_training_returned_or_raised_ends_the_run_after_that_step():
    from frame.train import StopTraining

    x, y = _data()

    def returns(step, loss, trainer):
        return StopTraining if step == 4 else None

    def raises(step, loss, trainer):
        if loss < 0.9 * trainer.history[0]:
            raise StopTraining("good enough")

    trainer = Trainer(mlp_loss, _init(), Adam(1e-2), progress=False)
    assert len(trainer.run(itertools_repeat((x, y)), 50, callbacks=[returns])) == 4 and trainer.step_count == 4
    other = Trainer(mlp_loss, _init(), Adam(5e-2), progress=False)
    losses = other.run(itertools_repeat((x, y)), 500, callbacks=[raises])
    assert len(losses) < 500 and losses[-1] < 0.9 * losses[0] and all(v >= 0.9 * losses[0] for v in losses[:-1])


def test_start_step_skips_the_batches_an_earlier_run_consumed():
    x, y = _data()
    whole = Trainer(mlp_loss, _init(), Adam(1e-2), progress=False)
    whole.run(_batches(x, y), 20)
    first = Trainer(mlp_loss, _init(), Adam(1e-2), progress=False)
    first.run(_batches(x, y), 8)
    first.run(_batches(x, y), 12, start_step=8)    # a fresh stream of the same order, continued at batch 9
    assert first.history == whole.history


def test_bad_run_arguments_are_frame_errors():
    x, y = _data()
    trainer = Trainer(mlp_loss, _init(), SGD(0.1), progress=False)
    for call, message in [(lambda: trainer.run(_batches(x, y), -2), "steps must be a non-negative int"),
                          (lambda: trainer.run(object(), 2), "batches must be an iterable"),
                          (lambda: trainer.run(_batches(x, y), 2, x), "extra positional argument"),
                          (lambda: trainer.run(_batches(x, y), 2, start_step=-1), "start_step"),
                          (lambda: trainer.run(_batches(x, y), 2, callbacks=[3]), "callbacks must be callables")]:
        with pytest.raises(FrameError, match=message):
            call()
    assert trainer.step_count == 0


def itertools_repeat(batch):
    import itertools
    return itertools.repeat(batch)
