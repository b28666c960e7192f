"""Subtitles and transcripts (SubRip ``.srt``, WebVTT ``.vtt``: a recorded lecture's, a meeting's, a video's) read as
what was said: a cue's text without its number, its timing line or its markup (``<i>``, ``{\\an8}``, WebVTT's
``<c>`` and word timings; a ``<v Name>`` voice as ``Name: ``), a line a cue, a line a rolling caption repeats from
the cue before left out (YouTube's automatic captions show each line twice). The cues are packed in order into
passages under the token limit (``packed_cues``, at chunking, which counts tokens), each headed by the file's title
and the time its first cue starts, ``Lecture 7 > 00:41:12``: the hit tells where in the recording it was said. Before,
neither kind was read at all. A file of no timing line is read as plain text.
"""
from __future__ import annotations

import html
import re
from pathlib import PurePosixPath

from ingest.document import Document, Section, title_from_name

# a cue's timing line: its start ('00:41:12,500', WebVTT's '41:12.500' without hours) '-->' its end, settings after
TIMING = re.compile(r"\s*(?:(\d{1,3}):)?([0-5]?\d):([0-5]\d)(?:[.,]\d{1,3})?\s*-->\s*(?:(\d{1,3}):)?([0-5]?\d):"
                    r"([0-5]\d)(?:[.,]\d{1,3})?(?:\s.*)?")
VOICE = re.compile(r"<v(?:\.[\w.-]+)?\s+([^>]+)>")  # WebVTT's speaker: '<v Prof. Strang>'
MARKUP = re.compile(r"</?[A-Za-z][^<>]{0,200}>|<\d[\d:.]*>|</v>|\{\\[^{}]{0,80}\}")  # tags, word timings, ASS codes
VTT_TITLE = re.compile(r"\ufeff?WEBVTT[ \t]+(?:-[ \t]+)?(\S.*)")
# the language a subtitle file's name ends with, as players and yt-dlp name them: 'Lecture 07.en.srt', 'x.pt-BR.vtt'
LANGUAGE = re.compile(r"\.[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,4})?$")


def parse_subtitles(path: str, text: str) -> Document | None:
    """``text``'s cues as a Document, a section a cue (its text, at its lines) and ``meta["cues"]`` their (start,
    end) times in seconds, in order; None when it holds no timing line."""
    lines = text.split("\n")
    first = lines[0].strip() if lines else ""
    named = VTT_TITLE.fullmatch(first)
    title = named.group(1).strip() if named else title_from_name(LANGUAGE.sub("", PurePosixPath(path).stem))
    sections, starts, said, speaker = [], [], ["", ""], ""
    at = 0
    while at < len(lines):
        timing = TIMING.fullmatch(lines[at].rstrip("\r"))
        if timing is None:
            at += 1
            continue
        begin = at if at == 0 or not lines[at - 1].strip() else at - 1  # its number or identifier line
        at += 1
        shown = []
        while at < len(lines) and lines[at].strip() and not TIMING.fullmatch(lines[at].rstrip("\r")) \
                and not _numbered(lines, at):
            voice, line = _plain(lines[at])
            if line and line not in said:  # a rolling caption's line the cue before showed
                changed = voice and voice != speaker  # a speaker named where the voice changes, not at every line
                shown.append(f"{voice}: {line}" if changed else line)
                said, speaker = [said[-1], line], voice or speaker
            at += 1
        if shown:
            sections.append(Section(text=" ".join(shown), heading_path=[title], start_line=begin + 1, end_line=at,
                                    made=True))
            times = [int(number or 0) for number in timing.groups()]
            starts.append((times[0] * 3600 + times[1] * 60 + times[2], times[3] * 3600 + times[4] * 60 + times[5]))
    if not sections:
        return None
    return Document(kind="note", title=title, sections=sections, meta={"cues": starts})


def _numbered(lines: list[str], at: int) -> bool:
    """Whether line ``at`` is the next cue's number, no blank line before it (a file edited by hand)."""
    return lines[at].strip().isdigit() and at + 1 < len(lines) and \
        TIMING.fullmatch(lines[at + 1].rstrip("\r")) is not None


def _plain(line: str) -> tuple[str, str]:
    """(the speaker a WebVTT voice tag names or '', the line's text without markup)."""
    voice = VOICE.search(line)
    return (" ".join(voice.group(1).split()) if voice else "",
            " ".join(html.unescape(MARKUP.sub("", VOICE.sub("", line))).split()))


def clock(seconds: int) -> str:
    """A time in a recording as a hit shows it: '00:41:12'."""
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


# A pause of this many seconds or more between two cues (the lecturer writing on the board, a new topic) begins a
# new passage, once the passage before holds a quarter of the limit: its heading then tells when the words after it
# begin, not a time a minute or two before them.
PAUSE = 8


def packed_cues(doc: Document, count, max_tokens: int):
    """(section, its tokens or None) of a subtitle file's cues (``parse_subtitles``) packed in order, as many to a
    passage as fit under the limit with its heading (the title and its first cue's time), a line a cue, never a
    cue split between two, a pause (PAUSE) beginning a new one; a cue over the limit alone is cut as any text is."""
    from ingest.chunk import context_of, embedding_text
    cues: list[Section] = []
    heading: list[str] = []
    held, ended = 0, 0
    special = count("")  # the model's tokens around any text, counted once in a passage
    for cue, (start, end) in zip(doc.sections, doc.meta["cues"]):
        if cues:  # a passage's tokens are its cues' added up (a line break parts tokens): each cue counted once
            own = count(cue.text) - special
            if held + own <= max_tokens and not (start - ended >= PAUSE and held >= max_tokens // 4):
                cues.append(cue)
                held, ended = held + own, end
                continue
            yield _packed(cues, heading, count)
        cues, heading = [cue], [*cue.heading_path, clock(start)]
        held, ended = count(embedding_text(context_of(heading, cue.text), cue.text)), end
    if cues:
        yield _packed(cues, heading, count)


def _packed(cues: list[Section], heading: list[str], count) -> tuple[Section, int | None]:
    text = "\n".join(cue.text for cue in cues)
    return (Section(text=text, heading_path=heading, start_line=cues[0].start_line, end_line=cues[-1].end_line,
                    made=True), count(text) if len(cues) > 1 else None)
