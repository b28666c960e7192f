"""A chat's speaker written in Chinese, asked for in the ways an English-speaking user asks. ``--author Wang`` found
nothing of 王医生's, where ``--author 王`` found his messages: a surname alone in pinyin is anyone of that surname
written in Chinese (search.query.chinese_names.families) and is said so. 'what did 王医生 say about 空腹' said "no
passage contains 'say'": the English verb of saying of a question whose writer was read is no missing word."""
from __future__ import annotations

from search.query.filters import Filters
from tests.author_helpers import build_notes, engine, home  # noqa: F401 - fixtures

CHAT = ("14/03/2024, 09:15 - 王医生: 空腹血糖明早八点前测，测之前别吃东西。\n"
        "14/03/2024, 09:20 - 李娜: 好的，空腹是从几点开始算？\n"
        "15/03/2024, 10:00 - 李娜: 血压计已经买好了，空腹也能测。\n")
NOTES = {"汪芳/复诊.md": "---\nauthor: 汪芳\n---\n# 复诊\n\n复诊前一晚十点后空腹。\n",
         "赵/饮食.md": "---\nauthor: 赵建国\n---\n# 饮食\n\n空腹喝咖啡胃会不舒服。\n"}


def _build(folder):
    build_notes(folder, NOTES, {"WhatsApp Chat with 王医生.txt": CHAT})


def paths(answer):
    return sorted({hit.path for hit in answer.hits})


def test_a_surname_alone_in_pinyin_finds_the_speakers_written_in_chinese(engine):
    """author='Wang' finds 王医生's chat day and 汪芳's note (pinyin does not tell 王 from 汪), not 赵建国's nor the day
    only 李娜 spoke, and the note says who it was read as, as author='王' does."""
    answer = engine.search("空腹", mode="keyword", limit=50, filters=Filters(author="Wang"))
    assert paths(answer) == ["WhatsApp Chat with 王医生.txt", "汪芳/复诊.md"], (paths(answer), answer.notes)
    days = [hit.heading_path for hit in answer.hits if hit.path.startswith("WhatsApp")]
    assert days == ["WhatsApp Chat with 王医生 · 2024-03-14"], days
    said = [note for note in answer.notes if "Wang is read as anyone surnamed" in note]
    assert said and "王医生" in said[0] and "汪芳" in said[0] and "a surname in pinyin" in said[0], answer.notes
    written = engine.search("空腹", mode="keyword", limit=50, filters=Filters(author="王"))
    assert paths(written) == ["WhatsApp Chat with 王医生.txt"], paths(written)
    assert paths(engine.search("空腹", mode="keyword", filters=Filters(author="Zhao"))) == ["赵/饮食.md"]


def test_an_english_question_naming_a_writer_in_chinese_reads_the_verb_as_framing(engine):
    """'what did 王医生 say about 空腹' said "no passage contains 'say'": the name, with no capital, was read as no
    writer's and 'say' as a word of the subject. Now 王医生 is the writer, his chat day first, and 'say' no word."""
    answer = engine.search("what did 王医生 say about 空腹", mode="keyword")
    assert not any("'say'" in note for note in answer.notes) and "say" not in str(answer.unmatched), answer.notes
    assert answer.hits[0].path == "WhatsApp Chat with 王医生.txt", [hit.path for hit in answer.hits]
    assert any("surnamed 王" in note for note in answer.notes), answer.notes
    wrote = engine.search("what has 王医生 written about 空腹", mode="keyword")
    assert not any("'written'" in note for note in wrote.notes), wrote.notes
    pinyin = engine.search("what did Wang say about 空腹", mode="keyword")  # found as 王医生, 汪芳: no word missing
    assert any("surnamed 汪 or 王" in note for note in pinyin.notes), pinyin.notes
    assert not any("'Wang'" in note or "'say'" in note for note in pinyin.notes), pinyin.notes
    nobody = engine.search("what did 张三 say about 空腹", mode="keyword")  # no writer the index knows: 'say' stays
    assert any("'say'" in note for note in nobody.notes), nobody.notes
