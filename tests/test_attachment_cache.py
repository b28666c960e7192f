"""A mail's attachments read once, not at every change of their mailbox (ingest.attachment_cache): a Thunderbird
folder read again unchanged, or with a message appended, reads no attachment again; a changed attachment is read
anew; a damaged cache file is read past; the cap evicts the files used longest ago. The real readers, counted."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from ingest import mail as mail_module
from tests.conftest import need_data
from tests.test_mail_parts import _mail, _thunderbird


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("SIFT_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.fixture
def pdf_reads(monkeypatch) -> list[str]:
    """The names the real PDF reader (ingest.pdf.parse_pdf) is called with."""
    from ingest import pdf
    real, calls = pdf.parse_pdf, []

    def counted(path, data):
        calls.append(path)
        return real(path, data)
    monkeypatch.setattr(pdf, "parse_pdf", counted)
    return calls


def _mailbox(pdf: bytes, *extra, note: bytes = b"# Minutes\n\nThe boiler gets a new pressure valve.\n") -> bytes:
    mails = []
    for n, subject in enumerate(("Quarterly reports", "Minutes", *extra)):
        mail = _mail(subject, f"Message {n}.\n")
        if n == 0:
            mail.add_attachment(pdf, maintype="application", subtype="pdf", filename="report.pdf")
        else:
            mail.add_attachment(note, maintype="text", subtype="markdown", filename=f"minutes{n}.md")
        mails.append(mail)
    return _thunderbird(*mails)


def _read(data: bytes):
    return mail_module.read_mbox("Inbox", [data])


def _passages(doc) -> list[tuple]:
    return [(s.text, s.heading_path, s.start_line, s.end_line, s.dated, s.atomic) for s in doc.sections]


def _cached(home: Path) -> list[Path]:
    return sorted((home / "cache" / "attachments").glob("*.json.z"))


def test_an_unchanged_mailbox_read_again_reads_no_attachment_again(home, pdf_reads):
    """A mailbox is read whole at each change: every attached PDF was read again each time (150 messages, 53 s).
    Read again unchanged, or with a message appended, its PDF is not read again and its passages are the same."""
    pdf = need_data("pdf/en/google-doc-document.pdf").read_bytes()
    first = _read(_mailbox(pdf))
    assert pdf_reads == ["report.pdf"]
    assert any(s.heading_path[:2] == ["Quarterly reports", "Attachment: report.pdf"] for s in first.sections)
    assert len(_cached(home)) == 2  # report.pdf, minutes1.md

    again = _read(_mailbox(pdf))
    assert pdf_reads == ["report.pdf"], "the unchanged PDF was read again"
    assert _passages(again) == _passages(first)

    appended = _read(_mailbox(pdf, "Rota"))  # Thunderbird appended a message
    assert pdf_reads == ["report.pdf"]
    assert _passages(appended)[:len(first.sections)] == _passages(first)
    assert any(s.heading_path[:2] == ["Rota", "Attachment: minutes2.md"] for s in appended.sections)


def test_a_changed_attachment_is_read_anew(home, pdf_reads):
    need_data("pdf/en/google-doc-document.pdf")
    pdfs = sorted(Path(need_data("pdf/en/google-doc-document.pdf")).parent.glob("*.pdf"))
    assert len(pdfs) >= 2
    one, other = pdfs[0].read_bytes(), pdfs[1].read_bytes()
    _read(_mailbox(one, note=b"# Minutes\n\nThe old valve.\n"))
    doc = _read(_mailbox(other, note=b"# Minutes\n\nThe new valve.\n"))
    assert pdf_reads == ["report.pdf", "report.pdf"]
    texts = [s.text for s in doc.sections if "minutes1.md" in " ".join(s.heading_path)]
    assert any("The new valve." in text for text in texts) and not any("old valve" in text for text in texts)


def test_a_refusal_is_kept_too(home, pdf_reads):
    """A PDF its reader refuses (one that opens only with its password) is not read again either, and is still
    named with why."""
    encrypted = need_data("pdf/_problem/crazyones-encrypted-256.pdf").read_bytes()
    docs = [_read(_mailbox(encrypted)) for _ in range(2)]
    assert pdf_reads == ["report.pdf"]
    assert docs[0].meta["attachments_not_read_why"] == docs[1].meta["attachments_not_read_why"]
    assert "encrypted" in docs[1].meta["attachments_not_read_why"][0]


def test_a_damaged_or_missing_cache_file_is_read_past(home, pdf_reads):
    pdf = need_data("pdf/en/google-doc-document.pdf").read_bytes()
    first = _read(_mailbox(pdf))
    for path in _cached(home):
        path.write_bytes(path.read_bytes()[:20])  # cut short, as a full disk or a killed writer might leave it
    again = _read(_mailbox(pdf))
    assert pdf_reads == ["report.pdf", "report.pdf"]
    assert _passages(again) == _passages(first)
    _read(_mailbox(pdf))  # written anew whole
    assert pdf_reads == ["report.pdf", "report.pdf"]
    for path in _cached(home):
        path.unlink()
    assert _passages(_read(_mailbox(pdf))) == _passages(first)
    assert pdf_reads == ["report.pdf"] * 3


def test_the_cap_evicts_the_files_used_longest_ago(home, monkeypatch):
    from ingest.attachment_cache import AttachmentCache
    from ingest.document import Document, Section
    cache = AttachmentCache.of_home()
    assert cache.folder == home / "cache" / "attachments" and cache.cap == 256 << 20
    keys = [cache.key(f"n{n}.md", os.urandom(8)) for n in range(4)]
    for at, key in enumerate(keys):
        cache.put(key, Document(kind="note", title="", sections=[Section(text=os.urandom(600).hex())]), 1 << 20)
        os.utime(cache.folder / f"{key}.json.z", (1000 + at, 1000 + at))
    assert cache.get(keys[0]) is not None  # used now: no longer the oldest
    sizes = [path.stat().st_size for path in cache.folder.iterdir()]
    cache.cap = 2 * max(sizes)  # room for two
    cache.trim()
    left = {path.name.split(".")[0] for path in cache.folder.iterdir()}
    assert left == {keys[0], keys[3]}, left
    assert cache.get(keys[1]) is None and cache.misses == 1


def test_no_cache_when_set_to_zero(home, monkeypatch, pdf_reads):
    monkeypatch.setenv("SIFT_ATTACHMENT_CACHE_MB", "0")
    pdf = need_data("pdf/en/google-doc-document.pdf").read_bytes()
    _read(_mailbox(pdf))
    _read(_mailbox(pdf))
    assert pdf_reads == ["report.pdf", "report.pdf"] and not (home / "cache").exists()


def _read_often(data: bytes, times: int, out) -> None:
    try:
        out.put([_passages(_read(data)) for _ in range(times)])
    except BaseException as exc:  # noqa: BLE001 - told to the test
        out.put(repr(exc))


@pytest.mark.timeout(300)
def test_two_workers_read_and_evict_at_once(home, monkeypatch):
    """Two processes (a consumer's two workers) read the same mailbox at once, again and again, with a cap so small
    that each evicts what the other just wrote: each reads it as without the cache, and nothing fails."""
    import multiprocessing
    monkeypatch.setenv("SIFT_ATTACHMENT_CACHE_MB", "1")
    mails = []
    for n in range(12):
        mail = _mail(f"Rota {n}", f"Message {n}.\n")
        mail.add_attachment(f"# Rota {n}\n\n".encode() + os.urandom(120_000).hex().encode(), maintype="text",
                            subtype="markdown", filename=f"rota{n}.md")
        mails.append(mail)
    data = _thunderbird(*mails)
    monkeypatch.setenv("SIFT_ATTACHMENT_CACHE_MB", "0")
    expected = _passages(_read(data))
    monkeypatch.setenv("SIFT_ATTACHMENT_CACHE_MB", "1")
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    workers = [context.Process(target=_read_often, args=(data, 6, out)) for _ in range(2)]
    for worker in workers:
        worker.start()
    results = [out.get(timeout=240) for _ in workers]
    for worker in workers:
        worker.join(timeout=30)
    assert all(result == [expected] * 6 for result in results), [str(r)[:300] for r in results]
    kept = [path.stat().st_size for path in _cached(home)]
    assert sum(kept) <= 1 << 20 and 0 < len(kept) < 12, kept  # some evicted: 12 do not fit


def test_an_appended_message_reindexed_by_the_worker_reads_no_pdf_again(immediate, sift_env, tmp_path, monkeypatch,
                                                                        pdf_reads):
    """Through the pipeline (a scan, the parse job in huey's immediate mode, the index): Thunderbird appends a
    message to a folder holding a PDF; the rescan indexes it, and the PDF is not read again, its hit still there."""
    from search.query.engine import Engine
    from search.settings import load
    from tests.conftest import ingest
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    pdf = need_data("pdf/en/google-doc-document.pdf").read_bytes()
    inbox = tmp_path / "mail" / "Inbox"
    inbox.parent.mkdir()
    inbox.write_bytes(_mailbox(pdf))
    assert ingest(inbox.parent, "mail")["published"]["failures"] == []
    assert pdf_reads == ["report.pdf"], pdf_reads
    inbox.write_bytes(_mailbox(pdf, "Sicilian defence"))
    os.utime(inbox, (os.stat(inbox).st_atime, os.stat(inbox).st_mtime + 5))
    assert ingest(inbox.parent, "mail")["published"]["failures"] == []
    assert pdf_reads == ["report.pdf"], "the appended mailbox's PDF was read again"
    engine = Engine(load().index_path)
    assert engine.search("Sicilian defence", mode="keyword").hits[0].heading_path == "Sicilian defence"
    hits = engine.search("Explicit is better than implicit", mode="keyword").hits
    assert hits and hits[0].heading_path == "Quarterly reports > Attachment: report.pdf > page 1", hits
    assert _cached(load().home)
