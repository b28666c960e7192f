"""read_file of a notebook showed each plot's base64, one line of 100 KB or more: a section with a plot stopped at
the 40 KB limit inside the image, the code and text after it not shown, each further call 40 KB more of it. An
image line is one short line naming it now (mcp_server.notebook_images), and the lines after it follow."""
from __future__ import annotations

import json

from tests.conftest import ingest, write_tree


def _plot(code: str, size: int, kind: str = "image/png") -> dict:
    return {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": [code],
            "outputs": [{"output_type": "display_data", "metadata": {},
                         "data": {kind: "iVBORw0KGgoAAAANSUhEUgAA" * (size // 24) + "\n",
                                  "text/plain": ["<Figure size 640x480 with 1 Axes>"]}}]}


def test_read_file_shows_a_notebooks_plots_as_one_line_each_and_the_cells_after_them(immediate, tmp_path,
                                                                                      monkeypatch):
    from mcp_server import reading
    from mcp_server.service import Sift
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["## Training\n", "Fit the churn model."]},
             _plot("plot_importance(model)", 150_000),
             _plot("plot_roc(model)", 90_000, "image/jpeg"),
             _plot("tiny()", 120),  # a short line stays as it is
             {"cell_type": "code", "metadata": {}, "execution_count": 2, "outputs": [],
              "source": ["print('the okapi calibrates')"]},
             {"cell_type": "markdown", "metadata": {}, "source": ["## Evaluation\n", "holdout"]}]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    root = write_tree(tmp_path / "ds", {"readme.md": "# DS\n\nnotebooks\n"})
    (root / "train.ipynb").write_text(text, encoding="utf-8")
    ingest(root, "ds")
    shown, data = reading.read(Sift(load()), "ds/train.ipynb", None, None, None, heading="Training")
    assert "the okapi calibrates" in shown and "stopped at" not in shown, shown[-300:]
    assert '"image/png": "…" [a PNG image, 147 KB, not shown]' in shown
    assert '"image/jpeg": "…" [a JPEG image, 88 KB, not shown]' in shown
    assert len(shown) < 5_000 and "iVBORw0KGgoAAAANSUhEUgAAiVBORw0KGgoAAAANSUhEUgAA" in shown  # the tiny one
    assert "Evaluation" not in shown
    lines = text.split("\n")  # the lines keep their numbers: the one after a folded image is the file's next
    numbered = {int(n): line for n, line in (row.split("\t", 1) for row in shown.split("\n")[1:] if "\t" in row)}
    assert all(lines[n - 1] == line for n, line in numbered.items() if "not shown]" not in line)
    whole, _ = reading.read(Sift(load()), "ds/train.ipynb", 1, None, None)  # from the top too: all of it in one
    assert "## Evaluation" in whole and "stopped at" not in whole
