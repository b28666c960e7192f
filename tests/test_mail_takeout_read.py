"""A Gmail Takeout mailbox read by read_file as an assistant reads it: a message asked by its Subject (or its
thread) is shown as Sift reads it, decoded, not as the file holds it. A Takeout message showed its text as
quoted-printable ('420 eur=' over 'os.'), then again as HTML, under a dozen headers of routes and ids, and a
thread's second message fell past the 40 KB limit behind the first's HTML (mcp_server.conversations.read_message)."""
from __future__ import annotations

import quopri

from tests.conftest import ingest


def _takeout_message(thread: str, labels: str, headers: list[str], plain: str, html: str) -> str:
    qp = lambda text: quopri.encodestring(text.encode()).decode()  # noqa: E731 - as Gmail writes both parts
    return (f"From {thread}@xxx Tue Mar 05 09:12:00 +0000 2024\nX-GM-THRID: {thread}\nX-Gmail-Labels: {labels}\n"
            "Delivered-To: bo@gmail.com\nReceived: by 2002:a05:6a10:1234 with SMTP id abc; Tue, 5 Mar 2024 01:12:00\n"
            "MIME-Version: 1.0\n" + "\n".join(headers) + "\nContent-Type: multipart/alternative; boundary=\"b1\"\n\n"
            "--b1\nContent-Type: text/plain; charset=\"UTF-8\"\nContent-Transfer-Encoding: quoted-printable\n\n"
            f"{qp(plain)}\n--b1\nContent-Type: text/html; charset=\"UTF-8\"\n"
            f"Content-Transfer-Encoding: quoted-printable\n\n{qp(html)}\n--b1--\n\n")


TAKEOUT = (
    _takeout_message("1792345678901234567", "Inbox,Opened,House",
                     ["Date: Tue, 5 Mar 2024 10:12:00 +0100", "Message-ID: <boiler1@mail.gmail.com>",
                      "Subject: Boiler repair", "From: Anna Keller <anna.keller@gmail.com>", "To: Bo <bo@gmail.com>"],
                     "Hi Bo,\n\nThe plumber comes on Thursday at 8 to fix the boiler. The quote was 420 euros, "
                     "paid in cash on the day.\n\nAnna",
                     "<div dir=\"ltr\">Hi Bo,<br><br>The plumber comes on Thursday at 8 to fix the boiler. The quote "
                     "was 420 euros, paid in cash on the day." + "<span style=\"color:#222\"></span>" * 2000
                     + "<br><br>Anna</div>")
    + _takeout_message("1792345678901234567", "Sent,House",  # Gmail's thread id: the same
                       ["Date: Tue, 5 Mar 2024 11:30:00 +0100", "In-Reply-To: <boiler1@mail.gmail.com>",
                        "References: <boiler1@mail.gmail.com>", "Message-ID: <boiler2@mail.gmail.com>",
                        "Subject: Re: Boiler repair", "From: Bo <bo@gmail.com>",
                        "To: Anna Keller <anna.keller@gmail.com>"],
                       "Great, I'll be home. Can they also look at the radiator in the hall?\n\n"
                       "On Tue, Mar 5, 2024 at 10:12 AM Anna Keller wrote:\n> Hi Bo,\n",
                       "<div>Great, I'll be home. Can they also look at the radiator in the hall?</div>"))


def test_a_takeout_message_and_its_thread_are_shown_as_read(immediate, tmp_path, monkeypatch):
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "Takeout"
    (root / "Mail").mkdir(parents=True)
    (root / "Mail" / "All mail Including Spam and Trash.mbox").write_text(TAKEOUT)
    assert ingest(root, "mail")["published"]["failures"] == []
    tools = Tools(Sift(load()))
    path = "mail/Mail/All mail Including Spam and Trash.mbox"
    read = tools.read_file(path=path, heading="Boiler repair")
    text = read.content[0].text
    assert "The quote was 420 euros, paid in cash on the day." in text, text[:2000]
    assert "Subject: Boiler repair\nLabels: Inbox, House\n\nHi Bo," in text, text[:2000]
    for raw in ("eur=", "quoted-printable", "<div", "X-GM-THRID", "Received:"):
        assert raw not in text, (raw, text[:2000])
    data, end = read.structured_content, TAKEOUT.split("\n").index("--b1--") + 1  # its last line, its HTML's end
    assert (data["start_line"], data["end_line"]) == (1, end) and end > 900, data  # the HTML's 900 lines
    assert f"(the message at lines 1-{end}, as read: decoded, its quotes and signature left out; start_line=1 and " \
           f"end_line={end} without heading show its lines as the file holds them)" in text, text[:400]
    thread = tools.read_file(path=path, heading="thread: Boiler repair").content[0].text
    assert thread.index("420 euros") < thread.index("radiator in the hall") and "not shown, past" not in thread, \
        thread[-600:]
    assert "> Hi Bo" not in thread and "<span" not in thread, thread[-600:]
    lines = tools.read_file(path=path, start_line=1, end_line=30).content[0].text  # the file's lines, as they are
    assert "Content-Transfer-Encoding: quoted-printable" in lines and "eur=" in lines, lines[:2000]
