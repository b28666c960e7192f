"""A generated mail archive (bench/mail.py, tests/test_mail.py): saved messages as .eml files and a Google Takeout
style .mbox, English and Chinese, some HTML-only, some replies quoting the message before them, in the charsets
and transfer encodings mail clients write (UTF-8, GBK, ISO-8859-1, windows-1252; quoted-printable, base64, 8bit).

Each message is (key, sender, recipient, date, subject, body, how): ``how`` names its form ('html' for an HTML-only
body, 'gbk' / 'latin' / 'cp1252' for its charset, 'b64' for base64, 'pdf' for an attachment). A reply's body quotes
the message it answers, as a mail client does. QUESTIONS pairs a question with the keys of the messages that answer it.
"""
from __future__ import annotations

from email.message import EmailMessage
from email.utils import format_datetime, parsedate_to_datetime
from pathlib import Path

ANNA, BO, CHEN, DIETER = ("Anna Keller <anna@keller.example>", "Bo Lindqvist <bo@lindqvist.example>",
                          "陈静 <chen.jing@example.cn>", "Dieter Groß <dieter@gross.example>")
ME, LI, MARIA = "Sam Taylor <sam@taylor.example>", "李伟 <li.wei@example.cn>", "María Núñez <maria@nunez.example>"
SHOP, BANK, AIRLINE = ("Orders <orders@bookshop.example>", "Northbank <alerts@northbank.example>",
                       "SkyWays <noreply@skyways.example>")

MESSAGES = [
    ("invoice", ANNA, ME, "Tue, 05 Mar 2024 09:12:00 +0100", "Invoice 4471 for the kitchen renovation",
     "Hi Sam,\n\nplease find attached invoice 4471 for the kitchen renovation: cabinets, worktop and fitting, "
     "2,340 euros in total. Payment within 30 days to the account on the invoice.\n\nBest,\nAnna\n\n-- \n"
     "Anna Keller Interiors\nPhone +49 30 1234567\n", "pdf"),
    ("invoice-reply", ME, ANNA, "Wed, 06 Mar 2024 18:40:00 +0000", "Re: Invoice 4471 for the kitchen renovation",
     "Thanks Anna, I paid it today by bank transfer.\n\nSam\n", "reply:invoice"),
    ("invoice-reminder", ANNA, ME, "Mon, 08 Apr 2024 08:00:00 +0200", "Reminder: invoice 4471",
     "Hello Sam, a friendly reminder that the second instalment for the worktop is due next week.\n", ""),
    ("boat", BO, ME, "Sat, 18 May 2024 11:05:00 +0200", "Sailing weekend at the lake",
     "We are taking the boat out on Saturday the 25th. Bring a windbreaker and sunscreen; we leave the harbour "
     "at nine.\n", "latin"),
    ("boat-reply", ME, BO, "Sat, 18 May 2024 15:30:00 +0000", "Re: Sailing weekend at the lake",
     "Count me in, I will bring sandwiches.\n", "reply:boat"),
    ("dentist", "Smile Dental <info@smiledental.example>", ME, "Thu, 11 Jan 2024 10:00:00 +0000",
     "Your appointment on 23 January",
     "<html><body><h1>Appointment confirmed</h1><p>Dear Sam, your dental check-up with Dr. Patel is on "
     "<b>23 January at 14:30</b>. Please arrive ten minutes early.</p><p>To cancel, call us 24 hours before.</p>"
     "</body></html>", "html"),
    ("flight", AIRLINE, ME, "Fri, 02 Aug 2024 06:45:00 +0000", "Your booking ABX72Q: Berlin to Lisbon",
     "<html><body><table><tr><td>Booking reference</td><td>ABX72Q</td></tr><tr><td>Flight</td><td>SK 1841 "
     "Berlin BER 07:10 to Lisbon LIS 09:55</td></tr><tr><td>Date</td><td>14 September 2024</td></tr></table>"
     "<p>Online check-in opens 30 hours before departure.</p></body></html>", "html b64"),
    ("books", SHOP, ME, "Tue, 12 Nov 2024 13:20:00 +0000", "Your order has shipped",
     "Your order 88-1203 has shipped: 'The Overstory' by Richard Powers and 'Piranesi' by Susanna Clarke. "
     "Tracking number 1Z999AA10123456784.\n", "cp1252"),
    ("bank", BANK, ME, "Mon, 03 Jun 2024 07:00:00 +0000", "Unusual sign-in to your account",
     "We noticed a sign-in to your online banking from a new device in Porto. If this was not you, "
     "block your card in the app and call us.\n", "b64"),
    ("recipe", MARIA, ME, "Sun, 21 Jan 2024 19:10:00 +0100", "La receta de la paella",
     "Hola Sam, aquí va la receta: arroz bomba, azafrán, pimentón, judías verdes y garrofón. "
     "El sofrito lleva tomate rallado. ¡Que aproveche!\n", "latin"),
    ("thesis", DIETER, ME, "Wed, 10 Jul 2024 16:00:00 +0200", "Feedback on chapter 3 of the thesis",
     "Sam, I read chapter 3. The experiment on sensor drift needs a baseline without calibration, and Figure 3.4 "
     "should show error bars. Otherwise the argument about temperature compensation is convincing.\n"
     "Dieter\n", ""),
    ("thesis-reply", ME, DIETER, "Thu, 11 Jul 2024 09:00:00 +0000", "Re: Feedback on chapter 3 of the thesis",
     "Thank you, I will add it before the committee meeting.\n", "reply:thesis"),
    ("thesis-fwd", ME, ANNA, "Fri, 12 Jul 2024 10:00:00 +0000", "Fwd: Feedback on chapter 3 of the thesis",
     "FYI, the feedback I mentioned.\n\n-----Original Message-----\nFrom: Dieter Groß\nSent: 10 July 2024\n\n"
     "Sam, I read chapter 3. The experiment on sensor drift needs a baseline without calibration.\n", ""),
    ("lease", "Hausverwaltung Müller <info@hv-mueller.example>", ME, "Mon, 02 Sep 2024 09:00:00 +0200",
     "Mieterhöhung ab 1. Dezember",
     "Sehr geehrter Herr Taylor, gemäß Mietvertrag erhöht sich die Kaltmiete ab 1. Dezember um 45 Euro "
     "monatlich. Die neue Nebenkostenabrechnung folgt im Januar.\n", "latin"),
    ("meeting-zh", CHEN, ME, "Tue, 15 Oct 2024 09:30:00 +0800", "下周项目评审会议",
     "Sam你好，下周三上午十点在三楼会议室召开项目评审会议，请准备数据迁移方案的进展汇报，大约十五分钟。\n陈静\n", "gbk"),
    ("meeting-zh-reply", ME, CHEN, "Tue, 15 Oct 2024 11:00:00 +0000", "回复: 下周项目评审会议",
     "好的，我会准备好汇报。\n", "reply-zh:meeting-zh"),
    ("visa-zh", LI, ME, "Thu, 07 Mar 2024 14:00:00 +0800", "签证材料清单",
     "需要准备的签证材料：护照原件、两张白底证件照、银行流水六个月、在职证明和往返机票预订单。"
     "材料请在三月二十日前寄到北京的办公室。\n", "b64"),
    ("dinner-zh", LI, ME, "Fri, 20 Dec 2024 18:00:00 +0800", "周末聚餐",
     "<html><body><p>周六晚上七点在老地方吃火锅，记得带上你做的桂花糕。</p></body></html>", "html gbk"),
    ("report-zh", CHEN, ME, "Mon, 25 Nov 2024 10:00:00 +0800", "第三季度销售报告",
     "附件是第三季度的销售报告，华东区增长百分之十二，华南区持平，请在周五前给出意见。\n", "pdf gbk"),
    ("newsletter", "Garden Club <news@gardenclub.example>", ME, "Wed, 01 May 2024 08:00:00 +0000",
     "May newsletter: tomatoes and slugs",
     "This month: plant out tomatoes after the last frost, and protect lettuce from slugs with copper tape "
     "or beer traps. The seed swap is on the 18th at the community hall.\n", ""),
    ("car", "City Garage <service@citygarage.example>", ME, "Tue, 20 Feb 2024 12:00:00 +0000",
     "Your car service is due",
     "Your Volkswagen Golf (plate B-ST 2041) is due for its annual inspection and oil change. "
     "Book a slot online or reply to this mail.\n", ""),
    ("party", BO, ME, "Thu, 28 Nov 2024 20:00:00 +0100", "Birthday party for Elsa",
     "Elsa turns seven on 7 December! Party at our place from 3 pm, there will be a magician. "
     "No presents needed, but she loves puzzles.\n", "qp"),
    ("party-reply", ME, BO, "Fri, 29 Nov 2024 08:00:00 +0000", "Re: Birthday party for Elsa",
     "We'll be there, see you on the 7th.\n", "reply:party"),
    ("tax", "Steuerbüro Weber <kanzlei@weber.example>", ME, "Mon, 15 Apr 2024 09:00:00 +0200",
     "Tax return 2023: documents needed",
     "For your 2023 tax return we still need the annual statement from your pension fund, the receipts for "
     "the home office furniture and your health insurance certificate.\n", ""),
    ("broken", "someone@example", ME, "not a date at all", "=?UTF-8?B?broken===?= header",
     "This message has a broken date and a broken encoded subject, but its body about the garage door remote "
     "is still readable.\n", "badcharset"),
]

# (question, keys of the messages that answer it)
QUESTIONS = [
    ("mail from Anna about the invoice", ["invoice"]),
    ("how much was the kitchen renovation invoice", ["invoice"]),
    ("when is the dentist appointment", ["dentist"]),
    ("flight booking reference to Lisbon", ["flight"]),
    ("which books did I order", ["books"]),
    ("tracking number of the shipped order", ["books"]),
    ("sign-in from a new device bank warning", ["bank"]),
    ("paella recipe ingredients", ["recipe"]),
    ("Dieter's feedback on chapter 3", ["thesis", "thesis-reply"]),
    ("baseline without calibration sensor drift", ["thesis"]),
    ("rent increase in December", ["lease"]),
    ("Mieterhöhung", ["lease"]),
    ("项目评审会议在哪里", ["meeting-zh"]),
    ("签证需要哪些材料", ["visa-zh"]),
    ("周末聚餐吃什么", ["dinner-zh"]),
    ("第三季度销售报告", ["report-zh"]),
    ("when to plant out tomatoes", ["newsletter"]),
    ("car inspection and oil change", ["car"]),
    ("Elsa's birthday party", ["party"]),
    ("documents needed for the tax return", ["tax"]),
    ("sailing weekend what to bring", ["boat"]),
    ("mail from Bo about the boat", ["boat"]),
    ("garage door remote", ["broken"]),
    ("reminder about the second instalment", ["invoice-reminder"]),
    ("online check-in opens", ["flight"]),
    ("mail from March 2024 about the visa", ["visa-zh"]),
]

IN_MBOX = {"invoice-reply", "invoice-reminder", "boat", "boat-reply", "bank", "thesis", "thesis-reply",
           "thesis-fwd", "meeting-zh", "meeting-zh-reply", "dinner-zh", "newsletter", "car", "party", "party-reply",
           "tax", "broken"}


def message(key: str) -> bytes:
    """One message's bytes, as a mail client writes them."""
    _, sender, to, date, subject, body, how = next(m for m in MESSAGES if m[0] == key)
    if "badcharset" in how:  # as a broken client writes it: a date no parser reads, an encoded word that is not one
        return (f"From: {sender}\nTo: {to}\nDate: {date}\nSubject: {subject}\nMIME-Version: 1.0\n"
                f"Content-Type: text/plain; charset=bogus-charset-9\n\n{body}").encode()
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Date"], mail["Subject"] = sender, to, date, subject
    mail["Message-ID"] = f"<{key}@mail.example>"
    if how.startswith("reply"):
        quoted = next(m for m in MESSAGES if m[0] == how.split(":")[1])
        when = parsedate_to_datetime(quoted[3])
        intro = (f"在 {when:%Y年%m月%d日} {when:%H:%M}，{quoted[1].split(' <')[0]} 写道：" if how.startswith("reply-zh")
                 else f"On {format_datetime(when)}, {quoted[1].split(' <')[0]} wrote:")
        body += "\n" + intro + "\n" + "".join(f"> {line}\n" for line in quoted[5].rstrip("\n").split("\n"))
    charset = "gbk" if "gbk" in how else "iso-8859-1" if "latin" in how else "windows-1252" if "cp1252" in how \
        else "utf-8"
    cte = "base64" if "b64" in how else "quoted-printable" if "qp" in how or charset != "utf-8" else "8bit"
    subtype = "html" if "html" in how else "plain"
    mail.set_content(body.encode(charset), maintype="text", subtype=subtype, cte=cte)
    mail.set_param("charset", charset)
    if "pdf" in how:
        mail.add_attachment(b"%PDF-1.4\n% a stand-in\n" * 40, maintype="application", subtype="pdf",
                            filename="invoice-4471.pdf" if key == "invoice" else "第三季度销售报告.pdf")
    return bytes(mail)


def write(root: Path) -> int:
    """The archive under ``root``: each message not in the mbox as Mail/<key>.eml, the rest in Takeout's mbox."""
    (root / "Mail").mkdir(parents=True, exist_ok=True)
    takeout = root / "Takeout" / "Mail"
    takeout.mkdir(parents=True, exist_ok=True)
    mbox = []
    for key, *_ in MESSAGES:
        if key in IN_MBOX:
            data = message(key).replace(b"\nFrom ", b"\n>From ")
            mbox.append(b"From 1790000000000000000@xxx Thu Jan 01 00:00:00 +0000 2025\n" + data.rstrip(b"\n")
                        + b"\n\n")
        else:
            (root / "Mail" / f"{key}.eml").write_bytes(message(key))
    (takeout / "All mail Including Spam and Trash.mbox").write_bytes(b"".join(mbox))
    return len(MESSAGES)
