"""A notebook's outputs were all left out: a metric a cell printed ('AUC 0.873'), a pandas warning it raised
(SettingWithCopyWarning), an error's message, a table it showed were found by no search, though they are what a
data scientist remembers of a notebook. Now a code cell's text outputs follow its code (``Out: …``), at its lines;
images, HTML and an output of more than OUTPUT_LIMIT characters of JSON stay out, unparsed, but a training log's last
lines: its final metric was left out with the rest of it."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ingest.parse import parse_file
from search.query.engine import Engine
from tests.conftest import ingest, write_tree

PNG = "iVBORw0KGgo" * 20_000  # a plot: 220 KB of base64, over OUTPUT_LIMIT


def _notebook(indent: int | None, plot: bool, prose: bool = False) -> str:
    def stream(text, name="stdout"):
        return {"output_type": "stream", "name": name, "text": text.splitlines(True)}
    log = [f"[{i}]\tvalidation-auc:0.{500 + i % 400}\n" for i in range(4_000)]  # a training log: 100 KB, over the limit
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Churn model\n"]},
        {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [
            {"output_type": "execute_result", "execution_count": 1, "metadata": {},
             "data": {"text/plain": ["   customer_id  customer_ltv\n", "0        10001        412.50"],
                      "text/html": ["<table><tr><th>marmoset_html</th></tr></table>"]}}],
         "source": ["features.head()"]},
        {"cell_type": "code", "execution_count": 2, "metadata": {}, "outputs": [
            stream("/tmp/ipykernel_41/33.py:2: SettingWithCopyWarning: \nA value is trying to be set on a copy\n",
                   "stderr")],
         "source": ["recent['bucket'] = 1"]},
        {"cell_type": "code", "execution_count": 3, "metadata": {}, "outputs": [
            {"output_type": "stream", "name": "stdout", "text": log}, stream("AUC 0.873\n")],
         "source": ["model.fit(X, y)\n", "print(f'AUC {auc:.3f}')"]},
        {"cell_type": "code", "execution_count": 4, "metadata": {}, "outputs": [
            {"output_type": "error", "ename": "AttributeError", "evalue": "Can only use .dt accessor with "
             "datetimelike values", "traceback": ["\u001b[0;31mAttributeError\u001b[0m: tapir_traceback_frame"]}],
         "source": ["orders.created_at.dt.month"]},
    ]
    if prose:  # the outputs under half the file: parsed with it, each reduced as it is read (_without_output)
        cells.append({"cell_type": "markdown", "metadata": {}, "source": ["the capybara swims far\n"] * 12_000})
    if plot:
        cells.append({"cell_type": "code", "execution_count": 5, "metadata": {}, "source": ["plot(model)"],
                      "outputs": [{"output_type": "display_data", "metadata": {},
                                   "data": {"image/png": PNG, "text/plain": ["<Figure of an okapi>"]}}]})
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=indent)


@pytest.mark.parametrize("indent,plot,prose", [(1, True, True), (1, True, False), (None, True, False)],
                         ids=["outputs-parsed", "outputs-cut-by-lines", "one-line"])
def test_a_code_cells_text_outputs_follow_its_code_and_images_logs_and_html_stay_out(indent, plot, prose):
    text = _notebook(indent, plot, prose)
    doc = parse_file("churn.ipynb", text.encode())
    body = "\n".join(s.text for s in doc.sections)
    assert "Out: customer_id  customer_ltv\n0        10001        412.50" in body
    assert "SettingWithCopyWarning" in body
    assert "Out: AUC 0.873" in body  # a log over the limit: its last lines alone, unparsed (its final metric)
    assert "[3999]\tvalidation-auc:0.899\nOut: AUC 0.873" in body and "[3000]\tvalidation" not in body
    assert "Out: … [3" in body
    assert "Out: AttributeError: Can only use .dt accessor with datetimelike values" in body
    assert "marmoset_html" not in body and "tapir_traceback_frame" not in body
    assert "okapi" not in body and "iVBOR" not in body
    fit = next(s for s in doc.sections if s.text.startswith("model.fit"))
    if indent is not None:  # at the cell's source lines, as before
        lines = text.split("\n")
        assert lines[fit.start_line - 1].strip() == '"model.fit(X, y)\\n",'
        assert lines[fit.end_line - 1].strip() == '"print(f\'AUC {auc:.3f}\')"'


def test_a_metric_and_a_warning_a_notebook_printed_are_found(immediate, tmp_path):
    root = write_tree(tmp_path / "ds", {"log.md": "# Experiments\n\nv2: xgboost default params\n"})
    (root / "train.ipynb").write_text(_notebook(1, plot=True), encoding="utf-8")
    assert ingest(root, "ds")["published"]["failures"] == []
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    for query in ("AUC 0.873", "SettingWithCopyWarning", "datetimelike"):
        hits = engine.search(query, limit=3, mode="keyword").hits
        assert [h.path for h in hits][:1] == ["train.ipynb"], query
    hit = engine.search("0.873", limit=3, mode="keyword").hits[0]
    lines = _notebook(1, plot=True).split("\n")  # the hit is at the code that printed it
    assert '"print(f\'AUC {auc:.3f}\')"' in lines[hit.end_line - 1]


@pytest.mark.parametrize("indent", [1, None], ids=["lines", "one-line"])
def test_a_long_logs_last_lines_are_read_from_its_end_as_one_string_too_and_a_long_plot_stays_out(indent):
    """A log written as one string (not Jupyter's list of lines) keeps its last lines as well, cut at a line's
    start; an output over the limit of another type (a long text/plain repr) stays out, and so, cut out unparsed,
    does a stream whose keys come in another order than Jupyter's (its text is read back only as the last key)."""
    log = "".join(f"step {i} val_auc 0.{100 + i % 800}\n" for i in range(5_000)) + "final val_auc 0.912\n"
    cells = [{"cell_type": "code", "execution_count": 1, "metadata": {}, "source": ["fit()"], "outputs": [
                 {"name": "stdout", "output_type": "stream", "text": log}]},
             {"cell_type": "code", "execution_count": 2, "metadata": {}, "source": ["show()"], "outputs": [
                 {"output_type": "execute_result", "execution_count": 2, "metadata": {},
                  "data": {"text/plain": ["wombat repr " * 8_000 + "\n", "last wombat\n"]}}]},
             {"cell_type": "code", "execution_count": 3, "metadata": {}, "source": ["again()"], "outputs": [
                 {"text": ["quokka\n"] * 12_000, "output_type": "stream", "name": "stdout"}]}]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=indent)
    fit, show, again = parse_file("t.ipynb", text.encode()).sections
    assert fit.text.startswith("fit()\nOut: … step 49")
    assert fit.text.endswith("step 4999 val_auc 0.299\nfinal val_auc 0.912")
    assert len(fit.text) < 2_100 and "step 4899 " not in fit.text
    assert show.text == "show()" and "quokka" not in again.text
