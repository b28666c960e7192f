"""A date asked the way a Chinese note-taker says it finds the notes named by ISO date, and the other way round
(search.query.dates): daily notes and meetings are called 2024-03-20.md, the question is 3月20号的日记."""
from __future__ import annotations

import pytest

from search.query.text import query_pieces
from tests.conftest import engine_in, tree_built_once

VAULT = {
    "日记/2024-03-20.md": "# 2024-03-20 周三\n\n## 记录\n\n终于约上体检了，下周六早上空腹。写了一段脚本把数据字典导进数据库：\n\n"
                          "```python\nimport pandas as pd\ndf = pd.read_excel(\"数据字典.xlsx\")\n"
                          "df.to_sql(\"dict\", conn, if_exists=\"replace\")\n```\n\n#日记 #技术/python\n",
    "日记/2024-03-11.md": "# 2024-03-11 周一\n\n## 记录\n\n早上地铁二号线故障，迟到二十分钟。\n\n#日记\n",
    "日记/2024-03-22.md": "# 2024-03-22 周五\n\n## 周总结\n\n翻了翻这周的日记：3月的计划完成了 20%，二号线又故障了两次。\n\n"
                          "#日记 #周总结\n",
    "日记/2024-03-25.md": "# 2024-03-25 周一\n\n## 复盘\n\n重读了3月20号的日记：3月20号约了体检，3月20号晚上还写了脚本。\n\n#日记\n",
    "日记/2024-03-12.md": "# 2024-03-12 周二\n\n## 感想\n\n最近睡得太晚，明天开始 11 点前关电脑。\n\n#日记\n",
    "会议记录/2024-03-14 OKR 对齐会.md": "---\ntags: [会议, OKR]\n---\n# OKR 对齐会\n\n参会人：王五、张三、李四、我\n\n"
                                     "## O1\n\n- KR1：4月30日前完成上线\n",
    "会议记录/2024-03-12 产品周会.md": "---\ntags: [会议]\n---\n# 产品周会 3月12日\n\n| 事项 | 负责人 | 截止 |\n"
                                   "| --- | --- | --- |\n| 出 PRD 终稿 | 小刘 | 3月18日 |\n| 技术方案 | 李四 | 3月20日 |\n"
                                   "| 确认接口 | 我 | 3月15日 |\n",
    "会议记录.md": "# 会议记录\n\n- [[2024-03-12 产品周会]]\n- [[2024-03-14 OKR 对齐会]]\n- [[2024-03-21 与台北团队同步]]\n",
    "会议记录/2024-03-21 与台北团队同步.md": "---\ntags: [會議, 台北]\n---\n# 與台北團隊同步\n\n參與者：陳美玲、林志明，我、李四\n\n"
                                       "## 結論\n\n資料庫遷移安排在四月第二週的週末，停機時間預計四小時。\n",
    "面试/前端候选人.md": "# 前端候选人面试 3月7日\n\n闭包、事件循环回答得不错，结论：通过。\n",
    "面试/后端候选人.md": "# 后端候选人面试 3月15日\n\nHashMap 扩容讲得清楚，结论：待定。\n",
}
VAULT.update({  # the rest of a vault, so that 日记 and 20 are not words most passages hold
    f"{folder}/{name}.md": f"# {name}\n\n{text}\n" for folder, name, text in [
        ("技术", "Redis 缓存穿透", "查询不存在的数据，每次请求都打到数据库。解决：布隆过滤器，或者缓存空值。"),
        ("技术", "Git 常用命令", "git reset --soft HEAD~1 撤销上一次提交，保留改动。"),
        ("技术", "Docker 部署", "容器里时区不对：设置 TZ=Asia/Shanghai。多阶段构建让镜像变小。"),
        ("技术", "Kafka", "生产者 acks=all，消费者关闭自动提交，处理完再提交 offset。"),
        ("技术", "MySQL 慢查询", "EXPLAIN 看执行计划，联合索引遵守最左前缀原则。"),
        ("读书", "思考，快与慢", "系统1 快速直觉，系统2 缓慢专注。锚定效应：先开价的一方占优势。"),
        ("读书", "被讨厌的勇气", "课题分离：不干涉别人的课题。一切烦恼都来自人际关系。"),
        ("读书", "人类简史", "智人能讲虚构的故事：宗教、国家、公司、货币。"),
        ("读书", "原则", "拥抱现实，应对现实。痛苦加反思等于进步。"),
        ("生活", "租房", "徐汇区一室一厅，押一付三。房东回消息慢。"),
        ("生活", "红烧肉", "五花肉焯水，冰糖炒糖色，小火炖一小时，大火收汁。"),
        ("生活", "健身计划", "深蹲 14 次，卧推 14 次，硬拉 14 次，每周练三次。"),
        ("生活", "台北旅行", "故宫博物院、士林夜市、九份、永康街。"),
        ("人物", "张三", "后端组长，大家都叫他老张，喜欢喝普洱茶。"),
        ("人物", "李四", "后端工程师，Redis 和 Kafka 专家，周末喜欢爬山。"),
        ("学习", "产品经理术语", "PRD 产品需求文档，MVP 最小可行产品，OKR 目标与关键结果。"),
    ]})


@pytest.fixture(scope="module")
def vault_home(tmp_path_factory, model_path):
    """VAULT indexed once for the module: its tests only search it (each indexed it again: 44 builds)."""
    return tree_built_once(tmp_path_factory, model_path, VAULT, "vault")


@pytest.fixture(params=["postings", "fts5"])
def engine(request, vault_home, model_path, embedder, monkeypatch):
    return engine_in(vault_home, model_path, embedder, monkeypatch, request.param == "postings")


def paths(answer) -> list[str]:
    return [hit.path for hit in answer.hits]


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query", ["3月20号 日记", "3月20号的日记", "三月二十号的日记", "2024.3.20 日记"])
def test_a_chinese_date_finds_the_daily_note_named_by_its_iso_date(engine, mode, query):
    # the meeting note says 3月20日 in a table, the note of 2024-03-25 says 3月20号 three times; the daily note is
    # 2024-03-20, tagged 日记: its title holds the date and the tag
    answer = engine.search(query, mode=mode, limit=5)
    assert paths(answer)[0] == "日记/2024-03-20.md", paths(answer)


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query", ["2024-03-20", "3月20日", "三月二十日", "2024.3.20", "20 March 2024", "3/20",
                                   "20.3.2024"])
def test_a_date_alone_puts_first_the_note_named_by_it(engine, mode, query):
    # a table says 3月20日, the note of 2024-03-25 says 3月20号 three times: the rarer form outweighed the date written
    answer = engine.search(query, mode=mode, limit=5)
    assert paths(answer)[0] == "日记/2024-03-20.md", paths(answer)


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_simplified_query_puts_first_the_file_whose_title_says_it_in_traditional(engine, mode):
    # the meeting of 3月21日, written in Taiwan, is tagged 會議; the list of meetings is titled 会议记录 and holds
    # 2024-03-21 too
    answer = engine.search("2024年3月21日 会议", mode=mode, limit=5)
    assert paths(answer)[0] == "会议记录/2024-03-21 与台北团队同步.md", paths(answer)


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_an_english_date_finds_the_chinese_notes_of_that_day(engine, mode):
    # as an assistant searches a Chinese user's notes in English
    answer = engine.search("notes of March 14", mode=mode, limit=5)
    assert "2024-03-14" in paths(answer)[0], paths(answer)


def test_a_chinese_date_finds_the_meeting_named_by_its_iso_date(engine):
    answer = engine.search("3月14日的会议", mode="keyword", limit=5)
    assert "会议记录/2024-03-14 OKR 对齐会.md" in paths(answer)[:2], paths(answer)
    assert "会议记录/2024-03-12 产品周会.md" != paths(answer)[0]
    assert not [n for n in answer.notes if "日的" in n], answer.notes  # the date's 日 is no pair with 的


def test_an_iso_date_finds_the_note_that_writes_it_in_chinese(engine):
    answer = engine.search("2024-03-07 面试", mode="keyword", limit=5)
    assert paths(answer)[0] == "面试/前端候选人.md", paths(answer)


def test_a_date_is_marked_in_snippets_as_either_form_writes_it(engine):
    listed = {hit.path: hit.snippet for hit in engine.search("3月14日", mode="keyword", limit=10).hits}
    assert "**2024-03-14**" in listed["会议记录.md"], listed
    table = {hit.path: hit.snippet for hit in engine.search("2024-03-20", mode="keyword", limit=10).hits}
    assert "**3月20日**" in table["会议记录/2024-03-12 产品周会.md"], table


def test_only_a_real_date_gets_its_other_form():
    assert query_pieces("3月14日的会议")[0] == ("3", ["3", "03 14", "3 月 14"])
    assert ("march", ["march", "03 14", "3 月 14", "3 월 14", "mar 14"]) in query_pieces("meeting on March 14")
    assert ("03", ["03", "2024 03 07", "3 月 7"]) in query_pieces("2024-03-07 面试")
    assert all(len(terms) == 1 for _, terms in query_pieces("13月40日 2024-13-01"))  # no month 13, no day 40


@pytest.mark.parametrize("query, month, forms", [
    ("三月十四日的会议", "三月十四日", ["03 14", "3 月 14"]), ("十二月三十一日", "十二月三十一日", ["12 31", "12 月 31"]),
    ("二〇二四年三月十四日", "二四年三月十四日", ["2024 03 14", "3 月 14"]), ("2024.3.14 会议", "3", ["2024 03 14", "3 月 14"]),
    ("2024.3.1 周会", "3", ["2024 03 01", "3 月 1"]), ("Termin 18.12.2026", "12", ["2026 12 18", "12 月 18", "12 월 18"]),
    ("1.3.2024", "3", ["2024 03 01", "3 月 1", "3 월 1"])])
def test_a_date_in_chinese_numerals_or_with_dots_gets_its_other_forms(query, month, forms):
    """三月十四日 (as typed with a Chinese input method) and 2024.3.14 (as Chinese notes write a date) were no dates:
    the first was looked up as its pairs of characters alone, the second as the words 2024, 3 and 14; so was a date
    written the German way, its day first (18.12.2026), where 2026-12-18 was a date."""
    terms = dict(query_pieces(query))[month]
    assert terms[-len(forms):] == forms, terms


@pytest.mark.parametrize("query", ["二月三十日", "2024年2月30日", "4月31日", "2023年2月29日", "32.12.2026", "18.13.2026",
                                   "30.2.2024"])
def test_a_day_its_month_does_not_have_is_no_date(query):
    assert all(len(terms) == 1 or not any(c.isdigit() for t in terms for c in t) for _, terms in query_pieces(query)), \
        query_pieces(query)
