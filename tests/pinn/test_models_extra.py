"""Fourier-feature MLP and modified MLP: forward passes against numpy, pointwise derivatives against central
differences, what each is for (spectral bias, a PINN run), transforms, and bad configurations."""
import numpy as np
import pytest

import frame.numpy as fnp
from frame.train import Adam, Trainer
from pinn import (MLP, Derivatives, DirichletBC, FourierFeatureMLP, Interval, ModelError, ModifiedMLP, NeumannBC,
                  PDE, PeriodicBC, boundary, train)


def numpy_fourier(model, params, x):
    h = x @ model.B
    h = np.hstack([np.cos(h), np.sin(h)])
    for i, layer in enumerate(params):
        h = h @ layer["W"] + layer["b"]
        if i < len(params) - 1:
            h = np.tanh(h)
    return h


def numpy_modified(params, x):
    U = np.tanh(x @ params["U"]["W"] + params["U"]["b"])
    V = np.tanh(x @ params["V"]["W"] + params["V"]["b"])
    h = x
    for layer in params["layers"][:-1]:
        z = np.tanh(h @ layer["W"] + layer["b"])
        h = (1 - z) * U + z * V
    return h @ params["layers"][-1]["W"] + params["layers"][-1]["b"]


def test_fourier_features_forward_and_fixed_frequencies():
    m = FourierFeatureMLP([2, 16, 16, 1], sigma=2.0, num_features=8, seed=3)
    assert m.B.shape == (2, 8) and m.params[0]["W"].shape == (16, 16)
    # B ~ 2 pi N(0, sigma^2), fixed by the seed and not a parameter
    np.testing.assert_array_equal(m.B, FourierFeatureMLP([2, 16, 16, 1], sigma=2.0, num_features=8, seed=3).B)
    assert not any(leaf is m.B for layer in m.params for leaf in layer.values())
    x = np.random.default_rng(0).uniform(-1, 1, (9, 2))
    np.testing.assert_allclose(m(x), numpy_fourier(m, m.params, x), rtol=1e-13)
    big = FourierFeatureMLP([1, 4, 1], sigma=10.0, num_features=4000, seed=0).B
    assert np.std(big) == pytest.approx(2 * np.pi * 10.0, rel=0.05)


def test_modified_mlp_forward():
    m = ModifiedMLP([2, 12, 12, 12, 1], seed=1)
    assert set(m.params) == {"U", "V", "layers"} and len(m.params["layers"]) == 4
    x = np.random.default_rng(1).uniform(-1, 1, (7, 2))
    np.testing.assert_allclose(m(x), numpy_modified(m.params, x), rtol=1e-13)
    assert m.num_params == 2 * (2 * 12 + 12) + (2 * 12 + 12) + 2 * (12 * 12 + 12) + 12 + 1


@pytest.mark.parametrize("model", [FourierFeatureMLP([1, 12, 12, 1], sigma=1.5, num_features=6, seed=0),
                                   ModifiedMLP([1, 12, 12, 1], seed=0)], ids=["fourier", "modified"])
@pytest.mark.parametrize("mode", ["reverse", "taylor"])
def test_pointwise_derivatives_match_central_differences(model, mode):
    x = np.linspace(-0.9, 0.9, 9).reshape(-1, 1)
    d = Derivatives(lambda y: model.apply(model.params, y), x, mode)
    h = 2e-4
    f = lambda y: np.asarray(model(y))  # noqa: E731
    # five-point central differences: truncation O(h^4) (with the Fourier features' frequencies ~10
    # the three-point stencil's h^2 term is 5e-6 relative), rounding ~1e-16 / h^2 = 3e-9 for the second
    first = (-f(x + 2 * h) + 8 * f(x + h) - 8 * f(x - h) + f(x - 2 * h)) / (12 * h)
    second = (-f(x + 2 * h) + 16 * f(x + h) - 30 * f(x) + 16 * f(x - h) - f(x - 2 * h)) / (12 * h ** 2)
    np.testing.assert_allclose(d(0), first, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(d(0, 0), second, rtol=1e-6, atol=1e-7)


def fit(model, x, y, steps=500):
    trainer = Trainer(lambda p, x, y: fnp.mse_loss(model.apply(p, x), y), model.params, Adam(1e-2), progress=False)
    trainer.run(steps, x, y)
    pred = np.asarray(model.apply(trainer.params, x))
    return np.linalg.norm(pred - y) / np.linalg.norm(y)


def test_fourier_features_overcome_spectral_bias():
    # sin(6 pi x) on 200 points, 500 Adam steps: measured MLP 0.86, Fourier features (sigma 3) 3.2e-3.
    x = np.linspace(-1, 1, 200).reshape(-1, 1)
    y = np.sin(6 * np.pi * x) + 0.5 * np.sin(np.pi * x)
    plain = fit(MLP([1, 32, 32, 1], seed=0), x, y)
    fourier = fit(FourierFeatureMLP([1, 32, 32, 1], sigma=3.0, num_features=32, seed=0), x, y)
    assert fourier < 0.05 and plain > 10 * fourier


def test_modified_mlp_trains_a_pinn():
    g = Interval(-1, 1)
    problem = PDE(g, lambda x, u, d: d("x", "x") - 2,
                  [DirichletBC(g, 0.0, lambda x, on: on and np.isclose(x[0], -1)),
                   NeumannBC(g, 4.0, lambda x, on: on and np.isclose(x[0], 1))],
                  32, 2, solution=lambda x: (x + 1) ** 2)
    model = problem.default_model(seed=0, layers=[16, 16], kind="modified")
    assert isinstance(model, ModifiedMLP)
    result = train(problem, model, steps=300, lr=3e-3, lbfgs_steps=200, progress=False)
    assert result.relative_l2_error < 1e-3      # measured 9.4e-7


def test_feature_transform_makes_periodicity_exact():
    # features (cos pi x, sin pi x): any network of them is 2-periodic, so PeriodicBC's error is zero
    m = MLP([2, 8, 1], seed=2).apply_feature_transform(
        lambda x: fnp.concatenate([fnp.cos(np.pi * x), fnp.sin(np.pi * x)], axis=1), input_dim=1)
    g = Interval(-1, 1)
    for order in (0, 1):
        bc = PeriodicBC(g, 0, lambda x, on: on and np.isclose(x[0], 1), derivative_order=order)
        arrays = bc.arrays(g.uniform_boundary_points(2), "float64")
        np.testing.assert_allclose(bc.error(lambda y: m.apply(m.params, y), *arrays), 0.0, atol=1e-14)
    assert m.in_dim == 1


def test_bad_model_configurations():
    with pytest.raises(ModelError, match="all of one width"):
        ModifiedMLP([2, 8, 16, 1])
    with pytest.raises(ModelError, match="sigma must be a positive number"):
        FourierFeatureMLP([1, 8, 1], sigma=0.0)
    with pytest.raises(ModelError, match="at least one hidden layer"):
        FourierFeatureMLP([1, 1])
    with pytest.raises(ModelError, match="unknown activation"):
        ModifiedMLP([1, 8, 1], activation="relu6")
    with pytest.raises(ModelError, match=r"x must have shape \(N, 2\)"):
        ModifiedMLP([2, 8, 1]).apply(ModifiedMLP([2, 8, 1]).params, np.zeros((3, 1)))
    with pytest.raises(ModelError, match="needs a callable"):
        MLP([1, 4, 1]).apply_output_transform(3)
    with pytest.raises(ModelError, match="input_bounds"):
        ModifiedMLP([2, 8, 1], input_bounds=((0, 0), (1, 0)))
    assert boundary(None, True) is True
