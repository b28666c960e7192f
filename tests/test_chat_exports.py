"""Chat exports read as conversations (ingest.chat): Telegram's result.json, DiscordChatExporter's JSON, a Slack
workspace export's channel days and WhatsApp's 'Export chat' text. Before, a Telegram or Discord passage was JSON
lines of ids and reactions, a Slack day's authors user ids, WhatsApp's a run of timestamps; 'what did Alice say about
the invoice format in March?' had no conversation to find."""
from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

import pytest

from ingest.chat import slack_metadata, slack_text
from ingest.files import read_and_parse
from ingest.parse import parse_file
from tests.conftest import ingest, run_ingest, write_tree

TELEGRAM = {"name": "Accounts team", "type": "private_group", "id": 4455, "messages": [
    {"id": 1, "type": "service", "date": "2024-02-28T10:00:00", "actor": "Alice", "action": "create_group",
     "title": "Accounts team", "text": "", "text_entities": []},
    {"id": 2, "type": "message", "date": "2024-02-28T10:01:00", "from": "Alice", "from_id": "user1",
     "text": "Welcome, the old invoice numbering stays until March", "text_entities": [],
     "reactions": [{"type": "emoji", "count": 2, "emoji": "thumbsup"}]},
    {"id": 3, "type": "message", "date": "2024-03-14T09:15:02", "from": "Alice", "from_id": "user1",
     "reply_to_message_id": 2, "text": ["The invoice format follows ", {"type": "link", "text": "https://ex.com/inv"},
                                        " from now on,\nwith the VAT number on top"], "text_entities": []},
    {"id": 4, "type": "message", "date": "2024-03-14T09:20:00", "from": "Bob", "from_id": "user2",
     "file": "files/invoice-template.pdf", "mime_type": "application/pdf", "text": "here is the template",
     "text_entities": []},
    {"id": 5, "type": "service", "date": "2024-03-14T09:21:00", "actor": "Bob", "action": "pin_message",
     "message_id": 4, "text": "", "text_entities": []},
]}

DISCORD = {"guild": {"id": "1", "name": "Acme", "iconUrl": "x"},
           "channel": {"id": "2", "type": "GuildTextChat", "category": "Text", "name": "billing", "topic": None},
           "dateRange": {"after": None, "before": None}, "messages": [
               {"id": "100", "type": "GuildMemberJoin", "timestamp": "2024-03-10T08:00:00+00:00", "content": "",
                "author": {"id": "9", "name": "carol", "nickname": "Carol"}, "attachments": [], "reactions": []},
               {"id": "101", "type": "Default", "timestamp": "2024-03-10T08:05:00+00:00", "isPinned": False,
                "content": "Who approves the invoice this month?", "author": {"id": "9", "name": "carol",
                                                                              "nickname": "Carol"},
                "attachments": [{"id": "5", "url": "https://cdn/x.png", "fileName": "screenshot.png"}],
                "reactions": [{"emoji": {"id": "", "name": "partyparrot"}, "count": 1}]},
               {"id": "102", "type": "Reply", "timestamp": "2024-03-11T09:00:00+00:00", "content": "Dana does",
                "author": {"id": "8", "name": "dave", "nickname": None}, "attachments": [], "reactions": []},
           ], "messageCount": 3}

SLACK_USERS = [{"id": "U024BE7LH", "name": "alice", "real_name": "Alice Smith",
                "profile": {"real_name": "Alice Smith"}},
               {"id": "U0G9QF9C6", "name": "bob", "profile": {"real_name": "Bob Jones", "display_name": "bob"}}]
SLACK_DAY = [
    {"type": "message", "subtype": "channel_join", "text": "<@U0G9QF9C6> has joined the channel", "user": "U0G9QF9C6",
     "ts": "1710400000.000100"},
    {"type": "message", "text": "<@U0G9QF9C6> the invoice format is in <https://wiki.example.com/inv|the wiki> &amp; "
     "<#C024BE7LF|general>", "user": "U024BE7LH", "ts": str(datetime(2024, 3, 14, 9, 15, 2).timestamp()),
     "reactions": [{"name": "tada", "users": ["U0G9QF9C6"], "count": 1}]},
    {"type": "message", "text": "thanks", "user": "U0G9QF9C6", "ts": str(datetime(2024, 3, 14, 9, 30).timestamp()),
     "files": [{"name": "scan.pdf", "title": "scan"}]},
]

WHATSAPP = ("14/03/2024, 09:10 - Messages and calls are end-to-end encrypted. No one outside of this chat, not even "
            "WhatsApp, can read or listen to them. Tap to learn more.\n"
            "14/03/2024, 09:15 - Alice: Did you send the invoice?\nIt needs the new format\n"
            "14/03/2024, 09:16 - Bob: <Media omitted>\n"
            "14/03/2024, 09:17 - Bob: This message was deleted\n"
            "15/03/2024, 10:00 - Bob: IMG-20240315-WA0003.jpg (file attached)\n"
            "the signed one <This message was edited>\n")
WHATSAPP_IPHONE_US = ("\u200e[3/14/24, 9:10:00\u202fAM] Family: \u200eMessages and calls are end-to-end encrypted.\n"
                      "[3/14/24, 9:15:02\u202fAM] Alice: Invoice paid\n"
                      "\u200e[3/14/24, 1:15:02\u202fPM] Bob: \u200e<attached: 00000012-PHOTO-2024-03-14-13-15-02.jpg>\n"
                      "\u200e[3/14/24, 1:16:00\u202fPM] Bob: \u200eThis message was deleted.\n")


def _sections(doc) -> list[tuple[list[str], str]]:
    return [(s.heading_path, s.text) for s in doc.sections]


def test_telegram_is_a_conversation_a_day_dated_by_its_first_message():
    text = json.dumps(TELEGRAM, indent=1, ensure_ascii=False)
    doc = parse_file("Telegram/result.json", text.encode())
    assert (doc.kind, doc.title) == ("note", "Accounts team")
    assert _sections(doc) == [
        (["Accounts team · 2024-02-28"], "Wednesday 28 February 2024\n"
                                         "Alice: Welcome, the old invoice numbering stays until March"),
        (["Accounts team · 2024-03-14"], "Thursday 14 March 2024\n"
                                         "Alice: The invoice format follows https://ex.com/inv from now on,\n"
                                         "with the VAT number on top\n"
                                         "Bob: here is the template [attached: invoice-template.pdf]")]
    assert [s.dated for s in doc.sections] == [datetime(2024, 2, 28, 10, 1).timestamp(),
                                               datetime(2024, 3, 14, 9, 15, 2).timestamp()]
    lines = text.split("\n")  # each day spans its messages' lines: the first at its message's id
    assert lines[doc.sections[1].start_line].strip() == '"id": 3,'  # from the '{' opening its first message
    assert lines[doc.sections[1].start_line - 1].strip() == "{"
    assert doc.sections[0].end_line == doc.sections[1].start_line
    assert doc.sections[1].end_line == len(lines)


def test_a_whole_telegram_account_reads_each_chat():
    other = {"name": "Bob", "type": "personal_chat", "id": 7, "messages": [
        {"id": 9, "type": "message", "date": "2024-04-01T12:00:00", "from": "Bob", "text": "lunch?"}]}
    account = {"about": "…", "personal_information": {"first_name": "Me"}, "chats": {"about": "…",
                                                                                    "list": [TELEGRAM, other]}}
    doc = parse_file("export/result.json", json.dumps(account, indent=1).encode())
    assert [s.heading_path for s in doc.sections] == [["Accounts team · 2024-02-28"], ["Accounts team · 2024-03-14"],
                                                      ["Bob · 2024-04-01"]]
    assert doc.meta["messages"] == 4


def test_discord_drops_its_notices_and_names_by_nickname():
    doc = parse_file("exports/Acme - billing.json", json.dumps(DISCORD, indent=2).encode())
    assert doc.title == "Acme · #billing"
    assert _sections(doc) == [
        (["#billing · 2024-03-10"], "Sunday 10 March 2024\nCarol: Who approves the invoice this month? "
                                    "[attached: screenshot.png]"),
        (["#billing · 2024-03-11"], "Monday 11 March 2024\ndave: Dana does")]
    assert doc.sections[0].dated == datetime(2024, 3, 10, 8, 5).timestamp()
    assert "partyparrot" not in str(_sections(doc)) and "GuildMemberJoin" not in str(_sections(doc))


def _slack(tmp_path: Path) -> Path:
    root = tmp_path / "slack"
    write_tree(root, {"users.json": json.dumps(SLACK_USERS, indent=4),
                      "channels.json": json.dumps([{"id": "C024BE7LF", "name": "general"}], indent=4),
                      "general/2024-03-14.json": json.dumps(SLACK_DAY, indent=4)})
    return root


def test_a_slack_day_reads_names_from_the_exports_users(tmp_path):
    root = _slack(tmp_path)
    parsed = read_and_parse(root, "general/2024-03-14.json")
    assert parsed.kind == "note"
    assert _sections(parsed.doc) == [(["#general · 2024-03-14"], (
        "Thursday 14 March 2024\n"
        "Alice Smith: @Bob Jones the invoice format is in the wiki (https://wiki.example.com/inv) & #general\n"
        "Bob Jones: thanks [attached: scan.pdf]"))]
    assert parsed.doc.sections[0].dated == datetime(2024, 3, 14, 9, 15, 2).timestamp()
    # a direct message's folder is named by its id: headed by its people
    write_tree(root, {"dms.json": json.dumps([{"id": "D0AB12", "created": 1, "members": ["U024BE7LH", "U0G9QF9C6"]}]),
                      "D0AB12/2024-03-14.json": json.dumps(SLACK_DAY[1:2], indent=4)})
    assert [s.heading_path for s in read_and_parse(root, "D0AB12/2024-03-14.json").doc.sections] == [
        ["Alice Smith, Bob Jones · 2024-03-14"]]
    # without users.json beside it, the same file is no Slack export's: read as the JSON it is
    (root / "users.json").unlink()
    parsed = read_and_parse(root, "general/2024-03-14.json")
    assert parsed.kind == "code" and "U024BE7LH" in parsed.doc.sections[0].text


def test_slack_markup():
    users = {"U1": "Alice Smith"}
    assert slack_text("<@U1> <@U2|bo> <!here> <!subteam^S1|@design> <mailto:a@b.c|a@b.c> <https://x.io> a &lt;b&gt;",
                      users) == "@Alice Smith @bo @here @design a@b.c https://x.io a <b>"


def test_whatsapp_android_and_iphone_exports():
    doc = parse_file("WhatsApp Chat with Alice.txt", WHATSAPP.encode())
    assert (doc.kind, doc.title) == ("note", "WhatsApp Chat with Alice")
    assert _sections(doc) == [
        (["WhatsApp Chat with Alice · 2024-03-14"], "Thursday 14 March 2024\nAlice: Did you send the invoice?\n"
                                                    "It needs the new format\nBob: [media omitted]"),
        (["WhatsApp Chat with Alice · 2024-03-15"], "Friday 15 March 2024\n"
                                                    "Bob: the signed one [attached: IMG-20240315-WA0003.jpg]")]
    # from its first message's line (the day line its text begins with is none of the file's)
    assert [(s.start_line, s.end_line, s.lead) for s in doc.sections] == [(2, 5, 1), (6, 7, 1)]
    assert doc.sections[0].dated == datetime(2024, 3, 14, 9, 15).timestamp()
    doc = parse_file("chat/_chat.txt", WHATSAPP_IPHONE_US.encode())  # month first (US), a 12-hour clock
    assert _sections(doc) == [(["WhatsApp chat · 2024-03-14"], (
        "Thursday 14 March 2024\nAlice: Invoice paid\nBob: [attached: 00000012-PHOTO-2024-03-14-13-15-02.jpg]"))]
    assert doc.sections[0].dated == datetime(2024, 3, 14, 9, 15, 2).timestamp()


def test_odd_values_in_an_export_are_left_out_not_an_error(tmp_path):
    """A message of a bad date, a text or an author of another type, attachments that are no list: the other
    messages are read."""
    odd = {"name": "Odd", "type": "personal_chat", "id": 1, "messages": [
        {"id": 1, "type": "message", "date": "yesterday", "from": "A", "text": "lost"},
        {"id": 2, "type": "message", "date": "2024-03-14T09:00:00", "from": {"x": 1}, "text": 5, "photo": 7},
        {"id": 3, "type": "message", "date": "2024-03-14T09:01:00", "from": None, "text": [{"type": "bold"}, "kept"]}]}
    doc = parse_file("result.json", json.dumps(odd, indent=1).encode())
    assert _sections(doc) == [(["Odd · 2024-03-14"], "Thursday 14 March 2024\nDeleted Account: kept")]
    odd = {**DISCORD, "messages": [{**DISCORD["messages"][1], "attachments": 5, "timestamp": "2024-03-10T08:05:00Z"}]}
    doc = parse_file("d.json", json.dumps(odd).encode())
    assert _sections(doc) == [(["#billing · 2024-03-10"], "Sunday 10 March 2024\nCarol: Who approves the invoice "
                                                          "this month?")]
    root = _slack(tmp_path)  # a Slack day that is no JSON: read as text, as before
    (root / "general" / "2024-03-15.json").write_text('[{"ts": "1710407702.0", "text": "cut sh')
    assert read_and_parse(root, "general/2024-03-15.json").kind == "code"


@pytest.mark.parametrize("name, text", [
    ("locales/en.json", json.dumps({"messages": {"greeting": "Hello there, how are you today"}}, indent=2)),
    ("api/inbox.json", json.dumps({"type": "inbox", "id": 1, "messages": [{"type": "message", "body": "hi"}]})),
    ("fixtures/chat.json", json.dumps({"guild": {}, "channel": {}, "messages": [{"content": "no author"}]})),
    ("logs/server.txt", "14/03/2024, 09:15 - server started\n14/03/2024, 09:16 - listening on 8080\n"),
    ("notes/meeting.txt", "Meeting notes\n14/03/2024, 09:15 - Alice: said hello\n"),
])
def test_other_json_and_text_read_as_before(name, text):
    """Detection is by the exact shape: a translation file's 'messages', an API answer of messages without dates,
    a log of timestamps without authors, a note quoting a chat line below its own first line stay as they were."""
    doc = parse_file(name, text.encode())
    assert doc.kind in ("code", "text"), doc
    assert "messages" not in doc.meta


def test_a_chat_is_found_by_what_was_said_in_its_days_range(immediate, sift_env, tmp_path):
    """End to end: `ingest search "invoice" --date-after 2024-03` finds March's days of the chats, headed by where and
    when they were said, and not February's, all in files modified today."""
    root = write_tree(tmp_path / "chats", {
        "Telegram/result.json": json.dumps(TELEGRAM, indent=1, ensure_ascii=False),
        "WhatsApp Chat with Alice.txt": WHATSAPP,
        "slack/users.json": json.dumps(SLACK_USERS, indent=4),
        "slack/channels.json": json.dumps([{"id": "C024BE7LF", "name": "general"}], indent=4),
        "slack/general/2024-03-14.json": json.dumps(SLACK_DAY, indent=4),
    })
    ingest(root, "chats")
    result = run_ingest(sift_env, "search", "invoice", "--mode", "keyword", "--date-after", "2024-03")
    assert result.returncode == 0, result.stderr
    assert "Accounts team · 2024-03-14" in result.stdout and "Accounts team · 2024-02-28" not in result.stdout
    assert "#general · 2024-03-14" in result.stdout and "WhatsApp Chat with Alice · 2024-03-14" in result.stdout
    assert "dated 2024-03-14 09:15:02" in result.stdout
    assert "Alice Smith" in result.stdout and "U024BE7LH" not in result.stdout
    before = run_ingest(sift_env, "search", "invoice", "--mode", "keyword", "--date-before", "2024-03")
    assert re.findall(r"· (\d{4}-\d\d-\d\d)", before.stdout) == ["2024-02-28"], before.stdout


def test_read_file_heading_reads_a_chat_day(immediate, sift_env, tmp_path, monkeypatch):
    """A hit is headed '#general · 2024-03-14'; read_file with that heading said the file had no heading (its JSON
    or text has no such line). It reads that day's lines now, in a Slack day, a Telegram export and WhatsApp's text;
    a day not there lists the days there."""
    from mcp_server import reading
    from mcp_server.errors import Problem
    from mcp_server.service import Sift
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    telegram = json.dumps(TELEGRAM, indent=1, ensure_ascii=False)
    root = write_tree(tmp_path / "chats", {
        "Telegram/result.json": telegram, "WhatsApp Chat with Alice.txt": WHATSAPP,
        "slack/users.json": json.dumps(SLACK_USERS, indent=4),
        "slack/channels.json": json.dumps([{"id": "C024BE7LF", "name": "general"}], indent=4),
        "slack/general/2024-03-14.json": json.dumps(SLACK_DAY, indent=4)})
    lists = [{"path": f"slack/{name}", "stage": "parse", "state": "skipped",  # the export's own: read into its days
              "reason": slack_metadata(root / "slack" / name), "error": None}  # no error: the export's own
             for name in ("channels.json", "users.json")]
    assert ingest(root, "chats")["published"]["failures"] == lists
    sift = Sift(load())
    shown, data = reading.read(sift, "chats/Telegram/result.json", None, None, None,
                               heading="Accounts team · 2024-03-14")
    lines = telegram.split("\n")
    assert lines[data["start_line"]].strip() == '"id": 3,' and data["end_line"] == len(lines), data
    assert "VAT number" in shown and "Welcome, the old invoice" not in shown, shown
    shown, data = reading.read(sift, "chats/WhatsApp Chat with Alice.txt", None, None, None, heading="2024-03-15")
    assert (data["start_line"], data["end_line"]) == (6, 7) and "the signed one" in shown, shown  # from its first message
    shown, data = reading.read(sift, "chats/slack/general/2024-03-14.json", None, None, None,
                               heading="#general · 2024-03-14")
    assert "the invoice format is in" in shown, shown  # from the '{' opening its first message
    assert json.dumps(SLACK_DAY, indent=4).split("\n")[data["start_line"] - 1] == "    {", (data, shown)
    with pytest.raises(Problem, match="'Accounts team · 2024-02-28', 'Accounts team · 2024-03-14'"):
        reading.read(sift, "chats/Telegram/result.json", None, None, None, heading="Accounts team · 2024-05-01")
    # its days are kept while the file is unchanged: a day written since is read
    assert "the signed one" in reading.read(sift, "chats/WhatsApp Chat with Alice.txt", None, None, None,
                                            heading="2024-03-15")[0]
    (root / "WhatsApp Chat with Alice.txt").write_text(WHATSAPP + "16/03/2024, 08:00 - Alice: got it, thanks\n")
    assert ingest(root, "chats")["published"]["failures"] == lists
    shown, data = reading.read(sift, "chats/WhatsApp Chat with Alice.txt", None, None, None, heading="2024-03-16")
    assert (data["start_line"], data["end_line"]) == (8, 8) and "got it, thanks" in shown, shown


def _zips(root: Path) -> None:
    import zipfile
    root.mkdir(parents=True)
    for name in ("Acme Slack export Mar 1 2024 - Mar 14 2024.zip", "export-2024.zip"):
        with zipfile.ZipFile(root / name, "w") as z:
            z.writestr("users.json", json.dumps(SLACK_USERS))
            z.writestr("channels.json", "[]")
            z.writestr("general/2024-03-14.json", json.dumps(SLACK_DAY, indent=4))
            z.writestr("random/2024-03-15.json", json.dumps([{**SLACK_DAY[2], "text": "lunch at noon"}]))
    for name in ("WhatsApp Chat with Alice.zip", "chat-backup.zip"):
        with zipfile.ZipFile(root / name, "w") as z:
            z.writestr("_chat.txt", WHATSAPP)
            z.writestr("IMG-20240315-WA0003.jpg", b"\xff\xd8")
    with zipfile.ZipFile(root / "backup.zip", "w") as z:  # another zip, a _chat.txt of no chat in it
        z.writestr("_chat.txt", "just some text\n")
    (root / "broken.zip").write_bytes(b"PK\x03\x04 not a zip")


def test_a_chat_export_still_zipped_is_read(immediate, sift_env, tmp_path, monkeypatch):
    """A Slack export's .zip and WhatsApp's 'Export chat' .zip (with media) were 'a kind Sift does not read': their
    conversations are read now, one file each, a day a section; read_file shows a day by its heading. A zip of
    another name holding one ('export-2024.zip', 'chat-backup.zip') is read too, told by its directory (it was
    'a Slack export zipped under another name …', not read); any other zip is still no kind Sift reads."""
    from ingest.discover import why_not_indexed
    from mcp_server import reading
    from mcp_server.service import Sift
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "chats"
    _zips(root)
    slack = read_and_parse(root, "Acme Slack export Mar 1 2024 - Mar 14 2024.zip")
    assert slack.kind == "note" and _sections(slack.doc) == [
        (["#general · 2024-03-14"], (
            "Thursday 14 March 2024\n"
            "Alice Smith: @Bob Jones the invoice format is in the wiki (https://wiki.example.com/inv) & #general\n"
            "Bob Jones: thanks [attached: scan.pdf]")),
        (["#random · 2024-03-14"], "Thursday 14 March 2024\nBob Jones: lunch at noon [attached: scan.pdf]")]
    assert slack.doc.meta["messages"] == 3
    chat = read_and_parse(root, "WhatsApp Chat with Alice.zip").doc
    assert [s.heading_path for s in chat.sections] == [["WhatsApp Chat with Alice · 2024-03-14"],
                                                       ["WhatsApp Chat with Alice · 2024-03-15"]]
    assert chat.sections[0].dated == datetime(2024, 3, 14, 9, 15).timestamp()
    renamed = read_and_parse(root, "export-2024.zip")
    assert renamed.kind == "note" and _sections(renamed.doc) == _sections(slack.doc), renamed
    assert [s.heading_path for s in read_and_parse(root, "chat-backup.zip").doc.sections] == [
        ["chat-backup · 2024-03-14"], ["chat-backup · 2024-03-15"]]
    assert why_not_indexed(root, "export-2024.zip") is None and why_not_indexed(root, "chat-backup.zip") is None
    for other in ("backup.zip", "broken.zip"):
        assert why_not_indexed(root, other).startswith("a kind Sift does not read"), other
    assert ingest(root, "chats")["published"]["failures"] == []
    result = run_ingest(sift_env, "search", "lunch", "--mode", "keyword")
    assert "#random · 2024-03-14" in result.stdout and "Slack export" in result.stdout, result.stdout
    assert "export-2024.zip" in result.stdout, result.stdout
    sift = Sift(load())
    shown, _ = reading.read(sift, "chats/chat-backup.zip", None, None, None, heading="2024-03-15")
    assert "Bob: the signed one" in shown and "invoice" not in shown, shown
    shown, data = reading.read(sift, "chats/WhatsApp Chat with Alice.zip", None, None, None, heading="2024-03-15")
    assert "Bob: the signed one [attached: IMG-20240315-WA0003.jpg]" in shown and "invoice" not in shown, shown
    shown, data = reading.read(sift, "chats/Acme Slack export Mar 1 2024 - Mar 14 2024.zip", None, None, None)
    assert "#random · 2024-03-14" in shown and "lunch at noon" in shown, shown
    assert shown.endswith("[a chat export still zipped: its conversations as Sift reads them, a day's heading then its "
                          "messages, a line each]"), shown


def test_a_zipped_chat_export_is_bounded(tmp_path, monkeypatch):
    """Its parts are counted as they unzip (ingest.zipped): an export past the bound is skipped with the reason,
    and one named so holding no export says so."""
    import zipfile
    from ingest import zipped
    from ingest.document import Skip
    root = tmp_path / "chats"
    _zips(root)
    monkeypatch.setattr(zipped, "OPENED_BYTES", 1000)
    with pytest.raises(Skip, match=r"unzip to [\d,]+ bytes \(over 1,000\): more than Sift unzips of one file \(its "
                                   r"bound against zip bombs\); an export this big is read unzipped, a day file at a "
                                   r"time: unzip it"):
        read_and_parse(root, "Acme Slack export Mar 1 2024 - Mar 14 2024.zip")
    monkeypatch.undo()
    with zipfile.ZipFile(root / "WhatsApp Chat - Bob.zip", "w") as z:
        z.writestr("notes.txt", "nothing")
    with pytest.raises(Skip, match="holding none"):
        read_and_parse(root, "WhatsApp Chat - Bob.zip")


def test_forwards_embeds_and_stickers_are_read():
    """Telegram's forwarded message named its forwarder alone, as if the words were theirs; a sticker's file name
    stood as an attachment ('[attached: sticker.webp]') or the message was left out; a Discord bot's card (its embed)
    and a sticker were not read at all."""
    chat = {**TELEGRAM, "messages": [
        {"id": 7, "type": "message", "date": "2024-03-14T10:00:00", "from": "Alice", "forwarded_from": "Bob",
         "text": "The VAT number goes on top"},
        {"id": 8, "type": "message", "date": "2024-03-14T10:01:00", "from": "Carol", "file": "stickers/sticker.webp",
         "media_type": "sticker", "sticker_emoji": "👍", "text": ""},
        {"id": 9, "type": "message", "date": "2024-03-14T10:02:00", "from": "Dave",
         "file": "(File not included. Change data exporting settings to download.)", "media_type": "sticker",
         "text": ""}]}
    doc = parse_file("result.json", json.dumps(chat, indent=1, ensure_ascii=False).encode())
    assert _sections(doc)[0][1].split("\n")[1:] == ["Alice (forwarded from Bob): The VAT number goes on top",
                                                    "Carol: [sticker]", "Dave: [sticker]"]
    discord = {**DISCORD, "messages": [{**DISCORD["messages"][2], "content": "", "embeds": [
        {"title": "Invoice #42 overdue", "description": "Acme Ltd owes 1,200 EUR", "fields": [
            {"name": "Due", "value": "2024-03-01", "isInline": True}]}, {"url": "https://x.io", "fields": []}],
        "stickers": [{"id": "1", "name": "wave", "format": "Png"}]}]}
    doc = parse_file("d.json", json.dumps(discord, indent=1).encode())
    assert _sections(doc)[0][1].split("\n")[1:] == [
        "dave: [embed: Invoice #42 overdue] Acme Ltd owes 1,200 EUR Due: 2024-03-01 [sticker]"]


YEAR_FIRST = ("2024-03-14 09:10 - Messages and calls are end-to-end encrypted.\n"
              "2024-03-14 09:15 - Alice: Did you send the invoice?\nIt needs the new format\n"
              "2024-03-14 09:16 - +46 70 123 45 67: yes, this morning\n"
              "2024-03-15 10:00 - Bob: IMG-20240315-WA0003.jpg (file attached)\n")


@pytest.mark.parametrize("log", [
    "2024-03-14 09:15 - INFO: started\n2024-03-14 09:16 - INFO: listening\n2024-03-14 09:17 - ERROR: boom\n",
    "2024-03-14 09:15 - app.server: started\n2024-03-14 09:16 - app.db: connected\n",
    "2024-03-14 09:15 - Alice: started\n2024-03-14 09:15 - Bob: joined\n"
    + "".join(f"2024-03-14 09:{m} - worker {m} stopped\n" for m in range(16, 20)),
    "2024-03-14 09:15 - Alice: started\n" + "2024-03-14 09:16 - WARNING: disk at 90%\n",
])
def test_whatsapp_of_year_first_dates_and_logs_that_look_alike(log):
    """A WhatsApp export of year-first dates (some Swedish and Chinese phones) was read as plain text, its passages
    a run of timestamps; a log of the same dates stays plain text: told by its lines' authors, a log's level or
    logger is none, nor a line without one among many."""
    doc = parse_file("WhatsApp Chat with Alice.txt", YEAR_FIRST.encode())
    assert _sections(doc) == [
        (["WhatsApp Chat with Alice · 2024-03-14"], "Thursday 14 March 2024\nAlice: Did you send the invoice?\n"
                                                    "It needs the new format\n+46 70 123 45 67: yes, this morning"),
        (["WhatsApp Chat with Alice · 2024-03-15"], "Friday 15 March 2024\nBob: [attached: IMG-20240315-WA0003.jpg]")]
    assert doc.sections[0].dated == datetime(2024, 3, 14, 9, 15).timestamp()
    doc = parse_file("logs/server.txt", log.encode())
    assert doc.kind in ("code", "text") and "messages" not in doc.meta, doc


def test_whatsapp_of_a_chinese_phone_its_hours_after_the_half_of_the_day():
    """A Chinese phone's WhatsApp export writes the half of the day before the hour ('2026/11/28 下午3:02 - …'): it
    was read as plain text, its messages one run of lines dated by the file's time. It is a chat, a day a section
    dated by its first message, 下午3:02 at 15:02 (an iPhone's '[… 上午9:15:02]' and Japanese 午後 too)."""
    android = ("2026/11/28 上午9:15 - 消息和通话已进行端到端加密。点击了解更多。\n"
               "2026/11/28 上午9:15 - 陈医生: 上次说的 finerenone 文章发给你了\n"
               "2026/11/28 下午3:02 - 王医生: 周五的病例讨论改到下午四点\n"
               "2026/11/29 上午12:05 - 陈医生: 好的\n")
    doc = parse_file("WhatsApp Chat with 陈医生.txt", android.encode())
    assert _sections(doc) == [
        (["WhatsApp Chat with 陈医生 · 2026-11-28"], "Saturday 28 November 2026\n陈医生: 上次说的 finerenone 文章发给你了\n"
                                                   "王医生: 周五的病例讨论改到下午四点"),
        (["WhatsApp Chat with 陈医生 · 2026-11-29"], "Sunday 29 November 2026\n陈医生: 好的")]
    assert [s.dated for s in doc.sections] == [datetime(2026, 11, 28, 9, 15).timestamp(),
                                               datetime(2026, 11, 29, 0, 5).timestamp()]
    iphone = "[2026/11/28 下午3:02:10] 王医生: 好\n[2026/11/28 下午3:03:00] 陈医生: 收到\n"
    assert parse_file("chat/_chat.txt", iphone.encode()).sections[0].dated == datetime(2026, 11, 28, 15, 2, 10).timestamp()
    japanese = "2026/11/28 午後3:02 - 田中: 了解です\n2026/11/28 午後3:05 - 佐藤: はい\n"
    assert parse_file("chat/_chat.txt", japanese.encode()).sections[0].dated == datetime(2026, 11, 28, 15, 2).timestamp()


def test_whatsapp_of_a_hong_kong_phone_its_day_before_its_month():
    """A Hong Kong (or Singapore) phone writes the day first and the half of the day before the hour ('5/3/2024 下午3:02'):
    with no day over 12 such a chat was read as the US's month first (as an AM/PM clock's), 5 March dated 3 May.
    No phone writes the month first beside 上午/下午: it is day first."""
    hong_kong = "5/3/2024 下午3:02 - 陳醫生: 收到\n6/3/2024 上午9:15 - 王醫生: 好的\n"
    doc = parse_file("chat/_chat.txt", hong_kong.encode())
    assert [s.dated for s in doc.sections] == [datetime(2024, 3, 5, 15, 2).timestamp(),
                                               datetime(2024, 3, 6, 9, 15).timestamp()], _sections(doc)


def test_a_slack_exports_own_lists_are_skipped_with_a_reason(immediate, tmp_path, monkeypatch):
    """A Slack export's users.json and channels.json (dms.json, integration_logs.json …) were indexed as JSON: a
    search for a colleague's name ranked the raw users.json, its ids and avatars, among her messages. Their names are
    read into the export's days: they are skipped, said so in list_files. A users.json of no Slack export is read."""
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = _slack(tmp_path)
    write_tree(root, {"dms.json": "[]", "integration_logs.json": json.dumps({"logs": [{"user_name": "Alice Smith"}]}),
                      "other/users.json": json.dumps(SLACK_USERS), "other/channels.json": "[]"})
    stats = ingest(root, "slack")
    skipped = {f["path"]: f["reason"] for f in stats["published"]["failures"] if f["state"] == "skipped"}
    assert sorted(skipped) == ["channels.json", "dms.json", "integration_logs.json", "users.json"], stats
    assert skipped["users.json"].startswith("a Slack export's users: their names are read into its days"), skipped
    assert all(f["state"] == "skipped" for f in stats["published"]["failures"]), stats
    tools = Tools(Sift(load()))
    found = tools.search(query="Alice Smith", mode="keyword").structured_content["results"]
    assert sorted(r["path"] for r in found) == ["slack/general/2024-03-14.json", "slack/other/users.json"], found
    listed = {f["path"]: f for f in tools.list_files(sort="path").structured_content["files"]}
    assert listed["slack/users.json"]["state"] == "skipped", listed
    assert "their names are read into its days" in listed["slack/users.json"]["reason"], listed
    assert listed["slack/other/users.json"]["state"] == "indexed", listed  # no channel's day beside it


def test_list_files_says_a_chat_exports_days_and_messages(immediate, tmp_path, monkeypatch):
    """list_files said just 'indexed' of a chat export, where an Evernote export says '3 notes (…)': it says its days
    and messages and what export it is, read as conversations."""
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "chats", {
        "Telegram/result.json": json.dumps(TELEGRAM, indent=1, ensure_ascii=False),
        "WhatsApp Chat with Alice.txt": WHATSAPP, "Acme - billing.json": json.dumps(DISCORD, indent=2),
        "slack/users.json": json.dumps(SLACK_USERS, indent=4), "slack/channels.json": "[]",
        "slack/general/2024-03-14.json": json.dumps(SLACK_DAY, indent=4), "notes.md": "# Plain\n\nnothing said\n"})
    _zips(root / "zips")
    ingest(root, "chats")
    tools = Tools(Sift(load()))
    said = {f["path"]: f.get("reason") for f in tools.list_files(sort="path").structured_content["files"]}
    assert said["chats/Telegram/result.json"] == (
        "2 days, 3 messages (a Telegram chat export: each day a passage group headed by its chat and date, "
        "as 'Accounts team · 2024-02-28')"), said
    assert said["chats/WhatsApp Chat with Alice.txt"].startswith("2 days, 3 messages (a WhatsApp chat export"), said
    assert said["chats/Acme - billing.json"].startswith("2 days, 2 messages (a DiscordChatExporter export"), said
    assert said["chats/slack/general/2024-03-14.json"] == (
        "1 day, 2 messages (a Slack export's channel day: each day a passage group headed by its chat and date, as "
        "'#general · 2024-03-14')"), said
    assert said["chats/zips/Acme Slack export Mar 1 2024 - Mar 14 2024.zip"].startswith(
        "2 days, 3 messages (a Slack export, zipped"), said
    assert said["chats/zips/WhatsApp Chat with Alice.zip"].startswith("2 days, 3 messages (a WhatsApp chat export, "
                                                                      "zipped"), said
    assert said["chats/notes.md"] is None, said


def test_a_telegram_or_discord_export_still_zipped_is_read(tmp_path):
    """Telegram Desktop's export folder zipped ('ChatExport_2024-03-14/result.json' with its photos) and
    DiscordChatExporter's JSON zipped (a file a channel) were a .zip Sift does not read, whatever their name: told
    by their directory and their JSON's first bytes now, as Slack's are, and read as one file of their days. A zip
    of another result.json, or of JSON of no chat, is still no kind Sift reads."""
    import zipfile
    from ingest.chat import chat_zip_text
    from ingest.discover import why_not_indexed
    root = tmp_path / "chats"
    root.mkdir()
    with zipfile.ZipFile(root / "Telegram Desktop.zip", "w") as z:
        z.writestr("ChatExport_2024-03-14/result.json", json.dumps(TELEGRAM, indent=1, ensure_ascii=False))
        z.writestr("ChatExport_2024-03-14/photos/photo_1.jpg", b"\xff\xd8")
    with zipfile.ZipFile(root / "discord.zip", "w") as z:
        z.writestr("Acme - billing [2].json", json.dumps(DISCORD, indent=2))
        z.writestr("Acme - ops [3].json", json.dumps({**DISCORD, "channel": {**DISCORD["channel"], "name": "ops"},
                                                      "messages": [{**DISCORD["messages"][1], "id": "200",
                                                                    "content": "deploy at noon"}]}, indent=2))
    with zipfile.ZipFile(root / "results.zip", "w") as z:
        z.writestr("run/result.json", json.dumps({"messages": ["2 passed"], "type": "junit", "id": 1}))
        z.writestr("guild.json", json.dumps({"guilds": [], "channel": {}}))
    telegram = read_and_parse(root, "Telegram Desktop.zip")
    assert telegram.kind == "note" and _sections(telegram.doc) == [
        (["Accounts team · 2024-02-28"], "Wednesday 28 February 2024\nAlice: Welcome, the old invoice numbering "
                                         "stays until March"),
        (["Accounts team · 2024-03-14"], "Thursday 14 March 2024\nAlice: The invoice format follows "
                                         "https://ex.com/inv from now on,\nwith the VAT number on top\n"
                                         "Bob: here is the template [attached: invoice-template.pdf]")], telegram
    assert telegram.doc.meta["chat_export"] == "a Telegram export, zipped" and telegram.doc.meta["messages"] == 3
    discord = read_and_parse(root, "discord.zip")
    assert [(s.heading_path, s.text.split("\n")[1:]) for s in discord.doc.sections] == [
        (["#billing · 2024-03-10"], ["Carol: Who approves the invoice this month? [attached: screenshot.png]"]),
        (["#billing · 2024-03-11"], ["dave: Dana does"]),
        (["#ops · 2024-03-10"], ["Carol: deploy at noon [attached: screenshot.png]"])], discord
    assert discord.doc.meta["chat_export"] == "a DiscordChatExporter export, zipped"
    shown = chat_zip_text((root / "discord.zip").read_bytes(), "discord.zip")[0].lines
    assert shown[:3] == ["#billing · 2024-03-10", "Sunday 10 March 2024",
                         "Carol: Who approves the invoice this month? [attached: screenshot.png]"], shown
    assert why_not_indexed(root, "Telegram Desktop.zip") is None and why_not_indexed(root, "discord.zip") is None
    assert why_not_indexed(root, "results.zip").startswith("a kind Sift does not read")


def _telegram_page(messages: str) -> str:
    """A page of Telegram Desktop's HTML export of a chat, as it writes one (trimmed of its pictures' divs)."""
    return ('<!DOCTYPE html>\n<html>\n <head>\n  <meta charset="utf-8"/>\n<title>Exported Data</title>\n'
            '  <link href="css/style.css" rel="stylesheet"/>\n </head>\n <body onload="CheckLocation();">\n'
            '  <div class="page_wrap">\n   <div class="page_header">\n    <div class="content">\n'
            '     <div class="text bold">\nAccounts team\n     </div>\n    </div>\n   </div>\n'
            '   <div class="page_body chat_page">\n    <div class="history">\n' + messages
            + '    </div>\n   </div>\n  </div>\n </body>\n</html>\n')


def _telegram_message(number: int, when: str, body: str, author: str = "", joined: bool = False) -> str:
    return (f'     <div class="message default clearfix{" joined" if joined else ""}" id="message{number}">\n'
            '      <div class="body">\n'
            f'       <div class="pull_right date details" title="{when}">\n{when[11:16]}\n       </div>\n'
            + (f'       <div class="from_name">\n{author} \n       </div>\n' if author else "")
            + body + '      </div>\n     </div>\n')


TELEGRAM_HTML = _telegram_page(
    '     <div class="message service" id="message-1">\n      <div class="body details">\n28 February 2024\n'
    '      </div>\n     </div>\n'
    + _telegram_message(2, "28.02.2024 10:01:00 UTC+01:00", '       <div class="text">\nWelcome, the old invoice '
                        'numbering stays until March\n       </div>\n', "Alice")
    + _telegram_message(3, "14.03.2024 09:15:02 UTC+01:00", '       <div class="text">\nThe invoice format follows '
                        '<a href="https://ex.com/inv">https://ex.com/inv</a> from now on,<br>with the VAT number '
                        '&amp; IBAN on top\n       </div>\n', "Alice")
    + _telegram_message(4, "14.03.2024 09:20:00 UTC+01:00", '       <div class="media_wrap clearfix">\n'
                        '        <a class="media clearfix pull_left block_link media_file" href="files/invoice-'
                        'template.pdf">\n         <div class="body">\n          <div class="title bold">\n'
                        'invoice-template.pdf\n          </div>\n         </div>\n        </a>\n       </div>\n'
                        '       <div class="text">\nhere is the template\n       </div>\n', joined=True))
TELEGRAM_HTML_2 = _telegram_page(
    _telegram_message(5, "15.03.2024 08:00:00 UTC+01:00", '       <div class="forwarded body">\n'
                      '        <div class="from_name">\nBob<span class="date details"> 01.03.2024 10:00:00</span>\n'
                      '        </div>\n        <div class="text">\nThe VAT number goes on top\n        </div>\n'
                      '       </div>\n', "Carol"))


def test_telegrams_html_export_is_a_conversation_zipped_or_not(immediate, sift_env, tmp_path, monkeypatch):
    """Telegram Desktop exports HTML unless told otherwise ('ChatExport_2024-03-14/messages.html', messages2.html
    …): it was read as a web page, a message's time, author and words lines of their own ('09:15', 'Alice', …), a
    joined message's author nowhere, and zipped not read at all. It is a conversation now, as its result.json is, a
    day a passage group; zipped, its pages are one chat; read_file reads a day of it by its heading."""
    import zipfile
    from ingest.chat import chat_headings
    doc = parse_file("ChatExport_2024-03-14/messages.html", TELEGRAM_HTML.encode())
    assert _sections(doc) == [
        (["Accounts team · 2024-02-28"], "Wednesday 28 February 2024\nAlice: Welcome, the old invoice numbering "
                                         "stays until March"),
        (["Accounts team · 2024-03-14"], "Thursday 14 March 2024\nAlice: The invoice format follows "
                                         "https://ex.com/inv from now on,\nwith the VAT number & IBAN on top\n"
                                         "Alice: here is the template [attached: invoice-template.pdf]")], doc
    assert doc.sections[1].dated == datetime.fromisoformat("2024-03-14T09:15:02+01:00").timestamp()
    lines = TELEGRAM_HTML.split("\n")
    assert lines[doc.sections[1].start_line] == '     <div class="message default clearfix" id="message3">', (
        doc.sections[1], lines)
    assert doc.meta["chat_export"] == "a Telegram chat export (HTML)" and doc.meta["messages"] == 3
    root = tmp_path / "chats"
    (root / "ChatExport_2024-03-14").mkdir(parents=True)
    (root / "ChatExport_2024-03-14/messages.html").write_text(TELEGRAM_HTML)
    assert [day for day, _, _ in chat_headings("ChatExport_2024-03-14/messages.html",
                                               root / "ChatExport_2024-03-14/messages.html")] == [
        "Accounts team · 2024-02-28", "Accounts team · 2024-03-14"]
    with zipfile.ZipFile(root / "Telegram Desktop.zip", "w") as z:
        z.writestr("ChatExport_2024-03-14/messages.html", TELEGRAM_HTML)
        z.writestr("ChatExport_2024-03-14/messages2.html", TELEGRAM_HTML_2)
        z.writestr("ChatExport_2024-03-14/css/style.css", "body {}")
    zipped = read_and_parse(root, "Telegram Desktop.zip")
    assert zipped.kind == "note" and _sections(zipped.doc) == _sections(doc) + [
        (["Accounts team · 2024-03-15"], "Friday 15 March 2024\nCarol (forwarded from Bob): The VAT number goes on "
                                         "top")], zipped
    assert zipped.doc.meta["chat_export"] == "a Telegram export (HTML), zipped"
    page = parse_file("site/index.html", b"<!DOCTYPE html>\n<html><body><h1>Invoices</h1><p>hello</p></body></html>")
    assert "chat_export" not in page.meta and "hello" in page.sections[0].text, page
    from mcp_server import reading
    from mcp_server.service import Sift
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    assert ingest(root, "chats")["published"]["failures"] == []
    result = run_ingest(sift_env, "search", "IBAN", "--mode", "keyword")
    assert "Accounts team · 2024-03-14" in result.stdout and "messages.html" in result.stdout, result.stdout
    shown, data = reading.read(Sift(load()), "chats/ChatExport_2024-03-14/messages.html", None, None, None,
                               heading="2024-03-14")
    assert "IBAN" in shown and "Welcome" not in shown, shown


def test_a_telegram_day_going_on_across_two_pages_says_so(immediate, tmp_path, monkeypatch):
    """Telegram Desktop writes a chat's pages a thousand messages each, each from a day's header: a day going on
    from messages.html to messages2.html was two sections of one heading in two files, and neither said the rest
    of the day was in the other. Their headings say so now, as indexed and as read_file finds them; a page's day
    that the page beside does not share says nothing."""
    from ingest.chat import chat_headings
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    folder = tmp_path / "chats" / "ChatExport_2024-03-14"
    folder.mkdir(parents=True)
    (folder / "messages.html").write_text(TELEGRAM_HTML)  # its last day: 14 March
    (folder / "messages2.html").write_text(_telegram_page(  # 14 March goes on, then 15 March
        '     <div class="message service" id="message-4">\n      <div class="body details">\n14 March 2024\n'
        '      </div>\n     </div>\n'
        + _telegram_message(5, "14.03.2024 17:40:00 UTC+01:00", '       <div class="text">\nThe afternoon batch of '
                            'invoices went out\n       </div>\n', "Bob")
        + _telegram_message(6, "15.03.2024 08:00:00 UTC+01:00", '       <div class="text">\nMorning, all paid\n'
                            '       </div>\n', "Carol")))
    (folder / "messages3.html").write_text(_telegram_page(_telegram_message(
        7, "16.03.2024 08:00:00 UTC+01:00", '       <div class="text">\nA new day\n       </div>\n', "Carol")))
    headings = {page: [day for day, _, _ in chat_headings(f"ChatExport_2024-03-14/{page}", folder / page)]
                for page in ("messages.html", "messages2.html", "messages3.html")}
    assert headings == {
        "messages.html": ["Accounts team · 2024-02-28", "Accounts team · 2024-03-14 (continues in messages2.html)"],
        "messages2.html": ["Accounts team · 2024-03-14 (continued from messages.html)", "Accounts team · 2024-03-15"],
        "messages3.html": ["Accounts team · 2024-03-16"]}, headings
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    assert ingest(tmp_path / "chats", "chats")["published"]["failures"] == []
    tools = Tools(Sift(load()))
    hit = tools.search(query="afternoon batch", mode="keyword").structured_content["results"][0]
    assert hit["heading_path"] == "Accounts team · 2024-03-14 (continued from messages.html)", hit
    read = tools.read_file(path="chats/ChatExport_2024-03-14/messages2.html", heading=hit["heading_path"])
    assert not read.is_error and "afternoon batch" in read.content[0].text and "Morning" not in read.content[0].text


def test_a_telegram_pages_mark_follows_the_page_beside_it(immediate, tmp_path, monkeypatch):
    """A page's '(continues in messages2.html)' is of the page beside it: messages2.html written again to begin on
    the day messages.html ends with left messages.html unmarked (it was not read again, being unchanged), and one
    written again to begin on another day left it marked. A page beside a changed, added or removed one is read
    again with it, a file named so that is no page is not; as the watcher names the changed page alone too."""
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.index import collection_reads
    from search.settings import load
    from workers import tasks
    from workers.runtime import index
    folder = tmp_path / "chats" / "ChatExport_2024-03-14"
    folder.mkdir(parents=True)
    (folder / "messages.html").write_text(TELEGRAM_HTML)  # its last day: 14 March
    (folder / "messages2.html").write_text(TELEGRAM_HTML_2)  # 15 March
    (tmp_path / "chats" / "messages2.txt").write_text("not a page")
    (tmp_path / "chats" / "notes").mkdir()
    (tmp_path / "chats" / "notes" / "messages.html").write_text("<html><body><p>a page of my own</p></body></html>")
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    assert ingest(tmp_path / "chats", "chats")["published"]["failures"] == []
    tools = Tools(Sift(load()))

    def heading(query: str) -> str:
        return tools.search(query=query, mode="keyword").structured_content["results"][0]["heading_path"]

    assert heading("IBAN") == "Accounts team · 2024-03-14"
    afternoon = _telegram_page(_telegram_message(5, "14.03.2024 17:40:00 UTC+01:00", '       <div class="text">\n'
                                                 'The afternoon batch of invoices went out\n       </div>\n', "Bob"))
    (folder / "messages2.html").write_text(afternoon)  # 14 March goes on in it now
    stats = ingest(tmp_path / "chats", "chats")
    assert stats["published"]["failures"] == [], stats
    assert heading("IBAN") == "Accounts team · 2024-03-14 (continues in messages2.html)"
    assert heading("afternoon batch") == "Accounts team · 2024-03-14 (continued from messages.html)"
    (folder / "messages2.html").write_text(TELEGRAM_HTML_2)  # as the watcher names it: the page alone
    tasks.discover(collection_reads.collections(index())[0]["id"], paths=["ChatExport_2024-03-14/messages2.html"])
    assert heading("IBAN") == "Accounts team · 2024-03-14"
    (folder / "messages2.html").write_text(afternoon)
    ingest(tmp_path / "chats", "chats")
    assert heading("IBAN") == "Accounts team · 2024-03-14 (continues in messages2.html)"
    (folder / "messages2.html").unlink()  # gone: no page goes on from messages.html
    ingest(tmp_path / "chats", "chats")
    assert heading("IBAN") == "Accounts team · 2024-03-14"
    from ingest.chat import pages_to_mark_again
    assert pages_to_mark_again(tmp_path / "chats", ["messages.html", "notes/messages2.html"],
                               {"messages2.txt", "notes/messages.html"}) == set()


def test_read_file_reads_a_whatsapp_day_from_its_first_message(immediate, tmp_path, monkeypatch):
    """A WhatsApp day's section starts at the line before its first message, the day before's last: read_file
    heading='… · 2024-03-07' began with the end of a 5 March message ('Also, can you pick up the keys …', the second
    line of 'Perfect'), as if said on the 7th. It begins at the day's first message now."""
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "chats", {"WhatsApp Chat with Anna.txt": (
        "05/03/2024, 19:02 - Messages and calls are end-to-end encrypted. No one outside of this chat, not even "
        "WhatsApp, can read or listen to them. Tap to learn more.\n"
        "05/03/2024, 19:02 - Anna: Did the plumber confirm Thursday?\n"
        "05/03/2024, 19:06 - Anna: Perfect\nAlso, can you pick up the keys from Mrs. Olsen?\n"
        "07/03/2024, 08:47 - Bo: He's here now\n"
        "07/03/2024, 10:15 - Bo: Boiler fixed, new pressure valve\n")})
    assert ingest(root, "chats")["published"]["failures"] == []
    tools = Tools(Sift(load()))
    read = tools.read_file(path="chats/WhatsApp Chat with Anna.txt", heading="WhatsApp Chat with Anna · 2024-03-07")
    text = read.content[0].text
    assert "He's here now" in text and "pressure valve" in text and "Mrs. Olsen" not in text, text
    assert read.structured_content["start_line"] == 5, read.structured_content
    # a hit on that day is at its lines, not at the 5 March message's last line before them
    hit = tools.search(query="boiler pressure valve", mode="keyword").structured_content["results"][0]
    assert (hit["start_line"], hit["end_line"]) == (5, 6), hit
    first = tools.read_file(path="chats/WhatsApp Chat with Anna.txt", heading="WhatsApp Chat with Anna · 2024-03-05")
    assert "Mrs. Olsen" in first.content[0].text and "He's here" not in first.content[0].text, first.content[0].text


def test_an_iphones_document_and_location_are_kept_not_taken_for_notices():
    """An iPhone marks a document sent without its file ('‎Invoice 4471.pdf • ‎2 pages ‎document omitted') and a
    location ('‎Location: https://…') left-to-right, as it marks its notices: both were left out as notices, and the
    invoice Anna sent was found by no search. They are a message now; a notice still is none."""
    text = ("[05/03/2024, 19:02:11] Anna: \u200eMessages and calls are end-to-end encrypted. No one outside of this "
            "chat, not even WhatsApp, can read or listen to them.\n"
            "[05/03/2024, 19:02:15] Anna: Did the plumber confirm?\n"
            "\u200e[05/03/2024, 19:06:00] Bo: \u200eLocation: https://maps.google.com/?q=55.67,12.56\n"
            "[05/03/2024, 19:08:00] Anna: \u200eInvoice 4471.pdf \u2022 \u200e2 pages \u200edocument omitted\n"
            "[05/03/2024, 19:09:00] Anna: \u200eAnna changed the group name to \"House\"\n")
    doc = parse_file("_chat.txt", text.encode())
    assert _sections(doc) == [(["WhatsApp chat · 2024-03-05"], "Tuesday 5 March 2024\nAnna: Did the plumber confirm?\n"
                               "Bo: Location: https://maps.google.com/?q=55.67,12.56\n"
                               "Anna: [attached: Invoice 4471.pdf]")], doc


def test_a_discord_day_is_dated_as_its_export_writes_it():
    """A DiscordChatExporter message of '2024-03-14T23:30:00-05:00' was dated by the instant (the 15th, 04:30, on a
    machine in UTC) under the heading of the 14th: date_before=2024-03-15 left it out. It is dated as written, as
    a mail's Date is."""
    late = {**DISCORD, "messages": [{"id": "200", "type": "Default", "timestamp": "2024-03-14T23:30:00-05:00",
                                     "content": "The invoice went out late", "author": {"name": "carol"}}]}
    doc = parse_file("exports/late.json", json.dumps(late, indent=2).encode())
    assert [s.heading_path for s in doc.sections] == [["#billing · 2024-03-14"]]
    assert doc.sections[0].dated == datetime(2024, 3, 14, 23, 30).timestamp(), doc.sections[0].dated


def test_a_whatsapp_days_passages_are_at_their_messages_lines():
    """A WhatsApp day's passages began a line early: its section was counted from the day before's last line (its
    text's day line standing there), so a hit on 7 March was at lines that held the 5 March message's end, and a
    passage cut from inside a long day named the line above its first message. Each passage is at its own messages'
    lines now, whole or cut."""
    from ingest.chunk import chunk_document, plain_count
    said = [f"07/03/2024, 08:{n:02d} - Bo: note {n} about the boiler and the valve and the plumber's bill"
            for n in range(40)]
    text = ("05/03/2024, 19:06 - Anna: Perfect\nAlso, can you pick up the keys from Mrs. Olsen?\n"
            + "\n".join(said) + "\n08/03/2024, 09:00 - Anna: thanks\n")
    lines = text.split("\n")
    chunks = chunk_document(parse_file("WhatsApp Chat with Anna.txt", text.encode()), plain_count, 60, 0)
    assert len(chunks) > 3, chunks  # the 7th cut in several passages
    for chunk in chunks:
        first = next(line for line in chunk.text.split("\n") if ": " in line)  # its first message, past a day line
        assert lines[chunk.start_line - 1].endswith(first), (chunk.start_line, chunk.text)
        last = chunk.text.rstrip().rsplit("\n", 1)[-1]
        assert lines[chunk.end_line - 1].endswith(last), (chunk.end_line, chunk.text)
    assert [(c.start_line, c.end_line) for c in chunks if "thanks" in c.text] == [(43, 43)]


def test_a_passage_cut_inside_a_whatsapp_day_past_lines_left_out_is_at_its_lines():
    """A passage cut from inside a long WhatsApp day was a line early for each line of the day before it that its
    text leaves out (a notice, 'Anna added Bo', a deleted message, an attached file's name line): the day's text
    was counted from its first line as if it held every line. Each passage is at its own messages' lines now."""
    from ingest.chunk import chunk_document, plain_count
    said = []
    for n in range(40):
        said.append(f"07/03/2024, 08:{n:02d} - Bo: note {n} about the boiler and the valve and the plumber's bill")
        if n % 3 == 0:
            said.append(f"07/03/2024, 08:{n:02d} - Anna added Carl {n}")  # a notice: no line of the text
        if n % 5 == 0:
            said.append(f"07/03/2024, 08:{n:02d} - Anna: This message was deleted")
        if n % 7 == 0:
            said.append(f"07/03/2024, 08:{n:02d} - Bo: <attached: 00000{n}-PHOTO.jpg>")
            said.append(f"the valve {n}, second line")
    text = "05/03/2024, 19:06 - Anna: Perfect\n" + "\n".join(said) + "\n08/03/2024, 09:00 - Anna: thanks\n"
    lines = text.split("\n")
    chunks = chunk_document(parse_file("WhatsApp Chat with Anna.txt", text.encode()), plain_count, 60, 0)
    inside = [c for c in chunks if "07/03" not in c.text and "Thursday 7 March" not in c.text and "note" in c.text]
    assert len(inside) > 3, chunks  # passages cut from inside the 7th, past lines its text leaves out
    for chunk in chunks:
        first = next(line for line in chunk.text.split("\n") if ": " in line)  # past a day line
        assert lines[chunk.start_line - 1].endswith(first.split(" [attached")[0].split(": ", 1)[1]), \
            (chunk.start_line, chunk.text)
        last = chunk.text.rstrip().rsplit("\n", 1)[-1]
        assert lines[chunk.end_line - 1].endswith(last.split(" [attached")[0].split(": ", 1)[1]), \
            (chunk.end_line, chunk.text)
    assert [(c.start_line, c.end_line) for c in chunks if "thanks" in c.text] == [(len(lines) - 1,) * 2]


@pytest.mark.parametrize("head", ["Ben: ", "Ben:"])
def test_a_whatsapp_message_whose_text_starts_below_its_head_is_at_its_lines(head):
    """A message whose text starts on the line below its head ('[12/03/2024, 09:14] Ben: ', as WhatsApp writes a
    message beginning with a line break) was placed a line early: a passage cut inside it, or ending in it, named
    the line above its words. Its head's trailing space trimmed ('Ben:'), the message was left out as a notice."""
    from ingest.chunk import chunk_document, plain_count
    said = []
    for n in range(12):
        said += [f"[12/03/2024, 09:{n:02d}:00] {head}", f"line one {n} about the boiler and the plumber's bill",
                 f"line two {n} about the boiler and the valve and the plumber's bill"]
    text = "[12/03/2024, 08:00:00] Anna: morning\n" + "\n".join(said) + "\n[12/03/2024, 10:00:00] Anna: thanks\n"
    lines = text.split("\n")
    doc = parse_file("WhatsApp Chat with Ben.txt", text.encode())
    assert doc.meta["messages"] == 14, doc.meta
    chunks = chunk_document(doc, plain_count, 60, 0)
    assert len(chunks) > 3, chunks
    for chunk in chunks:
        first = next(line for line in chunk.text.split("\n") if line.startswith(("Ben: ", "Anna: ", "line ")))
        assert lines[chunk.start_line - 1].endswith(first.removeprefix("Ben: ")), (chunk.start_line, chunk.text)
        last = chunk.text.rstrip().rsplit("\n", 1)[-1]
        assert lines[chunk.end_line - 1].endswith(last.removeprefix("Ben: ")), (chunk.end_line, chunk.text)


def test_an_iphones_file_sent_with_words_keeps_them():
    """An iPhone marks a file's name ('‎<attached: …>'), as it marks its notices: a file sent with words below its
    name was taken for a notice and left out whole, its words not found. And a file named on the line below a head
    bare of words was kept as its name's text, not as a file."""
    text = ("[05/03/2024, 19:03:00] Anna: Hello\n"
            "[05/03/2024, 19:04:00] Ben: \u200e<attached: 00000012-PHOTO.jpg>\n"
            "the gutter, left side\n"
            "[05/03/2024, 19:05:00] Ben: \n"
            "<attached: 00000013-PHOTO.jpg>\n"
            "the drainpipe\n"
            "[05/03/2024, 19:06:00] Anna: \u200eAnna changed the group name\n")
    doc = parse_file("_chat.txt", text.encode())
    assert doc.sections[0].text.split("\n")[1:] == [
        "Anna: Hello", "Ben: the gutter, left side [attached: 00000012-PHOTO.jpg]",
        "Ben: the drainpipe [attached: 00000013-PHOTO.jpg]"], doc.sections[0].text
    lines = text.split("\n")
    assert [lines[line - 1] for _, line in doc.sections[0].marks[1:]] == ["the gutter, left side", "the drainpipe"]
