"""Five more things a real user's folder holds (bench/hostile.py makes them full size and measures each): a PDF of
10,000 tiny fonts on one page, a PDF whose text is all in Form XObjects nested 50 deep, a note that is one Markdown
table of 5 MB, a folder link to the folder it is in, a file whose name is not UTF-8. Each is indexed or a recorded
failure that says why, and what was indexed before stays.

pypdf builds every font a page lists before the page's first operator (about 19 KB each: 10,000 took 227 MB and
1.7 s, not bounded by the deadline, checked between operators): a page listing over ingest.pdf.MAX_PAGE_FONTS fails.
Forms nested past what pypdf can follow (Python's recursion limit, about 330 here) drew nothing, and the PDF was
skipped as 'no text layer: a scan?'; it fails saying its forms could not be read now."""
from __future__ import annotations

import os

import pytest

from ingest import pdf
from ingest.document import Skip
from tests.conftest import ingest, write_tree
from tests.pdf_writer import many_fonts_pdf, nested_forms_pdf


def _text(data: bytes) -> str:
    return "\n".join(section.text for section in pdf.parse_pdf("x.pdf", data).sections)


def test_text_in_forms_fifty_deep_is_indexed_and_past_what_pypdf_follows_fails_saying_so():
    assert _text(nested_forms_pdf(50)) == "the tapir inside fifty forms"
    with pytest.raises(ValueError, match=r"forms \(Form XObjects\) that cannot be read, nested too deep") as failed:
        _text(nested_forms_pdf(400))
    assert not isinstance(failed.value, Skip), "not a scan: 'no text layer' sent the user to OCR it"


def test_a_page_listing_more_fonts_than_the_bound_fails_and_one_at_it_is_read(monkeypatch):
    monkeypatch.setattr(pdf, "MAX_PAGE_FONTS", 100)
    assert "the tapir among ten thousand fonts" in _text(many_fonts_pdf(100))
    with pytest.raises(ValueError, match=r"the page lists 101 fonts \(over 100\): its text is not read"):
        _text(many_fonts_pdf(101))


@pytest.mark.parametrize("where", ["parent", "form"])
def test_fonts_a_page_inherits_or_its_forms_list_count_toward_the_bound(monkeypatch, where):
    """Counted only in the page's own /Resources, 10,001 fonts on its /Pages node or in a form it draws were all
    built (9 s and 220 MB for the form's, bench/hostile.py's fonts-in-form.pdf)."""
    monkeypatch.setattr(pdf, "MAX_PAGE_FONTS", 100)
    assert "the tapir among ten thousand fonts" in _text(many_fonts_pdf(100, where=where))
    with pytest.raises(ValueError, match=r"the page lists 101 fonts.* \(over 100\): its text is not read"):
        _text(many_fonts_pdf(101, where=where))


def test_a_form_that_lists_itself_is_counted_once():
    cyclic = many_fonts_pdf(3, where="form").replace(b"/Resources 5 0 R ", b"/Resources << /XObject << /X1 6 0 R "
                                                     b">> /Font << /F0 7 0 R /F1 8 0 R /F2 9 0 R >> >> ")
    assert "the tapir among ten thousand fonts" in _text(cyclic)


def test_the_five_in_a_folder_leave_what_was_indexed(immediate, tmp_path, monkeypatch):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    monkeypatch.setattr(pdf, "MAX_PAGE_FONTS", 100)
    root = write_tree(tmp_path / "notes", {"kept.md": "# Kept\n\nthe heron was indexed first\n"})
    first = ingest(root)
    assert first["published"]["failures"] == []
    table = "| day | animal | count |\n|---|---|---|\n" + "".join(
        f"| 2026-01-{i % 28 + 1:02d} | the tapir {i} | {i} |\n" for i in range(5_000))
    write_tree(root, {"table.md": table})
    (root / "fonts.pdf").write_bytes(many_fonts_pdf(101))
    (root / "forms.pdf").write_bytes(nested_forms_pdf(50))
    (root / "too-deep.pdf").write_bytes(nested_forms_pdf(400))
    os.symlink(".", root / "loop")
    (root / os.fsdecode(b"name-\xff.md")).write_text("# Bytes\n\nthe okapi\n")
    report = ingest(root)
    failures = {f["path"]: (f["state"], f["reason"]) for f in report["published"]["failures"]}
    assert set(failures) == {"fonts.pdf", "too-deep.pdf", "loop", "name-\\xff.md"}, failures
    assert failures["fonts.pdf"][0] == "failed" and "101 fonts" in failures["fonts.pdf"][1]
    assert failures["too-deep.pdf"][0] == "failed" and "nested too deep" in failures["too-deep.pdf"][1]
    assert failures["name-\\xff.md"][0] == "skipped"
    assert failures["name-\\xff.md"][1].startswith("file name is not valid UTF-8")
    assert failures["loop"][0] == "skipped"
    from search.query.engine import Engine
    from workers import runtime
    engine = Engine(runtime.settings().index_path)
    found = {query: {hit.path for hit in engine.search(query, mode="keyword").hits}
             for query in ("heron indexed first", "tapir 4999", "inside fifty forms")}
    assert found == {"heron indexed first": {"kept.md"}, "tapir 4999": {"table.md"},
                     "inside fifty forms": {"forms.pdf"}}
