"""Normalisation and the CJK form of text in the keyword index."""
from search.query.text import index_form, name_phrases, normalise, query_terms, query_words


def test_normalise_folds_width_and_case():
    assert normalise("ＡＢＣ Straße") == "abc strasse"
    assert normalise("⾏") == "行"  # CJK radical from some PDFs


def test_cjk_runs_become_unigrams_and_bigrams():
    form = index_form("曲美合同")
    tokens = form.split()
    assert tokens[:4] == ["曲", "美", "合", "同"]
    assert tokens[4:] == ["曲美", "美合", "合同"]


def test_mixed_text_keeps_latin_words_whole():
    tokens = index_form("云仓WMS项目").split()
    assert "wms" in tokens and "云仓" in tokens and "项目" in tokens


def test_query_terms_quote_everything_and_split_cjk_into_bigrams():
    terms = query_terms('合同 "x" OR y*')  # the words as written first, then 合同 with its characters' other forms
    assert terms[:4] == ['"合同"', '"x"', '"or"', '"y"'] and set(terms[4:]) == {'"合衕"', '"閤同"', '"閤衕"'}, terms
    assert query_terms("曲美合同")[:3] == ['"曲美"', '"美合"', '"合同"']  # then 麯美 … (``variant_pairs``)
    assert query_terms("行") == ['"行"']
    # FTS5's column filter is no syntax: its words, and the word it joins with ':' as a phrase (as '10.0.3.17:5432')
    assert query_terms('NEAR(a b) col:c ^d') == ['"near"', '"a"', '"b"', '"col"', '"c"', '"d"', '"col c"']
    assert query_terms("🙂 !!!") == []


def test_snippet_marks_the_words_search_matched_in_mixed_and_longer_chinese_queries():
    from search.query.snippet import snippet
    assert snippet("Qumei (曲美): the contract renewal is due.", "曲美contract合同") == \
        "Qumei (**曲美**): the **contract** renewal is due."
    assert snippet("今天和曲美讨论了合同条款", "曲美合同") == "今天和**曲美**讨论了**合同**条款"
    assert snippet("曲美合同下周签字", "曲美合同") == "**曲美合同**下周签字"


def test_snippet_marks_a_latin_word_written_against_chinese_characters():
    from search.query.snippet import snippet
    assert snippet("云仓WMS 的库存同步", "云仓WMS") == "**云仓WMS** 的库存同步"
    assert snippet("上线indexing流程", "indexed") == "上线**indexing**流程"
    assert snippet("WMSX and XWMS", "WMS") == "WMSX and XWMS"


def test_snippet_marks_a_word_with_digits_only_where_it_is_written():
    """A word of four letters or more is marked by its stem ('indexing' marks 'indexed'), which cut the digits
    off 'topic3', 'error404' and '20240301' too: a search for topic3 showed every topic2 in bold, as matched."""
    from search.query.snippet import snippet
    assert snippet("topic2 word1 topic3 words", "topic3") == "topic2 word1 **topic3** words"
    assert snippet("error404 error500 sha256 sha224", "error404 sha256") == "**error404** error500 **sha256** sha224"
    assert snippet("20240301 and 20241231", "20240301") == "**20240301** and 20241231"
    assert snippet("the index was indexed while indexing", "indexing") == \
        "the **index** was **indexed** while **indexing**"


def test_snippet_marks_words_inside_snake_case_names_as_search_matched_them():
    """The tokenizer splits 'run_wal_checkpoint' at each '_', so 'checkpoint' finds it; the snippet took '_'
    for a letter: it marked nothing in such names and, the match deep in a passage, showed its first lines."""
    from search.query.snippet import snippet
    from search.query.text import query_words
    assert query_words("wal_checkpoint") == ["wal", "checkpoint"]
    assert snippet("def run_wal_checkpoint(conn):", "checkpoint") == "def run_wal_**checkpoint**(conn):"
    code = "x = 1\n" * 60 + "def run_wal_checkpoint(conn): pass"
    assert snippet(code, "wal checkpoint").endswith("def run_**wal**_**checkpoint**(conn): pass")


def test_snippet_shows_where_most_of_the_query_is_not_its_first_word():
    """A phrase copied from a PDF page: the passage mentions 'model' and 'and' early on, the phrase itself comes
    later. The snippet showed the first 'and' and cut the phrase off."""
    from search.query.snippet import snippet
    text = ("Revision history. July 2003: scope and content agreed with Nova Scotia and British Columbia, after "
            "a discussion of the model and of the decisions made concerning it, with the Yukon as well. Meeting in "
            "Victoria, May 2003, and again in Ottawa later that autumn. December 2003: Draft Integration of UML "
            "model for both LRS and Segmented views of the NHNC1. February 2004: English review.")
    shown = snippet(text, "Draft Integration of UML model for both LRS and Segmented views")
    assert "**Segmented** **views**" in shown and "**Draft** **Integration**" in shown, shown
    assert snippet(text, "Victoria").startswith("…") and "**Victoria**" in snippet(text, "Victoria")
    assert snippet("a short passage about Victoria", "Victoria") == "a short passage about **Victoria**"


def test_snippet_marks_full_width_and_decomposed_text_that_search_found():
    """Search folds text with NFKC and case folding, so ABC123 finds a note that writes ＡＢＣ１２３ (as Chinese
    input methods often type it) and ダウンロード one whose text macOS stored decomposed; the snippet matched
    the folded query against the text as written and marked none of them."""
    import unicodedata
    from search.query.snippet import snippet
    assert snippet("型号：ＡＢＣ１２３，序列号：ＸＹＺ－９８７", "abc123") == "型号：**ＡＢＣ１２３**，序列号：ＸＹＺ－９８７"
    assert snippet("每次５公里，Ｐｙｔｈｏｎ 很流行", "5公里 python") == "每次**５公里**，**Ｐｙｔｈｏｎ** 很流行"
    word = unicodedata.normalize("NFD", "ダウンロード")
    assert snippet(f"まず{word}する", "ダウンロード") == f"まず**{word}**する"
    assert snippet("ｶﾞｲﾄﾞ and cafe\u0301", "ガイド café") == "**ｶﾞｲﾄﾞ** and **cafe\u0301**"


def test_a_chinese_snippet_starts_after_a_punctuation_mark_not_mid_phrase():
    """A snippet that leaves out the start of its passage began after a space, or, in Chinese text, which has
    none, at whatever character came (…块和摘要是否…, the middle of 分块)."""
    from search.query.snippet import snippet
    text = "这是一段很长的中文文本，用来测试分块和摘要是否会在汉字中间截断。" * 6 + "关键字藏在最后面的蓝莓芝士蛋糕。"
    shown = snippet(text, "蓝莓芝士蛋糕")
    assert shown.startswith("…用来测试") or shown.startswith("…这是一段"), shown
    assert shown.endswith("**蓝莓芝士蛋糕**。"), shown


def test_a_chinese_pdfs_snippet_starts_after_its_ascii_clause_marks_too():
    """A PDF's text is NFKC-normalised, which writes Chinese clause marks as ASCII ones (，as ,): its snippets
    began mid-phrase (…单表,数据量…, the middle of 单库单表) as the marks were no place to start at."""
    import unicodedata

    from search.query.snippet import snippet
    text = unicodedata.normalize("NFKC", "当前订单系统单库单表，数据量已超过五千万行，查询变慢，" * 8
                                 + "二、方案：采用分库分表，按用户取模。")
    shown = snippet(text, "分库分表")
    assert shown.startswith("…数据量") or shown.startswith("…查询变慢") or shown.startswith("…当前"), shown
    assert "**分库分表**" in shown


def test_snippet_marks_a_chinese_or_japanese_word_whose_query_bigrams_overlap():
    """The bigrams 数据 and 据库 of the query 数据库索引 both match in 数据库, but matches were taken one after
    the other, so the second was never seen: **数据**库, and **デー**タ for データベース."""
    from search.query.snippet import snippet
    assert snippet("数据库的索引", "数据库索引") == "**数据库**的**索引**"
    assert snippet("データベースを作る", "データベース") == "**データベース**を作る"
    # a katakana word is looked up and marked whole (or as a compound's part), not by its pairs: データ is no データベース
    assert snippet("データを集める", "データベース") == "データを集める"


def test_snippet_marks_words_whose_accents_differ_from_the_query_as_search_matched_them():
    """The keyword index reads letters without their accents, so 'ma' finds the pinyin mā má mǎ mà and 'cafe'
    finds café, but the snippet compared them with their accents and marked nothing."""
    from search.query.snippet import snippet
    assert snippet("Tones: mā má mǎ mà (妈 麻 马 骂)", "ma") == "Tones: **mā** **má** **mǎ** **mà** (妈 麻 马 骂)"
    assert snippet("un café, a cafe", "café") == "un **café**, a **cafe**"
    assert snippet("Běijīng 北京", "beijing") == "**Běijīng** 北京"


def test_a_chinese_snippet_is_as_wide_on_screen_as_an_english_one():
    """A snippet was 240 characters whatever the script: in Chinese, whose characters a terminal shows two
    columns wide and which say more each, that is a wall of text twice the size of an English snippet. It is
    240 columns now: about 120 Chinese characters, 240 English ones as before."""
    from search.query.snippet import snippet
    chinese = "高血压病的确诊主要是借助血压测定来诊断，如果怀疑自己可能会患高血压，建议到医院心内科门诊测定血压。" * 8
    english = "The quick brown fox jumps over the lazy dog and runs far away. " * 12
    assert 110 <= len(snippet(chinese, "高血压").replace("**", "").strip("…")) <= 122
    assert 230 <= len(snippet(english, "lazy").replace("**", "").strip("…")) <= 241
    mixed = "在 Redis 里配置 maxmemory-policy 为 allkeys-lru，" * 20
    assert 200 <= len(snippet(mixed, "redis").replace("**", "").strip("…")) <= 215  # 6 of each 43 are wide


def test_a_snippet_cut_short_ends_at_a_word_or_punctuation_mark_not_mid_word():
    """A snippet shorter than its passage ended wherever its width ran out: mid-word in English ('jum…'), at any
    character in Chinese (…热点过…, the middle of 过期)."""
    from search.query.snippet import snippet
    english = "The quick brown fox jumps over the lazy dog and runs far away. " * 12
    shown = snippet(english, "lazy")
    assert shown.endswith("…") and shown[:-1].split()[-1] in english.split(), shown
    chinese = "缓存穿透：查询不存在的数据，用布隆过滤器拦截。缓存击穿：热点过期，用互斥锁或者逻辑过期。" * 6
    assert snippet(chinese, "缓存击穿")[-2] in "：，。", snippet(chinese, "缓存击穿")


def test_a_notes_own_bold_does_not_run_into_the_marks():
    """A note's **重要** marked as a match came out as ****重要**** (an empty bold, then the word, then another),
    which reads as neither. The note's own bold is left out of a snippet; powers and keyword arguments stay."""
    from search.query.snippet import snippet
    assert snippet("这是**重要**通知，请查收", "重要") == "这是**重要**通知，请查收"
    assert snippet("This is **very important** news", "important") == "This is very **important** news"
    assert snippet("x = a**2 + b**2, f(**kw)", "f") == "x = a**2 + b**2, **f**(**kw)"


def test_a_long_chinese_query_marks_its_first_words_not_any_64_of_its_pairs():
    """A snippet marks at most 64 of the query's words; they were taken from a set, so for a long Chinese
    question (a pair of characters each) the marked ones were any 64, and 缓存 at its start could go unmarked
    while keyword search had searched it."""
    from search.query.snippet import snippet
    rest = "".join(chr(0x4e00 + 97 * i) for i in range(150))  # no pair of these is in the text below
    shown = snippet("缓存击穿：热点过期，用互斥锁。", "缓存击穿热点过期互斥锁" + rest)
    assert shown == "**缓存击穿**：**热点过期**，用**互斥锁**。", shown


def test_a_passage_that_fits_the_snippet_is_shown_whole():
    """A passage of 213 characters, its match near the end, was shown from a third of the width before the
    match: '…sentence that takes …', its first 60 characters cut off though all of it fit in the 240."""
    from search.query.snippet import snippet
    text = "An intro sentence that takes some room here. " * 4 + "The word kiwi comes near the end."
    assert snippet(text, "kiwi") == text.replace("kiwi", "**kiwi**").strip()
    chinese = "这是一段不长的中文笔记，" * 9 + "关键字在最后：蓝莓。"  # 118 characters, 236 columns
    assert snippet(chinese, "蓝莓") == chinese.replace("蓝莓", "**蓝莓**")


def test_snippet_marks_german_words_written_with_or_without_umlauts_as_search_found_them():
    """Search finds 'Überlagerung' for 'Ueberlagerung' and the other way round; the snippet marked neither."""
    from search.query.snippet import snippet
    assert snippet("Die Überlagerung von Wellen.", "Ueberlagerung") == "Die **Überlagerung** von Wellen."
    assert snippet("Die Ueberlagerung, Groesse und Größe.", "Überlagerung größe") == \
        "Die **Ueberlagerung**, **Groesse** und **Größe**."


def test_a_camelcase_name_of_the_query_is_looked_up_by_its_words_in_a_row_too():
    """'getUser' and 'UserName' found nothing in code, which holds getUserName as 'getusername get user name'; a
    word of prose written with capitals inside (mRNA, IgG, CX3CR1, RNAs) is left whole, as SciFact's claims hold
    such words."""
    assert name_phrases("getUser UserName XMLHttpRequest utf8Decode HTMLParser") == {
        "getuser": "get user", "username": "user name", "xmlhttprequest": "xml http request",
        "utf8decode": "utf8 decode", "htmlparser": "html parser"}
    assert name_phrases("mRNA IgG CX3CR1 H3K4me3 RNAs URLs Python registry get_user") == {}
    assert query_words("AccountStore.getUser") == ["accountstore", "getuser", "account store", "get user"]
    # a pasted base64 blob is no name: its phrase of 3,700 words took the snippets' pattern 46 s to compile
    assert name_phrases("Zm9vYmFy" * 1240) == {} and len(name_phrases("getUserNameFromTheFirstAccountStore")) == 1


def test_snippet_marks_the_words_of_camelcase_names_in_code_as_search_matched_them():
    """Code is indexed with each camelCase name's words too, so 'user name' finds getUserName; the snippet
    marked nothing there. In prose a camelCase word is not split."""
    from search.query.snippet import snippet
    code = "def getUserName(self):\n    return self.displayName  # HTMLParser\n"
    assert snippet(code, "user name", code=True) == \
        "def get**UserName**(self): return self.display**Name** # HTMLParser"
    assert snippet(code, "get_user_name parser", code=True) == \
        "def **getUserName**(self): return self.display**Name** # HTML**Parser**"
    assert "**" not in snippet("The getUserName call.", "user name")


def test_snippet_marks_and_shows_the_part_of_a_camelcase_name_a_query_names():
    """'UserName' and 'ReadError' find getUserName and IncompleteReadError by their words in a row (``name_phrases``),
    but the snippet marked nothing there, and in a long passage began at its start, never reaching the name."""
    from search.query.snippet import snippet
    code = "def getUserName(self):\n    return self.displayName\n"
    assert snippet(code, "UserName", code=True) == "def get**UserName**(self): return self.displayName"
    assert snippet('class IncompleteReadError(EOFError):\n    """Incomplete read error."""', "ReadError", code=True) \
        == 'class Incomplete**ReadError**(EOFError): """Incomplete **read error**."""'
    long = "\n".join(f"    step_{n} = run({n})" for n in range(60)) + "\n    return self.getUserName()\n"
    assert snippet(long, "UserName", code=True).endswith("self.get**UserName**()")


def test_chinese_wrapped_across_lines_is_one_run_to_search_and_to_snippets(immediate, tmp_path, embedder):
    """A paragraph wrapped at a fixed width (a PDF's lines, text copied from one) cuts Chinese words anywhere:
    '消息队\\n列' was indexed without the pair 队列, so '队列' found nothing, and the snippet showed '消息队 列',
    a word cut by a space. A heading's line stays apart from the text below it; Korean lines break at spaces."""
    import os
    from pathlib import Path

    from search.query.engine import Engine
    from search.query.snippet import snippet
    from tests.conftest import ingest, write_tree
    wrapped = "在分布式系统的设计里，比如消息队\n列和分布式事务这样的词，都会在固定\n宽度换行的时候被切开。"
    assert {"队列", "定宽"} <= set(index_form(wrapped).split())
    assert "队列" not in index_form(wrapped.replace("\n", "\n\n")).split()  # a paragraph ends there
    assert snippet("# 子标题\n正文", "正文", note=True) == "子标题 **正文**"
    assert snippet("안녕\n하세요", "안녕") == "**안녕** 하세요"
    write_tree(tmp_path / "notes", {"wrap.md": "# 笔记\n\n比如说在分布式系统里，像消息队\n列和分布式事务这样的词，都会在\n固定宽度换行的时候被切开了。\n",
                                    "other.md": "# 其他\n\n排队的人很多，列车晚点。\n"})
    ingest(tmp_path / "notes")
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    hits = engine.search("队列", mode="keyword").hits
    assert [h.path.rsplit("/", 1)[-1] for h in hits] == ["wrap.md"]
    assert hits[0].snippet == "比如说在分布式系统里，像消息**队列**和分布式事务这样的词，都会在固定宽度换行的时候被切开了。"


def test_a_wrapped_line_that_begins_or_ends_with_a_chinese_mark_is_joined_in_snippets(immediate, tmp_path, embedder):
    """A paragraph wrapped at a fixed width breaks before a full-width mark or after an opening one as anywhere:
    '有所差异' / '，例如' was shown '差异 ，例如', and '（' / '多跳' as '（ 多跳', a space no Chinese text holds. A
    list of short lines ending in marks stays apart."""
    import os
    from pathlib import Path

    from search.query.engine import Engine
    from search.query.snippet import snippet
    from tests.conftest import ingest, write_tree
    assert snippet("第一，\n第二。", "第二") == "第一， **第二**。"
    write_tree(tmp_path / "notes", {"wrap.md": "# 断词\n\n中文书写时词与词之间没有空白，繁体中文与简体中文在用词上有所差异\n"
                                               "，例如软体与软件，直接套用简体中文的断词模型效果不佳。复杂问题（\n"
                                               "多跳、比较、计数）的解析准确率明显低于简单问题的解析准确率。\n"})
    ingest(tmp_path / "notes")
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    hits = engine.search("多跳 软体", mode="keyword").hits
    assert hits and hits[0].snippet == ("中文书写时词与词之间没有空白，繁体中文与简体中文在用词上有所差异，例如**软体**与软件，"
                                        "直接套用简体中文的断词模型效果不佳。复杂问题（**多跳**、比较、计数）的解析准确率明显低于"
                                        "简单问题的解析准确率。"), hits[0].snippet


def test_a_header_line_over_a_short_heading_is_not_joined_to_it(immediate, tmp_path, embedder):
    """A paper's header or title-block line over a short heading looked like a wrapped paragraph's last full line:
    '中華民國計算語言學學會 論文集' / '三、實驗結果' was indexed with 集三 and shown '論文集三、實驗結果', and
    '北京大学 王选计算机研究所' / '摘要' with 所摘. The paragraph's lines under the heading are twice as wide as the
    header: compared with them, it is no wrapped line; the paragraph's own wrapped lines are still joined."""
    import os
    from pathlib import Path

    from search.query.engine import Engine
    from tests.conftest import ingest
    from tests.test_pdf_parser import cjk_pages
    pages = [["繁體中文斷詞之條件隨機場方法", "北京大学 王选计算机研究所", "摘要",
              "本研究以條件隨機場進行繁體中文斷詞，並以中研院平衡語料庫進行訓練與測試，實驗結果顯示本方法之效果達到很",
              "高的水準。"],
             ["中華民國計算語言學學會 論文集", "三、實驗結果",
              "在中研院平衡語料庫的測試集上，本方法的精確率與召回率都很高，與最大匹配法相比提升了六個百分點，錯誤主",
              "要集中於人名與機構名稱。"]]
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "斷詞.pdf").write_bytes(cjk_pages(pages))
    ingest(folder)
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    assert [h.path for h in engine.search("集三", mode="keyword").hits] == []
    assert [h.path for h in engine.search("所摘", mode="keyword").hits] == []
    assert [h.path.rsplit("/", 1)[-1] for h in engine.search("很高", mode="keyword").hits] == ["斷詞.pdf"]
    assert "論文集 **三**" in engine.search("三、實驗結果", mode="keyword").hits[0].snippet
    assert "錯誤**主要**集中" in engine.search("主要", mode="keyword").hits[0].snippet


def test_a_list_of_short_lines_is_not_joined_as_wrapped_text():
    """Every line break between two Chinese (Japanese) characters was taken for a wrapped paragraph's, so a list
    written without markers made words of its neighbours: りんご / みかん was indexed with ごみ (rubbish), 苹果 / 香蕉
    with 果香, and a search for them found the list. Only a line about as long as those beside it, and long
    enough to have been wrapped, is joined to the next."""
    from search.query.snippet import snippet
    for listed, made in [("りんご\nみかん\nぶどう", "ごみ"), ("苹果\n香蕉\n葡萄", "果香"), ("消息队\n列", "队列")]:
        assert made not in index_form(listed).split()
        assert made not in index_form(f"购物清单\n\n{listed}\n\n{'这是一段很长的说明文字，' * 4}").split()
    assert snippet("苹果\n香蕉", "香蕉") == "苹果 **香蕉**"
    # a short line ending a wrapped paragraph is joined to it; a line half as wide as the one above it is not
    assert "务这" in index_form("在分布式系统的设计里，比如分布式事\n务这样的词").split()
    assert "果葡" not in index_form("在分布式系统的设计里，比如分布式事务说的固定\n苹果和香蕉都是常见的水果\n葡萄").split()


def test_a_chat_line_begun_by_a_speaker_is_not_joined_to_the_message_above():
    """A chat's lines are its messages, each begun by its speaker ('王医生: …'): a long message ending in a Chinese
    character was taken for a wrapped line and the next message run into it, a snippet reading '发给你了我: 收到'
    (two people's words as one sentence of the first) and the index holding the pair 了我. Prose's wrapped lines are
    still joined, a full-width colon's too."""
    from search.query.snippet import snippet
    chat = ("Saturday 28 November 2026\n陈医生: 你好，上次说的那篇 NEJM 关于 finerenone 的文章发给你了\n"
            "我: 收到，谢谢！我看一下 FIDELIO-DKD 的亚组分析\nDr Chen: 另外周五的病例讨论改到下午四点")
    shown = snippet(chat, "finerenone")
    assert "发给你了 我: 收到" in shown, shown
    assert "了我" not in index_form(chat).split()
    assert "了我" in index_form("在分布式系统的设计里，比如消息队列的文章发给你了\n我：收到以后再看一下这些").split()


def test_a_wrapped_line_with_a_half_width_colon_is_joined_outside_a_chat():
    """A paragraph of Chinese wrapped at a fixed width whose next line holds a half-width colon ('来自 / 磁盘写入: 每次')
    was taken for a chat's message begun by its speaker and left unjoined: the index lost the pair 自磁 (来自磁盘) and
    a snippet showed the paragraph broken. A line is a speaker's only in a text where a line began so already, a
    message of two paragraphs' too."""
    prose = ("在分布式系统的设计里，我们发现消息队列的延迟主要来自\n磁盘写入: 每次提交都要等待刷盘，所以吞吐量受到限制。\n"
             "下一步我们会尝试批量提交的办法来改善这个问题。")
    assert "自磁" in index_form(prose).split()
    chat = "王医生: 在分布式系统的设计里，我们发现消息队列的延迟主要来自\n我: 收到，谢谢！我看一下这些文章的结论再说。"
    assert "自我" not in index_form(chat).split()
    chat = "王医生: 你好\n\n在分布式系统的设计里，我们发现消息队列的延迟主要来自\n我: 收到，谢谢！我看一下这些文章的结论再说。"
    assert "自我" not in index_form(chat).split()


def test_a_notes_label_line_is_no_chat_and_its_wrapped_lines_are_joined():
    """A passage whose first line was a label and a half-width colon ('注意: …') was read as a chat: its wrapped
    line '磁盘写入: 每次…' was taken for a speaker's message and left unjoined, the pair 自磁 lost. A text is a chat's
    when it has what one has: a day line or a time, a speaker beginning two lines, a message that ended."""
    note = ("注意: 以下数据来自上周的压力测试，仅供参考。\n在分布式系统的设计里，我们发现消息队列的延迟主要来自\n"
            "磁盘写入: 每次提交都要等待刷盘，所以吞吐量受到限制。")
    assert "自磁" in index_form(note).split()
    for chat in ("陈医生: 你好\n在分布式系统的设计里，我们发现消息队列的延迟主要来自\n陈医生: 收到，谢谢！我看一下再说。",
                 "Saturday 28 November 2026\n王医生: 你好\n在分布式系统的设计里，我们发现消息队列的延迟主要来自\n"
                 "我: 收到，谢谢！我看一下这些文章的结论再说。"):
        assert not {"自陈", "自我"} & set(index_form(chat).split()), chat


def test_a_mark_inside_a_notes_inline_code_marks_the_whole_code_span():
    """A snippet shown as Markdown showed '`**git** reset`' as written, marks and all: nothing is bold inside code.
    The whole span is marked instead, '**`git reset`**'; outside code a word is marked alone, and code's text (not
    a note's) keeps its marks where they were."""
    from search.query.snippet import snippet
    text = "To undo it, run `git reset` and then ``git`s log``; git again, `ls` too."
    assert snippet(text, "git", note=True) == (
        "To undo it, run **`git reset`** and then **``git`s log``**; **git** again, `ls` too.")
    assert snippet("x = `git reset`", "git", code=True) == "x = `**git** reset`"
