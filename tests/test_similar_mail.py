"""similar on a message of a mailbox (search.query.engine.similar): the mailbox's other messages are compared too."""
from __future__ import annotations

import os
from pathlib import Path

from search.query.engine import Engine
from tests.conftest import ingest, write_tree


def _box(messages) -> str:
    return "".join(f"From {who}@example.com Mon Jan  5 09:00:00 2026\nFrom: {who} <{who}@example.com>\n"
                   f"Subject: {subject}\n\n{body}\n\n" for who, subject, body in messages)


def test_similar_on_a_message_finds_the_mailboxs_other_messages(immediate, tmp_path, embedder):
    """A Takeout mailbox is one file holding all one's mail: similar on a message of it left out every chunk of
    the file, so no other message ever came up, only other files. Now the message asked about (and its thread,
    sharing its Subject) is left out, and each other message is compared as another file would be."""
    box = _box([("ann", "Sourdough starter", "Feed the sourdough starter with rye flour and bake the loaf hot."),
                ("ben", "Sourdough starter", "Feed the sourdough starter with rye flour, then bake it hot."),
                ("cat", "Focaccia for Saturday", "Bake the focaccia dough with flour, olive oil and rosemary."),
                ("dan", "Quarterly invoice", "The supplier's invoice for March is overdue; pay it by Friday.")])
    root = write_tree(tmp_path / "mail", {"All mail.mbox": box,
                                          "tax.md": "# Tax\n\nFile the tax return and keep the receipts.\n"})
    assert ingest(root, "mail")["published"]["failures"] == []
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    engine.warm()
    source = next(hit for hit in engine.search("sourdough starter rye", mode="keyword").hits
                  if hit.heading_path == "Sourdough starter")
    answer = engine.similar(chunk_id=source.chunk_id, limit=10)
    found = [(hit.path, hit.heading_path) for hit in answer.hits]
    assert found[0] == ("All mail.mbox", "Focaccia for Saturday"), found
    assert {("All mail.mbox", "Quarterly invoice"), ("tax.md", "Tax")} <= set(found), found
    assert not any(heading and "Sourdough" in heading for _, heading in found), found
    assert any("other messages of mail/All mail.mbox are compared too" in note for note in answer.notes), answer.notes
    whole = [hit.path for hit in engine.similar(path=("mail", "tax.md"), limit=10).hits]
    assert whole == ["All mail.mbox"], whole  # another file's similar: the mailbox once, as before
