"""`ingest remove NAME`: forget a collection; `ingest enqueue NEW --name NAME`: follow a collection's moved folder.

`ingest remove`: Before it nothing could take a folder out of search: a folder
indexed by mistake (a Downloads folder, a checkout) stayed in every answer, and a deleted one stayed registered.

Removal is one transaction: readers see the collection whole until it commits and gone after. Jobs of the
collection still waiting in the queue, or running, find their generation gone and do nothing.

A moved folder was refused under its name (`collection 'notes' already indexes /old`): under a new one every file
was read and embedded again, and the old collection stayed registered."""
from __future__ import annotations

import re
import shutil
import sqlite3
import time

from tests.conftest import ingest, run_ingest, write_tree

NOTES = {"walrus.md": "# Walrus\n\nThe walrus sleeps on the ice floe at noon.\n",
         "tea.md": "# Tea\n\nGreen tea is steeped at eighty degrees for two minutes.\n"}
OTHER = {"kayak.md": "# Kayak\n\nA kayak paddle has two blades; a canoe paddle has one.\n"}


def _paths(engine, query: str, mode: str) -> list[str]:
    return [f"{h.collection}/{h.path}" for h in engine.search(query, limit=10, mode=mode).hits]


def _leftovers(conn: sqlite3.Connection, collection_id: int) -> dict[str, int]:
    """Rows of the collection anywhere in the index (all 0 once it is removed), and rows that lost their owner."""
    one = lambda sql: conn.execute(sql, (collection_id,)).fetchone()[0]  # noqa: E731
    return {
        "collections": one("SELECT count(*) FROM collections WHERE id = ?"),
        "generations": one("SELECT count(*) FROM generations WHERE collection = ?"),
        "files": one("SELECT count(*) FROM files WHERE collection = ?"),
        "progress": one("SELECT count(*) FROM progress WHERE generation NOT IN (SELECT id FROM generations) "
                        "AND ? IS NOT NULL"),
        "orphan chunks": one("SELECT count(*) FROM chunks WHERE file NOT IN (SELECT id FROM files) AND ? IS NOT NULL"),
        "orphan fts rows": one("SELECT count(*) FROM chunks_fts WHERE rowid NOT IN (SELECT id FROM chunks) "
                               "AND ? IS NOT NULL"),
        "unused vectors": one("SELECT count(*) FROM vectors WHERE text_hash NOT IN (SELECT text_hash FROM chunks) "
                              "AND ? IS NOT NULL"),
        "remembered": one("SELECT count(*) FROM remembered WHERE collection = ?"),
    }


def test_remove_takes_a_collection_out_of_search_and_the_index_and_enqueue_brings_it_back(immediate, sift_env,
                                                                                         tmp_path):
    from search.query.engine import from_settings
    from search.settings import load
    from workers import runtime
    notes = write_tree(tmp_path / "notes", {**NOTES, "app.min.js": "var a=1;\n"})  # one skipped: remembered
    other = write_tree(tmp_path / "other", OTHER)
    ingest(notes, "notes")
    ingest(other, "other")
    conn = runtime.index()
    engine = from_settings(load())  # a server's engine, open across the removal
    assert _paths(engine, "walrus", "keyword") == ["notes/walrus.md"]
    assert _paths(engine, "walrus ice", "semantic")[0] == "notes/walrus.md"
    assert conn.execute("SELECT count(*) FROM remembered").fetchone()[0] == 1

    removed = run_ingest(sift_env, "remove", "notes")
    assert removed.returncode == 0, removed.stderr
    assert removed.stdout == (f"removed collection 'notes' ({notes.resolve()}): 2 files and 2 passages are no "
                              f"longer searchable. The folder is untouched: `ingest enqueue {notes.resolve()} "
                              "--name notes` indexes it again\n"), removed.stdout
    assert _leftovers(conn, 1) == dict.fromkeys(_leftovers(conn, 1), 0)
    assert sorted(notes.iterdir()) and (notes / "walrus.md").read_text() == NOTES["walrus.md"], "the folder stays"
    for mode in ("keyword", "semantic", "hybrid"):
        assert all(not p.startswith("notes/") for p in _paths(engine, "walrus on the ice", mode)), mode
    assert _paths(engine, "kayak paddle", "keyword") == ["other/kayak.md"], "the other collection answers as before"
    listed = run_ingest(sift_env, "stats")
    assert "notes" not in listed.stdout.replace("other", "") and "other" in listed.stdout, listed.stdout

    ingest(notes, "notes")  # registered and built again, from nothing
    assert _paths(engine, "walrus", "keyword") == ["notes/walrus.md"]
    assert _paths(engine, "walrus ice", "semantic")[0] == "notes/walrus.md"


def test_remove_refuses_an_unknown_name_naming_the_collections(immediate, sift_env, tmp_path):
    ingest(write_tree(tmp_path / "other", OTHER), "other")
    refused = run_ingest(sift_env, "remove", "nope")
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == "ingest: error: no collection named 'nope'; collections: other\n", refused.stderr


def test_jobs_of_a_build_under_way_do_nothing_once_their_collection_is_removed(immediate, sift_env, tmp_path):
    """A folder enqueued by mistake is what one most wants to remove, while it is being built."""
    from search.index import store
    from workers import runtime, tasks, watch
    from workers.rescan import request_scan
    notes = write_tree(tmp_path / "notes", NOTES)
    ingest(notes, "notes")
    conn = runtime.index()
    (notes / "walrus.md").write_text("# Walrus\n\nThe walrus swims under the ice.\n", encoding="utf-8")
    gen = store.begin_generation(conn, 1, runtime.model_id())  # a scan planned the edit; its jobs wait
    store.record_plan(conn, gen, 1, {"walrus.md": "changed"}, {}, len(NOTES))
    store.record_work(conn, gen, "embed", ["walrus.md"], 50, time.time(), 0, 1)

    removed = run_ingest(sift_env, "remove", "notes")
    assert removed.returncode == 0 and "; its build under way was stopped (its queued jobs do nothing)." in \
        removed.stdout, removed.stdout + removed.stderr
    tasks.parse(tasks.Batch(gen, 1, ["walrus.md"]))  # a job that waited in the queue runs: immediate mode
    tasks.publish(gen)
    assert tasks.discover(1) is None, "a scan of it that waited has nothing to scan"
    assert _leftovers(conn, 1) == dict.fromkeys(_leftovers(conn, 1), 0)
    assert conn.execute("SELECT count(*) FROM working").fetchone()[0] == 0
    assert watch._quietly(request_scan, 1, conn) is None, "the watcher, until it re-reads the collections"


def test_remove_during_a_build_counts_only_what_searches_saw(immediate, sift_env, tmp_path):
    """Removed while its first build was under way, a collection was said to leave search with '152 files and
    247 passages' that no search had ever seen: the build's files written before its publish were counted."""
    from search.index import store
    from workers import runtime, tasks
    notes = write_tree(tmp_path / "notes", NOTES)
    conn = runtime.index()
    collection = store.ensure_collection(conn, "notes", str(notes.resolve()))
    gen = store.begin_generation(conn, collection["id"], runtime.model_id())
    store.record_plan(conn, gen, collection["id"], dict.fromkeys(NOTES, "added"), {}, len(NOTES))
    tasks.parse(tasks.Batch(gen, collection["id"], ["walrus.md"]))  # written; tea.md not yet: nothing published
    assert conn.execute("SELECT published FROM collections").fetchone()[0] is None
    removed = run_ingest(sift_env, "remove", "notes")
    assert removed.returncode == 0, removed.stderr
    assert removed.stdout.startswith(f"removed collection 'notes' ({notes.resolve()}): nothing of it was "
                                     "searchable yet; its build under way was stopped"), removed.stdout
    other = write_tree(tmp_path / "other", OTHER)  # published with one file; a second one written, not published
    ingest(other, "other")
    write_tree(other, NOTES)
    collection = store.ensure_collection(conn, "other", str(other.resolve()))
    gen = store.begin_generation(conn, collection["id"], runtime.model_id())
    store.record_plan(conn, gen, collection["id"], dict.fromkeys(NOTES, "added"), {}, len(NOTES) + 1)
    tasks.parse(tasks.Batch(gen, collection["id"], ["walrus.md"]))
    removed = run_ingest(sift_env, "remove", "other")
    assert removed.stdout.startswith(f"removed collection 'other' ({other.resolve()}): 1 file and 1 passage are no "
                                     "longer searchable; its build under way was stopped"), removed.stdout


def test_enqueue_of_a_moved_folder_under_its_name_follows_it_and_reads_nothing_again(immediate, sift_env, tmp_path):
    from search.query.engine import from_settings
    from search.settings import load
    from workers import runtime, tasks
    notes = write_tree(tmp_path / "notes", NOTES)
    ingest(notes, "notes")
    conn = runtime.index()
    published = conn.execute("SELECT published FROM collections").fetchone()[0]
    vectors = conn.execute("SELECT count(*) FROM vectors").fetchone()[0]

    elsewhere = write_tree(tmp_path / "elsewhere", OTHER)  # the old folder is still there: refused, as before
    refused = run_ingest(sift_env, "enqueue", str(elsewhere), "--name", "notes")
    assert refused.returncode == 2 and "a collection whose folder was moved follows it here once nothing is " \
        "left at the old path" in refused.stderr, refused.stderr

    moved = notes.rename(tmp_path / "archive")
    what_to_do = ("its files stay searchable as last indexed until it has been gone for a whole rescan interval "
                  "(SIFT_RESCAN_MINUTES), then they are removed; if it was moved, `ingest enqueue NEW_FOLDER --name "
                  "notes` follows it (nothing is embedded again), and `ingest remove notes` forgets the collection\n")
    said = run_ingest(sift_env, "stats").stdout  # before any scan has seen it gone: stats said nothing of it
    assert "  root folder missing (no scan has run since it went): " + what_to_do in said, said
    listed = run_ingest(sift_env, "files").stdout  # and its files were listed as indexed, with no word of it
    assert listed.startswith(f"note: collection 'notes': its folder {notes.resolve()} is missing, so its files are "
                             "listed as last indexed"), listed
    tasks.discover(1)  # a scan finds the folder gone: stats say since when, and what to do if it was moved
    said = run_ingest(sift_env, "stats").stdout
    assert re.search(r"  root folder missing since [0-9.]+ s ago: " + re.escape(what_to_do), said), said
    followed = run_ingest(sift_env, "enqueue", str(moved), "--name", "notes")
    assert followed.returncode == 0, followed.stderr
    assert followed.stdout.startswith(f"collection 'notes' was at {notes.resolve()}, where nothing is left now: "
                                      f"it follows the folder to {moved.resolve()} "), followed.stdout
    assert [(r["name"], r["root"]) for r in conn.execute("SELECT name, root FROM collections")] == \
        [("notes", str(moved.resolve()))]
    tasks.discover(1)  # the scan that enqueue queued, run here: every file is found as it was
    assert conn.execute("SELECT published FROM collections").fetchone()[0] == published, "nothing changed"
    assert conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == vectors
    engine = from_settings(load())
    assert [(h.path, h.collection) for h in engine.search("walrus", limit=5, mode="keyword").hits] == \
        [("walrus.md", "notes")]


def test_stats_of_a_missing_folder_whose_files_were_removed_no_longer_says_they_stay(immediate, sift_env, tmp_path,
                                                                                      monkeypatch):
    """Once a missing folder's files were removed (it had been gone for a whole rescan interval), stats still said
    'its files stay searchable as last indexed until …, then they are removed' above '0 files searchable'."""
    from workers import runtime, tasks
    notes = write_tree(tmp_path / "notes", NOTES)
    ingest(notes, "notes")
    shutil.rmtree(notes)
    monkeypatch.setenv("SIFT_RESCAN_MINUTES", "0.0001")  # gone for a whole interval at the second scan
    runtime.reset()
    tasks.discover(1)
    time.sleep(0.05)
    tasks.discover(1)
    said = run_ingest(sift_env, "stats").stdout
    assert "notes  " in said and "\n  0 files, 0 chunks searchable\n" in said, said
    assert "stay searchable" not in said, said
    assert re.search(r"  root folder missing since [0-9.]+ s ago: nothing of it is searchable any more \(its files "
                     r"are removed once it has been gone for a whole rescan interval, SIFT_RESCAN_MINUTES\); if it "
                     r"was moved, `ingest enqueue NEW_FOLDER --name notes` indexes it there", said), said


def test_sift_mcp_root_of_a_moved_folder_follows_it_too(immediate, sift_env, tmp_path, capsys):
    """A client's configuration updated to the folder's new path (`sift-mcp --root ~/Documents/notes`): the
    server refused to start (the name 'notes' was taken by the old path)."""
    from mcp_server.server import register_root
    from search.settings import load
    from workers import runtime
    notes = write_tree(tmp_path / "notes", NOTES)
    ingest(notes, "notes")
    moved = notes.rename(tmp_path / "documents-notes")
    assert register_root(load(), str(moved), "notes") == (1, "notes")
    assert f"sift-mcp: note: collection 'notes' was at {notes.resolve()}, where nothing is left now: it follows " \
        f"the folder to {moved.resolve()}" in capsys.readouterr().err
    assert runtime.index().execute("SELECT root FROM collections").fetchall()[0][0] == str(moved.resolve())


def test_a_job_embedding_a_big_file_stops_when_its_collection_is_removed(immediate, sift_env, tmp_path,
                                                                        monkeypatch):
    """`ingest remove` (a real process) while this process embeds a big note of the collection: the job stops at
    its next batch; it went on for its quarter of an hour, for nothing. Nothing fails, nothing is written."""
    import workers.working
    from workers import runtime
    monkeypatch.setattr(workers.working, "AFTER", 0.0)  # the job says what it is doing from its first batch
    monkeypatch.setattr(workers.working, "EVERY", 0.0)
    monkeypatch.setenv("SIFT_EMBED_BATCH", "8")
    root = write_tree(tmp_path / "notes", {"big.md": "".join(f"# Part {i}\n\nWalrus number {i} sleeps.\n\n"
                                                             for i in range(40))})
    embedder = runtime.embedder()
    calls, said = [], {}
    real = embedder.embed

    def embed_and_remove(texts, kind):
        calls.append(len(texts))
        if len(calls) == 2:
            said["remove"] = run_ingest(sift_env, "remove", "notes")
        return real(texts, kind=kind)

    monkeypatch.setattr(embedder, "embed", embed_and_remove)
    from search.index import store
    from workers import tasks
    tasks.discover(store.ensure_collection(runtime.index(), "notes", str(root.resolve()))["id"])  # the whole build
    assert said["remove"].returncode == 0 and "its build under way was stopped" in said["remove"].stdout, said
    assert calls == [8, 8], "the job stopped at its next batch"
    conn = runtime.index()
    assert _leftovers(conn, 1) == dict.fromkeys(_leftovers(conn, 1), 0)
    assert conn.execute("SELECT count(*) FROM working").fetchone()[0] == 0


def test_remove_on_a_home_without_an_index_refuses_and_makes_none(sift_env):
    from pathlib import Path
    index = Path(sift_env["SIFT_HOME"]) / "index.db"
    assert not index.exists()
    refused = run_ingest(sift_env, "remove", "notes")
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == f"ingest: error: no collection named 'notes': no index yet at {index}\n", refused.stderr
    assert not index.exists(), "a command that finds nothing to remove makes no index"


def test_the_cli_takes_a_collection_name_in_either_unicode_form(immediate, sift_env, tmp_path):
    """A collection named after a folder macOS wrote in NFD, typed in NFC: `--collection` of search and files, and
    remove, refused it as "no collection named 'résumés'; collections: résumés" (the MCP tools take it)."""
    import unicodedata
    nfd, nfc = (unicodedata.normalize(form, "résumés") for form in ("NFD", "NFC"))
    ingest(write_tree(tmp_path / nfd, {"cv.md": "# CV\n\nWalrus keeper since 2019.\n"}), nfd)
    found = run_ingest(sift_env, "search", "walrus", "--collection", nfc, "--mode", "keyword")
    assert found.returncode == 0 and f"{nfd}/cv.md" in found.stdout, found.stdout + found.stderr
    listed = run_ingest(sift_env, "files", "--collection", nfc)
    assert listed.returncode == 0 and listed.stdout.startswith(f"{nfd}/cv.md  note  "), listed.stdout + listed.stderr
    removed = run_ingest(sift_env, "remove", nfc)
    assert removed.returncode == 0 and removed.stdout.startswith(f"removed collection {nfd!r} "), removed.stderr


def test_a_collection_removed_and_added_again_is_searched_anew_by_a_running_server(immediate, sift_env, tmp_path):
    """The only collection, published once, removed and added again with its notes edited meanwhile: its first
    generation got the id of the removed one (generation ids were reused), so a running server's engine, which
    reloads when a published generation changes, kept the removed chunks and its searches failed on them
    (KeyError)."""
    from search.query.engine import from_settings
    from search.settings import load
    notes = write_tree(tmp_path / "notes", NOTES)
    ingest(notes, "notes")
    engine = from_settings(load())  # a server's engine, open across the removal, not searching in between
    assert _paths(engine, "walrus", "keyword") == ["notes/walrus.md"]
    old = engine.search("walrus", limit=1, mode="keyword").hits[0].generation
    assert run_ingest(sift_env, "remove", "notes").returncode == 0
    write_tree(notes, {"walrus.md": "# Walrus\n\nThe walrus naps on a floe of ice.\n",
                       "seal.md": "# Seal\n\nA seal and a walrus share the beach.\n"})
    ingest(notes, "notes")
    for mode in ("keyword", "semantic", "hybrid"):
        hits = engine.search("walrus", limit=10, mode=mode).hits
        assert sorted(h.path for h in hits if "walrus" in h.snippet.lower()) == ["seal.md", "walrus.md"], mode
        assert all(h.generation > old for h in hits), mode
