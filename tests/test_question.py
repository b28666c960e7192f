"""A query asked as a question: keyword search leaves out the words that only make it one (search/query/question.py)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from search.query.engine import Engine
from search.query.question import content, framing, phrases_known
from tests.conftest import in_home, ingest, ingest_keyword_only, need_data, notes_en_built_once, write_tree


def test_an_english_question_is_searched_by_what_it_asks_about():
    assert content("how do I list the connections to a database?").split() == \
        ["list", "the", "connections", "to", "a", "database"]
    assert content("Can I pass a function to the useState updater").split()[:3] == ["pass", "a", "function"]
    assert content("is the cache warm?").split() == ["the", "cache", "warm"]  # asked by its '?' as well
    assert content("where do I put the config").split() == ["put", "the", "config"]
    assert content("how to undo git add").split() == ["to", "undo", "git", "add"]
    assert {"how", "do", "i"} <= framing("how do I list the connections to a database?")


def test_which_notes_do_i_have_about_is_a_request_for_ones_notes():
    """Without a '?' too: its asking word, 'notes do I have about' and the rest of the framing are left out."""
    assert content("which notes do I have about vim") == "vim"
    assert content("what notes did I take on postgres?") == "postgres"
    assert content("notes I keep about sleep") == "sleep"
    assert content("which branch contains a commit") == "which branch contains a commit"  # no question by its form



def test_a_question_for_the_files_citing_something_is_searched_by_what_they_cite():
    """'which notes cite geobase2004nhn': which, notes and cite say which files are wanted, not what about; a verb
    or a noun alone, or in a query that asks no such thing, stays."""
    for query, kept in [("which notes cite geobase2004nhn", "geobase2004nhn"), ("Which papers mention BERT?", "BERT"),
                        ("which of my notes refer to the budget", "the budget"),
                        ("the papers that discuss dropout", "dropout"), ("notes citing @smith2020", "smith2020")]:
        assert content(query) == kept, query
    for query in ("cite this paper", "mention bot", "release notes mention breaking change", "papers cited by Smith"):
        assert content(query) == query, query


def test_a_citing_question_naming_no_kind_of_file_is_searched_by_the_key_it_asks_about():
    """'what cites smith2020?' was searched as 'cites smith2020', 'where is smith2020 cited?' as 'smith2020 cited':
    only a question naming a kind of file ('which notes cite …') was read as asking for the files citing something.
    Asked of a citekey, a name or a title, the others are too; of a plain word, a determiner or 'did', not."""
    for query, kept in [("what cites smith2020?", "smith2020"), ("who cites smith2020", "smith2020"),
                        ("where is smith2020 cited?", "smith2020"), ("where has @smith2020 been cited", "smith2020"),
                        ("who mentions BERT", "BERT"), ("what references Vaswani?", "Vaswani")]:
        assert content(query) == kept, query
    for query, kept in [("who mentions kubernetes", "who mentions kubernetes"),  # a plain word: its words stay
                        ("what quotes did Einstein say", "quotes Einstein"), ("what is cited most?", "cited most"),
                        ("where is the config referenced?", "the config referenced"),
                        ("where is smith2020 defined?", "smith2020 defined")]:
        assert content(query) == kept, query


@pytest.mark.parametrize("query, kept", [
    ('where is "Attention Is All You Need" cited?', "Attention Is All You Need"),
    ("where is Attention Is All You Need cited?", "Attention Is All You Need"),
    ('who cites "Attention Is All You Need"', "Attention Is All You Need"),
    ('which notes cite "Attention Is All You Need"?', "Attention Is All You Need"),
    ('where is "the config" referenced?', "the config"),
    ('what does "do" mean in Ruby?', "do mean in Ruby"), ('"which notes cite" this', '"which notes cite" this'),
])
def test_a_cited_title_quoted_or_not_is_what_is_searched(query, kept):
    """Quoted, the title cut the question in two, and neither half was read as citing: 'where is' and 'cited' were
    searched; unquoted, the title's 'Is' and 'You' were left out as a question's words. Words a quote holds are kept
    whatever they are, as before."""
    assert content(query) == kept

def test_a_verb_of_citing_that_begins_a_phrase_the_notes_hold_is_the_subjects_word():
    """'which notes reference counting' asks for the notes about reference counting: it was read as the notes that
    reference 'counting'. Where a passage holds the verb and the plain word after it side by side, the verb stays;
    a citekey, a name or 'the' after it is what the files cite, whatever the index holds."""
    with phrases_known(lambda words: words == "reference counting"):
        assert content("which notes reference counting") == "reference counting"
        assert content("which notes mention counting") == "counting"  # not a phrase held
    with phrases_known(lambda words: True):
        for query, kept in [("which notes reference geobase2004nhn", "geobase2004nhn"),
                            ("Which papers mention BERT?", "BERT"), ("which notes reference the budget", "the budget"),
                            ("which notes cite counting", "counting")]:  # 'cite' is no noun
            assert content(query) == kept, query
    assert content("which notes reference counting") == "counting"  # outside a search: no index to ask


@pytest.mark.parametrize("postings", [True, False], ids=["postings", "fts5"])
def test_which_notes_reference_counting_finds_the_note_on_reference_counting(immediate, tmp_path, embedder,
                                                                              postings):
    """Searched as 'counting', the note counting sheep ranked first; the one on reference counting is first now, and
    'which notes cite geobase2004nhn' still finds the note citing the key, not the one saying 'counting'."""
    write_tree(tmp_path / "notes", {
        "memory.md": "# Memory\n\nCPython frees an object by reference counting, when its count drops to zero.\n",
        "sleep.md": "# Sleep\n\nCounting sheep, counting breaths, counting backwards: counting helps.\n",
        "reading.md": "# Reading\n\nThe survey [@geobase2004nhn] is good on geodesic bases.\n"})
    ingest_keyword_only(tmp_path / "notes")
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder, keyword_postings=postings)
    if postings:
        engine.warm()
    hits = engine.search("which notes reference counting", mode="keyword").hits
    assert [h.path for h in hits][:1] == ["memory.md"], [h.path for h in hits]
    assert [h.path for h in engine.search("which notes cite geobase2004nhn", mode="keyword").hits] == ["reading.md"]
    for query in ("what cites geobase2004nhn?", "where is geobase2004nhn cited?",  # no 'cites' nor 'cited' named
                  'where is "geodesic bases" cited?'):
        answer = engine.search(query, mode="keyword")
        assert [h.path for h in answer.hits] == ["reading.md"] and answer.unmatched == [], (query, answer.notes)


def test_a_statement_keeps_its_words():
    """A claim, and keyword queries that begin with a word a question can begin with but go on otherwise."""
    for query in ("aspirin does not reduce the risk of stroke", "list the connections to a database",
                  "do while loop in bash", "where clause in sql", "When Harry Met Sally", "can opener"):
        assert content(query) == query and framing(query) == set(), query


def test_a_query_of_framing_words_alone_is_kept():
    for query in ("how?", "how do I", "吗", "为什么"):
        assert content(query) == query, query


def test_chinese_question_words_and_particles_are_left_out():
    assert content("癫痫病发作与经期有关系吗？").split() == ["癫痫病发作与经期有关系"]
    assert content("得了癫痫平时注意什么啊？").split() == ["得了癫痫平时注意"]
    assert content("癫痫该如何防治").split() == ["癫痫该", "防治"]  # not joined into a bigram 该防
    assert "系吗" in framing("癫痫病发作与经期有关系吗？")
    assert content("吗啡的副作用是什么").split() == ["吗啡的副作用"]  # 吗 begins 吗啡 (morphine): kept


def test_traditional_chinese_question_words_in_their_variants_are_left_out():
    """為甚麼 (Taiwan's and Hong Kong's 'why') left a stray 為 to search by; 什麽 and 怎麽 (麽, not 麼) and 哪裏
    were searched as they are, as bigrams of the question's framing."""
    assert content("為甚麼會當機？").split() == ["會當機"]
    assert content("什麽是向量資料庫？").split() == ["向量資料庫"]
    assert content("怎麽安裝").split() == ["安裝"]
    assert content("哪裏可以下載？").split() == ["可以下載"]
    assert content("爲什麼會當機").split() == ["會當機"]


QUESTIONS = [  # (question, the notes-en note it asks about)
    ("how do I list the connections to a database?", "postgres/list-connections-to-a-database.md"),
    ("how do I list running containers?", "docker/list-running-docker-containers.md"),
    ("how do I edit the current command in the prompt?", "bash/edit-the-current-command-prompt.md"),
]


@pytest.fixture(scope="module")
def notes_home(tmp_path_factory, model_path):
    """The notes the questions ask about, with the first 25 of each folder they and their rivals are in: indexed
    once for the module (its tests only search it), without vectors: they search by keyword alone, and embedding
    its 73 notes was nearly all of the module's time."""
    source = need_data("notes-en")
    picked = [wanted for _, wanted in QUESTIONS]
    for folder in ("postgres", "docker", "bash", "zsh", "unix", "claude-code"):
        picked += [f"{folder}/{p.name}" for p in sorted((source / folder).glob("*.md"))[:25]]
    picked += ["zsh/open-current-command-line-prompt-in-editor.md",
               "unix/undo-changes-made-to-current-terminal-prompt.md",
               "claude-code/open-current-prompt-in-default-editor.md"]
    return notes_en_built_once(tmp_path_factory, model_path, picked, keyword_only=True)


@pytest.fixture
def notes_index(notes_home, model_path, monkeypatch) -> Path:
    return in_home(notes_home, model_path, monkeypatch)


@pytest.mark.parametrize("postings", [True, False], ids=["postings", "fts5"])
def test_a_question_finds_the_note_about_what_it_asks(notes_index, embedder, postings):
    """'how', 'do' and 'I' weighed as any word: notes that say them often ranked above the note about what was
    asked, in keyword search ('how do I edit the current command in the prompt?' put zsh's note first). Each is
    first now, from the postings in memory and from FTS5, and no snippet marks a framing word."""
    engine = Engine(notes_index, lambda: embedder, keyword_postings=postings)
    engine.warm()
    answers = {question: engine.search(question, limit=5, mode="keyword").hits for question, _ in QUESTIONS}
    assert [hits[0].path.rsplit("/", 2)[-2:] if hits else None for hits in answers.values()] == \
        [wanted.split("/") for _, wanted in QUESTIONS]
    marked = " ".join(h.snippet for hits in answers.values() for h in hits).casefold()
    assert "**how**" not in marked and "**do**" not in marked and "**i**" not in marked, marked


def test_no_spelling_hint_for_the_framing_words(immediate, tmp_path, embedder):
    """Notes that never say how, do or I answered 'how do I pay?' with "no passage contains 'how', 'do' or 'I'",
    and '付款方式吗' with "no passage contains '吗'": hints about words the search never needed. A misspelt word
    of what is asked is still hinted at."""
    write_tree(tmp_path / "notes", {"pay.md": "# Payment\n\nPay by bank transfer within thirty days.\n",
                                    "付款.md": "# 付款\n\n付款方式：银行转账或者支票。\n"})
    ingest(tmp_path / "notes")
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    for query in ("how do I pay?", "付款方式吗"):
        answer = engine.search(query, mode="keyword")
        assert answer.hits and answer.unmatched == [] and not any("no passage" in n for n in answer.notes), \
            (query, answer.notes)
    assert [u["word"] for u in engine.search("how do I pey?", mode="keyword").unmatched] == ["pey"]


def test_quoted_words_are_kept_whatever_they_are():
    """A word the query quotes is what it asks about: 'what does "do" mean in Ruby?' was searched as 'mean Ruby'
    by keyword, and "who are "The Who"?" as 'The'. Outside the quotes the framing still goes."""
    assert content('what does "do" mean in Ruby?').split() == ["do", "mean", "in", "Ruby"]
    assert content('who are "The Who"?').split() == ["The", "Who"]
    assert content('"为什么"这首歌是谁唱的？').split() == ["为什么", "这首歌", "唱的"]  # a song's title, quoted: kept (是谁: who)
    said = framing('what does "do" mean in Ruby?')
    assert {"what", "does"} <= said and "do" not in said, said


def test_a_question_about_a_quoted_framing_word_finds_its_note(immediate, tmp_path, embedder):
    """By keyword, the note about Ruby's 'do' was not found at all for 'what does "do" mean in Ruby?': its 'do'
    was left out as the question's framing, and no other word of the query is in that note."""
    write_tree(tmp_path / "notes", {"blocks.md": "# Blocks\n\nA do ... end block is passed to the method before it.\n",
                                    "stats.md": "# Statistics\n\nThe mean of a sample is its average.\n"})
    ingest(tmp_path / "notes")
    for postings in (True, False):
        engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder, keyword_postings=postings)
        engine.warm()
        hits = engine.search('what does "do" mean?', mode="keyword").hits
        assert "blocks.md" in [h.path.rsplit("/", 1)[-1] for h in hits], (postings, [h.path for h in hits])


def test_the_is_beside_a_chinese_question_word_is_left_out_too(immediate, tmp_path, embedder):
    """'什么是JVM？' was searched by keyword as 是 and JVM: a lone 是 (is), in nearly every Chinese passage, ranked
    a note on blood pressure second for saying 这个是降压药物. 什么是X, X是什么 and X是怎么… are asked about X."""
    assert content("什么是JVM？") == "JVM"
    assert content("HashMap的原理是什么").split() == ["HashMap的原理"]
    assert content("肾衰竭是怎么引起的？").split() == ["肾衰竭", "引起的"]
    assert content("乙肝有什么症状").split() == ["乙肝", "症状"]  # 有 (there are) goes with 什么 and 哪些 so
    assert content("乙肝是否会传染？").split() == ["乙肝", "会传染"]  # 是否, 能否, 可否: whether
    assert content("不可否认的事实") == "不可否认的事实"  # but 否认 is to deny
    assert content("维生素C具有哪些作用").split() == ["维生素C具有", "作用"]  # but 具有, 含有 … are to have,
    assert content("实事求是什么意思").split() == ["实事求是", "意思"]  # and 实事求是 ends in 是
    assert content("是不是") == "是不是" and content("是什么") == "是什么"  # framing alone: kept as written
    write_tree(tmp_path / "notes", {"jvm.md": "# 面试\n\nJVM 是 Java 虚拟机，负责执行字节码。\n",
                                    "血压.md": "# 降压药\n\n这个是降压药物，要长期服用。\n"})
    ingest(tmp_path / "notes")
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    for query in ("什么是JVM？", "JVM是什么"):
        assert [h.path.rsplit("/", 1)[-1] for h in engine.search(query, mode="keyword").hits] == ["jvm.md"], query


def test_a_snippet_does_not_mark_a_chinese_questions_framing(immediate, tmp_path, embedder):
    """A snippet marks a run of Chinese whole where a passage holds it whole: '内存泄露怎么办' marked
    **内存泄露怎么办** (and '什么是缓存穿透？' **什么是缓存穿透**), framing and all, though search looked up neither
    怎么办 nor 什么."""
    write_tree(tmp_path / "notes", {"泄露.md": "# 排查\n\n内存泄露怎么办？先用 jmap 导出堆转储。\n",
                                    "缓存.md": "# 面试\n\n面试常问：什么是缓存穿透？布隆过滤器可以解决。\n"})
    ingest(tmp_path / "notes")
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    for query, shown in (("内存泄露怎么办", "**内存泄露**怎么办"), ("什么是缓存穿透？", "什么是**缓存穿透**")):
        snippets = [h.snippet for h in engine.search(query, mode="keyword").hits]
        assert len(snippets) == 1 and shown in snippets[0], (query, snippets)


def test_an_assistants_recollection_and_when_it_was_written_are_left_out():
    """An assistant asks what the user remembers of a note ('what did I decide about …', 'I remember a note …', 'the
    note about …') and when it was written ('last spring', 'a few weeks ago'): decide, remember, note, spring were
    looked up as words of the subject, and a note saying 'I remember' or 'we decided' ranked above the one asked
    about. Verbs a how-to question asks about stay, and so do a year and 'the last day'."""
    assert content("What did I decide about the billing migration last spring, and why?").split() == \
        ["the", "billing", "migration", "and"]
    assert content("I remember a note comparing SQLite WAL with rollback journal; what did it conclude?").split() \
        == ["comparing", "SQLite", "WAL", "with", "rollback", "journal"]
    assert content("Where did I write down how to reset the cache?").split() == ["to", "reset", "the", "cache"]
    assert content("What did I learn in 2023 about unique indexes with Ecto?").split() == \
        ["unique", "indexes", "with", "Ecto"]
    assert content("the note about pset null in my psqlrc").split() == ["pset", "null", "in", "psqlrc"]
    assert content("the approach I noted down a few weeks ago for retries").split() == ["the", "approach", "for",
                                                                                         "retries"]
    assert content('the note about "the note about"').split() == ["the", "note", "about"]  # quoted: kept
    for query, kept in [("how do I write an object to a JSON file?", ["write", "an", "object", "to", "a", "JSON",
                                                                      "file"]),
                        ("how did I save the file in vim?", ["save", "the", "file", "in", "vim"]),
                        ("how to get the last day of the month", ["to", "get", "the", "last", "day", "of", "the",
                                                                  "month"]),
                        ("which TIL posts did I add in 2024?", ["TIL", "posts", "add", "in", "2024"]),
                        ("configure Spring in the Spring context", None)]:
        assert content(query).split() == (kept or query.split()), query


def test_a_framing_words_contraction_is_left_out_with_it():
    """'what's', 'I'm' were the words 's' and 'm' to keyword search; a negation stays as the index holds it."""
    assert content("what's the flag to skip the hooks?").split() == ["the", "flag", "to", "skip", "the", "hooks"]
    assert content("I'm writing a function; how do I type it?").split() == ["writing", "a", "function", "type", "it"]
    assert content("why shouldn't I rely on assert?").split() == ["shouldn", "t", "rely", "on", "assert"]
    assert content("where's Python's site-packages?").split() == \
        ["Python", "s", "site", "packages"]  # a possessive is no framing word's: as before


RECALLED = {
    "billing.md": "# Billing migration\n\nInvoices move from the old billing tables to the ledger service in two "
                  "steps: copy, then switch the reads.\n",
    "diary.md": "# Diary\n\nI remember last spring well. We decided to note down what we learned that spring, and I "
                "remember I wrote a note about it: we decided to keep a note each week.\n",
    **{f"other{i}.md": f"# Other {i}\n\nThe queue retries a failed upload {i} times before giving up.\n"
       for i in range(4)},
}


def test_a_recollection_finds_the_note_about_its_subject(immediate, tmp_path, embedder):
    """'What did I decide about the billing migration last spring?' put a diary saying 'I remember', 'we decided',
    'last spring' and 'note' first by keyword, above the note about the billing migration."""
    ingest(write_tree(tmp_path / "notes", RECALLED))
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    engine.warm()
    for query in ("What did I decide about the billing migration last spring?",
                  "I remember a note about the billing migration, what did I conclude?"):
        hits = engine.search(query, mode="keyword").hits
        assert [hit.path for hit in hits][:1] == ["billing.md"], (query, [(h.path, h.score) for h in hits])


def test_a_chinese_recollection_and_when_it_was_written_are_left_out():
    """What a Chinese question says of the user's note (我记得, 有一篇, 关于, 提到, …的笔记, 说了什么) and when it was
    written (上个月, 去年): 有没有提到 Kubernetes 的笔记 named 提到 as held nowhere, 上个月 found a patient's 上个月."""
    assert content("我记得有一篇关于向量检索的笔记") == "向量检索"
    assert content("我記得有一篇關於軟體架構的筆記") == "軟體架構"
    assert content("有没有提到Kubernetes的笔记") == "Kubernetes"
    assert content("上个月关于付款的会议说了什么") == "付款的会议"
    assert content("那篇讲混合检索的论文").split() == ["混合检索的论文"]
    assert content("谁负责支付网关") == "负责支付网关" and content("QPS目标是多少") == "QPS目标"
    assert content("为啥会失眠") == "会失眠" and content("去年体检血压多少") == "体检血压"
    assert content("3月18日那周的周报").split() == ["3月18日", "周报"]  # 那周 was named as held nowhere, 的周 a pair
    for kept in ("癫痫病发作与经期有关系", "最近邻搜索", "讲座", "学习笔记", "张伟的笔记本"):  # 有关系, 最近邻: words
        assert content(kept) == kept, kept
    assert {"记得", "关于", "笔记"} <= framing("我记得有一篇关于向量检索的笔记")


def test_a_chinese_count_of_days_ago_is_read_from_its_first_numeral_only():
    """'3天前' (three days ago) is begun where its numerals begin, not tried again from each of them: a query of
    10,000 digits took 2 s of CPU each time its framing was read, five times a search. The same counts are left out."""
    from search.query.question import _RECALLED_ZH
    assert _RECALLED_ZH.match("12天前", 1) is None  # not from its second digit, where '2天前' was tried
    assert content("12天前写的预算") == "预算" and content("三个月前的体检报告").split() == ["体检报告"]
    assert content("1" * 5000 + " 预算") == "1" * 5000 + " 预算"


def test_a_chinese_recollection_finds_the_note_about_its_subject(immediate, tmp_path, embedder):
    """我记得有一篇关于向量检索的笔记 ranked a weekly report first by keyword, for saying 读了一篇关于向量检索的论文（见阅读
    笔记）: its 一篇, 关于, 的笔 matched the question's framing, above the note on 向量检索 itself."""
    ingest(write_tree(tmp_path / "notes", {
        "周报.md": "# 周报\n\n本周读了一篇关于向量检索的论文（见阅读笔记），还修复了付款模块的问题。\n",
        "检索.md": "# 向量检索\n\n向量检索用双塔模型编码问题和段落，向量检索的召回率比关键词检索高。\n"}))
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    hits = engine.search("我记得有一篇关于向量检索的笔记", mode="keyword").hits
    assert [hit.path for hit in hits][:1] == ["检索.md"], [(h.path, h.score) for h in hits]
    notes = engine.search("有没有提到向量检索的笔记", mode="keyword").notes
    assert not [n for n in notes if n.startswith("no passage contains")], notes


def test_by_and_a_name_after_any_word_is_a_writer_only_where_the_index_knows_it():
    """'deployment by Robert Smith' kept 'by' as a word of the subject, and Robert Smith was read as no writer;
    'by' and a capitalised name after any word are the writer's where the index knows the name ('sorted by Name'
    is not), and outside a search they stay words."""
    from search.query.question import writers, writers_known
    assert content("deployment by Robert Smith") == "deployment by Robert Smith"
    assert writers("sorted by Name") == []
    with writers_known(lambda name: name == "Robert Smith"):
        assert content("deployment by Robert Smith") == "deployment Robert Smith"
        assert writers("deployment by Robert Smith")[:1] == ["Robert Smith"]
        assert content("sorted by Name") == "sorted by Name" and writers("sorted by Name") == []
