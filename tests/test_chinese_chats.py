"""Chats a Chinese user has (ingest.chat): WhatsApp's export zipped by a phone set to Chinese, whose chat file is
named in Chinese ('与王医生的 WhatsApp 聊天.txt'), was a .zip Sift does not read: only '_chat.txt' or 'WhatsApp
Chat*.txt' were looked for. A zip's chat is told by its first lines now, whatever its name."""
from __future__ import annotations

import zipfile
from datetime import datetime

from ingest.discover import why_not_indexed
from ingest.files import read_and_parse

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
