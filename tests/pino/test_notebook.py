"""notebooks/pino_spectral.ipynb runs clean in its short form (PINO_NOTEBOOK_SHORT=1); its cells assert their claims."""
import pathlib

import nbformat
from nbclient import NotebookClient

NOTEBOOK = pathlib.Path(__file__).resolve().parents[2] / "notebooks" / "pino_spectral.ipynb"


def test_pino_notebook_executes_in_short_form(monkeypatch):
    monkeypatch.setenv("PINO_NOTEBOOK_SHORT", "1")   # the kernel inherits this process's environment
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outputs)
    assert "short run" in text and "physics-only test relative L2 error" in text
    assert "Burgers test relative L2 error" in text and "passed" in text
    assert sum("image/png" in o.get("data", {}) for o in outputs) >= 3, "the notebook's plots were not produced"
