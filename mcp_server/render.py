"""Small text helpers: times, ages, sizes, and search hits as a model reads them."""
from __future__ import annotations

import time

from ingest import passage_dates
from search.index.status import age, count, size, when  # noqa: F401  (this module's vocabulary: render.age, …)
from search.query import footnotes
from search.query.filters import file_glob
from workers.stats import printable as shown  # noqa: F401  (a name with a newline or an escape, as one line)


def ago(ts: float | None) -> str:
    return "never" if ts is None else f"{when(ts)} ({age(time.time() - ts)} ago)"


def place(hit) -> str:
    """'lines 3-9' / 'line 3' or 'page 4' / 'pages 4-5' of a hit (or a dict with the same keys)."""
    get = hit.get if isinstance(hit, dict) else lambda key: getattr(hit, key)
    if get("page"):
        end = get("end_page")
        pages = f"pages {get('page')}-{end}" if end and end != get("page") else f"page {get('page')}"
        from search.query.hits import printed  # the query code: loaded by the first search, not at start
        return pages + printed(hit)
    if get("start_line"):
        end = get("end_line")
        return f"lines {get('start_line')}-{end}" if end and end != get("start_line") else f"line {get('start_line')}"
    return ""


def notes(said: list[str]) -> list[str]:
    """The lines of the notes on how a request was read, which go before the results they explain."""
    return [f"note: {n}" for n in said]


def hit_data(hit) -> dict:
    """A search hit as the structured result carries it; ``path`` is what read_file takes."""
    return {
        "path": f"{hit.collection}/{hit.path}", "collection": hit.collection, "relative_path": hit.path,
        # a passage before any heading (a PDF's front matter, a note or code file without one) has none: left out
        # as other empty keys are, where it was "" (the outputSchema says a heading path or nothing)
        "title": hit.title, "heading_path": hit.heading_path or None, "kind": hit.kind,
        "start_line": hit.start_line, "end_line": hit.end_line, "page": hit.page, "end_page": hit.end_page,
        "page_label": hit.page_label, "end_page_label": hit.end_page_label,
        "snippet": hit.snippet, "score": hit.score, "keyword_rank": hit.keyword_rank,
        "semantic_rank": hit.semantic_rank, "generation": hit.generation, "chunk_id": hit.chunk_id,
        "modified": when(hit.modified),
        "attachments": [f"{hit.collection}/{p}" for p in hit.attachments],
        "cited_by": [f"{hit.collection}/{p}" for p in hit.cited_by],
        # 0 on every hit without links says nothing: None, so that result() leaves it out as it does the empty lists
        "attachments_total": hit.attachments_total or None, "cited_by_total": hit.cited_by_total or None,
        "attachments_not_indexed": {f"{hit.collection}/{p}": why for p, why in hit.attachments_not_indexed.items()}
        or None,
        "more_in_file": hit.more_in_file or None,
        "more_in_file_names": getattr(hit, "more_in_file_names", None) or None,  # of code: the definitions left off
        "file_passages": getattr(hit, "file_passages", 0) or None,  # for the text's '+N more' line alone (lean drops it)
        "also_in": hit.also_in or None,  # a search hit's file through other collections
        # its sync conflict copies that matched too (left off the page), or, on a copy, the note it copies
        "conflict_copies": getattr(hit, "conflict_copies", None) or None,
        "conflict_copy_of": getattr(hit, "conflict_copy_of", None),
        "conflict_original_matched": getattr(hit, "conflict_original_matched", False) or None,
        "author": _short_author(getattr(hit, "author", None)),  # a PDF's metadata's, a note's front matter's: searched
        # a note's passage defining footnotes: where the note cites them, '[^1] cited at lines 7, 30'
        "footnotes_cited": footnotes.said(getattr(hit, "footnotes_cited", None) or {}) or None,
        "data_rows": getattr(hit, "data_rows", None),  # a data file's: its later rows are not searched
        # the date the passage is about, where its file says one (a mail message's Date, a daily note's name)
        "dated": passage_dates.shown(getattr(hit, "dated", None)),
        # a saved message's (.eml) thread: the other messages of it in the collection, by date
        "mail_thread": [f"{hit.collection}/{p}" for p in getattr(hit, "mail_thread", None) or []] or None,
    }


AUTHOR_SHOWN = 80  # characters of a file's author a hit shows: a list of twenty names is cut


def _short_author(author: str | None) -> str | None:
    if not author or len(author) <= AUTHOR_SHOWN:
        return author or None
    return author[:AUTHOR_SHOWN].rsplit(" ", 1)[0].rstrip(",;") + " …"


def lean(hit: dict, generations: dict[str, int]) -> dict:
    """A hit as the structured content carries it: without what ``path`` and the answer's ``generations`` already
    say (the collection, the relative path, a generation that is its collection's published one) or a heading
    path that repeats the title. They made the data of a search about twice its text (31 KB against 18 KB at
    limit 50) and told a program nothing new."""
    collection = hit["collection"]
    kept = {key: value for key, value in hit.items() if key not in ("collection", "relative_path", "file_passages")}
    if generations.get(collection) == hit["generation"]:
        del kept["generation"]
    if hit["heading_path"] == hit["title"]:
        del kept["heading_path"]
    return kept


def generations_said(hits: list[dict], generations: dict[str, int]) -> str:
    """'; notes at generation 3' for the line above the hits, when each hit comes from its collection's
    published generation (as it does): said once there, not on each hit. '' otherwise, or without hits."""
    shown = sorted({h["collection"] for h in hits})
    if not hits or any(generations.get(h["collection"]) != h["generation"] for h in hits):
        return ""
    return "; " + ", ".join(f"{name} at generation {generations[name]}" for name in shown)


def hits_text(hits: list[dict], once: bool = False) -> list[str]:
    """The hits as numbered lines; a path, title or snippet's control characters (a newline in a file name, a
    terminal escape) escaped, so each stays on its line. ``once``: the generation is said above the hits
    (generations_said), so not on each. A file's links (its attached PDFs, a PDF's citing notes: the file's,
    not the passage's) are listed on its first hit; a later hit of it refers to that one, where each hit of a
    PDF cited by twenty notes repeated their twenty paths."""
    from search.query.hits import context_line
    from search.query.results_page import conflict_line, more_in_file
    lines, first = [], {}
    last = {h["path"]: n for n, h in enumerate(hits, start=1)}  # each file's last hit on the page
    for n, h in enumerate(hits, start=1):
        said = first.setdefault(h["path"], n)
        # a .bib entry's attached PDFs are its own (search.query.hits.BIBLIOGRAPHY_ENDINGS), not its file's: a later
        # entry's hit said 'attached PDF: as for hit 1' of an entry that had none
        linked = said != n and any(hits[said - 1].get(key) != h.get(key) for key in ("attachments", "cited_by"))
        where = place(h)
        generation = "" if once else f", generation {h['generation']}"
        lines.append(f"{n}. {h['path']}{'  ' + where if where else ''}  "
                     f"(score {h['score']:.4f}{generation}, chunk {h['chunk_id']})")
        context = context_line(h["title"], h["heading_path"])
        if context == h["title"] and _names_its_file(h["title"], h["path"]):
            context = ""  # 'Type of Anything' under …/type-of-anything.md: the path above said it (the data keeps it)
        if h.get("author") and said == n:  # a file's author, on its file's first hit: a search for the name found
            context = f"{context}  (by {h['author']})" if context else f"by {h['author']}"  # it, with no word why
        if context:
            lines.append(f"   {context}")
        # the date the passage is about (a message's Date, a daily note's): date_after goes by it. Said again only
        # where it differs from the date on the file's hit above: each of a PDF's hits repeated its created date
        if h.get("dated") and (said == n or any(hits[i].get("dated") != h["dated"] for i in range(said - 1, n - 1)
                                                 if hits[i]["path"] == h["path"])):
            lines.append(f"   dated {h['dated']}")
        lines.append(f"   {h['snippet']}")
        if h.get("footnotes_cited"):  # a footnote's definition found: where the story cites it
            lines.append(f"   {h['footnotes_cited']}")
        if h.get("also_in"):
            lines.append(f"   (the same file as {', '.join(h['also_in'])})")
        if h.get("not_downloaded") and said == n:  # a note a sync client freed: said once, on its file's first hit
            from search.query.listing import NOT_DOWNLOADED
            lines.append(f"   ({NOT_DOWNLOADED})")
        if h.get("data_rows"):  # a data file's first rows: a value of a later one is not found, read_file reads it
            lines.append(f"   ({h['data_rows']})")
        if h.get("conflict_copies") or h.get("conflict_copy_of"):
            conflict = conflict_line(h.get("conflict_copies"), h.get("conflict_copy_of"),
                                            bool(h.get("conflict_original_matched")))
            lines.append(f"   {conflict}")
        if h.get("mail_thread"):  # a reply in a folder of .eml files named no other message of its conversation
            from search.query.mail_threads import thread_line
            lines.append("   " + thread_line(h["mail_thread"], h["heading_path"] or h["title"]))
        # under the file's last hit on the page, not its first: '+ 1 more passage of this file … left off' and then
        # the file's next passage shown read as if that passage were the one left off
        held = hits[said - 1]
        if held.get("more_in_file") and last[h["path"]] == n:
            again = None if _reads_whole(held) else search_args(held["collection"], held["relative_path"])
            count, names = held["more_in_file"], held.get("more_in_file_names") or ()
            lines.append(f"   {_more_here(count)}" if again is None and not names
                         else f"   {more_in_file(count, again, names)}")
        if said != n and not linked:
            links = [name for key, name in (("attachments", "attached PDF"), ("cited_by", "cited by notes"))
                     if h.get(key)]
            lines += [f"   {' and '.join(links)}: as for hit {said}"] if links else []
            continue
        if h.get("attachments"):
            lines.append(f"   attached PDF: {', '.join(h['attachments'])}"
                         + _more(h["attachments"], h.get("attachments_total"), "read_file on the note shows its links"))
            missing = h.get("attachments_not_indexed") or {}
            lines += [f"   not indexed: {path} ({why})" for path, why in missing.items()]
        if h.get("cited_by"):
            lines.append(f"   cited by notes: {', '.join(h['cited_by'])}"
                         + _more(h["cited_by"], h.get("cited_by_total"), "search kind='note' for the PDF's file "
                                 "name finds the notes that mention it"))
    return [shown(line) for line in lines]


def _names_its_file(title: str | None, path: str) -> bool:
    """Whether ``title`` is the file's name in other letters ('Type of Anything', type-of-anything.md): its line
    under the hit's path said the name again, some 30 characters a hit of a folder of such notes."""
    def letters(text: str) -> str:
        return "".join(c for c in text.casefold() if c.isalnum())
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return bool(title) and letters(title) == letters(stem)


def _more_here(count: int) -> str:
    """The line under a hit whose file has more passages on the page's ranks, read whole by read_file: '+ 1 more
    passage of this file ranked among these, left off for other files (read_file shows the file)' said in 100
    characters what this says in 60 (``ingest search`` keeps the long words: results_page.more_in_file)."""
    return f"+ {count:,} more passage{'s' if count > 1 else ''} of this file matched (read_file shows it)"


# A file of up to this many passages (256 tokens each by default: some 10 KB) is read whole by one read_file call
# of its default 2,000 lines or 40 KB, so the line under its hits names read_file, not the search again with
# its glob: 'search again with collection=…, glob=…' (some 180 characters, the path again) stood under half the hits
# of a search of short notes, to show one more passage of a 1 KB note that read_file shows whole.
SMALL_FILE_PASSAGES = 8


def _reads_whole(hit: dict) -> bool:
    """Whether read_file's default call shows the hit's whole file: a file of lines (a PDF is read a page at a
    time) with no more than SMALL_FILE_PASSAGES passages, not code (its line names the definitions left off, which
    a search with its glob shows)."""
    return (not hit.get("page") and hit.get("kind") != "code" and not hit.get("more_in_file_names")
            and 0 < (hit.get("file_passages") or 0) <= SMALL_FILE_PASSAGES)


def search_args(collection: str, relative: str) -> str | None:
    """The search arguments that keep to one file ("collection='notes', glob='tech/x.md'"): for the passages of a
    hit's file left off its page, which the line said 'read_file shows the file' of (a 500 KB note's dozen calls,
    a PDF page by page), and for the part of a long file read_file has not shown. None when no glob names the
    file alone."""
    pattern = file_glob(relative)
    return None if pattern is None else f"collection={collection!r}, glob={pattern!r}"


def _more(paths: list[str], total: int | None, how: str) -> str:
    """' (the first 20 of 3,412 by path; <how>)' when the list was cut, else ''."""
    if (total or 0) <= len(paths):
        return ""
    return f" (the first {len(paths)} of {total:,} by path; {how})"
