"""A recorded lecture's transcript among a student's notes: read by a hit's time, found by a question about what
was said, and found by the speaker's rare name in hybrid search."""
from __future__ import annotations

import pytest

from tests.conftest import engine_in, tree_built_once


def _stamp(seconds: int, mark: str = ",") -> str:
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}{mark}000"


def _srt(cues: list[tuple[int, str]]) -> str:
    return "\n".join(f"{n}\n{_stamp(at)} --> {_stamp(at + 3)}\n{text}\n" for n, (at, text) in enumerate(cues, 1))


_TALK = ["So let's continue where we stopped last time.", "Any questions on the problem set?",
         "Let me write this on the board.", "Can everyone at the back see the board?"]
LECTURE = [(38 * 60 + 3 * i, f"{_TALK[i % 4]} Step {i}.") for i in range(30)] + [
    (41 * 60 + 12, "Now the key idea for today: eigenvalues."),
    (41 * 60 + 15, "An eigenvalue says how much the matrix stretches its eigenvector."),
    (41 * 60 + 18, "You find them from the characteristic equation.")] + [
    (41 * 60 + 21 + 3 * i, f"{_TALK[i % 4]} Point {i}.") for i in range(30)]
VTT = "\n".join(["WEBVTT - STAT210 Lecture 04: Bayes' theorem", "",
                 "00:12:00.000 --> 00:12:03.000", "<v Prof. Lindqvist>good morning everyone",
                 "", "00:12:03.000 --> 00:12:06.000", "<v Prof. Lindqvist>today we cover Bayes theorem",
                 "", "00:12:06.000 --> 00:12:09.000", "<v Prof. Lindqvist>the posterior is proportional to the "
                 "likelihood times the prior", ""])
NOTES = {
    "MATH201/Lecture 07.srt": _srt(LECTURE),
    "recordings/STAT210 Lecture 04.vtt": VTT,
    "MATH201/eigenvalues.md": "# Eigenvalues\n\nEigenvalues of a symmetric matrix are real. Diagonalise first; the "
                              "eigenvalues sit on the diagonal.\n",
    "MATH201/exam.md": "# Exam prep\n\nRevise eigenvalues, determinants and the rank of a matrix.\n",
    "diary/2024-03-04.md": "# Monday\n\nTalked with Mia about the trip and about nothing much else.\n",
    "diary/2024-03-05.md": "# Tuesday\n\nA long day. We argued about money again.\n",
    "STAT210/bayes.md": "# Bayes\n\nPosterior = likelihood x prior / evidence. Conjugate priors keep the algebra "
                        "simple.\n",
    "STAT210/probability.md": "# Probability\n\nConditional probability, independence, the law of total "
                              "probability.\n",
    "reading/thinking-fast.md": "# Thinking, Fast and Slow\n\nSystem 1 and System 2; base rates are neglected.\n",
    "diary/2024-03-06.md": "# Wednesday\n\nCoffee with Lindqvist's TA.\n",
    "courses.md": "# Courses this term\n\nMATH201 linear algebra, STAT210 statistics, a seminar on Swedish "
                  "history.\n",
}


@pytest.fixture(scope="module")
def student_home(tmp_path_factory, model_path):
    return tree_built_once(tmp_path_factory, model_path, NOTES, "uni")


@pytest.fixture
def engine(student_home, model_path, embedder, monkeypatch):
    return engine_in(student_home, model_path, embedder, monkeypatch)


def test_read_file_reads_a_transcripts_passage_by_the_time_its_hit_names(student_home, model_path, monkeypatch):
    """A hit reads 'Lecture 07 > 00:41:12'; read_file(heading='00:41:12') said the file had no headings ('# …'
    lines). It reads that passage's cues, at the lines the index holds for it, the time alone or the hit's path."""
    from mcp_server import reading
    from mcp_server.errors import Problem
    from mcp_server.service import Sift
    from search.settings import load
    from tests.conftest import in_home
    in_home(student_home, model_path, monkeypatch)
    sift, lines = Sift(load()), _srt(LECTURE).split("\n")
    for asked in ("00:41:12", "Lecture 07 > 00:41:12", "Lecture 07#41:12"):
        shown, data = reading.read(sift, "uni/MATH201/Lecture 07.srt", None, None, None, heading=asked)
        assert lines[data["start_line"] - 1] == "31" and lines[data["start_line"]].startswith("00:41:12,000 --> ")
        assert "stretches its eigenvector" in shown and "Step 29." not in shown, shown
        assert "[the section " in shown and lines[data["end_line"]] == "" and lines[data["end_line"] + 1].isdigit()
    first, _ = reading.read(sift, "uni/MATH201/Lecture 07.srt", None, None, None, heading="00:38:00")
    assert "Step 0." in first and "Step 29." not in first and "eigenvector" not in first
    with pytest.raises(Problem, match=r"no heading '01:00:00'; its headings: 'Lecture 07', '00:38:00', '00:39:00', '00:41:12'"):
        reading.read(sift, "uni/MATH201/Lecture 07.srt", None, None, None, heading="01:00:00")


def test_what_the_lecturer_said_about_a_subject_is_searched_by_the_subject(engine):
    """'what did the lecturer say about eigenvalues': 'about' was left as the keyword that counted (keyword search
    keeps it in a question, and 'eigenvalues' is common here), so a diary note 'about' nothing ranked first."""
    from search.query.question import content
    assert content("what did the lecturer say about eigenvalues") == "eigenvalues"
    assert content("did the guest speaker talk about funding") == "funding"
    assert content("what did Lindqvist say about the prior") == "Lindqvist the prior"  # a name is kept
    assert content("the lecturer said eigenvalues are real") == "the lecturer said eigenvalues are real"
    hits = engine.search("what did the lecturer say about eigenvalues", mode="keyword").hits
    assert {h.path for h in hits} == {"MATH201/Lecture 07.srt", "MATH201/eigenvalues.md", "MATH201/exam.md"}, hits
    assert [h.heading_path for h in hits if h.path.endswith(".srt")] == ["Lecture 07 > 00:41:12"]


def test_a_rare_name_found_by_keyword_is_not_buried_by_hybrids_fusion(engine):
    """'Lindqvist' is in a lecture's transcript and a short diary note; keyword search finds both, but min-max
    scaling gave the second keyword hit a 0, as if it held no 'Lindqvist', and a note without the name ranked above
    the transcript in hybrid search. Every passage holding it now ranks above those that do not."""
    hits = engine.search("Lindqvist", mode="hybrid").hits
    holding = [h.keyword_rank is not None for h in hits]
    assert holding[:2] == [True, True] and not any(holding[2:]), [(h.path, h.keyword_rank) for h in hits]
    assert "recordings/STAT210 Lecture 04.vtt" in {h.path for h in hits[:2]}
