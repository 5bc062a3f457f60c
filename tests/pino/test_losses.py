"""pino.losses: physics residuals vanish (to their order) on the generators' solutions, are differentiable graphs,
and instance-wise fine-tuning with the physics loss lowers one instance's error."""
import math

import numpy as np
import pytest

import frame
from pino import FNO2d
from pino import datasets as ds
from pino import losses as L
from pino.training import Normalized, relative_l2, train_operator
from tests.numerics import assert_close_first_order, central_difference

PI = math.pi


# -- Darcy ---------------------------------------------------------------------------------------------------------
def test_darcy_faces_residual_vanishes_on_the_generators_solution():
    data = ds.darcy_data(2, 41, solver_resolution=41, seed=0, cache=False, progress=False)
    r = np.asarray(L.darcy_residual(data.outputs, data.inputs, scheme="faces"))
    assert r.shape == (2, 39, 39)
    assert np.abs(r).max() < 1e-8                         # measured 2e-11 against an O(1) right-hand side
    assert float(L.darcy_physics_loss(data.outputs, data.inputs, scheme="faces")) < 1e-10
    assert float(L.darcy_physics_loss(data.outputs, data.inputs, scheme="faces", norm="h-1")) < 1e-10
    assert float(L.boundary_loss(data.outputs)) == 0.0


@pytest.mark.parametrize("scheme", ["pino", "faces"])
def test_darcy_residuals_are_second_order_on_smooth_fields(scheme):
    errors = []
    for n in (21, 41, 81):
        x = np.linspace(0, 1, n)
        X, Y = np.meshgrid(x, x, indexing="ij")
        u = np.sin(PI * X) * np.sin(PI * Y)
        a = 2 + np.sin(X + 2 * Y)
        f = -(np.cos(X + 2 * Y) * PI * np.cos(PI * X) * np.sin(PI * Y)
              + 2 * np.cos(X + 2 * Y) * PI * np.sin(PI * X) * np.cos(PI * Y)) + 2 * PI ** 2 * a * u
        errors.append(np.abs(np.asarray(L.darcy_residual(u[None, None], a[None, None], f, scheme=scheme))).max())
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all(orders > 1.8), (errors, orders)


def test_darcy_pino_scheme_is_not_consistent_at_the_coefficient_jumps():
    # Why the CLI's PINO terms use the "faces" scheme: PINO's central differences of a * grad u across a jump
    # of a leave an O(1) relative residual on the exact discrete solution (measured 0.53 at 41^2).
    data = ds.darcy_data(2, 41, solver_resolution=41, seed=0, cache=False, progress=False)
    assert float(L.darcy_physics_loss(data.outputs, data.inputs, scheme="pino")) > 0.1


def test_inverse_laplacian_inverts_the_five_point_laplacian():
    rng = np.random.default_rng(0)
    m, h = 9, 0.1
    r = rng.standard_normal((2, m, m))
    v = np.asarray(L.inverse_laplacian(r, h))
    p = np.pad(v, ((0, 0), (1, 1), (1, 1)))
    lap = (4 * v - p[:, :-2, 1:-1] - p[:, 2:, 1:-1] - p[:, 1:-1, :-2] - p[:, 1:-1, 2:]) / h ** 2
    np.testing.assert_allclose(lap, r, atol=1e-10)


def test_darcy_physics_loss_gradient_matches_central_differences():
    data = ds.darcy_data(1, 9, solver_resolution=9, seed=2, cache=False, progress=False)
    u = data.outputs + 1e-3 * np.random.default_rng(1).standard_normal(data.outputs.shape)
    for norm in ("l2", "h-1"):
        def loss(v, norm=norm):
            return L.darcy_physics_loss(v, data.inputs, scheme="faces", norm=norm) + L.boundary_loss(v)
        grad = frame.grad(loss)(u)
        picked = [0, 20, 40, 60]
        assert_close_first_order(np.asarray(grad).reshape(-1)[picked], central_difference(loss, u, picked))


def test_darcy_residual_refuses_mismatched_shapes():
    with pytest.raises(frame.FrameError, match="darcy_residual"):
        L.darcy_residual(np.zeros((2, 1, 9, 9)), np.zeros((2, 1, 8, 8)))
    with pytest.raises(ValueError, match="scheme"):
        L.darcy_residual(np.zeros((2, 9, 9)), np.ones((2, 9, 9)), scheme="upwind")


# -- Navier-Stokes -------------------------------------------------------------------------------------------------
def test_vorticity_residual_is_small_and_second_order_on_the_solvers_trajectories():
    w0 = ds.periodic_grf_2d(2, 32, seed=0)
    f = ds.ns_forcing(32)
    errors = []
    for records in (20, 40, 80):
        w = ds.solve_navier_stokes(w0, f, final_time=1.0, dt=1 / records / 8, record_steps=records)
        r = np.asarray(L.vorticity_residual(w, viscosity=1e-3, dt=1 / records, forcing=f, dealias=True))
        assert r.shape == (2, records - 2, 32, 32)
        errors.append(np.abs(r).max())
    # Measured 3.7e-3, 1.5e-3, 4.9e-4 against |w| ~ 0.8 (ratio -> 4 as the solver's own error fades).
    assert errors[-1] < 1e-3 and errors[1] / errors[2] > 2.5, errors
    # Without the solver's 2/3 filter the residual keeps the aliased part of u.grad w (~0.05-0.09 here).
    undealiased = np.asarray(L.vorticity_residual(w, viscosity=1e-3, dt=1 / 80, forcing=f))
    assert np.abs(undealiased).max() > 10 * errors[-1]


def test_vorticity_residual_of_a_decaying_steady_euler_flow_is_its_time_differencing_error():
    n, nu, dt = 16, 0.01, 0.01
    x = ds.torus_grid(n)
    X, Y = np.meshgrid(x, x, indexing="ij")
    w0 = np.cos(2 * PI * (X + 2 * Y)) + np.sin(2 * PI * (2 * X + Y))
    decay = nu * 4 * PI ** 2 * 5
    w = np.stack([w0 * math.exp(-decay * t) for t in np.arange(5) * dt])[None]
    r = np.asarray(L.vorticity_residual(w, viscosity=nu, dt=dt))
    # Central differences of exp(-c t): relative error c^2 dt^2 / 6 (here 6e-5) of w_t = -c w.
    assert np.abs(r).max() < 1.2 * decay ** 3 * dt ** 2 / 6 * np.abs(w0).max()


def test_navier_stokes_physics_loss_gradient_matches_central_differences():
    w = ds.solve_navier_stokes(ds.periodic_grf_2d(1, 8, seed=3), ds.ns_forcing(8), final_time=0.3, dt=0.01,
                               record_steps=3)

    def loss(v):
        return L.navier_stokes_physics_loss(v, dt=0.1, forcing=ds.ns_forcing(8))

    grad = frame.grad(loss)(w)
    picked = [1, 70, 130, 190]
    assert_close_first_order(np.asarray(grad).reshape(-1)[picked], central_difference(loss, w, picked))


# -- Burgers -------------------------------------------------------------------------------------------------------
def test_burgers_residual_is_second_order_in_time_on_the_solvers_data():
    data = ds.burgers_pino_data(2, 128, nt=201, solver_resolution=512, progress=False, cache=False)
    mids = []
    for stride in (4, 2, 1):
        r = np.asarray(L.burgers_residual(data.outputs[:, :, ::stride]))
        nt = r.shape[1] + 2
        mids.append(np.abs(r[:, (nt - 2) // 2:]).max())       # t >= 0.5: past the initial fast decay of high modes
    orders = np.log2(np.array(mids[:-1]) / np.array(mids[1:]))
    assert np.all(orders > 1.8) and mids[-1] < 1e-3, (mids, orders)
    u0 = data.outputs[:, 0, 0]
    assert float(L.initial_condition_loss(data.outputs, u0)) == 0.0
    assert float(L.burgers_pino_loss(data.outputs, u0)) < 0.05    # mean square, the early transient included


def test_burgers_pino_loss_gradient_matches_central_differences():
    data = ds.burgers_pino_data(1, 16, nt=6, solver_resolution=32, progress=False, cache=False)
    u = data.outputs + 1e-2 * np.random.default_rng(0).standard_normal(data.outputs.shape)
    u0 = data.outputs[:, 0, 0]

    def loss(v):
        return L.burgers_pino_loss(v, u0)

    picked = [0, 17, 50, 95]
    assert_close_first_order(np.asarray(frame.grad(loss)(u)).reshape(-1)[picked], central_difference(loss, u, picked))


# -- fine-tuning ---------------------------------------------------------------------------------------------------
def test_fine_tuning_with_the_darcy_physics_loss_reduces_the_instances_error():
    # A small FNO trained briefly (~6-9 % test error), then fine-tuned on one test instance from its PDE alone
    # (no solution data): the H^-1 PDE loss on the solver's grid has the exact discrete solution as minimiser.
    train = ds.darcy_data(64, 21, solver_resolution=21, seed=0, cache=False, progress=False)
    test = ds.darcy_data(2, 21, solver_resolution=21, seed=1, cache=False, progress=False)
    model = Normalized.from_data(FNO2d(n_modes=8, width=8, layers=2, domain_padding=0.25), train.inputs,
                                 train.outputs)
    trained = train_operator(model, train, test, steps=150, batch_size=16, lr=3e-3, progress=False)

    def physics(u, a):
        return L.darcy_physics_loss(u, a, scheme="faces", norm="h-1") + L.boundary_loss(u)

    x, truth = test.inputs[:1].astype("float32"), test.outputs[:1]
    result = L.fine_tune(model, trained.params, x, steps=150, physics=physics, truth=truth, lr=3e-3, eval_every=50)
    assert result.initial_error == pytest.approx(relative_l2(trained.predictions[:1], truth), rel=1e-4)
    # Measured 6.2 % -> 1.4 % (150 steps); the bound asks for a halving.
    assert result.final_error < 0.5 * result.initial_error, (result.initial_error, result.errors)
    assert result.history[-1] < result.history[0]
    assert result.prediction.shape == (1, 1, 21, 21)


def test_fine_tuning_with_an_anchor_starts_from_a_finite_gradient_and_validates_its_instance():
    model = FNO2d(n_modes=4, width=4, layers=1)
    params = model.init(0)
    x = np.random.default_rng(0).standard_normal((1, 1, 8, 8)).astype("float32")
    result = L.fine_tune(model, params, x[0], steps=3, physics=lambda u, a: L.boundary_loss(u), anchor_weight=1.0)
    assert len(result.history) == 3 and np.all(np.isfinite(result.history))
    with pytest.raises(frame.FrameError, match="one sample"):
        L.fine_tune(model, params, np.zeros((2, 1, 8, 8), "float32"), steps=1, physics=lambda u, a: L.boundary_loss(u))
