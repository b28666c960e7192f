"""``similar``'s own steps (``Engine.similar`` runs them): the passages of the chunk or file asked about, why a file
has none, one hit a file on disk, and its sync conflict copies (or the note it copies) left out or named, with the
notes that say so."""
from __future__ import annotations

import re
from dataclasses import replace

from search.index import chunk_reads, file_reads, progress_reads
from search.query import copies
from search.query.answer import Hit, SearchError
from search.query.passages import Passages
from search.query.scope import file_place


def file_of(conn, chunk_id: int) -> tuple[int, int]:
    """(the file id of the published ``chunk_id``, it): source_chunks has refused one not published."""
    return chunk_reads.visible_chunk_file(conn, chunk_id)[0], chunk_id


def source_chunks(conn, chunk_id: int | None, path: tuple[str, str] | None, said: tuple[str, str] = ("stats", "refresh")
                  ) -> tuple[list[int], list[int], tuple[str, str]]:
    """(chunks to compare with, every chunk of their file, (its collection, its path)) for ``chunk_id`` or
    ``path``."""
    if chunk_id is not None:
        row = chunk_reads.visible_chunk_file(conn, chunk_id)
        if row is None:
            raise SearchError(f"no passage with chunk id {chunk_id} in the published index: chunk ids come "
                              "from search results and change when a file is indexed again")
        return [chunk_id], chunk_reads.file_chunk_ids(conn, row[0]), (row[1], row[2])
    collection, relative = path
    ids = chunk_reads.visible_path_chunks(conn, collection, relative)
    if not ids:
        raise SearchError(f"{collection}/{relative} has no passages in the published index: "
                          f"{_why_no_passages(conn, collection, relative, said)}")
    return ids, ids, (collection, relative)


def _why_no_passages(conn, collection: str, relative: str, said: tuple[str, str] = ("stats", "refresh")) -> str:
    """Why a file similar is asked about has no published passages, as the index records it (read_file says
    the same): 'not indexed yet, empty, or failed to parse: see stats' left a model to guess, or to call stats
    and look for the file among every collection's failures. ``said``: (what shows progress, what queues a scan)
    as the caller names them: `ingest similar` said 'stats shows …', a command it does not have."""
    stats, rescan = said
    row = progress_reads.latest_progress(conn, collection, relative)
    if row is None:  # the generation that read an empty file is gone once a newer one is published
        if file_reads.visible_file(conn, collection, relative) is not None:
            return "it is indexed, but holds no text to compare"
        return f"no scan has read it yet ({rescan} queues one)"
    if row["reason"] == progress_reads.DEFERRED:  # on its way: a later part of the first build reads it
        return f"{row['reason']}; similar compares it once that part is published"
    if row["state"] in ("failed", "skipped"):
        return f"{row['state']} at {row['stage']}: {row['reason']}"
    if file_reads.visible_file(conn, collection, relative) is not None:
        return "it is indexed, but holds no text to compare"
    return f"it waits to be indexed: {stats} shows the generation being built"


def kin_left_out(hits: list[Hit], source: tuple[str, str], read: Passages, file_ids: list[int]
                 ) -> tuple[list[Hit], dict[tuple[str, str], bool]]:
    """``hits`` without those of ``source``'s (collection, path) sync conflict copies, of the note it is a copy of,
    and of that note's other copies (search.query.copies), whose passage is one ``source`` holds too (``file_ids``:
    its chunks): similar on a note gave its own conflict copy first, at 1.0, its own text. One whose passage is
    not (the other machine's edit; or 'plan (1).md' is a note of its own) stays. {each such file: left out}."""
    collection, path = source
    mine = copies.maybe_original_of(path) or path
    kin = {(hit.collection, hit.path): False for hit in hits if hit.collection == collection and hit.path != path
           and (copies.maybe_original_of(hit.path) or hit.path) == mine}
    if not kin:
        return hits, kin
    own = {row["text"] for row in read.rows(file_ids).values()}
    texts = read.rows([hit.chunk_id for hit in hits if (hit.collection, hit.path) in kin])
    kept = []
    for hit in hits:
        if (hit.collection, hit.path) in kin and texts[hit.chunk_id]["text"] in own:
            kin[(hit.collection, hit.path)] = True
            continue
        kept.append(hit)
    return kept, kin


def copies_named(hits: list[Hit], read: Passages, ranked: list[int]) -> list[Hit]:
    """``hits`` (one per file) without those of the sync conflict copies whose note is among them and holds the
    same passage text among ``ranked`` (the chunks compared, best first), named on the note's hit as search names
    them (``conflict_copies``): a note and its copy took two places at the same score. A copy whose passage its
    note does not hold stays (the other machine's edit, or a note of its own named like a copy)."""
    places = {(hit.collection, hit.path) for hit in hits}
    copied = [hit for hit in hits if (hit.collection, copies.maybe_original_of(hit.path)) in places]
    if not copied:
        return hits
    originals = {(hit.collection, copies.maybe_original_of(hit.path)) for hit in copied}
    rows = read.catalog.files(ranked)
    theirs = {cid for cid, row in zip(ranked, rows)
              if (str(read.catalog.collections[row]), read.catalog.paths[row]) in originals}
    texts = read.rows([*theirs, *[hit.chunk_id for hit in copied]])
    held: dict[tuple[str, str], set] = {}
    for cid, row in zip(ranked, rows):
        if cid in theirs:
            place = (str(read.catalog.collections[row]), read.catalog.paths[row])
            held.setdefault(place, set()).add(texts[cid]["text"])
    folded: dict[tuple[str, str], list[str]] = {}
    for hit in copied:
        original = (hit.collection, copies.maybe_original_of(hit.path))
        if texts[hit.chunk_id]["text"] in held.get(original, ()):
            folded.setdefault(original, []).append(f"{hit.collection}/{hit.path}")
    gone = {name for names in folded.values() for name in names}
    kept = [hit for hit in hits if f"{hit.collection}/{hit.path}" not in gone]
    for hit in kept:
        hit.conflict_copies = folded.get((hit.collection, hit.path), [])
    return kept


def named_copy(path: str) -> bool:
    """Whether ``path`` is a note, or a copy by a name only a sync tool gives (not iCloud's 'note 2.md')."""
    return copies.original_of(path) is not None or copies.maybe_original_of(path) is None


def kin_note(kin: tuple[str, str], source: tuple[str, str], left_out: bool) -> str:
    """The note naming a file kin_left_out found: left out, or shown for a passage the file asked about lacks."""
    name = f"{kin[0]}/{kin[1]}"
    named = "" if left_out else "named as "
    if copies.maybe_original_of(kin[1]) == source[1]:
        what = f"{named}a sync conflict copy of the file asked about"
    elif copies.maybe_original_of(source[1]) == kin[1]:
        what = f"the file asked about is {named}a sync conflict copy of it"
    else:
        what = f"{named}another sync conflict copy of the note the file asked about copies"
    if left_out:
        return f"left out {name}: {what}, and its passage is one the file holds too (read_file reads it)"
    return f"{name} is shown, though {what}: its passage is not one the file holds"


CHAT_DAY = re.compile(r" · \d{4}-\d{2}-\d{2}$")  # a chat's day's heading (ingest.chat): 'Boat club · 2024-03-14'


def others_compared(source: tuple[str, str], heading: str, _ids, note: bool) -> str:
    """similar's note on a passage of a mailbox's message, a chat's day or an Evernote export's note: the file's
    other ones were compared, each as another file (a chat's day was said a 'message' left out with its 'Subject')."""
    what, left = ("notes", "the note asked about, and any of the same title, left out") if note else (
        ("days", "the day asked about left out") if CHAT_DAY.search(heading) else
        ("messages", "the message asked about, and any of the same Subject, left out"))
    return (f"the other {what} of {source[0]}/{source[1]} are compared too, as other files are (its best passage "
            f"each); {left}")


def one_per_file(hits: list[Hit], limit: int, roots: dict[str, str], source: tuple[str, str],
                 message: str | None = None) -> list[Hit]:
    """The best hit of each file on disk but ``source`` (collection, path). A file is known by its root and path
    (roots are stored resolved): under a collection whose root holds another's, the same file is in both, and
    similar gave the file asked about as the first 'other file' (score 1.0, as all/notes/x.md), then each
    other file twice. Of a file's twins, the one of the innermost collection is shown (notes/x.md, not
    all/notes/x.md), at the place of the best of them. ``message``: the heading of the mailbox message asked about;
    the mailbox's other messages are each one, as another file."""
    own = file_place(roots, *source)
    place, kept = {own if message is None else (own, message): None}, []
    for hit in hits:
        where = file_place(roots, hit.collection, hit.path)
        where = (where, hit.heading_path) if message is not None and where == own else where
        if where not in place:
            place[where] = len(kept)
            kept.append(hit)
        elif place[where] is not None and len(roots.get(hit.collection, "")) > len(roots.get(
                kept[place[where]].collection, "")):
            kept[place[where]] = replace(hit, score=kept[place[where]].score)
    return kept[:limit]
