"""The two PINN notebooks run clean top to bottom in their short form (their cells assert the oracle passed)."""
import pathlib
import re

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = pathlib.Path(__file__).resolve().parents[2] / "notebooks"


def execute(name: str):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in outputs)
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    return text, images


def test_poisson_notebook():
    pytest.importorskip("jax")
    text, images = execute("pinn_poisson.ipynb")
    assert "JAX oracle for 'network'" in text and "pointwise u_xx" in text and "passed" in text
    assert "relative L2 error after 300 Adam steps" in text
    assert len(images) == 2  # solution and loss figures


def assert_burgers_notebook_ran(text, images):
    assert "max |u_x| at x = 0: 152.00" in text
    assert "pointwise u_t" in text and "pointwise u_xx" in text and "passed" in text
    assert "loss fell" in text
    assert len(images) == 2


def test_burgers_notebook_short_budget(monkeypatch):
    """The one-minute form (the kernel inherits the environment): it runs clean; it is not a fit."""
    pytest.importorskip("jax")
    monkeypatch.setenv("PINN_BURGERS_BUDGET", "short")
    assert_burgers_notebook_ran(*execute("pinn_burgers.ipynb"))


@pytest.mark.slow
def test_burgers_notebook_full_budget_fits(monkeypatch):
    """The notebook's default (Raissi's setting, ~15-20 min): its last cell asserts rel. L2 < 5e-3."""
    pytest.importorskip("jax")
    monkeypatch.delenv("PINN_BURGERS_BUDGET", raising=False)
    text, images = execute("pinn_burgers.ipynb")
    assert_burgers_notebook_ran(text, images)
    error = float(re.search(r"relative L2 error (\S+)", text.split("loss fell", 1)[1]).group(1))
    assert error < 5e-3

