"""Edge cases of the wiki export readers (ingest.webpage, ingest.table) found in review: each lost text a user
had written."""
from __future__ import annotations

import pytest

from ingest.parse import parse_file

PAGE = ("<!DOCTYPE html>\n<html><head><title>Runbook</title></head>\n<body>\n{empty}\n<h1>Failover</h1>\n"
        "<p>Promote the replica in eu-west first.</p>\n</body></html>\n")


@pytest.mark.parametrize("empty", ['<div class="sidebar"/>', '<nav id="menu" />', '<iframe src="video.html"/>',
                                   '<script src="app.js"/>', "<svg><svg/></svg>"])
def test_a_page_goes_on_after_a_skipped_element_written_self_closed(empty):
    """An XHTML export's empty sidebar, menu, iframe or script written self-closed ('<div class="sidebar"/>') was
    taken as opened and never closed: everything after it was skipped as navigation, and the page had no text."""
    doc = parse_file("Runbook.html", PAGE.format(empty=empty).encode())
    assert (doc.kind, doc.title) == ("note", "Runbook")
    assert [(s.heading_path, s.text) for s in doc.sections] == [
        (["Failover"], "Failover\nPromote the replica in eu-west first.")]


def test_a_page_whose_head_has_an_empty_title_written_self_closed_is_titled_by_its_heading():
    """'<title/>' in the <head>: the title was taken as open until the page's end, every word of the body went into
    it and the page had no text."""
    doc = parse_file("Runbook.html", PAGE.replace("<title>Runbook</title>", "<title/>").format(empty="").encode())
    assert doc.title == "Failover"
    assert [s.text for s in doc.sections] == ["Failover\nPromote the replica in eu-west first."]
