"""PDF -> Document: the cleaned text layer of each page, with page offsets.

Each page's text is NFKC-normalised (ligatures, CJK compatibility radicals,
full-width forms), its whitespace tidied and words hyphenated across a line
break joined when both sides are lowercase letters. Pages are joined with a
blank line; ``Section.page_starts`` records where each page with text starts.

With a usable outline (two or more top-level entries in page order) there is
one section per top-level entry, ``heading_path == [entry title]``, split by the
entries one level below it in page order (``[entry title, section title]``),
plus a front-matter section (``heading_path == []``) for the pages before the
first one; otherwise one section for the whole document. Chapters and sections
are cut at page boundaries: one starting mid-page takes that whole page.

The work a PDF asks for is not bounded by its size: a content stream inflates
up to 75 MB (pypdf's own limit per stream) and every page may draw the same
one, so a 70 KB file can hold hours of text extraction. Extraction stops after
PDF_SECONDS (checked before every content-stream operator, so inside a page
too) and the file fails with the reason; text over MAX_TEXT_CHARS (as much as
the largest text file read) is skipped like a file over that size.

A PDF cut short (no %%EOF at its end) has lost its trailer and cross-reference table, and often its page tree:
pypdf refuses it whole. Its pages are then looked for among the objects that are left and indexed in the order
they are written, without the characters drawn in fonts that were lost (``meta["cut_short"]`` says what was
recovered; ``list_files`` shows it).

pypdf reports the problems it works around through ``logging`` (loggers
``pypdf.*``). Importing this module routes them to a handler that counts
them for the file being parsed (``meta["pdf_warnings"]``) and otherwise
hands them to this module's logger at DEBUG level; they never reach the
root logger.
"""
from __future__ import annotations

import bisect
import io
import logging
import math
import re
import threading
import time
import unicodedata
from collections import Counter
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Sequence

from pypdf import PageObject, PdfReader, get_configuration
from pypdf.generic import DictionaryObject, IndirectObject, NameObject
from pypdf.errors import DependencyError

from .document import Document, Section, Skip, SkipForNow, whole_characters
from .unreadable import Unreadable, logged
from .pdf_labels import page_labels
from .pdf_tree import PageTree, page_shape

log = logging.getLogger(__name__)
PDF_SECONDS = 300.0  # text extraction of one PDF stops after this (a 117-page book takes 5-10 s here)
TEXTLESS_LISTED = 20  # pages without text named in a PDF's meta (the count names them all)
MAX_TEXT_CHARS = 64 * 1024 * 1024  # text kept from one PDF: as much as ingest.files reads of a text file

_HYPHEN_BREAK = re.compile(r"(?<=[^\W\d_])[-\u00ad\u2010][ \t]*\n[ \t]*(?=[^\W\d_])")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u00ad]")
_FILE_NAME_TITLE = re.compile(
    r"(\.(pdf|docx?|odt|rtf|tex|dvi|ps|indd|xlsx?|pptx?|qxd)$|^untitled\b|"
    r"^microsoft (word|powerpoint|excel) - |^document\d*$)",
    re.IGNORECASE,
)


# --- text cleaning -----------------------------------------------------------

# Full-width punctuation is how Chinese and Japanese write it (，。：；！？（）「」): NFKC would make ，： ASCII
# ',' ':' in every snippet and read_file page. Search folds them anyway (search.query.text.normalise). Not the
# half-width ｡｢｣､･ (U+FF61-FF65) of half-width katakana: NFKC makes them and the katakana around them full-width
# together (ｱｲ｡ to アイ。), where they stayed half-width among widened katakana.
_FULL_WIDTH_MARKS = re.compile(r"([\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff60]+)")


def normalize(text: str) -> str:
    """NFKC-normalise (⾏ U+2F8F -> 行, ﬁ -> fi, ＡＢＣ -> ABC), keeping full-width punctuation, and unify line
    breaks. A font's ToUnicode map can give surrogates: a pair makes its character, a lone one (no character;
    UTF-8 cannot store it) becomes U+FFFD."""
    pieces = _FULL_WIDTH_MARKS.split(whole_characters(text))  # odd pieces are the marks, kept as written
    text = "".join(p if i % 2 else unicodedata.normalize("NFKC", p) for i, p in enumerate(pieces))
    return text.replace("\r\n", "\n").replace("\r", "\n")


def dehyphenate(text: str, compounds: frozenset[str] = frozenset()) -> str:
    """Join "exam-\\nple" -> "example" when both sides are lowercase letters (the hyphen may be U+00AD or U+2010),
    but for a compound's hyphen, kept without the line break: one after a word that holds a hyphen already
    ('state-of-the-\\nart'), or of a compound in ``compounds`` (casefolded: ``hyphenated_words`` of the document,
    'structure-aware' written on one line elsewhere). 'structure-\\naware' was indexed as 'structureaware', which
    neither 'structure aware' nor 'structure-aware' finds."""
    def join(m: re.Match) -> str:
        before, after = m.string[m.start() - 1], m.string[m.end()]
        if not (before.islower() and after.islower()):
            return m.group()
        if m.group()[0] == "\u00ad":  # a soft hyphen is only ever where a word may break
            return ""
        left = _LEFT_WORD.search(m.string, max(0, m.start() - 80), m.start()).group()
        right = _RIGHT_WORD.match(m.string, m.end()).group()
        return "-" if _keeps_hyphen(left, right, compounds) else ""

    return _HYPHEN_BREAK.sub(join, text)


_LEFT_WORD = re.compile(r"(?:[^\W\d_]|[-\u2010](?=[^\W\d_]))+$")
_RIGHT_WORD = re.compile(r"[^\W\d_]+")
_COMPOUND = re.compile(r"(?<![\w\u2010-])[^\W\d_]+(?:[-\u2010][^\W\d_]+)+(?![\w\u2010-])")


_PART = re.compile(r"[^\W\d_]+")


def hyphenated_words(texts: list[str]) -> frozenset[str]:
    """The compounds written with a hyphen on one line in ``texts`` ('structure-aware'), casefolded, U+2010 as
    '-': ``dehyphenate`` keeps the hyphen of those broken at a line end; and every word written whole there
    ('deterministic'), which it joins after a compound's hyphen ('non-deter-' / 'ministic')."""
    return frozenset([m.group().casefold().replace("\u2010", "-") for text in texts for m in _COMPOUND.finditer(text)]
                     + [m.group().casefold() for text in texts for m in _PART.finditer(_BROKEN.sub(" ", text))])


# a word broken at a line end by a hyphen: its halves are no words the document writes (``_both_words``)
_BROKEN = re.compile(r"[^\W\d_]+[-\u00ad\u2010][ \t]*\n[ \t]*[^\W\d_]+")
HALF_LETTERS = 4  # of each half of a compound told by its halves (``_both_words``): 'with-out', 'can-not' are joined


def _keeps_hyphen(left: str, right: str, compounds: frozenset[str]) -> bool:
    """Whether the hyphen between ``left`` (the word before a line end, its hyphens in it) and ``right`` is a
    compound's: the document writes the compound so on one line, or ``left`` holds a hyphen already
    ('state-of-the-' / 'art') and its last part joined to ``right`` is no word the document writes whole
    ('non-deter-' / 'ministic' is 'non-deterministic' where 'deterministic' is written: it was indexed as 'non
    deter ministic', which no query finds)."""
    if f"{left}-{right}".casefold() in compounds:
        return True
    if "-" in left:
        return (re.split("[-\u2010]", left)[-1] + right).casefold() not in compounds
    return _both_words(left, right, compounds)


def _both_words(left: str, right: str, compounds: frozenset[str]) -> bool:
    """Whether ``left`` and ``right`` are an English compound's words, not a word's syllables: the document writes
    each as a word elsewhere, each of HALF_LETTERS letters or more and an English word (``english_words.known``), and
    never the two joined, which English does not write as one word either. A guideline's 'beta-' / 'blocker',
    'dose-' / 'adjustment', 'once-' / 'daily' were indexed as 'betablocker', 'doseadjustment', 'oncedaily', which
    neither 'beta-blocker' nor 'dose adjustment' finds; 'treat-' / 'ment', 'metfor-' / 'min' and 'head-' / 'quarters'
    (headquarters, a word) are still joined, as is a German compound's ('Arbeits-' / 'zeit'), which German writes as
    one word. English's list is read only for a break that passes the rest (once a process, 0.2 s)."""
    left, right = left.casefold(), right.casefold()
    if not (min(len(left), len(right)) >= HALF_LETTERS and left in compounds and right in compounds
            and left + right not in compounds):
        return False
    from search.query.english_words import known
    return known(left) and known(right) and not known(left + right)


def tidy_whitespace(text: str) -> str:
    """Collapse runs of spaces, strip lines, keep at most one blank line."""
    lines = (" ".join(line.split()) for line in _CONTROL.sub("", text).split("\n"))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def clean_text(raw: str, compounds: frozenset[str] = frozenset()) -> str:
    """The text of one page as it is indexed (``compounds``: ``hyphenated_words`` of the document's pages)."""
    return tidy_whitespace(dehyphenate(normalize(raw), compounds))


_PAGE_END_HYPHEN = re.compile(r"(?<=[^\W\d_])[-\u00ad\u2010]$")
_FIRST_WORD = re.compile(r"[^\W\d_]\S*")


def joined_across_pages(texts: list[str], compounds: frozenset[str] = frozenset()) -> list[str]:
    """The pages' texts with a word hyphenated across a page break joined at the end of the page it starts on
    ('dense retriev-' ending one page, 'al works' beginning the next: 'dense retrieval', 'works'), when both sides
    are lowercase letters, as ``dehyphenate`` joins one across a line end (a compound's hyphen kept, as there:
    ``compounds``). Each page was cleaned alone, so the
    two halves stayed apart and neither was found by the word (running headers and footers are left out first:
    the page number below the hyphen hid it)."""
    texts = list(texts)
    for i in range(len(texts) - 1):
        head, tail = texts[i], texts[i + 1]
        word = _FIRST_WORD.match(tail)
        if head and word and _PAGE_END_HYPHEN.search(head) and head[-2].islower() and tail[0].islower():
            left = _LEFT_WORD.search(head, max(0, len(head) - 81), len(head) - 1).group()
            keep = head[-1] != "\u00ad" and _keeps_hyphen(left, _RIGHT_WORD.match(word.group()).group(), compounds)
            texts[i] = head[:-1] + ("-" if keep else "") + word.group()
            texts[i + 1] = tail[word.end():].lstrip()
    return texts


# --- running headers and footers --------------------------------------------------

EDGE_LINES = 2  # lines at the top and at the bottom of a page that may be a running header or footer
RUNNING_PAGES = 3  # on at least this many pages
PAGE_LABEL_CHARS = 80  # a line with a page number longer than this is taken for text
_EDGE_NUMBER = re.compile(r"^(\d{1,4}|[ivxlcdm]{1,7})\b|\b(\d{1,4}|[ivxlcdm]{1,7})$", re.IGNORECASE)
# A page's number with the count of pages, at a line's start or end: '4/10', '4 / 10', 'Page 4 of 10', 'p. 4 of 10'
_NUMBER_OF = re.compile(r"(?:^|(?<=\s))(?:(?:page|p\.)\s*)?(\d{1,4})\s*(?:/|\bof\b)\s*(\d{1,4})$|"
                        r"^(?:(?:page|p\.)\s*)?(\d{1,4})\s*(?:/|\bof\b)\s*(\d{1,4})(?=\s|$)", re.IGNORECASE)
_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
# A Chinese page label ('第 3 页', '第 3 页 共 10 页', '第3页/共10页', '第 3 頁，共 10 頁', '共 10 页 第 3 页') and a page's
# number between dashes alone on its line ('- 3 -', '— 3 —'): ``_label_form`` writes them as the rules above read
# a label ('3', 'page 3 of 10'). Read as no page number, a Chinese paper's footer was indexed with every page.
_CJK_LABEL = re.compile(r"第\s*(\d{1,4})\s*[页頁](?:\s*[,，/／、]?\s*共\s*(\d{1,4})\s*[页頁])?|"
                        r"共\s*(\d{1,4})\s*[页頁]\s*[,，/／、]?\s*第\s*(\d{1,4})\s*[页頁]")
_DASHED = re.compile(r"[-\u2013\u2014]\s*(\d{1,4})\s*[-\u2013\u2014]")


def _label_form(line: str) -> str:
    """``line`` with a Chinese page label at its start or end written as ``_NUMBER_OF`` and ``_EDGE_NUMBER`` read
    one ('计算机学报 第 3 页 共 10 页' as '计算机学报 page 3 of 10', '第 3 页' as '3'), and a number between dashes
    that is all the line holds as that number ('— 3 —' as '3')."""
    if "第" in line:
        line = _CJK_LABEL.sub(lambda m: f" {m[1]} " if m[1] and not m[2] else
                              f" page {m[1] or m[4]} of {m[2] or m[3]} ", line).strip()
    dashed = _DASHED.fullmatch(line)
    return dashed.group(1) if dashed else line


def without_running_lines(texts: list[str]) -> list[str]:
    """The pages' texts less their running headers and footers: a line among the first or last EDGE_LINES of
    a page that is the same on RUNNING_PAGES pages and half the pages with text (a journal's or a report's
    title), then a first or last line that begins or ends with the page's number, as it goes up with the pages
    on RUNNING_PAGES pages ('8 1.2. METRISCHE RÄUME', 'THE SIEGE OF VICKSBURG. 53', 'GeoBase® iii', '3'; on
    the first page, a title page, only a line that is the number alone: 'Level 1' there is none). They
    were indexed with every page: every page matched a search for the title's words, and passages and their
    snippets were interrupted by them.

    A paper of fewer pages has them too, though on fewer than RUNNING_PAGES: a line at the edge of every page
    with text but the first (two at least: a title page has no running header), and a line that is the
    page's number alone on every page with text (two at least), are left out as well ('Okafor and Weber -
    Small Embedding Models' atop pages 2 and 3 of a 3-page paper, '1' and '3' under its two pages of text)."""
    with_text = [t for t in texts if t]
    if len(with_text) < 2:
        return texts
    pages = [t.split("\n") if t else [] for t in texts]
    seen = Counter(line for lines in pages for line in set(_edges(lines)) if line)
    first = next(index for index, lines in enumerate(pages) if lines)
    later = Counter(line for lines in pages[first + 1:] for line in set(_edges(lines)) if line)
    repeated = {line for line, n in seen.items() if n >= max(RUNNING_PAGES, len(with_text) / 2)}
    repeated |= {line for line, n in later.items() if n == len(with_text) - 1 >= 2}
    pages = [_drop_repeated(lines, repeated) for lines in pages]
    offsets = Counter(offset for index, lines in enumerate(pages) for offset in _page_offsets(index, lines))
    running = {offset for offset, n in offsets.items() if n >= RUNNING_PAGES}
    # the count of pages a footer gives ('4/10', 'Page 4 of 10'): the same on the pages' labels, not one line's
    counts = Counter(count for lines in pages if lines for count in {c for line in {lines[0], lines[-1]}
                                                                      for c in _counts(line)})
    counts = {count for count, n in counts.items() if n >= min(RUNNING_PAGES, len(with_text))}
    alone = Counter(offset for index, lines in enumerate(pages)
                    for offset in _page_offsets(index, lines, True, counts))
    running_alone = {offset for offset, n in alone.items() if n == len(with_text)}
    pages = [_drop_page_labels(index, lines, running, running_alone, counts) for index, lines in enumerate(pages)]
    return [tidy_whitespace("\n".join(lines)) for lines in pages]


def _edges(lines: list[str]) -> list[str]:
    return lines[:EDGE_LINES] + lines[-EDGE_LINES:]


def _drop_repeated(lines: list[str], repeated: set[str]) -> list[str]:
    """The page's lines less the repeated ones at its top and bottom, unless they are all it holds (pages that
    are all alike, such as a form, keep their text)."""
    kept = [line for i, line in enumerate(lines)
            if not (line in repeated and (i < EDGE_LINES or i >= len(lines) - EDGE_LINES))]
    if not any(kept):
        return lines
    while not kept[0]:  # the blank line under a header: the page number below it is the first line now
        kept.pop(0)
    while not kept[-1]:
        kept.pop()
    return kept


def _page_offsets(index: int, lines: list[str], alone: bool = False, counts=frozenset()) -> set[int]:
    """(number - page index) of the numbers the page's first and last lines begin or end with (``alone``: that
    are the number alone, or with one of the ``counts`` of pages)."""
    return {number - index for line in {lines[0], lines[-1]} if not alone or _label_alone(line, counts)
            for number in _edge_numbers(line)} if lines else set()


def _edge_numbers(line: str) -> list[int]:
    """The numbers a line begins or ends with; of a page's number with the count of pages ('Lecture 3 4/10',
    'Page 4 of 10'), the page's (4), not the count, which is the same on every page: a slide deck's footer
    'IR701 Spring 2026 - Lecture 3 4/10' was indexed with every slide, in every passage and snippet of the deck."""
    if len(line) > PAGE_LABEL_CHARS:
        return []
    line = _label_form(line)
    of = [int(m.group(1) or m.group(3)) for m in _NUMBER_OF.finditer(line)]
    return of or [_number(m.group(1) or m.group(2)) for m in _EDGE_NUMBER.finditer(line)]


def _label_alone(line: str, counts=frozenset()) -> bool:
    """A line that is a page's number and nothing else: '3', 'iv', or one with the count of pages the pages' labels
    give (``counts``): '3/10', 'Page 3 of 10'. A footer carrying the count of pages is a page label on the first page
    too, where a line ending in a number alone may be text, and so may one ending in a count of its own ('Annual
    report, volume 1 of 2' atop pages numbered 2 to 5 was dropped)."""
    return bool(_EDGE_NUMBER.fullmatch(_label_form(line)) or any(count in counts for count in _counts(line)))


def _counts(line: str) -> set[int]:
    """The counts a line gives after a number ('4/10', 'Page 4 of 10': 10) at its start or end."""
    if len(line) > PAGE_LABEL_CHARS:
        return set()
    return {int(m.group(2) or m.group(4)) for m in _NUMBER_OF.finditer(_label_form(line))}


def _number(token: str) -> int:
    """An Arabic or a Roman numeral's value ('iv' 4, 'xii' 12)."""
    if token.isdigit():
        return int(token)
    values = [_ROMAN[ch] for ch in token.lower()]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


def _drop_page_labels(index: int, lines: list[str], running: set[int], running_alone: set[int] = frozenset(),
                      counts=frozenset()) -> list[str]:
    """The page's lines less a first or last line that carries its number at a running offset, or that is its
    number alone (or with a count of pages of ``counts``) at an offset running alone."""
    drop = {i for i in {0, len(lines) - 1} if lines and (
        any(n - index in running for n in _edge_numbers(lines[i])) and (index or _label_alone(lines[i], counts))
        or _label_alone(lines[i], counts) and any(n - index in running_alone for n in _edge_numbers(lines[i])))}
    return [line for i, line in enumerate(lines) if i not in drop]


# --- pypdf's warnings -----------------------------------------------------------

class _Bucket:
    """pypdf's warnings for one file: how many, and the first message (pypdf can log one per operator of a
    content stream, hundreds of thousands; keeping each held hundreds of MB)."""

    def __init__(self) -> None:
        self.count = 0
        self.first: str | None = None
        self.form_failed: str | None = None  # the first form XObject pypdf gave up on (nested too deep, damaged)


_FORM_FAILED = "Impossible to decode XForm"  # how pypdf says it gave up on a form XObject (its text left out)


class _PypdfWarnings(logging.Handler):
    """Counts pypdf's log records for the file parsed in the current thread."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.name = "sift-pypdf-warnings"
        self._local = threading.local()

    @contextmanager
    def collect(self):
        self._local.bucket = bucket = _Bucket()
        try:
            yield bucket
        finally:
            self._local.bucket = None

    def emit(self, record: logging.LogRecord) -> None:
        bucket = getattr(self._local, "bucket", None)
        if bucket is not None and bucket.form_failed is None and str(record.msg).startswith(_FORM_FAILED):
            bucket.form_failed = record.getMessage()
        if bucket is not None:
            bucket.count += 1
            if bucket.count > 1:
                return
        try:
            message = record.getMessage()
        except Exception:
            message = str(record.msg)
        if bucket is None:
            log.debug("pypdf: %s", message)
        else:
            bucket.first = message


def _form_said(message: str) -> str:
    """pypdf's message for a form it gave up on, the same at every read: past Python's recursion limit, the form
    it names and the words after 'exceeded' depend on how deep the stack was when the read began (a scan that read
    it again said '/X305' where the first said '/X304 … in comparison', and its failure looked changed)."""
    if "maximum recursion depth exceeded" not in message:
        return message
    return re.sub(r"XFormObject /\S+?:", "XFormObject:", message.split("maximum recursion depth exceeded")[0]) + \
        "maximum recursion depth exceeded"


def _install_handler() -> _PypdfWarnings:
    pypdf_log = logging.getLogger("pypdf")
    for handler in pypdf_log.handlers:
        if handler.name == "sift-pypdf-warnings":
            return handler  # type: ignore[return-value]
    handler = _PypdfWarnings()
    pypdf_log.addHandler(handler)
    pypdf_log.propagate = False
    return handler


_warnings = _install_handler()


# --- parsing -------------------------------------------------------------------

def parse_pdf(path: str, data: bytes) -> Document:
    """Parse a PDF's text layer; Skip if encrypted or without text, Unreadable (a ValueError) if unreadable."""
    with _warnings.collect() as warnings:
        reader, pages, encrypted, cut_short = _open(data)
        tree = pages if isinstance(pages, PageTree) else None
        runs: list[tuple[float, str]] = []
        texts, failed, shapes = _page_texts(tree or pages, _pages_said(reader), runs)
        n_pages = len(texts)
        compounds = hyphenated_words(texts)
        texts = [tidy_whitespace(dehyphenate(text, compounds)) for text in texts]
        chapters = _chapters(reader, tree, n_pages) if tree is not None else []
        title = _title(reader, path, runs, texts[1:])
    if cut_short is not None:
        texts, cut_short = _readable_pages(texts, cut_short)
    texts = joined_across_pages(without_running_lines(texts), compounds)
    if warnings.count:
        log.debug("%s: pypdf worked around %d problems, first: %s", path, warnings.count, warnings.first)
    left_out = _left_out(tree)
    if n_pages == 0 and left_out:
        raise Unreadable(f"unreadable PDF: its page tree reaches no page; {left_out}")
    if n_pages == 0:  # nothing to index, and nothing retrying changes: failed, retry-failed listed it every time
        raise Skip("no pages: the PDF holds none (or its page list is damaged)")
    if failed and len(failed) == n_pages:
        raise Unreadable(f"unreadable PDF: {failed[0][1]}")
    if not any(texts) and warnings.form_failed:  # not a scan said to be one: what it draws could not be read
        raise Unreadable("unreadable PDF: its pages draw forms (Form XObjects) that cannot be read, nested too deep "
                         f"or damaged (pypdf: {_form_said(warnings.form_failed)[:120]})")
    if not any(texts):
        raise Skip(NO_TEXT)
    meta = {
        "pages": n_pages,
        "pages_without_text": sum(1 for t in texts if not t),
        "textless_pages": [page for page, t in enumerate(texts, 1) if not t][:TEXTLESS_LISTED],
        "failed_pages": [page for page, _ in failed],
        "encrypted": encrypted,
        "pdf_warnings": warnings.count,
    }
    if cut_short is not None:
        meta["cut_short"] = cut_short
    elif left_out:  # shown by list_files, as a file cut short is
        meta["cut_short"] = f"page tree damaged: the text of the {n_pages:,} pages it reaches is indexed; {left_out}"
    labels = _page_labels(reader, n_pages) if cut_short is None else None
    if labels:
        meta["page_labels"] = labels
    author = _author(reader) if cut_short is None else ""
    if author:
        meta["author"] = author
    created = _created(reader) if cut_short is None else ""
    if created:
        meta["created"] = created
    sections = _sections(texts, chapters)
    if _slides(shapes, texts):
        meta["slides"] = True
        sections = [slide for section in sections for slide in _pages_apart(section)]
    return Document(kind="pdf", title=title, sections=references_apart(sections), meta=meta)


SLIDE_WORDS = 80  # the most words a slide deck's pages hold, the median page's


def _slides(shapes: list[tuple[float, float, bool] | None], texts: list[str]) -> bool:
    """Whether the PDF is a slide deck: three pages with text at least, two thirds of its pages wider than they are
    tall (as shown, after /Rotate), and its median page with text of at most SLIDE_WORDS words. Without their
    footers a deck of ten short slides fitted one passage, each slide's words diluted by the nine others': a
    question about one slide ranked the deck lower (bench: 10 questions, one a slide, among the shared PDFs'
    passages, e5: MRR 0.853 as one passage, 0.900 a passage a slide), and a hit by meaning named pages 1-10,
    where it now names the slide (the one asked about for 7 of the 10)."""
    words = sorted(len(text.split()) for text in texts if text)
    if len(words) < 3 or words[len(words) // 2] > SLIDE_WORDS:
        return False
    wide = sum((height > width) if turned else (width > height)
               for width, height, turned in filter(None, shapes))
    return wide * 3 >= len(shapes) * 2


def _pages_apart(section: Section) -> list[Section]:
    """A section of a slide deck as one section a page, under its heading: a passage a slide."""
    starts = [*section.page_starts, (len(section.text) + 2, None)]
    return [Section(text=section.text[at:starts[i + 1][0] - 2], heading_path=list(section.heading_path), page=page,
                    end_page=page, page_starts=[(0, page)])
            for i, (at, page, *_) in enumerate(starts[:-1])]


def _open(data: bytes) -> tuple[PdfReader, PageTree | list[PageObject], bool, str | None]:
    """Reader (decrypted with the empty password if needed), its page tree (read a page at a time) or, for a file
    cut short whose pages were found without its page tree, those pages, encrypted?, and for the latter what was
    recovered (else None)."""
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        encrypted = reader.is_encrypted
    except Exception as exc:
        return _recovered(data, exc)
    if encrypted:
        _decrypt(reader)
    _bound_object_streams(reader)
    pages_said = _textless_sample(reader)
    if pages_said and not _fonts_given(reader, data):
        raise Skip(f"{NO_TEXT}; no text on any of {SAMPLE_HEAD} first pages and {SAMPLE_SPREAD + SAMPLE_TAIL} more "
                   f"spread to its end, of {pages_said:,}")
    try:
        tree = PageTree(reader)
        tree.check()
        return reader, tree, encrypted, None
    except Exception as exc:
        if encrypted:
            raise Unreadable(f"unreadable PDF: {_message(exc)}") from exc
        return _recovered(data, exc)


# A font given to a page or a form to draw text with: '/Font << /F1 …' or '/Font 12 0 R' in a /Resources dictionary
# (not a font's own '/Type /Font', nor an empty '/Font << >>', which some scanners give every page of an image scan)
_FONT_GIVEN = re.compile(rb"/Font\s*(?:<<\s*/|\d+\s+\d+\s+R)")


def _fonts_given(reader: PdfReader, data: bytes) -> bool:
    """Whether any page or form of the PDF may draw text: a font is given in a /Resources dictionary, written plainly
    or inside an object stream. A scan with a text layer on a few pages in its middle only (a typed letter in a
    binder of scanned receipts) had its sample find none, and was skipped as having no text layer; a scan of
    images alone gives no font anywhere."""
    if _FONT_GIVEN.search(data):
        return True
    for number in {stream for stream, _ in getattr(reader, "xref_objStm", {}).values()}:
        try:
            if _FONT_GIVEN.search(reader.get_object(number).get_data()):
                return True
        except Exception:  # noqa: BLE001 - a stream that cannot be read: its pages are read, and say so
            return True
    return False


# Objects that a PDF's object streams may hold together. pypdf reads every object of an object stream as it
# reads one of them, and keeps them all: a 6.6 MB file of one stream of 1,000,000 objects took 14 s and 1.1 GB for
# a page's font (bench/hostile.py), one of 64 MiB would take minutes and gigabytes. Writers put 100 to a few hundred
# in a stream, and a PDF of 64 MiB (ingest.files reads no larger) holds some hundred thousand objects.
OBJECT_STREAM_OBJECTS = 500_000


def _bound_object_streams(reader: PdfReader) -> None:
    """Unreadable when the object streams the cross-reference lists say they hold more than OBJECT_STREAM_OBJECTS
    objects together (each stream's /N, read without inflating it)."""
    held = 0
    for number in {stream for stream, _ in getattr(reader, "xref_objStm", {}).values()}:
        try:
            held += max(0, int(reader.get_object(number)["/N"]))
        except Exception:  # noqa: BLE001 - a stream that is not there or says nothing: pypdf says what is wrong
            continue
        if held > OBJECT_STREAM_OBJECTS:
            raise Unreadable(f"unreadable PDF: its object streams hold more than {OBJECT_STREAM_OBJECTS:,} objects "
                             "(pypdf reads a stream's objects all at once: minutes and gigabytes)")


# A PDF of more pages than this is sampled before its pages are read: pypdf reads every page object as it opens the
# page list (90 µs and 2.5 KB each: 100,000 empty pages took 12 s and 330 MB to say 'no text layer'). When its first
# SAMPLE_HEAD pages, SAMPLE_SPREAD more spread evenly through the rest and its last SAMPLE_TAIL (a scanned book's
# appendix with a text layer) hold no text, and no page is given a font to draw text with (_fonts_given), it has
# none, and the rest is not read.
SAMPLE_FROM = 2_000
SAMPLE_HEAD, SAMPLE_SPREAD, SAMPLE_TAIL = 200, 600, 100


def _textless_sample(reader: PdfReader) -> int | None:
    """The number of pages of a PDF of over SAMPLE_FROM when none of a sample of them holds text, else None (read
    it all: fewer pages, text found, or a page tree not as its /Count says)."""
    try:
        tree = reader.trailer["/Root"]["/Pages"].get_object()
        count = int(tree["/Count"])
        if count <= SAMPLE_FROM:
            return None
        rest = count - SAMPLE_HEAD - SAMPLE_TAIL
        picks = {*range(SAMPLE_HEAD), *range(count - SAMPLE_TAIL, count),
                 *(SAMPLE_HEAD + rest * k // SAMPLE_SPREAD for k in range(SAMPLE_SPREAD))}
        deadline = time.monotonic() + PDF_SECONDS

        def in_time(*_) -> None:
            if time.monotonic() > deadline:
                raise _OutOfTime

        for index in sorted(picks):
            page = _page_at(reader, tree, index)
            if page is None or (page.extract_text(visitor_operand_before=in_time) or "").strip():
                return None
        return count
    except (Exception, _OutOfTime):  # noqa: BLE001 - only a shortcut: the pages are read as they always were
        return None


def _page_at(reader: PdfReader, tree: DictionaryObject, index: int) -> PageObject | None:
    """Page ``index`` (0-based) of the page tree, found by the /Count of its branches (a branch of leaves only is
    indexed straight), with what it inherits; None when the tree is not as its counts say."""
    node = tree
    for _ in range(32):
        kids = node["/Kids"]
        if len(kids) == int(node["/Count"]):  # (all leaves, as one flat /Kids of a 100,000 pages is)
            ref = kids[index]
            found = ref.get_object()
            if found.get("/Type") != "/Page":
                return None
            page = PageObject(reader, ref if isinstance(ref, IndirectObject) else None)
            page.update(found)
            _inherit(page)
            return page
        for kid in kids:
            kid = kid.get_object()
            size = int(kid["/Count"]) if "/Kids" in kid else 1
            if index < size:
                if "/Kids" not in kid:
                    return None  # a leaf in a branch of branches: not worth finding here
                node = kid
                break
            index -= size
        else:
            return None
    return None


# Ends a PDF cut short: a catalog with an empty page tree and a startxref pypdf cannot use, so that it reads
# the file as it is (finding every 'N 0 obj' in it, object streams included) where it refused it.
_REBUILT_END = (b"\n2147483000 0 obj\n<< /Type /Catalog /Pages 2147483001 0 R >>\nendobj\n"
                b"2147483001 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n"
                b"trailer\n<< /Root 2147483000 0 R >>\nstartxref\n0\n%%EOF\n")
_INHERITED = ("/Resources", "/MediaBox", "/CropBox", "/Rotate")


def _recovered(data: bytes, exc: Exception) -> tuple[PdfReader, list[PageObject], bool, str]:
    """The pages of a PDF cut short (no %%EOF at its end: a download or copy that did not finish), found among
    the objects that are there, in the order they are written; Unreadable, saying why, when it is not cut
    short or none of its pages is left. Its trailer, cross-reference table and often its page tree and outline
    are at the end: pypdf refused the file whole."""
    why = _not_a_pdf(data) or _message(exc)
    if _not_a_pdf(data):
        raise Unreadable(f"unreadable PDF: {why}") from exc
    if b"%%EOF" in data[-1024:]:
        raise Unreadable(f"unreadable PDF: {DAMAGED.format(why=why)}") from exc
    short = f"cut short: no %%EOF at its end ({len(data):,} bytes; a download or copy that did not finish?)"
    if b"/Encrypt" in data:
        raise Unreadable(f"unreadable PDF: encrypted and {short}: its key is in the part that is missing") from exc
    try:
        reader = PdfReader(io.BytesIO(data + _REBUILT_END), strict=False)
    except Exception:
        reader = None
    if reader is not None:
        _bound_object_streams(reader)
    try:
        pages = _loose_pages(reader) if reader is not None else []
    except Exception:
        pages = []
    if not pages:
        raise Unreadable(f"unreadable PDF: {short}, and none of its pages is in the part that is there "
                         f"({why})") from exc
    return reader, pages, False, short


def _readable_pages(texts: list[str], short: str) -> tuple[list[str], str]:
    """The texts of a file cut short, less the characters drawn in fonts that were in the part that is missing
    (pypdf gives U+FFFD for each), and what was recovered; Unreadable when no page is left with a letter."""
    texts = [tidy_whitespace(t.replace("\ufffd", " ")) for t in texts]
    texts = [t if any(ch.isalpha() for ch in t) else "" for t in texts]
    kept = sum(1 for t in texts if t)
    if not kept:
        raise Unreadable(f"unreadable PDF: {short}; none of the pages found ({len(texts):,}) can be read: the "
                         "fonts they need are in the part that is missing")
    return texts, (f"{short}: the text of {kept:,} of the {len(texts):,} pages found is indexed, in the order "
                   "they are written; the rest of the file is missing")


def _loose_pages(reader: PdfReader) -> list[PageObject]:
    """Every page object the reader finds by scanning the file, by where it is written, with what it would
    inherit from the page tree parents that are left."""
    found = []
    objects = [(offset, number, generation) for generation, numbers in reader.xref.items()
               for number, offset in numbers.items()]
    objects += [(reader.xref.get(0, {}).get(stream, 0), number, 0)
                for number, (stream, _) in reader.xref_objStm.items()]
    for offset, number, generation in sorted(objects, key=lambda o: (o[0], o[1])):
        try:
            obj = reader.get_object(IndirectObject(number, generation, reader))
        except Exception:
            continue
        if isinstance(obj, DictionaryObject) and obj.get("/Type") == "/Page":
            page = PageObject(reader, IndirectObject(number, generation, reader))
            page.update(obj)
            _inherit(page)
            found.append(page)
    return found


def _inherit(page: PageObject) -> None:
    """Give ``page`` the resources and boxes it inherits from the parents of the page tree that can be read."""
    parent, seen = page.get("/Parent"), 0
    while parent is not None and seen < 32:
        try:
            parent = parent.get_object()
        except Exception:
            return
        if not isinstance(parent, DictionaryObject):
            return
        for key in _INHERITED:
            if key not in page and key in parent:
                page[NameObject(key)] = parent.raw_get(key)
        parent, seen = parent.get("/Parent"), seen + 1


# A scanned PDF's skip said 'no text layer: scanned?', and nothing of what to do: Sift does no OCR.
NO_TEXT = ("no text layer: a scan? Sift does no OCR; to index it, save a copy with a text layer where Sift looks "
           "(ocrmypdf in.pdf out.pdf)")
# A PDF pypdf cannot read whole said 'unreadable PDF: Invalid object in /Pages': pypdf's words, and nothing of what to
# do. A viewer (Preview, Acrobat, a browser) often repairs what it reads, and what it saves or prints is a sound PDF.
DAMAGED = ("damaged: its structure cannot be read (pypdf: {why}); to index it, open it in a PDF viewer and save a "
           "copy (Save As, or Print to PDF) where Sift looks")
PASSWORD = ("encrypted: it opens only with its password; to index it, save a copy without one where Sift looks "
            "(qpdf --decrypt --password=PASSWORD in.pdf out.pdf)")


def _decrypt(reader: PdfReader) -> None:
    """Open files that only have an owner password; Skip the others."""
    try:
        ok = reader.decrypt("")
    except DependencyError as exc:
        raise SkipForNow("encrypted: AES needs the 'cryptography' package") from exc
    except Exception as exc:
        raise Skip(f"encrypted: {_message(exc)}") from exc
    if not ok:
        raise Skip(PASSWORD)


class _OutOfTime(BaseException):
    """Raised by the operator visitor past the deadline: not an Exception, so that pypdf's ``except Exception``
    around each form XObject lets it through instead of going on with the next one."""


def _pages_said(reader: PdfReader) -> str:
    """The count of pages the page tree's /Count says, for messages ('' when it says none)."""
    try:
        return f" of {int(reader.trailer['/Root']['/Pages'].get_object()['/Count']):,}"
    except Exception:  # noqa: BLE001 - only words of a message
        return ""


def _left_out(tree: PageTree | None) -> str:
    """What of a damaged page tree was not followed, in words ('' for none)."""
    if tree is None or not tree.left_out:
        return ""
    said = Counter(tree.left_out)
    return "left out: " + "; ".join(f"{what}" + (f" ({n:,} times)" if n > 1 else "") for what, n in said.items())


def _page_texts(pages: PageTree | Sequence[PageObject], said: str = "", runs: list | None = None,
                ) -> tuple[list[str], list[tuple[int, str]], list[tuple[float, float, bool] | None]]:
    """The text of every page ("" when none), normalised (``normalize``; ``clean_text`` with the document's
    ``hyphenated_words`` makes it clean), the (page, error) that failed and each page's shape (``page_shape``),
    read a page at a time from a ``PageTree`` (each let go once read) or a list. ``said``: ' of N', the count of
    pages the file says, for messages. Unreadable past
    PDF_SECONDS, Skip past MAX_TEXT_CHARS. ``runs``: a list to add the first page's pieces of text to, each with
    the size it is drawn at ((size, text), the first FIRST_PAGE_RUNS), for ``_title``."""
    texts: list[str] = []
    failed: list[tuple[int, str]] = []
    shapes: list[tuple[float, float, bool] | None] = []
    tree = pages if isinstance(pages, PageTree) else None
    deadline = time.monotonic() + PDF_SECONDS
    chars = 0

    def in_time(*_) -> None:
        if time.monotonic() > deadline:
            raise _OutOfTime

    for index, page in enumerate(tree.pages() if tree is not None else pages):
        shapes.append(page_shape(page))
        try:
            in_time()
            _fonts_in_bounds(page)
            sizes = _Sizes(runs if index == 0 else None)
            text = page.extract_text(visitor_operand_before=in_time, visitor_text=sizes.run) or ""
            texts.append(normalize(markers_apart(text, sizes.markers())))
        except _OutOfTime:
            raise Unreadable(f"PDF text extraction stopped after {PDF_SECONDS:g} s, at page {index + 1:,}{said}: "
                             "the file asks for more work than its text can need") from None
        except Exception as exc:
            log.debug("page %d: text extraction failed: %s", index + 1, exc)
            failed.append((index + 1, _message(exc)))
            texts.append("")
        finally:
            _forget_inflated(page)
            if tree is not None:
                tree.release(page)
        chars += len(texts[-1])
        if chars > MAX_TEXT_CHARS:
            raise Skip(f"more than {MAX_TEXT_CHARS:,} characters of text (passed on page {index + 1:,}{said}): "
                       "as much as the largest text file indexed")
    return texts, failed, shapes


MAX_PAGE_FONTS = 10_000  # fonts one page lists: pypdf reads each (about 19 KB) before the page's first operator
FONT_PARENTS = 64  # /Parent links followed for the resources a page inherits (a tree deeper than that is damaged)


def _fonts_in_bounds(page: PageObject) -> None:
    """Unreadable (the page fails, the others are read) when the page lists more than MAX_PAGE_FONTS fonts: pypdf
    builds every one it lists before it draws anything, so 10,000 took 190 MB and 6 s, neither bounded by the
    deadline (checked between operators) nor by the file's size (each font 130 bytes of the file). Counted with
    those it inherits from its /Pages nodes and those its forms list (each form's before its first operator
    too): 10,001 fonts in a form the page draws took 9 s and 220 MB. Each form is counted once, and no more forms
    than pypdf draws for a page (its xform_maximum_invocations_per_extraction), so the count's work is bounded."""
    listed, forms, seen = 0, [_page_resources(page)], set()
    most = get_configuration().xform_maximum_invocations_per_extraction
    while forms and len(seen) <= most:
        resources = forms.pop()
        listed += len(_listed(resources, "/Font"))
        if listed > MAX_PAGE_FONTS:
            raise Unreadable(f"the page lists {listed:,} fonts{' with its forms' if seen else ''} (over "
                             f"{MAX_PAGE_FONTS:,}): its text is not read")
        for ref in _listed(resources, "/XObject").values():
            form = _resolved(ref)
            if isinstance(form, DictionaryObject) and form.get("/Subtype") == "/Form" and id(form) not in seen:
                seen.add(id(form))
                forms.append(_resolved(form.get("/Resources")))


def _page_resources(page: DictionaryObject):
    """The page's /Resources, its own or the nearest of its /Pages nodes' (as pypdf draws it)."""
    node, seen = page, set()
    while isinstance(node, DictionaryObject) and id(node) not in seen and len(seen) < FONT_PARENTS:
        if "/Resources" in node:
            return _resolved(node["/Resources"])
        seen.add(id(node))
        node = _resolved(node.get("/Parent"))
    return None


def _listed(resources, name: str) -> DictionaryObject:
    """The ``name`` dictionary of ``resources`` (/Font, /XObject), empty when there is none or it is no dictionary."""
    found = _resolved(resources.get(name)) if isinstance(resources, DictionaryObject) else None
    return found if isinstance(found, DictionaryObject) else DictionaryObject()


def _resolved(value):
    """``value``, an indirect reference followed; None when it leads nowhere."""
    try:
        return value.get_object() if value is not None else None
    except Exception:  # a reference to an object that does not parse: nothing pypdf can draw with either
        return None


FIRST_PAGE_RUNS = 20_000  # pieces of text of the first page kept with their size, for its title


MARKER_SIZE = 0.8  # a footnote's mark is drawn at most this many times the size most of its page's text is
_MARKER = re.compile(r"\d{1,3}|[*\u2020\u2021\u00a7\u00b6]{1,3}")  # '1', '12', '*', '†', '‡', '§', '¶'


class _Sizes:
    """What a page draws at which size, from pypdf's ``visitor_text``: how many characters at each size, the
    pieces that are a footnote's mark ('1', '†': not drawn below the text before them, as a subscript is) with the
    word drawn just before and just after each, and (``runs``: a list, the first page's) every piece with its size,
    for ``_title``. A mark is set apart where the page's text glues it to one of those words (``markers_apart``):
    set apart wherever it met a word, a page with footnotes 2 to 4 made 'python3', 'ipv4', '2nd' two words."""

    def __init__(self, runs: list | None = None) -> None:
        self.runs = runs
        self.chars: Counter = Counter()
        self.marks: set[tuple[float, str]] = set()  # (size, the mark glued to a word: 'retrieval1', '2Code')
        self.y: float | None = None  # the baseline of the last piece that is no mark
        self.size = 0.0  # and the size it is drawn at
        self.last = ""  # and its text
        self.pending: tuple[float, str] | None = None  # a mark whose next word is still to come

    def run(self, text: str, cm, tm, font, size) -> None:
        """Note a piece of text with the size it is drawn at: its font size scaled by the text and the current
        transformation matrices."""
        if not text.strip():
            return
        try:
            scale = math.sqrt(abs(tm[0] * tm[3] - tm[1] * tm[2]) * abs(cm[0] * cm[3] - cm[1] * cm[2]))
            drawn = round(float(size) * scale, 1)
        except (TypeError, ValueError, IndexError):
            return
        self.chars[drawn] += len(text)
        try:
            y = float(tm[4]) * float(cm[1]) + float(tm[5]) * float(cm[3]) + float(cm[5])
        except (TypeError, ValueError, IndexError):
            y = None
        mark = _MARKER.fullmatch(text.strip())
        # not a subscript, drawn below the text before it ('PSL2') by less than a line: a footnote's own mark
        # starting a line below the one before is none ('2Code' under '1See …' was left glued)
        if mark and len(self.marks) < 1000 and not (y is not None and self.y is not None
                                                    and 0 < self.y - y < self.size):
            before = _WORD_BEFORE_MARK.search(self.last)
            if before:
                self.marks.add((drawn, before.group() + text.strip()))
            self.pending = (drawn, text.strip())
        if not mark:
            after = _WORD_AFTER_MARK.match(text)
            if self.pending and after:
                self.marks.add((self.pending[0], self.pending[1] + after.group()))
            self.y, self.size, self.last, self.pending = y, drawn, text, None
        if self.runs is not None and len(self.runs) < FIRST_PAGE_RUNS:
            self.runs.append((drawn, text))

    def markers(self) -> frozenset[str]:
        """The marks drawn smaller than most of the page's text, each glued to the word drawn beside it: a
        footnote's mark, raised after a word ('retrieval1'), or before the footnote's first word ('2Code')."""
        if not self.marks:
            return frozenset()
        body = self.chars.most_common(1)[0][0]
        return frozenset(glued for drawn, glued in self.marks if drawn <= MARKER_SIZE * body)


_WORD_BEFORE_MARK = re.compile(r"[^\W\d_]+$")
_WORD_AFTER_MARK = re.compile(r"[^\W\d_]+")


def markers_apart(text: str, markers: frozenset[str]) -> str:
    """``text`` with each footnote mark glued to a word as ``markers`` has it (``_Sizes.markers``) set apart from
    it: pypdf writes a raised, smaller '1' after 'retrieval' as 'retrieval1' (or 'retrieval1works'), one word that a
    search for 'retrieval' does not find; after a word of four capitals or more too ('MARCO2', 'TREC3'); and a
    footnote's own mark before its first word ('1Code at …'). A mark after a letter or two ('k1', 'x2'), after
    other capitals ('PSL2', 'R2', 'idR2 (x)', a triangle's 'ABC2'), before a bracket ('cos2(v)'), a '0' (no footnote's:
    'RQP0', an angle in degrees) and a raised digit after a number (7² is '72', a power far more often than a
    footnote) are left: that is a name or a symbol more often than a footnote."""
    if not markers:
        return text
    marks = "|".join(map(re.escape, sorted({_MARKER.search(glued).group() for glued in markers}, key=len,
                                           reverse=True)))
    after_word = re.compile(rf"(?:(?<=[^\W\d_]{{2}}[^\W\d_A-Z])|(?<=[A-Z]{{4}}))({marks})(?=([^\W\d_])|[\s.,;:!?)\]]|$)")

    def apart(m: re.Match) -> str:
        word = _WORD_BEFORE_MARK.search(text, max(0, m.start() - 100), m.start())
        if word is None or word.group() + m.group(1) not in markers or m.group(1).startswith("0"):
            return m.group()
        if word.group()[-1].isupper() and not word.group().isupper():  # 'idRSA2': a symbol's
            return m.group()
        return " " + m.group(1) + (" " if m.group(2) else "")
    text = after_word.sub(apart, text)
    return re.sub(rf"(?m)^({marks})([^\W\d_]+)",
                  lambda m: m.group(1) + " " + m.group(2) if m.group() in markers else m.group(), text)


def _forget_inflated(page: PageObject) -> None:
    """Let go of the inflated bytes of the page's content streams and of the forms its resources name. pypdf
    keeps those of every stream it has read (up to 75 MB each) while the reader lives: 25 pages each with its
    own stream held 1.8 GB by the last one. A stream shared by other pages is inflated again for each."""
    try:
        contents = page.get("/Contents")
        contents = contents.get_object() if contents is not None else None
        streams = list(contents) if isinstance(contents, list) else [contents]
        resources = page.get("/Resources")
        resources = resources.get_object() if resources is not None else None
        forms = resources.get("/XObject") if isinstance(resources, dict) else None
        forms = forms.get_object() if forms is not None else None
        streams += list(forms.values()) if isinstance(forms, dict) else []
        for stream in streams:
            stream = stream.get_object() if stream is not None else None
            if getattr(stream, "decoded_self", None) is not None:
                stream.decoded_self = None
    except Exception:  # a damaged page: nothing was kept for it
        pass


def _chapters(reader: PdfReader, tree: PageTree, n_pages: int) -> list[tuple[int, list[str]]]:
    """Where each chapter and section of the outline begins, as (0-based first page, heading path): the top-level
    entries, and under each the entries one level down ([chapter, section]); [] if unusable. A script's
    '1.2 Metrische Räume' was only ever under '1 Topologische Grundbegriffe', over 22 pages."""
    try:
        outline = list(reader.outline)
    except Exception:
        return []
    chapters = _entries(tree, [item for item in outline if not isinstance(item, list)], n_pages)
    if chapters is None or len(chapters) < 2:
        return []
    children = {id(item): following for item, following in zip(outline, outline[1:] + [None])
                if not isinstance(item, list) and isinstance(following, list)}
    bounds: list[tuple[int, list[str]]] = []
    for n, (page, title, item) in enumerate(chapters):
        end = chapters[n + 1][0] if n + 1 < len(chapters) else n_pages
        bounds.append((page, [title]))
        below = [child for child in children.get(id(item), []) if not isinstance(child, list)]
        sections = _entries(tree, below, n_pages) or []
        for first, name, _ in sections:
            if not page <= first < end:
                break
            if first == bounds[-1][0]:
                bounds[-1] = (first, [title, name])  # begins on the chapter's page: its first section
            else:
                bounds.append((first, [title, name]))
    return bounds


def _entries(tree: PageTree, items: list, n_pages: int) -> list[tuple[int, str, object]] | None:
    """(0-based first page, title, item) of outline ``items`` that name a page, the first of each page; None
    when they are not in page order (don't guess). Pages are found by the walk's own numbers (``PageTree``):
    pypdf's look-up reads the whole page list into memory."""
    found: list[tuple[int, str, object]] = []
    for item in items:
        try:
            page = tree.number_of(item)
        except Exception:
            return None
        title = " ".join(normalize(str(getattr(item, "title", "") or "")).split())
        if page is None or not 0 <= page < n_pages or not title:
            continue
        if found and page < found[-1][0]:
            return None
        if not found or page > found[-1][0]:
            found.append((page, title, item))
    return found


def _sections(texts: list[str], chapters: list[tuple[int, list[str]]]) -> list[Section]:
    """One section per chapter's or section's page range (front matter first), or one in all."""
    bounds = [(0, [])] + chapters
    sections = []
    for i, (first, heading) in enumerate(bounds):
        last = bounds[i + 1][0] if i + 1 < len(bounds) else len(texts)
        section = _section(texts, first, last, heading)
        if section is not None:
            sections.append(section)
    return sections


# A bibliography's heading, on a line of its own ('References', '7 References', 'VII. REFERENCES', 'Literatur',
# '参考文献'). search.query.engine reads a PDF passage under such a heading as a bibliography's (BIBLIOGRAPHY there).
BIBLIOGRAPHY = re.compile(
    r"(?:(?:\d{1,2}|[ivxlc]{1,6})\.?\s+)?(?:references?(?: and notes)?|bibliography|works cited|literature cited|"
    r"cited literature|literatur(?:verzeichnis)?|quellen(?:verzeichnis)?|références(?: bibliographiques)?|"
    r"bibliographie|referencias(?: bibliográficas)?|bibliografía|bibliografia|riferimenti bibliografici|"
    r"参考文献|參考文獻|引用文献)\s*:?", re.IGNORECASE)
_LINE = re.compile(r"^[^\n]*$", re.MULTILINE)


def references_apart(sections: list[Section]) -> list[Section]:
    """``sections`` with a paper's reference list apart, from its heading line ('References', 'Bibliography' …:
    the last such line, past the first third of the text, with text under it) to the end of its section, under
    that heading; where it begins mid-page its first page's piece says where it starts in the page. Without an
    outline a paper was one section, its reference list windowed with its body: a list of the field's titles is
    close in meaning to any query about it, and the passages of it ranked above the body's for topic words
    (search keeps them out of hybrid search's meaning ranking, as BIBLIOGRAPHY there)."""
    total, seen, found = sum(len(s.text) for s in sections), 0, None
    for index, section in enumerate(sections):
        for line in _LINE.finditer(section.text):
            heading = line.group().strip()
            if (seen + line.start() >= total / 3 and not heading.islower() and BIBLIOGRAPHY.fullmatch(heading)
                    and _cites(section.text[line.end():line.end() + 2000])):
                found = (index, line.start(), line.group().strip())
        seen += len(section.text)
    if found is None:
        return sections
    index, at, heading = found
    section = sections[index]
    if section.heading_path and BIBLIOGRAPHY.fullmatch(section.heading_path[-1]):
        return sections  # an outline's chapter of its own already
    if not section.page_starts:
        return sections[:index] + [replace(section, heading_path=[heading])] + sections[index + 1:]
    pieces = []
    if section.text[:at].strip():
        body, section = _cut(section, at)
        pieces = [body]
    references = replace(section, heading_path=[heading])
    after = _list_end(references.text)
    if after is None:
        return sections[:index] + [*pieces, references] + sections[index + 1:]
    references, rest = _cut(references, after)
    return sections[:index] + [*pieces, references, replace(rest, heading_path=sections[index].heading_path)] \
        + sections[index + 1:]


def _cut(section: Section, at: int) -> tuple[Section, Section]:
    """``section`` (with page_starts) cut in two at character ``at``: the second piece's first page says where it
    starts in its page."""
    offsets = [offset for offset, *_ in section.page_starts]
    first, page, *within = section.page_starts[bisect.bisect_right(offsets, at) - 1]
    before = [start for start in section.page_starts if start[0] < at]
    head = replace(section, text=section.text[:at], page_starts=before, end_page=before[-1][1])
    starts = [(0, page, at - first + sum(within))] + [(offset - at, number, *rest) for offset, number, *rest
                                                      in section.page_starts if offset > at]
    return head, Section(text=section.text[at:], heading_path=section.heading_path, page=page,
                         end_page=starts[-1][1], page_starts=starts)


# A paper's appendix after its reference list ('Appendix A. Proofs', 'APPENDICES', 'Supplementary Material'): the
# list ends there; the appendix is body text, ranked by meaning as the body is.
APPENDIX = re.compile(r"(?:appendix|appendices|supplementary (?:materials?|information)|anhang|annexe?s?)\b"
                      r"[^\n]{0,100}", re.IGNORECASE)


UNCITED = 8  # lines in a row with no citation's mark (``_CITATION``) end a reference list


def _list_end(references: str) -> int | None:
    """Where a reference list's text (``references``, from its heading) ends, if before its end: at an appendix's
    heading line (not in lower case), or where UNCITED lines in a row hold no number or year, as no list's lines
    do (its entries' lines, two or three each, hold one at least): a lecture's notes that went on after a slide of
    references were read as the list to the end. The cut is at the first of those lines after a blank one (a
    page's or a paragraph's start) among their first four, else at the first of them."""
    run: list[tuple[int, bool]] = []  # (where each line of the run starts, whether a blank line is before it)
    blank = False
    for line in _LINE.finditer(references):
        text = line.group().strip()
        if line.start() == 0:
            continue
        if not text:
            blank = True
            continue
        if not text.islower() and APPENDIX.fullmatch(text):
            return line.start()
        if _CITATION.search(line.group()):
            run = []
        else:
            run.append((line.start(), blank))
            if len(run) == UNCITED:
                return next((at for at, after_blank in run[:4] if after_blank), run[0][0])
        blank = False
    return None


_CITATION = re.compile(r"^\s*(?:\[\d{1,3}\]|\d{1,3}\.\s)|\b(?:1[5-9]|20)\d\d[a-z]?\b")


def _cites(text: str) -> bool:
    """Whether the lines under a heading read as a reference list: of its first 12 lines, a third at least (3 of
    12) begin with a number ('[4]', '4.') or hold a year. A diagram's label 'references' over 'Name:' and
    'Package:' (a data model's manual) is no bibliography."""
    lines = [line for line in text.split("\n") if line.strip()][:12]
    return bool(lines) and sum(1 for line in lines if _CITATION.search(line)) >= max(1, min(3, len(lines) // 3))


def _section(texts: list[str], first: int, last: int, heading: list[str]) -> Section | None:
    """Pages first..last-1 (0-based) joined by blank lines, with page_starts."""
    parts: list[str] = []
    starts: list[tuple[int, int]] = []
    offset = 0
    for index in range(first, last):
        if not texts[index]:
            continue
        if parts:
            offset += 2  # the "\n\n" between pages
        starts.append((offset, index + 1))
        parts.append(texts[index])
        offset += len(texts[index])
    if not parts:
        return None
    return Section(text="\n\n".join(parts), heading_path=heading, page=starts[0][1],
                   end_page=starts[-1][1], page_starts=starts)


def _page_labels(reader: PdfReader, n_pages: int) -> list[str] | None:
    """The number printed on each page, from the PDF's page labels ('iii', then '1' on the 4th page), when some
    differ from the page's place in the file; else None. A book's page 8 was only ever 'page 11'."""
    try:  # the count is the page walk's: reader.page_labels reads the whole page list in for its count
        labels = [label[:20] for label in page_labels(reader.root_object, n_pages)]
    except Exception:  # noqa: BLE001 - a catalog that cannot be read: the pages go by their places
        return None
    if len(labels) != n_pages or all(label == str(i + 1) for i, label in enumerate(labels)):
        return None
    return labels


def _title(reader: PdfReader, path: str, runs: list[tuple[float, str]] = (), later: Sequence[str] = ()) -> str:
    """The metadata title if it looks like one, else the first page's title (``_drawn_title``; ``later``: the
    text of the pages after it), else the file stem."""
    try:
        raw = reader.metadata.title if reader.metadata else None
    except Exception:
        raw = None
    for title in (" ".join(normalize(str(raw or "")).split()), _drawn_title(runs, later)):
        if _titleish(title):
            return title
    return Path(path).stem


def _author(reader: PdfReader) -> str:
    """The metadata's author ('Maria Rossi', 'Chidi Okafor; Lena Weber'), unless it is a placeholder ('Microsoft
    Office User') or no name (ingest.recorded_author): the title column holds it, so that a
    lecture's slides and a paper whose pages do not name their author (only its metadata does) are found by it."""
    try:
        raw = reader.metadata.author if reader.metadata else None
    except Exception:
        return ""
    from ingest.recorded_author import recorded_author
    return recorded_author(normalize(str(raw or "")))


def _created(reader: PdfReader) -> str:
    """The metadata's CreationDate as front matter writes a date ('2024-03-14T09:12:00+01:00': the date its passages
    are about where its name says none, ingest.passage_dates), or ''."""
    try:
        created = reader.metadata.creation_date if reader.metadata else None
    except Exception:  # a damaged or odd date ('D:2024-03-14'): none
        return ""
    return created.isoformat() if created is not None and 1900 <= created.year < 2100 else ""


def _titleish(title: str) -> bool:
    return sum(ch.isalpha() for ch in title) >= 3 and len(title) <= 300 and not _FILE_NAME_TITLE.search(title)


TITLE_SIZE = 1.3  # a first page's title is drawn at least this many times the size most of its text is
# A masthead drawn above a title, larger than it: a single word of these in capitals, or an arXiv identifier
MASTHEAD_WORDS = frozenset("CONFIDENTIAL DRAFT PREPRINT PROPRIETARY RESTRICTED INTERNAL SECRET EMBARGOED UNPUBLISHED "
                           "PRELIMINARY PREVIEW SAMPLE COPY".split())
ARXIV_ID = re.compile(r"\barXiv:\s*(?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?", re.IGNORECASE)


def _drawn_title(runs: list[tuple[float, str]], later: Sequence[str] = ()) -> str:
    """The first page's text drawn largest, the first run of it (as ``_page_texts`` kept it, (size, text)), when
    that is TITLE_SIZE times the size most of the page's text is drawn at and at most 200 characters: a paper's
    title. Most PDFs made by Word or LaTeX have no title in their metadata, or 'Microsoft Word - draft3.docx':
    their hits were headed by the file's name ('okafor-claims', 'multicolumn'), the paper's title nowhere.
    A masthead is passed over for the next largest text (``_masthead``); a line repeated on the pages ``later``
    (a journal's name at the top of each) only while a larger text than the body's is left after it, and not for a
    section's heading (``_section_heading``): a report headed on each page by its own title was titled
    '1 Introduction'."""
    if not runs:
        return ""
    sizes = Counter()
    for size, text in runs:
        sizes[size] += len(text.strip())
    body = sizes.most_common(1)[0][0]
    groups: list[tuple[float, str]] = []  # (size, text) of each row of runs of one size, TITLE_SIZE times the body's
    previous = None
    for size, text in runs:
        if size >= TITLE_SIZE * body and previous == size and groups:
            groups[-1] = (size, groups[-1][1] + " " + text)
        elif size >= TITLE_SIZE * body:
            groups.append((size, text))
        previous = size
    groups = [(size, " ".join(normalize(text).split())) for size, text in groups]
    groups.sort(key=lambda group: -group[0])  # stable: the first of each size first
    repeated = _repeated_lines(later)
    kept = [text for _, text in groups if not _masthead(text)]
    passed = False  # a repeated line passed over: a journal's name, or the title itself as a running header
    for text in kept:
        if text.casefold() not in repeated and _titleish(text) and len(text) <= 200:
            if passed and _section_heading(text):
                break  # the title was the line repeated: a heading is no title
            return text
        passed |= text.casefold() in repeated
    return kept[0] if kept and len(kept[0]) <= 200 else ""


# A section's heading, drawn larger than the body like a title: numbered ('1 Introduction', 'I. INTRODUCTION',
# '2.1 Setup', 'A. Proofs') or of two words at most ('Executive Summary', 'Abstract')
SECTION_NUMBER = re.compile(r"(?:\d{1,2}(?:\.\d+)*[.)]?|(?:[IVXLC]+|[A-Z])[.)])\s")  # not 'A Survey of …'


def _section_heading(text: str) -> bool:
    return bool(SECTION_NUMBER.match(text)) or len(text.split()) <= 2


def _masthead(text: str) -> bool:
    """A stamp or label drawn large above a title: 'CONFIDENTIAL', 'DRAFT', an arXiv identifier."""
    word = text.strip(" .:;!-–—*")
    return bool(ARXIV_ID.search(text)) or (word.isupper() and word in MASTHEAD_WORDS)


def _repeated_lines(pages: Sequence[str]) -> set[str]:
    """The lines (folded, their spaces made one) of the pages with text: those on half of them at least."""
    with_text = [page for page in pages if page.strip()]
    counts = Counter(line for page in with_text
                     for line in {" ".join(line.split()).casefold() for line in page.split("\n")} if line)
    return {line for line, n in counts.items() if n * 2 >= len(with_text)}


def _not_a_pdf(data: bytes) -> str | None:
    """Why bytes pypdf could not open are no PDF at all (an error page or archive saved as .pdf), if they are
    not: a PDF has '%PDF-' in its first 1,024 bytes. pypdf says only 'Stream has ended unexpectedly'."""
    if not data:
        return "an empty file"
    if b"%PDF-" not in data[:1024]:
        return f"not a PDF: it begins {data[:16]!r}, where a PDF has %PDF-"
    return None


# said of an error pypdf raised without words (an AssertionError, an IndexError()), where its class's name was said,
# which tells the person reading it nothing; the class goes to the log
NO_REASON = "reading it stopped with no reason given"


def _message(exc: BaseException) -> str:
    said = str(exc).strip()
    if not said:
        logged(exc, "PDF")  # 'notes/a.pdf: PDF not read: AssertionError: ' in the sift.ingest log
    return said or NO_REASON
