"""A freed note's passages, embedded again from the index's own text when the model changes.

A note a sync client freed to a placeholder (ingest.discover.PLACEHOLDERS) is not on this disk to read: a new
chunk size keeps its passages as they were cut (workers.tasks.discover), but a new model needs new vectors for them,
and reading the note failed `not downloaded to this disk`: its passages then had no vector of the new model, and
the note answered by its words alone. Its passages' texts and headings are in the index: the parse stage hands the
note on as indexed (its version's id), the chunk stage plans the embedding of its stored passages, and the write
stage writes that version again into the generation (store.write_files), with the new model's vectors.
"""
from __future__ import annotations

from ingest.chunk import TABLE_RULE, context_of, embedding_text, text_hash
from search.index import chunk_reads, file_reads, store
from search.query.text import FOOTNOTE_REFERENCE


def indexed_version(conn, collection_id: int, path: str) -> int | None:
    """The id of the version of ``path`` the index holds, or None (a note freed before it was ever read)."""
    row = file_reads.current_files_at(conn, collection_id, [path]).get(path)
    return None if row is None else row["id"]


def stored_rows(conn, file_id: int, embedding_texts: dict[str, str]) -> list[store.ChunkRow]:
    """The chunks of the version ``file_id`` as the chunk stage plans their embedding, ``embedding_texts`` given what
    the model embeds for each, keyed by the hash the chunk is stored under: what it was first embedded as
    (``_as_first``)."""
    return planned_rows(chunk_reads.stored_passages(conn, file_id), embedding_texts)


def planned_rows(chunks, embedding_texts: dict[str, str]) -> list[store.ChunkRow]:
    """``stored_rows`` of ``chunks`` (rows of ordinal, heading_path, text, tokens, text_hash, in order)."""
    notes = _footnotes(chunks)
    rows, heads, nearest = [], [], ""
    for chunk in chunks:
        shown = _table_heads(chunk["text"])
        heads += [head for head in shown if head not in heads]
        if chunk["text_hash"] not in embedding_texts:
            embedding_texts[chunk["text_hash"]] = _as_first(chunk, heads, notes, nearest)
        nearest = shown[-1] if shown else nearest  # the header of the table the next window may start among
        rows.append(store.ChunkRow(chunk["ordinal"], chunk["heading_path"], chunk["text"], chunk["tokens"],
                                   chunk["text_hash"]))
    return rows


def _as_first(chunk, heads: list[str], notes: dict[str, str], nearest: str = "") -> str:
    """What the model first embedded for ``chunk``: its text with the headings it does not show
    (ingest.chunk.context_of), and where the chunker added them, the header row of the table a window starts
    among and the definitions of the footnotes it cites, none of which is stored. Each way the chunker may have
    written it is tried against the hash the chunk is stored under, which is that text's (a freed note's vector
    lacked them: its meaning search was not a fresh build's); none matching, the headings alone, as before.
    ``nearest``, the last header row the passages before it show, is the chunker's own (the header of the table
    the window starts in) and is tried first; the other ``heads`` only if it does not match (each of 1,000 tried
    in turn took 16 ms a chunk: 16 s for a note of 1,000 table passages)."""
    text = chunk["text"]
    headings = chunk["heading_path"].split(" > ") if chunk["heading_path"] else []
    plain = embedding_text(context_of(headings, text), text)
    if text_hash(plain) == chunk["text_hash"]:
        return plain
    cited = [f"[^{label}]: {notes[label]}" for label in dict.fromkeys(FOOTNOTE_REFERENCE.findall(text))
             if label in notes and f"[^{label}]:" not in text]
    tables = [nearest] if nearest and "|" in text else []
    for tried in ([""] + tables, [head for head in heads if head != nearest] if "|" in text else []):
        for base in dict.fromkeys([context_of(headings, text), ""]):
            for head in tried:
                context = f"{base}\n{head}" if base and head else base or head
                for many in range(len(cited), -1, -1):  # the chunker cites as many as fit, in the order cited
                    embedded = embedding_text("\n".join(filter(None, [context, *cited[:many]])), text)
                    if text_hash(embedded) == chunk["text_hash"]:
                        return embedded
    return plain


def _footnotes(chunks) -> dict[str, str]:
    """The footnote definitions the note's stored passages show ('[^1]: Force 10 …'), as ingest.markdown reads
    them: by label, the first of each, its first FOOTNOTE_CHARS."""
    from ingest.markdown import FOOTNOTE, FOOTNOTE_CHARS  # a parser: a job that frees a note needs it, enqueue not
    found: dict[str, str] = {}
    for chunk in chunks:
        if "[^" in chunk["text"]:
            for line in chunk["text"].split("\n"):
                match = FOOTNOTE.fullmatch(line.rstrip()) if "[^" in line else None
                if match:
                    found.setdefault(match.group(1), match.group(2)[:FOOTNOTE_CHARS])
    return found


def _table_heads(text: str) -> list[str]:
    """The header rows of the tables a stored passage shows: a line of '|' over a rule line ('|---|:--:|')."""
    lines = text.split("\n")
    return [line.strip() for line, under in zip(lines, lines[1:])
            if "|" in line and line.strip() and TABLE_RULE.fullmatch(under)]
