"""What parses files, as a remembered outcome records it: a file skipped or failed is not read again until it
changes (search.index.remembered), so a parser that reads what it failed on before must say it changed.

A failed PDF or notebook stayed failed through upgrades of its parser until an edit or ``ingest retry-failed``: the
settings fingerprint an outcome is kept with held the chunker's VERSION and Sift's package version (0.1.0 through
every change here), not the parsers'. Bump a parser's number below when it reads files it failed or skipped
before (and say what in a clause); the libraries' own versions count too (a newer pypdf reads damaged PDFs an
older one refused). The next scan then reads each remembered file once; one that fails the same way is remembered
again with the new versions, so it is not read at every scan.
"""
from __future__ import annotations

from functools import lru_cache
from importlib import metadata

PDF = 2  # 2: a page listing over 10,000 fonts fails; a PDF whose forms cannot be read fails (was 'no text layer')
NOTEBOOK = 2  # 2: a notebook on one line has its outputs cut out before it is parsed
LIBRARIES = ("pypdf", "python-docx", "markdown-it-py", "tree-sitter-languages", "PyYAML", "tnefparse")


@lru_cache(maxsize=1)
def parsers() -> str:
    """Sift's parser numbers and the parsing libraries' versions, one string (the same for a process's life)."""
    return " ".join([f"pdf/{PDF}", f"notebook/{NOTEBOOK}", *(f"{name}/{_version(name)}" for name in LIBRARIES)])


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "-"
