"""A Chinese user's questions about their own notes (bench/chinese_notes.py asks 30 of them): what the question says
of when the note was written is left out whole, its day of the week too; a date as written finds the note titled so."""
from __future__ import annotations

import os
from pathlib import Path

from search.query.engine import Engine
from search.query.question import content
from search.query.snippet import snippet
from tests.conftest import ingest, write_tree


def test_last_weeks_day_is_left_out_whole():
    """上周三 (last Wednesday) lost only its 上周: the 三 left behind made the pair 三去 of 上周三去医院体检, and the
    diary saying so was marked 上周**三去医院**, a highlight cut inside 上周三."""
    assert content("上周三去医院体检") == "去医院体检"
    assert content("上星期五的会议纪要") == content("上礼拜五的会议纪要") == content("上周的会议纪要")
    assert content("上周末去爬山") == "去爬山"
    assert content("上周三十个人来面试") == "三十个人来面试"  # thirty people, not Wednesday
    marked = snippet("上周三去医院做了体检，今天拿到报告。", content("上周三去医院体检"))
    assert marked == "上周三**去医院**做了**体检**，今天拿到报告。", marked


def test_a_date_as_written_finds_the_note_titled_so_first(immediate, tmp_path, embedder):
    """'2024年3月14日' was looked up in titles as 2024-03-14 alone: the meeting note titled '周会 2024-03-14' was put
    first, above the diary titled '2024年3月14日' that scored higher. Both titles hold the date now, each keeps its
    score."""
    root = write_tree(tmp_path / "notes", {
        "会议/2024-03-14 周会.md": "# 周会 2024-03-14\n\n参会：张伟、李娜、Tom（远程）\n\n## 议题\n\n1. 订单服务的数据库迁移\n",
        "日记/2024年3月14日.md": "# 2024年3月14日 星期四\n\n今天下了一整天的雨。晚上给妈妈打电话。\n",
        "日记/2024年3月18日.md": "# 2024年3月18日\n\n上周三去医院做了体检。\n"})
    ingest(root)
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    assert [h.path for h in engine.search("2024年3月14日", mode="keyword").hits][0] == "日记/2024年3月14日.md"
    assert [h.path for h in engine.search("2024-03-14", mode="keyword").hits][0] == "会议/2024-03-14 周会.md"
