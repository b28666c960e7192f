"""A writer named by surname and a title that ends with the first character of a word the verb ends (医生 and 先生
before 发, read as 生发 'to grow'; 秘书 before 写 or 记, read as 书写, 书记; 同学 before 说, read as 学说 'a theory'):
王医生发的邮件, the form search.query.chinese_names is for, was read as no writer's question, searched whole and
found nothing; 李先生发的消息, 张秘书写的报告 alike. The verb after such a title is the titled person's now."""
from __future__ import annotations

import pytest

from search.query.question import content, writers
from tests.author_helpers import build_notes, engine, home  # noqa: F401 - fixtures


def _build(folder):
    mail = ("From: 王建国 <wjg@example.cn>\nTo: 张伟 <zw@example.cn>\nSubject: 预算调整\n"
            "Date: Tue, 10 Mar 2026 09:00:00 +0000\nContent-Type: text/plain; charset=utf-8\n\n"
            "预算调整：服务器费用下季度减半。\n")
    build_notes(folder, {"会议.md": "# 会议纪要\n\n王医生的预算邮件在会上讨论，预算预算。\n"}, {"mail/offer.eml": mail})


@pytest.mark.parametrize("query, name", [
    ("王医生发的邮件", "王医生"), ("刘医生发给我的邮件", "刘医生"), ("陈先生发的消息", "陈先生"),
    ("张秘书写的报告", "张秘书"), ("王秘书记的", "王秘书"), ("王同学说的", "王同学")])
def test_a_verb_after_such_a_title_is_the_writers(query, name):
    assert writers(query)[0] == name and content(query) == name


@pytest.mark.parametrize("query", ["高血压引发的头痛", "生发的", "学说的", "书写的"])
def test_the_words_themselves_are_still_no_writers(query):
    assert writers(query) == []


def test_mail_sent_by_a_doctor_wang_is_searched_as_by_him(engine):
    asked = engine.search("王医生发的关于预算的邮件", mode="keyword")
    assert [hit.path for hit in asked.hits][:1] == ["mail/offer.eml"], asked.hits
    assert any("王医生 is read as a person surnamed 王" in note and "王建国" in note for note in asked.notes), asked.notes
