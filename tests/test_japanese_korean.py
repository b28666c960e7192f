"""A Japanese and a Korean note-taker's dates and questions (search.query.dates, search.query.question): a year in
a Japanese era (令和6年), a Korean date (2024년 3월 15일), a question word at the end of a run (キックオフはいつ) or
a word of its own (어디에)."""
from __future__ import annotations

import pytest

from search.query.dates import date_forms, iso_dates, only_date
from search.query.question import content
from search.query.text import query_words
from tests.conftest import engine_in, tree_built_once

VAULT = {
    "日報/2023-03-13.md": "# 日報\n\n今日の作業：ログイン画面のバグ修正。明日はテストを書く。\n",
    "日報/2024-03-13.md": "# 日報\n\n今日の作業：請求書PDFの出力機能を実装。レビュー待ち。\n",
    "日報/2024-03-14.md": "# 日報\n\n今日の作業：請求書のレイアウト調整。\n",
    "議事録/定例会議.md": "# 定例会議\n\n令和6年3月14日。参加者：田中、佐藤、鈴木。売上は前年比112%で目標を達成した。\n",
    "회의록/디자인 리뷰.md": "# 디자인 리뷰\n\n2024년 3월 8일 오후 2시. 메인 화면의 버튼 색상을 파란색으로 통일하기로 했다.\n",
    "회의록/디자인 리뷰 2차.md": "# 디자인 리뷰 (2차)\n\n2024년 3월 29일. 모바일 화면의 글자 크기가 너무 작다는 의견.\n",
    "회의록/주간회의.md": "# 주간회의\n\n2024년 3월 15일. 디자인 시안은 다음 주까지 완성한다. 출시 일정은 4월 말로 연기.\n",
    "개발/캐시 전략.md": "# 캐시 전략\n\n자주 조회되는 데이터는 Redis에 캐시한다. 캐시를 무효화하는 시점이 가장 중요하다.\n",
    "개발/데이터베이스 백업.md": "# 데이터베이스 백업\n\n백업 파일은 S3에 30일 동안 보관한다.\n",
    "議事録/キックオフ.md": "# プロジェクト・キックオフ\n\n2024年4月2日。新しい在庫管理システムの開発を開始する。\n",
    "メモ/買い物.md": "# 買い物\n\nいつもの店で卵と牛乳。\n",
    "メモ/移行.md": "# 移行\n\nオンプレミスのサーバーをクラウドへ移す。\n",
    "開発/リトライ.md": "# リトライ\n\n失敗したらエクスポネンシャルバックオフで再試行する。\n",
    "料理/カレー.md": "# 夏野菜カレー\n\nカレーの隠し味にはちみつを少し入れる。\n",
    "開発/レイテンシ.md": "# 検索の設計\n\nリランカーはレイテンシとのトレードオフで上位20件だけにかける。\n",
    "開発/分析基盤.md": "# 分析基盤\n\nビッグデータの集計はｻｰﾊﾞ側で夜間に行う。\n",
    "開発/PC.md": "# PC\n\nメモリを16GBに増設した。\n",
    "仕事/インタビュー.md": "# 顧客調査\n\n来週ユーザインタビューを3件行う。\n",
    "독서/독서 목표.md": "# 독서 목표\n\n올해 목표는 한 달에 책 두 권. 지금까지 읽은 책은 일곱 권이다.\n",
    "생활/이사 준비.md": "# 이사 준비\n\n책상과 의자를 새로 산다. 가을에 이사한다.\n",
}


@pytest.fixture(scope="module")
def vault_home(tmp_path_factory, model_path):
    """VAULT indexed once for the module: its tests only search it (each indexed it again)."""
    return tree_built_once(tmp_path_factory, model_path, VAULT, "vault")


@pytest.fixture
def engine(vault_home, model_path, embedder, monkeypatch):
    return engine_in(vault_home, model_path, embedder, monkeypatch)


@pytest.mark.parametrize("query, forms", [
    ("令和6年3月14日", {"3": ["2024 03 14", "3 月 14"]}), ("令和元年5月1日の日報", {"5": ["2019 05 01", "5 月 1"]}),
    ("平成31年4月30日", {"4": ["2019 04 30", "4 月 30"]}), ("昭和64年1月7日", {"1": ["1989 01 07", "1 月 7"]}),
    ("2024년 3월 15일 회의", {"3": ["2024 03 15", "3 月 15", "3 월 15"]}), ("3월 15일", {"3": ["03 15", "3 月 15", "3 월 15"]}),
    ("2024-03-15 회의", {"03": ["2024 03 15", "3 月 15", "3 월 15"]}), ("3월 32일", {}), ("平成2年2月30日", {})])
def test_a_japanese_era_or_a_korean_date_gets_its_other_forms(query, forms):
    """令和6年3月14日 was read as 3月14日 of no year (令和 and 6 words of their own), and 2024년 3월 15일 as no date:
    a Korean date was looked up as 3, 월, 15 and 일 alone, and a note named or saying 2024-03-15 not found by it."""
    assert date_forms(query) == forms


@pytest.mark.parametrize("query", ["3월 1주차 회의", "2024년 3월 2차 회의", "3월 5명 참석", "3월 2회 점검", "12월 3시 회의"])
def test_a_korean_month_and_a_count_after_it_are_no_date(query):
    """'3월 1주차 회의' (the first week of March's meeting) and '2024년 3월 2차 회의' (March's second meeting) were
    read as March 1 and March 2, 2024: a Korean day is written with 일, and a number with a counter word after it
    (주, 차, 명, 회, 시) counts weeks, rounds, people, not days."""
    assert date_forms(query) == {}, date_forms(query)
    assert "03-0" not in iso_dates(query)


def test_a_chinese_month_and_a_week_after_it_are_no_date():
    """'3月1周' (the first week of March) was looked up as March 1 too: 03 01 and 3 月 1."""
    assert date_forms("3月1周 会议") == {} and date_forms("3月2次 会议") == {}
    assert date_forms("3月1日 会议") == {"3": ["03 01", "3 月 1"]}


def test_a_two_syllable_korean_noun_is_no_syllable_and_its_particle():
    """'가을' (autumn) was read as 가 and the particle 을, and looked up 가 too, a syllable most Korean notes hold:
    을 follows a syllable that ends in a consonant (책을), 를 one that ends in a vowel (차를)."""
    from search.query.text import korean_stem
    assert korean_stem("가을") == [] and korean_stem("마을") == [] and korean_stem("노을") == []
    assert korean_stem("책을") == ["책"] and korean_stem("차를") == ["차"] and korean_stem("집에서") == ["집"]
    assert "가" not in query_words("가을 여행")


def test_a_korean_month_and_a_count_after_it_are_not_marked_as_the_day():
    """'3월 1일' marked **3월 1**주차 (the first week of March) as well as the day."""
    from search.query.snippet import snippet
    for query in ("3월 1일", "2024-03-01"):
        shown = snippet("3월 1주차 회의: 디자인 시안 검토. 출시는 3월 1일.", query)
        assert "**3월 1일**" in shown and "**3월 1**주차" not in shown, shown
    assert snippet("3月14日的会议 3月14会议", "3月14日").count("**3月14") == 2


def test_a_japanese_or_korean_date_is_a_date_of_the_title():
    assert only_date("令和6年3月14日") and only_date("2024년 3월 15일")
    assert iso_dates("3월 15일 회의").split() == ["03-15", "회의"]
    assert iso_dates("令和5年3月13日の日報").split() == ["2023-03-13", "日報"]


@pytest.mark.parametrize("query, kept", [
    ("キックオフはいつ", "キックオフ"), ("カレーの隠し味は何ですか？", "カレーの隠し味"), ("RAGとは", "RAG"),
    ("和暦の変換はどうやって", "和暦の変換"), ("백업은 어디에 보관해", "백업은 보관해"), ("캐시는 언제 무효화해", "캐시는 무효화해"),
    ("검색을 어떻게 해", "검색을 해"),
    # inside a run, or a word of its own, they stay: いつも (always), どこか (somewhere), 幾何 (geometry)
    ("いつもの店", "いつもの店"), ("どこか静かな場所", "どこか静かな場所"), ("幾何学", "幾何学"), ("어디", "어디"),
    ("不需要任何", "不需要任何"), ("几何", "几何"), ("何", "何"),
    # とは after こ, ひ, あ: the は of こと (a thing), ひと, あと; とは何ですか whole
    ("大事なことは", "大事なことは"), ("大事なこととは", "大事なこと"), ("キックオフとは何ですか", "キックオフ")])
def test_japanese_and_korean_question_words_are_left_out_of_the_keyword_query(query, kept):
    """The spelling note said 'no passage contains はいつ' of キックオフはいつ, and '언제' of 캐시는 언제 무효화해:
    a question word, looked up as a word of a note."""
    assert content(query) == kept


def test_a_date_in_an_era_finds_the_daily_note_of_its_year(engine):
    """令和5年 is 2023: the daily notes of 2023-03-13 and 2024-03-13 were alike to 令和5年3月13日の日報, and the one of
    2024 came first."""
    answer = engine.search("令和5年3月13日の日報", mode="keyword", limit=5)
    assert answer.hits[0].path == "日報/2023-03-13.md", [hit.path for hit in answer.hits]
    # the date is marked whole, where it is written (令和6年3月14日 for 2024-03-14), and no lone 日 of 今日, 明日
    for hit in answer.hits:
        assert "**日" not in hit.snippet, hit.snippet
    meeting = engine.search("2024-03-14 会議", mode="keyword", limit=5).hits
    snippet = next(hit.snippet for hit in meeting if hit.path == "議事録/定例会議.md")
    assert "**令和6年3月14日**" in snippet, snippet


@pytest.mark.parametrize("query, path", [("2024-03-08 디자인 리뷰", "회의록/디자인 리뷰.md"),
                                         ("design review on March 29", "회의록/디자인 리뷰 2차.md"),
                                         ("3월 15일 회의", "회의록/주간회의.md")])
def test_an_iso_or_english_date_finds_a_korean_note_that_writes_it_in_korean(engine, query, path):
    """A Korean note writes 2024년 3월 8일 (indexed as 3, 월, 8, 일): 2024-03-08 (or an assistant's March 29) looked up
    03 and 08, held nowhere, so both design reviews were alike, and the spelling note named '08'."""
    answer = engine.search(query, mode="keyword", limit=5)
    assert answer.hits[0].path == path, [hit.path for hit in answer.hits]
    assert "08" not in [word["word"] for word in answer.unmatched], answer.unmatched
    assert "**" in answer.hits[0].snippet and "2024년 3월" in answer.hits[0].snippet, answer.hits[0].snippet


def test_a_question_word_is_not_named_as_held_nowhere(engine):
    for query, path in [("캐시는 언제 무효화해", "개발/캐시 전략.md"), ("キックオフはいつ", "議事録/キックオフ.md")]:
        answer = engine.search(query, mode="keyword", limit=5)
        assert answer.hits[0].path == path, [hit.path for hit in answer.hits]
        assert not any(word["word"] in ("언제", "はいつ", "いつ") for word in answer.unmatched), answer.unmatched


def test_a_korean_noun_of_one_syllable_is_found_without_its_particle(engine):
    """책을 추천 (recommend a book) is the pair 책을 and 추천: a note saying 책 두 권 and 책은 held neither, and keyword
    search found nothing. The noun is looked up alone too, and marked where it is a word (not in 책상)."""
    assert query_words("책을 추천") == ["책을", "책", "추천"]
    assert query_words("회의") == ["회의"] and query_words("검색을") == ["검색", "색을"]  # 회의 is no 회 and 의
    answer = engine.search("책을 추천", mode="keyword", limit=5)
    assert [hit.path for hit in answer.hits][:1] == ["독서/독서 목표.md"], [hit.path for hit in answer.hits]
    assert "**책** 두 권" in answer.hits[0].snippet and "**책**은" in answer.hits[0].snippet, answer.hits[0].snippet
    assert all("**책**상" not in hit.snippet for hit in answer.hits)


def test_a_korean_noun_of_one_syllable_is_not_marked_at_another_words_end():
    """책을 marked 공**책** (notebook) as 책, and 가을 (autumn) the particle of every 준비**가**, 문제**가**: the noun
    looked up alone is marked where a word begins with it."""
    from search.query.snippet import snippet
    shown = snippet("새 공책 한 권과 책 두 권을 샀다.", "책을 추천")
    assert "**책** 두 권" in shown and "공**책**" not in shown, shown
    shown = snippet("가을에 이사한다. 준비가 끝났다.", "가을 여행")
    assert "**가을**에" in shown and "준비**가**" not in shown, shown


def test_a_korean_particle_after_a_latin_name_or_a_number_is_no_word_of_its_own(engine):
    """'API는 어디에' (where is the API?) looked up 는, the particle, as a word of its own: in a folder with no API
    it ranked the notes holding 는, marked 조회되**는** 데이터**는**, and 'Docker를 설치' a note for its 캐시**를**."""
    from search.query.snippet import snippet
    assert query_words("Docker를 설치") == ["docker", "설치"]
    assert query_words("API는") == ["api"] and query_words("GPT-4는") == ["gpt", "4"]
    assert "월" in query_words("3월 회의") and "년" in query_words("2024년")  # a date's words are no particles
    assert query_words("는") == ["는"]
    assert query_words("영하 10도") == ["영하", "10", "도"] and query_words("Docker도") == ["docker"]  # degrees
    answer = engine.search("API는 어디에", mode="keyword", limit=5)
    assert not answer.hits, [(hit.path, hit.snippet) for hit in answer.hits]
    answer = engine.search("Redis에 캐시", mode="keyword", limit=5)
    assert answer.hits[0].path == "개발/캐시 전략.md", [hit.path for hit in answer.hits]
    assert "**Redis**에" in answer.hits[0].snippet and "**에**" not in answer.hits[0].snippet, answer.hits[0].snippet
    shown = snippet("백업은 S3에 보관한다. 캐시를 지운다.", "S3에 백업")
    assert "**S3**에" in shown and "**에**" not in shown and "**를**" not in shown, shown


def test_a_katakana_word_without_its_long_vowel_is_marked_whole():
    """サーバ (as JIS and many manuals write it) finds サーバー by its pairs, and was marked **サーバ**ー, a word cut in
    two; サーバー finds サーバ and marks it whole."""
    from search.query.snippet import snippet
    assert "**サーバー**をクラウド" in snippet("オンプレミスのサーバーをクラウドへ移す。", "サーバ")
    assert "**サーバ**の" in snippet("古いサーバの設定", "サーバー")


@pytest.mark.parametrize("query, terms", [
    ("キックオフ", ["キックオフ", "キッ ック クオ オフ"]), ("ｻｰﾊﾞｰ", ["サーバ", "サー ーバ"]),
    ("サーバー", ["サーバ", "サー ーバ"]), ("コンピューター", ["コンピュタ", "コン ンピ ピュ ュー ータ"]),
    ("カレー", ["カレー", "カレ レー"]), ("メモ", ["ーメモ"]),
    ("カレーの隠し味", ["カレー", "カレ レー", "の隠", "隠し", "し味"]), ("データの", ["データ", "デー ータ"]),
    ("消息队列", ["消息", "息队", "队列", "息隊", "隊列"])])
def test_a_katakana_word_is_looked_up_whole(query, terms):
    """A katakana run is a word, as a Latin word is: looked up whole, without its final long vowel (ｻｰﾊﾞｰ, サーバー
    and サーバ are one), and by its pairs in a row (a phrase: a compound part, データ of ビッグデータ), never by a
    pair alone; Chinese is looked up by its pairs as before."""
    assert query_words(query) == terms


def test_a_katakana_word_is_indexed_whole():
    from search.query.text import index_form
    assert index_form("ｻｰﾊﾞｰの設定").split()[-1] == "サーバ"
    assert index_form("プロジェクト・キックオフ").split()[-2:] == ["プロジェクト", "キックオフ"]
    assert index_form("メモリとメモ").split()[-2:] == ["メモリ", "ーメモ"]  # not the pair メモ of メモリ
    assert index_form("消息队列") == " 消 息 队 列 消息 息队 队列 "


def test_a_katakana_word_finds_and_marks_whole_words_only(engine):
    """キックオフ found and marked バ**ックオフ** by the pairs ックオフ; トレードオフ ranked a curry recipe first through
    the レー of カレー, and メモ found メモリ. A katakana word is a word: found whole or as a compound's part."""
    hits = engine.search("キックオフ", mode="keyword", limit=10).hits
    assert [hit.path for hit in hits] == ["議事録/キックオフ.md"], [(h.path, h.snippet) for h in hits]
    hits = engine.search("トレードオフ", mode="keyword", limit=10).hits
    assert [hit.path for hit in hits] == ["開発/レイテンシ.md"], [(h.path, h.snippet) for h in hits]
    assert "**トレードオフ**" in hits[0].snippet
    assert [hit.path for hit in engine.search("メモ", mode="keyword", limit=10).hits if hit.path == "開発/PC.md"] == []
    # a compound's part, and the long vowel and half-width forms as one
    hits = engine.search("データ", mode="keyword", limit=10).hits
    assert "開発/分析基盤.md" in [hit.path for hit in hits] and "ビッグ**データ**" in hits[0].snippet
    hits = engine.search("サーバー", mode="keyword", limit=10).hits
    assert {hit.path for hit in hits} == {"メモ/移行.md", "開発/分析基盤.md"}, [hit.path for hit in hits]
    for query in ["「トレードオフ」", "ｻｰﾊﾞｰ キックオフ", "メモの移行"]:  # quoted, half-width, with a particle
        for mode in ["keyword", "hybrid"]:
            assert engine.search(query, mode=mode, limit=10).hits, (query, mode)
    assert [h.path for h in engine.search("「トレードオフ」", mode="keyword", limit=10).hits] == ["開発/レイテンシ.md"]
    hits = engine.search("ユーザーインタビュー", mode="keyword", limit=10).hits
    assert [hit.path for hit in hits] == ["仕事/インタビュー.md"] and "**ユーザインタビュー**" in hits[0].snippet


def test_a_katakana_word_is_marked_whole_not_by_its_pairs():
    from search.query.snippet import snippet
    assert "**" not in snippet("エクスポネンシャルバックオフで再試行する。", "キックオフ")
    assert "**" not in snippet("カレーの隠し味", "トレードオフ")
    assert "**" not in snippet("メモリを増設した", "メモ")
    assert "ビッグ**データ**の" in snippet("ビッグデータの集計", "データ")
