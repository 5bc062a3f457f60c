"""Problems: residual derivatives (analytic, JAX per point, ARCH-067 structure), data and bad input."""
from collections import OrderedDict

import numpy as np
import pytest

import frame
import frame.numpy as fnp
import frame.train
from frame.frontend import transforms
from pinn import MLP, Burgers1D, Poisson1D, ProblemError, pointwise_derivative

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402


def sine_model(params, x):
    """u = a sin(k x): u_x = a k cos(k x), u_xx = -a k^2 sin(k x)."""
    return params["a"] * fnp.sin(params["k"] * x)


def test_poisson_derivatives_match_analytic():
    params = {"a": np.array(1.3), "k": np.array(2.1)}
    x = np.linspace(-1, 1, 17).reshape(-1, 1)
    d = Poisson1D().derivatives(sine_model, params, x)
    np.testing.assert_allclose(d["u"], 1.3 * np.sin(2.1 * x), rtol=1e-14)
    np.testing.assert_allclose(d["u_x"], 1.3 * 2.1 * np.cos(2.1 * x), rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(d["u_xx"], -1.3 * 2.1 ** 2 * np.sin(2.1 * x), rtol=1e-13, atol=1e-14)


def test_poisson_residual_vanishes_on_the_exact_solution():
    params = {"a": np.array(1.0), "k": np.array(np.pi)}
    x = np.linspace(-1, 1, 33).reshape(-1, 1)
    np.testing.assert_allclose(Poisson1D().residual(sine_model, params, x), 0.0, atol=1e-12)


def burgers_analytic_model(params, X):
    """u = sin(c x) exp(-t): u_x = c cos(c x) e^-t, u_t = -u, u_xx = -c^2 u."""
    return fnp.sin(params["c"] * X[:, 0:1]) * fnp.exp(-X[:, 1:2])


def test_burgers_derivatives_and_residual_match_analytic():
    problem = Burgers1D(n_collocation=10)
    params = {"c": np.array(1.7)}
    rng = np.random.default_rng(0)
    x, t = rng.uniform(-1, 1, (13, 1)), rng.uniform(0, 1, (13, 1))
    d = problem.derivatives(burgers_analytic_model, params, x, t)
    u = np.sin(1.7 * x) * np.exp(-t)
    u_x = 1.7 * np.cos(1.7 * x) * np.exp(-t)
    np.testing.assert_allclose(d["u"], u, rtol=1e-14)
    np.testing.assert_allclose(d["u_x"], u_x, rtol=1e-13)
    np.testing.assert_allclose(d["u_t"], -u, rtol=1e-13)
    np.testing.assert_allclose(d["u_xx"], -1.7 ** 2 * u, rtol=1e-13)
    np.testing.assert_allclose(problem.residual(burgers_analytic_model, params, x, t),
                               -u + u * u_x + problem.nu * 1.7 ** 2 * u, rtol=1e-12, atol=1e-15)


def jax_mlp(params, z, activation=jnp.tanh, scale=None, shift=None):
    """The same MLP written independently in jax.numpy, for one point z of shape (in_dim,)."""
    h = z if scale is None else z * scale + shift
    for i, layer in enumerate(params):
        h = h @ layer["W"] + layer["b"]
        if i < len(params) - 1:
            h = activation(h)
    return h[0]


@pytest.mark.parametrize("activation, jax_act", [("tanh", jnp.tanh), ("sin", jnp.sin),
                                                 ("softplus", jax.nn.softplus)])
def test_mlp_pointwise_derivatives_match_jax_per_point(activation, jax_act):
    # JAX differentiates each point on its own (vmap of grad); frame uses the sum contraction.
    model = MLP([1, 16, 16, 1], activation=activation, seed=4)
    x = np.linspace(-1, 1, 23).reshape(-1, 1)
    d = Poisson1D().derivatives(model.apply, model.params, x)
    with jax.enable_x64(True):
        u = lambda z: jax_mlp(model.params, z, jax_act)  # noqa: E731
        u_x = lambda z: jax.grad(u)(z)[0]  # noqa: E731
        u_xx = lambda z: jax.grad(u_x)(z)[0]  # noqa: E731
        np.testing.assert_allclose(d["u_x"][:, 0], jax.jit(jax.vmap(u_x))(x), rtol=1e-11, atol=1e-13)
        np.testing.assert_allclose(d["u_xx"][:, 0], jax.jit(jax.vmap(u_xx))(x), rtol=1e-11, atol=1e-13)


def test_burgers_mlp_derivatives_match_jax_per_point():
    problem = Burgers1D(n_collocation=10)
    model = problem.default_model(seed=2)
    rng = np.random.default_rng(1)
    x, t = rng.uniform(-1, 1, (19, 1)), rng.uniform(0, 1, (19, 1))
    d = problem.derivatives(model.apply, model.params, x, t)
    with jax.enable_x64(True):
        u = lambda z: jax_mlp(model.params, z, scale=model._scale[0], shift=model._shift[0])  # noqa: E731
        points = np.hstack([x, t])
        grad_u = jax.jit(jax.vmap(jax.grad(u)))(points)
        u_xx = jax.jit(jax.vmap(lambda z: jax.hessian(u)(z)[0, 0]))(points)
        np.testing.assert_allclose(d["u_x"][:, 0], grad_u[:, 0], rtol=1e-11, atol=1e-13)
        np.testing.assert_allclose(d["u_t"][:, 0], grad_u[:, 1], rtol=1e-11, atol=1e-13)
        np.testing.assert_allclose(d["u_xx"][:, 0], u_xx, rtol=1e-10, atol=1e-12)


def test_sum_contraction_is_not_pointwise_for_models_that_mix_points():
    # u_i = x_i * mean(x) couples points: d(sum u)/dx_i = mean(x) + sum(x)/N  !=  du_i/dx_i = mean(x) + x_i/N.
    mixing = lambda x: x * fnp.mean(x)  # noqa: E731
    x = np.array([[0.5], [-1.0], [2.0]])
    contracted = pointwise_derivative(mixing)(x)
    true_diagonal = x.mean() + x / len(x)
    np.testing.assert_allclose(contracted, x.mean() + x.sum() / len(x), rtol=1e-14)
    assert not np.allclose(contracted, true_diagonal)


def test_training_graph_is_three_applications_of_build_backward_graph(monkeypatch):
    # ARCH-067: u_x (transform), u_xx (the transform on the derived graph), loss gradient (again).
    calls = []
    original = transforms.build_backward_graph

    def counting(forward, loss_index, wrt):
        calls.append(forward.name)
        return original(forward, loss_index, wrt)

    monkeypatch.setattr(transforms, "_DERIVED", OrderedDict())  # no memoised derivations
    monkeypatch.setattr(transforms, "build_backward_graph", counting)
    monkeypatch.setattr(frame.train.loss_graph, "build_backward_graph", counting)
    problem = Poisson1D(n_collocation=8)
    model = MLP([1, 4, 1])
    trainer = frame.train.Trainer(problem.loss(model.apply), model.params, frame.train.Adam(1e-3), progress=False)
    trainer.step(*problem.training_data())
    assert len(calls) == 3
    assert calls[-1] == "poisson_loss"


def test_collocation_points_are_graph_inputs_and_new_points_do_not_recompile():
    problem = Burgers1D(n_collocation=64, n_initial=8, n_boundary=4)
    model = problem.default_model()
    trainer = frame.train.Trainer(problem.loss(model.apply), model.params, frame.train.Adam(1e-3), progress=False)
    trainer.step(*problem.training_data(seed=0))
    graph = trainer.training_graph
    n_params = len(frame.tree_leaves(model.params))
    assert len(graph.inputs) == n_params + 5
    assert not [n for n in graph.nodes if n.op == "constant" and n.attrs["value"].shape[:1] == (64,)]
    misses = frame.runtime.cache_info().misses
    trainer.step(*problem.training_data(seed=1))  # new points, same shapes
    assert frame.runtime.cache_info().misses == misses


# -- bad input ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, match", [
    ({"forcing": 3.0}, "forcing must be callable"),
    ({"exact": "sin"}, "exact must be callable"),
    ({"forcing": lambda x: np.where(x > 0, np.nan, 1.0)}, r"forcing returned \d+ NaN/Inf"),
    ({"forcing": lambda x: np.ones(5)}, r"forcing returned shape \(5,\) for points of shape \(128, 1\)"),
    ({"forcing": lambda x: 1 / 0}, "forcing failed on points of shape"),
    ({"collocation": [0.1, np.nan, 0.3]}, r"collocation \(shape \(3, 1\)\) contains 1 NaN/Inf"),
    ({"collocation": np.zeros((4, 2))}, r"shape \(N,\) or \(N, 1\), got \(4, 2\)"),
    ({"collocation": [0.5, 1.5]}, r"outside \[-1.0, 1.0\]"),
    ({"domain": (1, -1)}, "domain must be finite with low < high"),
    ({"boundary_values": (0, np.inf)}, "boundary_values must be two finite numbers"),
    ({"n_collocation": 0}, "n_collocation must be a positive int"),
])
def test_poisson_bad_input(kwargs, match):
    with pytest.raises(ProblemError, match=match) as info:
        Poisson1D(**kwargs)
    assert isinstance(info.value, frame.FrameError)


@pytest.mark.parametrize("kwargs, match", [
    ({"collocation": (np.zeros((10, 1)), np.zeros((9, 1)))},
     r"x and t must have the same shape, got x \(10, 1\) and t \(9, 1\)"),
    ({"collocation": (np.zeros(3), np.array([0.1, np.inf, 0.2]))}, "collocation t .* NaN/Inf"),
    ({"collocation": (np.zeros(3), np.array([0.1, 2.0, 0.2]))}, r"outside \[0.0, 1.0\]"),
    ({"collocation": np.zeros((10, 2))}, r"pair \(x, t\)"),
    ({"nu": -0.1}, "nu must be a positive number"),
    ({"nu": float("nan")}, "nu must be a positive number"),
])
def test_burgers_bad_input(kwargs, match):
    with pytest.raises(ProblemError, match=match):
        Burgers1D(**kwargs)


def test_model_that_does_not_fit_the_problem_is_rejected():
    with pytest.raises(ProblemError, match=r"map 2 input\(s\) \(x, t\) to 1 output, got layer sizes \[1, 4, 1\]"):
        Burgers1D(n_collocation=10).check_model(MLP([1, 4, 1]))
    with pytest.raises(ProblemError, match="dtype float32 differs"):
        Poisson1D().check_model(MLP([1, 4, 1], dtype="float32"))


def test_green_reference_is_used_for_a_custom_forcing():
    # -u'' = 1 on [0, 1], u(0) = u(1) = 0 => u = x (1 - x) / 2.
    problem = Poisson1D(forcing=lambda x: np.ones_like(x), domain=(0, 1), n_test=11)
    (x,) = problem.test_points()
    np.testing.assert_allclose(problem.test_reference(), x * (1 - x) / 2, atol=1e-13)


def test_burgers_training_data_shapes_and_values():
    problem = Burgers1D(n_collocation=50, n_initial=20, n_boundary=5)
    x_f, t_f, x_u, t_u, u_u = problem.training_data(seed=3)
    assert x_f.shape == t_f.shape == (50, 1) and x_u.shape == t_u.shape == u_u.shape == (30, 1)
    initial = t_u[:, 0] == 0
    np.testing.assert_allclose(u_u[initial], -np.sin(np.pi * x_u[initial]))
    np.testing.assert_array_equal(np.abs(x_u[~initial]), 1.0)
    np.testing.assert_array_equal(u_u[~initial], 0.0)
    assert not np.array_equal(problem.training_data(seed=4)[0], x_f)
