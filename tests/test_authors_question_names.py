"""Names a question gives as its writer that were misread: a pinyin surname that is an English word ('what did ma
write', 'He wrote …') read as anyone surnamed 马 or 何; a writer in pinyin ('Wang Fang') that finds 王芳 and 汪芳
without saying so; 王说的 (one character) read as no writer; a Chinese name glued to the English around it ('what
did王芳say'); and a Spanish name with 'de' and two surnames ('Juan de Dios Martín López') read as two persons."""
from __future__ import annotations

import pytest

from search.query.authors import wrote
from search.query.question import content, writers, writers_known
from tests.author_helpers import build_notes, engine, home  # noqa: F401 - fixtures

NOTES = {
    "ma.md": "---\nauthor: 马丽\n---\n# Hiring\n\nThe budget for hiring: two engineers. 预算：招聘两人。\n",
    "he.md": "---\nauthor: 何建国\n---\n# Travel\n\nThe budget for travel is cut by a third. 预算：差旅减少。\n",
    "lin.md": "---\nauthor: 林芳\n---\n# Cloud\n\nThe budget for cloud costs went up. 预算：云服务上涨。\n",
    "fang.md": "---\nauthor: 王芳\n---\n# Marketing\n\nThe budget moves marketing to hiring. 预算：市场挪到招聘。\n",
    "wf.md": "---\nauthor: 汪芳\n---\n# Claims\n\nThe budget for claims is filed. 预算：报销已提交。\n",
    # written by no one, says the question's words over and over: a writer read puts theirs above it
    "meeting.md": "# Meeting\n\nThe budget budget budget, he said; ma wrote the budget review. 预算预算预算。\n",
}


def _build(folder):
    build_notes(folder, NOTES)


def paths(answer):
    return [hit.path for hit in answer.hits]


@pytest.mark.parametrize("query, read", [
    ("what did ma write about the budget", []), ("notes by lin about the budget", []),
    ("He wrote about the budget", []), ("what did Ma write about the budget", ["Ma"]),
    ("notes by Lin about the budget", ["Lin"]), ("what did zhang write", ["zhang"]),
])
def test_a_pinyin_surname_that_is_an_english_word_is_read_as_the_word(query, read):
    """'ma', 'lin' in small letters and 'He' starting the query are English words before they are 马, 林, 何; with
    its capital inside the question the surname is read, and a surname's pinyin no English word in small letters."""
    assert writers(query) == read


def test_an_english_word_finds_no_one_of_that_surname(engine):
    """'what did ma write about the budget' put 马丽's note first ("ma is read as a person surnamed 马"), and 'He
    wrote about the budget' 何建国's; 'What did Ma write' still reads 马."""
    for query in ("what did ma write about the budget", "He wrote about the budget"):
        answer = engine.search(query, mode="keyword")
        assert not any("surnamed" in note or "passages by" in note for note in answer.notes), (query, answer.notes)
    asked = engine.search("What did Ma write about the budget", mode="keyword")
    assert paths(asked)[:1] == ["ma.md"] and any("surnamed 马" in note for note in asked.notes), asked.notes


def test_a_writer_in_pinyin_of_two_persons_says_so(engine):
    """'what did Wang Fang write' found 王芳's and 汪芳's notes alike and said nothing of it, as author='Wang Fang'
    does."""
    answer = engine.search("what did Wang Fang write about the budget", mode="keyword")
    said = [note for note in answer.notes if "pinyin does not tell them apart" in note]
    assert said and "王芳" in said[0] and "汪芳" in said[0], answer.notes


@pytest.mark.parametrize("query, read", [("王说的", ["王"]), ("王说的预算", ["王"]), ("他说的", []), ("论文说的", ["论文"])])
def test_a_surname_alone_before_a_verb_is_a_writer(query, read):
    """王说的 (what 王 said): a surname of one character, all the Chinese before the verb; 他 is no surname, and 文 of
    论文 no one's."""
    assert writers(query) == read


def test_a_surname_alone_before_a_verb_puts_theirs_first(engine):
    """'王说的预算' was searched as the word 王说的, held by no passage; 王芳's note comes first now, said so."""
    answer = engine.search("王说的预算", mode="keyword")
    assert paths(answer)[:1] == ["fang.md"], (paths(answer), answer.notes)
    assert any("surnamed 王" in note for note in answer.notes) and not any("王说的" in n for n in answer.notes)


@pytest.mark.parametrize("query", ["what did王芳say about the budget", "what did 王芳say about the budget",
                                   "notes by王芳 about the budget", "王芳wrote about the budget"])
def test_a_chinese_name_glued_to_english_is_the_writer(query):
    """A Chinese input method leaves no space around the name: 'what did王芳say' was the one word 'did王芳say'."""
    assert writers(query) == ["王芳"]
    with writers_known(lambda name: name == "王芳"):
        assert content(query) == "王芳 the budget"


def test_a_glued_chinese_name_puts_theirs_first(engine):
    answer = engine.search("what did王芳say about the budget", mode="keyword")
    assert paths(answer)[:1] == ["fang.md"], (paths(answer), answer.notes)
    assert not any("'say'" in note for note in answer.notes), answer.notes


@pytest.mark.parametrize("recorded, asked, found", [
    ("Juan de Dios Martín López", "Juan López", True), ("Juan de Dios Martín López", "Juan Martín", True),
    ("María de Jesús Martín López", "María López", True), ("Jan de Vries Anna Lee", "Jan Lee", False),
    ("Jan de Vries Martin Lee", "Jan Lee", False),
])
def test_a_spanish_de_before_a_name_of_the_faith_is_one_person(recorded, asked, found):
    """A PDF's 'Juan de Dios Martín López' was read as Juan de Dios and Martín López (Martin is a given name, so its
    lone 'de' was read as a Dutch one): 'Juan López' found no one. 'de Dios' is a Spanish given name's."""
    assert wrote(recorded, asked) is found, (recorded, asked)
