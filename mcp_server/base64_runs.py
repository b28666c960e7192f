"""A mail file's attachments as read_file shows its lines: each run of base64 lines folded into one line naming it.

A message's attachment is in the file as base64, 76 characters a line: read_file of a message with a PDF attached
(by its Subject, or its thread: heading='thread: Budget') showed 40 KB of base64 and stopped there, the reply after
it not shown. A run of BASE64_RUN lines or more is one line now, its line numbers, its size and the attachment's name
(the `filename=` of the part header before it), and how to read what Sift read of it."""
from __future__ import annotations

import os
import re

BASE64_LINE = re.compile(r"[A-Za-z0-9+/]{40,}={0,2}")  # a full line of an encoded part
BASE64_LAST = re.compile(r"[A-Za-z0-9+/]+={0,2}")  # its shorter last line
BASE64_RUN = 4  # lines at least: a short run is shown as it is
FILENAME = re.compile(r"""\bfilename\*?=\s*(?:"([^"]+)"|(?:[\w-]+''|)([^;\s]+))""", re.IGNORECASE)
HEADER_LINES = 12  # of the part's header before a run, looked through for its file name


def is_mail_file(fd: int, relative: str) -> bool:
    """An .eml or .mbox, or a Thunderbird folder ('Inbox', no extension) that reads as a mailbox."""
    from ingest.kinds import MAIL_EXTENSIONS, SHEBANG_BYTES, is_mailbox, suffix
    ext = suffix(relative).lower()
    if ext:
        return ext in MAIL_EXTENSIONS
    try:
        return is_mailbox(os.pread(fd, SHEBANG_BYTES, 0))
    except OSError:
        return False


def folded(shown: list[tuple[int, str]]) -> list[str]:
    """read_file's numbered lines of ``shown`` ((number, text) of each line), each run of base64 one line."""
    body, at = [], 0
    while at < len(shown):
        end = at
        while end < len(shown) and BASE64_LINE.fullmatch(shown[end][1].rstrip("\r")):
            end += 1
        if end - at >= BASE64_RUN and end < len(shown) and BASE64_LAST.fullmatch(shown[end][1].rstrip("\r")):
            end += 1
        if end - at < BASE64_RUN:
            body.append(f"{shown[at][0]:>6}\t{shown[at][1]}")
            at += 1
            continue
        body.append(f"{shown[at][0]:>6}\t{_said(shown, at, end)}")
        at = end
    return body


def _said(shown: list[tuple[int, str]], at: int, end: int) -> str:
    """'[lines 24-2650: the attachment 'report.pdf' as base64, 195 KB, not shown; heading=…]'; a run the answer's
    end cuts says it goes on, not its size."""
    from ingest.kinds import kind_of
    first, last = shown[at][0], shown[end - 1][0]
    size = sum(len(text.rstrip("\r")) for _, text in shown[at:end]) * 3 // 4
    name = _name(shown[max(0, at - HEADER_LINES):at])
    what = f"the attachment {name!r}" if name else "an encoded part"
    much = "going on past them" if end == len(shown) else _size(size)
    how = f"; heading='Attachment: {name}' shows what Sift read of it" if name and kind_of(name) else ""
    return f"[lines {first}-{last}: {what} as base64, {much}, not shown{how}]"


def _name(header: list[tuple[int, str]]) -> str | None:
    for _, text in reversed(header):
        found = FILENAME.search(text)
        if found:
            return (found.group(1) or found.group(2)).strip()[:200]
    return None


def _size(size: int) -> str:
    return f"{size / (1 << 20):.1f} MiB" if size >= 1 << 20 else f"{max(1, round(size / 1024))} KB"
