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


# the lines only ingest.mail's own head writes below its To and Cc lines: its Date line (the day without a comma,
# 'Date: Tuesday 5 March 2024 09:00', or the header as written where it is not a date), the message it replies to,
# Gmail's labels, the attachments; Outlook's block has none of them after its To line
OWN_HEAD_LINE = re.compile(r"(?:Date:(?![ \t]*(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday),)"
                           r"|In reply to:|Labels:|Attachments:)", re.IGNORECASE)
OUTLOOK_LINE = re.compile(r"(?:To|Cc|Subject|Date):[ \t]", re.IGNORECASE)
# 'To: Anna Keller; Bo …', 'To: Keller, Anna; Lind, Bo …': Outlook's list, its addresses joined by ';'
OUTLOOK_LIST = re.compile(r"(?:To|Cc):[ \t][^\n;]*;", re.IGNORECASE)


def inside_quoted_head(head: str, before: str = "") -> bool:
    """Whether a passage beginning ``head`` at a To, Cc, Subject or Date line begins inside Outlook's block above a
    quoted message (its lines down to the blank line are To, Cc and Subject, or Outlook for Mac's 'Date: Monday,
    …': the chunker cut the block after its From and Sent lines), not at the head of a message of no From line (a
    draft's: ingest.mail writes its Date line, 'In reply to', 'Labels' or 'Attachments' there). Such a passage
    named no sender, as a draft's does, however long the reply it is of. A head cut before its blank line (a To
    line of 30 people runs past search.index.author_reads.HEAD_CHARS, and past the passage) is Outlook's where its
    To or Cc line joins its addresses with ';', as Outlook for Windows writes them: ingest.mail's own joins them
    with ',' (ingest.mail._addresses). Such a passage, of a forward carrying a message sent to a team, and the ones
    after it named no sender: author='Bo' found none of his forward past it. Outlook for Mac joins them with ',' too:
    its block is told by ``before``, the end of the passage before (``block_runs_on``)."""
    block, blank, _ = head.partition("\n\n")
    lines = block.split("\n")
    if any(OWN_HEAD_LINE.match(line) for line in lines) \
            or not all(OUTLOOK_LINE.match(line) or line[:1] in " \t" for line in lines[:-1 if not blank else None]):
        return False
    return bool(blank) or any(OUTLOOK_LIST.match(line) for line in lines) or block_runs_on(before)


FROM_LINE = re.compile(r"(?m)^From:[ \t]*\S[^\n]*")
BEFORE_CHARS = 600  # of the passage before one begun at a long To line: the block's From and Date lines, its overlap


def cut_list(head: str) -> bool:
    """Whether a passage's head begins at a To or Cc line that runs past it (no blank line in it): a draft's own
    head or Outlook's block, told apart by the passage before (``block_runs_on``) where no ';' tells it."""
    return head[:4] in ("To: ", "Cc: ") and "\n\n" not in head


def block_runs_on(before: str) -> bool:
    """Whether ``before``, the end of the passage before, ends inside Outlook's block: its last From line is a
    quoted one (a Sent line, or Outlook for Mac's 'Date: Monday, …', after it) and no blank line follows it, so the
    passage after it goes on with the block's To line. A draft's own head follows its message before's blank line."""
    last = None
    for last in FROM_LINE.finditer(before):
        pass
    return last is not None and quoted_head(before, last.end()) and "\n\n" not in before[last.end():]
