"""A reader's refusal of a file, told apart from a bug, in words (ingest.unreadable, workers.retry.describe).

Any ValueError's message was shown as the file's reason: a bug's ('not enough values to unpack (expected 2, got
1)') read as if the file were at fault, with no 'please report it'. A reader's refusal is now an
``ingest.unreadable.Unreadable`` (a ValueError), said in its words; any other ValueError is said as Sift's, its
traceback logged. A .docx whose [Content_Types].xml had no namespace read 'an error Sift did not expect'
(python-docx's AttributeError): it is said damaged, and to save it again from Word. pypdf's errors without words
were named by their class ('unreadable PDF: AssertionError'): they are worded, the class logged. The sift.ingest
log's 'Word document not read: BadZipFile: …' named no file: the parse task gives it the file's path. A bug's
ValueError inside a reader that skips a file whose zip or XML it cannot read read as the file's fault too ('not a
readable Word document: not enough values to unpack …'): it is said as Sift's (ingest.unreadable.what_is_wrong).
"""
from __future__ import annotations

import io
import logging
import zipfile

from ingest import chat, pdf, word
from tests.conftest import ingest, write_tree
from workers import retry

REFUSED = ("unreadable PDF: not a PDF: it begins b'not a pdf', where a PDF has %PDF-; it is read again once it "
           "changes")
DAMAGED_TYPES = ("not a readable Word document: its list of parts ([Content_Types].xml) is damaged: save it again "
                 "from Word as .docx, or index a copy that opens")
BUG = f"an error Sift did not expect (ValueError: not enough values to unpack (expected 2, got 1)): {retry.REPORT}"


def _no_namespace_docx() -> bytes:
    """A Word document whose [Content_Types].xml lost its namespace (damaged, or written so by another program)."""
    import docx
    document, saved = docx.Document(), io.BytesIO()
    document.add_paragraph("the heron waits by the weir")
    document.save(saved)
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(saved.getvalue())) as source, zipfile.ZipFile(out, "w") as damaged:
        for name in source.namelist():
            data = source.read(name)
            if name == "[Content_Types].xml":
                data = data.replace(b' xmlns="http://schemas.openxmlformats.org/package/2006/content-types"', b"")
            damaged.writestr(name, data)
    return out.getvalue()


def test_a_readers_refusal_is_said_in_its_words_and_a_bugs_value_error_as_sifts(immediate, tmp_path, monkeypatch,
                                                                              caplog):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "notes", {"fake.pdf": "not a pdf", "chat.json": '{"messages": []}\n',
                                           "heron.md": "# Heron\n\nthe heron waits by the weir\n"})

    def with_a_bug(path: str, text: str):
        name, kind = path.split("/")  # a real bug: the path has no folder
        return None
    monkeypatch.setattr(chat, "parse_chat_json", with_a_bug)
    with caplog.at_level(logging.WARNING, logger="sift.workers"):
        failures = ingest(root)["published"]["failures"]
    assert {f["path"]: f["reason"] for f in failures} == {"fake.pdf": REFUSED, "chat.json": BUG}, failures
    traced = {path for path in ("fake.pdf", "chat.json")
              for r in caplog.records if path in r.getMessage() and r.exc_info}
    assert traced == {"chat.json"}, "a bug's traceback is logged, a refusal's words say all"


def test_a_docx_without_its_content_types_namespace_is_said_damaged_and_the_log_names_the_file(
        immediate, tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "notes", {"minutes.docx": "plain text saved as .docx"})
    (root / "damaged.docx").write_bytes(_no_namespace_docx())
    with caplog.at_level(logging.INFO, logger="sift.ingest"):
        failures = ingest(root)["published"]["failures"]
    assert {f["path"]: f["reason"] for f in failures}["damaged.docx"] == DAMAGED_TYPES, failures
    # the class, for a bug report, after the file's path: the log said 'Word document not read: …' of no file
    logged = [r.getMessage() for r in caplog.records if r.name == "sift.ingest" and " not read: " in r.getMessage()]
    assert any(line.startswith("damaged.docx: Word document not read: AttributeError: ") for line in logged), logged
    assert "minutes.docx: Word document not read: BadZipFile: File is not a zip file" in logged, logged


def test_an_error_pypdf_gives_without_words_is_worded_and_its_class_logged(caplog):
    try:
        raise AssertionError  # as pypdf's asserts on a damaged file do
    except AssertionError as exc:
        with caplog.at_level(logging.INFO, logger="sift.ingest"):
            said = pdf._message(exc)
    assert said == "reading it stopped with no reason given"
    assert "PDF not read: AssertionError: " in caplog.text


def test_a_bugs_value_error_inside_a_reader_that_skips_is_said_as_sifts(immediate, tmp_path, monkeypatch, caplog):
    import docx
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "notes"
    root.mkdir()
    document = docx.Document()
    document.add_paragraph("the heron waits by the weir")
    document.save(root / "minutes.docx")

    def with_a_bug(self):
        name, kind = "minutes.docx".split("/")  # a real bug: the name has no folder
    monkeypatch.setattr(word._Reader, "read", with_a_bug)
    with caplog.at_level(logging.WARNING, logger="sift.ingest"):
        failures = ingest(root)["published"]["failures"]
    assert [f["reason"] for f in failures] == [
        "not a readable Word document: an error Sift did not expect (not enough values to unpack (expected 2, got "
        "1)): a bug in Sift, please report it with the log"], failures
    assert any(r.exc_info for r in caplog.records if r.name == "sift.ingest"), "its traceback, for the report"
