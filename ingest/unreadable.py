"""Why a file, or a part of one (a slide, a mailbox's message, a note of an Evernote export), could not be read, in
words the person reading it can act on: what is wrong with the file and what to do. A .docx that was no zip read
'not a readable Word document: BadZipFile: File is not a zip file' in stats, list_files and search's freshness
line: Python's class name, which tells that person nothing. The class goes to the log (``sift.ingest``), for a bug
report, as the workers' own failures do (workers.retry.describe)."""
from __future__ import annotations

import logging
import re
from contextlib import contextmanager
from contextvars import ContextVar
import zipfile
import zlib
import xml.etree.ElementTree as ET
from pathlib import Path

log = logging.getLogger("sift.ingest")

# the program that saves a kind, named in what to do about one that cannot be read (by the start of ``what``)
MAKERS = (("Word document", "Word"), ("PowerPoint deck", "PowerPoint"), ("Excel workbook", "Excel"),
          ("OpenDocument", "LibreOffice"))
# what is wrong with the file itself (its zip, its XML, a part of it), which saving it again mends
DAMAGE = (zipfile.BadZipFile, zlib.error, EOFError, KeyError, ET.ParseError)
MISSING_PART = re.compile(r"There is no item named '([^']*)'")
# python-docx's refusal of a zip whose main part is another Office kind's (an .xlsx renamed .docx): 'file
# '<_io.BytesIO object at 0x7f…>' is not a Word file, content type is '…spreadsheetml.sheet.main+xml''
OTHER_KIND = re.compile(r"is not a Word file, content type is '([^']*)'")
KINDS = (("spreadsheetml", "an Excel workbook", ".xlsx"), ("presentationml", "a PowerPoint deck", ".pptx"))
ZIP_START = b"PK\x03\x04"  # a zip's first part's header
MOST_SAID = 200  # of an error's own text, the characters said
SIFT = Path(__file__).resolve().parents[1]  # Sift's own code: a ValueError raised there, unless Unreadable, is a bug
LIBRARIES = {"site-packages", "dist-packages"}
# the file being read, set by whoever reads it (workers.tasks' parse): the log's 'Word document not read: BadZipFile:
# …' said of which file only by the worker's next line, or not at all for a slide or a message skipped inside one
READING: ContextVar[str] = ContextVar("reading", default="")


class Unreadable(ValueError):
    """A reader's refusal of a file, in its own words: 'unreadable PDF: its page tree reaches no page; …'. Any other
    ValueError reaching the workers is a bug's ('not enough values to unpack (expected 2, got 1)'), which read as if
    it were the file's fault; workers.retry.describe says that one is Sift's to fix. A ValueError still, for the
    callers that catch one."""


def not_readable(error: BaseException, what: str, ext: str, start: bytes = b"") -> str:
    """A whole file's reason for being skipped, ``what`` its kind ('Word document', '.docx' its ``ext``, ``start``
    its first bytes): 'not a Word document (its contents are not a .docx zip): save it again from Word as .docx' for
    a file that is no zip, 'not a readable Word document: its XML is damaged (…): save it again from Word as .docx,
    or index a copy that opens' for a damaged one."""
    logged(error, what)
    if _no_zip(error) and start.startswith(ZIP_START):  # a zip's first part, its directory (at the end) missing
        return (f"not a readable {what}: its zip is cut short (no directory at its end: a copy or download not "
                f"finished?): copy it again, or {save_again(what, ext)}")
    article = "an" if what[:1] in "AEIOU" else "a"
    other = OTHER_KIND.search(str(error)) if isinstance(error, ValueError) else None
    if other:  # said plainly: the object's repr and the content type's name say nothing to the person reading
        kind = next(((said, named) for key, said, named in KINDS if key in other[1]), None)
        if kind:
            return f"not {article} {what} (it is {kind[0]} named {ext}): rename it to {kind[1]}"
        return f"not {article} {what} (its main part is not a {what}'s: {other[1]}): {save_again(what, ext)}"
    if _no_zip(error):
        contents = "a zip" if ext == ".zip" else f"a {ext} zip"
        return f"not {article} {what} (its contents are not {contents}): {save_again(what, ext)}"
    said = what_is_wrong(error, logged_already=True)
    if _damaged(error):
        said += f": {save_again(what, ext)}, or index a copy that opens"
    return f"not a readable {what}: {said}"


def what_is_wrong(error: BaseException, logged_already: bool = False) -> str:
    """What is wrong, in words (no class name): 'its XML is damaged (mismatched tag: line 3, column 2)' — for a part
    of a file (a slide, a message) as for a file. An error no file's damage explains is said to be Sift's."""
    if not logged_already:
        logged(error, "a part")
    if isinstance(error, RecursionError):
        return "nested too deeply"
    if _no_zip(error):
        return "its contents are not a zip"
    if isinstance(error, (zipfile.BadZipFile, zlib.error)):
        return f"its zip is damaged ({_text(error)})"
    if isinstance(error, EOFError):
        return "it breaks off before its end (a copy or download not finished?)"
    if isinstance(error, KeyError):
        found = MISSING_PART.search(str(error))
        return f"a part it needs is missing ({found[1] if found else _text(error).strip(chr(39))})"
    if _xml(error) and "amplification" in str(error):  # entities that expand a billion times: a hostile file
        return f"its XML's entities expand past what is safe to read ({_text(error)})"
    if _xml(error):
        return f"its XML is damaged ({_text(error)})"
    if isinstance(error, UnicodeDecodeError):
        return f"its text is not valid {error.encoding} (at byte {error.start:,})"
    if isinstance(error, LookupError):
        return f"it names a text encoding Sift does not know ({_text(error)})"
    if isinstance(error, RuntimeError) and "encrypted" in str(error):
        return "a part of it is encrypted (saved with a password): Sift reads files saved without one"
    if isinstance(error, MemoryError):
        return "it is too big to read in the memory there was"
    if isinstance(error, OSError):
        return f"the system refused: {error.strerror or _text(error)}"
    if isinstance(error, ValueError) and str(error) and not _sifts_bug(error):  # a reader's words: 'is not a Word
        return _text(error)  # file, content type …' (python-docx's), 'no header lines (From:, …) at its start'
    if not logged_already or isinstance(error, ValueError):  # its traceback, for the report
        log.warning("an error Sift did not expect reading a file", exc_info=error)
    return f"an error Sift did not expect ({_text(error)}): a bug in Sift, please report it with the log"


def save_again(what: str, ext: str) -> str:
    maker = next((maker for kind, maker in MAKERS if what.startswith(kind)), None)
    return f"save it again from {maker} as {ext}" if maker else f"save or export it again as {ext}"


@contextmanager
def reading(path: str):
    """While the file at ``path`` is read: the log lines of what in it is not read name it."""
    token = READING.set(path)
    try:
        yield
    finally:
        READING.reset(token)


def logged(error: BaseException, what: str) -> None:
    path = READING.get()
    log.info("%s%s not read: %s: %s", f"{path}: " if path else "", what, type(error).__name__,
             str(error)[:MOST_SAID])


def _sifts_bug(error: BaseException) -> bool:
    """Whether a ValueError is a bug's: raised in Sift's own code ('not enough values to unpack'), not a refusal
    (Unreadable) nor a library's (python-docx's, tnefparse's, raised in its own code), which said it of the file.
    A bug's read as the file's fault: 'not a readable Word document: not enough values to unpack …'."""
    if isinstance(error, Unreadable):
        return False
    frame = error.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    if frame is None:
        return False
    where = Path(frame.tb_frame.f_code.co_filename)
    return where.is_relative_to(SIFT) and not LIBRARIES & set(where.parts)


def _no_zip(error: BaseException) -> bool:
    return (isinstance(error, zipfile.BadZipFile) and str(error) == "File is not a zip file") or \
        type(error).__name__ == "PackageNotFoundError"  # python-docx's, for bytes that are no zip


def _xml(error: BaseException) -> bool:
    return isinstance(error, ET.ParseError) or type(error).__module__.startswith("lxml")


def _damaged(error: BaseException) -> bool:
    return isinstance(error, DAMAGE) or _xml(error)


def _text(error: BaseException) -> str:
    said = str(error.args[0]) if isinstance(error, KeyError) and error.args else str(error)
    return (said or "no words given")[:MOST_SAID]
