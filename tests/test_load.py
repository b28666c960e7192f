"""Load: four MCP clients search without pause while two worker processes ingest.

A real ``huey_consumer -w 2`` indexes part of notes-en, then three more waves of
it (one generation each) while four real stdio MCP clients, each with its own
``sift-mcp`` server, search in turns of keyword, semantic and hybrid mode for
the whole run. Every answer must succeed, none may say "database is locked",
and every answer must come whole from one published generation: its hits carry
that generation and name only files that generation holds.
"""
from __future__ import annotations

import shutil
import time

import anyio
import pytest

from search.index import db
from tests.conftest import need_data, run_ingest, wait_published
from tests.test_mcp_server import call, run, text

pytestmark = pytest.mark.slow  # minutes of real processes: scripts/test --all

CLIENTS = 4
# 40 notes a wave: each publish still lands while the four clients search (the property), in a fraction of the
# time 120 a wave took (480 notes, 610 KB: 253 s of a CI run); the waves, not their size, make the generations the
# clients see
FIRST, WAVES, PER_WAVE = 40, 3, 40
MODES = ("keyword", "semantic", "hybrid")
QUERIES = ["undo the last commit", "rebase interactive", "docker compose volumes", "postgres index",
           "vim macros", "react hooks state", "tmux split pane", "ruby hash default", "jq filter arrays",
           "rails migration rollback", "how do I list files", "regular expression groups"]


@pytest.fixture
def servers(tmp_path):
    from tests.test_mcp_server import Servers
    return Servers(tmp_path)


def test_four_clients_search_while_two_workers_ingest(sift_env, consumer, tmp_path, servers, capsys):
    source = need_data("notes-en")
    # the notes, not the corpus's README (164 KB, 300 chunks of links: more than the three waves' notes together)
    notes = sorted(p for p in source.rglob("*.md") if p.name != "README.md")[:FIRST + WAVES * PER_WAVE]
    root = tmp_path / "notes"

    def add(files) -> None:
        for path in files:
            target = root / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)

    add(notes[:FIRST])
    sift_env["SIFT_RESCAN_MINUTES"] = "600"  # only the waves make generations
    # nor a big file's embedding in the background (notes-en's README.md, 300 chunks, was among the notes), which
    # makes one of its own when it is done: a clean-clone run published it right after a wave's, and the wave's was
    # never waited for
    sift_env["SIFT_BACKGROUND_CHUNKS"] = "0"
    worker = consumer(workers=2)
    assert run_ingest(sift_env, "enqueue", str(root), "--name", "notes").returncode == 0
    conn = db.connect(tmp_path / "home" / "index.db", readonly=True)
    generation = wait_published(conn, "notes", None, worker.proc)
    files_of = {generation: {str(p.relative_to(source)) for p in notes[:FIRST]}}
    answers: list[dict] = []

    async def client(number: int, stop: anyio.Event) -> None:
        async with servers.session(sift_env, "--no-worker") as session:
            turn = 0
            while not stop.is_set():
                query, mode = QUERIES[(number * 5 + turn) % len(QUERIES)], MODES[(number + turn) % len(MODES)]
                started = time.perf_counter()
                result = await call(session, "search", query=query, mode=mode, limit=10)
                answers.append({"ms": (time.perf_counter() - started) * 1000, "error": result.is_error,
                                "text": text(result), "data": result.structured_content, "mode": mode})
                turn += 1

    async def ingestion(stop: anyio.Event) -> None:
        nonlocal generation
        await anyio.sleep(2)  # the clients are searching
        for wave in range(WAVES):
            upto = FIRST + (wave + 1) * PER_WAVE
            add(notes[FIRST + wave * PER_WAVE:upto])
            done = await anyio.to_thread.run_sync(run_ingest, sift_env, "enqueue", str(root), "--name", "notes")
            assert done.returncode == 0, done.stderr
            generation = await anyio.to_thread.run_sync(wait_published, conn, "notes", generation, worker.proc)
            files_of[generation] = {str(p.relative_to(source)) for p in notes[:upto]}
        with anyio.move_on_after(600):  # a safety net, not a speed assertion
            while sum((a["data"] or {}).get("generations", {}).get("notes") == generation
                      for a in answers) < CLIENTS:
                await anyio.sleep(0.5)  # a few searches of the last generation
        stop.set()

    async def scenario():
        stop = anyio.Event()
        async with anyio.create_task_group() as group:
            for number in range(CLIENTS):
                group.start_soon(client, number, stop)
            group.start_soon(ingestion, stop)
    run(scenario)

    failed = [a["text"][:300] for a in answers if a["error"]]
    assert not failed, failed
    assert not [a for a in answers if "locked" in a["text"].lower()]
    assert "locked" not in (tmp_path / "server-stderr.log").read_text(errors="replace").lower()
    seen = set()
    for answer in answers:
        data = answer["data"]
        answered = data["generations"].get("notes")
        seen.add(answered)
        assert answered in files_of, f"generation {answered} was never published whole"
        for hit in data["results"]:
            # a hit of another generation than its collection's in `generations` would carry its own
            assert hit.get("generation", answered) == answered, "every hit comes from the generation that answered"
            relative = hit["path"].split("/", 1)[1]
            assert relative in files_of[answered], f"{relative} is not in {answered}"
    assert set(files_of) - seen <= {min(files_of)}, "the clients saw every generation published while they ran"
    assert worker.proc.poll() is None, "the consumer is still running"
    times = sorted(a["ms"] for a in answers)
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    with capsys.disabled():
        print(f"\nload: {len(answers)} searches served by {CLIENTS} clients during {WAVES} publishes "
              f"({len(notes)} notes, 2 workers), 0 errors, p50 {times[len(times) // 2]:.0f} ms, p95 {p95:.0f} ms")
