"""A Chinese question's writer (王建国发的邮件: search.query.question.BY_SOMEONE_ZH) is read from the few characters
before its verb. The pattern read each run of Chinese from each of its characters to its end, looking for a verb:
time quadratic in the run where none followed, and a query of 10,000 characters of Chinese with no punctuation and
none of the verbs held the search for 97 s (0.14 s now). Its reading of the writer is unchanged."""
from __future__ import annotations

from search.query import question

RUN = "血压偏高头晕乏力" * 40  # 320 characters of Chinese, none a verb of writing or saying


def test_the_writer_is_looked_for_only_in_the_characters_just_before_the_verb():
    found = question.BY_SOMEONE_ZH.search(RUN + "王建国说的")
    assert found is not None and found["z"] == ("乏力王建国")[-question.NAME_MOST:], found
    assert found.end() == len(RUN) + 5
    assert question.BY_SOMEONE_ZH.search(RUN) is None


def test_a_long_run_before_the_verb_reads_the_same_writer_and_words():
    assert question.writers(RUN + "王建国说的") == ["乏力王建国", "力王建国", "王建国", "建国"]
    assert question.writers("帮我找王医生说的话") == ["我找王医生", "找王医生", "王医生", "医生"]
    with question.writers_known(lambda name: name == "王建国"):
        assert question.content(RUN + "王建国发的邮件") == RUN + "王建国"
        assert question.content(RUN + "网上说的话") == RUN + "网上说的话"  # no writer the index knows: as asked
