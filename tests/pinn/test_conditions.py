"""pinn.conditions: zero error on exact solutions, the right error otherwise, gradients vs central differences,
hard constraints through output transforms, DeepXDE's filtering semantics and bad input."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from pinn import (IC, MLP, DirichletBC, GeometryXTime, Interval, NeumannBC, PeriodicBC, PointSetBC, ProblemError,
                  Rectangle, RobinBC, TimeDomain, boundary)


def on_left(x, on):
    return on and np.isclose(x[0], -1)


def on_right(x, on):
    return on and np.isclose(x[0], 1)


def quadratic(params, x):
    """u = a (x^2 + y^2) + b sin(x): du/dx = 2 a x + b cos(x), du/dy = 2 a y."""
    return params["a"] * fnp.sum(x * x, axis=1, keepdims=True) + params["b"] * fnp.sin(x[:, 0:1])


def error_of(bc, apply, params, pool, dtype="float64"):
    arrays = bc.arrays(pool, dtype)
    return np.asarray(bc.error(lambda y: apply(params, y), *arrays)), arrays


def term(bc, apply, arrays):
    return lambda p: fnp.mean(fnp.square(bc.error(lambda y: apply(p, y), *arrays)))


def assert_gradient_matches_central_differences(bc, apply, params, arrays, h=1e-6):
    grads = frame.grad(term(bc, apply, arrays))(params)
    for name in params:
        up, down = dict(params), dict(params)
        up[name], down[name] = params[name] + h, params[name] - h
        fd = (float(term(bc, apply, arrays)(up)) - float(term(bc, apply, arrays)(down))) / (2 * h)
        assert float(grads[name]) == pytest.approx(fd, rel=1e-6, abs=1e-9), name


def test_dirichlet_zero_on_the_exact_solution_and_filtered_like_deepxde():
    g = Rectangle([-1, -1], [1, 1])
    pool = g.random_boundary_points(200, seed=0)
    params = {"a": np.array(0.7), "b": np.array(0.0)}
    bc = DirichletBC(g, lambda x: 0.7 * np.sum(x ** 2, axis=1), on_left)
    err, (x, _) = error_of(bc, quadratic, params, pool)
    assert len(x) == np.isclose(pool[:, 0], -1).sum() > 0 and np.allclose(x[:, 0], -1)
    np.testing.assert_allclose(err, 0.0, atol=1e-14)
    bad = {"a": np.array(0.5), "b": np.array(0.3)}
    err, arrays = error_of(bc, quadratic, bad, pool)
    np.testing.assert_allclose(err[:, 0], -0.2 * np.sum(x ** 2, axis=1) + 0.3 * np.sin(-1.0), rtol=1e-12)
    assert_gradient_matches_central_differences(bc, quadratic, bad, arrays)


def test_neumann_normal_derivative_on_every_side():
    g = Rectangle([-1, -1], [1, 1])
    pool = g.random_boundary_points(300, seed=1)
    a = 0.7
    params = {"a": np.array(a), "b": np.array(0.0)}
    # du/dn = 2a on every side of the square (x = +-1: n = +-e_x; y = +-1: n = +-e_y), corners excluded
    bc = NeumannBC(g, 2 * a, lambda x, on: on and not (np.isclose(abs(x[0]), 1) and np.isclose(abs(x[1]), 1)))
    err, arrays = error_of(bc, quadratic, params, pool)
    assert len(arrays[0]) > 250
    np.testing.assert_allclose(err, 0.0, atol=1e-13)
    bad = {"a": np.array(0.4), "b": np.array(0.2)}
    err, arrays = error_of(bc, quadratic, bad, pool)
    x, n = arrays[0], arrays[1]
    du = np.stack([0.8 * x[:, 0] + 0.2 * np.cos(x[:, 0]), 0.8 * x[:, 1]], axis=1)
    np.testing.assert_allclose(err[:, 0], np.sum(du * n, axis=1) - 2 * a, rtol=1e-12, atol=1e-14)
    assert_gradient_matches_central_differences(bc, quadratic, bad, arrays)


def test_robin_is_deepxdes_dirichlet_robin_example():
    # DeepXDE's poisson.1d.dirichletrobin: u = (x + 1)^2, du/dx = u at x = 1
    g = Interval(-1, 1)
    model = lambda p, x: p["c"] * (x + 1) ** 2  # noqa: E731
    bc = RobinBC(g, lambda x, u: u, on_right)
    pool = g.uniform_boundary_points(2)
    err, arrays = error_of(bc, model, {"c": np.array(1.0)}, pool)
    assert arrays[0].tolist() == [[1.0]]
    np.testing.assert_allclose(err, 0.0, atol=1e-14)
    err, arrays = error_of(bc, model, {"c": np.array(2.0)}, pool)
    np.testing.assert_allclose(err, [[8.0 - 8.0]], atol=1e-14)   # linear in c: still exact
    err, _ = error_of(RobinBC(g, lambda x, u: 2 * u, on_right), model, {"c": np.array(1.0)}, pool)
    np.testing.assert_allclose(err, [[4.0 - 8.0]])


def test_periodic_values_and_derivatives():
    g = Interval(-1, 1)
    pool = g.uniform_boundary_points(2)
    periodic = lambda p, x: p["a"] * fnp.sin(np.pi * x) + p["b"] * fnp.cos(np.pi * x)  # noqa: E731
    params = {"a": np.array(0.3), "b": np.array(1.2)}
    for order in (0, 1):
        bc = PeriodicBC(g, 0, on_right, derivative_order=order)
        err, arrays = error_of(bc, periodic, params, pool)
        np.testing.assert_array_equal(arrays[1], [[-1.0]])
        np.testing.assert_allclose(err, 0.0, atol=1e-14)
    linear = lambda p, x: p["a"] * x + p["b"] * x ** 2  # noqa: E731
    err, arrays = error_of(PeriodicBC(g, 0, on_right), linear, params, pool)
    np.testing.assert_allclose(err, [[2 * 0.3]])              # u(1) - u(-1)
    err, _ = error_of(PeriodicBC(g, 0, on_right, derivative_order=1), linear, params, pool)
    np.testing.assert_allclose(err, [[4 * 1.2]])              # u'(1) - u'(-1)
    assert_gradient_matches_central_differences(PeriodicBC(g, 0, on_right), linear, params, arrays)


def test_initial_condition_and_point_set():
    g = GeometryXTime(Interval(-1, 1), TimeDomain(0, 1))
    pool = np.concatenate([g.random_boundary_points(20, seed=0), g.random_initial_points(30, seed=0)])
    model = lambda p, X: p["k"] * fnp.exp(-X[:, 1:2]) * fnp.sin(np.pi * X[:, 0:1])  # noqa: E731
    ic = IC(g, lambda X: np.sin(np.pi * X[:, 0]), lambda x, on: on)
    err, (x, _) = error_of(ic, model, {"k": np.array(1.0)}, pool)
    assert len(x) == 30 and np.all(x[:, 1] == 0)
    np.testing.assert_allclose(err, 0.0, atol=1e-14)
    rng = np.random.default_rng(0)
    pts = np.hstack([rng.uniform(-1, 1, (9, 1)), rng.uniform(0, 1, (9, 1))])
    obs = PointSetBC(pts, np.exp(-pts[:, 1]) * np.sin(np.pi * pts[:, 0]))
    err, arrays = error_of(obs, model, {"k": np.array(1.5)}, pool)
    np.testing.assert_allclose(err[:, 0], 0.5 * np.exp(-pts[:, 1]) * np.sin(np.pi * pts[:, 0]), rtol=1e-12)
    assert_gradient_matches_central_differences(obs, model, {"k": np.array(1.5)}, arrays)


def test_component_selects_an_output():
    g = Interval(0, 1)
    two = lambda p, x: fnp.concatenate([p["a"] * x, p["b"] * x], axis=1)  # noqa: E731
    bc = DirichletBC(g, 3.0, boundary, component=1)
    err, _ = error_of(bc, two, {"a": np.array(1.0), "b": np.array(3.0)}, np.array([[1.0]]))
    np.testing.assert_allclose(err, 0.0)


def test_hard_constraint_through_an_output_transform():
    g = Interval(-1, 1)
    model = MLP([1, 8, 8, 1], seed=3).apply_output_transform(lambda x, u: (1 - x * x) * u + 0.5)
    bc = DirichletBC(g, 0.5, boundary)
    err, _ = error_of(bc, model.apply, model.params, g.uniform_boundary_points(2))
    np.testing.assert_allclose(err, 0.0, atol=1e-15)    # exact for any parameters
    x = np.linspace(-1, 1, 5).reshape(-1, 1)
    raw = MLP([1, 8, 8, 1], seed=3)
    np.testing.assert_allclose(model(x), (1 - x ** 2) * raw(x) + 0.5, rtol=1e-14)


def test_bad_conditions():
    g = Interval(-1, 1)
    with pytest.raises(ProblemError, match="none of the 2 boundary/initial points"):
        DirichletBC(g, 0.0, lambda x, on: on and np.isclose(x[0], 0.5)).arrays(g.uniform_boundary_points(2), "float64")
    with pytest.raises(ProblemError, match="must return one value per point"):
        DirichletBC(g, lambda x: np.zeros((len(x), 2)), boundary).arrays(g.uniform_boundary_points(2), "float64")
    with pytest.raises(ProblemError, match="func failed"):
        DirichletBC(g, lambda x: 1 / 0, boundary).arrays(g.uniform_boundary_points(2), "float64")
    with pytest.raises(ProblemError, match="must be a GeometryXTime"):
        IC(g, 0.0, lambda x, on: on)
    with pytest.raises(ProblemError, match="component_x"):
        PeriodicBC(g, 1, boundary)
    with pytest.raises(ProblemError, match="derivative_order"):
        PeriodicBC(g, 0, boundary, derivative_order=2)
    with pytest.raises(ProblemError, match=r"values \(M, 1\)"):
        PointSetBC(np.zeros((3, 1)), np.zeros(4))
    with pytest.raises(ProblemError, match="pinn geometry"):
        DirichletBC("square", 0.0, boundary)
    with pytest.raises(ProblemError, match="a callable x -> values or a number"):
        DirichletBC(g, "zero", boundary)


def test_operator_bc_on_the_initial_slice():
    from pinn import OperatorBC

    g = GeometryXTime(Interval(0, 1), TimeDomain(0, 1))
    pool = np.concatenate([g.random_boundary_points(10, seed=0), g.random_initial_points(12, seed=0)])
    bc = OperatorBC(g, lambda x, u, d: d("t"), lambda x, on: on and np.isclose(x[1], 0))
    (x,) = bc.arrays(pool, "float64")
    assert len(x) == 12 and np.all(x[:, 1] == 0)
    standing = lambda p, X: p["a"] * fnp.sin(np.pi * X[:, 0:1]) * fnp.cos(np.pi * X[:, 1:2])  # noqa: E731
    np.testing.assert_allclose(bc.error(lambda y: standing({"a": np.array(2.0)}, y), x), 0.0, atol=1e-14)
    moving = lambda p, X: p["a"] * fnp.sin(np.pi * X[:, 0:1]) * fnp.sin(X[:, 1:2])  # noqa: E731
    np.testing.assert_allclose(bc.error(lambda y: moving({"a": np.array(2.0)}, y), x), 2 * np.sin(np.pi * x[:, :1]),
                               rtol=1e-12)
    assert_gradient_matches_central_differences(bc, moving, {"a": np.array(2.0)}, (x,))
