"""The note on a Chinese name read as anyone of its surname says how the name gave the surname: 老王 and 小王 by 老/小
before it, 王医生 by a title after it. 老王 was said to be read as '(a surname and a title)', a title it has not."""
from __future__ import annotations

from search.query.authors import surname_read

RECORDED = ["王建国", "王芳 <wf@example.cn>", "李娜"]


def test_a_name_told_by_lao_or_xiao_is_not_said_to_hold_a_title():
    for name, how in (("老王", "(老 and a surname)"), ("小王", "(小 and a surname)")):
        said = surname_read(RECORDED, name)
        assert said and how in said and "title" not in said, said
        assert "王建国" in said and "王芳" in said and "李娜" not in said, said
    one = surname_read(["王建国", "李娜"], "老王")
    assert one == "老王 is read as a person surnamed 王 (老 and a surname): 王建国", one


def test_a_surname_and_a_title_is_still_said_so():
    said = surname_read(RECORDED, "王医生")
    assert said and "(a surname and a title)" in said, said
    assert surname_read(["李娜"], "李 老师") == "李 老师 is read as a person surnamed 李 (a surname and a title): 李娜"
