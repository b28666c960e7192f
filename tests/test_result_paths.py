"""A path as results show it, with its place after it, is taken back by read_file and similar (real sift-mcp
over stdio).

search shows a hit as 'papers/notes/wal.md  lines 3-5' and a PDF's as 'papers/siege.pdf  page 2'; ingest search
as 'papers/notes/wal.md:3-5' and 'papers/siege.pdf p.2'. A model copies such a line whole, or writes the
file:line form it knows from compilers and GitHub ('#L3-L5'). read_file answered each with "no file
'papers/notes/wal.md:3-5' in the indexed folders" and similar likewise; now they read the file at that place,
and say how the path was read.
"""
from __future__ import annotations

import re

from tests.conftest import ingest, need_data, write_tree
from tests.test_mcp_server import call, run, text

WAL = "# WAL\n\nintro line\nSQLite readers keep reading a snapshot\nwhile one writer appends to the log\nend\n"


def shown_place(answer, path: str) -> str:
    """The hit line of ``path`` as search's text shows it, without its number and score: what a model copies."""
    line = next(line for line in text(answer).splitlines() if re.match(rf"\d+\. {re.escape(path)}\s", line))
    return re.sub(r"^\d+\. |  \(score .*$", "", line)


def test_a_path_with_the_lines_or_page_a_result_shows_is_read_there(immediate, tmp_path, servers, sift_env):
    root = write_tree(tmp_path / "papers", {"notes/wal.md": WAL, "notes/other.md": "# Other\n\nwriters and logs\n"})
    (root / "siege.pdf").write_bytes(need_data("pdf/en/Seige_of_Vicksburg_Sample_OCR.pdf").read_bytes())
    ingest(root, "papers")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            found = await call(s, "search", query="readers snapshot writer", mode="keyword")
            pdf_hit = await call(s, "search", query="Vicksburg", mode="keyword", kind="pdf", limit=1)
            note_form = shown_place(found, "papers/notes/wal.md")
            pdf_form = shown_place(pdf_hit, "papers/siege.pdf")
            notes = {form: await call(s, "read_file", path=form)
                     for form in (note_form, "papers/notes/wal.md:4-5", "papers/notes/wal.md#L4-L5",
                                  "notes/wal.md:4")}
            pdfs = {form: await call(s, "read_file", path=form) for form in (pdf_form, "papers/siege.pdf p.2")}
            like = await call(s, "similar", path="papers/notes/wal.md:4-5", limit=3)
            explicit = await call(s, "read_file", path="papers/notes/wal.md:4-5", start_line=1, end_line=2)
            return found, note_form, notes, pdf_form, pdfs, like, explicit
    found, note_form, notes, pdf_form, pdfs, like, explicit = run(scenario)
    assert re.fullmatch(r"papers/notes/wal\.md  lines? \d+(-\d+)?", note_form), note_form
    assert re.fullmatch(r"papers/siege\.pdf  pages? \d+.*", pdf_form), pdf_form
    for form, answer in notes.items():
        assert not answer.is_error, (form, text(answer))
        assert answer.structured_content["path"] == "papers/notes/wal.md"
        assert "as the file 'papers/notes/wal.md'" in text(answer), text(answer)
    hit = next(h for h in found.structured_content["results"] if h["path"] == "papers/notes/wal.md")
    assert notes[note_form].structured_content["start_line"] == hit["start_line"]
    assert notes[note_form].structured_content["end_line"] == hit["end_line"]
    for form in ("papers/notes/wal.md:4-5", "papers/notes/wal.md#L4-L5"):
        assert text(notes[form]).splitlines()[1:3] == ["     4\tSQLite readers keep reading a snapshot",
                                                       "     5\twhile one writer appends to the log"], form
        assert notes[form].structured_content["end_line"] == 5
    assert notes["notes/wal.md:4"].structured_content["start_line"] == 4
    page = int(re.search(r"pages? (\d+)", pdf_form)[1])
    assert not pdfs[pdf_form].is_error and pdfs[pdf_form].structured_content["page"] == page, text(pdfs[pdf_form])
    assert not pdfs["papers/siege.pdf p.2"].is_error and pdfs["papers/siege.pdf p.2"].structured_content["page"] == 2
    assert not like.is_error and "like papers/notes/wal.md" in text(like), text(like)
    assert explicit.structured_content["start_line"] == 1 and explicit.structured_content["end_line"] == 2, \
        "start_line and end_line given win over the place written after the path"
