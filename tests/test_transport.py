"""Every line a client sends to ``sift-mcp`` gets an answer, and bad input gets a message a model can act on.

Raw JSON-RPC lines are written to the real server's stdin, since the SDK client
refuses to send most of them (a lone surrogate, a line that is not JSON, an id
of the wrong type). After each bad line the same server must still answer a
normal search, and every line it wrote to stdout must be JSON.
"""
from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
from pathlib import Path

import pytest

from tests.conftest import VENV_BIN
from tests.test_mcp_server import indexed, notes_home  # noqa: F401  (fixtures: NOTES indexed once as 'notes')

ANSWER_WAIT = 120  # seconds: a safety net against a server that never answers (the defect), not a speed limit
PROTOCOL = "2025-06-18"


class Raw:
    """sift-mcp over pipes: write any bytes as a line, read its answers one line at a time."""

    def __init__(self, env: dict, log: Path, *args: str):
        self.log = open(log, "wb")
        self.proc = subprocess.Popen([str(VENV_BIN / "sift-mcp"), *args], env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.log)
        self.lines: list[bytes] = []  # everything the server wrote to stdout
        self._answers: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.next_id = 100
        init = self.request("initialize", {"protocolVersion": PROTOCOL, "capabilities": {},
                                           "clientInfo": {"name": "raw-test", "version": "1"}})
        assert "result" in init, init
        self.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode())

    def _pump(self) -> None:
        for line in iter(self.proc.stdout.readline, b""):
            self.lines.append(line)
            self._answers.put(line)

    def send(self, raw: bytes) -> None:
        self.proc.stdin.write(raw + b"\n")
        self.proc.stdin.flush()

    def answer(self) -> dict:
        try:
            line = self._answers.get(timeout=ANSWER_WAIT)
        except queue.Empty:
            raise AssertionError(f"no answer within {ANSWER_WAIT} s: the line was dropped") from None
        return json.loads(line)

    def ask(self, raw: bytes) -> dict:
        self.send(raw)
        return self.answer()

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        answer = self.ask(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params},
                                     ensure_ascii=False).encode())
        assert answer.get("id") == self.next_id, answer
        return answer

    def call(self, name: str, **arguments) -> dict:
        """A tools/call; returns its result (content, isError, structuredContent)."""
        return self.request("tools/call", {"name": name, "arguments": arguments})["result"]

    def close(self) -> int:
        self.proc.stdin.close()
        code = self.proc.wait(timeout=120)
        self.log.close()
        return code

    def check_stdout(self) -> None:
        assert self.lines
        for line in self.lines:
            assert json.loads(line).get("jsonrpc") == "2.0", line


@pytest.fixture
def raw_own(indexed, tmp_path):  # noqa: F811
    """A server of this test's own: for a test that ends the session or reads the server's log."""
    server = Raw(indexed["env"], tmp_path / "stderr.log", "--no-worker")
    yield server
    if server.proc.poll() is None:
        assert server.close() == 0
    server.check_stdout()


@pytest.fixture(scope="module")
def shared_servers(notes_home, model_path, tmp_path_factory):  # noqa: F811
    """The module's server over NOTES, started once (5-9 s apiece on a busy machine, for each of 17 tests): its
    tests neither end nor change the session, and each still meets the server its bad lines went to. A test that
    fails between a line and its answer leaves that answer unread: the next test then starts a server anew."""
    env = {k: v for k, v in os.environ.items() if k != "SIFT_EMBEDDINGS"}
    env.update(SIFT_HOME=str(notes_home), SIFT_MODEL=str(model_path), SIFT_NICE="0")  # as ``indexed``'s
    folder = tmp_path_factory.mktemp("transport-server")
    started: list[Raw] = []
    yield started, lambda: started.append(Raw(env, folder / f"stderr-{len(started)}.log", "--no-worker"))
    for server in started:
        if server.proc.poll() is None:
            assert server.close() == 0
        server.check_stdout()


@pytest.fixture
def raw(shared_servers):
    started, start = shared_servers
    if not started or started[-1].proc.poll() is not None or not started[-1]._answers.empty():
        start()
    server = started[-1]
    first_line = len(server.lines)
    yield server
    assert server.proc.poll() is None, "the session ended: such a test takes raw_own"
    assert server._answers.empty(), "a line was answered twice, or an answer was left unread"
    for line in server.lines[first_line:]:  # this test's lines, as check_stdout
        assert json.loads(line).get("jsonrpc") == "2.0", line


def text(result: dict) -> str:
    return "\n".join(block["text"] for block in result["content"])


def searchable(raw: Raw) -> None:
    """The session survives: a normal search still answers with results."""
    result = raw.call("search", query="contract", mode="keyword")
    assert not result.get("isError"), text(result)
    assert result["structuredContent"]["results"][0]["path"] == "notes/clients/qumei.md"


def tool_call(rid, arguments: str) -> bytes:
    """A tools/call of search written by hand, so it can hold what json.dumps would not write."""
    return ('{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"search","arguments":%s}}'
            % (rid, arguments)).encode()


# --- defect 1: every line gets an answer ------------------------------------------------------

def test_a_lone_surrogate_gets_a_tool_error_naming_the_argument(raw):
    answer = raw.ask(tool_call(7, r'{"query":"\ud800"}'))
    assert answer["id"] == 7 and answer["result"]["isError"] is True
    assert ("argument 'query' holds invalid text (a lone surrogate \\ud800): send valid UTF-16/UTF-8"
            in text(answer["result"]))
    searchable(raw)
    # a cut emoji (a high surrogate alone) in another argument, and raw bytes that are not UTF-8
    answer = raw.ask(tool_call(8, r'{"query":"contract","path_prefix":"clients/\ud83d"}'))
    assert answer["id"] == 8 and answer["result"]["isError"] is True
    assert "argument 'path_prefix' holds invalid text (a lone surrogate \\ud83d)" in text(answer["result"])
    answer = raw.ask(tool_call(9, '{"query":"caf@"}').replace(b"@", b"\xe9"))  # Latin-1 é: not UTF-8
    assert answer["id"] == 9 and answer["result"]["isError"] is True
    assert "argument 'query' holds invalid text (bytes that are not UTF-8" in text(answer["result"])
    searchable(raw)
    # a valid surrogate pair is an emoji, not an error
    answer = raw.ask(tool_call(10, r'{"query":"contract \ud83d\ude00","mode":"keyword"}'))
    assert not answer["result"].get("isError"), answer
    assert answer["result"]["structuredContent"]["results"]


def test_a_line_that_is_not_json_gets_a_parse_error(raw):
    for line in (b"{not json}", b'{"jsonrpc":"2.0","id":3,"method":', b"NaN", b"\xff\xfe"):
        answer = raw.ask(line)
        assert answer["id"] is None and answer["error"]["code"] == -32700, (line, answer)
        assert "not JSON" in answer["error"]["message"]
        searchable(raw)


@pytest.mark.parametrize("line, rid", [
    (b"[]", None),
    (b'[{"jsonrpc":"2.0","id":5,"method":"ping"}]', None),
    (b'"ping"', None),
    (b'{"jsonrpc":"2.0"}', None),
    (b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', None),
    (b'{"jsonrpc":"2.0","id":true,"method":"ping"}', None),
    (b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', None),
    (b'{"jsonrpc":"2.0","id":11,"method":"tools/call","params":7}', 11),
    (b'{"jsonrpc":"1.0","id":"twelve","method":"ping"}', "twelve"),
])
def test_json_that_is_not_a_valid_request_gets_invalid_request(raw, line, rid):
    answer = raw.ask(line)
    assert answer["id"] == rid and answer["error"]["code"] == -32600, answer
    assert answer["error"]["message"].startswith("Invalid Request: ")
    searchable(raw)


def test_an_invalid_notification_gets_no_answer_but_a_log_line(raw_own, tmp_path):
    raw = raw_own
    raw.send(b'{"jsonrpc":"2.0","method":"notifications/whatever","params":7}')
    answer = raw.request("ping", {})  # the next line on stdout answers the ping: nothing came for the notification
    assert answer["result"] == {}
    searchable(raw)
    assert raw.close() == 0
    assert "ignored an invalid notification 'notifications/whatever'" in (tmp_path / "stderr.log").read_text()


def test_a_response_with_invalid_text_gets_no_answer(raw):
    """A client's response (to a server request) is never answered, even when it holds invalid text."""
    raw.send(b'{"jsonrpc":"2.0","id":99,"result":{"note":"\\ud800"}}')
    answer = raw.request("ping", {})  # the next line on stdout answers the ping: nothing came for the response
    assert answer["result"] == {}


# --- defect 10: echo, dates, validation messages, booleans -----------------------------------------

def test_a_huge_query_is_echoed_only_as_far_as_it_was_searched(raw):
    query = "contract " * (20 * 1024 * 1024 // 9)  # 20 MB
    line_count = len(raw.lines)
    answer = raw.ask(tool_call(21, '{"query":%s,"mode":"keyword"}' % json.dumps(query)))
    size = len(raw.lines[line_count])
    assert answer["id"] == 21 and not answer["result"].get("isError"), str(answer)[:500]
    data = answer["result"]["structuredContent"]
    assert data["results"] and len(data["query"]) <= 10_000 and data["query_cut"] is True
    assert size < 200_000, f"the answer is {size:,} bytes"
    assert "cut to its first 10,000 characters" in text(answer["result"])
    searchable(raw)


def test_dates_near_year_one_are_clamped_not_refused(raw):
    after = raw.call("search", query="contract", mode="keyword", modified_after="0001-01-01")
    assert not after.get("isError"), text(after)
    assert after["structuredContent"]["results"]
    before = raw.call("search", query="contract", mode="keyword", modified_before="0001-01-01T00:00")
    assert not before.get("isError"), text(before)
    assert before["structuredContent"]["results"] == []
    late = raw.call("search", query="contract", mode="keyword", modified_before="9999-12-31T23:59:59+14:00")
    assert late["structuredContent"]["results"]


def test_booleans_are_not_numbers(raw):
    for name, arguments, key in (("search", {"query": "contract", "limit": True}, "limit"),
                                 ("similar", {"chunk_id": 1, "limit": False}, "limit"),
                                 ("list_files", {"limit": True}, "limit"),
                                 ("read_file", {"path": "notes/clients/qumei.md", "start_line": True}, "start_line"),
                                 ("similar", {"chunk_id": True}, "chunk_id")):
        result = raw.call(name, **arguments)
        assert result.get("isError"), (name, arguments, text(result))
        assert f"{key}: give a whole number, not a boolean" in text(result)
    assert not raw.call("list_files", limit=1).get("isError")  # a number is still a number


def test_an_argument_a_tool_does_not_take_is_refused_not_dropped(raw):
    """A misspelled filter was dropped without a word: search(query, colection='notes') answered from every
    collection, as if the model had asked for that. Now it is refused, with the name meant and the names taken."""
    result = raw.call("search", query="contract", mode="keyword", colection="notes")
    assert result.get("isError"), text(result)
    assert text(result) == ("Error executing tool search: invalid arguments: 'colection' is not an argument of "
                            "search (did you mean collection?): it takes query, limit, mode, collection, "
                            "path_prefix, kind, glob, modified_after, modified_before, date_after, date_before, tags, "
                            "author")
    both = text(raw.call("search", query="contract", path="clients", limit=0))
    assert "limit must be between 1 and 50 (got 0)" in both and "'path' is not an argument of search (did you " \
        "mean path_prefix?)" in both, both
    assert "'verbose' is not an argument of stats: it takes collection" in text(raw.call("stats", verbose=True))
    assert not raw.call("search", query="contract", mode="keyword", collection="notes").get("isError")


def test_validation_errors_carry_no_pydantic_links(raw):
    errors = [raw.call("search", query="contract", limit="abc"),
              raw.call("search", limit=3),
              raw.call("search", query="contract", mode="fuzzy"),
              raw.call("list_files", sort=5)]
    for result in errors:
        assert result.get("isError"), text(result)
        assert "errors.pydantic.dev" not in text(result) and "For further information" not in text(result)
        assert "invalid arguments: " in text(result)
    assert "query: Field required" in text(errors[1])
    beyond = raw.call("search", query="contract", limit=99)  # a number out of bounds is told plainly
    assert beyond.get("isError") and text(beyond) == ("Error executing tool search: limit must be between 1 and 50 "
                                                      "(got 99)")
