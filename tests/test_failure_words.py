"""Why a file failed, in words its reader can act on: no exception class names in stats, list_files, search.

A damaged PDF read 'failed at parse: ValueError: unreadable PDF: …' in `ingest stats`, `ingest files` (list_files)
and search's freshness line: Python's class name, which tells the person reading it nothing. The class goes to
the worker's log, for a bug report; an error Sift did not expect still names it, asking for the report.
"""
from __future__ import annotations

import logging
import shutil
import zipfile

import pytest

from ingest import pdf
from tests.conftest import ingest, need_data, write_tree
from workers import retry

DAMAGED = "unreadable PDF: " + pdf.DAMAGED.format(why="Invalid object in /Pages")
NOT_A_PDF = ("unreadable PDF: not a PDF: it begins b'not a pdf', where a PDF has %PDF-; it is read again once it "
             "changes")


def test_stats_and_the_file_list_say_why_a_bad_file_failed_without_a_class_name(immediate, tmp_path, monkeypatch,
                                                                               capsys, caplog):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "notes", {"heron.md": "# Heron\n\nthe heron waits by the weir\n",
                                           "fake.pdf": "not a pdf"})
    shutil.copy(need_data("pdf") / "_problem" / "unreadablemetadata.pdf", root / "damaged.pdf")
    with zipfile.ZipFile(root / "bomb.docx", "w", zipfile.ZIP_DEFLATED) as bomb:  # 140 MB unzipped from 140 KB
        bomb.writestr("word/document.xml", "<w:document><w:body>" + "a" * 140_000_000 + "</w:body></w:document>")
    with caplog.at_level(logging.WARNING, logger="sift.workers"):
        ingest(root)
    from ingest import cli
    assert cli.main(["stats"]) == 0
    stats = capsys.readouterr().out
    assert f"    damaged.pdf: failed at parse: {DAMAGED}\n" in stats, stats
    assert f"    fake.pdf: failed at parse: {NOT_A_PDF}\n" in stats, stats
    assert ("    bomb.docx: skipped at parse: its parts read unzip to 140,000,042 bytes (over 134,217,728): a zip bomb, "
            "not a Word document\n") in stats, stats
    assert "Error" not in stats, stats
    assert cli.main(["files", str(root), "--sort", "path"]) == 0
    listed = [line.split("  ", 4)[-1] for line in capsys.readouterr().out.splitlines()[1:4]]
    assert listed == [f"failed: {DAMAGED} (at parse)", f"failed: {NOT_A_PDF} (at parse)", "indexed"], listed
    logged = [r.getMessage() for r in caplog.records if "damaged.pdf" in r.getMessage()]
    assert any("Unreadable: unreadable PDF" in line for line in logged), logged  # for a bug report


@pytest.mark.parametrize("error, said", [
    (b"caf\xe9".decode("utf-8", "surrogateescape").encode, "it holds text that utf-8 cannot store ('\\udce9' at "
                                                           f"character 3): {retry.REPORT}"),
    (b"caf\xe9 noir".decode, "its text is not valid utf-8 (byte 0xe9 at offset 3): save it as UTF-8"),
    (lambda: {}["sections"], f"an error Sift did not expect (KeyError: 'sections'): {retry.REPORT}"),
])
def test_errors_without_a_readers_words_are_said_plainly_and_a_bug_is_named_for_its_report(error, said):
    try:
        error()
    except Exception as exc:  # noqa: BLE001 - real errors, raised as Python raises them
        assert retry.describe(exc) == said
    else:
        raise AssertionError("no error raised")
