"""read_file's ``heading``: the ways a heading asked is read ('C# tips', 'Languages#C# tips'), and the headings of
the files whose headings are not '#' lines (an HTML page's, LaTeX's, BibTeX's entries, a notebook's cells', org-mode's,
reStructuredText's and AsciiDoc's); a PDF's outline is ``mcp_server.pdf_pages``', a mail file's and a chat export's
``mcp_server.conversations``', a Word document's ``mcp_server.word_files``'."""
from __future__ import annotations

import re


def heading_readings(heading: str) -> list[tuple[tuple[str, ...], bool]]:
    """The ways to read read_file's ``heading``, each (the headings, one inside the next; whether one may be a
    heading holding the words): as written, '#' and all, matched in full ('C# tips', 'F#': a '#' in a programmer's
    heading was taken for the mark of one heading inside another); then split at each '#' before a word
    ('Languages#C# tips'); then at every '#' ('Chapter 3 # The storm')."""
    readings: list[tuple[tuple[str, ...], bool]] = []
    if not any(part.strip() for part in heading.split("#")):
        return readings  # '#' alone names no heading
    for parts, loose in (([heading], False), (re.split(r"#(?=[^\s#])", heading), True), (heading.split("#"), True)):
        wanted = tuple(part.strip() for part in parts if part.strip())
        if wanted and ("#" in heading or loose) and (wanted, loose) not in readings:
            readings.append((wanted, loose))
    return readings


def headings_by_kind(path: str, text: str) -> list[tuple[int, int, str]] | None:
    """The headings of an HTML page read as a note (ingest.webpage: <h1> … <h6>, not '#' lines, which it has
    none of: 'it has no headings'), of a LaTeX file (its \\section …) or a BibTeX file (its entries' citekeys:
    heading='vaswani2017attention' reads that entry), of a notebook (its markdown cells' headings), of an org-mode,
    reStructuredText or AsciiDoc file (its headlines or titles), or None for a file whose headings are '#' lines."""
    from ingest.kinds import BIBTEX_EXTENSIONS, LATEX_EXTENSIONS, MARKUP_EXTENSIONS, PAGE_EXTENSIONS, suffix
    from ingest.parse import is_page
    if suffix(path).lower() in LATEX_EXTENSIONS:
        from ingest.latex import latex_headings
        return latex_headings(text)
    if suffix(path).lower() in BIBTEX_EXTENSIONS:
        from ingest.bibtex import bibtex_headings
        return bibtex_headings(text)
    if suffix(path).lower() == ".ipynb":  # its markdown cells' headings, in the JSON's lines
        from ingest.notebook import notebook_headings
        return notebook_headings(text)
    if suffix(path).lower() in MARKUP_EXTENSIONS:  # an .org file's headlines, an .rst or .adoc file's titles
        from ingest.parse import markup_reader
        return markup_reader(suffix(path).lower())[1](text)
    if suffix(path).lower() not in PAGE_EXTENSIONS or not is_page(text):
        return None
    from ingest.webpage import page_headings
    return page_headings(text)


def of_a_page(path: str) -> str:
    from ingest.kinds import PAGE_EXTENSIONS, suffix
    return " (<h1> … <h6>)" if suffix(path).lower() in PAGE_EXTENSIONS else ""
