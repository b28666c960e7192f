"""WeChat exports (ingest.wechat) and chats in other encodings (ingest.chat): what MemoTrace's CSV carries of a
reply, and a zipped chat written in GBK, read as a file on disk is."""
from __future__ import annotations

import zipfile

from ingest.discover import why_not_indexed
from ingest.files import read_and_parse
from ingest.parse import parse_file

CSV_HEAD = "\ufefflocalId,TalkerId,Type,SubType,IsSender,CreateTime,Status,StrContent,StrTime,Remark,NickName,Sender\r\n"


def test_a_memotrace_csv_reply_is_read_as_who_replied_and_when():
    """A reply (Type 49, SubType 57) has its words in CompressContent, which MemoTrace's CSV does not write: its row
    was left out, and a day its speaker only replied on had no message of theirs (the author filter missed them).
    It is read as what the row carries: who replied, when, '[回复]'."""
    text = (CSV_HEAD + "1,5,1,0,1,1795878340,2,化验单发您了,2026-11-28 15:05:40,,李娜,wxid_lina88\r\n"
            "2,5,49,57,0,1795943500,2,,2026-11-29 09:11:40,王医生,Dr Wang,wxid_wang01\r\n")
    doc = parse_file("王医生_utf8.csv", text.encode())
    assert [(s.heading_path, s.text, s.start_line) for s in doc.sections] == [
        (["王医生 · 2026-11-28"], "Saturday 28 November 2026\n李娜: 化验单发您了", 2),
        (["王医生 · 2026-11-29"], "Sunday 29 November 2026\n王医生: [回复]", 3)]
    assert doc.meta["speakers"] == ["李娜", "王医生"]


WHATSAPP_ZH = ("2026/11/28 下午3:02 - 王医生: 血压复查安排在下周三\n"
               "2026/11/28 下午3:05 - 李娜: 好的，需要空腹吗？\n")


def test_a_zipped_chat_in_gbk_is_read_as_the_file_unzipped_is(tmp_path):
    """A zip's chat was told by its first bytes decoded as UTF-8 with replacement: a GBK chat's names were marks,
    no line read as a message's head, and the zip was a kind Sift does not read, where the same .txt unzipped is a
    chat (ingest.decode reads GBK). Its first bytes are decoded as the file's are now."""
    root = tmp_path / "chats"
    root.mkdir()
    with zipfile.ZipFile(root / "与王医生的 WhatsApp 聊天.zip", "w") as z:
        z.writestr("与王医生的 WhatsApp 聊天.txt", WHATSAPP_ZH.encode("gbk"))
    (root / "unzipped.txt").write_bytes(WHATSAPP_ZH.encode("gbk"))
    assert parse_file("unzipped.txt", WHATSAPP_ZH.encode("gbk")).meta["chat_export"]
    assert why_not_indexed(root, "与王医生的 WhatsApp 聊天.zip") is None
    read = read_and_parse(root, "与王医生的 WhatsApp 聊天.zip")
    assert read.doc.meta["chat_export"] == "a WhatsApp chat export, zipped", read
    assert [s.text for s in read.doc.sections] == [
        "Saturday 28 November 2026\n王医生: 血压复查安排在下周三\n李娜: 好的，需要空腹吗？"]
