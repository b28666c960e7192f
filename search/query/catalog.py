"""The chunks of the published generations, with what search filters look at.

``Catalog`` is loaded once per set of published generations and shared by the
in-memory keyword and vector indexes: visible chunk ids in order, the file each
belongs to, and per file its collection, path, kind and modification time. A
filter becomes a boolean mask over the chunks, worked out per file and cached.

``Rows`` is an in-memory index's own list of the chunk rows it holds (which may
include rows not yet published, and rows no longer visible), seen through a
catalog: which of its rows are visible, which pass a filter, how many it holds
for nothing.
"""
from __future__ import annotations

import re
import sqlite3

import numpy as np

from search.index import catalog_reads, tag_reads
from search.query.filters import MAIL, Filters, glob_literals, glob_matcher, in_folder, is_mail_file

MASKS_KEPT = 32


class Catalog:
    def __init__(self, ids: np.ndarray, file_of: np.ndarray, files: list[tuple[str, str, str, float]],
                 dated: np.ndarray | None = None, file_ids: np.ndarray | None = None,
                 tags: dict[str, tuple[str, str]] | None = None):
        self.ids = ids  # chunk ids, ascending
        self.file_of = file_of  # per chunk: its row in ``files``
        self.dated = dated  # per chunk: the date it is about (unix time), NaN where it has none; None: none has one
        self.collections = np.array([f[0] for f in files], dtype=object)
        self.paths = [f[1] for f in files]
        self.kinds = np.array([f[2] for f in files], dtype=object)
        self.mtimes = np.array([f[3] for f in files], dtype=np.float64)
        self.file_ids = np.zeros(0, dtype=np.int64) if file_ids is None else file_ids  # per file: its id, ascending
        # tag -> the files holding it as theirs, the chunks as their own (tag_reads.catalog_tags); None: not read yet,
        # read by the first search that uses a tag (``load_tags``): 400,000 rows took ~100 ms of each load's 0.8 s
        self._tags = tags
        self._tag_masks: dict[str, np.ndarray] = {}  # tag -> which chunks carry it (``tag_mask``)
        # the authors files record and mail passages' senders, by file row and chunk row (``load_authors``); None:
        # not read yet, read by the first search that filters by an author or whose question names a writer
        self._authors: tuple[dict[int, str], dict[int, str]] | None = None
        self._author_masks: dict[str, np.ndarray] = {}  # a name asked for -> which chunks it wrote (``author_mask``)
        self._visible_tags: list[str] | None = None  # the tags a file or chunk here holds (``visible_tags``)
        self._masks: dict[Filters, np.ndarray] = {}
        self._text: PathText | None = None  # the paths as one text, made on the first folder or glob filter
        self._passages: np.ndarray | None = None  # per file: its chunks (``passages``)
        self._named: dict[str, list[int]] | None = None  # file name casefolded -> its files' rows (``named``)
        self._by_file: tuple[np.ndarray, np.ndarray] | None = None  # chunks ordered by file, where each file starts

    @classmethod
    def empty(cls) -> "Catalog":
        return cls(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32), [], tags={})

    @classmethod
    def load(cls, conn: sqlite3.Connection) -> "Catalog":
        """The visible chunks: two lists of numbers from SQLite (fast at 100k chunks), and the visible files."""
        files = catalog_reads.catalog_files(conn)
        ids, file_ids = catalog_reads.catalog_chunks(conn)
        if not ids:
            return cls.empty()
        ids, file_ids = _numbers(ids), _numbers(file_ids)
        if np.any(ids[1:] < ids[:-1]):  # group_concat keeps the subquery's order, but do not rely on it
            order = np.argsort(ids)
            ids, file_ids = ids[order], file_ids[order]
        known = np.array([f[0] for f in files], dtype=np.int64)
        file_of = np.searchsorted(known, file_ids).astype(np.int32)
        return cls(ids, file_of, [f[1:] for f in files], _dates(ids, *catalog_reads.catalog_dates(conn)), known)

    def load_tags(self, conn: sqlite3.Connection) -> "Catalog":
        """The index's tags read (``tags``), once, by a search that uses them: a filter's or a query's '#tag'. Read
        in a later snapshot than the chunks, they may name files and chunks not here (published since), which no
        mask keeps; the files and chunks here are in a published generation, whose rows stay until it is replaced,
        and with it this catalog."""
        if self._tags is None:
            self._tags = tag_reads.catalog_tags(conn)
        return self

    def load_authors(self, conn: sqlite3.Connection) -> "Catalog":
        """The authors of this catalog's files and the senders of its mail passages read (search.query.authors),
        once, by a search that asks for an author."""
        if self._authors is None:
            from search.query.authors import file_authors, mail_senders
            files = dict(file_authors(conn))  # each a str, Apart where its field names each person apart
            ids = np.array(sorted(files), dtype=np.int64)
            by_file = {int(row): files[int(self.file_ids[row])] for row in _rows(self.file_ids, ids)}
            said = mail_senders(conn)
            chunks = np.array([chunk for chunk, _ in said], dtype=np.int64)
            at = dict(zip((int(c) for c in chunks), (sender for _, sender in said)))
            by_chunk = {int(row): at[int(self.ids[row])] for row in _rows(self.ids, np.sort(chunks))}
            self._authors = (by_file, by_chunk)
        return self

    def known_authors(self) -> list[str]:
        """The authors this catalog's files record and its mail's senders, each once (``load_authors`` first): a
        text recorded both as an ``Apart`` and not (an EPUB's creator, a PDF's metadata) twice, as an Apart equals
        its text and the first kept of the two told whether a name was known."""
        by_file, by_chunk = self._authors_read()
        return list({(type(author), author): author for author in [*by_file.values(), *by_chunk.values()]}.values())

    def author_named(self, name: str) -> str:
        """The author as a file records ``name`` ('Ben Okafor' for 'ben'), the most files' first; else ``name``."""
        from search.query.authors import wrote
        by_file, _ = self._authors_read()
        held = [author for author in by_file.values() if wrote(author, name)]
        return max(dict.fromkeys(held), key=held.count) if held else name

    def author_mask(self, name: str) -> np.ndarray:
        """Which chunks ``name`` wrote (search.query.authors.wrote): their file's author, or their message's sender."""
        if name not in self._author_masks:
            from search.query.authors import wrote
            by_file, by_chunk = self._authors_read()
            files = np.zeros(len(self.paths), dtype=bool)
            files[[row for row, author in by_file.items() if wrote(author, name)]] = True
            keep = files[self.file_of]
            theirs = {sender for sender in set(by_chunk.values()) if wrote(sender, name)}  # a sender's words once
            keep[[row for row, sender in by_chunk.items() if sender in theirs]] = True
            if len(self._author_masks) >= MASKS_KEPT:
                self._author_masks.clear()
            self._author_masks[name] = keep
        return self._author_masks[name]

    def rows_of(self, chunk_ids: list[int]) -> list[int | None]:
        """The row of each of ``chunk_ids`` in this catalog; None for a chunk not here."""
        if not len(self.ids):
            return [None] * len(chunk_ids)
        asked = np.asarray(chunk_ids, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.ids, asked), len(self.ids) - 1)
        return [int(row) if held else None for row, held in zip(at, self.ids[at] == asked)]

    def _authors_read(self) -> tuple[dict[int, str], dict[int, str]]:
        if self._authors is None:
            raise RuntimeError("the catalog's authors are read by load_authors(conn) before a search uses them")
        return self._authors

    @property
    def tags(self) -> dict[str, tuple[str, str]]:
        if self._tags is None:
            raise RuntimeError("the catalog's tags are read by load_tags(conn) before a search uses them")
        return self._tags

    def visible_tags(self) -> list[str]:
        """The tags a search can find: those a file or a chunk of this catalog (the published generations) holds.
        ``tags`` holds every tag of the index, of a generation not yet published too: the note for a tag no file
        holds named one only a build under way had read as held, or offered it as the tag nearest the one asked."""
        if self._visible_tags is None:
            self._visible_tags = [name for name, (files, chunks) in self.tags.items()
                                  if len(_rows(self.file_ids, _numbers(files)))
                                  or len(_rows(self.ids, _numbers(chunks)))]
        return self._visible_tags

    def files(self, chunk_ids: list[int]) -> list[int]:
        """The file (its row here) each of ``chunk_ids`` belongs to (visible chunks only)."""
        rows = np.searchsorted(self.ids, np.asarray(chunk_ids, dtype=np.int64))
        return [int(f) for f in self.file_of[np.minimum(rows, max(len(self.ids) - 1, 0))]] if len(self.ids) else \
            [0] * len(chunk_ids)

    def __len__(self) -> int:
        return len(self.ids)

    def passages(self, row: int) -> int:
        """How many visible chunks the file at ``row`` has (counted for all files once, on first use)."""
        if self._passages is None:
            self._passages = np.bincount(self.file_of, minlength=len(self.paths))
        return int(self._passages[row]) if row < len(self._passages) else 0

    def named(self, name: str) -> list[int]:
        """The rows of the files whose name (the path's last part), casefolded, is ``name`` (casefolded), ascending:
        a pasted stack trace's files and a query naming a file were looked for by reading every path of the index
        (10 ms a traced file at 100,000 passages)."""
        if self._named is None:
            self._named = {}
            for row, path in enumerate(self.paths):
                self._named.setdefault(path.rsplit("/", 1)[-1].casefold(), []).append(row)
        return self._named.get(name.casefold(), [])

    def chunks_of(self, row: int, mask: np.ndarray | None = None) -> list[int]:
        """The ids of the visible chunks of the file at ``row`` (those ``mask``, over the chunks, keeps), ascending:
        found in an order by file made once, not by comparing every chunk's file with it."""
        if self._by_file is None:
            order = np.argsort(self.file_of, kind="stable")
            counts = np.bincount(self.file_of, minlength=len(self.paths))
            self._by_file = (order, np.concatenate([[0], np.cumsum(counts)]))
        order, starts = self._by_file
        if not 0 <= row < len(self.paths):
            return []
        chunks = order[starts[row]:starts[row + 1]]
        return [int(cid) for cid in self.ids[chunks if mask is None else chunks[mask[chunks]]]]

    def kinds_of(self, chunk_ids: list[int]) -> list[str | None]:
        """The kind (note, code, pdf …) of the file of each of ``chunk_ids``; None for a chunk not visible here."""
        if not len(self.ids):
            return [None] * len(chunk_ids)
        asked = np.asarray(chunk_ids, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.ids, asked), len(self.ids) - 1)
        return [str(self.kinds[self.file_of[i]]) if self.ids[i] == cid else None for i, cid in zip(at, asked)]

    def first_chunk(self, row: int, filters: Filters) -> int | None:
        """The id of the first chunk of the file at ``row`` that passes ``filters``; None when none does."""
        mask = self.mask(filters)
        chunks = np.flatnonzero((self.file_of == row) & (True if mask is None else mask))
        return int(self.ids[chunks[0]]) if len(chunks) else None

    def mask(self, f: Filters) -> np.ndarray | None:
        """Which chunks pass ``f`` (None: all of them)."""
        if f == Filters():
            return None
        if f not in self._masks:
            if len(self._masks) >= MASKS_KEPT:
                self._masks.clear()
            self._masks[f] = self._file_mask(f)[self.file_of]
            if f.date_after is not None or f.date_before is not None:
                self._masks[f] &= self._date_mask(f)
            for tag in f.tags:
                self._masks[f] &= self.tag_mask(tag)
            if f.author:
                self._masks[f] &= self.author_mask(f.author)
        return self._masks[f]

    def held(self, tag: str) -> list[str]:
        """The tags held that ``tag`` names: itself and those nested in it ('project' → 'project/sift')."""
        return [name for name in self.tags if name == tag or name.startswith(tag + "/")]

    def tag_mask(self, tag: str) -> np.ndarray:
        """Which chunks carry ``tag`` (or a tag nested in it): their file's, or their own (kept per tag: a '#tag'
        query asks for it each time)."""
        if tag not in self._tag_masks:
            files = np.zeros(len(self.paths), dtype=bool)
            keep = np.zeros(len(self.ids), dtype=bool)
            for name in self.held(tag):
                own_files, own_chunks = self.tags[name]
                files[_rows(self.file_ids, _numbers(own_files))] = True
                keep[_rows(self.ids, _numbers(own_chunks))] = True
            if len(self._tag_masks) >= MASKS_KEPT:
                self._tag_masks.clear()
            self._tag_masks[tag] = keep | files[self.file_of]
        return self._tag_masks[tag]

    def carrying(self, chunk_ids: list[int], tag: str) -> list[bool]:
        """Whether each of ``chunk_ids`` carries ``tag`` (``tag_mask``); False for a chunk not visible here."""
        if not len(self.ids):
            return [False] * len(chunk_ids)
        asked = np.asarray(chunk_ids, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.ids, asked), len(self.ids) - 1)
        return [bool(held) for held in (self.ids[at] == asked) & self.tag_mask(tag)[at]]

    def has_dates(self, mask: np.ndarray | None) -> bool:
        """Whether any chunk ``mask`` keeps (None: any chunk) has a date of its own."""
        if self.dated is None:
            return False
        own = ~np.isnan(self.dated)
        return bool((own if mask is None else own & mask).any())

    def _date_mask(self, f: Filters) -> np.ndarray:
        """Which chunks are about a date in ``f``'s date_after .. date_before: their own date, else their file's
        modified time."""
        when = self.mtimes[self.file_of]
        if self.dated is not None:
            when = np.where(np.isnan(self.dated), when, self.dated)
        keep = np.ones(len(self.ids), dtype=bool)
        if f.date_after is not None:
            keep &= when >= f.date_after
        if f.date_before is not None:
            keep &= when < f.date_before
        return keep

    def _file_mask(self, f: Filters) -> np.ndarray:
        keep = np.ones(len(self.paths), dtype=bool)
        if f.collection:
            keep &= self.collections == f.collection
        if f.path_prefix:  # a folder, in either Unicode normal form (search.query.filters)
            folder = f.path_prefix
            keep &= self._matching(self.path_text().in_folder(folder), keep, lambda path: in_folder(path, folder))
        if f.kind == MAIL:  # notes that are mail files (search.query.filters.is_mail_file)
            keep &= self._matching(self.kinds == "note", keep, lambda path: is_mail_file(path, "note"))
        elif f.kind:
            keep &= self.kinds == f.kind
        if f.glob:
            keep &= self._matching(self.path_text().in_glob(f.glob), keep, glob_matcher(f.glob))
        if f.modified_after is not None:
            keep &= self.mtimes >= f.modified_after
        if f.modified_before is not None:
            keep &= self.mtimes < f.modified_before
        return keep

    def path_text(self) -> "PathText":
        if self._text is None:
            self._text = PathText(self.paths)
        return self._text

    def _matching(self, candidates: np.ndarray, passing: np.ndarray, match) -> np.ndarray:
        """Which files ``match`` (the Python comparison, which decides) holds for, called only on the
        ``candidates`` that are ``passing`` the other filters so far (boolean masks over the files)."""
        keep = np.zeros(len(self.paths), dtype=bool)
        for row in np.flatnonzero(candidates & passing):
            keep[row] = match(self.paths[row])
        return keep


class PathText:
    """The paths of a catalog as one text, one a line, to narrow a folder or a glob by its literal text before
    the Python comparison, as list_files narrows them in SQL (the same ``glob_literals``): a path in ASCII
    (without a line break) can only match where that text is, found by the regex engine over the whole text;
    any other path is left to the comparison, which reads it in NFC. The first search with a new folder called
    the comparison on every path (path_prefix='area-043' 75 ms, glob '**/note-*1234*.md' 317 ms at 200,000)."""

    def __init__(self, paths: list[str]):
        self.text = "\n" + "\n".join(paths) + "\n"
        lengths = np.fromiter(map(len, paths), dtype=np.int64, count=len(paths))
        self.starts = np.cumsum(lengths + 1) - lengths  # where each path begins in ``text``
        if self.text.isascii() and self.text.count("\n") == len(paths) + 1:  # the usual case, at once
            self.others = np.zeros(len(paths), dtype=bool)
        else:
            self.others = np.fromiter((not p.isascii() or "\n" in p for p in paths), dtype=bool, count=len(paths))

    def in_folder(self, folder: str) -> np.ndarray:
        """The paths that may lie in ``folder``: ASCII ones that are it or begin with it and '/', and the others."""
        if not folder.isascii() or "\n" in folder:
            return np.ones(len(self.starts), dtype=bool)
        return self.others | self._holding(folder + "/", "", ()) | self._holding(folder, "", (), whole=True)

    def in_glob(self, glob: str) -> np.ndarray:
        """The paths ``glob`` may match: ASCII ones that hold its literal text where it says, and the others."""
        literals = glob_literals(glob)
        if literals is None or any("\n" in text for lit in literals for text in (lit[0], lit[1], *lit[2])):
            return np.ones(len(self.starts), dtype=bool)
        either = self.others.copy()
        for head, tail, inner in literals:
            either |= self._holding(head, tail, inner)
        return either

    def _holding(self, head: str, tail: str, inner: tuple[str, ...], whole: bool = False) -> np.ndarray:
        """The paths that begin with ``head``, end with ``tail`` and hold each of ``inner`` (``whole``: that are
        ``head``): the first of these texts found in few paths (the inner pieces first, longest first, then the head,
        then the tail; else the rarest) is looked for in the whole text, the rest checked on the paths it is in. One
        in most paths is not looked for (every path is a candidate). Each count reads the text (5 ms at 200,000)."""
        needles = [(piece, 0) for piece in sorted(inner, key=len, reverse=True)] + \
            ([("\n" + head + ("\n" if whole else ""), 1)] if head else []) + ([(tail + "\n", 0)] if tail else [])
        rows = np.zeros(len(self.starts), dtype=bool)
        counted = []
        for needle, skip in needles:
            counted.append((self.text.count(needle), needle, skip))
            if counted[-1][0] <= len(self.starts) // 16:
                break
        found, needle, skip = min(counted)
        if found > len(self.starts) // 2:
            rows[:] = True
            return rows
        at = np.fromiter((m.start() + skip for m in re.finditer(re.escape(needle), self.text)), dtype=np.int64)
        for row in np.unique(np.searchsorted(self.starts, at, side="right") - 1):
            path = self.text[self.starts[row]:self.starts[row + 1] - 1] if row + 1 < len(self.starts) else \
                self.text[self.starts[row]:-1]
            rows[row] = path.startswith(head) and path.endswith(tail) and all(p in path for p in inner) \
                and (not whole or path == head)
        return rows


class Rows:
    """The chunk ids an in-memory index holds (ascending), seen through the current catalog."""

    def __init__(self, ids: np.ndarray | None = None):
        self.ids = np.zeros(0, dtype=np.int64) if ids is None else ids
        self.catalog = Catalog.empty()
        self.visible = np.zeros(len(self.ids), dtype=bool)
        self.count = 0  # visible rows
        self.was_visible = np.zeros(len(self.ids), dtype=bool)
        self._of_catalog = np.zeros(0, dtype=np.int64)  # per catalog chunk: its row here, -1 if not held
        self._masks: dict[Filters, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self.ids)

    def append(self, ids: np.ndarray) -> None:
        """Rows for chunks newer than every chunk held."""
        self.ids = np.concatenate([self.ids, ids])
        self.was_visible = np.concatenate([self.was_visible, np.zeros(len(ids), dtype=bool)])
        self.use(self.catalog, again=True)

    def keep(self, which: np.ndarray) -> None:
        """Hold only the rows ``which`` selects (a boolean mask)."""
        self.ids, self.was_visible = self.ids[which], self.was_visible[which]
        self.use(self.catalog, again=True)

    def use(self, catalog: Catalog, again: bool = False) -> None:
        if catalog is self.catalog and not again:
            return
        at = np.searchsorted(self.ids, catalog.ids)
        held = at < len(self.ids)
        held[held] = self.ids[at[held]] == catalog.ids[held]
        self._of_catalog = np.where(held, at, -1)
        self.visible = np.zeros(len(self.ids), dtype=bool)
        self.visible[at[held]] = True
        self.count = int(held.sum())
        self.was_visible |= self.visible
        self.catalog, self._masks = catalog, {}

    def missing(self) -> int:
        """Visible chunks this index does not hold."""
        return len(self.catalog) - self.count

    def retired(self) -> int:
        """Rows that were visible once and are not any more (they never come back: chunk ids are not reused)."""
        return int(np.count_nonzero(self.was_visible & ~self.visible))

    def mask(self, filters: Filters) -> np.ndarray:
        """Visible rows that pass ``filters``."""
        chosen = self.catalog.mask(filters)
        if chosen is None:
            return self.visible
        if filters not in self._masks:
            if len(self._masks) >= MASKS_KEPT:
                self._masks.clear()
            rows = self._of_catalog[chosen]
            mask = np.zeros(len(self.ids), dtype=bool)
            mask[rows[rows >= 0]] = True
            self._masks[filters] = mask
        return self._masks[filters]


def _numbers(text: str) -> np.ndarray:
    return np.fromstring(text, dtype=np.int64, sep=",") if text else np.zeros(0, dtype=np.int64)


def _rows(known: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """The places in ``known`` (ascending) of those of ``ids`` it holds."""
    if not len(known) or not len(ids):
        return np.zeros(0, dtype=np.int64)
    at = np.minimum(np.searchsorted(known, ids), len(known) - 1)
    return at[known[at] == ids]


def _dates(ids: np.ndarray, dated_ids: str | None, dates: str | None) -> np.ndarray | None:
    """Per chunk of ``ids`` its own date (NaN: none), from ``catalog_reads.catalog_dates``; None when no chunk has one."""
    if not dated_ids:
        return None
    which, when = _numbers(dated_ids), _numbers(dates).astype(np.float64)
    dated = np.full(len(ids), np.nan)
    at = np.minimum(np.searchsorted(ids, which), len(ids) - 1)
    found = ids[at] == which
    dated[at[found]] = when[found]
    return dated
