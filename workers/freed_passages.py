"""A freed note's passages, embedded again from the index's own text when the model changes.

A note a sync client freed to a placeholder (ingest.discover.PLACEHOLDERS) is not on this disk to read: a new
chunk size keeps its passages as they were cut (workers.tasks.discover), but a new model needs new vectors for them,
and reading the note failed `not downloaded to this disk`: its passages then had no vector of the new model, and
the note answered by its words alone. Its passages' texts and headings are in the index: the parse stage hands the
note on as indexed (its version's id), the chunk stage plans the embedding of its stored passages, and the write
stage writes that version again into the generation (store.write_files), with the new model's vectors.
"""
from __future__ import annotations

from ingest.chunk import context_of, embedding_text
from search.index import chunk_reads, file_reads, store


def indexed_version(conn, collection_id: int, path: str) -> int | None:
    """The id of the version of ``path`` the index holds, or None (a note freed before it was ever read)."""
    row = file_reads.current_files_at(conn, collection_id, [path]).get(path)
    return None if row is None else row["id"]


def stored_rows(conn, file_id: int, embedding_texts: dict[str, str]) -> list[store.ChunkRow]:
    """The chunks of the version ``file_id`` as the chunk stage plans their embedding, ``embedding_texts`` given what
    the model embeds for each, keyed by the hash the chunk is stored under: its text with the headings it does not
    show (ingest.chunk.context_of). A footnote or a table's header row it was first embedded with is not stored,
    and is left out of this vector (the note read again, once downloaded, gets the whole one)."""
    rows = []
    for chunk in chunk_reads.stored_passages(conn, file_id):
        headings = chunk["heading_path"].split(" > ") if chunk["heading_path"] else []
        embedding_texts.setdefault(chunk["text_hash"], embedding_text(context_of(headings, chunk["text"]),
                                                                      chunk["text"]))
        rows.append(store.ChunkRow(chunk["ordinal"], chunk["heading_path"], chunk["text"], chunk["tokens"],
                                   chunk["text_hash"]))
    return rows
