"""Whether a ``From:`` line in a mail passage is a message's own head, as ingest.mail writes it, or the header block
Outlook writes above the message a reply quotes or a forward carries ('From: Carol Jones\\nSent: Monday, March 4,
2024 5:12 PM\\nTo: Bo\\nSubject: Budget'), which its text keeps (no '-----Original Message-----' line above it). A
long reply's passage cut at that block was credited to Carol: the author filter and a question naming her as its
writer found Bo's words as hers. Such a passage is its message's, as any passage without a head is."""
from __future__ import annotations

import re

# the line after a quoted From line: Outlook's 'Sent:' (in the languages it writes it), or Outlook for Mac's
# 'Date: Monday, 4 March 2024 at 17:12'. ingest.mail's own head writes no Sent line, and its Date line names the
# day without a comma ('Date: Monday 4 March 2024 17:12'), after the To and Cc lines besides
QUOTED_NEXT = re.compile(r"[ \t]*(?:Sent|Gesendet|Envoyé|Enviado(?: el)?|Inviato|Verzonden|Skickat|Sendt|Lähetetty"
                         r"|Wysłano|Odesláno|Отправлено|发送时间|發送時間|寄件日期|送信日時)[ \t]*[:：]"
                         r"|Date:[ \t]*(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday),", re.IGNORECASE)


def quoted_head(text: str, end: int) -> bool:
    """Whether the From line of ``text`` ending at ``end`` heads a quoted message (Outlook's block), not its own."""
    return QUOTED_NEXT.match(text, end + 1) is not None if text[end:end + 1] == "\n" else False
