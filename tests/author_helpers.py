"""What the author tests share: their module's files indexed once without vectors (its ``_build``), and an Engine
over that index reading keywords from postings in memory and from FTS5, the two ways the author filter is read.
A module takes the fixtures by importing them (``from tests.author_helpers import engine, home``)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import built_once, engine_in, ingest_keyword_only, write_tree


def build_notes(folder: Path, notes: dict[str, str], files: dict[str, str | bytes] | None = None) -> Path:
    """``notes`` and ``files`` (a mailbox's text, a document's bytes) written into ``folder``/notes and indexed as
    the collection 'notes' without vectors: these tests search by keyword alone, and embedding is nearly all of a
    build's time. Returns the folder."""
    root = write_tree(folder / "notes", notes)
    for relative, content in (files or {}).items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    ingest_keyword_only(root)
    return root


def forward_mailbox(sender: str, forwarder: str, subject: str, body: str, reply: str, block: str) -> str:
    """A mailbox of ``sender``'s message (``body``) to ``forwarder``, sent Monday 4 March 2024, and ``forwarder``'s
    forward of it to Carol Jones the next day: its ``reply``, then the block an Outlook writes above the message it
    forwards ('From: <sender>', ``block``'s lines, 'Subject: …') and the message. Names are 'Given Surname', their
    addresses and Message-IDs made of the given name."""
    def address(name: str) -> str:
        return f"{name} <{name.split()[0].lower()}@example.com>"

    def head(name: str, to: str, subject_line: str, envelope: str, date: str) -> str:
        return (f"From - {envelope}\nFrom: {address(name)}\nTo: {address(to)}\nSubject: {subject_line}\n"
                f"Message-ID: <{name[0].lower()}1@example.com>\nDate: {date}\n\n")

    return (head(sender, forwarder, subject, "Mon Mar  4 17:12:00 2024", "Mon, 04 Mar 2024 17:12:00 +0000")
            + f"{body}\n\n" + head(forwarder, "Carol Jones", f"FW: {subject}", "Tue Mar  5 09:00:00 2024",
                                     "Tue, 05 Mar 2024 09:00:00 +0000")
            + f"{reply}\n\nFrom: {address(sender)}\n{block}Subject: {subject}\n\n{body}\n")


@pytest.fixture(scope="module")
def home(request, tmp_path_factory, model_path):
    """The home of the module's ``_build(folder)``, built once for its tests (``built_once``)."""
    return built_once(tmp_path_factory, model_path, request.module._build)


@pytest.fixture(params=["postings", "fts5"])
def engine(request, home, model_path, embedder, monkeypatch):
    """An Engine over ``home``'s index, each test run with keywords from postings and from FTS5."""
    return engine_in(home, model_path, embedder, monkeypatch, postings=request.param == "postings")
