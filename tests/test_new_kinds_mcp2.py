"""This round's new kinds (a Telegram result.json, a Slack export, a WhatsApp chat, an Evernote export, a Google Keep
Takeout, an mbox with a PDF and a Word attachment and a reply, a running log, a deck with a chart) beside plain
notes, indexed by a real huey consumer and asked what an assistant asks through the real sift-mcp over stdio: the
mcp client checks each answer's structured data against the tool's outputSchema."""
from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.conftest import need_data, run_ingest, write_tree

pytest.importorskip("docx")  # the mail's Word attachment (scripts/setup installs python-docx)

TELEGRAM = {"name": "Boat club", "type": "private_group", "id": 77, "messages": [
    {"id": 1, "type": "message", "date": "2024-03-13T18:00:00", "from": "Mira", "from_id": "user1",
     "text": "Who brings the spare oars on Saturday?", "text_entities": []},
    {"id": 2, "type": "message", "date": "2024-03-14T08:05:00", "from": "Jonas", "from_id": "user2",
     "text": "The hull needs fresh varnish before the regatta", "text_entities": []},
    {"id": 3, "type": "message", "date": "2024-03-14T08:07:00", "from": "Mira", "from_id": "user1",
     "reply_to_message_id": 2, "text": "I will buy the marine varnish at the chandlery", "text_entities": []}]}
SLACK_USERS = [{"id": "U1", "name": "ana", "real_name": "Ana Ruiz", "profile": {"real_name": "Ana Ruiz"}},
               {"id": "U2", "name": "ben", "profile": {"real_name": "Ben Okafor", "display_name": "ben"}}]
LOG = ("# Work log\n\n## 2024-03-12\n\nMigrated the wiki to the new host.\n\n"
       "## 2024-03-14\n\nDebugged the flaky payroll export with Ana.\n\n"
       "## 2024-03-18\n\nWrote the quarterly review draft.\n")


def _ts(*when) -> str:
    return str(datetime(*when, tzinfo=timezone.utc).timestamp())


def vault(root: Path) -> Path:
    from tests.test_enex import HEAD, note
    from tests.test_keep import PAGE, usec
    from tests.test_mail_parts import _docx, _mail, _thunderbird
    from tests.test_slides import field_deck
    write_tree(root, {
        "chat/telegram/result.json": json.dumps(TELEGRAM, indent=1),
        "chat/slack/users.json": json.dumps(SLACK_USERS),
        "chat/slack/channels.json": json.dumps([{"id": "C1", "name": "ops"}]),
        "chat/slack/ops/2024-03-14.json": json.dumps([
            {"type": "message", "text": "The backup server ran out of disk at 3am", "user": "U1",
             "ts": _ts(2024, 3, 14, 9)},
            {"type": "message", "text": "<@U1> I pruned the old snapshots", "user": "U2",
             "ts": _ts(2024, 3, 14, 9, 30)}]),
        "chat/slack/ops/2024-03-20.json": json.dumps([
            {"type": "message", "text": "Certificate renewal for the intranet is due Friday", "user": "U2",
             "ts": _ts(2024, 3, 20, 11)}]),
        "chat/WhatsApp Chat with Oma.txt": ("02/04/2024, 19:10 - Oma: The plum cake recipe needs two eggs and "
                                            "cinnamon\n02/04/2024, 19:12 - Lena: Thanks, I bake it on Sunday\n"
                                            "05/04/2024, 08:00 - Oma: Did the cake rise?\n"),
        "evernote/Kitchen.enex": HEAD + note("Sourdough starter", "20240314T091500Z",
                                             "<div>Feed the starter with rye flour every morning.</div>",
                                             tags=("baking", "recipes"))
        + note("Tax appointment", "20230105T160000Z", "<p>Bring the receipts folder to the accountant.</p>",
               tags=("admin",)) + "</en-export>\n",
        "keep/Takeout/Keep/Groceries.json": json.dumps({
            "color": "DEFAULT", "isTrashed": False, "isPinned": False, "isArchived": False, "title": "Groceries",
            "listContent": [{"text": "oat milk", "isChecked": True}, {"text": "saffron threads", "isChecked": False}],
            "userEditedTimestampUsec": usec(2024, 3, 15, 10), "createdTimestampUsec": usec(2024, 3, 14, 9),
            "labels": [{"name": "shopping"}]}),
        "keep/Takeout/Keep/Groceries.html": PAGE.format("Groceries", "oat milk saffron threads"),
        "journal/log.md": LOG,
        "notes/garden.md": "# Garden\n\nPlant the tomatoes after the last frost. #garden\n",
        "notes/boat.md": "# Boat\n\nThe regatta is on 23 March; varnish the hull first. #boat\n",
    })
    (root / "talks").mkdir()
    (root / "talks/field.pptx").write_bytes(field_deck())
    budget = _mail("Budget", "The renovation budget is 4,000.\n", Message_ID="<budget@k.example>")
    budget.add_attachment(need_data("pdf/en/google-doc-document.pdf").read_bytes(), maintype="application",
                          subtype="pdf", filename="report.pdf")
    budget.add_attachment(_docx("Stairwell plan", "We repaint the stairwell in April with ochre paint."),
                          maintype="application",
                          subtype="vnd.openxmlformats-officedocument.wordprocessingml.document", filename="plan.docx")
    (root / "mail").mkdir()
    (root / "mail/Inbox.mbox").write_bytes(_thunderbird(
        budget,
        _mail("Chess club", "We study the Sicilian defence.\n", "Carol <carol@example.com>", Message_ID="<c@e.com>"),
        _mail("Re: Budget", "Too low: the roof alone is 3,500.\n", "Bo <bo@example.com>", Message_ID="<r1@e.com>",
              In_Reply_To="<budget@k.example>", References="<budget@k.example>")))
    return root


def _first(answer) -> dict:
    return answer.structured_content["results"][0]


@pytest.mark.timeout(900)  # 29 s here: a real consumer and server
def test_an_assistant_finds_reads_and_lists_the_new_kinds_over_stdio(sift_env, consumer, tmp_path, servers):
    from tests.test_mcp_server import call, run, text
    root = vault(tmp_path / "vault")
    consumer()
    queued = run_ingest(sift_env, "enqueue", str(root), "--name", "vault", "--wait")
    assert queued.returncode == 0 and "0 failed" in queued.stderr + queued.stdout, queued

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            asked = {
                "words": await call(s, "search", query="who buys the marine varnish"),
                "tag": await call(s, "search", query="#baking", limit=3),
                "label": await call(s, "search", query="#shopping", limit=3),
                "march": await call(s, "search", query="payroll", date_after="2024-03", date_before="2024-04",
                                    limit=3),
                "day": await call(s, "search", query="backup server disk", date_after="2024-03-14",
                                  date_before="2024-03-15", limit=5),
                "chart": await call(s, "search", query="kelp survey chart", limit=2),
                "listed": await call(s, "list_files", sort="path"),
                "listed_day": await call(s, "list_files", date_after="2024-03-14", date_before="2024-03-15"),
                "note": await call(s, "read_file", path="vault/evernote/Kitchen.enex", heading="Sourdough starter"),
                "log_day": await call(s, "read_file", path="vault/journal/log.md", heading="2024-03-14"),
                "thread": await call(s, "read_file", path="vault/mail/Inbox.mbox", heading="thread: Budget"),
                "attached": await call(s, "read_file", path="vault/mail/Inbox.mbox", heading="Attachment: plan.docx"),
            }
            hit = _first(asked["words"])
            asked["at_hit"] = await call(s, "read_file", path=hit["path"], start_line=hit["start_line"],
                                         end_line=hit["end_line"])
            asked["like_day"] = await call(s, "similar", chunk_id=hit["chunk_id"], limit=3)
            asked["like_note"] = await call(s, "similar", chunk_id=_first(asked["tag"])["chunk_id"], limit=10)
            return asked
    asked = run(scenario)
    for name, answer in asked.items():  # the client checked each answer's data against its outputSchema
        assert not answer.is_error and answer.structured_content is not None, (name, text(answer))

    hit = _first(asked["words"])  # a Telegram day, its date and its chat's name
    assert (hit["path"], hit.get("heading_path"), hit.get("dated")) == (
        "vault/chat/telegram/result.json", "Boat club · 2024-03-14", "2024-03-14 08:05:00"), hit
    assert "**marine** **varnish**" in hit["snippet"] and "Boat club · 2024-03-14" in text(asked["words"])
    assert "The hull needs fresh varnish" in text(asked["at_hit"]), text(asked["at_hit"])
    tagged = _first(asked["tag"])  # an Evernote note's tag
    assert (tagged["path"], tagged["heading_path"]) == ("vault/evernote/Kitchen.enex", "Sourdough starter"), tagged
    # a hit of a whole chat day or Evernote note is at all its lines: it was at as many lines as its text has, from
    # the first ('lines 15-17' of a day's 31, a message's '{', '"id": 2,' and '"type"' and none of its text)
    assert (tagged["start_line"], tagged["end_line"]) == (4, 12), tagged
    assert (hit["start_line"], hit["end_line"]) == (15, 35), hit
    labelled = _first(asked["label"])  # a Keep note's label, the note read once (its page beside it skipped)
    assert (labelled["path"], labelled["title"]) == ("vault/keep/Takeout/Keep/Groceries.json", "Groceries"), labelled
    march = _first(asked["march"])  # a running log's day
    assert (march["path"], march["heading_path"], march["dated"]) == (
        "vault/journal/log.md", "Work log > 2024-03-14", "2024-03-14"), march
    days = {r.get("heading_path") for r in asked["day"].structured_content["results"]}
    assert "#ops · 2024-03-14" in days and "#ops · 2024-03-20" not in days, days
    chart = _first(asked["chart"])
    assert chart["path"] == "vault/talks/field.pptx" and "**Chart**: **Kelp**" in chart["snippet"], chart

    listed = {f["path"]: f for f in asked["listed"].structured_content["files"]}
    assert listed["vault/evernote/Kitchen.enex"]["reason"].startswith("2 notes"), listed["vault/evernote/Kitchen.enex"]
    assert listed["vault/keep/Takeout/Keep/Groceries.html"]["state"] == "skipped", listed
    assert "Groceries.json beside it holds the note" in listed["vault/keep/Takeout/Keep/Groceries.html"]["reason"]
    day = asked["listed_day"].structured_content
    assert {f["path"] for f in day["files"]} == {
        "vault/journal/log.md", "vault/keep/Takeout/Keep/Groceries.json", "vault/evernote/Kitchen.enex",
        "vault/chat/slack/ops/2024-03-14.json", "vault/chat/telegram/result.json"}, day
    # the note says how each of these was dated: it named daily notes, front matter and mailboxes only, and 'any
    # other file by its modified time', none of which put these five in the range
    said = " ".join(day["notes"])
    assert "a running log by its date headings" in said and "a chat by its days" in said, said
    assert "Evernote/Keep created date" in said and said in text(asked["listed_day"]), said

    assert (asked["note"].structured_content["start_line"], asked["note"].structured_content["end_line"]) == (4, 12)
    assert "Feed the starter with rye flour" in text(asked["note"])
    log_day = asked["log_day"].structured_content
    assert (log_day["start_line"], log_day["end_line"]) == (7, 9) and "payroll" in text(asked["log_day"]), log_day
    assert "the thread of 'Budget', 2 messages: 'Budget'" in text(asked["thread"]), text(asked["thread"])[-600:]
    assert "ochre paint" in text(asked["attached"]) and "attachment 'plan.docx'" in text(asked["attached"])

    like_day = [(r["path"], r.get("heading_path")) for r in asked["like_day"].structured_content["results"]]
    like_note = [(r["path"], r.get("heading_path")) for r in asked["like_note"].structured_content["results"]]
    # a chat's other days are compared, each as another file, and said to be its days: the note spoke of its
    # 'messages' and their 'Subject'
    assert ("vault/chat/telegram/result.json", "Boat club · 2024-03-13") in like_day, like_day
    assert (hit["path"], hit["heading_path"]) not in like_day, like_day
    assert ("the other days of vault/chat/telegram/result.json are compared too, as other files are (its best "
            "passage each); the day asked about left out") in asked["like_day"].structured_content["notes"]
    assert "same Subject" not in text(asked["like_day"]), text(asked["like_day"])
    # an Evernote export's other notes too, as a mailbox's messages: its other notes were never compared
    assert ("vault/evernote/Kitchen.enex", "Tax appointment") in like_note, like_note
    assert (tagged["path"], "Sourdough starter") not in like_note, like_note
    assert "the other notes of vault/evernote/Kitchen.enex are compared too" in text(asked["like_note"])
