"""pino's 2-D problems (Darcy2D, NavierStokes2D, BurgersSpaceTime) as workbench.Problem objects: seeded
data of the documented layout, the reference operator reproduces the data it generated, the PINO
physics loss vanishes (to the discretisation) on the truth and the loss function adds it by weight."""
import numpy as np
import pytest

import frame
import pino
from workbench.protocols import Problem

TINY = [pino.Darcy2D(resolution=9, solver_resolution=9),
        pino.NavierStokes2D(resolution=16, solver_resolution=16, t_in=2, t_out=2),
        pino.BurgersSpaceTime(resolution=16, solver_resolution=16, nt=5)]


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FRAME_CACHE_DIR", str(tmp_path))


@pytest.mark.parametrize("problem", TINY, ids=lambda p: p.name)
def test_problem_protocol_data_and_reference(problem):
    assert isinstance(problem, Problem) and problem.name in ("darcy", "navier-stokes", "burgers-pino")
    fields = problem.fields(3, seed=0, progress=False, cache=False)
    a, u = problem.data(0, "float32", num=3, progress=False, cache=False)
    assert a.dtype == u.dtype == np.float32 and a.shape[0] == u.shape[0] == 3
    np.testing.assert_array_equal(a, fields.inputs.astype(np.float32))
    other, _ = problem.data(1, "float32", num=3, progress=False, cache=False)
    assert not np.array_equal(a, other)   # another seed, other samples
    if problem.name == "darcy":
        ref = problem.reference(fields.inputs[:, 0])
        np.testing.assert_allclose(ref, fields.outputs[:, 0], rtol=1e-7, atol=1e-9)
    elif problem.name == "navier-stokes":
        ref = problem.reference(fields.inputs)
        assert ref.shape == fields.outputs.shape
        # the reference restarts the two-step scheme at t_in (one Heun step) where the data ran on:
        # an O(dt^3) difference, ~1e-7 of the field at the default dt = 5e-3
        np.testing.assert_allclose(ref, fields.outputs, rtol=1e-6, atol=1e-8)
    else:
        ref = problem.reference(fields.inputs[:, 0, 0, :])
        np.testing.assert_allclose(ref, fields.outputs[:, 0], rtol=1e-8, atol=1e-10)
    inputs, truth, shown = problem.plot_slices(fields.inputs, fields.outputs, fields.outputs)
    assert inputs.ndim in (2, 3) and truth.ndim == 3 and shown.shape == truth.shape
    assert problem.title and problem.input_label and problem.output_label


@pytest.mark.parametrize("problem", [TINY[0], pino.BurgersSpaceTime(resolution=64, solver_resolution=64, nt=41)],
                         ids=lambda p: p.name)
def test_physics_loss_is_small_on_the_truth_and_weighted_in(problem):
    # (Burgers' residual takes time differences: on 5 time levels it is no small number even on the truth.)
    fields = problem.fields(2, seed=0, progress=False, cache=False)
    a, u = fields.channels("float64")
    on_truth = float(problem.physics(u, a))
    on_zero = float(problem.physics(np.zeros_like(u) + 0.3, a))
    assert problem.has_physics and on_truth < 0.05 * on_zero

    def apply(params, x):   # a "model" that predicts the truth plus an offset
        return u + params

    data_only = frame.function(problem.loss(apply))(np.float64(0.1), a, u)
    weighted = frame.function(problem.loss(apply, physics_weight=2.0))(np.float64(0.1), a, u)
    np.testing.assert_allclose(float(weighted) - float(data_only), 2.0 * float(problem.physics(u + 0.1, a)),
                               rtol=1e-9)


def test_navier_stokes_has_no_physics_loss():
    problem = TINY[1]
    assert not problem.has_physics and problem.physics(None, None) is None
