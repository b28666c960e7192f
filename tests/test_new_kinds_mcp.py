"""This round's new kinds (slide decks, spreadsheets, Logseq pages) as an assistant meets them through the MCP
tools: what list_files, read_file and search say of them (huey in immediate mode, the tools called in-process)."""
from __future__ import annotations

import pytest

from tests.conftest import ingest, write_tree
from tests.test_slides import impress, lecture


def test_a_pdf_two_decks_of_its_name_stand_for_is_listed_once(immediate, tmp_path, monkeypatch):
    """lecture.pdf beside lecture.pptx and lecture.odp (the deck saved in both formats) was listed twice, '5 files
    match' of 4, each row naming another deck: once now, naming the first by path, as read_file does."""
    from mcp_server import reading
    from mcp_server.errors import Problem
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "work", {"notes/plan.md": "# Plan\n\nThe ferry runs hourly.\n"})
    (root / "talks").mkdir()
    (root / "talks/lecture.pptx").write_bytes(lecture())
    (root / "talks/lecture.odp").write_bytes(impress())
    (root / "talks/lecture.pdf").write_bytes(b"%PDF-1.4\n%%EOF\n")
    assert ingest(root, "work")["published"]["failures"] == []
    tools = Tools(Sift(load()))
    for args in ({}, {"glob": "talks/*"}):  # counted and listed by two queries, or from the stored matches
        listed = tools.list_files(**args).structured_content
        pdfs = [f for f in listed["files"] if f["path"] == "work/talks/lecture.pdf"]
        assert len(pdfs) == 1, (args, pdfs)
        assert pdfs[0]["reason"].startswith("not indexed itself: the slide deck work/talks/lecture.odp beside it"), pdfs
        assert listed["total"] == len(listed["files"]) == (3 if args else 4), listed
    with pytest.raises(Problem, match="the slide deck work/talks/lecture.odp beside it"):
        reading.read(Sift(load()), "work/talks/lecture.pdf", None, None, 1)
