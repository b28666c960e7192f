"""A Subject of hundreds of messages within weeks (a team's daily 'Standup', ten messages a day for two months, 600):
a phone's reply in Sent naming no parent is joined to that day's thread in Inbox. Each was joined, within Sent, to
the day before's reply (one's own, naming no parent either), so a hit's thread was two months of them and each
day's 'Standup' they joined across files: 197 messages named of the 200 looked up, the first of them other days'."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

from tests.conftest import ingest

ANNA, BO = "Anna Keller <anna@example.com>", "Bo Lind <bo@example.com>"
CAROL, DAN = "Carol Diaz <carol@example.com>", "Dan Moe <dan@example.com>"
TEAM = f"{BO}, {CAROL}, {DAN}"
START = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)
DAYS = 60


def _message(sender: str, to: str, subject: str, when: datetime, own: str, body: str, *extra: str) -> str:
    head = [f"From: {sender}", f"To: {to}", f"Subject: {subject}", f"Date: {when:%a, %d %b %Y %H:%M:%S +0000}",
            f"Message-ID: {own}", *extra]
    return f"From someone@example.com {when:%a %b %d %H:%M:%S %Y}\n" + "\n".join(head) + f"\n\n{body}\n\n"


def _mailboxes() -> tuple[str, str]:
    inbox, sent = [], []
    for day in range(DAYS):
        at = START + timedelta(days=day)
        own = f"<standup{day}@example.com>"
        inbox.append(_message(ANNA, TEAM, "Standup", at, own, f"Day {day}: what is everyone on today?"))
        for n, (who, subject) in enumerate([(CAROL, "Re: Standup"), (DAN, "Blockers")] * 4):
            inbox.append(_message(who, f"{ANNA}, {BO}", subject, at + timedelta(minutes=10 * n + 5),
                                  f"<r{day}.{n}@example.com>", f"Day {day}, update {n}: tickets and reviews.",
                                  f"In-Reply-To: {own}", f"References: {own}"))
        sent.append(_message(BO, ANNA, "Re: Standup", at + timedelta(hours=2), f"<bo{day}@example.com>",
                             f"Bo's day {day}: the quokka{day} migration goes on."))  # from a phone: no parent
    return "".join(inbox), "".join(sent)


def _day(lines: dict[int, str], line: int) -> int:
    """The day of the message at ``line`` of Inbox, by its body ('Day 12: …', 'Day 12, update 3: …')."""
    body = next(lines[at] for at in range(line, len(lines) + 1) if lines[at].startswith("Day "))
    return int(body.split()[1].rstrip(":,"))


def test_a_phones_reply_to_a_daily_standup_joins_its_days_thread(immediate, tmp_path, monkeypatch):
    """The team's replies are of the Subject or of their own ('Blockers', naming the day's 'Standup' as their
    parent). Of the Subject's messages around a hit (the 200 nearest), every reply joined to a 'Standup' had its day's
    thread looked up, the earliest 200 of their messages kept: a hit late in that span named none."""
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "mail"
    root.mkdir()
    inbox, sent = _mailboxes()
    (root / "Inbox").write_text(inbox)
    (root / "Sent").write_text(sent)
    assert ingest(root, "mail")["published"]["failures"] == []
    tools = Tools(Sift(load()))
    lines = {n + 1: line for n, line in enumerate(inbox.split("\n"))}
    for day in (0, 1, 15, 30, 45, 58, 59):
        hit = next(h for h in tools.search(query=f"quokka{day}", mode="keyword").structured_content["results"]
                   if h["path"] == "mail/Sent")
        named = hit.get("mail_thread", [])
        assert len(named) == 9 and {_day(lines, int(n.rsplit(" ", 1)[1].rstrip(")"))) for n in named} == {day}, \
            (day, named)  # that day's 'Standup' and its eight replies, in Inbox
