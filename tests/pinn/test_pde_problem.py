"""pinn.PDE: the same numbers as Poisson1D/Burgers1D, the derivative accessor against analytic derivatives in
both modes, systems, loss weights, small training runs with error bounds, and bad input."""
import numpy as np
import pytest

import frame.numpy as fnp
import pinn
from pinn import (IC, PDE, Burgers1D, Derivatives, DirichletBC, Disk, GeometryXTime, Interval, NeumannBC,
                  PointSetBC, Poisson1D, ProblemError, Rectangle, TimeDomain, TimePDE, boundary, initial, train)


def poisson_residual(x, u, d):
    return -d.hessian() - np.pi ** 2 * fnp.sin(np.pi * x)


def poisson_as_pde():
    reference = Poisson1D()
    geom = Interval(-1, 1)
    problem = PDE(geom, poisson_residual, [DirichletBC(geom, 0.0, boundary)], num_boundary=2,
                  anchors=reference.collocation, solution=lambda x: np.sin(np.pi * x), num_test=1001)
    return reference, problem


@pytest.mark.parametrize("mode", ["reverse", "taylor"])
def test_poisson_pde_loss_is_poisson1d_loss(mode):
    reference, problem = poisson_as_pde()
    model = reference.default_model(seed=1)
    ours = float(problem.loss(model.apply, mode)(model.params, *problem.training_data(0)))
    theirs = float(reference.loss(model.apply, mode)(model.params, *reference.training_data(0)))
    assert ours == pytest.approx(theirs, rel=1e-13)


def test_poisson_pde_trains_like_poisson1d():
    reference, problem = poisson_as_pde()
    runs = [train(p, reference.default_model(seed=0), steps=100, lbfgs_steps=20, progress=False,
                  derivative_mode="reverse") for p in (problem, reference)]
    # The same graph up to the order of operations: equal losses step by step (measured: bit-identical).
    np.testing.assert_allclose(runs[0].history, runs[1].history, rtol=1e-10)
    assert runs[0].relative_l2_error == pytest.approx(runs[1].relative_l2_error, rel=1e-8)


@pytest.mark.parametrize("mode", ["reverse", "taylor"])
def test_burgers_time_pde_loss_is_burgers1d_loss(mode):
    reference = Burgers1D(n_collocation=128, n_initial=20, n_boundary=10)
    x_f, t_f, x_u, t_u, u_u = reference.training_data(0)
    nu = reference.nu
    geom = GeometryXTime(Interval(-1, 1), TimeDomain(0, 1))
    problem = TimePDE(geom, lambda x, u, d: d("t") + u * d("x") - nu * d("x", "x"),
                      [PointSetBC(np.hstack([x_u, t_u]), u_u)], anchors=np.hstack([x_f, t_f]))
    assert problem.input_bounds[0].tolist() == [-1, 0] and problem.input_bounds[1].tolist() == [1, 1]
    model = reference.default_model(seed=0, layers=[2, 16, 16, 1])
    ours = float(problem.loss(model.apply, mode)(model.params, *problem.training_data(0)))
    theirs = float(reference.loss(model.apply, mode)(model.params, *reference.training_data(0)))
    assert ours == pytest.approx(theirs, rel=1e-12)


def analytic(params, X):
    """u = sin(a x) exp(b y)."""
    return fnp.sin(params["a"] * X[:, 0:1]) * fnp.exp(params["b"] * X[:, 1:2])


@pytest.mark.parametrize("mode", ["reverse", "taylor"])
def test_accessor_matches_analytic_derivatives(mode):
    a, b = 1.3, -0.7
    params = {"a": np.array(a), "b": np.array(b)}
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (11, 2))
    x, y = X[:, :1], X[:, 1:]
    u = np.sin(a * x) * np.exp(b * y)
    ux = a * np.cos(a * x) * np.exp(b * y)
    d = Derivatives(lambda z: analytic(params, z), X, mode, coordinates=("x", "t"))
    expect = {(0,): ux, (1,): b * u, (0, 0): -a * a * u, (0, 1): b * ux, (1, 0): b * ux, (1, 1): b * b * u,
              (0, 0, 0): -a * a * ux, (0, 0, 1): -a * a * b * u, (1, 1, 1): b ** 3 * u}
    for axes, value in expect.items():
        np.testing.assert_allclose(d(*axes), value, rtol=1e-12, atol=1e-13, err_msg=str(axes))
    np.testing.assert_allclose(d("x", "t"), b * ux, rtol=1e-12)
    np.testing.assert_allclose(d("xxt"), -a * a * b * u, rtol=1e-12)
    np.testing.assert_allclose(d.jacobian(0, 1), b * u, rtol=1e-12)
    np.testing.assert_allclose(d.hessian(0, 0, 1), b * ux, rtol=1e-12)
    np.testing.assert_allclose(d.laplacian(), (b * b - a * a) * u, rtol=1e-12)
    np.testing.assert_allclose(d.laplacian(axes=["x"]), -a * a * u, rtol=1e-12)
    np.testing.assert_allclose(d.grad(), np.hstack([ux, b * u]), rtol=1e-12)
    np.testing.assert_allclose(d.u, u, rtol=1e-14)
    with pytest.raises(ProblemError, match="axis 'z'"):
        d("z")


@pytest.mark.parametrize("mode", ["reverse", "taylor"])
def test_accessor_keeps_components_apart(mode):
    # u = (sin(a x), a x^3): each component's derivatives are its own (a cache keyed without the
    # component once returned component 0's for both)
    two = lambda z: fnp.concatenate([fnp.sin(1.5 * z), 1.5 * z ** 3], axis=1)  # noqa: E731
    x = np.linspace(-1, 1, 7).reshape(-1, 1)
    d = Derivatives(two, x, mode)
    np.testing.assert_allclose(d(0, component=0), 1.5 * np.cos(1.5 * x), rtol=1e-12)
    np.testing.assert_allclose(d(0, component=1), 4.5 * x ** 2, rtol=1e-12)
    np.testing.assert_allclose(d(0, 0, component=1), 9.0 * x, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(d.jacobian(1, 0), 4.5 * x ** 2, rtol=1e-12)
    np.testing.assert_allclose(d.hessian(0, 0, 0), -2.25 * np.sin(1.5 * x), rtol=1e-12, atol=1e-14)


def kdv_problem():
    geom = GeometryXTime(Interval(-1, 1), TimeDomain(0, 1))
    return TimePDE(geom, lambda x, u, d: d("t") + u * d("x") + 0.0025 * d("x", "x", "x"),
                   [IC(geom, lambda x: np.cos(np.pi * x[:, :1]), initial)], 64, 0, 16)


def test_the_residual_is_probed_for_its_derivatives():
    problem = kdv_problem()
    requests, residuals = problem._requested_derivatives()
    assert requests == [(0, (0,)), (0, (0, 0, 0)), (0, (1,))]
    assert problem.taylor_orders() == {(0, 0): 3, (0, 1): 1}     # one order-3 propagation along x serves u_x too
    model = problem.default_model(seed=0, layers=[16, 16])
    x = problem.training_data(0)[0][:20]
    reverse = problem.reverse_derivatives(model.apply, model.params, x)
    taylor = problem.taylor_derivatives(model.apply, model.params, x)
    assert list(reverse) == ["u0_x", "u0_xxx", "u0_t"]
    for name in reverse:
        np.testing.assert_allclose(taylor[name], reverse[name], rtol=1e-9, atol=1e-12, err_msg=name)


def test_a_system_has_one_term_per_residual_and_weights_scale_terms():
    geom = Interval(0, 1)

    def system(x, u, d):   # u0' = u1, u1' = -u0: (sin, cos)
        return [d(0, component=0) - u[:, 1:2], d(0, component=1) + u[:, 0:1]]

    problem = PDE(geom, system, [DirichletBC(geom, 0.0, lambda x, on: on and np.isclose(x[0], 0), component=0),
                                 DirichletBC(geom, 1.0, lambda x, on: on and np.isclose(x[0], 0), component=1)],
                  16, 2, output_dim=2, solution=lambda x: np.hstack([np.sin(x), np.cos(x)]))
    assert problem.n_residuals == 2 and problem.num_terms == 4
    assert problem.term_names == ["residual 0", "residual 1", "DirichletBC 0", "DirichletBC 1"]
    model = problem.default_model(seed=0, layers=[8])
    data = problem.training_data(0)
    terms = problem.term_losses(model.apply, model.params, data)
    weighted = problem.with_weights(data, [1.0, 2.0, 0.5, 3.0])
    total = float(problem.loss(model.apply)(model.params, *weighted))
    assert total == pytest.approx(terms[0] + 2 * terms[1] + 0.5 * terms[2] + 3 * terms[3], rel=1e-13)
    result = train(problem, model, steps=300, lr=1e-2, lbfgs_steps=100, progress=False)
    assert result.relative_l2_error < 1e-2   # measured 1.1e-4


def test_dirichlet_neumann_1d_trains():
    # DeepXDE's poisson.1d.dirichletneumann: u'' = 2, u(-1) = 0, u'(1) = 4, u = (x + 1)^2
    g = Interval(-1, 1)
    problem = PDE(g, lambda x, u, d: d("x", "x") - 2,
                  [DirichletBC(g, 0.0, lambda x, on: on and np.isclose(x[0], -1)),
                   NeumannBC(g, 4.0, lambda x, on: on and np.isclose(x[0], 1))],
                  32, 2, solution=lambda x: (x + 1) ** 2, layers=[20, 20])
    result = train(problem, steps=300, lr=3e-3, lbfgs_steps=200, progress=False)
    assert result.relative_l2_error < 1e-3          # measured 5.8e-5
    assert result.derivative_mode.measured and result.derivative_mode.mode in ("reverse", "taylor")


def test_disk_poisson_trains():
    d = Disk([0, 0], 1)
    problem = PDE(d, lambda x, u, dd: -dd.laplacian() - 4, [DirichletBC(d, 0.0, boundary)], 128, 32,
                  solution=lambda x: 1 - np.sum(x ** 2, axis=1, keepdims=True), layers=[20, 20])
    result = train(problem, steps=300, lr=3e-3, lbfgs_steps=200, progress=False)
    assert result.relative_l2_error < 5e-3          # measured 8.0e-4


def test_heat_time_pde_trains():
    gt = GeometryXTime(Interval(-1, 1), TimeDomain(0, 1))
    problem = TimePDE(gt, lambda x, u, d: d("t") - 0.1 * d("x", "x"),
                      [DirichletBC(gt, 0.0, boundary), IC(gt, lambda x: np.sin(np.pi * x[:, :1]), initial)],
                      256, 32, 64, solution=lambda x: np.exp(-0.1 * np.pi ** 2 * x[:, 1:]) * np.sin(np.pi * x[:, :1]),
                      layers=[20, 20, 20])
    data = problem.training_data(0)
    assert [a.shape for a in data] == [(256, 2), (3,), (32, 2), (32, 1), (64, 2), (64, 1)]
    result = train(problem, steps=300, lr=3e-3, lbfgs_steps=300, progress=False)
    assert result.relative_l2_error < 1e-2          # measured 1.5e-3


def test_training_data_is_seeded():
    problem = PDE(Rectangle([0, 0], [1, 1]), lambda x, u, d: d.laplacian(), [DirichletBC(
        Rectangle([0, 0], [1, 1]), 0.0, boundary)], 50, 20, train_distribution="LHS")
    a, b, c = problem.training_data(0), problem.training_data(0), problem.training_data(1)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert not np.allclose(a[0], c[0])
    grid = PDE(Interval(0, 1), lambda x, u, d: d(0), num_domain=10, train_distribution="uniform").training_data(0)[0]
    np.testing.assert_allclose(grid[:, 0], np.linspace(0, 1, 12)[1:-1])


def test_bad_problems():
    g = Interval(0, 1)
    with pytest.raises(ProblemError, match="residual_fn.*failed.*ZeroDivisionError"):
        PDE(g, lambda x, u, d: 1 / 0, num_domain=4)
    with pytest.raises(ProblemError, match="loss_weights needs 2"):
        PDE(g, lambda x, u, d: d(0), [DirichletBC(g, 0.0, boundary)], 4, 2, loss_weights=[1.0])
    with pytest.raises(ProblemError, match="num_domain > 0 or anchors"):
        PDE(g, lambda x, u, d: d(0))
    with pytest.raises(ProblemError, match="num_initial needs a GeometryXTime"):
        PDE(g, lambda x, u, d: d(0), num_domain=4, num_initial=3)
    with pytest.raises(ProblemError, match="component 1 but the model has 1 output"):
        PDE(g, lambda x, u, d: d(0), [DirichletBC(g, 0.0, boundary, component=1)], 4, 2)
    with pytest.raises(ProblemError, match="PointSetBC lives in 2 dimension"):
        PDE(g, lambda x, u, d: d(0), [PointSetBC(np.zeros((3, 2)), np.zeros(3))], num_domain=4)
    problem = PDE(g, lambda x, u, d: d(0), num_domain=4)
    with pytest.raises(ProblemError, match=r"map 1 input\(s\) \(x\) to 1 output"):
        train(problem, pinn.MLP([2, 4, 1]), steps=1, progress=False)
    with pytest.raises(ProblemError, match="anchors must be finite points of shape"):
        PDE(g, lambda x, u, d: d(0), anchors=np.zeros((3, 2)))
    assert np.isnan(problem.relative_l2_error(problem.default_model().apply, problem.default_model().params))
