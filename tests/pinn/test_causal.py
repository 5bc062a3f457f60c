"""Causal weighting (pinn.causal): the weights and loss against a numpy transcription of Wang et al.'s
formula, the stop-gradient against central differences, bad input, and a short Allen–Cahn run."""
import numpy as np
import pytest

import frame
import pinn
from pinn import AllenCahn, ProblemError, train
from pinn.causal import CausalWeighting
from pinn.geometry import GeometryXTime, Interval, TimeDomain


def numpy_causal(r, t, chunks, tol, t0=0.0, t1=1.0):
    """(l, w, loss): Wang et al.'s l_i, w_i = exp(-tol sum_{k<i} l_k) and mean(w l), slices by t."""
    k = np.clip(np.floor((t - t0) / (t1 - t0) * chunks), 0, chunks - 1).astype(int)
    l = np.array([np.mean(r[k == i] ** 2) if np.any(k == i) else 0.0 for i in range(chunks)])
    w = np.exp(-tol * np.concatenate([[0.0], np.cumsum(l)[:-1]]))
    return l, w, np.mean(w * l)


def points(n, seed=0):
    rng = np.random.default_rng(seed)
    return np.stack([rng.uniform(-1, 1, n), rng.uniform(0, 1, n)], axis=1)


@pytest.fixture
def causal():
    return CausalWeighting(chunks=8, tol=2.0).bind(GeometryXTime(Interval(-1, 1), TimeDomain(0, 1)))


def test_weights_and_loss_match_the_formula(causal):
    x = points(203)                       # not a multiple of the chunk count, points in no order
    x[0, 1], x[1, 1] = 0.0, 1.0           # both ends of the interval: first and last slice
    r = np.sin(3 * x[:, :1]) + 2 * x[:, 1:]
    l_ref, w_ref, loss_ref = numpy_causal(r[:, 0], x[:, 1], 8, 2.0)
    l, counts = causal.chunk_losses(r, x)
    np.testing.assert_allclose(np.asarray(l), l_ref, rtol=1e-12)
    assert np.asarray(counts).sum() == 203
    np.testing.assert_allclose(causal.weights(r, x), w_ref, rtol=1e-12)
    assert causal.weights(r, x)[0] == 1.0 and np.all(np.diff(causal.weights(r, x)) < 0)
    np.testing.assert_allclose(float(causal.term(r, x)), loss_ref, rtol=1e-12)
    # traced: the same number from a compiled function
    np.testing.assert_allclose(float(frame.function(causal.term)(r, x)), loss_ref, rtol=1e-12)


def test_tol_zero_is_the_mean_over_slices(causal):
    x = points(800, seed=1)
    r = np.cos(x[:, :1] * x[:, 1:])
    zero = CausalWeighting(chunks=8, tol=0.0).bind(GeometryXTime(Interval(-1, 1), TimeDomain(0, 1)))
    l, _ = zero.chunk_losses(r, x)
    np.testing.assert_allclose(float(zero.term(r, x)), np.mean(np.asarray(l)), rtol=1e-12)
    np.testing.assert_array_equal(zero.weights(r, x), np.ones(8))


def test_weights_are_held_constant_in_the_gradient(causal):
    """d term / d a for r = a * f(x): the weights frozen at their value, by central differences."""
    x = points(300, seed=2)
    f = np.exp(x[:, :1]) * (1 + x[:, 1:])
    a = np.asarray(0.7)
    grad = float(frame.grad(lambda a: causal.term(a * f, x))(a))
    w = causal.weights(a * f, x)

    def frozen(a):
        l, _, _ = numpy_causal((a * f)[:, 0], x[:, 1], 8, 2.0)
        return np.mean(w * l)

    h = 1e-6
    np.testing.assert_allclose(grad, (frozen(a + h) - frozen(a - h)) / (2 * h), rtol=1e-7)
    # and not the gradient of the full loss (the weights differentiated too)
    full = lambda a: numpy_causal((a * f)[:, 0], x[:, 1], 8, 2.0)[2]  # noqa: E731
    assert abs(grad - (full(a + h) - full(a - h)) / (2 * h)) > 1e-3 * abs(grad)


def test_bad_configuration_is_a_problem_error():
    for kwargs in ({"chunks": 0}, {"chunks": 2.5}, {"tol": -1.0}, {"tol": float("nan")}):
        with pytest.raises(ProblemError, match="CausalWeighting"):
            CausalWeighting(**kwargs)
    with pytest.raises(ProblemError, match="time-dependent"):
        pinn.PDE(pinn.Interval(-1, 1), lambda x, u, d: d(0, 0), [], 16, causal=CausalWeighting(4))
    with pytest.raises(ProblemError, match="not bound"):
        CausalWeighting(4).term(np.ones((3, 1)), points(3))
    with pytest.raises(ProblemError, match="causal must be"):
        AllenCahn(n_collocation=64, causal="yes")
    with pytest.raises(ProblemError, match="no causal weighting"):
        p = AllenCahn(n_collocation=64, n_boundary=16, n_initial=32)
        m = p.default_model(layers=[8])
        p.causal_weights(m.apply, m.params, p.training_data(0))


def test_allen_cahn_trains_with_causal_weights():
    problem = AllenCahn(n_collocation=256, n_boundary=32, n_initial=64, causal_chunks=8)
    assert isinstance(problem.causal, CausalWeighting) and problem.causal.chunks == 8
    model = problem.default_model(seed=0, layers=[16, 16])
    data = problem.training_data(0)
    before = problem.causal_weights(model.apply, model.params, data)
    assert before.shape == (1, 8) and before[0, 0] == 1.0
    result = train(problem, model, steps=100, lr=3e-3, progress=False)
    assert result.history[-1] < 0.5 * result.history[0]      # measured ratio 0.29
    after = problem.causal_weights(model.apply, result.params, data)
    # fitting the early slices opens the later ones: the last slice's weight rose
    assert after[0, -1] > 2 * before[0, -1]                    # measured 0.087 -> 0.965
    assert np.isfinite(result.relative_l2_error)
