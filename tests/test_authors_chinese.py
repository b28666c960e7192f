"""Chinese users' ways of naming a writer: a surname and a title or 老/小 (王医生, 李老师, 老王) for a person of that
surname, and the question forms 王建国发的邮件 (mail sent by), 王建国写的笔记 (notes written by), 王医生说的 (what
… said). ``search(author="王医生")`` found nothing for 王建国's mail ("no file records that author"), and 邮件 was
searched as a word of the subject ("no passage contains '邮件'")."""
from __future__ import annotations

import pytest

from search.query.authors import wrote
from search.query.filters import Filters
from search.query.question import content, writers, writers_known
from tests.author_helpers import build_notes, engine, home  # noqa: F401 - fixtures


def _mail(sender: str, address: str, subject: str, day: int, body: str) -> str:
    return (f"From: {sender} <{address}>\nTo: 张伟 <zw@example.cn>\nSubject: {subject}\n"
            f"Date: Tue, {day} Mar 2026 09:00:00 +0000\nContent-Type: text/plain; charset=utf-8\n\n{body}\n")


NOTES = {
    "fang/预算.md": "---\nauthor: 王芳\n---\n# 第二季度预算\n\n预算把市场费用挪到招聘，差旅减少三分之一。\n",
    "na/预算.md": "---\nauthor: 李娜\n---\n# 预算复核\n\n预算复核：云服务费用上涨，招聘冻结到五月。\n",
    "wf/差旅.md": "---\nauthor: 汪芳\n---\n# 差旅\n\n差旅报销单已提交。\n",  # 汪芳, said as 王芳 is: Wang Fang
    # names 王建国 and 邮件 over and over, written by no one: a question naming the writer puts his mail above it
    "会议.md": "# 会议纪要\n\n王建国说预算要复核。王建国的预算意见在会上讨论，预算预算。\n",
}
FILES = {"mail/offer.eml": _mail("王建国", "wjg@example.cn", "预算调整", 10, "预算调整：服务器费用下季度减半。"),
         "mail/other.eml": _mail("李娜", "ln@example.cn", "预算回复", 11, "收到，预算调整我同意。")}


def _build(folder):
    build_notes(folder, NOTES, FILES)


def paths(answer):
    return [hit.path for hit in answer.hits]


@pytest.mark.parametrize("recorded, asked, found", [
    ("王建国", "王医生", True), ("王建国 <wjg@example.cn>", "老王", True), ("王建国", "小王", True),
    ("王芳", "王总", True), ("欧阳明", "欧阳老师", True), ("王伟、李娜", "李经理", True), ("王 建国", "王教授", True),
    ("王医生", "王医生", True), ("王建国", "王建国", True), ("Wang Jianguo", "王医生", True),
    ("Jianguo Wang <jw@example.com>", "老王", True), ("Li Na", "王医生", False), ("John Wang", "王医生", False),
    ("李建国", "王医生", False), ("王建国", "李老师", False), ("欧阳明", "王老师", False), ("王建国", "王芳", False),
    ("王建国", "老师", False), ("王建国", "医生", False), ("王", "王医生", False),
])
def test_a_surname_and_a_title_is_anyone_of_that_surname(recorded, asked, found):
    """A full name still matches exactly (王芳 is not 王建国), a different surname is not matched, and a title alone
    (老师: no 老 + 师) names no one; a person recorded in pinyin is of the surname said so ('Wang Jianguo')."""
    assert wrote(recorded, asked) is found


def test_the_author_filter_reads_a_surname_and_title(engine):
    """author='王医生' found nothing; it keeps what 王建国 and 王芳 wrote, not 李娜's, and says who it was read as."""
    answer = engine.search("预算", mode="keyword", filters=Filters(author="王医生"))
    assert sorted(paths(answer)) == ["fang/预算.md", "mail/offer.eml"], paths(answer)
    said = [note for note in answer.notes if "surnamed 王" in note]
    assert said and "王建国" in said[0] and "王芳" in said[0] and "李娜" not in said[0], answer.notes
    assert paths(engine.search("预算", mode="keyword", filters=Filters(author="王建国"))) == ["mail/offer.eml"]
    one = engine.search("预算", mode="keyword", filters=Filters(author="李老师"))
    assert sorted(paths(one)) == ["mail/other.eml", "na/预算.md"], paths(one)
    assert any("a person surnamed 李" in note and "李娜" in note for note in one.notes), one.notes
    nobody = engine.search("预算", mode="keyword", filters=Filters(author="赵医生"))
    assert nobody.hits == [] and any("no file searched records that author" in n for n in nobody.notes)


@pytest.mark.parametrize("recorded, found", [("王建国", True), ("王芳", True), ("Jianguo Wang", True), ("王", True),
                                             ("李娜", False), ("汪建国", False), ("欧阳明", False)])
def test_a_surname_alone_is_anyone_of_that_surname(recorded, found):
    """author='王' found no one: no person's name is the one character, where a user means everyone surnamed 王."""
    assert wrote(recorded, "王") is found, recorded


def test_the_author_filter_reads_a_surname_alone(engine):
    """search(author='王') found nothing and said no file records that author; it keeps 王建国's mail and 王芳's note
    now, not 李娜's, and says it read 王 as a surname alone."""
    answer = engine.search("预算", mode="keyword", filters=Filters(author="王"))
    assert sorted(paths(answer)) == ["fang/预算.md", "mail/offer.eml"], (paths(answer), answer.notes)
    said = [note for note in answer.notes if "surnamed 王 (a surname alone)" in note]
    assert said and "王建国" in said[0] and "王芳" in said[0], answer.notes


@pytest.mark.parametrize("query, searched, name", [
    ("王建国发的邮件", "王建国", "王建国"), ("王建国写的笔记", "王建国", "王建国"), ("王医生说的", "王医生", "王医生"),
    ("王建国写过的笔记", "王建国", "王建国"), ("李总发给我的邮件", "李总", "李总"),
    ("王建国发的关于预算的邮件", "王建国 预算", "王建国"), ("帮我找王医生说的话", "帮我找王医生", "王医生"),
    ("王建国发的预算邮件", "王建国 预算", "王建国"), ("王建国写的读书笔记", "王建国 读书", "王建国"),
])
def test_chinese_question_forms_are_read_as_mail_or_notes_by(query, searched, name):
    """The verb, 的 and the kind of writing (邮件, 笔记, 话) are the question's framing, as 'mail from X' and 'notes
    by X' are; the name is the writer's."""
    assert content(query) == searched
    assert name in writers(query)


@pytest.mark.parametrize("query", ["我的邮件", "张伟的笔记本", "王建国", "发的邮件", "高血压引发的头痛", "我们开发的系统",
                                   "小说的结局", "王书记的报告", "编写的代码"])
def test_no_writer_form_stays(query):
    """A verb that ends a word (引发 caused, 开发 developed, 小说 a novel, 书记 a secretary, 编写) is no writer's."""
    assert writers(query) == [] and content(query) == query


def test_in_a_search_only_a_known_writer_is_read_so():
    """'网上说的话' (what the internet says): 网上 is no writer the index knows, and its words stay."""
    with writers_known(lambda name: name == "王建国"):
        assert content("王建国发的邮件") == "王建国" and content("网上说的话") == "网上说的话"


def test_a_chinese_question_puts_the_writers_mail_first(engine):
    """'王建国发的邮件' was searched with 邮件 as a word ("no passage contains '邮件'"), and the meeting notes naming
    王建国 over and over ranked first; his mail comes first now, and 王医生说的预算 finds 王建国's and 王芳's."""
    asked = engine.search("王建国发的邮件", mode="keyword")
    assert paths(asked)[:1] == ["mail/offer.eml"], paths(asked)
    assert not any("邮件" in note for note in asked.notes), asked.notes
    doctor = engine.search("王医生说的预算", mode="keyword")
    assert sorted(paths(doctor)[:2]) == ["fang/预算.md", "mail/offer.eml"], paths(doctor)
    assert any("surnamed 王" in note for note in doctor.notes), doctor.notes


def test_a_kind_of_writing_after_the_subject_is_no_word(engine):
    """'王建国发的预算邮件' (his mail about the budget) kept 预算邮件 as words, 邮件 with them, where 'budget mail' and
    王建国发的关于预算的邮件 leave the kind of writing out: his mail comes first and no note names 邮件."""
    asked = engine.search("王建国发的预算邮件", mode="keyword")
    assert paths(asked)[:1] == ["mail/offer.eml"], paths(asked)
    assert not any("邮件" in note for note in asked.notes) and asked.unmatched == [], (asked.notes, asked.unmatched)


def test_a_pinyin_name_of_two_chinese_names_says_so(engine):
    """author='Wang Fang' finds 王芳 and 汪芳 alike (pinyin does not tell 王 from 汪) and said nothing of it; the note
    names both and asks for the name in Chinese, which finds one."""
    answer = engine.search("差旅", mode="keyword", filters=Filters(author="Wang Fang"))
    assert sorted(paths(answer)) == ["fang/预算.md", "wf/差旅.md"], paths(answer)
    said = [note for note in answer.notes if "pinyin does not tell them apart" in note]
    assert said and "王芳" in said[0] and "汪芳" in said[0], answer.notes
    one = engine.search("差旅", mode="keyword", filters=Filters(author="汪芳"))
    assert paths(one) == ["wf/差旅.md"] and not any("pinyin" in note for note in one.notes), one.notes
    alone = engine.search("预算", mode="keyword", filters=Filters(author="Li Na"))
    assert not any("pinyin does not tell" in note for note in alone.notes), alone.notes
