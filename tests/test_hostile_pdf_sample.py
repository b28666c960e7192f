"""A PDF of over ingest.pdf.SAMPLE_FROM pages is sampled before it is read whole (its first pages, some spread
through the rest, its last: tests/test_hostile_pdf_empty_pages.py). A scan whose text layer was only on pages
the sample did not look at (a typed letter in the middle of a binder of scanned receipts) was skipped as having
no text layer, its text never indexed. The sample is trusted now only where no page is given a font to draw text
with (ingest.pdf._fonts_given)."""
from __future__ import annotations

import pytest

from ingest import pdf
from ingest.document import Skip
from tests.test_hostile_pdf_empty_pages import PAGES, _pdf


def _unsampled(count: int) -> list[int]:
    """Pages (0-based) the sample does not look at, as ingest.pdf._textless_sample picks them."""
    rest = count - pdf.SAMPLE_HEAD - pdf.SAMPLE_TAIL
    picks = {*range(pdf.SAMPLE_HEAD), *range(count - pdf.SAMPLE_TAIL, count),
             *(pdf.SAMPLE_HEAD + rest * k // pdf.SAMPLE_SPREAD for k in range(pdf.SAMPLE_SPREAD))}
    return [page for page in range(count) if page not in picks]


@pytest.mark.parametrize("branch", [0, 100])
def test_a_scan_with_a_text_layer_only_between_the_sampled_pages_is_read_whole(branch):
    middle = [page for page in _unsampled(PAGES) if PAGES // 3 < page][:2]
    doc = pdf.parse_pdf("binder.pdf", _pdf(PAGES, text_on=tuple(middle), branch=branch))
    assert doc.meta["pages"] == PAGES and doc.meta["pages_without_text"] == PAGES - 2
    text = "\n".join(section.text for section in doc.sections)
    assert all(f"page {page + 1} tells of the okapi" in text for page in middle)


def test_a_scan_without_a_font_on_any_page_is_still_skipped_from_its_sample():
    with pytest.raises(Skip) as skipped:
        pdf.parse_pdf("scan.pdf", _pdf(PAGES, branch=100))  # (its one font object given to no page)
    assert str(skipped.value).endswith(f"spread to its end, of {PAGES:,}")


def test_a_scan_whose_pages_are_given_an_empty_font_dictionary_is_still_skipped_from_its_sample():
    """'/Resources << /Font << >> >>' on every page, as some scanners write it, gives no font to draw text with: read
    as one, the sample was not trusted and every page of the scan was read to say 'no text layer'."""
    with pytest.raises(Skip) as skipped:
        pdf.parse_pdf("scan.pdf", _pdf(PAGES, branch=100, empty=b"/Resources << /Font << >> /ProcSet [/PDF] >> "))
    assert str(skipped.value).endswith(f"spread to its end, of {PAGES:,}")
