"""Training callbacks: residual-based adaptive refinement, gradient-norm loss balancing, point resampling."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from pinn import (PDE, RAR, DirichletBC, GradientNormBalancing, Interval, PDEPointResampler, Poisson1D, ProblemError,
                  Rectangle, boundary, train)
from pinn.adaptive import TrainingContext

EPS = 0.05


def layer_residual(x, u, d):
    """u = tanh(x / eps) solves u'' = -2 / eps^2 tanh sech^2: an interior layer of width ~eps at x = 0."""
    t = fnp.tanh(x / EPS)
    return d("x", "x") + 2 / EPS ** 2 * t * (1 - t * t)


def layer_problem(n=12):
    g = Interval(-1, 1)
    sol = lambda x: np.tanh(x / EPS)  # noqa: E731
    return PDE(g, layer_residual, [DirichletBC(g, sol, boundary)], n, 2, train_distribution="uniform",
               solution=sol, layers=[20, 20])


class FixedTrainer:
    """What a callback reads from the trainer: params and the step count."""

    def __init__(self, params):
        self.params, self.step_count = params, 0


def test_rar_adds_the_worst_candidates():
    problem = layer_problem()
    model = problem.default_model(seed=0)
    data = problem.training_data(0)
    ctx = TrainingContext(problem, model, FixedTrainer(model.params), data, "reverse", np.random.default_rng(0))
    rar = RAR(period=1, num_candidates=500, top_k=5)
    rar.begin(ctx)
    rar(ctx)
    added = ctx.data[0][len(data[0]):]
    assert ctx.data[0].shape == (len(data[0]) + 5, 1) and all(a is b for a, b in zip(ctx.data[2:], data[2:]))
    # the same candidates again: the added points are the five largest |residual|
    candidates = problem.geometry.random_points(500, "pseudo", np.random.default_rng(0))
    r = rar.residual_at(ctx, candidates)
    np.testing.assert_allclose(np.sort(added[:, 0]), np.sort(candidates[np.argsort(r)[-5:], 0]))
    # and that residual is the PDE's: |u'' + 2/eps^2 tanh sech^2| by the derivative accessor
    res = np.abs(np.asarray(problem.residual(model.apply, model.params, candidates[:7], mode="reverse")))
    np.testing.assert_allclose(r[:7], res[:, 0], rtol=1e-12)
    assert rar.history == [(0, pytest.approx(float(np.mean(r))), len(data[0]) + 5)]


def test_rar_refines_an_interior_layer():
    # 12 grid points miss the layer; RAR adds 6 points every 200 steps where the residual peaks.
    # Measured (1000 Adam + 200 L-BFGS): without RAR 4.2e-2, with RAR 5.0e-4.
    problem = layer_problem()
    plain = train(problem, steps=1000, lr=5e-3, lbfgs_steps=200, progress=False)
    rar = RAR(period=200, num_candidates=1000, top_k=6)
    refined = train(problem, steps=1000, lr=5e-3, lbfgs_steps=200, progress=False, callbacks=[rar])
    assert [n for _, _, n in rar.history] == [18, 24, 30, 36]
    added = refined.data[0][12:, 0]
    assert np.mean(np.abs(added) < 0.2) > 0.8           # the points went to the layer
    assert refined.relative_l2_error < 5e-3 and refined.relative_l2_error < plain.relative_l2_error / 5


def test_rar_stops_at_its_rounds_and_threshold():
    problem = layer_problem()
    rar = RAR(period=10, num_candidates=100, top_k=2, rounds=2)
    train(problem, steps=50, lr=1e-3, progress=False, callbacks=[rar])
    assert len(rar.history) == 2 and rar.done == 2
    stop = RAR(period=10, num_candidates=100, top_k=2, threshold=1e9)
    result = train(problem, steps=30, lr=1e-3, progress=False, callbacks=[stop])
    assert stop.stopped and len(stop.history) == 1 and len(result.data[0]) == 12


def poisson2d():
    geom = Rectangle([-1, -1], [1, 1])

    def residual(x, u, d):
        return -d.laplacian() - 2 * np.pi ** 2 * fnp.sin(np.pi * x[:, 0:1]) * fnp.sin(np.pi * x[:, 1:2])

    return PDE(geom, residual, [DirichletBC(geom, 0.0, boundary)], num_domain=256, num_boundary=64,
               solution=lambda x: np.sin(np.pi * x[:, :1]) * np.sin(np.pi * x[:, 1:]), num_test=400)


def test_gradient_norm_balancing_follows_its_formula():
    problem = poisson2d()
    model = problem.default_model(seed=0, layers=[20, 20])
    data = problem.with_weights(problem.training_data(0), [1.0, 3.0])
    ctx = TrainingContext(problem, model, FixedTrainer(model.params), data, "reverse", np.random.default_rng(0))
    gn = GradientNormBalancing(period=1, alpha=0.1)
    gn.begin(ctx)
    stats = gn.gradient_statistics(ctx)
    for i in range(2):   # against plain frame.grad of each unweighted term
        g = frame.grad(lambda p: problem.terms(model.apply, p, data[0], data[2:], "reverse")[i])(model.params)
        leaves = [np.abs(np.asarray(v)) for v in frame.tree_leaves(g)]
        assert stats[i, 0] == pytest.approx(max(v.max() for v in leaves), rel=1e-10)
        assert stats[i, 1] == pytest.approx(sum(v.sum() for v in leaves) / sum(v.size for v in leaves), rel=1e-10)
    gn(ctx)
    expected = 0.9 * 3.0 + 0.1 * stats[0, 0] / (3.0 * stats[1, 1])
    np.testing.assert_allclose(ctx.data[1], [1.0, expected], rtol=1e-12)
    assert gn.history == [(0, [1.0, pytest.approx(expected)])]


def test_gradient_norm_balancing_rescues_a_2d_poisson_run():
    # 400 Adam steps at lr 1e-3 (measured): fixed weights 1.32, balanced 0.144 (the boundary weight
    # rises to ~90 and settles near 30)
    problem = poisson2d()
    plain = train(problem, problem.default_model(seed=0, layers=[20, 20, 20]), steps=400, progress=False)
    gn = GradientNormBalancing(period=20)
    balanced = train(problem, problem.default_model(seed=0, layers=[20, 20, 20]), steps=400, progress=False,
                     callbacks=[gn])
    assert balanced.relative_l2_error < 0.3 and balanced.relative_l2_error < plain.relative_l2_error / 3
    assert 5 < gn.history[-1][1][1] < 500


def test_fixed_loss_weights_through_train():
    problem = poisson2d()
    result = train(problem, problem.default_model(seed=0, layers=[8]), steps=2, progress=False,
                   loss_weights=[1.0, 10.0])
    np.testing.assert_array_equal(result.data[1], [1.0, 10.0])
    with pytest.raises(ProblemError, match="loss_weights needs 2"):
        train(problem, steps=1, progress=False, loss_weights=[1.0])
    with pytest.raises(ProblemError, match="needs a pinn.PDE"):
        train(Poisson1D(), steps=1, progress=False, loss_weights=[1.0, 1.0])


def test_resampler_draws_new_points_and_keeps_anchors():
    g = Interval(0, 1)
    anchors = np.array([[0.5]])
    problem = PDE(g, lambda x, u, d: d("x", "x") + 1, [DirichletBC(g, 0.0, boundary)], 20, 2, anchors=anchors,
                  train_distribution="pseudo", solution=lambda x: x * (1 - x) / 2)
    resampler = PDEPointResampler(period=5)
    result = train(problem, steps=16, lr=1e-3, progress=False, callbacks=[resampler])
    assert resampler.history == [5, 10, 15]
    assert result.data[0].shape == (21, 1) and result.data[0][-1, 0] == 0.5
    assert not np.allclose(result.data[0][:20], problem.training_data(0)[0][:20])
    assert len(result.history) == 16


def test_bad_callbacks():
    with pytest.raises(ProblemError, match="period must be a positive int"):
        RAR(period=0)
    with pytest.raises(ProblemError, match="top_k .* exceeds num_candidates"):
        RAR(num_candidates=5, top_k=10)
    with pytest.raises(ProblemError, match="alpha must be in"):
        GradientNormBalancing(alpha=0.0)
    with pytest.raises(ProblemError, match="needs a pinn.PDE problem"):
        train(Poisson1D(), steps=1, progress=False, callbacks=[RAR()])
    with pytest.raises(ProblemError, match="callbacks must be pinn callbacks"):
        train(layer_problem(), steps=1, progress=False, callbacks=[print])


def test_rar_rounds_reuse_one_compiled_training_step(monkeypatch):
    """The residual points grow every round; the Trainer's graph is symbolic on their count, so every
    round runs on the step compiled first (before: one compile per count)."""
    import pinn.training as training
    made = []

    class Recording(training.Trainer):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(training, "Trainer", Recording)
    rar = RAR(period=10, num_candidates=100, top_k=2, rounds=3)
    train(layer_problem(), steps=40, lr=1e-3, progress=False, callbacks=[rar], derivative_mode="reverse")
    assert [n for _, _, n in rar.history] == [14, 16, 18]
    (trainer,) = made
    assert trainer.loss_graph.trace_count == 1 and trainer.loss_graph.compile_count == 1
