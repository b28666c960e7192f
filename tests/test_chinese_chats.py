"""Chats a Chinese user has (ingest.chat, ingest.wechat). WeChat's exported as text (MemoTrace's TXT and CSV, a
merged forwarded chat pasted) were read as plain text or a table's rows: no days, no dates, no speakers. They are
conversations now, as WhatsApp's are: a section a day, dated by its first message, its speakers the author filter's.
WhatsApp's export zipped by a phone set to Chinese, its chat file named in Chinese ('与王医生的 WhatsApp 聊天.txt'),
was a .zip Sift does not read: only '_chat.txt' or 'WhatsApp Chat*.txt' were looked for. A zip's chat is told by
its first lines now, whatever its name."""
from __future__ import annotations

import os
import zipfile
from datetime import datetime
from pathlib import Path

from ingest.discover import why_not_indexed
from ingest.files import read_and_parse
from ingest.parse import parse_file
from tests.conftest import ingest, write_tree

# MemoTrace (留痕) 'export TXT': a head of time and speaker, the text below, a blank line; a notice its head alone
MEMOTRACE_TXT = ("2026-11-28 15:02:11 王医生\n李女士您好，血压复查安排在下周三上午\n\n"
                 "2026-11-28 15:05:40 李娜\n好的，需要空腹吗？\n我早上一般要吃降压药\n\n"
                 "2026-11-28 15:06:02 \"王医生\"撤回了一条消息\n\n"
                 "2026-11-28 15:07:15 王医生\n不需要空腹，药照常吃，带上之前的化验单\n\n"
                 "2026-11-29 09:10:00 李娜\n[图片]\n\n"
                 "2026-11-29 09:11:30 李娜\n这是上次的化验单\n\n")
# MemoTrace 'export CSV' (utf-8-sig): a message a row, a system message (Type 10000) and a reply's card (49/57) too
MEMOTRACE_CSV = ("\ufefflocalId,TalkerId,Type,SubType,IsSender,CreateTime,Status,StrContent,StrTime,Remark,NickName,"
                 "Sender\r\n"
                 "1,5,1,0,0,1795878131,2,李女士您好，血压复查安排在下周三上午,2026-11-28 15:02:11,王医生,Dr Wang,"
                 "wxid_wang01\r\n"
                 "2,5,1,0,1,1795878340,2,\"好的，需要空腹吗？\n我早上一般要吃降压药\",2026-11-28 15:05:40,,李娜,"
                 "wxid_lina88\r\n"
                 "3,5,10000,0,0,1795878362,4,\"\"\"王医生\"\"撤回了一条消息\",2026-11-28 15:06:02,王医生,Dr Wang,"
                 "wxid_wang01\r\n"
                 "4,5,3,0,1,1795943400,2,,2026-11-29 09:10:00,,李娜,wxid_lina88\r\n"
                 "5,5,49,57,0,1795943500,2,,2026-11-29 09:11:40,王医生,Dr Wang,wxid_wang01\r\n")
# WeChat's merged forwarded chat (合并转发), copied and pasted into a note: its title, then a head and text each
MERGED = ("王医生和李娜的聊天记录\n王医生 2026-11-28 15:02\n李女士您好，血压复查安排在下周三上午\n"
          "李娜 2026-11-28 15:05\n好的，需要空腹吗？\n王医生 2026-11-29 09:10\n不需要空腹\n")
DAY_ONE = "Saturday 28 November 2026\n王医生: 李女士您好，血压复查安排在下周三上午\n李娜: 好的，需要空腹吗？"


def _sections(doc):
    return [(s.heading_path, s.text, s.start_line, s.end_line) for s in doc.sections]


def test_wechat_chats_exported_as_text_are_conversations_a_day_a_section():
    txt = parse_file("王医生.txt", MEMOTRACE_TXT.encode())
    assert _sections(txt) == [
        (["王医生 · 2026-11-28"], DAY_ONE + "\n我早上一般要吃降压药\n王医生: 不需要空腹，药照常吃，带上之前的化验单", 1, 12),
        (["王医生 · 2026-11-29"], "Sunday 29 November 2026\n李娜: [图片]\n李娜: 这是上次的化验单", 13, 18)]
    assert [s.dated for s in txt.sections] == [datetime(2026, 11, 28, 15, 2, 11).timestamp(),
                                               datetime(2026, 11, 29, 9, 10).timestamp()]
    assert txt.meta["chat_export"] == "a WeChat chat export (MemoTrace TXT)" and txt.meta["speakers"] == ["王医生", "李娜"]
    table = parse_file("王医生_utf8.csv", MEMOTRACE_CSV.encode())
    assert _sections(table) == [(["王医生 · 2026-11-28"], DAY_ONE + "\n我早上一般要吃降压药", 2, 5),
                                (["王医生 · 2026-11-29"], "Sunday 29 November 2026\n李娜: [图片]\n王医生: [回复]", 6, 7)]
    assert table.meta["chat_export"] == "a WeChat chat export (MemoTrace CSV)"
    merged = parse_file("病历/复查.txt", MERGED.encode())
    assert _sections(merged) == [(["复查 · 2026-11-28"], DAY_ONE, 2, 5),
                                 (["复查 · 2026-11-29"], "Sunday 29 November 2026\n王医生: 不需要空腹", 6, 7)]
    assert merged.sections[0].dated == datetime(2026, 11, 28, 15, 2).timestamp()


def test_logs_tables_and_notes_that_look_alike_stay_as_they_were():
    log = "2026-11-28 15:02:11 INFO started\n2026-11-28 15:02:12 INFO listening\n\n2026-11-28 15:03:00 WARN slow\nq\n"
    spaced = "2026-11-28 15:02:11 INFO started\nport 80\n\n2026-11-28 15:03:00 ERROR stopped\nport 80\n"
    one_person = "王医生 2026-11-28 15:02\n查房记录\n王医生 2026-11-29 09:10\n复查\n"  # a doctor's own dated notes
    for name, text in (("app.txt", log), ("app.txt", spaced), ("查房.txt", one_person)):
        assert "chat_export" not in parse_file(name, text.encode()).meta, name
    rows = "localId,Type,StrContent\n1,1,你好\n"
    assert "chat_export" not in parse_file("other.csv", rows.encode()).meta


def test_a_wechat_speaker_is_an_author_and_read_file_shows_a_day(immediate, sift_env, tmp_path, monkeypatch):
    from mcp_server import reading
    from mcp_server.service import Sift
    from search.query.engine import Engine
    from search.query.filters import Filters
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "chats", {"王医生.txt": MEMOTRACE_TXT, "复查.txt": MERGED})
    (root / "王医生_utf8.csv").write_text(MEMOTRACE_CSV, encoding="utf-8", newline="")
    assert ingest(root, "chats")["published"]["failures"] == []
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    def days(author):  # the days of the chat in whose passages '化验单' stands and ``author`` spoke
        hits = engine.search("化验单", mode="keyword", limit=20, filters=Filters(author=author)).hits
        return sorted((hit.path, hit.heading_path) for hit in hits)
    assert days("李娜") == [("王医生.txt", "王医生 · 2026-11-28"), ("王医生.txt", "王医生 · 2026-11-29")]
    assert days("王医生") == [("王医生.txt", "王医生 · 2026-11-28")]  # not the 29th: 李娜 alone spoke then
    shown, _ = reading.read(Sift(load()), "chats/王医生_utf8.csv", None, None, None, heading="2026-11-29")
    assert "(lines 6-7 of 7)" in shown and "2026-11-29 09:10:00,,李娜" in shown and "血压" not in shown, shown

WHATSAPP_ZH = ("2026/11/28 下午3:02 - 消息和通话已进行端到端加密。\n"
               "2026/11/28 下午3:02 - 王医生: 血压复查安排在下周三\n"
               "2026/11/28 下午3:05 - 李娜: 好的，需要空腹吗？\n"
               "2026/11/29 上午9:10 - 王医生: 不需要空腹，带上之前的化验单\n")


def test_a_zipped_whatsapp_chat_named_in_chinese_is_read_by_its_first_lines(tmp_path):
    root = tmp_path / "chats"
    root.mkdir()
    with zipfile.ZipFile(root / "与王医生的 WhatsApp 聊天.zip", "w") as z:
        z.writestr("与王医生的 WhatsApp 聊天.txt", WHATSAPP_ZH)
        z.writestr("IMG-20261128-WA0001.jpg", b"\xff\xd8\xff\xe0")
    with zipfile.ZipFile(root / "notes.zip", "w") as z:  # a zip of other text is still no chat
        z.writestr("readme.txt", "2026/11/28 the plan: read this first\nthen that\n")
    assert why_not_indexed(root, "与王医生的 WhatsApp 聊天.zip") is None
    assert why_not_indexed(root, "notes.zip").startswith("a kind Sift does not read")
    read = read_and_parse(root, "与王医生的 WhatsApp 聊天.zip")
    assert read.kind == "note" and read.doc.meta["chat_export"] == "a WhatsApp chat export, zipped", read
    assert [(s.heading_path, s.text) for s in read.doc.sections] == [
        (["与王医生的 WhatsApp 聊天 · 2026-11-28"], "Saturday 28 November 2026\n王医生: 血压复查安排在下周三\n"
                                                  "李娜: 好的，需要空腹吗？"),
        (["与王医生的 WhatsApp 聊天 · 2026-11-29"], "Sunday 29 November 2026\n王医生: 不需要空腹，带上之前的化验单")]
    assert read.doc.sections[0].dated == datetime(2026, 11, 28, 15, 2).timestamp()
