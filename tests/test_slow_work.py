"""Slow work is named: while a worker cuts or embeds a big file, `ingest stats`, the MCP stats tool and
`ingest enqueue --wait` say which file, for how long and (embedding) how many of its chunks are done, instead of
counts that do not move. Real SQLite, the session's MiniLM, huey's immediate mode; the reports are read by real
`ingest` processes while the job runs in this one. The few seconds a job must take before it says so are set to
nothing (workers.working.AFTER), so no test waits for the clock."""
from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import threading

from search.index import working
import workers.working
from search.settings import load
from tests.conftest import REPO, VENV_BIN, ingest, run_ingest, write_tree


def note(sections: int) -> str:
    return "".join(f"# Part {i}\n\nParagraph {i} of the long log, about walrus number {i}.\n\n"
                   for i in range(sections))


def assistant_stats() -> str:
    from workers import runtime, stats
    return stats.render(stats.gather(runtime.index(), load(), {}), stats.ASSISTANT)


def test_stats_and_wait_name_the_file_being_chunked(immediate, sift_env, tmp_path, monkeypatch):
    from workers import tasks
    monkeypatch.setattr(workers.working, "AFTER", 0.0)
    monkeypatch.setattr(workers.working, "EVERY", 0.0)
    root = write_tree(tmp_path / "notes", {"big.log.md": note(60)})
    seen = {}
    real = tasks.chunk_document

    def chunk_and_look(*args, **kwargs):  # the cut is done, the job not yet: what do the readers say?
        pieces = real(*args, **kwargs)
        if not seen:
            seen["cli"] = run_ingest(sift_env, "stats").stdout
            seen["json"] = json.loads(run_ingest(sift_env, "stats", "--json").stdout)
            seen["mcp"] = assistant_stats()
            seen["wait"] = wait_line(sift_env, root)
        return pieces

    monkeypatch.setattr(tasks, "chunk_document", chunk_and_look)
    report = ingest(root)
    size = f"({round(os.path.getsize(root / 'big.log.md') / 1e3)} KB)"
    for said in (seen["cli"], seen["mcp"]):
        assert f"    chunking big.log.md {size} for " in said, said
    building = seen["json"]["collections"][0]["building"]
    [slow] = building["progress"]["slow"]
    assert (slow["stage"], slow["path"], slow["files"]) == ("chunk", "big.log.md", 1)
    assert seen["wait"].startswith(f"generation {building['id']}: 0/1 file; chunking big.log.md {size} for "), \
        seen["wait"]
    assert report["published"] is not None and report["published"]["failures"] == []
    assert "chunking" not in assistant_stats(), "the row goes when the job ends"


def test_stats_say_how_far_the_embedding_of_a_big_file_has_got(immediate, sift_env, tmp_path, monkeypatch):
    from workers import runtime
    monkeypatch.setattr(workers.working, "AFTER", 0.0)
    monkeypatch.setattr(workers.working, "EVERY", 0.0)
    monkeypatch.setenv("SIFT_EMBED_BATCH", "8")
    root = write_tree(tmp_path / "notes", {"big.md": note(40)})
    embedder = runtime.embedder()
    calls, seen = [], {}
    real = embedder.embed

    def embed_and_look(texts, kind):
        calls.append(len(texts))
        if len(calls) == 3:  # 16 of the 40 chunks embedded
            seen["cli"] = run_ingest(sift_env, "stats").stdout
            seen["mcp"] = assistant_stats()
        return real(texts, kind=kind)

    monkeypatch.setattr(embedder, "embed", embed_and_look)
    report = ingest(root)
    assert calls == [8] * 5
    for said in (seen["cli"], seen["mcp"]):
        line = next((x for x in said.splitlines() if "embedding big.md" in x), said)
        assert line.startswith("    embedding big.md (") and line.endswith(": 16 of 40 chunks"), line
    assert report["published"]["failures"] == [] and report["chunks"] == 40


def test_work_left_by_a_killed_worker_is_not_shown(sift_env, tmp_path):
    """A worker killed mid-job leaves its row: the row names a process that is gone, so no reader shows it."""
    from search.index import db, store
    from workers import runtime
    conn = runtime.index()
    collection = store.ensure_collection(conn, "notes", str(tmp_path))
    gen = store.begin_generation(conn, collection["id"], None)
    dead = subprocess.Popen(["true"])
    dead.wait()
    with db.transaction(conn):
        conn.execute("INSERT INTO working VALUES (?, 'chunk', 'big.log', 1, 38000000, 0, NULL, NULL, ?)",
                     (gen, dead.pid))
        conn.execute("INSERT INTO working VALUES (?, 'embed', 'alive.md', 1, 2000, 0, 3, 9, ?)", (gen, os.getpid()))
    assert [w["path"] for w in working.slow(conn, gen)] == ["alive.md"]


def test_stats_do_not_ask_whether_a_worker_runs_while_one_embeds_a_big_file(sift_env, tmp_path):
    """A worker embedding big files takes no other job meanwhile, and stats showed, beside 'embedding
    longline.md (215 KB) for 3.7 min', 'no worker has taken a job for 3.1 min: is a worker running?'."""
    import time
    from search.index import store
    from workers import runtime
    from workers.app import WORKER_SEEN, make_huey
    root = write_tree(tmp_path / "notes", {"a.md": "# A\nalpha"})
    conn = runtime.index()
    collection = store.ensure_collection(conn, "notes", str(root))
    gen = store.begin_generation(conn, collection["id"], None)
    store.record_work(conn, gen, "embed", ["big.md"], 200_000, time.time() - 220, 128, 226)  # this process: alive
    assert run_ingest(sift_env, "enqueue", str(root)).returncode == 0  # a job waits behind the busy worker
    make_huey(load()).put(WORKER_SEEN, time.time() - 190)
    out = run_ingest(sift_env, "stats").stdout
    assert "jobs in queue: 1" in out and "is a worker running?" not in out, out
    store.end_work(conn, gen, "embed", ["big.md"])  # nothing is being worked on: then it is worth asking
    out = run_ingest(sift_env, "stats").stdout
    assert "is a worker running?" in out, out


def wait_line(env: dict, root) -> str:
    """The first progress line of a real `ingest enqueue ROOT --wait`. Its discover stays queued (no consumer
    runs); it follows the generation this process is building."""
    proc = subprocess.Popen([str(VENV_BIN / "ingest"), "enqueue", str(root), "--wait"], cwd=REPO, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stderr] + [lines.put("")], daemon=True).start()
    try:
        while True:
            line = lines.get(timeout=120)  # a hang guard, not a speed assertion
            if line.startswith("generation ") or not line:
                return line.rstrip("\n")
    finally:
        proc.kill()
        proc.wait()


def test_the_eta_waits_for_a_big_file_being_embedded(sift_env, tmp_path):
    """One of two files done and the other, a 4 MB note, at 160 of its 3,540 chunks after 45 s: `ingest stats`
    said 'ETA 31 s' (the files' pace: one file in 31 s) while the note needed a quarter of an hour."""
    import time
    from search.index import store
    from workers import runtime
    conn = runtime.index()
    collection = store.ensure_collection(conn, "notes", str(tmp_path))
    gen = store.begin_generation(conn, collection["id"], None)
    store.record_plan(conn, gen, collection["id"], {"small.md": "added", "huge.md": "added"}, {}, 2)
    store.mark(conn, gen, ["small.md"], "write", "done")
    store.record_work(conn, gen, "embed", ["huge.md"], 4_200_000, time.time() - 45, 0, 3540)  # this process
    [notes] = json.loads(run_ingest(sift_env, "stats", "--json").stdout)["collections"]
    assert notes["building"]["progress"]["eta_seconds"] is None, "its first batch not done: the pace is unknown"
    began = time.time() - 45
    store.record_work(conn, gen, "embed", ["huge.md"], 4_200_000, began, 160, 3540)
    [notes] = json.loads(run_ingest(sift_env, "stats", "--json").stdout)["collections"]
    assert notes["building"]["progress"]["eta_seconds"] >= 45 * 3380 / 160 - 1, notes["building"]["progress"]
    out = run_ingest(sift_env, "stats").stdout
    # 160 chunks in 45 s and the seconds the two commands took, 3,380 to go: 15.8 min at the least; the job's
    # pace, not the files', at the most (the line began 'ETA 1' only while the commands took under 12 s)
    most = 3380 * (time.time() - began) / 160 / 60
    line = next(x for x in out.splitlines() if "changed files done" in x)
    assert re.fullmatch(r"    1 of 2 changed files done, 1 pending; ETA [\d.]+ min", line), line
    assert 15.8 <= float(line.split("ETA ")[1].split()[0]) <= most + 0.1, (line, most)


def _half_built(tmp_path, files: int = 100, done: int = 50, minutes_ago: float = 20):
    """A generation of ``files`` changed files, discovered ``minutes_ago``, ``done`` of them written."""
    import time
    from search.index import store
    from workers import runtime
    conn = runtime.index()
    collection = store.ensure_collection(conn, "notes", str(tmp_path))
    gen = store.begin_generation(conn, collection["id"], None)
    store.record_plan(conn, gen, collection["id"], {f"n{i}.md": "added" for i in range(files)}, {}, files)
    store.mark(conn, gen, [f"n{i}.md" for i in range(done)], "write", "done")
    with conn:  # as discover stamped it then
        conn.execute("UPDATE generations SET discovered = ? WHERE id = ?", (time.time() - minutes_ago * 60, gen))
    return conn, gen


def test_the_eta_goes_by_the_pace_since_the_worker_started_again(sift_env, tmp_path):
    """50 of 100 files in 5 minutes, the worker stopped for 15, then started again and 10 more files in a
    minute: the ETA took the 15 idle minutes for work ((100 - 60) files at 21 min per 60 files, 14 min, where
    the pace since the start is 4 min), and climbed while no worker ran (17.7 min became 33.7 min on a
    15,124-file vault stopped for ten minutes)."""
    import time
    from search.index import store
    from workers.app import WORKER_SEEN, make_huey
    conn, gen = _half_built(tmp_path, minutes_ago=21)
    resumed = time.time() - 60
    store.mark_resumed(conn, now=resumed)
    make_huey(load()).put(WORKER_SEEN, time.time())  # the worker started again is at work
    [notes] = json.loads(run_ingest(sift_env, "stats", "--json").stdout)["collections"]
    assert notes["building"]["progress"]["eta_seconds"] is None, "no file done since the start: pace unknown"
    store.mark(conn, gen, [f"n{i}.md" for i in range(50, 60)], "write", "done")
    [notes] = json.loads(run_ingest(sift_env, "stats", "--json").stdout)["collections"]
    eta = notes["building"]["progress"]["eta_seconds"]
    # 10 files in the minute (and the seconds the commands took) since the start, 40 left
    assert 40 * 6 <= eta <= 40 * (time.time() - resumed) / 10, notes["building"]["progress"]


def test_a_consumer_starting_marks_where_the_builds_pace_is_counted_from(sift_env, tmp_path, consumer):
    """The real consumer's start is what marks it, with the files done by then."""
    import time
    conn, gen = _half_built(tmp_path, files=4, done=2)
    write_tree(tmp_path, {f"n{i}.md": f"# N{i}\n\nnote {i}\n" for i in range(4)})
    started = time.time()
    worker = consumer()
    deadline = time.time() + 300  # a hang guard, not a speed assertion
    while time.time() < deadline:
        row = conn.execute("SELECT resumed, resumed_done FROM generations WHERE id = ?", (gen,)).fetchone()
        if row["resumed"] is not None:
            break
        assert worker.proc.poll() is None, "the consumer exited"
        time.sleep(0.1)
    assert row["resumed"] >= started and row["resumed_done"] == 2, dict(row)


def test_no_eta_while_no_worker_runs(sift_env, tmp_path):
    """With the worker stopped, stats gave an ETA at the pace so far that climbed as the minutes went by (17.7,
    18.1, 18.6 … 19.2 min on a 15,124-file vault), beside 'is a worker running?'."""
    import time
    from workers.app import WORKER_SEEN, make_huey
    _half_built(tmp_path)
    make_huey(load()).put(WORKER_SEEN, time.time() - 600)
    out = run_ingest(sift_env, "stats").stdout
    assert "is a worker running?" in out and "50 pending; ETA unknown yet" in out, out
    make_huey(load()).put(WORKER_SEEN, time.time())  # a worker at work: the pace so far stands
    [notes] = json.loads(run_ingest(sift_env, "stats", "--json").stdout)["collections"]
    assert notes["building"]["progress"]["eta_seconds"] > 0, notes["building"]["progress"]
