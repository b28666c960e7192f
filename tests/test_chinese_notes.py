"""A Chinese user's questions about their own notes (bench/chinese_notes.py asks 30 of them): what the question says
of when the note was written is left out whole, its day of the week too."""
from __future__ import annotations

from search.query.question import content
from search.query.snippet import snippet


def test_last_weeks_day_is_left_out_whole():
    """上周三 (last Wednesday) lost only its 上周: the 三 left behind made the pair 三去 of 上周三去医院体检, and the
    diary saying so was marked 上周**三去医院**, a highlight cut inside 上周三."""
    assert content("上周三去医院体检") == "去医院体检"
    assert content("上星期五的会议纪要") == content("上礼拜五的会议纪要") == content("上周的会议纪要")
    assert content("上周末去爬山") == "去爬山"
    assert content("上周三十个人来面试") == "三十个人来面试"  # thirty people, not Wednesday
    marked = snippet("上周三去医院做了体检，今天拿到报告。", content("上周三去医院体检"))
    assert marked == "上周三**去医院**做了**体检**，今天拿到报告。", marked
