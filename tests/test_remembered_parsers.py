"""A file that failed is read again by the next scan once what parses it changed (ingest.parser_versions: Sift's
number for its PDF or notebook parser, or a parsing library's version), not only on an edit or `ingest retry-failed`;
one that fails the same way is remembered again, so it is not read at every scan. The remembered outcome's settings
held the chunker's VERSION and Sift's package version, which stays 0.1.0 through a parser's changes.

Real SQLite, huey's immediate mode, keyword only; what is read is counted at ``read_and_parse``."""
from __future__ import annotations

import pytest

from ingest import parser_versions
from tests.conftest import ingest, write_tree
from tests.pdf_writer import nested_forms_pdf
from tests.test_remembered import reads, trouble  # noqa: F401 - reads: a fixture


@pytest.fixture(autouse=True)
def _fresh_versions():
    parser_versions.versions.cache_clear()
    yield
    parser_versions.versions.cache_clear()


def test_a_failed_pdf_is_read_again_once_its_parser_changes(reads, tmp_path, monkeypatch):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nthe heron note\n"})
    (root / "forms.pdf").write_bytes(nested_forms_pdf(400))
    first = ingest(root)
    assert [t[:3] for t in trouble(first)] == [("forms.pdf", "parse", "failed")]
    reads.clear()
    assert trouble(ingest(root)) == trouble(first) and reads == [], "nothing changed: nothing read"

    monkeypatch.setattr(parser_versions, "PDF", parser_versions.PDF + 1)
    parser_versions.versions.cache_clear()
    assert trouble(ingest(root)) == trouble(first)
    assert reads == ["forms.pdf"], "a new PDF parser tries the failed PDF again, and only it"
    reads.clear()
    assert trouble(ingest(root)) == trouble(first) and reads == [], "failed the same way: not read at every scan"

    real = parser_versions._version
    monkeypatch.setattr(parser_versions, "_version", lambda name: "99.0" if name == "pypdf" else real(name))
    parser_versions.versions.cache_clear()
    ingest(root)
    assert reads == ["forms.pdf"], "a newer pypdf tries it again too"


def test_a_parser_change_reads_again_only_the_failures_of_the_kinds_it_parses(reads, tmp_path, monkeypatch):
    """With one string of every parser for every file, a new notebook parser read the failed PDF again too
    (pypdf's seconds for each PDF skipped as a scan), and a new markdown-it-py both."""
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nthe heron note\n", "bad.ipynb": "{\"cells\": oops",
                                            "blob.md": "# B\n\x00\x01 binary\n"})
    (root / "forms.pdf").write_bytes(nested_forms_pdf(400))
    first = trouble(ingest(root))
    assert sorted(t[0] for t in first) == ["bad.ipynb", "blob.md", "forms.pdf"]
    reads.clear()

    monkeypatch.setattr(parser_versions, "NOTEBOOK", parser_versions.NOTEBOOK + 1)
    parser_versions.versions.cache_clear()
    assert trouble(ingest(root)) == first
    assert reads == ["bad.ipynb"], "a new notebook parser reads the failed notebook again, not the PDF"
    reads.clear()

    real = parser_versions._version
    monkeypatch.setattr(parser_versions, "_version", lambda name: "99.0" if name == "markdown-it-py" else real(name))
    parser_versions.versions.cache_clear()
    assert trouble(ingest(root)) == first
    assert reads == ["blob.md"], "a newer markdown-it-py reads the skipped note again, neither PDF nor notebook"
