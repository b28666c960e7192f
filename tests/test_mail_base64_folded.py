"""read_file of a mail file folds each attachment's base64 into one line naming it (mcp_server/base64_runs.py)."""
from __future__ import annotations

import random
import re

from tests.conftest import ingest
from tests.test_mail_parts import _mail, _thunderbird

LONG_BASE64 = re.compile(r"[A-Za-z0-9+/]{60,}")


def _mailbox() -> bytes:
    """Budget with a 200 KB scan attached, an unrelated message, and a reply to Budget."""
    budget = _mail("Budget", "The budget is 4,000.\n", Message_ID="<budget@keller.example>")
    budget.add_attachment(random.Random(7).randbytes(200_000), maintype="application", subtype="octet-stream",
                          filename="scan of the roof.bin")
    return _thunderbird(
        budget,
        _mail("Chess club", "We study the Sicilian defence.\n", "Carol <carol@example.com>",
              Message_ID="<chess@example.com>"),
        _mail("Re: Budget", "Too low: the roof alone is 3,500.\n", "Bo <bo@example.com>",
              Message_ID="<re1@example.com>", In_Reply_To="<budget@keller.example>"))


def test_a_threads_attachment_is_one_line_and_the_reply_after_it_is_shown(immediate, tmp_path, monkeypatch):
    """heading='thread: Budget' showed 40 KB of the scan's base64 and stopped: the reply was 'not shown, past the
    40 KB limit'. The base64 is one line now, naming the attachment, and the reply is shown after it."""
    from mcp_server import reading
    from mcp_server.service import Sift
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "mail"
    (root / "Thunderbird").mkdir(parents=True)
    (root / "Thunderbird" / "Inbox").write_bytes(_mailbox())
    assert ingest(root, "mail")["published"]["failures"] == []
    sift = Sift(load())
    shown, data = reading.read(sift, "mail/Thunderbird/Inbox", None, None, None, heading="thread: Budget")
    assert "4,000" in shown and "Too low" in shown and "Sicilian" not in shown, shown
    assert not LONG_BASE64.search(shown), shown[:3000]
    # each message shown as read (decoded): its attachment named in its head, no base64 at all
    assert "as base64" not in shown and "Attachments: scan of the roof.bin (" in shown, shown[:3000]
    assert "'Re: Budget' (lines " in shown.split("\n")[-1] and "not shown, past" not in shown.split("\n")[-1], shown
    # read by its lines, as a hit gives them: the same fold, the lines counted as the file holds them
    shown, data = reading.read(sift, "mail/Thunderbird/Inbox", 1, 40, None)
    numbers = [int(line.split("\t")[0]) for line in shown.split("\n")[1:] if line[:6].strip().isdigit()]
    assert numbers == sorted(numbers) and data["end_line"] == 40, (numbers, data)
    assert not LONG_BASE64.search(shown), shown
    # a whole attachment shown: its size, and how to read what Sift read of it (a PDF: a kind Sift reads)
    small = _mail("Minutes", "The minutes.\n")
    small.add_attachment(random.Random(5).randbytes(6_000), maintype="application", subtype="pdf",
                         filename="minutes.pdf")
    (root / "Thunderbird" / "Inbox").write_bytes(_thunderbird(small))
    shown, _ = reading.read(sift, "mail/Thunderbird/Inbox", 1, 200, None)
    assert "the attachment 'minutes.pdf' as base64, 6 KB, not shown; heading='Attachment: minutes.pdf' shows" \
        in shown and "The minutes." in shown, shown


def test_other_files_keep_their_base64_lines(immediate, tmp_path, monkeypatch):
    """A note holding a base64 block (a key, an embedded image) is shown as it is: only mail files fold."""
    from mcp_server import reading
    from mcp_server.service import Sift
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    import base64
    block = base64.encodebytes(random.Random(3).randbytes(3_000)).decode()
    root = tmp_path / "notes"
    root.mkdir()
    (root / "key.md").write_text("# Key\n\n" + block, encoding="utf-8")
    assert ingest(root, "notes")["published"]["failures"] == []
    shown, _ = reading.read(Sift(load()), "notes/key.md", None, None, None)
    assert block.split("\n")[5] in shown, shown
