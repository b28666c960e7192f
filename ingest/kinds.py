"""Which files Sift reads, and as what kind."""
from __future__ import annotations

import re
from pathlib import PurePosixPath

from ingest.code_languages import LANGUAGES, SHEBANG_BYTES, code_file_name, shebang_language
from search.log_names import LOG_EXTENSIONS, is_log  # noqa: F401 (a log: text, its days dated: ingest.logs)

# a Jupyter notebook: its cells (ingest.notebook); an Obsidian canvas: its cards (ingest.canvas); R Markdown and
# Quarto documents are Markdown (a statistics course's homework: 'hw3.Rmd'; its knitted hw3.pdf its attachment)
NOTE_EXTENSIONS = {".md", ".markdown", ".mdx", ".ipynb", ".canvas", ".rmd", ".qmd"}
CANVAS = ".canvas"  # a note, but no PDF's conversion: a canvas beside paper.pdf lays cards out, it does not hold its text
# a researcher's sources, read as notes: a BibTeX library, an entry a passage (ingest.bibtex); LaTeX by its sections
# (ingest.latex). A .bib is no PDF's conversion (refs.bib beside paper.pdf lists what the paper cites); a paper.tex
# is the paper.pdf beside it, which LaTeX typeset from it: the PDF is its attachment, as a note's (ingest.links)
BIBTEX_EXTENSIONS = {".bib", ".bibtex"}
LATEX_EXTENSIONS = {".tex", ".ltx"}
# org-mode, reStructuredText and AsciiDoc read as notes by their headings (ingest.org, ingest.rst, ingest.asciidoc:
# plain text before); a manual.rst beside the manual.pdf it builds stands for it, as a .tex does (the PDF its
# attachment); a Fountain screenplay by its scenes (ingest.fountain), the script.pdf beside it its export
MARKUP_EXTENSIONS = {".org": "org", ".rst": "rst", ".adoc": "asciidoc", ".asciidoc": "asciidoc",
                     ".fountain": "fountain"}
SOURCE_NOTE_EXTENSIONS = BIBTEX_EXTENSIONS | LATEX_EXTENSIONS | set(MARKUP_EXTENSIONS)
# Word documents and OpenDocument text, read as notes by their headings (ingest.word, ingest.odt); report.pdf beside
# report.docx is its export: the PDF is its attachment, as a paper.tex's is. A macro-enabled .docm is a .docx's
# WordprocessingML (its macros not read), a .fodt LibreOffice's flat, unzipped .odt (one XML file)
WORD_EXTENSIONS = {".docx", ".odt", ".docm", ".fodt"}
# EPUB books, read as a Word document is, their chapters in reading order by their headings (ingest.epub)
EPUB_EXTENSIONS = {".epub"}
# Rich Text Format (TextEdit, WordPad, a Scrivener project's scenes), read as a Word document is (ingest.rtf)
RTF_EXTENSIONS = {".rtf"}
TEXT_EXTENSIONS = {".txt", ".text"}
# a chat export still zipped, read as one file of conversations (ingest.chat.parse_chat_zip), by its name as Slack
# and WhatsApp give it: 'Acme Slack export Mar 1 2024 - Mar 14 2024.zip', 'WhatsApp Chat with Anna.zip' (Android),
# 'WhatsApp Chat - Anna.zip' (an iPhone); a .zip of another name by what its directory names (chat_zip: Telegram's
# and DiscordChatExporter's JSON too); any other
# .zip is no kind Sift reads
CHAT_ZIP_NAME = re.compile(r"(?i).*\bslack export\b.*\.zip|whatsapp chat\b.*\.zip")
# mail: a saved message (.eml) and a mailbox (.mbox), a message a passage group (ingest.mail)
MAIL_EXTENSIONS = {".eml", ".mbox"}
# Outlook's saved message (File > Save As): not text but an OLE2 compound file of its properties, read as an .eml is
# (ingest.outlook_msg); mail all the same (a mail filter's, a PDF's beside it of its stem is no conversion of it)
OUTLOOK_EXTENSIONS = {".msg"}
# a mailbox's start: its first message's 'From ' line (a sender and a date), then a header line ('Return-Path: <…>')
# Evernote's export: one XML file of many notes, a note a passage group, as a mailbox's messages (ingest.enex)
ENEX_EXTENSIONS = {".enex"}
MAILBOX_HEAD = re.compile(rb"From [^\s]+ [^\n]{0,200}\d{4}[^\n]{0,40}\r?\n[!-9;-~]+:")
TABLE_EXTENSIONS = {".csv", ".tsv"}  # text too: a passage per row (ingest.table)
# Excel workbooks: a zip of XML, each sheet's rows read as a CSV's are, under the sheet's name (ingest.xlsx); a
# macro-enabled .xlsm is the same SpreadsheetML (its macros not read)
WORKBOOK_EXTENSIONS = {".xlsx", ".xlsm"}
# slide decks (PowerPoint, LibreOffice Impress) read as notes, a slide a heading with its speaker notes (ingest.slides);
# a deck beside the PDF of its stem (its export, a handout) stands for it, as a .docx does. OpenDocument spreadsheets
# read as an Excel workbook is (ingest.ods). A .ppsx (a deck saved to open as a slide show), a .pptm/.ppsm with
# macros (not read) and a template (.potx, .potm) are a .pptx's XML; .fodp and .fods LibreOffice's flat, unzipped
# .odp and .ods (one XML file)
SLIDE_EXTENSIONS = {".pptx", ".ppsx", ".pptm", ".ppsm", ".potx", ".potm", ".odp", ".fodp"}
SPREADSHEET_EXTENSIONS = {".ods", ".fods"}
FLAT_EXTENSIONS = {".fodt", ".fodp", ".fods"}  # OpenDocument's flat XML: no zip, read whole as a text file is
PDF_EXTENSIONS = {".pdf"}
# subtitles and transcripts (a recorded lecture's .srt or .vtt), read as what was said, a passage headed by the time
# its first cue starts (ingest.subtitles)
SUBTITLE_EXTENSIONS = {".srt", ".vtt"}
# Code with a tree-sitter grammar (ingest.code_languages.LANGUAGES), plus formats read as plain lines.
OTHER_CODE_EXTENSIONS = {
    ".lua", ".toml", ".yaml", ".yml", ".json", ".css", ".scss", ".html", ".htm",
    ".el", ".ex", ".exs", ".clj", ".hs", ".ml", ".r", ".zig", ".dart", ".vue", ".svelte",
    # schemas, build scripts, infrastructure and shells a repository holds beside its code: counted among the
    # kinds Sift does not read before, so 'user.proto' or 'main.tf' was never found
    ".proto", ".graphql", ".gql", ".thrift", ".gradle", ".groovy", ".cmake", ".tf", ".hcl", ".nix",
    ".ps1", ".psm1", ".bat", ".cmd", ".vim", ".erl", ".hrl", ".fs", ".fsx", ".m", ".mm", ".nim",
    ".less", ".sass",
}
# a server's and a deploy's configuration kept beside the runbooks, read as code by lines as .toml and .yaml are:
# nginx's, Redis' and other daemons' .conf, MySQL's my.cnf, INI files (pgbouncer.ini, an Ansible inventory.ini,
# tox.ini), .cfg, Java's .properties, systemd's units and an Ansible role's Jinja templates (nginx.conf.j2). Counted
# among the kinds Sift does not read before: 'which service listens on 8443' could not find the nginx server block
CONFIG_EXTENSIONS = {".conf", ".cnf", ".ini", ".cfg", ".properties", ".service", ".timer", ".socket", ".mount", ".j2"}
CODE_EXTENSIONS = set(LANGUAGES) | OTHER_CODE_EXTENSIONS | CONFIG_EXTENSIONS
# Of those, a whole HTML page (a wiki's export: Confluence, Notion's HTML) is a note: its text by heading
# (ingest.webpage); a fragment or a template stays code
PAGE_EXTENSIONS = {".html", ".htm"}


def suffix(path: str) -> str:
    """``PurePosixPath(path).suffix`` without making a path object: a scan asks it of every file, and the objects
    were most of the CPU a rescan of 200,000 unchanged files took (the rule is pathlib's: the last part's text
    from its last dot, unless that dot begins or ends the name)."""
    name = path.rsplit("/", 1)[-1]
    if name in ("", ".", ".."):  # a path ending in a slash or a dot part: pathlib's own reading of it
        return PurePosixPath(path).suffix
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def kind_of(path: str) -> str | None:
    """'note', 'code', 'pdf' or 'text' for a file Sift indexes; None for the rest."""
    ext = suffix(path).lower()
    if ext in NOTE_EXTENSIONS or ext in SOURCE_NOTE_EXTENSIONS:
        return "note"
    if ext in WORD_EXTENSIONS or ext in MAIL_EXTENSIONS or ext in OUTLOOK_EXTENSIONS:
        return "note"
    if ext in ENEX_EXTENSIONS or (ext == ".zip" and is_chat_zip(path)):
        return "note"
    if ext in EPUB_EXTENSIONS or ext in SLIDE_EXTENSIONS or ext in SUBTITLE_EXTENSIONS or ext in RTF_EXTENSIONS:
        return "note"
    if ext in SPREADSHEET_EXTENSIONS:
        return "text"
    if ext in PDF_EXTENSIONS:
        return "pdf"
    if ext in CODE_EXTENSIONS:
        return "code"
    if ext in TEXT_EXTENSIONS or ext in TABLE_EXTENSIONS or ext in WORKBOOK_EXTENSIONS or is_log(path):
        return "text"
    return "code" if code_file_name(path) else None  # Makefile, Dockerfile, Dockerfile.dev …


def is_chat_zip(path: str) -> bool:
    """Whether ``path`` names a Slack or WhatsApp export still zipped (CHAT_ZIP_NAME)."""
    return CHAT_ZIP_NAME.fullmatch(path.rsplit("/", 1)[-1]) is not None


def chat_zip(path: str, source) -> bool:
    """Whether ``path`` is a chat export still zipped: by its name (CHAT_ZIP_NAME), else for a .zip by
    what its directory names (ingest.chat.zip_holds_chat; ``source``: the file on disk, its bytes, or a binary
    file open on it). Renamed ('slack.zip', 'export (1).zip'), one was not read: zips were told by their names."""
    if is_chat_zip(path):
        return True
    if suffix(path).lower() != ".zip":
        return False
    from ingest.chat import zip_holds_chat
    return zip_holds_chat(source)


def kind_of_script(path: str, head: bytes) -> str | None:
    """The kind of a file whose name gives none (``kind_of``), from ``head``, its first SHEBANG_BYTES bytes:
    'note' for a mailbox (``is_mailbox``), 'code' for a script without an extension whose shebang names an interpreter ingest.code parses
    (scripts/setup, '#!/usr/bin/env bash'); None for the rest."""
    if suffix(path):
        return None
    if is_mailbox(head):  # Thunderbird's folders: 'Inbox', 'Sent' (beside 'Inbox.msf'), mailboxes without an extension
        return "note"
    if not head.startswith(b"#!"):
        return None
    return "code" if shebang_language(head[:SHEBANG_BYTES]) else None


def is_mailbox(head: bytes) -> bool:
    """Whether ``head`` (a file's first bytes) begins a mailbox: a 'From ' line with a year, then a header line."""
    return head.startswith(b"From ") and MAILBOX_HEAD.match(head) is not None
