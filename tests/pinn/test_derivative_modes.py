"""pinn's residual derivative modes: reverse and Taylor agree, "auto" picks the faster measured mode
and reports it, explicit modes are honoured, bad modes are refused.

Timings are injected (a `measure` function or a fake clock): no assertion depends on wall-clock time.
"""
import numpy as np
import pytest

import frame
from pinn import MLP, Burgers1D, Poisson1D, ProblemError, train
from pinn import derivative_modes as dm

taylor = pytest.importorskip("frame.frontend.taylor", reason="Taylor mode is not in this tree")


def fixed(timings):
    """A `measure` returning fixed seconds per mode, recording which modes it was given."""
    seen = []

    def measure(calls):
        seen.append(sorted(calls))
        for call in calls.values():   # the calls run: they are compiled programs of the problem
            call()
        return {m: timings[m] for m in calls}

    measure.seen = seen
    return measure


@pytest.fixture(autouse=True)
def fresh_cache():
    dm.clear_cache()
    yield
    dm.clear_cache()


def poisson_setup(n=32):
    problem = Poisson1D(n_collocation=n)
    model = MLP([1, 8, 8, 1], seed=1)
    return problem, model, problem.residual_points(problem.training_data())


def test_reverse_and_taylor_modes_agree_on_every_derivative():
    problem, model, (x,) = poisson_setup()
    rev = problem.derivatives(model.apply, model.params, x, mode="reverse")
    tay = problem.derivatives(model.apply, model.params, x, mode="taylor")
    assert sorted(rev) == sorted(tay) == ["u", "u_x", "u_xx"]
    for name in rev:
        np.testing.assert_allclose(tay[name], rev[name], rtol=1e-10, atol=1e-12, err_msg=name)

    burgers = Burgers1D(n_collocation=16)
    bmodel = burgers.default_model(seed=0, layers=[2, 8, 8, 1])
    xb, tb = burgers.residual_points(burgers.training_data(seed=0))
    rev = burgers.derivatives(bmodel.apply, bmodel.params, xb, tb, mode="reverse")
    tay = burgers.derivatives(bmodel.apply, bmodel.params, xb, tb, mode="taylor")
    assert sorted(rev) == sorted(tay) == ["u", "u_t", "u_x", "u_xx"]
    for name in rev:
        np.testing.assert_allclose(tay[name], rev[name], rtol=1e-10, atol=1e-12, err_msg=name)
    np.testing.assert_allclose(burgers.residual(bmodel.apply, bmodel.params, xb, tb, mode="taylor"),
                               burgers.residual(bmodel.apply, bmodel.params, xb, tb, mode="reverse"), atol=1e-12)


def test_the_losses_and_their_parameter_gradients_agree_across_modes():
    problem, model, _ = poisson_setup()
    data = problem.training_data()
    values = {m: frame.value_and_grad(problem.loss(model.apply, mode=m))(model.params, *data) for m in dm.MODES}
    np.testing.assert_allclose(values["taylor"][0], values["reverse"][0], rtol=1e-12)
    for gt, gr in zip(frame.tree_leaves(values["taylor"][1]), frame.tree_leaves(values["reverse"][1])):
        np.testing.assert_allclose(gt, gr, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("timings, expected", [({"reverse": 2e-3, "taylor": 1e-3}, "taylor"),
                                               ({"reverse": 1e-3, "taylor": 3e-3}, "reverse"),
                                               ({"reverse": 1e-3, "taylor": 1e-3}, "reverse"),
                                               # within the margin (5%) reverse mode, the reference, stays
                                               ({"reverse": 1e-3, "taylor": 0.97e-3}, "reverse"),
                                               ({"reverse": 1e-3, "taylor": 0.9e-3}, "taylor")])
def test_auto_picks_the_faster_measured_mode(timings, expected):
    problem, model, coords = poisson_setup()
    measure = fixed(timings)
    choice = dm.select_mode(problem, model.apply, model.params, coords, measure=measure)
    assert measure.seen == [["reverse", "taylor"]]
    assert choice.mode == expected and choice.timings == timings and choice.rejected == {}
    assert choice.describe() == (f"residual derivatives: {expected} (reverse {timings['reverse'] * 1e3:.2f} ms, "
                                 f"taylor {timings['taylor'] * 1e3:.2f} ms per gradient call on 32 points)")


def test_interleaved_medians_take_turns_and_report_medians_from_the_clock():
    now, order = [0.0], []
    durations = {"a": [1.0, 5.0, 1.0], "b": [2.0, 2.0, 9.0]}

    def make(name):   # each call advances the fake clock by its scripted duration
        def call():
            now[0] += durations[name][sum(1 for o in order if o == name)]
            order.append(name)
        return call

    medians = dm.interleaved_medians({"a": make("a"), "b": make("b")}, repeats=3, min_seconds=0.0,
                                     clock=lambda: now[0])
    assert order == ["a", "b", "a", "b", "a", "b"]
    assert medians == {"a": 1.0, "b": 2.0}


def test_auto_is_cached_per_problem_model_and_shape_and_reported_by_train():
    problem, model, coords = poisson_setup()
    measure = fixed({"reverse": 5e-3, "taylor": 1e-3})
    first = dm.choose(problem, model.apply, model.params, coords, measure=measure)
    again = dm.choose(problem, model.apply, model.params, coords, measure=measure)
    assert first is again and len(measure.seen) == 1
    # The training loss traced with mode="auto" finds the cached choice: nothing is measured again.
    loss = problem.loss(model.apply, mode="auto")
    frame.value_and_grad(loss)(model.params, *problem.training_data())
    assert len(measure.seen) == 1
    assert list(dm.cached_choices(problem).values()) == [first]

    result = train(problem, model, steps=2, lr=1e-3, progress=False)   # the cache answers train's question too
    assert result.derivative_mode is first and result.derivative_mode.mode == "taylor"
    assert "residual derivatives: taylor (reverse 5.00 ms, taylor 1.00 ms" in result.summary()


def test_train_measures_by_default_and_reports_the_choice():
    problem, model, _ = poisson_setup(n=16)
    result = train(problem, model, steps=2, lr=1e-3, progress=False)
    choice = result.derivative_mode
    assert choice.mode in dm.MODES and set(choice.timings) == {"reverse", "taylor"}
    t = choice.timings
    assert choice.mode == ("taylor" if t["taylor"] < (1 - dm.MARGIN) * t["reverse"] else "reverse")
    assert all(t > 0 for t in choice.timings.values())
    # Both timed on one tier: the native one where C kernels build (training's tier), else numpy.
    assert len(set(choice.tiers.values())) == 1 and set(choice.tiers) == {"reverse", "taylor"}
    assert result.summary().splitlines()[1] == choice.describe()
    assert choice.describe().startswith(f"residual derivatives: {choice.mode} (reverse ")


@pytest.mark.parametrize("mode", dm.MODES)
def test_an_explicit_mode_is_honoured_without_measuring(mode, monkeypatch):
    problem, model, _ = poisson_setup(n=16)
    monkeypatch.setattr(dm, "select_mode", lambda *a, **k: pytest.fail("an explicit mode was measured"))
    result = train(problem, model, steps=2, lr=1e-3, progress=False, derivative_mode=mode)
    assert result.derivative_mode.mode == mode and not result.derivative_mode.measured
    assert f"residual derivatives: {mode} (set by the caller)" in result.summary()
    used = []
    original = getattr(Poisson1D, f"{mode}_derivatives")
    monkeypatch.setattr(Poisson1D, f"{mode}_derivatives", lambda self, *a: used.append(mode) or original(self, *a))
    frame.grad(problem.loss(model.apply, mode=mode))(model.params, *problem.training_data())
    assert used == [mode]


def test_unknown_modes_are_refused_by_name():
    problem, model, (x,) = poisson_setup(n=8)
    message = "unknown derivative mode 'forward'; choose one of auto, reverse, taylor"
    with pytest.raises(ProblemError, match=message):
        problem.derivatives(model.apply, model.params, x, mode="forward")
    with pytest.raises(ProblemError, match=message):
        problem.loss(model.apply, mode="forward")
    with pytest.raises(ProblemError, match=message):
        train(problem, model, steps=1, progress=False, derivative_mode="forward")
    with pytest.raises(ProblemError, match="unknown derivative mode 'jet'"):
        dm.select_mode(problem, model.apply, model.params, (x,), modes=["reverse", "jet"])


def test_a_mode_that_disagrees_is_never_chosen(monkeypatch):
    problem, model, coords = poisson_setup()
    original = Poisson1D.taylor_derivatives

    def wrong(self, apply, params, x):   # a broken Taylor mode: u_xx off by 1%
        d = original(self, apply, params, x)
        return {**d, "u_xx": d["u_xx"] * 1.01}

    monkeypatch.setattr(Poisson1D, "taylor_derivatives", wrong)
    choice = dm.select_mode(problem, model.apply, model.params, coords,
                            measure=fixed({"reverse": 9e-3, "taylor": 1e-3}))
    assert choice.mode == "reverse" and list(choice.timings) == ["reverse"]
    assert "disagrees with reverse mode" in choice.rejected["taylor"]
    assert "not used: taylor: disagrees with reverse mode" in choice.describe()


def test_selection_while_tracing_uses_stand_ins_of_the_traced_shapes(monkeypatch):
    problem, model, _ = poisson_setup()
    data = problem.training_data()
    measure = fixed({"reverse": 1e-3, "taylor": 2e-3})
    original = dm.select_mode
    calls = []

    def spy(*args, **kwargs):
        calls.append(args[3][0].shape)
        return original(*args, **{**kwargs, "measure": measure})

    monkeypatch.setattr(dm, "select_mode", spy)
    value = frame.function(problem.loss(model.apply, mode="auto"))(model.params, *data)
    assert calls == [data[0].shape] and measure.seen == [["reverse", "taylor"]]
    expected = frame.function(problem.loss(model.apply, mode="reverse"))(model.params, *data)
    np.testing.assert_allclose(value, expected, rtol=1e-12)
