"""Which files Sift reads, and as what kind."""
from __future__ import annotations

from pathlib import PurePosixPath

from ingest.code import LANGUAGES

NOTE_EXTENSIONS = {".md", ".markdown", ".mdx"}
TEXT_EXTENSIONS = {".txt", ".rst", ".org", ".adoc", ".text"}
PDF_EXTENSIONS = {".pdf"}
# Code with a tree-sitter grammar (ingest.code.LANGUAGES), plus formats read as plain lines.
OTHER_CODE_EXTENSIONS = {
    ".lua", ".scala", ".sql", ".toml", ".yaml", ".yml", ".json", ".css", ".scss", ".html",
    ".el", ".ex", ".exs", ".clj", ".hs", ".ml", ".r", ".jl", ".zig", ".dart", ".vue", ".svelte",
}
CODE_EXTENSIONS = set(LANGUAGES) | OTHER_CODE_EXTENSIONS


def kind_of(path: str) -> str | None:
    """'note', 'code', 'pdf' or 'text' for a file Sift indexes; None for the rest."""
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in NOTE_EXTENSIONS:
        return "note"
    if suffix in PDF_EXTENSIONS:
        return "pdf"
    if suffix in CODE_EXTENSIONS:
        return "code"
    if suffix in TEXT_EXTENSIONS:
        return "text"
    return None
