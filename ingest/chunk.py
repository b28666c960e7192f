"""Split a document's sections into chunks under a token limit, with overlap.

The chunker is given the model's token counter (``count(text) -> int``, special
tokens included), so it stays free of the model. A section is cut into units
that tile its text exactly: lines, with atomic blocks (code fences, tables,
math) kept whole when they fit, and over-long lines cut at sentences, then at
Chinese clause marks (，、), then words, then characters (in pieces of at most
``overlap`` tokens, so that a long run of CJK text without punctuation overlaps
too). Windows are runs of whole units; each window after the first starts with
the previous window's last units, up to ``overlap`` tokens.
Every character of a section lands in at least one chunk, in order.

A chunk is embedded with the headings it sits under that its own text does
not show (``Chunk.context``): the second window of a long section under
"# Dendritic arbor geometry" is embedded as "Dendritic arbor geometry" and
a blank line before its text, so what the section is about reaches every
window, not only the first. The budget of a split section leaves room for
that context. Measured on SciFact (multilingual-e5-small, semantic
nDCG@10): 0.638 without, 0.658 with it (``bench/quality.py``).
"""
from __future__ import annotations

import bisect
import hashlib
import re
from dataclasses import dataclass, field
from typing import Callable

from ingest.document import Document, Section
from search.query.text import CJK_RANGES, FOOTNOTE_REFERENCE
from search.settings import SettingError

Counter = Callable[[str], int]
# A token of a keyword-only index: one CJK character, a run of other letters and digits, or one other mark.
PLAIN_TOKEN = re.compile(rf"[{CJK_RANGES}]|(?:(?![{CJK_RANGES}])[^\W_])+|[^\w\s]|_")
# Places to cut an over-long line, tried in order: sentence ends, Chinese clause marks (a Chinese sentence runs
# on with commas where English would end it), then spaces.
UNDERLINE = re.compile(r"=+|-+")  # a setext heading's second line
ATX = re.compile(r"[ \t>]*#{1,6}(?:\s|$)")  # an ATX heading's line, in a block quote too
CUT_POINTS = (re.compile(r"(?<=[.!?;:。！？；：])\s*"), re.compile(r"(?<=[，、])\s*"), re.compile(r"\s+(?=\S)"))


@dataclass
class Chunk:
    text: str
    heading_path: list[str]
    tokens: int
    start_line: int | None = None
    end_line: int | None = None
    page: int | None = None
    end_page: int | None = None
    # each page's start: (offset in the text, page, offset in that page: where the text starts in its first page)
    page_starts: list[tuple[int, int, int]] = field(default_factory=list)
    offset: int = 0  # where the text starts in its section
    context: str = ""  # the headings above the text that it does not show, "A > B"; cited footnotes on lines below
    dated: float | None = None  # the date (unix time) its section is about, where it says one (Section.dated)
    tags: tuple[str, ...] = ()  # its section's own tags, besides its file's (Section.tags)

    @property
    def embedding_text(self) -> str:
        """What the model embeds (and what the vector is keyed by): the context, a blank line, the text."""
        return embedding_text(self.context, self.text)


def embedding_text(context: str, text: str) -> str:
    return f"{context}\n\n{text}" if context else text


def text_hash(text: str) -> str:
    """The key of a chunk's vector: the hash of the text the model embeds (``embedding_text``)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def context_of(heading_path: list[str], text: str) -> str:
    """The headings of ``heading_path`` that ``text`` does not show: all of them, or, when the text opens
    with the last ones (a section's first window starts with its own heading, and with its parents' when
    they had no text of their own: '# Title', '## Part'), those before them."""
    names = [name.strip() for name in heading_path if name.strip()]
    return " > ".join(names[:len(names) - _opening_headings(names, text)])


OPENING_LINES = 64  # lines read for the headings a text opens with


def _opening_headings(names: list[str], text: str) -> int:
    """How many of the last ``names`` the text opens with: its first line holding the last name (a section's
    heading, a code definition's first line), or its first heading lines holding the last few, in order, each
    on a line of its own. Heading lines that hold none of them are passed over: a bare heading opens the section
    after it whatever its level ('## Empty' over '## Next' shows Next, not Empty)."""
    lines = text.lstrip().split("\n", OPENING_LINES)[:OPENING_LINES]
    shown = 0
    for line in reversed(_top_headings(lines)):
        if shown < len(names) and names[-1 - shown] in line:
            shown += 1
    return shown or int(bool(names) and names[-1] in lines[0])


def _top_headings(lines: list[str]) -> list[str]:
    """The heading lines (ATX, or setext over its underline) that ``lines`` start with, blank lines between."""
    tops = []
    for i, line in enumerate(lines):
        if UNDERLINE.fullmatch(line.strip()) and tops and lines[i - 1] == tops[-1]:
            continue
        setext = i + 1 < len(lines) and UNDERLINE.fullmatch(lines[i + 1].strip())
        if line.strip() and not ATX.match(line) and not setext:
            break
        tops += [line] if line.strip() else []
    return tops


class TooManyChunks(Exception):
    """The document makes more than ``most`` chunks. Chunking stopped at the first one over: ``tokens`` is
    what the chunks made so far hold, ``share`` the part of the document's text they reach (0 < share <= 1)."""

    def __init__(self, most: int, tokens: int, share: float):
        super().__init__(f"more than {most:,} chunks")
        self.most, self.tokens, self.share = most, tokens, share


def chunk_document(doc: Document, count: Counter, max_tokens: int, overlap: int,
                   most: int | None = None) -> list[Chunk]:
    """The document's chunks; with ``most``, TooManyChunks once there are more, without cutting the rest
    (cutting a 64 MiB log whole took minutes and its lines' counts, only to be thrown away)."""
    chunks: list[Chunk] = []
    total = sum(len(section.text) for section in doc.sections) or 1
    before = 0  # characters of the sections already cut
    for section, whole in _sized(doc, count, max_tokens):
        for chunk in _section_chunks(section, count, max_tokens, overlap, whole):
            if "columns" in doc.meta and chunk.text == section.text:  # rows on more lines than their text (a cell's
                chunk.end_line = section.end_line                   # line breaks): to the last row's last line
            if doc.footnotes and "[^" in chunk.text:
                _cite_footnotes(chunk, doc.footnotes, count, max_tokens)
            chunks.append(chunk)
            if most is not None and len(chunks) > most:
                reached = before + chunk.offset + len(chunk.text)
                raise TooManyChunks(most, sum(c.tokens for c in chunks), min(1.0, reached / total))
        before += len(section.text)
    return chunks




def _cite_footnotes(chunk: Chunk, footnotes: dict[str, str], count: Counter, max_tokens: int) -> None:
    """Embed a passage with the definitions of the footnotes it cites and does not hold: a chapter's footnotes
    stand at its end, passages away from the sentence that cites them, whose source they name ('[^1]: Force 10,
    from the Met Office table'). As many as fit under the limit, in the order cited; the text is unchanged. A
    window filled to the limit has no room for one (leaving room in every window of a section that cites one
    cost other questions of bench/writer.py more than it gained: the README says by how much)."""
    cited = []
    for label in dict.fromkeys(FOOTNOTE_REFERENCE.findall(chunk.text)):
        if label in footnotes and f"[^{label}]:" not in chunk.text:
            line = f"[^{label}]: {footnotes[label]}"
            context = "\n".join(filter(None, [chunk.context, *cited, line]))
            if count(embedding_text(context, chunk.text)) > max_tokens:
                break
            cited.append(line)
    if cited:
        chunk.context = "\n".join(filter(None, [chunk.context, *cited]))


# Raise it when a parser or the chunker cuts an unchanged file otherwise (2: bare headings; 3: bare headings at any
# level, small code sections joined to a neighbour; 4: a file name's words in the title column of its chunks, which
# only a file read again gets; 5: where each page starts inside a PDF chunk, for read_file's pages; 6: TOML front
# matter read as metadata, and Chinese text without spaces cut at clause marks, and in pieces that let windows
# overlap; 7: a window that starts among a long table's rows embedded with the table's header row, and what the
# parsers read otherwise since 6: GBK, Big5 and Latin-1 notes, camelCase names' words in code, Scala, Julia and Perl
# outlined, PDFs without their running headers and with page labels and sections, links to PDFs by a bare name; 8: a
# passage of joined code sections headed by the names of all the definitions it holds, not only the one it was joined
# to, and JavaScript's exported, assigned and at-once-called functions outlined; 9: headings that 8's indexes lack:
# Go's subtests, a table's too, ScalaTest's tests, C#'s properties, Kotlin's type aliases, objects and lambdas bound
# to a name, PHP's closures and routes, a group's prefix and a controller's action among them); 10: a run of Chinese
# that a line break cuts indexed whole, a PDF's full-width punctuation kept as written, and what 9's readers skipped
# or failed: UTF-16 without a byte-order mark, a notebook cell with a lone surrogate, a note of millions of lines;
# 11: an Obsidian callout's title heads its lines as a heading does, a note's inline #tags are among its tags, an
# Excalidraw drawing's data makes no passages, a line break joins CJK only in wrapped text; a PDF's reference list a
# section of its own, under its heading, from the line it begins on; a title from the first page's largest text; a
# short paper's running header and page numbers left out; a compound's hyphen at a line end kept; 12: SQL outlined by
# its tables, views, functions, types and triggers (it was windowed by lines); 13: a canvas's link cards and edge
# labels are passages, a canvas card's groups shortened as deep code's names are, and a front matter's aliases (one
# string) split at commas only, its '#tag's without the '#'; a slide deck's footer with the count of pages ('Lecture
# 3 4/10') left out of every page, a PDF footnote's mark set apart from the word it is drawn beside, and a PDF's
# metadata author in the title column; SQL with a dollar quote never closed windowed by lines; no window of text the
# one before it held (a line of dialogue before a long paragraph made two more), and a scene break (`* * *`) ends a
# window and is never carried over; a note's passage embedded with the footnotes it cites; 14: a canvas group its
# cards' shortened paths leave out (deep in the middle of a nesting) a passage of its label, and SQL with a column
# named delimiter and a dollar quote never closed windowed by lines; a canvas's arrow a passage naming the cards it
# joins ('Roof → Garden Shed: builds', its label alone before), and an index cut by 13 (base-16 kept a link card's
# every group in its path) reads its canvases again; a Chinese PDF's page labels ('第 3 页 共 10 页', '第 3 頁', '— 3 —')
# left out as running footers; a whole HTML page (a Confluence or Notion export) read as its text by heading without
# its navigation (it was code, windowed by lines, markup and page tree included); a CSV or TSV table's rows packed
# into passages under its title and column names, a plain numeric data file its first passage only; a PDF footnote's
# mark set apart from a word of four capitals or more it is drawn after ('MARCO2'), and a slide deck a passage a
# slide; 15: an HTML page whose {% or {{ stand only in its code elements (a wiki page documenting Jinja or Liquid)
# read as a page, not a template's code; Django's migrations and settings ('Generated by Django …') read, no longer
# skipped as generated; a JSON data set (an array of 100 records or more, 64 KB or more: a test fixture) its first 30
# lines only; a generator's marker in the comment or docstring a file begins with (OpenAPI Generator's, on line 8)
# skips it as generated; an HTML page whose <html>, <body>, <main> or <article> has a class naming a sidebar or nav
# read (it was no text), as is the main content inside what class words took for navigation, and read on past a
# skipped element written self-closed, titled by its name without '.html' when it has no title; a CSV of Excel read
# by its semicolons, one of a header alone a passage of it, a quote never closed reading no further rows into its
# cell; a YAML fixture of records or an HTTP cassette of 64 KB or more its first 30 lines too; Rails' db/schema.rb
# read; Dart's generated parts (.g.dart, 'GENERATED CODE - DO NOT MODIFY') skipped; a katakana word indexed whole too
# (サーバー as サーバ), beside its pairs; a marker inside quotes (a generator's docstring quoting its banner) no longer
# skips; nor one in a comment after code on its line ('__version__ = "1.2.0"  # DO NOT EDIT THIS LINE'); records of
# prose (a chat export's messages) are no data set: read whole; an element of role main read whatever its own class
# words ('has-sidebar'); 16: an HTML page whose <head>, or a skipped <li>, <p> or <td>, is not closed read on where a
# browser ends it; a YAML list or mapping of prose records (an FAQ, messages, authors' bios) read whole, no data set;
# a CSV's separator chosen by its first records, not its first line alone, and a title line above its header a
# passage, no column name; build scripts 'gradle init' wrote, spec_helper.rb of 'rspec --init' and webpack.config.js
# of webpack-cli read, as is a header naming a 'DO NOT EDIT banner' it writes; a table with a cell past 128 KiB read,
# not refused whole; a page's wrapper whose class says the layout has a sidebar ('has-sidebar', 'layout--with-
# sidebar') read; BibTeX (.bib, a passage an entry) and LaTeX (.tex, by its sections) read, no longer kinds Sift does
# not read; Russian ё indexed as е (ещё as еще); a LaTeX '%' in \verb|…| no comment, a comment environment unread; a
# .bib entry in parentheses not ended by a ')' in a quoted value; 17: a LaTeX macro of no argument read as its text,
# a heading over two lines named by both, main.pdf beside main.tex its attachment (not read twice); a .bib entry's
# crossref followed, a line '@word{' inside its value no end of it; a CSV's rows between two stray quotes read as
# rows, a one-column CSV of sentences not cut at its commas; 'Do not edit' no generated marker unless the header says
# a program wrote the file; a YAML mapping of settings records (a CI file's jobs) read whole, no data set; a block
# ends a skipped <p> with what it left open inside it; org-mode, reStructuredText and AsciiDoc read as notes by their
# headings (plain text before); Word documents (.docx) read by their headings, no longer kinds Sift does not read;
# OpenDocument text (.odt) read as a Word document is; mail read (.eml a note, .mbox or a Thunderbird folder a
# passage group a message: ingest.mail), no longer a kind Sift does not read; EPUB books read by their chapters'
# headings (ingest.epub). 18: an EPUB's chapters headed by its table of contents too (a converted book's styled-
# paragraph headings), its footnote marks '[^1]'; a workbook's percentages as shown ('25%') and cells merged down in
# each row; a .docx's altChunk HTML read; .docm, .fodt and .xlsm read; an mbox body's 'From …' line no new message,
# an undated message dated by its 'From ' line, Gmail labels and small attached text files shown, an .rst '.. only::'
# block read and a role wrapped over two lines shown as text, AsciiDoc attributes and footnotes shown, org-roam's
# ROAM_ALIASES out of the text; slide decks (.pptx, .odp) read a slide a heading with their speaker notes
# (ingest.slides), OpenDocument spreadsheets (.ods) as a workbook (ingest.ods): no longer kinds Sift does not read; a
# Logseq page's properties read as its title, aliases and tags, its block ids and references no text (ingest.logseq),
# a Joplin raw note titled by its first line, its properties no text (ingest.joplin); each passage's own date (a mail
# message's Date, an org headline's timestamp, a daily note's name or folders, front matter's date, a document's
# created date: ingest.passage_dates). 19: a note's sections dated by a heading that is a date (a running log's
# '## 2024-03-14'), a note by its month-name folder ('2024/March/'), a workbook's rows by its created date;
# Telegram's and DiscordChatExporter's JSON read as conversations, a passage a day of 'Name: text' lines dated by its
# first message (ingest.chat), no longer JSON lines (a forward's first author, a sticker, a Discord embed read; a
# year-first WhatsApp export a conversation, not text); a Google Keep note's JSON read as a note (ingest.keep), not as
# JSON's lines; a deck's pictures' alt text, charts, SmartArt and comments read, its text boxes a column at a time,
# its slides headed by their PowerPoint section; a Joplin raw note's tags from the tag records beside it; a Logseq
# task's :LOGBOOK: and a page's filters:: no text; a mail's attachments read by their readers as passages of their
# message, a reply's head naming what it replies to, Gmail labels as tags, a body's 'From x <date>' line no message
# (ingest.mail); a whole chat day's or Evernote note's passage at all its lines (Section.made), not its text's count;
# a Slack export's users.json, channels.json … skipped, their names read into its days (ingest.chat.slack_metadata);
# a deck's broken or missing slide a line '[not readable: …]', its other slides read (the deck was skipped).
# 20: an Evernote note's tags, a mail message's Gmail labels and an org headline's tags (with those above it) are its
# passages' own tags (Section.tags), not words only nor the file's; a deck's 2016 charts (cx:chart) read, a slide
# with broken notes or rels its own text read, an .odp whose XML breaks off its pages before the break; a note's
# sections dated by a day heading without its year (the year of a heading, file or folder over it) and by Italian,
# Portuguese, Dutch, Russian, Korean and slashed date headings (ingest.passage_dates); a Markdown outline nested 10
# deep no longer hides the headings below it (ingest.markdown.MAX_NESTING).
# 21: dates written otherwise date passages (ingest.passage_dates): '14-03-2024.md', 'March 14, 2024.md', a
# Zettelkasten id's '202403141530 Title.md', '## 14.03.' under a year, '## 14 mrt 2024', front matter's 'date: May 1,
# 2023', 'created_at:', 'published:'; a Markdown line of list or quote markers past MAX_NESTING ('- - - … x', 76 deep)
# read as a paragraph, no longer hiding the note's rest below it; front matter nested more than 64 brackets deep read
# as text; an office file's zip part failing its CRC check read as it unzips, the damage said (the file was skipped);
# a Logseq block's 'tags:: a, b' tags its passages (cut apart from the blocks around it), the line no text.
# 22: an .eml's meta keeps its Date's time (mail_time: its thread's messages of one day in the order sent); a page of
# Telegram's HTML export (messages.html) read as its conversation, a day a section, not as a web page; more dates date
# passages (ingest.passage_dates): French '1er mai 2023', 'le 1er mai', Italian and Portuguese '1º maggio 2023', an
# org file's '#+DATE: May 1, 2023', a day folder named with its month ('2024/March 14/notes.md'); a Logseq block whose
# first line is 'tags:: a' ('- tags:: a') tags it too, a page's first such block each passage; an org #+TAGS: group
# with a regular expression member ('{P@.+}') keeps its other members.
# 23: a mail file's messages are kept by Message-ID and thread (schema V23's mail_messages: a mailbox's thread joins its
# .eml replies and another mailbox's messages); Outlook's winmail.dat (TNEF) read, its text where the message has no
# other and its files as the message's attachments; a Telegram HTML page's day going on from or into the page beside
# says so in its heading ('(continued from messages.html)'); an iPhone WhatsApp export's document sent without its file
# and its shared location are messages, not notices left out; more dates date passages (ingest.passage_dates): Spanish
# and Portuguese '1ª', '1.º', 'del 2023', 'Mayo de 2023', '14.März 2024', 'Jänner', a file named 'le 1er mai 2023.md' or
# 'lundi 1er mai 2023.md', a periodic note's '2024-03.md', '2024-W10.md', '2024-Q1.md', and 12 or 14 digits only where
# they begin a name ('Invoice 202403141530.pdf' is none); a Logseq page's first block of properties is its title,
# aliases and tags, no passage's text; front matter's 'tag:', 'Tags:', 'alias:' and an unquoted 'tags: #a #b' are its
# tags and aliases; a Markdown paragraph's links past LINK_DEPTH brackets deep unescaped as markdown-it unescapes them
# ('[x](my\_note.md)' names my_note.md, 'a\(1\).md' a(1).md, not 'a\'); a PDF of over 2,000 pages whose sample holds no
# text read whole when a page is given a font (a text layer between the sampled pages was skipped); PDF object streams
# holding over 500,000 objects together refused (ingest.pdf.OBJECT_STREAM_OBJECTS); a mail message's passages are dated
# by its Date as its sender wrote it (ingest.mail.as_written: 23:30 -0500 on 5 March is 5 March, not the 6th in UTC),
# and mail_messages.sent keeps the sender's offset (its day the thread's).
# 24: more date headings date passages (ingest.short_dates): a two-digit year where the form tells the day ('14.03.24',
# '3/14/24'; none in a note whose headings write versions with their release dates, '20.10.17 (2022-06-06)'), a weekday
# with a day written with numbers ('Di 14.5.', 'Tue 5/14': the year over it, of front matter, or the one its weekday
# fits), a calendar week ('KW 10', 'Week 10', '第10周': its Monday; '### Dienstag' under it, its Tuesday; '### 30.12.'
# under a week begun in another year, the year that puts it in the week; a day over a month before its front matter's,
# the next year's: a log begun in December); a note's author (front matter's 'author:', a Logseq page's 'author::') is
# its meta's author, no passage's words; a Logseq page's top properties and first block of properties give their tags
# and aliases together. Chinese is held by keyword search in Simplified characters (search.query.text.index_form: 數據庫 as
# 数据库), so a query in either script counts a word's pairs once, wherever the note writes it in the other script; a
# mailbox's reply naming no parent (no In-Reply-To nor References: a phone's, a web mail's) joins the thread of the
# latest message before it of its Subject without 'Re:', 'AW:', '回复:' … among the same people within 30 days
# (ingest.mail.Threads): its head names that message, and its row of mail_messages that thread's key; a
# DiscordChatExporter day is dated by the time its export writes, not the instant (as a mail's Date); a Markdown note's
# '#word' written in code elsewhere in the note (`#find_or_create_by`, a Ruby method), in a link's text ('[…
# #find_or_create_by](….md)') or right after a code span ('`…`#classify') is no tag; a WhatsApp day's passages are at
# its messages' lines (Section.lead: its text's day line is none of the file's), not from the day before's last line; a
# mail message's row of mail_messages keeps its Subject without 'Re:' and its addresses (schema V24): a reply naming no
# parent joins its thread in another mail file too (search.query.mail_threads), and within a mailbox no longer by its
# sender alone (search.query.mail_people.same_people: one's own replies in Sent to two people). A front matter's
# empty 'author:' no longer hides its 'authors:'; a Logseq page's top 'author::' wins over its first block's, as
# its 'title::' does. A Cython header with '#' in a string ('def f(x="#("):') is its definition's heading.
# A heading 'W 10' (with a space) is no calendar week, as 'W10' is none (a wing, away, a width as often).
# 25: a code block's '#word' at a line's start or after a space (a comment or directive: '#TODO', '#include') no
# longer takes the note's own tag of that word away; only one glued to a name ('User#save') is code; a '## Week 10',
# 'Woche 10', '第10周' without its own year is a calendar week only where another of the note's weeks is written 'KW' or
# with its year, or a day under one of them falls in that calendar week (a course's weeks in 'Course 2024.md' are
# none); 'W10/2024' is one; a .docx's core properties author is its meta's author (a placeholder such as 'python-docx'
# is none), as a PDF's metadata author: its title column holds it, its hits say '(by …)' and search's author filter
# finds it; a passage cut from inside a WhatsApp day is at its own messages' lines past those its text leaves out (a
# notice, a deleted message, an attached file's name line: Section.marks), not a line early for each one before it;
# a '## 19.03.12' without its release date is a version, no day, in a CHANGELOG, NEWS, HISTORY or RELEASES file, beside
# a heading that is a version ('## 1.2.3', '## v19.03.11') or among such headings whose last number changes where a
# log's first does; a day without its year after the last of December in a log of one year ('log-2024.md': '## Tue
# 12/31', '## Wed 1/1') is of the next year.
# 26: a day without its year in a log of one year that has run on past New Year is of the next year however long after
# the day before it ('## 02.01.' then '## 20.02.' in '2024.md': 20 February 2025, where it went back to 2024), not
# after a day of the next year written with its year ('## 2025-01-10'); a
# section numbered with a dot after it ('## 1.2.3. Einleitung') is no version, and leaves a log's '## 14.03.24' a day;
# a WhatsApp message whose text starts on the line below its head ('[12/03/2024, 09:14] Ben: ') is at its text's
# lines, not a line early (its head's space trimmed, 'Ben:', it was left out as a notice); a mail reply naming no
# parent is not joined by its Subject to one's own such reply (mail_people.own_guess): a phone's replies to a daily
# 'Standup' in Sent were one thread of two months; an iPhone's file sent with words ('‎<attached: …>' over them) is
# kept with them, not left out as a notice; an .odt's, an .odp's (meta.xml's meta:initial-creator, else dc:creator),
# an EPUB's (its package's dc:creator) and a .pptx's (core.xml's dc:creator) author is its meta's author, as a
# .docx's; and a metadata author of two Chinese, Japanese or Korean characters (王伟) is one, where the three-letter
# rule dropped it. A chat export's meta names its speakers (ingest.chat.speakers_of), the author filter's heads: a line
# of a message over several that began 'Note: …' made Note one.
# 27: a changelog is told by its file's shape (ingest.short_dates.versioned): a person's 'changes.md' of days ('##
# 03.11.24') and a note with a section '## 3.1.4: Results' keep their days, where they were read as versions; a
# version is one alone, with its date ('## 1.2.3 (2020-01-01)'), 'v' or brackets, beside '## [Unreleased]', or among
# headings of numbers going down ('## 2.1.0 - Fixes', '## 2.0.0 - First'); a day of its whole year first ('##
# 2024.03.14') is none. A mail reply's Subject prefix as Outlook writes it in other languages ('RES:', 'Antw:',
# 'Odp:', 'ΑΠ:', '회신:', '回覆:') is one: such a reply naming no parent is joined to its thread by its Subject. A reply's
# quote below its own text under Outlook's block ('From: …' / 'Sent: …', 'Von:' / 'Gesendet:' …, no '-----Original
# Message-----' over it) is left out, as that line's is: a search found every reply of a chain after it; a line of a
# chat message below its first that reads as a message's head ('Ben Okafor: yes' of a quote or a pasted log) is set in
# by a space (ingest.chat._line): the author filter counted Ben among that day's speakers. A note 'Changes.md' (not
# Perl's 'Changes', of no extension) is no changelog by its name either.
# 28: a day written day first with a dot after its month and no year ('## 14.3.', '## 7.3.' newest first) or with
# its whole year last ('## 14.03.2024') is no version's number: a log holding such headings had its '## 21.03.24' days
# read as versions (ingest.short_dates.versioned).
# 29: an HTML page's paragraph past 100,000 characters without a line break or sentence end is cut at a space, and a
# <script> or <style> whose start tag is over 64 KB is skipped, where its code was read as the page's text
# (ingest.webpage).
# 30: a WhatsApp export of a Chinese or Japanese phone, its hours after 上午/下午 (午前/午後), is a chat, read as plain text
# before (ingest.chat; a day leading its month, Hong Kong's '5/3/2024 下午3:02', is the day); a line begun by a speaker's
# name and a colon ('我: 收到') is not joined to a long Chinese line above it as a wrapped one, its keyword rows holding
# the pair 了我 of '…发给你了' / '我: …' (search.query.text), in a text where a line began so already (a chat's): a wrapped
# paragraph's line holding ': ' is joined as before. A Markdown '$$' math block opened in a list item and closed past
# the item's end ends with the item (or with the quote the item is in), where it took everything down to its closing
# '$$' (the list's next items, headings, their links and tags) as math, or in a quote was each line a paragraph
# (ingest.markdown._math_block). A Markdown note's front matter that is no YAML ('title: Meeting: Q3 planning') is read
# as its text, where it was a setext heading over its closing '---' that headed every passage of the note; not a block
# with a blank line in it (a note opening with a rule, 'Update: …', then its headings). A deck's slide and a mailbox's
# message that cannot be read say why in words, '[not readable: ppt/slides/slide3.xml: its XML is damaged (…)]', where
# Python's class name stood ('ParseError: …'; ingest.unreadable). A WeChat chat exported as text (MemoTrace's TXT or
# CSV, a merged forwarded chat pasted) is a conversation, a day a section, where it was plain text or a table's rows
# (ingest.wechat). A Markdown '$$' line in a block quote whose closing '$$' lies below the quote is the quote's
# paragraph text, where it ended the paragraph above it (a link written across it was no link). An Obsidian callout in a
# list item ('- item' then '  > [!warning] Rollback plan') heads its lines as one at the top does, where they were the
# list's passage. Front matter that is no YAML still gives the title, tags and aliases its own lines write ('title:
# Meeting: Q3 planning' titled the note by its file name), in every passage's title column.
# 31: MemoTrace's HTML export of a WeChat chat is a conversation, read from its page's script (ingest.wechat.read_html),
# where it was a web page of its template's error text; a MemoTrace CSV's reply (Type 49, SubType 57) is a message,
# '王医生: [回复]', where the row was left out (its words are in a column the CSV does not write); a zipped chat in GBK is
# read (ingest.chat, ingest.decode.head_text); a line '磁盘写入: …' below a wrapped Chinese line is joined to it unless the
# text is a chat's (a time, a speaker's two lines, a message ended), where a first line '注意: …' made it one
# (search.query.text). Front matter's 'Title:' (any case) is the note's title, and an alias written '- Planning: Q3' (a
# mapping to YAML) the alias 'Planning: Q3', where both were dropped; front matter that is no YAML gives every key valid
# front matter gives (its date, author, 'Title:'), a list item that is no YAML as its text (ingest.markdown). A wiki
# link in a table with its '|' escaped ('[[Garden Shed\|the shed]]', as Obsidian writes it there) links to 'Garden
# Shed', not 'Garden Shed\'. A Word document's paragraphs and headings numbered by Word ('2.2', '(b)', a heading style's
# '12.') are read with the numbers Word shows, where a list's were '- ' items and a heading's were left out: a
# contract's clause numbers were in none of its passages (ingest.word_numbering). A .txt journal whose entries open
# '2026-11-28 09:00:00 Standup' is plain text, where it was a MemoTrace chat, its titles speakers (ingest.wechat). A
# .bib field's, a .tex title's and heading's math is kept ('TNF-$\alpha$' read 'TNF-$$'), and a lone Greek letter in
# math is the letter, TNF-α (ingest.latex.line_text).
# 32: a .txt journal whose title repeats ('2026-11-23 09:00:00 Standup' most days), its times most on a whole minute, is
# plain text, where it was a MemoTrace chat, 'Standup' its speaker (ingest.wechat). A MemoTrace HTML page's days are at
# the lines read_file shows of it (a day's heading, a line a message), where all were at its script's one line.
# MemoTrace's Word export of a WeChat chat ('王医生_1.docx') is a conversation, a day a section, its speakers by their
# avatars' side (ingest.wechat_docx), where it was a Word document of its messages' lines, no speaker, no day. A log is
# cut at each day its lines' timestamps begin, each day's passages dated by its first line's time (ingest.logs), where
# the whole log was one undated run of lines; rotated logs ('syslog.1', 'app.log.2') are read as logs. A server
# configuration's brace blocks head its passages, 'nginx > http > server wiki.example.com > location /api/'
# (ingest.code_forms.config_blocks), where a passage deep in a long server block did not say which it was. A Markdown
# heading inside an Obsidian '%% … %%' comment heads nothing (it headed the text after the comment), and an Excalidraw
# drawing's comment ('%%', '# Drawing') above its data is no passage (ingest.markdown). Subtitles and transcripts (.srt,
# .vtt) are read (ingest.subtitles), no longer kinds Sift does not read: their cues' text packed into passages headed by
# the time the first starts ('Lecture 7 > 00:41:12'), no numbers nor timings. Anki's export of notes (.txt) is read a
# card a row under the deck's name and 'Front | Back' (ingest.flashcards), where it was one passage of every card, ids
# and header lines among them, and a .csv's first card its column names. A Word equation (OMML), a PowerPoint slide's
# too, is its text in about Word's linear form (ingest.word_math), where it was left out. R Markdown (.Rmd) and Quarto
# (.qmd) documents are read as Markdown notes (kinds Sift did not read). A Scrivener project's scene, its notes and
# synopsis (synopsis.txt was read, titled 'synopsis.txt') are titled by the scene's binder title, under the binder
# folders holding it, 'Meeting at the Quay — Manuscript > Part One' (ingest.scrivener); .rtf is read. A PDF's compound
# of two English words broken at a line end keeps its hyphen where the PDF writes both words elsewhere and never joined
# ('beta-' / 'blocker' was indexed 'betablocker', which 'beta-blocker' did not find: ingest.pdf._both_words). A Word
# contract's paragraphs numbered under a '§ 5 …' heading ('(2) …') and a clause's lettered parts ('(b) …' under '12.3
# …') are passages headed by their reference, '§ 5 Vergütung > § 5 Abs. 2', '… > 12.3(b)' (ingest.legal_paragraphs): no
# passage wrote '§ 5 Abs. 2'. A notebook's code cell is followed by its text outputs ('Out: AUC 0.873', a warning, an
# error's message), where every output was left out, and a markdown cell of headings alone ('## Training') begins the
# passage of the cell under it, where it was a passage of that word alone, and a heading closes those of its level and
# deeper, where a notebook's '## ' headings were each nested under the one before (ingest.notebook). R is cut at its
# functions, 'survival > fit_churn_curve' (ingest.code_forms.r_functions), where it was windowed by lines under the
# file's name. A notebook's stream output over 64 KB of JSON (a training log) is its last 2,000 characters ('Out: …
# epoch 29: val_auc 0.912'), where it was left out whole with its final metric (ingest.notebook._stream_tail).
VERSION = 32

# A code section of fewer tokens (a module's docstring and imports, a class's header line, a one-line function)
# joins its neighbour: a text that short embeds as generic code, close to any query or passage, so it ranked
# high in semantic search and `similar` for what it does not hold. A quarter of the limit where that is less.
SMALL_CODE_TOKENS = 48
JOIN_SLACK = 8  # two sections counted apart hold their special tokens twice: the joined text is not counted past this


def _sized(doc: Document, count: Counter, max_tokens: int):
    """(section, its tokens or None when not counted yet) to cut, in order: a code file's sections under
    SMALL_CODE_TOKENS joined to the next one (to the one before at the end of the file, or before a section
    they do not fit with) where the two fit in one chunk, heading path and all; a joined section's heading path
    names every definition it holds (``joined_heading``). Each joined section is counted once here and not
    again when cut."""
    if "columns" in doc.meta:
        yield from packed_rows(doc, count, max_tokens)
        return
    if "cues" in doc.meta:  # a subtitle file's cues, packed under the time the first of each passage starts
        from ingest.subtitles import packed_cues
        yield from packed_cues(doc, count, max_tokens)
        return
    if doc.kind != "code" or len(doc.sections) < 2:
        yield from ((section, None) for section in doc.sections)
        return
    least = min(SMALL_CODE_TOKENS, max_tokens // 4)
    forward = []
    for section in doc.sections:
        _add_joined(forward, (section, count(section.text), [section.heading_path]), least, count, max_tokens,
                    into_next=True)
    backward = []
    for sized in forward:
        _add_joined(backward, sized, least, count, max_tokens, into_next=False)
    yield from ((section, tokens) for section, tokens, _ in backward)


# A table's passage holds rows up to this part of the limit: about four task rows at 256 tokens. Rows to the limit
# (eight) put a project's three rows in one passage among five others, and the design review of the project
# outranked it for 'tasks of the rate limiting project' (bench/wiki.py hybrid: first 36 at the limit, 37 at half).
ROWS_SHARE = 2


def packed_rows(doc: Document, count: Counter, max_tokens: int):
    """(section, its tokens) of a table's rows (ingest.table: a section a row, ``meta["columns"]`` its column
    names) packed in order, as many consecutive rows to a section as fit in 1/ROWS_SHARE of a chunk under the
    table's title and column names (its heading path, embedded with it: 'Tasks > Name | Assignee | …', what the
    rows are), never a row split between two; a longer row is a section alone, one over the limit cut as any text
    is. A data file's (``meta["data"]``) first section only. A workbook's rows (ingest.xlsx) bring their own heading
    path (its title, the sheet's name, its column names): packed a sheet at a time, a data sheet's
    (``meta["data_sheets"]``) first section only."""
    default = [name for name in (doc.title, doc.meta["columns"]) if name]
    rows: list[Section] = []
    heading, done = default, None
    for row in doc.sections:
        own = row.heading_path or default
        if own == done:  # a data sheet's rows past its first section
            continue
        if rows and own != heading:
            yield _packed(rows, heading, count)
            rows = []
        heading = own
        joined = Section(text="\n".join(r.text for r in rows + [row]), heading_path=heading,
                         start_line=(rows or [row])[0].start_line, end_line=row.end_line)
        whole = count(embedding_text(context_of(heading, joined.text), joined.text))
        if whole <= max_tokens // ROWS_SHARE:
            rows.append(row)
            continue
        if rows:
            yield _packed(rows, heading, count)
            if doc.meta.get("data"):
                return
            if heading[1:2] and heading[1] in doc.meta.get("data_sheets", ()):
                done, rows = heading, []
                continue
        rows = [row]
    if rows:
        yield _packed(rows, heading, count)


def _packed(rows: list[Section], heading: list[str], count: Counter) -> tuple[Section, int | None]:
    if len(rows) == 1:  # perhaps over the limit alone: counted when cut
        return Section(text=rows[0].text, heading_path=heading, start_line=rows[0].start_line,
                       end_line=rows[0].end_line), None
    text = "\n".join(row.text for row in rows)
    return Section(text=text, heading_path=heading, start_line=rows[0].start_line, end_line=rows[-1].end_line), \
        count(text)


def _add_joined(sized: list, new: tuple, least: int, count: Counter, max_tokens: int, into_next: bool) -> None:
    """Append ``new`` (section, tokens, the heading paths of the sections it holds) to ``sized``, or join the two
    last: the one before into ``new``'s section when it is small and ``into_next``, else ``new`` into the one
    before when ``new`` is small."""
    if sized:
        (before, tokens_before, paths_before), (section, tokens, paths) = sized[-1], new
        small = tokens_before < least if into_next else tokens < least
        if small and tokens_before + tokens <= max_tokens + JOIN_SLACK and \
                before.end_line is not None and before.end_line + 1 == section.start_line:
            joined = Section(text=f"{before.text}\n{section.text}",
                             heading_path=joined_heading(paths_before + paths),
                             start_line=before.start_line, end_line=section.end_line)
            whole = count(joined.text)
            if _fits_whole(joined, whole, count, max_tokens):
                sized[-1] = (joined, whole, paths_before + paths)
                return
    sized.append(new)


# Definitions a joined passage's heading names, in file order; '+4' after them says how many more it holds.
NAMED_IN_HEADING = 3


def joined_heading(paths: list[list[str]]) -> list[str]:
    """The heading path of a passage joining code sections with these heading paths, in file order: what they
    share, then the names of the definitions the passage holds after it, ', ' between, a name nested further
    written with '.' (``errors > XmpDocumentError, LimitReachedError``, ``mini > MiniHuey > periodic_task,
    start``, ``api > Huey.stop, Result``), past NAMED_IN_HEADING as '+N' (``a, b, c +4``). A section whose
    path encloses another's (the module's imports, a class's header line) names nothing of its own: imports
    joined to ``retry > backoff`` stay under it. The passage had the heading path of the one section it was
    joined to: pypdf's ``class XmpDocumentError`` was found under ``errors > LimitReachedError``."""
    named = list(dict.fromkeys(tuple(path) for path in paths
                               if not any(len(other) > len(path) and list(other[:len(path)]) == list(path)
                                          for other in paths)))
    if len(named) == 1:
        return list(named[0])
    shared = 0
    while all(len(path) > shared + 1 and path[shared] == named[0][shared] for path in named):
        shared += 1
    names, more = [], 0
    for path in named:  # a section named for several definitions (Go's ``const ( … )``) adds each
        *owners, last = path[shared:]
        shown = LISTED_MORE.search(last)
        more += int(shown.group(1)) if shown else 0
        names += [".".join(owners + [name]) for name in LISTED_MORE.sub("", last).split(", ")]
    return list(named[0][:shared]) + [listed(names, more)]


LISTED_MORE = re.compile(r" \+(\d+)$")


def listed(names: list[str], more: int = 0) -> str:
    """``names`` as a heading names them: the first NAMED_IN_HEADING, ', ' between, and how many more ('a, b, c
    +4'); ``more``: names not in ``names`` to count too."""
    more += max(0, len(names) - NAMED_IN_HEADING)
    return ", ".join(names[:NAMED_IN_HEADING]) + (f" +{more}" if more > 0 else "")


def _fits_whole(section: Section, whole: int | None, count: Counter, max_tokens: int) -> bool:
    """Whether the section is one chunk: its text and the headings it does not show are within the limit."""
    if whole is None or whole > max_tokens:
        return False
    lead = context_of(section.heading_path, section.text)
    return not lead or count(embedding_text(lead, section.text)) <= max_tokens


def chunking(max_tokens: int, overlap: int) -> str:
    """How files are cut, as a generation records it: a scan that finds the published generation cut otherwise
    reads every file again, so a new chunk size or an upgraded chunker reaches files that did not change."""
    return f"v{VERSION} {max_tokens}/{overlap}"


def plain_count(text: str) -> int:
    """Tokens of ``text`` for an index without a model (SIFT_EMBEDDINGS=off), which has no tokenizer to count
    with and must not build one: words, CJK characters and punctuation marks. About what e5 counts (it counted
    0.95-1.4 times as many on Sift's examples, README and code), so chunks keep about the same size."""
    return len(PLAIN_TOKEN.findall(text))


def chunk_section(section: Section, count: Counter, max_tokens: int, overlap: int) -> list[Chunk]:
    return list(_section_chunks(section, count, max_tokens, overlap))


def _section_chunks(section: Section, count: Counter, max_tokens: int, overlap: int, whole: int | None = None):
    """The section's chunks, one at a time: its lines are counted only as far as the chunks are taken
    (``whole``: its tokens, when they were counted already)."""
    text = section.text
    if not text.strip():
        return
    if whole is None:
        whole = None if _surely_over(text, count, max_tokens) else count(text)
    if _fits_whole(section, whole, count, max_tokens):
        yield _chunk(section, 0, len(text), whole)
        return
    special = count("")
    room = _context_room(section.heading_path, count, special, max_tokens)
    heads = _table_heads(text, section.atomic)
    head_room = _head_room(heads, count, special, max_tokens // 4 - room)
    heads = heads if head_room else []
    budget = max_tokens - room - head_room - special
    if budget <= 0:
        # a setting's, not a bug's: said as SIFT_CHUNK_TOKENS's (workers.retry.describe gives a SettingError its words)
        raise SettingError(f"SIFT_CHUNK_TOKENS={max_tokens} leaves no room for text beside the model's {special} "
                           f"special tokens and the passage's headings: give a larger chunk size (the default is 256)",
                           "SIFT_CHUNK_TOKENS")
    units = _Lazy(_units(text, section.atomic, count, special, budget, min(budget, overlap) or budget))
    seen = [0, 0]
    for start, end, tokens in _windows(text, units, count, max_tokens - room - head_room, overlap, special):
        yield _chunk(section, start, end, tokens, with_context=room > 0, table_head=_head_at(heads, start),
                     breaks=_breaks_before(text, start, seen))


def _breaks_before(text: str, start: int, seen: list[int]) -> int:
    """The line breaks in ``text`` before ``start``, counted on from ``seen`` (the offset asked before and its
    count; updated): windows come in order, backing up by at most their overlap. Counted from the section's start
    for each window, a 20 MB section's breaks took half the time of cutting it (quadratic: 21 of 39 s at 4 MB)."""
    at, breaks = seen
    breaks += text.count("\n", at, start) if start >= at else -text.count("\n", start, at)
    seen[:] = [start, breaks]
    return breaks


PROBE_CHARS = 1 << 20  # a section longer than this is first counted up to a line end near here


def _surely_over(text: str, count: Counter, max_tokens: int) -> bool:
    """Whether a long section's first lines already pass the limit, so that it need not be counted whole
    (a 64 MiB section is 14 M tokens held at once). Cut at a line end, where tokenizers split anyway; the
    margin covers a token that the cut could still change."""
    if len(text) <= PROBE_CHARS:
        return False
    cut = text.rfind("\n", 0, PROBE_CHARS)
    return cut > 0 and count(text[:cut]) > max_tokens + 8


class _Lazy:
    """A list filled from an iterator as far as it is read."""

    def __init__(self, items):
        self.items, self.source = [], iter(items)

    def has(self, index: int) -> bool:
        while len(self.items) <= index:
            item = next(self.source, None)
            if item is None:
                return False
            self.items.append(item)
        return True

    def __getitem__(self, index: int):
        if not self.has(index):
            raise IndexError(index)
        return self.items[index]


def _context_room(heading_path: list[str], count: Counter, special: int, max_tokens: int) -> int:
    """Tokens a window of this section keeps free for its context (the whole heading path, a blank line
    and a token of slack where the join tokenises differently); 0 where that would take more than a
    quarter of the limit: such a section's windows are embedded without context."""
    full = " > ".join(name.strip() for name in heading_path if name.strip())
    if not full:
        return 0
    room = count(full + "\n\n") - special + 1
    return room if room <= max_tokens // 4 else 0


def _units(text, atomic, count, special, budget, grain):
    """(start, end, tokens) spans that tile ``text``, each at most ``budget`` tokens, in order; text cut at no
    sentence, clause or space in pieces of at most ``grain`` tokens (the overlap: windows carry such pieces)."""
    for start, end in _merge_atomic(_line_spans(text), atomic, text, count, special, budget):
        tokens = count(text[start:end]) - special
        if tokens <= budget:
            yield start, end, tokens
        else:
            yield from _split_long(text, start, end, count, special, budget, grain)


def _line_spans(text: str):
    start = 0
    while start < len(text):
        newline = text.find("\n", start)
        end = len(text) if newline < 0 else newline + 1
        yield start, end
        start = end


def _merge_atomic(spans, atomic, text, count, special, budget):
    """Join the lines of each atomic block into one span when the block fits the budget."""
    if not atomic:
        yield from spans
        return
    spans, i = _Lazy(spans), 0
    for block_start, block_end in sorted(atomic):
        while spans.has(i) and spans[i][1] <= block_start:
            yield spans[i]
            i += 1
        j = i
        while spans.has(j) and spans[j][0] < block_end:
            j += 1
        if j > i and count(text[spans[i][0]:spans[j - 1][1]]) - special <= budget:
            yield spans[i][0], spans[j - 1][1]
            i = j
    while spans.has(i):
        yield spans[i]
        i += 1


def _split_long(text, start, end, count, special, budget, grain, level=0):
    """Cut one over-long span at sentence ends, then clause marks, then spaces, then characters: pieces of
    ``grain`` tokens, as a window carries only whole pieces into the next (pieces of a whole budget each, a
    long run of Chinese characters was cut with no overlap at all, and a word across a cut was in no chunk)."""
    if level >= len(CUT_POINTS):
        return _split_chars(text, start, end, count, special, grain)
    cuts = {start, end} | {m.end() for m in CUT_POINTS[level].finditer(text, start, end)
                           if start < m.end() < end}
    cuts = sorted(cuts)
    pieces = []
    for a, b in zip(cuts, cuts[1:]):
        tokens = count(text[a:b]) - special
        if tokens <= budget:
            pieces.append((a, b, tokens))
        else:
            pieces.extend(_split_long(text, a, b, count, special, budget, grain, level + 1))
    return pieces


def _split_chars(text, start, end, count, special, budget):
    """Cut a span without sentence ends or spaces (base64, a minified blob, a long CJK run).

    Each piece is sized from the characters per token of the piece before and then
    checked, shrinking in proportion while it is over. That costs one or two counts of
    about a piece each, so a long run is cut in linear time (searching the whole rest
    of the run for each piece made a 200 KB line of base64 take minutes).
    """
    pieces = []
    step = max(1, budget)  # characters to try; at least one character per token is typical
    while start < end:
        stop = min(end, start + step)
        tokens = count(text[start:stop]) - special
        while tokens > budget and stop - start > 1:
            stop = start + max(1, min(stop - start - 1, (stop - start) * budget * 15 // (tokens * 16)))
            tokens = count(text[start:stop]) - special
        pieces.append((start, stop, tokens))
        grown = (stop - start) * budget * 31 // (max(tokens, 1) * 32)  # aim just under the budget next time
        step = max(1, grown if stop < end else step)
        start = stop
    return pieces


# A thematic break on a line of its own after a blank line (CommonMark's `***`, `* * *`, `---`, `___`): where a
# story's scene ends, or a note's topic changes.
SCENE_BREAK = re.compile(r"[ ]{0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})\s*")


def _scene_break(text: str, unit) -> bool:
    start, end = unit[0], unit[1]
    if not SCENE_BREAK.fullmatch(text, start, end):
        return False
    before = text.rfind("\n", 0, max(start - 1, 0))
    return start == 0 or not text[before + 1:start].strip()  # `---` under a line of text is a heading's rule


def _windows(text, units: _Lazy, count, max_tokens, overlap, special):
    """Greedy runs of units under the limit; each next run backs up by <= overlap tokens. A scene break ends a run
    that holds a third of the limit already, and no run carries text back over one: a passage is one scene where
    it can be (a window over the end of one scene and the start of the next matched neither by meaning)."""
    first = 0
    while units.has(first):
        last, total = first, units[first][2]
        while units.has(last + 1) and special + total + units[last + 1][2] <= max_tokens:
            if special + total >= max_tokens // 3 and _scene_break(text, units[last + 1]):
                break
            last += 1
            total += units[last][2]
        start, end = units[first][0], units[last][1]
        exact = count(text[start:end])
        while exact > max_tokens and last > first:  # joins tokenised differently
            last -= 1
            end = units[last][1]
            exact = count(text[start:end])
        yield start, end, exact
        if not units.has(last + 1):
            break
        nxt, carried = last + 1, 0
        while nxt - 1 > first and carried + units[nxt - 1][2] <= overlap and not _scene_break(text, units[nxt]):
            nxt -= 1
            carried += units[nxt][2]
        # carry back only what leaves room for the next unit: a window of carried text alone repeats the one
        # before (a long paragraph after a line of dialogue made two more passages of that line)
        while nxt <= last and special + carried + units[last + 1][2] > max_tokens:
            carried -= units[nxt][2]
            nxt += 1
        first = nxt


# A Markdown table's rule line, under its header row: |---|:--:| (GFM).
TABLE_RULE = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*\n?")


def _table_heads(text: str, atomic) -> list[tuple[int, int, str]]:
    """(where its rows start, where it ends, its header row) of each table among the ``atomic`` blocks: a window
    that starts among a long table's rows is embedded with the header row it does not show, so that '| Alice |
    555-0100 |' reaches the model as a name and a phone number, as in the first window."""
    heads = []
    for start, end in atomic:
        first = text.find("\n", start, end)
        second = text.find("\n", first + 1, end) if first >= 0 else -1
        rows = end if second < 0 else second + 1
        if first > start and "|" in text[start:first] and TABLE_RULE.fullmatch(text, first + 1, rows):
            heads.append((rows, end, text[start:first].strip()))
    return heads


def _head_room(heads, count: Counter, special: int, most: int) -> int:
    """Tokens a window keeps free for the longest table header row (and a line break); 0 where there is no table
    or that would take more than ``most`` (a quarter of the limit with the headings)."""
    if not heads:
        return 0
    room = max(count(head + "\n") - special for _, _, head in heads) + 1
    return room if room <= most else 0


def _head_at(heads, start: int) -> str:
    return next((head for rows, end, head in heads if rows <= start < end), "")


def _marked(marks: tuple[tuple[int, int], ...], line: int) -> int:
    """The file's line of its text's line ``line`` (from 0) by ``marks`` (Section.marks): the last mark's at or
    before it and the lines after that (a message of several lines)."""
    text_line, file_line = marks[max(0, bisect.bisect_right(marks, (line, 1 << 62)) - 1)]
    return file_line + max(0, line - text_line)


def _chunk(section: Section, start: int, end: int, tokens: int, with_context: bool = True,
           table_head: str = "", breaks: int | None = None) -> Chunk:
    text = section.text
    chunk = Chunk(text=text[start:end], heading_path=list(section.heading_path), tokens=tokens, offset=start,
                  dated=section.dated, tags=section.tags)
    if with_context:
        chunk.context = context_of(section.heading_path, chunk.text)
    if table_head:
        chunk.context = f"{chunk.context}\n{table_head}" if chunk.context else table_head
    if section.start_line is not None:
        before = text.count("\n", 0, start) if breaks is None else breaks
        body = text[start:end].rstrip()  # trailing blank lines name no line
        chunk.start_line = section.start_line + max(0, before - section.lead)  # its text's lead is at its first line
        chunk.end_line = section.start_line + max(0, before + body.count("\n") - section.lead)
        if section.marks:  # lines its text leaves out (a WhatsApp day's notices): counted from the marks before
            chunk.start_line, chunk.end_line = (_marked(section.marks, max(before, section.lead)),
                                                _marked(section.marks, max(before + body.count("\n"), section.lead)))
        if section.made and section.end_line is not None and not text[end:].strip() and not text[:start].strip():
            chunk.end_line = section.end_line  # its whole text: to its last line (a chat day's last message's '}')
        if section.end_line is not None:  # a section on fewer lines than its text (a canvas card's on its JSON line)
            chunk.start_line, chunk.end_line = min(chunk.start_line, section.end_line), min(chunk.end_line,
                                                                                            section.end_line)
    if section.page_starts:
        offsets = [offset for offset, *_ in section.page_starts]
        first, chunk.page, *within = section.page_starts[max(0, bisect.bisect_right(offsets, start) - 1)]
        chunk.end_page = section.page_starts[max(0, bisect.bisect_right(offsets, max(start, end - 1)) - 1)][1]
        chunk.page_starts = [(0, chunk.page, start - first + sum(within))] + [
            (offset - start, page, 0) for offset, page, *_ in section.page_starts if start < offset < end]
    elif section.page is not None:
        chunk.page, chunk.end_page = section.page, section.end_page or section.page
    return chunk
