"""The notebooks run top to bottom (at a small size) and render their plots."""

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_and_plots(path, monkeypatch):
    monkeypatch.setenv("ELENA_NB_SIZE", "2000")
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs), "no plot rendered"


def test_there_are_three_notebooks():
    assert [p.name for p in NOTEBOOKS] == ["01_tour.ipynb", "02_comparison.ipynb", "03_jax_pipelines.ipynb"]
    assert os.path.exists(NOTEBOOKS[0].parent / "_build.py")
