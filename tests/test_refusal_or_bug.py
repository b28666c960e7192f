"""A reader's refusal of a file, told apart from a bug, in words (ingest.unreadable, workers.retry.describe).

Any ValueError's message was shown as the file's reason: a bug's ('not enough values to unpack (expected 2, got
1)') read as if the file were at fault, with no 'please report it'. A reader's refusal is now an
``ingest.unreadable.Unreadable`` (a ValueError), said in its words; any other ValueError is said as Sift's, its
traceback logged.
"""
from __future__ import annotations

import logging

from ingest import chat
from tests.conftest import ingest, write_tree
from workers import retry

REFUSED = ("unreadable PDF: not a PDF: it begins b'not a pdf', where a PDF has %PDF-; it is read again once it "
           "changes")
BUG = f"an error Sift did not expect (ValueError: not enough values to unpack (expected 2, got 1)): {retry.REPORT}"


def test_a_readers_refusal_is_said_in_its_words_and_a_bugs_value_error_as_sifts(immediate, tmp_path, monkeypatch,
                                                                              caplog):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "notes", {"fake.pdf": "not a pdf", "chat.json": '{"messages": []}\n',
                                           "heron.md": "# Heron\n\nthe heron waits by the weir\n"})

    def with_a_bug(path: str, text: str):
        name, kind = path.split("/")  # a real bug: the path has no folder
        return None
    monkeypatch.setattr(chat, "parse_chat_json", with_a_bug)
    with caplog.at_level(logging.WARNING, logger="sift.workers"):
        failures = ingest(root)["published"]["failures"]
    assert {f["path"]: f["reason"] for f in failures} == {"fake.pdf": REFUSED, "chat.json": BUG}, failures
    traced = {path for path in ("fake.pdf", "chat.json")
              for r in caplog.records if path in r.getMessage() and r.exc_info}
    assert traced == {"chat.json"}, "a bug's traceback is logged, a refusal's words say all"
