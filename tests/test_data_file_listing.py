"""A data file (ingest.table: its cells mostly numbers and dates) is indexed as its first passage alone: the column
names and the first rows. It was listed as indexed like any other table, its later rows found by no search, and
only the README said so: list_files and `ingest files` now say how many of its rows are indexed, and read_file
still reads all of it. Over the real MCP stdio client and the CLI."""
from __future__ import annotations

import json
import re

from tests.conftest import ingest, run_ingest, write_tree
from tests.test_code_parser import _cassette
from tests.test_mcp_server import call, run, text
from tests.test_page_or_template import env  # noqa: F401 - the keyword-only index fixture


def readings(rows: int) -> str:
    return "\n".join(["timestamp,sensor,temperature"] + [f"2026-03-01T{i // 60 % 24:02d}:{i % 60:02d}:00,{i % 7},"
                                                        f"{(i * 7) % 35 - 5}.{i % 10}" for i in range(rows)]) + "\n"


def test_a_data_file_is_listed_with_how_few_of_its_rows_are_indexed(env, tmp_path, servers):  # noqa: F811
    root = write_tree(tmp_path / "lab", {"readings.csv": readings(5000), "huge.csv": readings(10_050),
                                         "short.csv": readings(3),
                                         "tasks.csv": "Name,Owner\nBook the venue,Lin Wei\nHash the keys,Mei Chen\n"})
    ingest(root, "lab")

    async def scenario():
        async with servers.session(env, "--no-worker") as s:
            listed = await call(s, "list_files", collection="lab", sort="path")
            last = await call(s, "read_file", path="lab/readings.csv", start_line=5001)
            found = await call(s, "search", query="readings sensor temperature", collection="lab", mode="keyword")
            return listed, last, found
    listed, last, found = run(scenario)
    files = {f["path"]: f for f in listed.structured_content["files"]}
    said = files["lab/readings.csv"].get("reason") or ""
    first = re.match(r"first (\d+) of 5,000 rows indexed \(a data file", said)
    assert first and 1 < int(first.group(1)) < 100, said
    assert "read_file reads all of it" in said and said in text(listed)
    assert re.match(r"first \d+ of over 10,000 rows indexed", files["lab/huge.csv"].get("reason") or ""), files
    assert files["lab/short.csv"]["state"] == "indexed" and not files["lab/short.csv"].get("reason")  # all of it
    assert not files["lab/tasks.csv"].get("reason")  # a table of words: every row indexed
    assert "5001\t2026-03-01T11:19:00,1,23.9" in text(last)  # the last row, which search does not find
    printed = run_ingest(env, "files", "--sort", "path", "--collection", "lab").stdout
    assert re.search(r"lab/readings\.csv  text  .*  indexed: first \d+ of 5,000 rows indexed", printed), printed
    # a hit of it says so too, where a model reads that the value it looks for is not in it
    [hit] = [h for h in found.structured_content["results"] if h["path"] == "lab/readings.csv"]
    assert hit["data_rows"] == said and f"   ({said})" in text(found), text(found)
    assert not any(h.get("data_rows") for h in found.structured_content["results"] if h["path"] != "lab/readings.csv"
                   and h["path"] != "lab/huge.csv")
    searched = run_ingest(env, "search", "readings sensor temperature", "--collection", "lab", "--mode", "keyword")
    assert f"    ({said})" in searched.stdout, searched.stdout + searched.stderr


def test_a_json_data_set_is_listed_and_found_with_how_few_of_its_records_are_indexed(env, tmp_path, servers):  # noqa: F811
    """A JSON fixture of 3,000 invoices (ingest.data_sets: its first 30 lines indexed) was listed as plain
    'indexed': it says how few of its records search finds as a data file does, in the listing and in a hit."""
    invoices = [{"model": "invoices.invoice", "pk": i, "fields": {"currency": "EUR", "due_date": "2025-05-01",
                                                                  "amount_cents": i * 7}} for i in range(3000)]
    root = write_tree(tmp_path / "mono", {"fixtures/invoices.json": json.dumps(invoices, indent=2),
                                          "config.json": json.dumps({"currency": "EUR", "retries": 3}, indent=2),
                                          "cassettes/list_invoices.yaml": _cassette(120)})
    ingest(root, "mono")

    async def scenario():
        async with servers.session(env, "--no-worker") as s:
            listed = await call(s, "list_files", collection="mono", sort="path")
            found = await call(s, "search", query="invoices due_date currency", collection="mono", mode="keyword")
            return listed, found
    listed, found = run(scenario)
    files = {f["path"]: f for f in listed.structured_content["files"]}
    said = files["mono/fixtures/invoices.json"].get("reason") or ""
    assert said.startswith("first 3 of 3,000 records indexed (a data set of records: search finds it by its field "
                           "names") and "read_file reads all of it" in said and said in text(listed), said
    assert files["mono/config.json"]["state"] == "indexed" and not files["mono/config.json"].get("reason")
    assert (files["mono/cassettes/list_invoices.yaml"].get("reason") or "").startswith(
        "first 3 of 120 records indexed (a data set of records"), files  # an HTTP cassette of 120 answers, 9 lines each
    [hit] = [h for h in found.structured_content["results"] if h["path"] == "mono/fixtures/invoices.json"]
    assert hit["data_rows"] == said and f"   ({said})" in text(found), text(found)
    printed = run_ingest(env, "files", "--sort", "path", "--collection", "mono").stdout
    assert re.search(r"mono/fixtures/invoices\.json  code  .*  indexed: first 3 of 3,000 records indexed", printed), \
        printed
