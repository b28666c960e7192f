"""A first build in parts (workers.tasks.first_part) as an assistant sees it over MCP between two parts: search says
before its passages that it searched only the files read so far, and that the answer may be in one not read yet
(a search for words only such a file holds said 'try other words'); list_files lists a file not read yet as pending,
on its way, not 'skipped'; read_file reads it from disk and says search finds it once it is indexed; stats' table
no longer counts the files left to later parts as skipped, and says what the part is.

Real SQLite, the session's MiniLM, a real huey queue whose jobs this process runs one by one (to stop between two
parts), the real ``sift-mcp`` under the real stdio client; and a real ``huey_consumer`` started by ``sift-mcp``
itself, watched from the first answer to the last part."""
from __future__ import annotations

import re
import time

import anyio
import pytest

from tests.conftest import write_tree
from tests.test_first_parts import run_jobs, same_time
from tests.test_mcp_server import call, run, text

DEADLINE = 900.0  # seconds: a safety net against a hung test, not a speed assertion
NOTES = 23  # parts of 5: 5, then 5, then the other 13


def notes(root):
    """NOTES notes of one line each, n20 (in the last part) the only one saying 'zeppelin'. (The last part's notes
    held 12 paragraphs more each, 13 KB, so that it took seconds to embed and a client polling every 0.2 s saw
    answers between two parts: 160 s of the build-in-parts test at load 13. The next part's scan now waits for
    such an answer instead, SIFT_FAULT_PAUSE_DISCOVER: 18 s.)"""
    files = {f"n{i:02}.md": f"# Note {i}\n\nThe pelican number word{i} flies at dawn.\n" for i in range(NOTES)}
    files["n20.md"] = "# Hangar\n\nThe zeppelin hangar door code is 4471.\n"  # in the last part
    return same_time(write_tree(root, files))  # parts by path: n20 in the last


def between_parts(tmp_path, monkeypatch):
    """The first part (5 files) published, the second part's scan run: generation 2 builds 5 files, 13 wait."""
    from search.index import collection_reads, generation_reads, store
    from workers import runtime, tasks
    from workers.app import huey
    monkeypatch.setenv("SIFT_FIRST_PART", "5")
    root = notes(tmp_path / "notes")
    conn = runtime.index()
    cid = store.ensure_collection(conn, "notes", str(root))["id"]
    tasks.discover(cid)
    run_jobs(huey, lambda: collection_reads.get_collection(conn, cid)["published"] is not None)
    run_jobs(huey, lambda: generation_reads.building_generation(conn, cid) is not None)  # the next part's scan
    return conn, cid


def test_stats_says_what_a_part_being_built_is_and_counts_none_skipped(sift_env, tmp_path, monkeypatch):
    """'1,874 files seen, 1,874 added', then '3 of 100 changed files done', then 'parse … skipped 1,774': the files
    left to later parts were counted added and skipped, and nothing said why 100 of 1,874."""
    from search.index import status
    from workers.stats import CLI, collection_lines
    conn, _ = between_parts(tmp_path, monkeypatch)
    [c] = status.collect(conn)["collections"]
    said = "\n".join(collection_lines(c, CLI))
    assert "a part of the first build (SIFT_FIRST_PART): 5 files in this part, 13 not read yet, left to the " \
           "parts after it" in said, said
    # the ages are seconds since the publish and the scan, whatever the machine took: 0 or 1 s here, 2 s and more
    # on a loaded one (the next part's scan runs between them)
    aged = re.sub(r"\b\d+ s ago", "N s ago", said)
    assert "generation 1, N s ago; 23 files seen, 5 added, 18 not read yet (in later parts); " in aged, said
    assert "building: generation 2 (started N s ago); 23 files seen, 5 added, 13 not read yet (in later parts); " \
           in aged, said
    assert c["building"]["stages"]["parse"]["skipped"] == 0, c["building"]["stages"]
    assert c["published"]["stages"]["parse"]["skipped"] == 0, "the published part's 18 are not skipped either"
    assert (c["building"]["not_read_yet"], c["published"]["not_read_yet"]) == (13, 18)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_an_assistant_between_two_parts_is_told_the_answer_may_be_in_a_file_not_read_yet(
        sift_env, tmp_path, monkeypatch, servers):
    between_parts(tmp_path, monkeypatch)

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return {"missing": await call(s, "search", query="zeppelin hangar", mode="keyword"),
                    "found": await call(s, "search", query="pelican", mode="keyword"),
                    "listed": await call(s, "list_files", glob="n2*.md", sort="path"),
                    "read": await call(s, "read_file", path="notes/n20.md"),
                    "similar": await call(s, "similar", path="notes/n20.md")}
    got = run(scenario)

    missing = text(got["missing"])
    assert "partial results: only 5 of notes's 23 files searched so far, the newest first; the answer may be in one " \
           "of the 18 not read yet: search again after its first build's next part (stats says when)" in missing, missing
    assert "no passages match in the files read so far: the answer may be in a file not read yet" in missing
    assert "try other words" not in missing, "other words cannot find a file not read yet"
    fresh = missing.splitlines()[-1]
    assert " ago, partial (the note above)" in fresh and "not read yet" not in fresh, \
        "the freshness line points to the partial note above, not its counts again"
    found = text(got["found"])
    assert found.startswith("5 passages for 'pelican'"), found
    # the same part as the search before it in this conversation: its counts alone, said before the passages, not
    # only at the end (the whole note again cost 236 characters a search)
    assert found.splitlines()[1] == "note: partial results as before: only 5 of notes's 23 files searched, 18 not " \
        "read yet", found
    assert got["found"].structured_content["notes"][0].startswith("partial results as before: ")

    listed = text(got["listed"])
    pending = ("pending: not read yet: the collection's first build is published in parts (SIFT_FIRST_PART) and this "
               "file comes in a later one; searchable once that part is published")
    rows = [line for line in listed.splitlines() if line.startswith("notes/n2")]
    # on each file's row, or once above them where every file listed shares it (listing.text)
    assert rows and (all(pending in line for line in rows) or "; each note, modified " in listed.splitlines()[0]
                     and listed.splitlines()[0].endswith(f", {pending}")), listed
    assert "skipped" not in listed, listed

    read = text(got["read"])
    assert "The zeppelin hangar door code is 4471." in read, "read from disk"
    assert "not read yet: the collection's first build is published in parts" in read, read
    assert "search does not find it until it is indexed" in read, read
    assert got["similar"].is_error and "similar compares it once that part is published" in text(got["similar"])


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_every_answer_during_a_first_build_in_parts_says_it_is_partial(sift_env, tmp_path, monkeypatch, servers):
    """``sift-mcp --root`` with its own worker and watcher (a real huey_consumer) builds 23 notes in parts of 5
    while the client searches for a word in the last part's note: every answer that came from a part says so
    before its passages and never says 'try other words'; the last answer finds the note."""
    monkeypatch.setenv("SIFT_FIRST_PART", "5")
    root = notes(tmp_path / "notes")
    seen: list[tuple[int | None, str]] = []
    # every scan waits, once it has read its files, for a touch of its own (it says so in the server's log, and
    # takes the touch): each is let go but one waiting after a part was published, until an answer from that part
    # has come. Unheld, an answer between two parts came only if the client searched within the seconds the next
    # part took to build (none came in a clean-clone CI run while that part took one second)
    release, log = tmp_path / "release-discover", tmp_path / "server-stderr.log"
    env = dict(sift_env, SIFT_FIRST_PART="5", SIFT_FAULT_PAUSE_DISCOVER=str(DEADLINE),
               SIFT_FAULT_RELEASE_DISCOVER=str(release))
    let_go = 0

    async def scenario():
        nonlocal let_go
        async with servers.session(env, "--root", str(root)) as s:
            deadline = time.monotonic() + DEADLINE
            while time.monotonic() < deadline:
                got = await call(s, "search", query="zeppelin", mode="keyword")
                [fresh] = got.structured_content["freshness"]
                seen.append((fresh.get("not_read_yet"), text(got)))
                if fresh["published_generation"] and not fresh.get("not_read_yet") and got.structured_content[
                        "results"]:
                    return
                waiting = log.read_text().count("SIFT_FAULT_PAUSE_DISCOVER:") if log.exists() else 0
                if waiting > let_go and not release.exists() and (
                        not fresh["published_generation"] or any(later for later, _ in seen)):
                    release.touch()
                    let_go += 1
                await anyio.sleep(0.2)
    run(scenario)
    partial = [said for later, said in seen if later]
    assert partial, "no answer came between two parts (the build ran too fast to watch?)"
    told = set()  # each part's counts said whole once, then 'as before' (mcp_server.partial_said)
    for later, said in seen:
        if later:
            whole = later not in told
            told.add(later)
            assert said.splitlines()[1].startswith("note: partial results: only " if whole else
                                                   "note: partial results as before: only "), said
    for said in partial:
        assert "try other words" not in said, said
        assert "nothing being built" not in said, "the next part's scan is queued"
    assert "notes/n20.md" in seen[-1][1] and "partial" not in seen[-1][1], seen[-1][1]


def _a_build(conn, name: str, root, planned: dict, discovered_ago: float) -> int:
    """A generation of collection ``name`` planned with ``planned`` (file: change), discovered that many seconds ago."""
    from search.index import store
    collection = store.ensure_collection(conn, name, str(root))
    gen = store.begin_generation(conn, collection["id"], None)
    store.record_plan(conn, gen, collection["id"], planned, {}, len(planned))
    with conn:  # as discover stamped it then
        conn.execute("UPDATE generations SET discovered = ? WHERE id = ?", (time.time() - discovered_ago, gen))
    return gen


def test_the_eta_counts_the_files_of_a_job_being_embedded_by_its_chunks(sift_env, tmp_path):
    """A part of notes-en's first build, 56 s in: 1 of 101 files written (a small first job's), the other 75 of a
    job at 96 of its 122 chunks after 55 s. Stats said 'ETA 1.6 h' (100 files at one per 56 s), 20 s from the job's
    end; each part began so ('ETA 4.0 h' for 400 files that took 3 min)."""
    from search.index import status, store
    from workers import runtime
    conn = runtime.index()
    names = [f"n{i:03}.md" for i in range(101)]
    gen = _a_build(conn, "notes", tmp_path, dict.fromkeys(names, "added"), 56)
    store.mark(conn, gen, names[:1], "write", "done")
    store.record_work(conn, gen, "embed", names[1:76], 65_000, time.time() - 55, 96, 122)  # this process
    [c] = status.collect(conn)["collections"]
    eta = c["building"]["progress"]["eta_seconds"]
    # 1 + 75 * 96 / 122 = 60 files' worth in 56 s: 41 to go, about 38 s (the job's own rest: 15 s)
    assert 30 <= eta <= 60, c["building"]["progress"]


def test_the_eta_counts_files_embedded_and_waiting_for_their_write_as_done(sift_env, tmp_path):
    """`ingest enqueue --wait` went from 'ETA 22 s; embedding … 96 of 116 chunks' to '2/35 files, ETA 31.5 min', then
    'published': between the embedding job's end and its files' write no job is at work, and the ETA fell back to
    the pace of the 2 files written in the 2 minutes since discovery. 20 of the files are embedded, their write next."""
    from search.index import status, store
    from workers import runtime
    conn = runtime.index()
    names = [f"n{i:02}.md" for i in range(35)]
    gen = _a_build(conn, "notes", tmp_path, dict.fromkeys(names, "added"), 120)
    store.mark(conn, gen, names[:2], "write", "done")
    store.mark(conn, gen, names[2:22], "embed", "done")
    [c] = status.collect(conn)["collections"]
    progress = c["building"]["progress"]
    assert progress["done"] == 2 and not progress["slow"], progress  # written: still 2, as the line shows
    # 22 files' worth in 120 s, 13 to go: about 71 s (by the 2 files written: 33 at one a minute, 33 min)
    assert 13 * 120 / 22 - 0.1 <= progress["eta_seconds"] <= 13 * 130 / 22, progress
    store.mark(conn, gen, names[22:], "embed", "done")  # all embedded: only their write is left
    [c] = status.collect(conn)["collections"]
    assert c["building"]["progress"]["eta_seconds"] == 0.0, c["building"]["progress"]


def test_before_any_file_is_done_the_eta_goes_by_the_jobs_own_pace(sift_env, tmp_path):
    """`ingest enqueue --wait` said '0/100 files of this part, ETA 1.0 h for this part' of a part that took 5
    minutes: its first job's few chunks, embedded in seconds after a minute of model load and chunking, were taken
    as the pace of the minute since discovery. The job's own clock tells: 30 files at 8 of 300 chunks in 5 s."""
    from search.index import status, store
    from workers import runtime
    conn = runtime.index()
    names = [f"n{i:03}.md" for i in range(100)]
    gen = _a_build(conn, "notes", tmp_path, dict.fromkeys(names, "added"), 60)
    began = time.time() - 5
    store.record_work(conn, gen, "embed", names[:30], 90_000, began, 8, 300)  # this process
    [c] = status.collect(conn)["collections"]
    eta = c["building"]["progress"]["eta_seconds"]
    # 0.8 files' worth in the job's 5 s: 99.2 to go at 0.16 a second, 620 s (the pace since discovery: 2 h)
    assert eta is not None and 300 <= eta <= 99.2 * (time.time() - began) / 0.8, c["building"]["progress"]


def test_a_big_file_embedded_alone_gives_no_pace_of_the_other_files(sift_env, tmp_path):
    """A build's first slow job a big note alone (a file over JOB_BYTES goes alone), 32 of its 300 chunks embedded
    in 10 s, no file written yet: its tenth of a file was taken as the pace of all 101, 'ETA 2.6 h', where stats
    said 'unknown yet' before; a job of several files still counts its files by its chunks (test above)."""
    from search.index import status, store
    from workers import runtime
    conn = runtime.index()
    names = [f"n{i:03}.md" for i in range(101)]
    gen = _a_build(conn, "notes", tmp_path, dict.fromkeys(names, "added"), 10)
    store.record_work(conn, gen, "embed", names[:1], 160_000, time.time() - 10, 32, 300)  # this process
    [c] = status.collect(conn)["collections"]
    progress = c["building"]["progress"]
    assert progress["slow"] and progress["eta_seconds"] is None, progress
    # a build of the big note alone (an edit of it): its own pace tells
    gen = _a_build(conn, "big", tmp_path / "big", {"big.md": "modified"}, 10)
    store.record_work(conn, gen, "embed", ["big.md"], 160_000, time.time() - 10, 32, 300)
    big = next(c for c in status.collect(conn)["collections"] if c["name"] == "big")
    assert 60 <= big["building"]["progress"]["eta_seconds"] <= 150, big["building"]  # 268 chunks at 3.2/s


def test_between_two_parts_the_freshness_line_says_the_next_part_comes(sift_env, tmp_path, monkeypatch):
    """A part published, the next part's scan queued by its publish, no worker at it yet: search's freshness line
    said 'partial: …, 18 files not read yet, nothing being built', as if the rest would never come."""
    from mcp_server import report
    from search.index import collection_reads, store
    from workers import runtime, tasks
    from workers.app import huey
    monkeypatch.setenv("SIFT_FIRST_PART", "5")
    root = notes(tmp_path / "notes")
    conn = runtime.index()
    cid = store.ensure_collection(conn, "notes", str(root))["id"]
    tasks.discover(cid)
    run_jobs(huey, lambda: collection_reads.get_collection(conn, cid)["published"] is not None)
    line, _ = report.freshness(conn)
    assert line.endswith("partial: its first build comes in parts, 18 files not read yet, the next part's scan comes "
                         "next"), line


def test_while_a_first_scan_walks_the_folder_search_says_so(sift_env, tmp_path, monkeypatch):
    """The first scan taken by a worker, walking the folder, nothing built or queued yet: search's freshness line
    said 'notes: nothing published yet, nothing being built' for the 1–7 s notes-en's walk takes; between two parts
    the next part's scan walking said 'the next part's scan comes next' as if no worker had it yet."""
    from mcp_server import report
    from search.index import collection_reads, freshness, store
    from workers import runtime, tasks
    from workers.app import huey
    monkeypatch.setenv("SIFT_FIRST_PART", "5")
    root = notes(tmp_path / "notes")
    conn = runtime.index()
    cid = store.ensure_collection(conn, "notes", str(root))["id"]
    assert freshness.begin_scan(conn, cid, True, 600) == freshness.PRESENT  # as discover claims it, then walks
    line, [d] = report.freshness(conn)
    assert "nothing being built" not in line, line
    assert line.startswith("freshness: notes: nothing published yet, its first scan is walking the folder (started "), \
        line
    assert "started" in d["scanning"] and d["scanning"]["age_seconds"] < 600
    huey.storage.flush_all()
    tasks.discover(cid, resume=True)  # the scan goes on (its claim is its own)
    run_jobs(huey, lambda: collection_reads.get_collection(conn, cid)["published"] is not None)
    huey.storage.flush_all()  # the next part's scan taken by a worker
    assert freshness.begin_scan(conn, cid, True, 600) == freshness.PRESENT
    line, _ = report.freshness(conn)
    assert line.endswith("18 files not read yet, the next part's scan is walking the folder (started 0 s ago)") \
        or "the next part's scan is walking the folder (started" in line, line
    from workers import rescan
    assert rescan.may_queue(cid, conn) is False, "the walk counts as under way"


def test_a_part_published_while_another_worker_takes_a_scan_asks_for_no_second_one(sift_env, tmp_path, monkeypatch):
    """A part's publish (its clean-up took seconds on notes-en) while the other worker took a scan of the collection
    (a big file's, back from the background): the publish found that scan under way and remembered a request, so
    stats said 'waiting: a rescan was asked for 14 s ago' through the last part and one more walk, of no changes,
    followed. That scan walks the whole folder and reads the next part: nothing more is asked."""
    from search.index import collection_reads, progress_reads, store
    from workers import rescan, runtime, tasks, waiting
    from workers.app import huey
    monkeypatch.setenv("SIFT_FIRST_PART", "5")
    root = notes(tmp_path / "notes")
    conn = runtime.index()
    cid = store.ensure_collection(conn, "notes", str(root))["id"]
    clean_up = store.collect_garbage
    taken = []

    def the_other_worker_takes_a_scan(c, collection):  # in the publish, after its commit: the race's gap
        clean_up(c, collection)
        if not taken and progress_reads.deferred(c, collection_reads.get_collection(c, cid)["published"]) == 13:  # before the last
            taken.append(tasks.discover.call_local(cid))  # the other worker's scan: claims, walks, plans

    monkeypatch.setattr(store, "collect_garbage", the_other_worker_takes_a_scan)
    tasks.discover(cid)
    run_jobs(huey, lambda: taken)  # the first part, its publish, the second part's scan and build, its publish
    assert taken == [3], "the last part's generation"
    assert collection_reads.get_collection(conn, cid)["scan_requested"] is None, "asked twice"
    assert not [s for s in waiting.queued() if s["collection"] == cid], "the scan under way reads the next part"
    run_jobs(huey)  # the last part
    row = collection_reads.get_collection(conn, cid)
    assert not progress_reads.deferred(conn, row["published"]), "every part came"
    assert row["scan_requested"] is None
    assert cid not in rescan.due(conn, 3600), "no walk after the last part"
