"""WeChat exports (ingest.wechat) and chats in other encodings (ingest.chat): what MemoTrace's CSV carries of a
reply, and a zipped chat written in GBK, read as a file on disk is."""
from __future__ import annotations

import zipfile
from datetime import datetime

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


def _stamp(*when) -> int:
    return int(datetime(*when).timestamp())  # the exporting machine's local time, as MemoTrace's page shows it


# MemoTrace's 'export HTML' (LC044/WeChatMsg app/util/exporter/exporter_html.py): its template.html (styles left out
# here) cut at '/*注意看这是分割线*/', the contact's remark as title, then a message a JavaScript object, each written
# without a line break after it (text, pictures, replies), its strings escaped for HTML then for JavaScript
MEMOTRACE_HTML = (
    '<!DOCTYPE html>\n<html lang="zh-CN">\n<head>\n    <meta charset="UTF-8">\n    <style>\n.bubble {\n    '
    'white-space: pre-wrap;\n}\n</style>\n    <title>王医生</title>\n</head>\n<body>\n<div class="page">\n'
    '    <div class="side-bar"></div>\n    <div class="mid-bar"></div>\n    <div class="main-body">\n'
    '        <div class="title-bar"><p id="title">王医生</p></div>\n        <div class="container">\n'
    '            <div class="content" id="chat-container" onscroll="checkScroll()">\n'
    '                <div class="item item-center">\n                    <span>错误提示</span>\n'
    '                </div>\n                <div class="item item-left">\n'
    '                    <div class="bubble bubble-left">很抱歉，由于程序出现未知错误，您的聊天记录未能成功展示。\n'
    '                    </div>\n                </div>\n            </div>\n        </div>\n    </div>\n</div>\n'
    '<script>\nconst chatMessages = [\n'
    f"{{ type:1, text: '李女士您好，血压复查安排在下周三上午',is_send:0,avatar_path:'https://wx.qlogo.cn/mmhead/a/132',"
    f"timestamp:{_stamp(2026, 11, 28, 15, 2, 11)},is_chatroom:0,displayname:'王医生'}},"
    f"{{ type:1, text: '好的，需要空腹吗？\\n血压 &lt; 140 时\\'早上\\'一般要吃降压药',is_send:1,avatar_path:'',"
    f"timestamp:{_stamp(2026, 11, 28, 15, 5, 40)},is_chatroom:0,displayname:'李娜'}},"
    f"{{ type:0, text: '\\\"王医生\\\"撤回了一条消息',is_send:0,avatar_path:'',"
    f"timestamp:{_stamp(2026, 11, 28, 15, 6, 2)},is_chatroom:0,displayname:''}},"
    f"{{ type:3, text: './image/2026-11/5f3a.jpg',is_send:1,avatar_path:'',"
    f"timestamp:{_stamp(2026, 11, 29, 9, 10)},is_chatroom:0,displayname:'李娜'}},"
    f"{{ type:49, text: '化验单收到了，指标正常',is_send:0,sub_type:57,refer_text: '李娜：[图片]',avatar_path:'',"
    f"timestamp:{_stamp(2026, 11, 29, 9, 11, 40)},is_chatroom:0,displayname:'王医生'}},"
    "\n];\n\n</script>\n<script>\nconst chatContainer = document.getElementById('chat-container');\n</script>\n"
    "</body>\n</html>\n")


def test_a_memotrace_html_export_is_read_as_its_conversation(tmp_path):
    """MemoTrace's HTML export was read as a web page: its template's error text ('很抱歉，由于程序出现未知错误…'),
    its messages (in its script) not at all. It is the chat now, as the TXT and CSV exports are: a day a section,
    who said what, a picture named, a reply with the words it quotes; a system message left out."""
    from ingest.chat import chat_headings
    doc = parse_file("王医生.html", MEMOTRACE_HTML.encode())
    assert doc.meta["chat_export"] == "a WeChat chat export (MemoTrace HTML)", doc.meta
    assert [(s.heading_path, s.text) for s in doc.sections] == [
        (["王医生 · 2026-11-28"], "Saturday 28 November 2026\n王医生: 李女士您好，血压复查安排在下周三上午\n"
                                 "李娜: 好的，需要空腹吗？\n血压 < 140 时'早上'一般要吃降压药"),
        (["王医生 · 2026-11-29"], "Sunday 29 November 2026\n李娜: [图片]\n王医生: 化验单收到了，指标正常\n引用:李娜：[图片]")]
    assert doc.sections[0].dated == datetime(2026, 11, 28, 15, 2, 11).timestamp()
    assert doc.meta["speakers"] == ["王医生", "李娜"]
    (tmp_path / "王医生.html").write_text(MEMOTRACE_HTML, encoding="utf-8")
    assert [heading for heading, _, _ in chat_headings("王医生.html", tmp_path / "王医生.html")] == [
        "王医生 · 2026-11-28", "王医生 · 2026-11-29"]


def test_a_memotrace_html_export_of_many_messages_is_read_though_they_are_one_line(tmp_path):
    """MemoTrace writes a message's object with no line break after it: 6,000 messages are a line of over a million
    characters, which skipped the page as 'a data dump, encoded blob or minified text, not prose'."""
    one = (f"{{ type:1, text: '血压复查安排在下周三上午，请带上之前的化验单和用药记录，谢谢',is_send:0,"
           f"avatar_path:'https://wx.qlogo.cn/mmhead/ver_1/0123456789abcdef0123456789abcdef/132',"
           f"timestamp:{_stamp(2026, 11, 28, 15, 2, 11)},is_chatroom:0,displayname:'王医生'}},")
    page = MEMOTRACE_HTML.replace("const chatMessages = [\n", "const chatMessages = [\n" + one * 6000)
    assert max(len(line) for line in page.split("\n")) > 1_000_000
    doc = parse_file("王医生.html", page.encode())
    assert doc.meta["messages"] == 6004 and doc.meta["days"] == 2, doc.meta
    from ingest.chat import chat_headings
    (tmp_path / "王医生.html").write_text(page, encoding="utf-8")
    assert [heading for heading, _, _ in chat_headings("王医生.html", tmp_path / "王医生.html")] == [
        "王医生 · 2026-11-28", "王医生 · 2026-11-29"]


def test_a_memotrace_pages_hit_reads_its_days_messages_not_the_whole_chat(immediate, tmp_path, monkeypatch):
    """MemoTrace's page holds its messages on one line: every day's passage was at that line, and read_file of a hit
    (or heading=) showed the whole chat, every day of it, in its script's JavaScript. A hit's lines are its day's
    messages now, read_file showing them as read, a day's heading then a line a message, as a zipped chat's."""
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    from tests.conftest import ingest, write_tree
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "chats", {"王医生.html": MEMOTRACE_HTML})
    assert ingest(root, "chats")["published"]["failures"] == []
    tools = Tools(Sift(load()))
    hit = tools.search(query="化验单收到了", mode="keyword").structured_content["results"][0]
    assert hit["path"] == "chats/王医生.html", hit
    read = tools.read_file(path="chats/王医生.html", start_line=hit["start_line"], end_line=hit["end_line"])
    text = read.content[0].text
    assert "王医生: 化验单收到了，指标正常" in text and "李娜: [图片]" in text, text
    assert "血压复查" not in text and "chatMessages" not in text and "timestamp" not in text, text
    day = tools.read_file(path="chats/王医生.html", heading="王医生 · 2026-11-28").content[0].text
    assert "李娜: 好的，需要空腹吗？" in day and "化验单收到了" not in day, day
    whole = tools.read_file(path="chats/王医生.html").content[0].text
    assert whole.index("王医生 · 2026-11-28") < whole.index("王医生 · 2026-11-29"), whole
    assert whole.endswith("[a WeChat chat exported by MemoTrace as a web page: its messages as Sift reads them, "
                          "a day's heading then its messages, a line each]"), whole

JOURNAL = ("2026-11-28 09:00:00 Standup\nThe release slipped a day; Alice takes the migration.\n\n"
           "2026-11-28 14:30:00 Design review\nThe cache stays; the queue moves to huey.\n\n"
           "2026-11-29 09:00:00 Retro\nFewer meetings, longer focus blocks.\n\n"
           "2026-11-30 17:45:00 Planning\nThe billing export first, then the on-call rota.\n")


def test_a_journal_of_timestamped_titled_entries_is_no_memotrace_chat():
    """A .txt journal whose entries open '2026-11-28 09:00:00 Standup' (time, title, text below, a blank line) was
    read as a MemoTrace TXT chat, each title a speaker. MemoTrace writes no header; its speakers repeat, a
    journal's titles do not. A chat of one speaker (the File Transfer chat) is still one."""
    journal = parse_file("journal.txt", JOURNAL.encode())
    assert "chat_export" not in journal.meta and "speakers" not in journal.meta, journal.meta
    assert "Standup" in journal.sections[0].text
    alone = ("2026-11-28 09:00:37 李娜\n体检报告.pdf\n\n2026-11-28 09:01:10 李娜\n[图片]\n\n"
             "2026-11-29 10:00:52 李娜\n记得带化验单\n")
    chat = parse_file("文件传输助手.txt", alone.encode())
    assert chat.meta["chat_export"] == "a WeChat chat export (MemoTrace TXT)" and chat.meta["speakers"] == ["李娜"]


STANDUPS = ("2026-11-23 09:00:00 Standup\nAlice: the migration dry run passed on staging.\n\n"
            "2026-11-24 09:00:00 Standup\nBen is out; the billing export waits for him.\n\n"
            "2026-11-24 16:30:00 Design review\nThe cache stays; the queue moves to huey.\n\n"
            "2026-11-25 09:15:00 Standup\nThe release slipped a day: the certificate expired.\n\n"
            "2026-11-26 09:00:00 Standup\nThe release went out at 11:40.\n\n"
            "2026-11-27 09:00:00 Standup\nOn-call rota for December agreed.\n")


def test_a_journal_whose_title_repeats_is_no_memotrace_chat():
    """A journal whose entries are titled 'Standup' most days passed the speakers' test (its titles repeat as a
    chat's speakers do) and was a chat, 'Standup' its speaker (the author filter found it). Its times are a
    person's, whole minutes; a chat's are the second each message was sent. A chat whose messages were sent on
    the minute now and then is still one."""
    journal = parse_file("standups.txt", STANDUPS.encode())
    assert "chat_export" not in journal.meta and "speakers" not in journal.meta, journal.meta
    assert "2026-11-23 09:00:00 Standup" in journal.sections[0].text
    chat = STANDUPS.replace("Standup", "王医生").replace("Design review", "李娜")
    chat = chat.replace("09:00:00 王医生\nBen", "09:00:41 王医生\nBen").replace("16:30:00", "16:30:07")
    chat = chat.replace("09:15:00", "09:15:26")  # three of six on the minute: a chat still
    doc = parse_file("王医生.txt", chat.encode())
    assert doc.meta["chat_export"] == "a WeChat chat export (MemoTrace TXT)" and doc.meta["messages"] == 6, doc.meta

def test_a_memotrace_head_of_a_date_that_is_none_is_text_not_a_failure():
    """A head line dated 2026-02-30 (a hand-edited export, a note of that shape) raised ValueError in strptime and
    the file failed to index; it is the text of the message above now, as a merged chat's is."""
    text = ("2026-11-28 15:02:11 王医生\n你好\n\n2026-11-28 15:05:40 李娜\n好的\n\n2026-11-28 15:06:40 王医生\n明天见\n\n"
            "2026-02-30 15:02:11 李娜\n收到\n")
    doc = parse_file("王医生.txt", text.encode())
    assert doc.meta["messages"] == 3 and "2026-02-30 15:02:11 李娜\n收到" in doc.sections[-1].text, doc.sections
    odd = parse_file("notes.txt", ("2026-02-30 15:02:11 王医生\n你好\n\n" + text).encode())
    assert "chat_export" not in odd.meta and odd.sections[0].text.startswith("2026-02-30"), odd.meta


def test_a_zipped_memotrace_export_is_read_as_its_chats(tmp_path):
    """MemoTrace's export is shared zipped (its folder, '聊天记录/王医生/王医生.txt' with '王医生_utf8.csv' beside it
    and its pictures): the zip was a kind Sift does not read, where each file unzipped is a chat. It is read as one
    file of its chats now, a chat's TXT where its CSV is beside it (once), another chat's CSV alone too."""
    root = tmp_path / "chats"
    root.mkdir()
    txt = ("2026-11-28 15:02:11 王医生\n李女士您好，血压复查安排在下周三上午\n\n"
           "2026-11-28 15:05:40 李娜\n好的，需要空腹吗？\n\n2026-11-29 09:11:30 王医生\n不需要空腹，带上之前的化验单\n\n")
    csv_text = (CSV_HEAD + "1,5,1,0,1,1795878340,2,化验单发您了,2026-11-28 15:05:40,,李娜,wxid_lina88\r\n"
                "2,5,1,0,0,1795943500,2,收到,2026-11-29 09:11:40,张医生,Dr Zhang,wxid_zhang01\r\n")
    with zipfile.ZipFile(root / "聊天记录.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("聊天记录/王医生/王医生.txt", txt.encode("gbk"))
        z.writestr("聊天记录/王医生/王医生_utf8.csv", csv_text.encode())
        z.writestr("聊天记录/王医生/image/5f3a.jpg", b"\xff\xd8\xff\xe0" + bytes(64))
        z.writestr("聊天记录/张医生/张医生_utf8.csv", csv_text.encode())
        z.writestr("聊天记录/说明.txt", "导出说明：用留痕导出\n".encode())
    assert why_not_indexed(root, "聊天记录.zip") is None
    read = read_and_parse(root, "聊天记录.zip")
    assert read.doc.meta["chat_export"] == "a WeChat chat export, zipped", read
    assert [(s.heading_path, s.text) for s in read.doc.sections] == [
        (["张医生 · 2026-11-28"], "Saturday 28 November 2026\n李娜: 化验单发您了"),
        (["张医生 · 2026-11-29"], "Sunday 29 November 2026\n张医生: 收到"),
        (["王医生 · 2026-11-28"], "Saturday 28 November 2026\n王医生: 李女士您好，血压复查安排在下周三上午\n李娜: 好的，需要空腹吗？"),
        (["王医生 · 2026-11-29"], "Sunday 29 November 2026\n王医生: 不需要空腹，带上之前的化验单")]
    with zipfile.ZipFile(root / "王医生.zip", "w") as z:
        z.writestr("王医生.txt", txt.encode())
    assert read_and_parse(root, "王医生.zip").doc.meta["chat_export"] == "a WeChat chat export (MemoTrace TXT), zipped"


def _png(rgb: tuple[int, int, int]) -> bytes:
    """A 4x4 PNG of one colour: an avatar's picture."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\0" + bytes(rgb) * 4 for _ in range(4))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def _memotrace_docx(said: list) -> bytes:
    """A .docx as MemoTrace's DocxExporter writes one (LC044/WeChatMsg exporter_docx.py): a centred time where five
    minutes passed, a message a 1x2 table of its avatar and its text (the avatar right, the table set right, for
    one sent), an empty paragraph after it; a system message a centred paragraph. ``said``: (time or None, who
    ('me', or an avatar's colour name), text or None for a picture, or ('system', text))."""
    import io
    import docx
    from docx import shared
    from docx.enum.text import WD_PARAGRAPH_ALIGNMENT
    from docx.oxml.ns import qn
    avatars = {"me": _png((40, 120, 200)), "wang": _png((200, 60, 60)), "zhang": _png((60, 160, 60))}
    doc = docx.Document()
    doc.styles["Normal"].font.name = "Cambria"
    doc.styles["Normal"]._element.rPr.rFonts.set(qn("w:eastAsia"), "宋体")
    for when, who, text in said:
        if when:
            doc.add_paragraph(when).alignment = WD_PARAGRAPH_ALIGNMENT.CENTER
        if who == "system":
            doc.add_paragraph(text).alignment = WD_PARAGRAPH_ALIGNMENT.CENTER
            continue
        table = doc.add_table(rows=1, cols=2, style="Normal Table")
        sent = who == "me"
        if sent:
            table.alignment = WD_PARAGRAPH_ALIGNMENT.RIGHT
        table.cell(0, 1 if sent else 0).paragraphs[0].add_run().add_picture(
            io.BytesIO(avatars[who]), width=shared.Inches(0.5))
        content = table.cell(0, 0 if sent else 1)
        if text is None:
            content.paragraphs[0].add_run().add_picture(io.BytesIO(_png((250, 250, 250))), height=shared.Inches(2))
        else:
            first, *quoted = text.split("\n")
            content.paragraphs[0].add_run(first)
            for line in quoted:  # a reply's quote, a paragraph of its own
                content.add_paragraph().add_run(line)
        doc.add_paragraph()
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()


DOCX_CHAT = [("2026-11-28 15:02:11", "wang", "李女士您好，血压复查安排在下周三上午"),
             (None, "me", "好的，需要空腹吗？"), (None, "system", "你撤回了一条消息"),
             (None, "wang", "不需要空腹，药照常吃，带上之前的化验单"),
             ("2026-11-29 09:10:00", "me", None), (None, "me", "这是上次的化验单"),
             (None, "wang", "收到，指标正常\n李娜:这是上次的化验单"), (None, "wang", "【语音】")]


def test_a_memotrace_word_export_is_read_as_its_conversation(tmp_path):
    """MemoTrace's Word export was read as a document: a line of each message's text, no speaker, no day but a
    centred time now and then. It is its chat now, a day a section (read_file showing a day's heading, then a
    line a message), who said it by the side its avatar is on: me ('我') for a message sent, the chat's name
    (the file's, '王医生_1.docx' of its first 200 messages) for one received; a picture named, a system message
    left out. A group's members, their avatars differing, are '?'; any other .docx of tables is a document."""
    from ingest.word import word_lines
    data = _memotrace_docx(DOCX_CHAT)
    doc = parse_file("聊天记录/王医生/王医生_1.docx", data)
    assert doc.meta["chat_export"] == "a WeChat chat export (MemoTrace Word)", doc.meta
    assert [(s.heading_path, s.text) for s in doc.sections] == [
        (["王医生 · 2026-11-28"], "Saturday 28 November 2026\n王医生: 李女士您好，血压复查安排在下周三上午\n"
                                 "我: 好的，需要空腹吗？\n王医生: 不需要空腹，药照常吃，带上之前的化验单"),
        (["王医生 · 2026-11-29"], "Sunday 29 November 2026\n我: [图片]\n我: 这是上次的化验单\n"
                                 "王医生: 收到，指标正常\n李娜:这是上次的化验单\n王医生: 【语音】")]
    assert doc.meta["speakers"] == ["王医生", "我"]
    assert doc.sections[1].dated == datetime(2026, 11, 29, 9, 10).timestamp()
    lines = word_lines(data, "王医生_1.docx")
    assert lines[doc.sections[1].start_line - 2:doc.sections[1].end_line] == [
        "王医生 · 2026-11-29", *doc.sections[1].text.split("\n")], lines
    later = parse_file("王医生_2.docx", _memotrace_docx([(None, "wang", "下周三见"), DOCX_CHAT[4], DOCX_CHAT[5]]))
    assert [s.text for s in later.sections] == [  # its first message within five minutes of the file before's last
        "Sunday 29 November 2026\n王医生: 下周三见\n我: [图片]\n我: 这是上次的化验单"], later.sections
    group = parse_file("家庭群_1.docx", _memotrace_docx([*DOCX_CHAT[:2], (None, "zhang", "我也去")]))
    assert group.meta["speakers"] == ["?", "我"], group.meta
    import docx as python_docx
    import io
    other = python_docx.Document()
    other.add_paragraph("2026-11-28 15:02:11")
    for _ in range(2):
        other.add_table(rows=1, cols=2).cell(0, 1).text = "Budget"
    out = io.BytesIO()
    other.save(out)
    assert "chat_export" not in parse_file("minutes.docx", out.getvalue()).meta
