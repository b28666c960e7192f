"""Subtitles and transcripts (.srt, .vtt: a recorded lecture's) are read as what was said: cues packed into passages
under the token limit, each headed by the time its first cue starts, without cue numbers, timing lines or markup.
Neither kind was read before: 'what did the lecturer say about eigenvalues' could not find the recording."""
from __future__ import annotations

import os
from pathlib import Path

from ingest.chunk import chunk_document, embedding_text
from ingest.kinds import kind_of
from ingest.parse import parse_file
from tests.conftest import ingest, write_tree

LIMIT, OVERLAP = 256, 32
FILLER = ["So let's continue where we stopped last time.", "Any questions on the problem set?",
          "Let me write this on the board.", "Can everyone at the back see the board?"]


def stamp(seconds: int, mark: str = ",") -> str:
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}{mark}000"


def srt(cues: list[tuple[int, str]]) -> str:
    return "\n".join(f"{n}\n{stamp(at)} --> {stamp(at + 3)}\n{text}\n" for n, (at, text) in enumerate(cues, 1))


# 80 cues of talk from 00:38:00, a pause while the lecturer writes on the board, then eigenvalues from 00:41:12
LECTURE = [(38 * 60 + 3 * i, f"{FILLER[i % 4]} Step {i}.") for i in range(40)] + [
    (41 * 60 + 12, "Now the key idea for today: <i>eigenvalues</i>."),
    (41 * 60 + 15, "An eigenvalue says how much the matrix\nstretches its eigenvector."),
    (41 * 60 + 18, "{\\an8}You find them from the characteristic equation.")] + [
    (41 * 60 + 21 + 3 * i, f"{FILLER[i % 4]} Point {i}.") for i in range(40)]


def test_a_transcripts_cues_are_passages_headed_by_their_start_time_without_numbers_or_timings(embedder):
    doc = parse_file("MATH201/Lecture 07.srt", srt(LECTURE).encode())
    chunks = chunk_document(doc, embedder.count, LIMIT, OVERLAP)
    lines = srt(LECTURE).split("\n")
    assert len(chunks) > 2
    said = [c.text for c in chunks]
    assert not any("-->" in text or any(line.strip().isdigit() for line in text.split("\n")) for text in said)
    assert "\n".join(said).split("\n")[:2] == ["So let's continue where we stopped last time. Step 0.",
                                               "Any questions on the problem set? Step 1."]  # each cue a line, once
    assert "\n".join(said).count("Step 7.") == 1 and "\n".join(said).count("Point 39.") == 1
    [key] = [c for c in chunks if "eigenvalues" in c.text]
    assert key.heading_path == ["Lecture 07", "00:41:12"]  # where the recording says it, after the pause
    assert key.text.startswith("Now the key idea for today: eigenvalues.\nAn eigenvalue says how much the matrix "
                               "stretches its eigenvector.\nYou find them from the characteristic equation.\n")
    assert lines[key.start_line - 1] == "41" and "eigenvalues" in lines[key.start_line + 1]  # at its cue's lines
    assert chunks[0].heading_path == ["Lecture 07", "00:38:00"]
    for chunk in chunks:
        assert embedder.count(embedding_text(chunk.context, chunk.text)) <= LIMIT
        assert chunk.context == " > ".join(chunk.heading_path)
        assert lines[chunk.start_line].startswith(chunk.heading_path[1] + ",000 --> ")  # its first cue's time


def test_a_webvtt_caption_file_is_read_titled_by_its_header_each_voice_named_once_rolling_lines_once(embedder):
    lines = ["good morning everyone", "today we cover Bayes theorem", "the posterior is proportional to",
             "the likelihood times the prior"]
    vtt = ["WEBVTT - STAT210 Lecture 04: Bayes' theorem", "Kind: captions", "", "NOTE recorded in the Audimax", ""]
    before = None
    for i, line in enumerate(lines):  # YouTube's automatic captions: each cue shows the line before it again
        at = 12 * 60 + 3 * i
        vtt += [f"{stamp(at, '.')[3:]} --> {stamp(at + 3, '.')[3:]} align:start position:0%",
                *([before] if before else []), f"<v Prof. Lindqvist><c>{line}</c><00:12:01.500><c> &amp;</c>", ""]
        before = f"{line} &"
    doc = parse_file("recordings/lecture-04.vtt", "\n".join(vtt).encode())
    [chunk] = chunk_document(doc, embedder.count, LIMIT, OVERLAP)
    assert doc.title == "STAT210 Lecture 04: Bayes' theorem"
    assert chunk.heading_path == ["STAT210 Lecture 04: Bayes' theorem", "00:12:00"]
    assert chunk.text == ("Prof. Lindqvist: good morning everyone &\ntoday we cover Bayes theorem &\n"
                          "the posterior is proportional to &\nthe likelihood times the prior &")
    assert kind_of("a.vtt") == kind_of("a.SRT") == "note"
    assert parse_file("Lecture 07.en.srt", srt(LECTURE[:1]).encode()).title == "Lecture 07"  # its language no title
    packed = "1\n00:00:01,000 --> 00:00:02,000\nFirst.\n2\n00:00:03,000 --> 00:00:04,000\nSecond.\n"  # no blank line
    assert [(s.text, s.start_line) for s in parse_file("a.srt", packed.encode()).sections] == [("First.", 1),
                                                                                              ("Second.", 4)]
    plain = parse_file("notes.srt", b"not a subtitle file at all\n")  # no timing line: its text as written
    assert [s.text for s in plain.sections] == ["not a subtitle file at all"]


def test_a_recorded_lectures_transcript_is_found_by_what_was_said_and_tells_when(immediate, tmp_path, monkeypatch):
    from search.query.engine import Engine
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "uni", {"recordings/Lecture 07.srt": srt(LECTURE),
                                         "notes/Lecture 07.md": "# Lecture 07\n\nDeterminants, then a break.\n"})
    published = ingest(root, "uni")["published"]
    assert ".srt" not in published["unread"] and published["failures"] == [], published
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    [hit, *_] = engine.search("stretches its eigenvector", mode="keyword").hits
    assert (hit.path, hit.heading_path) == ("recordings/Lecture 07.srt", "Lecture 07 > 00:41:12")
    assert "-->" not in hit.snippet


def test_a_lectures_slides_beside_its_transcript_are_read_too():
    from ingest.links import converted_pdfs
    paths = {"MATH201/Lecture 07.srt", "MATH201/Lecture 07.pdf", "MATH201/Lecture 08.vtt", "MATH201/Lecture 08.pdf",
             "thesis/main.tex", "thesis/main.pdf"}
    assert converted_pdfs(paths) == {"thesis/main.tex": "thesis/main.pdf"}  # the slides are no transcript's export
