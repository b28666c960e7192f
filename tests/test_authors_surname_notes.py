"""list_files(author='王医生') and similar(author='王医生') kept the files of everyone surnamed 王 (search.query.
chinese_names) and did not say so, as search does ("王医生 is read as anyone surnamed 王 …"): an assistant read the
listing as the one doctor's. Now both say who the name was read as."""
from __future__ import annotations

from tests.conftest import ingest, write_tree


def test_list_files_and_similar_say_who_a_surname_and_title_was_read_as(sift_env, immediate, tmp_path):
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    root = write_tree(tmp_path / "n", {
        "a.md": "---\nauthor: 王建国\n---\n# 预算\n\n预算把市场费用挪到招聘。\n",
        "b.md": "---\nauthor: 王芳\n---\n# 预算复核\n\n预算复核：招聘冻结到五月。\n",
        "c.md": "---\nauthor: 李娜\n---\n# 预算回复\n\n预算调整我同意，招聘照旧。\n",
        "d.md": "---\nauthor: 汪芳\n---\n# 差旅\n\n差旅报销单已提交。\n"})
    ingest(root, "n")
    tools = Tools(Sift(load()))
    listed = tools.list_files(author="王医生").structured_content
    assert sorted(f["path"] for f in listed["files"]) == ["n/a.md", "n/b.md"], listed
    said = [n for n in listed["notes"] if "surnamed 王" in n]
    assert len(said) == 1 and "王建国" in said[0] and "王芳" in said[0] and "李娜" not in said[0], listed["notes"]
    near = tools.similar(path="n/c.md", author="王医生").structured_content
    assert sorted(r["path"] for r in near["results"]) == ["n/a.md", "n/b.md"], near
    assert [n for n in near["notes"] if "surnamed 王" in n] == said, near["notes"]
    one = tools.list_files(author="李老师").structured_content  # one person of the surname: named as that one
    assert any("a person surnamed 李" in n and "李娜" in n for n in one["notes"]), one["notes"]
    full = tools.list_files(author="王建国").structured_content  # a full name: nothing to say
    assert [f["path"] for f in full["files"]] == ["n/a.md"] and not any("surnamed" in n for n in full.get("notes", []))
    pinyin = tools.list_files(author="Wang Fang").structured_content  # 王芳 and 汪芳: pinyin cannot tell them apart
    assert sorted(f["path"] for f in pinyin["files"]) == ["n/b.md", "n/d.md"], pinyin
    assert any("pinyin does not tell them apart" in n and "汪芳" in n for n in pinyin["notes"]), pinyin["notes"]
