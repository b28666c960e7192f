"""read_file's ``heading`` on a mailbox (mcp_server.reading, ingest.mail.mail_headings): the messages are found by
their Subjects however far into the file, and a changed mailbox is read again."""
from __future__ import annotations

import pytest

from tests.conftest import ingest


def _box(messages) -> bytes:
    return b"".join(b"From %s@example.com Mon Jan  5 09:00:00 2026\nFrom: %s <%s@example.com>\nSubject: %s\n\n%s\n\n"
                    % (who, who, who, subject, body) for who, subject, body in messages)


def test_a_message_past_the_bytes_read_whole_is_found_by_its_subject(immediate, tmp_path, monkeypatch):
    """A mailbox's headings came from its first LINKED_BYTES (16 MiB) only: read_file heading='<the Subject its
    hit was headed by>' of a message further on said 'no heading', listing the first messages. The mailbox is now
    read in blocks (its headers alone parsed), and a message added later is found too."""
    from mcp_server import reading
    from mcp_server.errors import Problem
    from mcp_server.service import Sift
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    monkeypatch.setattr(reading, "LINKED_BYTES", 200)  # as a 16 MiB mailbox's first messages fill it
    filler = b"\n".join(b"Line %d of a long message about the allotment." % n for n in range(20))
    box = _box([(b"ann", b"Allotment rota", filler), (b"ben", b"Seed order", filler),
                (b"cat", b"Issue #42: (a+b)* [urgent]?", b"The kelp feed arrived."),
                (b"dan", b"Greenhouse heater", b"It trips the fuse at night.")])
    root = tmp_path / "mail"
    root.mkdir()
    (root / "big.mbox").write_bytes(box)
    assert ingest(root, "mail")["published"]["failures"] == []
    sift = Sift(load())
    shown, data = reading.read(sift, "mail/big.mbox", None, None, None, heading="Greenhouse heater")
    assert "trips the fuse" in shown and "kelp" not in shown, shown
    assert (data["start_line"], data["end_line"]) == (57, 61), shown  # its 'From ' line to its text, no blank after
    shown, data = reading.read(sift, "mail/big.mbox", None, None, None, heading="Issue #42: (a+b)* [urgent]?")
    assert "kelp feed" in shown and (data["start_line"], data["end_line"]) == (51, 55), shown
    (root / "big.mbox").write_bytes(box + _box([(b"eve", b"Compost bins", b"Turn them weekly.")]))
    shown, data = reading.read(sift, "mail/big.mbox", None, None, None, heading="Compost bins")
    assert "Turn them weekly." in shown and data["start_line"] == 63, shown
    with pytest.raises(Problem, match="no heading 'Budget'; its headings: 'Allotment rota', 'Seed order'"):
        reading.read(sift, "mail/big.mbox", None, None, None, heading="Budget")
