"""PDFs through the pipeline: pages, problem files recorded with reasons, links between PDFs and notes."""
from __future__ import annotations

import shutil

import pytest
from pypdf import PdfReader

from search.query import reader
from tests.conftest import ingest, need_data, run_ingest, write_tree

TEXT_PDFS = ["en/google-doc-document.pdf", "en/multicolumn.pdf", "de/GeoTopo-komprimiert.pdf",
             "en/GeoBase_NHNC1_Data_Model_UML_EN.pdf", "en/Seige_of_Vicksburg_Sample_OCR.pdf"]


@pytest.mark.slow  # embeds every page of the shared PDFs (a 100-page one among them): minutes
def test_text_pdfs_get_pages_and_problem_files_get_reasons(immediate, sift_env, tmp_path):
    source = need_data("pdf")
    root = tmp_path / "pdf"
    shutil.copytree(source, root)
    report = ingest(root, "pdfs")
    from workers import runtime
    conn = runtime.index()
    chunks = reader.visible_chunks(conn)
    for pdf in TEXT_PDFS:
        pages = len(PdfReader(root / pdf).pages)
        mine = [c for c in chunks if c["path"] == pdf]
        assert mine, pdf
        assert all(1 <= c["page"] <= c["end_page"] <= pages for c in mine), pdf
        assert mine[0]["page"] == 1 or pdf.startswith("en/Seige")
    assert max(c["end_page"] for c in chunks if c["path"] == "de/GeoTopo-komprimiert.pdf") > 100
    outcome = {f["path"]: f for f in report["published"]["failures"]}
    indexed = {c["path"] for c in chunks}
    for problem in (root / "_problem").iterdir():
        rel = f"_problem/{problem.name}"
        assert rel in indexed or (rel in outcome and outcome[rel]["reason"]), rel
    assert outcome["_problem/libreoffice-writer-password.pdf"]["reason"] == "encrypted"
    assert "no text layer" in outcome["_problem/git-no-text.pdf"]["reason"]
    stats = run_ingest(sift_env, "stats")
    assert "_problem/git-no-text.pdf: skipped at parse: no text layer" in stats.stdout


def test_same_stem_note_stands_for_its_pdf_and_links_are_recorded(immediate, tmp_path):
    source = need_data("pdf")
    root = tmp_path / "notes"
    write_tree(root, {
        "papers/multicolumn.md": "# Multicolumn (converted)\n\nThe converted text of the PDF.\n",
        "reading.md": "# Reading list\n\nSee [the doc](docs/google-doc-document.pdf) and [[multicolumn.pdf]].\n",
    })
    shutil.copy(source / "en/multicolumn.pdf", root / "papers/multicolumn.pdf")
    (root / "docs").mkdir()
    shutil.copy(source / "en/google-doc-document.pdf", root / "docs/google-doc-document.pdf")
    ingest(root)
    from workers import runtime
    conn = runtime.index()
    files = {r["path"]: r for r in reader.visible_files(conn)}
    assert "papers/multicolumn.pdf" not in files, "the same-stem conversion is indexed instead"
    assert "docs/google-doc-document.pdf" in files
    links = {(r["path"], r["target"]) for r in conn.execute(
        "SELECT f.path, l.target FROM links l JOIN files f ON f.id = l.file")}
    assert ("papers/multicolumn.md", "papers/multicolumn.pdf") in links
    assert ("reading.md", "docs/google-doc-document.pdf") in links
    assert ("reading.md", "multicolumn.pdf") in links

    from search.query.engine import Engine
    from search.query.filters import Filters
    import os
    from pathlib import Path
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    note_hit = engine.search("converted text", mode="keyword").hits[0]
    assert note_hit.path == "papers/multicolumn.md" and note_hit.attachments == ["papers/multicolumn.pdf"]
    pdf_hits = engine.search("document", mode="keyword", filters=Filters(kind="pdf")).hits
    assert pdf_hits and pdf_hits[0].path == "docs/google-doc-document.pdf"
    assert pdf_hits[0].cited_by == ["reading.md"]
