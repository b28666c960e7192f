"""A note of many long tables cut by the real chunker, its passages as the index stores them (what was embedded
keyed by its hash): for tests/test_freed_note_new_model.py and bench/freed_passages.py."""
from __future__ import annotations


def table_note(tables: int) -> str:
    """A Markdown note of ``tables`` tables, each of its own header row and rows enough for a few passages."""
    parts = ["# Crews\n"]
    for n in range(tables):
        rows = "\n".join(f"| Member{n}-{r} | 555-{n:03d}{r:02d} | gutters on the {r}th |" for r in range(12))
        parts.append(f"| Crew{n} name | Crew{n} phone | Crew{n} task |\n|---|---|---|\n{rows}\n")
    return "\n".join(parts)


def stored_chunks(text: str, max_tokens: int = 64) -> tuple[list[dict], dict[str, str]]:
    """(the stored rows of ``text``'s passages, {text hash: what the chunker embedded}), cut by plain_count."""
    from ingest.chunk import chunk_document, plain_count
    from ingest.chunk import text_hash
    from ingest.markdown import parse_markdown
    rows, embedded = [], {}
    for ordinal, chunk in enumerate(chunk_document(parse_markdown("crews.md", text), plain_count, max_tokens, 8)):
        digest = text_hash(chunk.embedding_text)
        embedded[digest] = chunk.embedding_text
        rows.append({"ordinal": ordinal, "heading_path": " > ".join(chunk.heading_path), "text": chunk.text,
                     "tokens": chunk.tokens, "text_hash": digest})
    return rows, embedded
