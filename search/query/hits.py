"""A ranked passage shaped as a hit: which of its words its snippet marks (``stem_matches``), the pages it
shows (``pages_shown``), the PDFs a note links to by path and why one is not indexed, and how results print a hit's
context line and a PDF's printed page numbers. ``Engine._hits`` puts them together."""
from __future__ import annotations

import json
import os
import sqlite3
import time
from typing import Callable

from search.index import collection_reads, progress_reads
from search.query import keyword, unindexed
from search.query.postings import tokenize
from search.query.snippet import snippet_pages
from search.query.text import query_words


# a BibTeX library (ingest.kinds.BIBTEX_EXTENSIONS): a passage is one entry, whose 'File:' line names its own PDFs;
# a hit on Vaswani's entry listed every PDF of the library, hundreds of them, as attached
BIBLIOGRAPHY_ENDINGS = (".bib", ".bibtex")
LINKS_SHOWN = 20  # a hit's attached PDFs or citing notes listed, by path (the total is given too)


def headings_above(row) -> tuple[str, ...]:
    """The headings shown above a hit's snippet: its file's title and its heading path's parts."""
    return (row["title"] or "", *(row["heading_path"] or "").split(" > "))


def stem_matches(conn, query: str, held: dict[str, list[str]], words: set[str]) -> Callable[[str], bool] | None:
    """Whether a word a snippet would mark (``words``: those of the hits, as folded) is one keyword search matched:
    a snippet marks the words that begin with a query word's first letters (its stem, so 'indexing' marks
    'indexed'), which marked 'Time' for 'timeout' and 'Statements' beside it, as if the passage held both words.
    An ASCII word whose tokens (stemmed by the index's own tokenizer) share none with the query's is not marked.
    ``held``: the other forms keyword search looked query words up by (``keyword.held_forms``), whose words are
    marked too. None (mark all) when the tokenizer cannot be asked."""
    loose = sorted(w for w in words if w.isascii() and w.isalpha())
    if not loose:
        return None
    asked = query_words(query)[:keyword.MAX_TERMS] + [form for its in held.values() for form in its]
    try:
        tokens = tokenize(conn, asked + loose)
    except sqlite3.Error:  # a scratch table this connection cannot make: mark as before
        return None
    wanted = {token for found in tokens[:len(asked)] for token in found}
    of_word = dict(zip(loose, tokens[len(asked):]))
    refused = {word for word, found in of_word.items() if found and not wanted.intersection(found)}
    return lambda word: word not in refused


def pages_shown(row, window: tuple[int, int] | None) -> dict:
    """A hit's page, end_page and their labels: those of a PDF passage's pages that the words its snippet marks
    are on; the passage's, where it marks none (found by meaning alone, the passage as a whole matched: naming the
    page its snippet starts on sent the reader to the first of its pages only)."""
    page, end_page = row["page"], row["end_page"]
    if row["page_starts"] is None or not end_page or end_page == page or window is None:
        return {"page": page, "end_page": end_page, "page_label": row["page_label"],
                "end_page_label": row["end_page_label"]}
    page, end_page = snippet_pages(row["text"], json.loads(row["page_starts"]), window)
    labels = json.loads(row["page_labels"]) if row["page_labels"] else []
    label = lambda n: labels[n - 1] if 0 < n <= len(labels) else None  # noqa: E731
    return {"page": page, "end_page": end_page, "page_label": label(page), "end_page_label": label(end_page)}


def why_not_indexed(conn, collection: str, path: str) -> str:
    """Why a PDF a note cites is not in the published index, as the index records it."""
    row = progress_reads.latest_progress(conn, collection, path)
    if row is None:
        roots = collection_reads.collections(conn, collection)
        if roots and os.path.isfile(os.path.join(roots[0]["root"], path)):  # no scan recorded it: left out, or new
            return unindexed.in_folder(conn, roots[0], path, time.time())
        return "no PDF of that name is in the folder" if "/" not in path else "not in the folder"
    if row["state"] in ("failed", "skipped"):
        return f"{row['state']} at {row['stage']}: {row['reason']}"
    if row["change"] == "deleted":
        return "deleted from the folder"
    return "not in the published index yet: list_files shows its state"


def named_in(targets: list[str], text: str) -> list[str]:
    """Those of a library's ``targets`` whose file name its entry's passage ``text`` names on its 'File:' line
    (ingest.bibtex: 'File: a.pdf; b.pdf'), whole: as part of the text, 'a.pdf' of another entry was listed on the
    entry naming 'data.pdf'."""
    named = {name.strip().casefold() for line in text.splitlines() if line.startswith("File: ")
             for name in line[len("File: "):].split("; ")}
    return [target for target in targets if target.rsplit("/", 1)[-1].casefold() in named]


def resolved_pdfs(targets: list[str], by_name: dict[str, list[tuple[str, bool]]]) -> list[str]:
    """The PDFs a note links to, by path: a bare name (``[[paper.pdf]]``, a link by file name, as wiki links are)
    stands for the collection's PDFs of that name (the one at the root alone, if there is one there), and stays as
    written when it names none. It was listed bare, where other links and a PDF's 'cited by' give paths. A name or
    path in any case is the PDF's, as Obsidian reads a link and as the PDF's 'cited by' counts it (``by_name`` is
    keyed by the names casefolded)."""
    paths: set[str] = set()
    held = {path.casefold(): path for found in by_name.values() for path, _ in found} if targets else {}
    for target in targets:
        if "/" in target:
            paths.add(held.get(target.casefold(), target))
            continue
        found = [path for path, _ in by_name.get(target.casefold(), [])]
        paths.update([path for path in found if path.casefold() == target.casefold()] or found or [target])
    return sorted(paths)


def printed(hit) -> str:
    """' (printed 8)' / ' (printed 8-9)': the numbers printed on a PDF hit's pages, when they are not the pages'
    places in the file, which `page` gives (and read_file takes)."""
    get = hit.get if isinstance(hit, dict) else lambda key: getattr(hit, key)
    first, last = get("page_label"), get("end_page_label")
    if not first or (first == str(get("page")) and (last or first) == str(get("end_page") or get("page"))):
        return ""
    return f" (printed {first}-{last})" if last and get("end_page") != get("page") else f" (printed {first})"


def context_line(title: str | None, heading_path: str | None) -> str:
    """What a hit is under, as results show it above the snippet: the file's title and the heading path, the title
    once when the path starts with it ('Plan > Goals'), either alone when the other is empty ('第十周周报' for a
    note titled in its front matter, 'a0013' for one with an empty heading)."""
    title, heading = title or "", heading_path or ""
    return heading if title and heading.startswith(title) else " — ".join(p for p in (title, heading) if p)
