"""Pinyin typed for Chinese (search.query.pinyin): 'huancun' finds the note saying 缓存, 'Wang Wei' the note by 王伟.

Real notes through the real index (keyword only: the table and the rewriting are keyword search's) and a real Engine,
from the postings in memory and from FTS5."""
from __future__ import annotations

import os
import sqlite3

import pytest

from search.query.filters import Filters
from search.query.pinyin import keys, read_words, runs, same_name, syllables
from tests.author_helpers import engine, home  # noqa: F401 - fixtures: _build's index, an Engine over it both ways
from tests.conftest import as_older_index, in_home, ingest_keyword_only, write_tree

NOTES = {
    "cache.md": "# 缓存设计\n\n服务的缓存失效策略：写入之后删除旧的条目。\n",
    "minutes.md": "---\nauthor: 王伟\n---\n# 周会纪要\n\n讨论了数据库迁移的进度。\n",
    "man.md": "# Man pages\n\nYou can read the man page of any command.\n",
    "reply.md": "---\nauthor: Li Na\n---\n# 回复\n\n收到，明天处理。\n",
    "lunch.md": "# 午饭\n\n今天吃慢餐。\n",  # 慢餐 is man can
    "jobs.md": "---\ntags: [调度]\n---\n# Jobs\n\n任务调度每晚运行。\n",  # its tag a pair of its text
    "memo.md": "---\naliases: [备忘录]\n---\n# Memo\n\nA note.\n",  # 备忘 only in its title column
    "diet.md": "# 饮食\n\n感冒了吃哪些药？食物含有维生素。\n",  # 吃哪 (chi na) and 物含 (wu han) cross two words
    "team.md": "# 团队\n\n我们下周发布。\n",  # 我们 is women, an English word
    "stroke.md": "# 病历\n\n患者有脑梗塞病史。\n",  # 脑梗 is inside 脑梗塞, a word jieba does not split so
    "advice.md": "# 医嘱\n\n晚饭后服药，按时复诊治疗。\n",  # jieba cuts 晚饭 后 and 复诊 治疗: 饭后, 诊治 across two
    "fruit.md": "# 水果\n\n芭乐很好吃。\n",  # 芭乐 is bale, a common English word
    "ex.md": "# Exes\n\nMy ex called.\n",  # ex is the stem of exing (恶性) too
    "tumor.md": "# 病理\n\n肿瘤为恶性。\n",
    "survey.md": "# 调查\n\n大多数具有代表性。\n",  # jieba cuts 大多数 具有: 数具 (shuju) a dictionary word across
    "project.md": "# 项目\n\n项目的进度正常，有效地压制了风险。\n",  # 目的 (mudi), 地压 (diya) across 项目 的, 地 压制
}


def _build(folder):
    ingest_keyword_only(write_tree(folder / "notes", NOTES))


def paths(answer):
    return [hit.path for hit in answer.hits]


def test_pinyin_finds_the_note_that_writes_the_chinese(engine):
    """'huancun' found nothing (no passage holds it); it is searched as 缓存 too, and the answer says so, as it does
    for 'huan cun' written apart and 'zhouhui' (周会)."""
    for query, chinese, path in [("huancun", "缓存", "cache.md"), ("huan cun", "缓存", "cache.md"),
                                 ("zhouhui", "周会", "minutes.md")]:
        answer = engine.search(query, mode="keyword")
        assert paths(answer)[:1] == [path], (query, paths(answer), answer.notes)
        assert f"{query!r} read as pinyin: also searched as {chinese}" in answer.notes, answer.notes
        assert not any("no passage contains" in n for n in answer.notes), answer.notes


def test_a_pair_a_note_also_holds_as_a_tag_is_in_the_table(engine):
    """The pairs already in the table were told by a name its file's tags reused: a note tagged 调度 recorded no
    pinyin of the 调度 it writes, and 'diaodu' found nothing."""
    answer = engine.search("diaodu", mode="keyword")
    assert paths(answer) == ["jobs.md"], (paths(answer), answer.notes)


def test_a_word_of_three_syllables_is_found_by_its_key(engine):
    """shujuku is the key of 数据库, a word the note writes (not 数据 + 据库 chained from the pairs, as before V27)."""
    answer = engine.search("shujuku", mode="keyword")
    assert paths(answer) == ["minutes.md"], (paths(answer), answer.notes)
    assert "'shujuku' read as pinyin: also searched as 数据库" in answer.notes, answer.notes


def test_a_word_the_passages_hold_is_not_read_as_pinyin(engine):
    """'man' and 'can' are pinyin and English: a passage holds them, so they are searched as written alone, not as
    the 慢餐 (man can) of the lunch note too."""
    answer = engine.search("man can", mode="keyword")
    assert paths(answer) == ["man.md"], paths(answer)
    assert not any("pinyin" in n for n in answer.notes), answer.notes


def test_an_author_in_chinese_is_found_by_the_pinyin_of_the_name_and_the_reverse(engine):
    """author='Wang Wei' (or 'Wei Wang', the Western order) keeps the note by 王伟; author='李娜' the one by Li Na."""
    for name in ["Wang Wei", "wei wang", "Wangwei"]:
        assert paths(engine.search("纪要", mode="keyword", filters=Filters(author=name))) == ["minutes.md"], name
    assert paths(engine.search("回复", mode="keyword", filters=Filters(author="李娜"))) == ["reply.md"]
    # a surname alone in pinyin is anyone of that surname written in Chinese (chinese_names.families): 王伟's note
    assert paths(engine.search("纪要", mode="keyword", filters=Filters(author="Wang"))) == ["minutes.md"]
    assert paths(engine.search("纪要", mode="keyword", filters=Filters(author="Wei"))) == []  # his given name: no


def test_syllables_runs_and_chains():
    assert syllables("huancun") == ["huan", "cun"] and syllables("xian") == ["xian"]
    assert syllables("fangan") == ["fang", "an"] and syllables("hello") is None
    assert syllables("a" * 5000) is None  # a pasted blob: no pinyin, and no recursion 5,000 deep
    assert runs(["huan", "cun", "配置", "man"], set()) == [(["huan", "cun"], ["huan", "cun"])]
    assert runs(["man"], set()) == [] and runs(["huancun"], {"huancun"}) == []
    lookup = {"shuju": ["数据"], "shujuku": ["数据库"], "qianyi": ["迁移"]}
    assert read_words(["shu", "ju", "ku", "qian", "yi"], lookup) == ["数据库", "迁移"]  # the longest word first
    assert read_words(["shu", "ju", "hao"], lookup) == ["数据"] and read_words(["chi", "na"], lookup) == []
    assert keys(["shu", "ju", "ku"]) == ["shuju", "shujuku", "juku"]
    assert same_name(("王伟",), ("wang", "wei")) and not same_name(("王伟",), ("wang", "li"))


def test_an_index_before_v26_is_filled_with_its_pinyin(home, model_path, monkeypatch):
    """The writer's migration to V26 records the pinyin of the pairs the passages written before it hold, and those
    of their files' titles (memo.md's alias 备忘录, which no passage writes)."""
    from search.index.db import connect
    in_home(home, model_path, monkeypatch)
    path = as_older_index(dict(os.environ), "DROP TABLE pinyin;", 25)
    old = sqlite3.connect(path)
    assert old.execute("SELECT count(*) FROM sqlite_master WHERE name = 'pinyin'").fetchone()[0] == 0
    old.close()
    conn = connect(path)  # the writer's connection migrates
    rows = dict(conn.execute("SELECT word, key FROM pinyin WHERE word IN ('缓存', '周会', '数据', '备忘')"))
    held = conn.execute("SELECT count(*) FROM chunks WHERE text LIKE '%备忘%' OR heading_path LIKE '%备忘%'")
    assert held.fetchone()[0] == 0
    conn.close()
    assert rows == {"缓存": "huancun", "周会": "zhouhui", "数据": "shuju", "备忘": "beiwang"}, rows


def test_the_writer_writes_each_pair_once_and_forgets_none_a_rollback_lost(tmp_path):
    """A connection remembers the pairs its committed writes put in the table: a second file holding the same pairs
    writes no pinyin rows (nor computes their pinyin), one with a new pair writes that one alone; the pairs of a
    write that was rolled back are not remembered, so the next file holding them writes them."""
    import time

    from search.index import db, store
    conn = db.connect(tmp_path / "index.db")
    collection = store.ensure_collection(conn, "notes", str(tmp_path))["id"]
    gen = store.begin_generation(conn, collection, None)
    store.record_plan(conn, gen, collection, {}, {}, 0)
    inserted = []  # the pinyin rows each write asked SQLite to insert (a statement traced per row)
    conn.set_trace_callback(lambda sql: inserted.append(sql) if "INTO pinyin" in sql else None)

    def write(path, text, broken=False):
        inserted.clear()
        items = [(store.FileVersion(path, "note", 1, time.time(), path * 8, ""),
                  [store.ChunkRow(0, "", text, 3, path * 8)])]
        if broken:  # a second file no row can hold (files.path is NOT NULL): the transaction rolls back
            items.append((store.FileVersion(None, "note", 1, time.time(), "x" * 8, ""), []))
        store.write_files(conn, gen, collection, items, None, {}, {})
        return len(inserted)

    assert write("a.md", "缓存失效") == 2  # 缓存 失效 (not 存失: no word)
    assert write("b.md", "缓存失效。") == 0
    assert write("c.md", "缓存设计") == 1  # 设计
    with pytest.raises(sqlite3.IntegrityError):
        write("d.md", "周会纪要", broken=True)
    assert conn.execute("SELECT count(*) FROM pinyin WHERE word = '周会'").fetchone()[0] == 0
    assert write("e.md", "周会纪要") == 2  # 周会 纪要
    assert dict(conn.execute("SELECT word, key FROM pinyin WHERE word IN ('缓存', '周会')").fetchall()) == \
        {"缓存": "huancun", "周会": "zhouhui"}
    conn.close()


def test_an_english_word_is_not_read_as_pinyin_of_a_pair_across_two_words(engine):
    """'china' is chi na and 'wuhan' wu han: the index held the pairs 吃哪 (of 吃哪些) and 物含 (of 食物含有), so both
    were searched as those, and diet.md, which says neither, was their hit. Only words are read now."""
    for query in ["china", "wuhan", "China trip"]:
        answer = engine.search(query, mode="keyword")
        assert paths(answer) == [], (query, paths(answer), answer.notes)
        assert not any("pinyin" in n for n in answer.notes), (query, answer.notes)
    answer = engine.search("shiwu", mode="keyword")  # 食物, a word of that passage, is still read
    assert paths(answer) == ["diet.md"] and "'shiwu' read as pinyin: also searched as 食物" in answer.notes, \
        answer.notes


def test_a_common_english_word_is_not_read_as_the_chinese_it_spells(engine):
    """'women' is the pinyin of 我们, which team.md writes, and English: an English searcher asking about women got
    the 我们 note and a 'read as pinyin' line. A common English word is not read; a pinyin word beside it, or another
    word of that passage, still is."""
    for query in ["women", "Women", "dating women"]:
        answer = engine.search(query, mode="keyword")
        assert paths(answer) == [] and not any("pinyin" in n for n in answer.notes), (query, paths(answer),
                                                                                       answer.notes)
    answer = engine.search("women huancun", mode="keyword")
    assert "cache.md" in paths(answer) and "team.md" not in paths(answer), (paths(answer), answer.notes)
    assert "'huancun' read as pinyin: also searched as 缓存" in answer.notes, answer.notes
    answer = engine.search("fabu", mode="keyword")
    assert paths(answer) == ["team.md"] and "'fabu' read as pinyin: also searched as 发布" in answer.notes, \
        answer.notes


def test_a_word_inside_a_longer_one_is_read(engine):
    """jieba's search mode cuts 脑梗塞 into 脑梗塞 and 梗塞 alone: 脑梗, a word its dictionary does not hold, was in
    no row of the table, and 'naogeng' found nothing. The pairs inside a word of three characters are held too."""
    answer = engine.search("naogeng", mode="keyword")
    assert paths(answer) == ["stroke.md"], (paths(answer), answer.notes)
    assert "'naogeng' read as pinyin: also searched as 脑梗" in answer.notes, answer.notes


def _migrated(home, model_path, monkeypatch, undo: str, older: int, words: tuple[str, ...]):
    """The index made an older one (``undo`` run, its version set to ``older``), then opened by the writer, which
    migrates it: its version after, and the pinyin rows of ``words`` it holds then."""
    from search.index.db import connect
    in_home(home, model_path, monkeypatch)
    conn = connect(as_older_index(dict(os.environ), undo, older))  # the writer's connection migrates
    marks = ", ".join("?" * len(words))
    rows = dict(conn.execute(f"SELECT word, key FROM pinyin WHERE word IN ({marks})", words))
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    conn.close()
    return version, rows


def test_an_index_of_v27_gets_the_pairs_inside_its_words(home, model_path, monkeypatch):
    """Migrating to V28 writes the table again with the pairs inside a word (脑梗 of 脑梗塞), still none across two
    (吃哪 of 吃哪些)."""
    version, rows = _migrated(home, model_path, monkeypatch, "DELETE FROM pinyin WHERE word = '脑梗';", 27,
                              ('脑梗', '梗塞', '吃哪', '物含'))
    assert version == 31 and rows == {"脑梗": "naogeng", "梗塞": "gengse"}, (version, rows)


def test_a_name_and_a_word_no_dictionary_holds_are_read_too(engine):
    """王伟 (a name) and 周会 are in no dictionary: jieba finds them as words of the text, so 'Wang Wei' and 'zhouhui'
    are still read as them."""
    answer = engine.search("Wang Wei", mode="keyword")
    assert paths(answer) == ["minutes.md"], (paths(answer), answer.notes)
    assert "'wang wei' read as pinyin: also searched as 王伟" in answer.notes, answer.notes


def test_an_index_of_v26_keeps_words_alone(home, model_path, monkeypatch):
    """Migrating to V27 writes the table again with words alone: the pairs across two words V26 kept (吃哪, 物含, 存失)
    are gone, the words (缓存, 食物, 王伟) kept."""
    from search.index.db import connect
    in_home(home, model_path, monkeypatch)
    path = as_older_index(dict(os.environ), "INSERT OR IGNORE INTO pinyin(key, word) VALUES ('china', '吃哪'), "
                          "('wuhan', '物含'), ('cunshi', '存失');", 26)
    conn = connect(path)  # the writer's connection migrates
    words = {word for (word,) in conn.execute("SELECT word FROM pinyin")}
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    conn.close()
    assert version == 31 and not words & {"吃哪", "物含", "存失"}, (version, words & {"吃哪", "物含", "存失"})
    assert {"缓存", "食物", "王伟"} <= words, words


@pytest.mark.parametrize("postings", [True, False], ids=["postings", "fts5"])
def test_a_slip_of_a_held_word_that_is_pinyin_too_is_searched_both_ways(immediate, tmp_path, postings):
    """'boli' is 'boil' with two letters swapped and the pinyin of 玻璃: the pinyin reading replaced the slip's, so
    the note saying boil was not found and nothing said 'boil' ('bale', 'able' and 芭乐, was the example before a
    common English word was no longer read as pinyin). Which one a person who writes both languages meant
    the index cannot tell: both are searched (the slip's form first), and the answer names both readings."""
    from pathlib import Path

    from search.query.engine import Engine
    ingest_keyword_only(write_tree(tmp_path / "notes", {
        "kettle.md": "# Kettle\n\nLet the water boil before the tea.\n",
        "window.md": "# 窗户\n\n窗户是玻璃的。\n",
        "other.md": "# Other\n\nNothing about either.\n",
    }))
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", keyword_postings=postings)
    engine.warm()
    answer = engine.search("boli", mode="keyword")
    assert sorted(paths(answer)) == ["kettle.md", "window.md"], (paths(answer), answer.notes)
    assert "'boli' read as pinyin: also searched as 玻璃" in answer.notes, answer.notes
    assert any("'boil'" in n for n in answer.notes if "pinyin" not in n), answer.notes


def test_a_dictionary_word_across_two_words_of_the_sentence_is_read(engine):
    """jieba cuts 晚饭后 into 晚饭 and 后, and 复诊治疗 into 复诊 and 治疗: 饭后 and 诊治, words of its dictionary, were
    in no row of the table, and 'fanhou' and 'zhenzhi' found nothing (schema V29 keeps each dictionary word a run
    holds). A pair across two words that is no word is still not kept: 'china' (吃哪 of 吃哪些) is read as nothing."""
    for query, chinese in [("fanhou", "饭后"), ("zhenzhi", "诊治")]:
        answer = engine.search(query, mode="keyword")
        assert paths(answer) == ["advice.md"], (query, paths(answer), answer.notes)
        assert f"{query!r} read as pinyin: also searched as {chinese}" in answer.notes, answer.notes
    assert paths(engine.search("china", mode="keyword")) == []


def test_a_dictionary_word_across_two_words_the_sentence_does_not_mean_is_not_read(engine):
    """jieba's dictionary holds 数具, which 大多数具有 (大多数 具有) writes across two words: V29 kept it, so 'shuju' was
    searched as 数据 and 数具, and survey.md, which says nothing of data, was a hit. A word across two is read only
    where jieba's likeliest cut through it is not far less likely than the sentence's (饭后, 诊治 still are)."""
    answer = engine.search("shuju", mode="keyword")
    assert paths(answer) == ["minutes.md"], (paths(answer), answer.notes)
    assert "'shuju' read as pinyin: also searched as 数据" in answer.notes, answer.notes


def test_a_dictionary_word_across_two_that_takes_the_sentences_particle_is_not_read(engine):
    """jieba's dictionary holds 目的, which 项目的进度 (项目 的 进度) writes across two words, taking the sentence's 的:
    the cut through it is no less likely than 晚饭后's through 饭后 (e^3.9 against e^4.3), so 'mudi' was searched as
    目的 and project.md, which names no purpose, was its hit; 'diya' (低压, as a doctor means it) as 地压 of 有效地压制
    likewise. A word across two that takes a 的 or 地 the sentence's likeliest cut leaves alone is not read; that
    passage's words still are."""
    for query in ["mudi", "diya"]:
        answer = engine.search(query, mode="keyword")
        assert paths(answer) == [] and not any("pinyin" in n for n in answer.notes), (query, paths(answer),
                                                                                       answer.notes)
    answer = engine.search("xiangmu", mode="keyword")
    assert paths(answer) == ["project.md"], (paths(answer), answer.notes)
    assert "'xiangmu' read as pinyin: also searched as 项目" in answer.notes, answer.notes


def test_a_run_is_cut_from_one_dag_as_jieba_cuts_it(monkeypatch):
    """Each run's words came from three of jieba's cuts (its search mode, its full mode, the odds of the cuts through a
    word across two), each making the run's DAG again, the costliest step of the table's build. The DAG and jieba's
    likeliest cut are made once for each of a run's blocks (as jieba splits it: at a character out of its range), and
    the words are still those of its search mode, the pairs inside them and some of its full mode's."""
    from search.query import pinyin
    jieba = pinyin._jieba()
    tokenizer = type(jieba.dt)
    made, real = [], tokenizer.get_DAG
    monkeypatch.setattr(tokenizer, "get_DAG", lambda self, block: made.append(block) or real(self, block))
    for run in ["晚饭后可以散步", "王伟周会讨论了数据库迁移的进度", "大多数具有代表性", "复诊治疗", "吃哪些药食物含有维生素",
                "中华人民共和国成立", "数据\u3400库存"]:
        made.clear()
        got = set(pinyin._cut_words.__wrapped__(run))
        assert made == jieba.re_han_default.findall(run), (run, made)
        search = {word for word in jieba.cut_for_search(run) if len(word) > 1}
        inside = {word[at:at + 2] for word in search if len(word) > 2 for at in range(len(word) - 1)}
        full = {word for word in jieba.cut(run, cut_all=True) if len(word) > 1}
        assert search <= got <= search | inside | full, (run, got - search - inside - full, search - got)
    assert "饭后" in pinyin._cut_words.__wrapped__("晚饭后可以散步")  # a word across two still read where it may be meant
    assert "数具" not in pinyin._cut_words.__wrapped__("大多数具有代表性")


def test_a_pinyin_word_whose_stem_alone_a_passage_holds_is_read(engine):
    """'exing' (恶性) is stemmed 'ex' by FTS5's Porter stemmer, which ex.md says: it counted as a word the passages
    hold, so it was never read as pinyin and tumor.md was not found. A word held by its stem alone is held only if
    it is an English word."""
    answer = engine.search("exing", mode="keyword")
    assert "tumor.md" in paths(answer), (paths(answer), answer.notes)
    assert "'exing' read as pinyin: also searched as 恶性" in answer.notes, answer.notes


def test_an_index_of_v28_gets_the_dictionary_words_across_two(home, model_path, monkeypatch):
    """Migrating to V29 writes the table again with the dictionary's words across two of the sentence's cut (饭后 of
    晚饭后), still no pair that is no word (吃哪 of 吃哪些)."""
    version, rows = _migrated(home, model_path, monkeypatch, "DELETE FROM pinyin WHERE word IN ('饭后', '诊治');", 28,
                              ('饭后', '诊治', '吃哪', '物含'))
    assert version == 31 and rows == {"饭后": "fanhou", "诊治": "zhenzhi"}, (version, rows)


def test_a_common_english_word_beside_chinese_is_read_as_pinyin(engine):
    """'bale' is a common English word and the pinyin of 芭乐: beside notes in both languages it is English alone
    (the index holds English passages), unless the query writes Chinese beside it, as a Chinese searcher's does."""
    answer = engine.search("bale", mode="keyword")
    assert paths(answer) == [] and not any("pinyin" in n for n in answer.notes), (paths(answer), answer.notes)
    answer = engine.search("bale 好吃", mode="keyword")
    assert paths(answer) == ["fruit.md"], (paths(answer), answer.notes)
    assert "'bale' read as pinyin: also searched as 芭乐" in answer.notes, answer.notes


@pytest.mark.parametrize("postings", [True, False], ids=["postings", "fts5"])
def test_a_common_english_word_beside_chinese_notes_is_read_as_pinyin(immediate, tmp_path, postings):
    """'fuse' is a common English word and the pinyin of 肤色: it was never read as pinyin, and a Chinese searcher
    whose notes are Chinese found nothing. Beside notes that are Chinese (English passages fewer than a tenth of
    them) it is read, and the answer says so. 'women' is not: 我们 is in nearly every passage, which it would flood
    the hits with."""
    from pathlib import Path

    from search.query.engine import Engine
    ingest_keyword_only(write_tree(tmp_path / "notes", {
        "skin.md": "# 皮肤\n\n他的肤色偏黄，最近睡得不好。\n",
        "plan.md": "# 计划\n\n我们的计划是下周发布。\n",
        "readme.md": "# Readme\n\nThe notes of the team.\n",  # one English passage
        **{f"day{i}.md": f"# 日记{i}\n\n今天我们的天气很好，第{i}天。\n" for i in range(10)},  # 我们 in 11 of 13
    }))
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", keyword_postings=postings)
    engine.warm()
    answer = engine.search("fuse", mode="keyword")
    assert paths(answer) == ["skin.md"], (paths(answer), answer.notes)
    assert "'fuse' read as pinyin: also searched as 肤色" in answer.notes, answer.notes
    answer = engine.search("women", mode="keyword")  # 我们 would flood the hits: 11 of 12 passages saying 的
    assert paths(answer) == [] and not any("pinyin" in n for n in answer.notes), (paths(answer), answer.notes)


def test_a_dictionary_entry_across_two_that_jieba_barely_counts_is_not_read():
    """玩手 of 玩手机 (玩 手机) is an entry of jieba's dictionary counted 3 times, and the cut through it (e^6.9 less
    likely) no less likely than 诊治's of 复诊治疗 (e^9.3): 'wanshou' found a note about playing with a phone. A word
    across two is read only where the dictionary counts it ACROSS_COUNT times or more (饭后 243, 诊治 223)."""
    from search.query import pinyin
    assert "玩手" not in pinyin._cut_words.__wrapped__("他一直在玩手机")
    assert "手机" in pinyin._cut_words.__wrapped__("他一直在玩手机")
    assert {"饭后", "诊治"} <= set(pinyin._cut_words.__wrapped__("晚饭后按时复诊治疗"))
