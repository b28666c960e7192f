"""Simplified and Traditional Chinese held as one by keyword search (search.query.text.index_form): a word's pairs
are counted once, in whichever script a note or a query writes them."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from search.query.engine import Engine
from search.query.text import index_form, query_words, written_words
from tests.conftest import ingest, write_tree


def test_traditional_text_is_held_in_simplified_characters():
    assert index_form("數據庫") == " 数 据 库 数据 据库 "
    assert index_form("数据库") == index_form("數據庫")
    assert index_form("台灣") == index_form("臺灣") == index_form("台湾")  # a character's other forms too


def test_a_traditional_query_writes_the_simplified_pairs_first():
    """The index holds the Simplified pairs: they are the query's written words, the Traditional ones its other
    forms, which a long query cut at MAX_TERMS loses first."""
    assert written_words("數據庫備份") == ["数据", "据库", "库备", "备份"]
    assert query_words("數據庫備份")[:4] == ["数据", "据库", "库备", "备份"]
    assert written_words("资料库") == ["资料", "料库"]


@pytest.mark.parametrize("postings", [True, False])
def test_both_words_in_the_other_script_rank_above_one_word_in_the_querys(immediate, tmp_path, embedder, postings):
    """數據庫備份 (database backup, in Traditional characters) ranked a Taiwanese trip's note saying 數據庫 twice
    above the script that backs the database up, written in Simplified characters (备份 and 数据库): the pairs of
    each script were terms of their own, and those of the script the query wrote, rarer, counted for more."""
    root = write_tree(tmp_path / "notes", {
        "出差/台北出差.md": "# 台北出差紀錄\n\n討論他們的數據庫升級計畫。客戶的數據庫是 Oracle。\n",
        "scripts/backup_db.py": '"""每天凌晨备份订单数据库到对象存储。"""\n\n\ndef backup(name):\n    pass\n',
        "会议/周会.md": "# 周会\n\n订单服务的数据库迁移到 PostgreSQL。\n",
        "生活/旅行.md": "# 旅行\n\n成都的火锅很好吃。\n",
        "生活/跑步.md": "# 跑步\n\n周日跑了十公里。\n"})
    ingest(root)
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder, keyword_postings=postings)
    engine.warm()
    hits = engine.search("數據庫備份", mode="keyword").hits
    assert [h.path for h in hits][0] == "scripts/backup_db.py", [h.path for h in hits]
    assert "**备份**" in hits[0].snippet and "**数据库**" in hits[0].snippet, hits[0].snippet
    taipei = engine.search("客户的数据库", mode="keyword").hits[0]
    assert taipei.path == "出差/台北出差.md" and "數據庫" in taipei.snippet.replace("**", ""), taipei.snippet
    assert "**客戶的數據庫**" in taipei.snippet, taipei.snippet  # marked as the note writes it


def test_a_glob_matches_chinese_in_either_script(immediate, tmp_path, embedder):
    """glob='臨床/*.md' found nothing in the folder 临床/, nor '*隨訪*' (or '*随訪*', partly in each) the note
    高血压随访.md, where path_prefix='臨床' and the query's words are read in either script: a doctor writing
    Traditional characters to an assistant was told no passages match."""
    import os
    from pathlib import Path

    from search.query.engine import Engine
    from search.query.filters import Filters, glob_matcher
    from tests.conftest import ingest, write_tree
    root = write_tree(tmp_path / "notes", {"临床/高血压随访.md": "# 高血压随访\n\n脚踝水肿，考虑 CCB 副作用。\n",
                                          "臨床/繁體筆記.md": "# 筆記\n\n水腫與心房顫動\n",
                                          "日记/水肿.md": "# 日记\n\n水肿消退了\n"})
    ingest(root)
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    for glob, paths in (("臨床/*.md", ["临床/高血压随访.md", "臨床/繁體筆記.md"]), ("*隨訪*", ["临床/高血压随访.md"]),
                        ("*随訪*", ["临床/高血压随访.md"]), ("临床/*筆記*", ["臨床/繁體筆記.md"])):
        hits = engine.search("水肿", mode="keyword", filters=Filters(glob=glob)).hits
        assert sorted(h.path for h in hits) == paths, (glob, [h.path for h in hits])
    assert not glob_matcher("日記/*.txt")("日记/水肿.md") and glob_matcher("日記/*.md")("日记/水肿.md")
