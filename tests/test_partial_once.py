"""A first build's partial-results note said once a conversation (mcp_server.partial_said): it stood whole, 297
characters, before the passages of every search while a first build came in parts. A conversation told it is told
its counts alone while the same part answers; another conversation with the same server (an HTTP session of its
own, or a new ``initialize`` on a stdio server's pipe) is told it whole, as is a new part's count, or the same note
once AGAIN_SECONDS have gone by.

Real SQLite, the session's MiniLM, a real huey queue this process runs (tests/test_parts_as_seen), a real
``sift-mcp --http`` under the mcp package's own Streamable HTTP client, a real ``sift-mcp`` under its stdio
client."""
from __future__ import annotations

from contextlib import asynccontextmanager

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.conftest import VENV_BIN
from tests.test_http import Server, text
from tests.test_parts_as_seen import between_parts

WHOLE = ("note: partial results: only 5 of notes's 23 files searched so far, the newest first; the answer may be in "
         "one of the 18 not read yet: search again after its first build's next part (stats says when)")
AGAIN = "note: partial results as before: only 5 of notes's 23 files searched, 18 not read yet"


def test_each_conversation_is_told_the_partial_note_whole_once(sift_env, tmp_path, monkeypatch):
    between_parts(tmp_path, monkeypatch)  # 'notes': its first part of 5 files published, 18 not read yet
    server = Server(sift_env, tmp_path / "server.log", "--no-worker")
    try:
        server.start()

        async def scenario():
            async with server.session() as first:
                said = [await first.call_tool("search", {"query": "pelican", "mode": "keyword"}),
                        await first.call_tool("search", {"query": "dawn", "mode": "keyword"})]
                async with server.session() as second:  # another client of the same server, meanwhile
                    said.append(await second.call_tool("search", {"query": "pelican", "mode": "keyword"}))
                said.append(await first.call_tool("search", {"query": "zeppelin hangar", "mode": "keyword"}))
                return said
        first, again, other, missing = (text(r) for r in anyio.run(scenario))
    finally:
        server.stop()
    assert first.splitlines()[1] == WHOLE, first
    assert again.splitlines()[1] == AGAIN, again
    assert again.splitlines()[-1].endswith("partial (the note above), generation 2 being built (5 of 5 changed "
                                           "files pending)"), "the freshness clause still points to it"
    assert other.splitlines()[1] == WHOLE, "a conversation of its own is told it whole"
    assert missing.splitlines()[1] == AGAIN, missing
    assert "no passages match in the files read so far: the answer may be in a file not read yet" in missing, \
        "nothing found: still told why other words will not help"


@asynccontextmanager
async def on_the_pipe(read, write):
    """Streams of one conversation over the stdio client's ``read`` and ``write``, left open when it ends (a
    ClientSession closes the streams it was given)."""
    to_session, session_reads = anyio.create_memory_object_stream(16)
    session_writes, from_session = anyio.create_memory_object_stream(16)

    async def pump(source, sink):
        async for message in source:
            await sink.send(message)
    async with anyio.create_task_group() as group:
        group.start_soon(pump, read, to_session)
        group.start_soon(pump, from_session, write)
        yield session_reads, session_writes
        group.cancel_scope.cancel()


def test_a_new_conversation_on_one_stdio_server_is_told_it_whole(sift_env, tmp_path, monkeypatch):
    """One stdio server, one pipe, two conversations one after the other (each its own ``initialize``, as a client
    that keeps its server between chats starts one): the memory was the connection's, and the second conversation
    was told 'partial results as before' of a note it had never read."""
    between_parts(tmp_path, monkeypatch)
    params = StdioServerParameters(command=str(VENV_BIN / "sift-mcp"), args=["--no-worker"], env=sift_env)

    async def scenario():
        said = []
        with open(tmp_path / "server-stderr.log", "a") as errlog, anyio.fail_after(300):
            async with stdio_client(params, errlog=errlog) as (read, write):
                for _conversation in range(2):
                    async with on_the_pipe(read, write) as (their_read, their_write), \
                            ClientSession(their_read, their_write) as session:
                        await session.initialize()
                        for query in ("pelican", "dawn"):
                            said.append(await session.call_tool("search", {"query": query, "mode": "keyword"}))
        return said
    first, again, other, other_again = (text(r).splitlines()[1] for r in anyio.run(scenario))
    assert (first, again) == (WHOLE, AGAIN)
    assert other == WHOLE, "a new conversation is told it whole"
    assert other_again == AGAIN, "and then its counts alone"


class Connection:
    """A client's connection, as mcp's: remembered while it lives."""


def test_a_new_part_or_a_while_says_it_whole_again(monkeypatch):
    from mcp_server import partial_said
    told = partial_said.Told()
    one, two = Connection(), Connection()
    ask_one, ask_two = told.asker(one), told.asker(two)
    assert told.asker(None) is None, "no connection to remember by: every note whole"
    assert (ask_one("notes", "5 of 23"), ask_one("notes", "5 of 23"), ask_two("notes", "5 of 23")) == \
        (False, True, False)
    assert (ask_one("papers", "5 of 23"), ask_one("notes", "10 of 23"), ask_one("notes", "10 of 23")) == \
        (False, False, True), "another collection's note, a new part's counts: whole"
    monkeypatch.setattr(partial_said, "AGAIN_SECONDS", 0.0)
    assert ask_one("notes", "10 of 23") is False, "a new conversation with a server kept all day is told it whole"
