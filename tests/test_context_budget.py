"""What one tool answer costs a model's context, through the real sift-mcp over stdio.

An MCP client takes only so much from one tool call: Claude Code refuses an answer over 25,000 tokens
(MAX_MCP_OUTPUT_TOKENS) and tells the model to paginate. read_file gave up to 200 KB per call (a 2 MB note's
first 2,000 lines were 150 KB, a minified line 200 KB: 40,000-60,000 tokens), so the first page of a big file
never reached the model. Each answer now stays under 40 KB and says where to go on.
"""
from __future__ import annotations

import pytest

from tests.conftest import write_tree
from tests.test_mcp_server import Servers, call, run, text

BUDGET = 48_000  # bytes of UTF-8: 12,000 tokens of English at 4 bytes a token, 16,000 Chinese characters


@pytest.fixture
def servers(tmp_path):
    made = Servers(tmp_path)
    yield made
    made.check_stdout()


def test_a_big_note_a_minified_line_and_chinese_each_come_in_pages_a_client_takes(tmp_path, servers, sift_env):
    big = "".join(f"Line {n} of the big note talks about zebra{n % 97} and quokka migrations.\n" for n in range(30_000))
    minified = "var a=1;" + ";".join(f"function f{n}(x){{return x*{n}+'q'}}" for n in range(20_000)) + "\n"
    chinese = "".join(f"{n}: " + "曲美合同条款付款方式" * 20 + "\n" for n in range(1, 3001))
    root = write_tree(tmp_path / "notes", {"big.md": big, "app.min.js": minified, "合同.md": chinese})
    from search.index import db, store
    from search.settings import load
    conn = db.connect(load().index_path)
    store.ensure_collection(conn, "notes", str(root))
    conn.close()

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            firsts = [await call(s, "read_file", path=f"notes/{name}") for name in ("big.md", "app.min.js", "合同.md")]
            data = firsts[0].structured_content
            second = await call(s, "read_file", path="notes/big.md", start_line=data["next_start_line"])
            return firsts, second
    firsts, second = run(scenario)
    for answer in firsts + [second]:
        assert not answer.is_error, text(answer)
        assert len(text(answer).encode("utf-8")) <= BUDGET, text(answer).splitlines()[0]
        assert answer.structured_content["next_start_line"] is not None and "call read_file with start_line=" \
            in text(answer), text(answer)[-300:]
    shown = text(firsts[0]).splitlines()
    last_shown = firsts[0].structured_content["end_line"]
    assert shown[1] == "     1\tLine 0 of the big note talks about zebra0 and quokka migrations."
    assert text(second).splitlines()[1].startswith(f"{last_shown + 1:>6}\tLine {last_shown} of the big note")
