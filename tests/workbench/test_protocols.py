"""workbench.protocols: pinn's and pino's problems and models satisfy Problem / Model; workbench's layering."""
import ast
import pathlib

import numpy as np
import pytest

import pinn
import pino
from workbench.protocols import Model, Problem

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _imports_of(package: str, forbidden: tuple[str, ...]) -> list[str]:
    """`package`'s imports (module- and function-level) of the top-level packages `forbidden`."""
    offenders = []
    for path in sorted((ROOT / package).glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            offenders += [f"{package}/{path.name}: {n}" for n in names if n.split(".")[0] in forbidden]
    return offenders


def test_workbench_never_imports_pinn_or_pino():
    assert _imports_of("workbench", ("pinn", "pino")) == []


def test_pinn_and_pino_do_not_import_each_other():
    assert _imports_of("pinn", ("pino",)) == [] and _imports_of("pino", ("pinn",)) == []


@pytest.mark.parametrize("problem", [pinn.Poisson1D(n_collocation=8), pinn.Burgers1D(n_collocation=8),
                                     pino.PeriodicPoisson1D(n=16), pino.BurgersOperator1D()],
                         ids=lambda p: type(p).__name__)
def test_problems_satisfy_the_protocol(problem):
    assert isinstance(problem, Problem) and isinstance(problem.name, str) and problem.name
    data = problem.data(0, "float64") if isinstance(problem, pinn.Problem) else None
    if isinstance(problem, pinn.Problem):
        assert all(np.asarray(a).dtype == np.float64 for a in data)
    elif isinstance(problem, pino.PeriodicPoisson1D):
        (f,) = problem.data(0, "float32", num=3)
        assert f.shape == (3, 1, 16) and f.dtype == np.float32
        np.testing.assert_allclose(problem.reference(f[:, 0].astype(np.float64)), problem.solve(f[:, 0]))
    else:
        a, u = problem.data(0, "float32", num=2, n=32)
        assert a.shape == u.shape == (2, 1, 32) and u.dtype == np.float32


def test_pinn_and_pino_problem_names_differ_where_the_problems_do():
    # pinn's poisson1d (-u'' = f, fixed ends) is not pino's periodic -u'' + u = f; the two Burgers are the
    # PINN problem and the operator data set, named apart in pino
    assert pinn.Poisson1D.name == "poisson1d" and pino.PeriodicPoisson1D.name == "periodic-poisson1d"
    assert pino.Burgers1D is pino.BurgersOperator1D and pino.BurgersOperator1D is not pinn.Burgers1D


@pytest.mark.parametrize("model", [pinn.MLP([1, 4, 1]), pinn.FourierFeatureMLP([1, 4, 1], num_features=2),
                                   pinn.ModifiedMLP([1, 4, 4, 1]), pino.FNO1d(modes=2, width=4, layers=1),
                                   pino.FNO2d(n_modes=4, width=4, layers=1)],
                         ids=lambda m: type(m).__name__)
def test_models_satisfy_the_protocol_and_apply_their_init(model):
    assert isinstance(model, Model)
    if isinstance(model, pinn.Network):
        params, x = model.init(0), np.linspace(-1, 1, 5).reshape(-1, 1)
    else:
        params = model.init(0, "float64")
        x = np.zeros((2, 1) + (8,) * (2 if isinstance(model, pino.FNO2d) else 1))
    out = np.asarray(model.apply(params, x))
    assert out.shape[0] == x.shape[0] and np.isfinite(out).all()


def test_a_plain_object_is_not_a_problem_or_model():
    assert not isinstance(object(), Problem) and not isinstance(object(), Model)
