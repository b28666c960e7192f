"""A PDF's citing notes are the notes that link to it in any case, as Obsidian reads a link and as read_file's
backlinks of a note match: '[[timber report.pdf]]' is a link to 'Timber Report.pdf'. The PDF's hits listed only
the notes that wrote its name in its own case; and a note's hit listed such a link as written, 'not in the folder'."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from search.query.engine import Engine
from search.query.filters import Filters
from tests.conftest import ingest, need_data, write_tree


def test_a_pdfs_citing_notes_are_those_linking_to_it_in_any_case(immediate, tmp_path, monkeypatch):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "vault", {
        "a.md": "# A\n\nRead [[timber report.pdf]] first.\n",
        "b.md": "# B\n\nThe [report](papers/TIMBER%20REPORT.pdf) again.\n",
        "c.md": "# C\n\nSee [[Papers/Timber Report.pdf#page=2]].\n",
        "d.md": "# D\n\nAnd [[Timber Report.pdf]], as written.\n",
        "e.md": "# E\n\nNot this one: [[timber report draft.pdf]].\n"})
    (root / "papers").mkdir()
    shutil.copy(need_data("pdf/en/google-doc-document.pdf"), root / "papers" / "Timber Report.pdf")
    ingest(root, "vault")
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    pdf = engine.search("document", mode="keyword", filters=Filters(kind="pdf")).hits[0]
    assert pdf.path == "papers/Timber Report.pdf", pdf
    assert (pdf.cited_by, pdf.cited_by_total) == (["a.md", "b.md", "c.md", "d.md"], 4), pdf.cited_by
    for name in ("a.md", "b.md", "c.md", "d.md"):
        note = engine.search(f"{name[0]}", mode="keyword", filters=Filters(glob=name)).hits[0]
        assert (note.path, note.attachments, note.attachments_not_indexed) == (
            name, ["papers/Timber Report.pdf"], {}), note
    draft = engine.search("e", mode="keyword", filters=Filters(glob="e.md")).hits[0]
    assert draft.attachments == ["timber report draft.pdf"] and draft.attachments_not_indexed, draft
