"""What one tool answer costs a model's context, through the real sift-mcp over stdio.

An MCP client takes only so much from one tool call: Claude Code refuses an answer over 25,000 tokens
(MAX_MCP_OUTPUT_TOKENS) and tells the model to paginate. read_file gave up to 200 KB per call (a 2 MB note's
first 2,000 lines were 150 KB, a minified line 200 KB: 40,000-60,000 tokens), so the first page of a big file
never reached the model. Each answer now stays under 40 KB and says where to go on.
"""
from __future__ import annotations

import pytest

from tests.conftest import write_tree
from tests.test_mcp_server import call, run, text

BUDGET = 48_000  # bytes of UTF-8: 12,000 tokens of English at 4 bytes a token, 16,000 Chinese characters


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


def test_a_pdf_page_over_the_limit_goes_on_with_start_offset(immediate, tmp_path, servers, sift_env, monkeypatch):
    """A page's text over the limit was cut with '[stopped at the 200 KB limit]' and no way on: the rest of the
    page could not be read at all. Now the answer gives the start_offset of the rest, as for a long line."""
    from tests.conftest import ingest
    from tests.test_pdf_ingest import paged_pdf
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    words = " ".join(f"aardvark{n}" for n in range(9_000))  # about 100 KB of text on one page
    root = tmp_path / "papers"
    root.mkdir()
    (root / "dense.pdf").write_bytes(paged_pdf([words, "pangolin scales overlap"]))
    ingest(root, "papers")

    async def scenario():
        async with servers.session({**sift_env, "SIFT_EMBEDDINGS": "off"}, "--no-worker") as s:
            pieces, more = [], {}
            for _ in range(10):
                piece = await call(s, "read_file", path="papers/dense.pdf", page=1, **more)
                pieces.append(piece)
                if "next_start_offset" not in (piece.structured_content or {}):
                    break
                more = {"start_offset": piece.structured_content["next_start_offset"]}
            past = await call(s, "read_file", path="papers/dense.pdf", page=1, start_offset=10 ** 9)
            return pieces, past
    pieces, past = run(scenario)
    assert len(pieces) > 1, text(pieces[0])[-300:]
    for piece in pieces:
        assert not piece.is_error, text(piece)
        assert len(text(piece).encode("utf-8")) <= BUDGET
    first = pieces[0].structured_content
    assert f"call read_file with page=1, start_offset={first['next_start_offset']}" in text(pieces[0])
    joined = "".join(text(p).split("\n", 1)[1].rsplit("\n", 1)[0] for p in pieces)
    assert joined.split() == words.split(), "the pieces join without a gap or an overlap"
    assert "call read_file with page=2 for the next page" in text(pieces[-1])
    assert past.is_error and "past the end of page 1" in text(past), text(past)


def test_the_generation_is_said_once_above_the_hits_not_on_each(immediate, tmp_path, servers, sift_env, monkeypatch):
    """Each hit's line repeated 'generation 3' although every hit of a collection comes from its published
    generation: said once in the line above them now; the data keeps it on each hit."""
    from tests.conftest import ingest
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    notes = {f"n{n}.md": f"# Note {n}\n\nquokka number {n}\n" for n in range(6)}
    generation = ingest(write_tree(tmp_path / "notes", notes), "notes")["published"]["id"]

    async def scenario():
        async with servers.session({**sift_env, "SIFT_EMBEDDINGS": "off"}, "--no-worker") as s:
            return await call(s, "search", query="quokka", mode="keyword", limit=5)
    answer = run(scenario)
    lines = text(answer).splitlines()
    hit_lines = [line for line in lines if line[:1].isdigit() and ". notes/" in line]
    assert len(hit_lines) == 5 and all("generation" not in line for line in hit_lines), lines
    assert lines[0].endswith(f"; notes at generation {generation})"), lines[0]
    assert answer.structured_content["generations"] == {"notes": generation}
    assert not [h for h in answer.structured_content["results"] if "generation" in h], "said once, not per hit"


def test_a_minified_file_read_says_search_does_not_find_it_not_that_it_will(immediate, tmp_path, servers, sift_env,
                                                                           monkeypatch):
    """read_file of a file skipped as minified said 'search does not find it until it is indexed', as if it were
    on its way: a model waited for it. A skipped file's reason says what would index it; nothing is promised."""
    from tests.conftest import ingest
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    minified = "var a=1;" + ";".join(f"function f{n}(x){{return x*{n}}}" for n in range(3_000)) + "\n"
    ingest(write_tree(tmp_path / "code", {"app.min.js": minified, "main.js": "function main() {}\n"}), "code")

    async def scenario():
        async with servers.session({**sift_env, "SIFT_EMBEDDINGS": "off"}, "--no-worker") as s:
            return await call(s, "read_file", path="code/app.min.js")
    said = text(run(scenario))
    assert "(skipped at parse: minified or generated" in said, said[-400:]
    assert "until it is indexed" not in said and "): search does not find it]" in said, said[-400:]


@pytest.mark.parametrize("filler", ["gulls", "gulls and terns " * 4], ids=["2000-line limit", "40 KB limit"])
def test_a_long_note_s_first_page_says_how_many_calls_the_rest_takes_and_the_search_for_a_part(
        immediate, tmp_path, servers, sift_env, monkeypatch, filler):
    """The first 40 KB of a 300 KB note said 'lines 1125-9000 not shown; call read_file with start_line=1125':
    a model asked to read it all found out call by call that it takes eight. The note says how much is left,
    about how many calls that is (right here), and the search that finds the part wanted instead."""
    import re
    from tests.conftest import ingest
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    body = "".join(f"## Part {n}\n\nPart {n} is about {'pelicans' if n == 4321 else filler} on the pier.\n\n"
                   for n in range(6000))
    root = write_tree(tmp_path / "notes", {"birds/long.md": "# Long\n\n" + body, "short.md": "# Short\n\npelicans\n"})
    ingest(root, "notes")

    async def scenario():
        async with servers.session({**sift_env, "SIFT_EMBEDDINGS": "off"}, "--no-worker") as s:
            answers = [await call(s, "read_file", path="notes/birds/long.md")]
            while answers[-1].structured_content["next_start_line"] is not None:
                answers.append(await call(s, "read_file", path="notes/birds/long.md",
                                          start_line=answers[-1].structured_content["next_start_line"]))
            said = re.search(r"or search with collection='notes', glob='([^']+)' for the part you need", text(answers[0]))
            assert said, text(answers[0])[-400:]
            return answers, await call(s, "search", query="pelicans", collection="notes", glob=said.group(1))
    answers, found = run(scenario)
    first = text(answers[0]).splitlines()[-1]
    lines = ("# Long\n\n" + body).splitlines(keepends=True)
    size = sum(len(line.encode()) for line in lines[answers[0].structured_content["next_start_line"] - 1:])
    said = re.search(r"not shown \(([\d.]+) KB, about (\d+) more calls like this one\)", first)
    assert said, first
    assert abs(int(said.group(2)) - (len(answers) - 1)) <= 1 and len(answers) > 3, (first, len(answers))
    assert abs(float(said.group(1)) - size / 1000) < 0.2, (first, size)
    assert "more calls" not in text(answers[-2]) and "or search" not in text(answers[-2]), "one more call: said plainly"
    assert [h["path"] for h in found.structured_content["results"]] == ["notes/birds/long.md"], text(found)
    assert "Part 4321 is about **pelicans**" in text(found)
