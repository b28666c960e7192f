"""What parses files, as a remembered outcome records it: a file skipped or failed is not read again until it
changes (search.index.remembered), so a parser that reads what it failed on before must say it changed.

A failed PDF or notebook stayed failed through upgrades of its parser until an edit or ``ingest retry-failed``: the
settings fingerprint an outcome is kept with held the chunker's VERSION and Sift's package version (0.1.0 through
every change here), not the parsers'. Bump a parser's number below when it reads files it failed or skipped
before (and say what in a clause); the libraries' own versions count too (a newer pypdf reads damaged PDFs an
older one refused). The next scan then reads each remembered file once; one that fails the same way is remembered
again with the new versions, so it is not read at every scan.

Each file's outcome holds only what parses its kind (``parsers(path)``): with one string for every kind, a new
NOTEBOOK number or markdown-it-py read every remembered failure again, each PDF skipped as a scan too (pypdf's
work, seconds each). A mail or mailbox holds all of them: its attachments are parsed by every parser.
"""
from __future__ import annotations

from functools import lru_cache
from importlib import metadata

from ingest.kinds import CODE_EXTENSIONS, MAIL_EXTENSIONS, NOTE_EXTENSIONS, OUTLOOK_EXTENSIONS, code_file_name, suffix

PDF = 2  # 2: a page listing over 10,000 fonts fails; a PDF whose forms cannot be read fails (was 'no text layer')
NOTEBOOK = 2  # 2: a notebook on one line has its outputs cut out before it is parsed
ENEX = 1  # 1: a note of a line over 1,000,000 characters is left out (its export was skipped at chunk, whole)
# 1: a book of more chapters than SIFT_MAX_FILE_CHUNKS is skipped, none in a keyword-only index (was over 10,000)
EPUB = 1
NUMBERS = {"pdf": lambda: PDF, "notebook": lambda: NOTEBOOK, "enex": lambda: ENEX,
           "epub": lambda: EPUB}  # read when asked: a test raises one
LIBRARIES = ("pypdf", "python-docx", "markdown-it-py", "tree-sitter-languages", "PyYAML", "tnefparse", "olefile")
# what parses each kind: Sift's numbers and the libraries (a kind not here, none: .txt, .odt, .bib …)
KINDS = {
    "pdf": ("pdf", "pypdf"),
    "notebook": ("notebook",),
    "enex": ("enex",),
    "epub": ("epub",),
    "word": ("python-docx",),  # .docx: python-docx; .odt, .epub are read with the standard library's XML
    "note": ("markdown-it-py", "PyYAML"),  # Markdown and its front matter; a canvas's cards are Markdown
    "code": ("tree-sitter-languages", "PyYAML"),  # a YAML data set is told by PyYAML (ingest.data_sets)
    "mail": (*NUMBERS, *LIBRARIES),  # an attachment is parsed as a file of its kind: every parser
}


def parsers(path: str) -> str:
    """Sift's parser numbers and the parsing libraries' versions that parse ``path``'s kind, one string ('' for a
    kind no versioned parser reads)."""
    return versions(kind(path))


@lru_cache(maxsize=None)
def versions(of: str) -> str:
    """The string of kind ``of`` (the same for a process's life)."""
    return " ".join(f"{name}/{NUMBERS[name]() if name in NUMBERS else _version(name)}" for name in KINDS.get(of, ()))


def kind(path: str) -> str:
    """Which of KINDS parses ``path``, by its name (a file without an extension may be a mailbox: 'mail')."""
    ext = suffix(path).lower()
    if ext in (".pdf", ".ipynb", ".enex", ".epub", ".docx", ".docm"):
        return {".pdf": "pdf", ".ipynb": "notebook", ".enex": "enex", ".epub": "epub"}.get(ext, "word")
    if ext in MAIL_EXTENSIONS or ext in OUTLOOK_EXTENSIONS or not ext and not code_file_name(path):
        return "mail"
    if ext in NOTE_EXTENSIONS:
        return "note"
    return "code" if ext in CODE_EXTENSIONS or code_file_name(path) else ""


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "-"
