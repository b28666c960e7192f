"""Jupyter notebooks: a .ipynb was not read at all (counted among 'kinds Sift does not read'), though its cells
are notes and code a person wrote. Now its markdown and code cells are searchable, at the file's own lines."""
from __future__ import annotations

import json
import os
from pathlib import Path

from ingest.parse import parse_file
from search.query.engine import Engine
from tests.conftest import ingest, write_tree

PNG = "iVBORw0KGgo" * 150_000  # an output's image: one line of 1.6 MB, longer than any line of prose


def notebook(indent: int | None = 1) -> str:
    """A notebook as Jupyter saves it (nbformat 4, indent 1, each source line a string on a line of its own)."""
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Tide tables\n", "\n", "Where the **ospreys** nest.\n",
                                                              "```\n", "# not a heading\n", "```"]},
        {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [
            {"output_type": "display_data", "data": {"image/png": PNG, "text/plain": ["<plot of quetzalcoatl>"],
                                                     "application/json": {"source": ["a key of its own"]}},
             "metadata": {}}],
         "source": ["import pandas as pd\n", "harbour = pd.read_csv('harbour.csv')\n", "harbour.plot()"]},
        {"cell_type": "markdown", "metadata": {}, "source": ["## Spring tides\n", "Twice a month the range peaks."]},
        {"cell_type": "code", "execution_count": 2, "metadata": {}, "outputs": [], "source": []},
    ]
    return json.dumps({"cells": cells, "metadata": {"kernelspec": {"name": "python3"}}, "nbformat": 4,
                       "nbformat_minor": 5}, indent=indent)


def test_cells_are_sections_at_the_files_own_lines_and_outputs_are_left_out():
    text = notebook()
    doc = parse_file("tides.ipynb", text.encode())
    assert doc.title == "Tide tables"
    assert [s.heading_path for s in doc.sections] == [["Tide tables"], ["Tide tables"],
                                                     ["Tide tables", "Spring tides"]]
    lines = text.split("\n")
    for section in doc.sections:  # each line of a cell is on the file's line the section says
        shown = [json.loads(line.strip().rstrip(",")) for line in lines[section.start_line - 1:section.end_line]]
        assert "".join(shown) == section.text, section
    body = "\n".join(s.text for s in doc.sections)
    assert "harbour.plot()" in body and "ospreys" in body and "# not a heading" in body
    assert "quetzalcoatl" not in body and "iVBOR" not in body and '"cell_type"' not in body


def test_a_notebook_saved_as_one_line_is_read_cell_by_cell_on_that_line():
    doc = parse_file("tides.ipynb", notebook(indent=None).encode())
    assert [(s.start_line, s.end_line) for s in doc.sections] == [(1, 1)] * 3
    assert "harbour = pd.read_csv('harbour.csv') harbour.plot()" in doc.sections[1].text


def test_a_notebook_is_indexed_and_its_cells_found_where_they_are(immediate, tmp_path):
    root = write_tree(tmp_path / "lab", {"readme.md": "# Lab\n\nnotebooks of the harbour survey\n"})
    (root / "tides.ipynb").write_text(notebook(), encoding="utf-8")
    published = ingest(root, "lab")["published"]
    assert published["failures"] == [] and published["unread"] == {}
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    hits = engine.search("ospreys", limit=5, mode="keyword").hits
    assert [(h.path, h.title) for h in hits] == [("tides.ipynb", "Tide tables")]
    line = notebook().split("\n")[hits[0].start_line - 1]
    assert line.strip() == '"# Tide tables\\n",', line
    assert [h.path for h in engine.search("harbour plot", limit=5, mode="keyword").hits][0] == "tides.ipynb"
    assert engine.search("quetzalcoatl", limit=5, mode="keyword").hits == []


def test_an_empty_notebook_is_an_empty_note_and_broken_json_says_so():
    """A notebook file just made (0 bytes) was skipped as 'its JSON does not parse': it is an empty note, as an
    empty .md is; JSON that is not a notebook is skipped with what is wrong."""
    import pytest
    from ingest.document import Skip
    for empty in (b"", b"\n  \n"):
        doc = parse_file("new.ipynb", empty)
        assert (doc.kind, doc.title, doc.sections) == ("note", "new", [])
    with pytest.raises(Skip, match="^not a notebook: its JSON does not parse"):
        parse_file("bad.ipynb", b'{"cells": [')
    with pytest.raises(Skip, match="^not a notebook: no list of cells"):
        parse_file("old.ipynb", b'{"worksheets": []}')


def test_a_cell_with_a_lone_surrogate_escape_is_indexed_with_the_notes_beside_it(immediate, tmp_path):
    """JSON's "\\ud800" escape makes a lone surrogate, which UTF-8 (SQLite) cannot store: a notebook with one in
    a cell failed at chunk with Python's own words ("UnicodeEncodeError: 'utf-8' codec can't encode character
    '\\ud800' …: surrogates not allowed") and none of its cells was searchable. A lone one now reads as U+FFFD,
    as in front matter and PDF text, and an escaped pair makes its one character."""
    root = write_tree(tmp_path / "lab", {"readme.md": "# Lab\n\nnotebooks of the harbour survey\n"})
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# Buoy \ud800 log\n", "the cormorant dives\n"]},
             {"cell_type": "code", "metadata": {}, "outputs": [], "source": ["depth = 3  # \udfff \ud83d\ude00 heron\n"]}]
    (root / "buoy.ipynb").write_text(json.dumps({"cells": cells, "nbformat": 4}, indent=1), encoding="utf-8")
    published = ingest(root, "lab")["published"]
    assert published["failures"] == []
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    hits = engine.search("cormorant", limit=5, mode="keyword").hits
    assert [(h.path, h.title) for h in hits] == [("buoy.ipynb", "Buoy \ufffd log")]
    code = engine.search("heron", limit=5, mode="keyword").hits
    assert [h.path for h in code] == ["buoy.ipynb"] and "\ufffd \U0001f600 **heron**" in code[0].snippet


def test_read_file_reads_a_notebooks_section_by_the_heading_its_hits_name(immediate, tmp_path, monkeypatch):
    """A hit's heading path named a notebook's markdown heading ('Survival analysis > IL-6 levels'), and read_file
    with heading='IL-6 levels' answered that the notebook 'has no headings ('# …' lines)'. It reads the cells from
    that heading's to the next heading of its level or above, at the file's own lines."""
    from mcp_server import reading
    from mcp_server.service import Sift
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# Survival analysis\n", "Cox model for fracture."]},
             {"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": [],
              "source": ["cph = CoxPHFitter()\n", "cph.fit(df)"]},
             {"cell_type": "markdown", "metadata": {}, "source": ["## IL-6 levels\n", "Plot IL-6 by BRCA1 status."]},
             {"cell_type": "code", "metadata": {}, "execution_count": 2, "outputs": [], "source": ["plot(il6)"]},
             {"cell_type": "markdown", "metadata": {}, "source": ["# Appendix\n", "Session info."]}]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    root = write_tree(tmp_path / "lab", {"readme.md": "# Lab\n\nThe survival notebooks.\n"})
    (root / "cox.ipynb").write_text(text, encoding="utf-8")
    ingest(root, "lab")
    shown, data = reading.read(Sift(load()), "lab/cox.ipynb", None, None, None, heading="IL-6 levels")
    lines = text.split("\n")
    assert lines[data["start_line"] - 1].strip() == '"## IL-6 levels\\n",', shown
    assert "plot(il6)" in shown and "Appendix" not in shown and "CoxPHFitter" not in shown, shown


def test_a_cell_of_headings_alone_heads_the_cell_under_it_not_a_passage_of_its_own(immediate, tmp_path):
    """A markdown cell '## Training' was a passage of that word alone: a hit showing nothing, ranked above the
    code under it for a question about training. It now begins the passage of the cell under it, at its own line
    (the code at the code's lines); a heading with nothing under it before the next of its level stays alone."""
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# Churn model\n", "\n", "the gannet baseline"]},
             {"cell_type": "markdown", "metadata": {}, "source": ["## Training\n", "### Fit"]},
             {"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": [],
              "source": ["model = XGBClassifier()\n", "model.fit(X, y)"]},
             {"cell_type": "markdown", "metadata": {}, "source": ["## Unwritten"]},
             {"cell_type": "markdown", "metadata": {}, "source": ["## Evaluation\n", "the puffin holdout"]}]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    doc = parse_file("churn.ipynb", text.encode())
    assert [(s.text, s.heading_path) for s in doc.sections] == [
        ("# Churn model\n\nthe gannet baseline", ["Churn model"]),
        ("## Training\n### Fit\nmodel = XGBClassifier()\nmodel.fit(X, y)", ["Churn model", "Training", "Fit"]),
        ("## Unwritten", ["Churn model", "Unwritten"]),
        ("## Evaluation\nthe puffin holdout", ["Churn model", "Evaluation"])]
    root = write_tree(tmp_path / "ds", {"readme.md": "# DS\n\nnotebooks\n"})
    (root / "churn.ipynb").write_text(text, encoding="utf-8")
    assert ingest(root, "ds")["published"]["failures"] == []
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    hits = engine.search("Training", limit=5, mode="keyword").hits
    assert [h.path for h in hits] == ["churn.ipynb"] and "XGBClassifier" in hits[0].snippet
    lines = text.split("\n")
    assert lines[hits[0].start_line - 1].strip() == '"## Training\\n",'
    assert lines[hits[0].end_line - 1].strip() == '"model.fit(X, y)"'


def test_a_notebooks_headings_of_one_level_are_side_by_side_not_each_under_the_last(immediate, tmp_path,
                                                                                     monkeypatch):
    """A notebook without a '# ' heading ('## Load data', '## Training', '## Evaluation') had each heading nested
    under the one before ('Load data > Training > Evaluation'), and read_file's heading='Training' read to the
    notebook's end. A heading closes those of its level and deeper, as in a Markdown note."""
    from mcp_server import reading
    from mcp_server.service import Sift
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["## Load data\n", "From the warehouse."]},
             {"cell_type": "markdown", "metadata": {}, "source": ["## Training\n", "Fit the churn model."]},
             {"cell_type": "markdown", "metadata": {}, "source": ["#### Tuning\n", "Grid over depth."]},
             {"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": [], "source": ["fit(model)"]},
             {"cell_type": "markdown", "metadata": {}, "source": ["### Early stopping\n", "Patience 20."]},
             {"cell_type": "markdown", "metadata": {}, "source": ["## Evaluation\n", "The wombat holdout."]}]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    doc = parse_file("churn.ipynb", text.encode())
    assert [s.heading_path for s in doc.sections] == [
        ["Load data"], ["Training"], ["Training", "Tuning"], ["Training", "Tuning"], ["Training", "Early stopping"],
        ["Evaluation"]]
    root = write_tree(tmp_path / "ds", {"readme.md": "# DS\n\nnotebooks\n"})
    (root / "churn.ipynb").write_text(text, encoding="utf-8")
    ingest(root, "ds")
    shown, _ = reading.read(Sift(load()), "ds/churn.ipynb", None, None, None, heading="Training")
    assert "fit(model)" in shown and "Patience 20" in shown and "wombat" not in shown, shown
