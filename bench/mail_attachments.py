"""A mailbox whose messages carry attachments (ingest.mail.attachment_sections): how long it takes to read, how many
passages it gives, at what peak memory; and a mailbox of the same messages without attachments, to see that reading
them costs the rest nothing.

Writes a Thunderbird folder of MESSAGES messages (a third with a real PDF, ../shared/data/pdf/en/*.pdf or
SIFT_SHARED_DATA's, a third with a .docx made by python-docx, a third with a picture), reads it with
ingest.mail.read_mbox as a parse job does, in blocks: without attachments three times (the median); with them once
without the attachment cache (SIFT_ATTACHMENT_CACHE_MB=0: what every read cost before it), then with it in a new home
the first read, two more of the mailbox unchanged, and one of it with a message appended (Thunderbird's change).

    .venv/bin/python bench/mail_attachments.py [MESSAGES]
"""
from __future__ import annotations

import io
import os
import resource
import statistics
import sys
import tempfile
import time
from email.message import EmailMessage
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def _pdfs() -> list[bytes]:
    base = Path(os.environ.get("SIFT_SHARED_DATA") or HERE.parent.parent / "shared" / "data") / "pdf" / "en"
    return [path.read_bytes() for path in sorted(base.glob("*.pdf"))]


def _docx(n: int) -> bytes:
    import docx
    document = docx.Document()
    document.add_heading(f"Plan {n}", 1)
    document.add_paragraph(f"Item {n}: we repaint the stairwell in April with ochre paint. " * 20)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def mailbox(messages: int, attachments: bool, first: int = 0) -> bytes:
    pdfs, out = _pdfs(), []
    for n in range(first, messages):
        mail = EmailMessage()
        mail["From"], mail["To"], mail["Subject"] = "Anna <anna@example.com>", "Bo <bo@example.com>", f"Report {n}"
        mail["Date"] = "Tue, 05 Mar 2024 09:12:00 +0000"
        mail["Message-ID"] = f"<m{n}@example.com>"
        if n % 5 == 1:
            mail["In-Reply-To"] = f"<m{n - 1}@example.com>"
        mail.set_content(f"Message {n} about the quarterly numbers and the roof.\n" * 5)
        if attachments and n % 3 == 0 and pdfs:
            mail.add_attachment(pdfs[n % len(pdfs)], maintype="application", subtype="pdf", filename=f"r{n}.pdf")
        elif attachments and n % 3 == 1:
            mail.add_attachment(_docx(n), maintype="application",
                                subtype="vnd.openxmlformats-officedocument.wordprocessingml.document",
                                filename=f"plan{n}.docx")
        elif attachments:
            mail.add_attachment(b"\x89PNG\r\n\x1a\n" + bytes(50_000), maintype="image", subtype="png",
                                filename=f"p{n}.png")
        out.append(b"From - Tue Mar 05 09:12:00 2024\nX-Mozilla-Status: 0001\n"
                   + bytes(mail).replace(b"\r\n", b"\n") + b"\n\n")
    return b"".join(out)


def _read(data: bytes):
    from ingest.mail import read_mbox
    began = time.perf_counter()
    doc = read_mbox("Inbox", (data[at:at + (1 << 20)] for at in range(0, len(data), 1 << 20)))
    return doc, time.perf_counter() - began


def _said(doc, data: bytes, messages: int) -> str:
    files = sum(1 for s in doc.sections if len(s.heading_path) > 1)
    return (f"{len(data) / (1 << 20):.1f} MiB, {messages} messages, {len(doc.sections)} passages ({files} of "
            f"attachments), {doc.meta.get('attachments_not_read', 0)} attachments not read")


def main() -> int:
    messages = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    data = mailbox(messages, False)
    times = [_read(data)[1] for _ in range(3)]
    print(f"without attachments: {_said(_read(data)[0], data, messages)}: median {statistics.median(times):.2f} s "
          f"of {', '.join(f'{t:.2f}' for t in times)}")
    data = mailbox(messages, True)
    appended = data + mailbox(messages + 1, True, first=messages)  # Thunderbird appends one
    with tempfile.TemporaryDirectory() as home:  # the attachment cache (ingest.attachment_cache) of a new home
        os.environ["SIFT_HOME"] = home
        os.environ["SIFT_ATTACHMENT_CACHE_MB"] = "0"
        doc, took = _read(data)
        print(f"with attachments, no cache (every read): {_said(doc, data, messages)}: {took:.2f} s")
        del os.environ["SIFT_ATTACHMENT_CACHE_MB"]
        for name, what in (("first read", data), ("second read, unchanged", data), ("third read, unchanged", data),
                           ("one message appended", appended)):
            doc, took = _read(what)
            print(f"with attachments, cache: {name}: {_said(doc, what, messages + (what is appended))}: "
                  f"{took:.2f} s")
        kept = sum(path.stat().st_size for path in Path(home).rglob("*.json.z"))
        print(f"cache: {kept / 1024:.0f} KB in {home}/cache/attachments; peak RSS "
              f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
