"""A notes folder synced by iCloud Drive, Nextcloud or ownCloud, whose client frees the space of notes not opened
lately: each note becomes a placeholder ('.note.md.icloud', 'note.md.nextcloud'), and is downloaded again when
opened. The note is still the person's; only a deletion (its placeholder goes too) deletes it from the index. And
what Windows and macOS write into every synced folder (desktop.ini, Thumbs.db, Icon\\r) is nobody's note."""
from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path

import pytest
from watchfiles import Change

from tests.conftest import ingest, write_tree
from tests.test_page_or_template import env  # noqa: F401 - the keyword-only index fixture

NOTE = "# Sourdough starter\n\nFeed the sourdough starter twice a day with rye flour and water.\n"
OTHER = "# Tmux\n\nSplit the pane with prefix and a percent sign.\n"


def _indexed(collection: int) -> set[str]:
    from search.index import file_reads
    from workers import runtime
    return set(file_reads.current_files(runtime.index(), collection))


def _watcher(root):
    from ingest.discover import Rules
    from workers import runtime
    from workers.watch import Watcher
    watcher = Watcher(runtime.index(), Rules())
    watcher.refresh()
    watcher.changed = {}  # the start-up walk: ingest() did it
    return watcher


@pytest.mark.parametrize("placeholder", [".sourdough.md.icloud", "sourdough.md.nextcloud", "sourdough.md.owncloud"])
def test_a_note_freed_to_a_placeholder_stays_searchable_until_deleted(immediate, tmp_path, placeholder):
    """iCloud's 'Optimise Mac Storage' replaced bread/sourdough.md by bread/.sourdough.md.icloud: the scan took the
    note for deleted and search found nothing of it. It is kept as indexed, by the watcher's scan of the paths and
    by a walk; once the placeholder goes too (deleted on the phone) the watcher's scan deletes it, where the
    placeholder's event was dropped and the note stayed until the periodic rescan."""
    from workers import tasks
    root = write_tree(tmp_path / "notes", {"bread/sourdough.md": NOTE, "tmux.md": OTHER}).resolve()
    collection = ingest(root)["id"]
    assert _indexed(collection) == {"bread/sourdough.md", "tmux.md"}
    watcher = _watcher(root)
    (root / "bread/sourdough.md").unlink()
    (root / "bread" / placeholder).write_bytes(b"bplist00\x00")
    watcher.note([(Change.deleted, str(root / "bread/sourdough.md")),
                  (Change.added, str(root / "bread" / placeholder))])
    assert watcher.paths(collection) is not None, "a scan of the paths, not a walk"
    watcher.flush()
    assert _indexed(collection) == {"bread/sourdough.md", "tmux.md"}, "freed, not deleted: the paths' scan keeps it"
    tasks.discover(collection)  # a walk (the periodic rescan, ingest enqueue)
    assert _indexed(collection) == {"bread/sourdough.md", "tmux.md"}, "the walk keeps it too"
    (root / "bread" / placeholder).unlink()  # deleted on the phone: the sync client removes the placeholder
    watcher.note([(Change.deleted, str(root / "bread" / placeholder))])
    assert "bread/sourdough.md" in watcher.changed.get(collection, ()), "the placeholder's going is the note's"
    watcher.flush()
    assert _indexed(collection) == {"tmux.md"}


def test_a_placeholder_alone_is_no_empty_note_and_its_download_is_read(immediate, tmp_path):
    """A note made on the phone and not downloaded here is a placeholder alone: nothing indexed, nothing counted
    as a file Sift does not read; once downloaded, the watcher's scan reads it."""
    root = write_tree(tmp_path / "notes", {"tmux.md": OTHER, ".new.md.icloud": "x", "new2.md.nextcloud": ""}).resolve()
    stats = ingest(root)
    collection = stats["id"]
    assert _indexed(collection) == {"tmux.md"}
    assert not stats["published"]["unread"], "Nextcloud's placeholder was counted: '.nextcloud 1'"
    watcher = _watcher(root)
    (root / ".new.md.icloud").unlink()
    (root / "new.md").write_text(NOTE)
    watcher.note([(Change.deleted, str(root / ".new.md.icloud")), (Change.added, str(root / "new.md"))])
    watcher.flush()
    assert _indexed(collection) == {"tmux.md", "new.md"}


def test_folders_icons_and_thumbnails_are_not_counted_as_files_sift_does_not_read(tmp_path):
    """desktop.ini (Windows, in OneDrive and Google Drive folders), Thumbs.db and macOS' Icon\\r (Dropbox's folders)
    were counted ('(no extension) 1, .db 1, .ini 1'), and made the watcher's scans of folders walk the whole
    collection; a file named Icon (no \\r) is counted as before."""
    from ingest.discover import walk
    root = write_tree(tmp_path / "notes", {"a/desktop.ini": "[.ShellClassInfo]\n", "a/Thumbs.db": "x",
                                           "Icon\r": "", "Desktop.ini": "x", "a/note.md": NOTE, "Icon": "plain text"})
    unread = Counter()
    assert [f.path for f in walk(root, unread=unread)] == ["a/note.md"]
    assert unread == Counter({"(no extension)": 1}), "the file named Icon, without \\r, is counted as before"


def test_a_note_of_nul_bytes_alone_is_not_written_yet_and_its_indexed_version_stays(immediate, tmp_path):
    """A sync client downloading a note into a sparse file, or a placeholder of its size, leaves NUL bytes where its
    text goes: skipped as 'binary file (a NUL byte at byte 0)', the note looked damaged. Said as not written yet;
    the version indexed before still answers."""
    from search.index import progress_reads
    from search.query.engine import Engine
    from workers import runtime, tasks
    root = write_tree(tmp_path / "notes", {"bread.md": NOTE, "tmux.md": OTHER}).resolve()
    collection = ingest(root)["id"]
    with open(root / "bread.md", "r+b") as stub:
        stub.truncate(0)
        stub.truncate(len(NOTE) + 10)
    tasks.discover(collection)
    published = runtime.index().execute("SELECT published FROM collections WHERE id = ?", (collection,)).fetchone()[0]
    reasons = {row["path"]: row["reason"] for row in progress_reads.troubled(runtime.index(), published)}
    assert list(reasons) == ["bread.md"] and reasons["bread.md"].startswith("only NUL bytes"), reasons
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: None)
    hits = engine.search("sourdough starter", mode="keyword").hits
    assert [hit.path for hit in hits] == ["bread.md"], "the version indexed before answers"


def test_read_file_of_a_freed_note_says_it_is_not_downloaded(immediate, tmp_path):
    """read_file said of a freed note 'was deleted from disk … search finds it until the generation that notices is
    published', where search goes on finding it."""
    from mcp_server.errors import Problem
    from mcp_server.read_target import refuse_deleted
    from workers import runtime
    root = write_tree(tmp_path / "notes", {"bread.md": NOTE, "tmux.md": OTHER}).resolve()
    ingest(root)
    (root / "bread.md").unlink()
    (root / ".bread.md.icloud").write_bytes(b"bplist00")
    with pytest.raises(Problem, match=r"^notes/bread\.md is not downloaded to this disk"):
        refuse_deleted(runtime.index(), "notes/bread.md", {"notes": str(root)})


def test_a_freed_note_is_not_read_again_when_files_are_cut_anew(immediate, tmp_path, monkeypatch):
    """A new chunk size or chunker version reads every file again: a freed note, not on this disk to read, failed
    'file vanished before it could be read' at each such change (chunker 25 was one), a failure in stats for every
    note iCloud had freed. It is kept as indexed, no failure, and search still finds it."""
    from search.index import progress_reads
    from search.query.engine import Engine
    from workers import runtime, tasks
    root = write_tree(tmp_path / "notes", {"bread/sourdough.md": NOTE, "tmux.md": OTHER}).resolve()
    collection = ingest(root)["id"]
    (root / "bread/sourdough.md").unlink()
    (root / "bread/.sourdough.md.icloud").write_bytes(b"bplist00\x00")
    monkeypatch.setenv("SIFT_CHUNK_TOKENS", "200")  # files are cut otherwise: every file is read again
    runtime.reset()
    tasks.discover(collection)
    published = runtime.index().execute("SELECT published FROM collections WHERE id = ?", (collection,)).fetchone()[0]
    assert [dict(row) for row in progress_reads.troubled(runtime.index(), published)] == []
    assert _indexed(collection) == {"bread/sourdough.md", "tmux.md"}
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: None)
    assert [hit.path for hit in engine.search("sourdough starter", mode="keyword").hits] == ["bread/sourdough.md"]


def test_a_freed_note_is_marked_not_downloaded_in_search_and_listings(env, tmp_path, servers, capsys):  # noqa: F811
    """A freed note answered searches and was listed 'indexed' as any note, only read_file saying it was not on the
    disk: a model quoted it as the note on the machine, and told the user to open it there. Its hits (once per file)
    and its list_files row say it now, over the real MCP client, and `ingest search` and `ingest files` too."""
    from tests.test_mcp_server import call, run, text
    long_note = NOTE + "".join(f"\n## Day {n}\n\nThe sourdough starter on day {n} smelled of rye.\n" for n in range(40))
    root = write_tree(tmp_path / "notes", {"bread.md": long_note, "tmux.md": OTHER, "rye.md": NOTE}).resolve()
    ingest(root)
    (root / "bread.md").unlink()
    (root / ".bread.md.icloud").write_bytes(b"bplist00")
    from workers import tasks
    tasks.discover(_collection_id("notes"))

    async def scenario():
        async with servers.session(env, "--no-worker") as s:
            found = await call(s, "search", query="sourdough starter rye", mode="keyword", limit=10)
            listed = await call(s, "list_files", sort="path")
            return found, listed
    found, listed = run(scenario)
    marked = [h["path"] for h in found.structured_content["results"] if h.get("not_downloaded")]
    assert "notes/bread.md" in marked and "notes/rye.md" not in marked, found.structured_content["results"]
    said = "(not downloaded on this machine (a sync client keeps it in the cloud): search answers from the version indexed)"
    assert text(found).count(said) == 1, text(found)  # once, on the file's first hit, though it has several
    rows = {f["path"]: f for f in listed.structured_content["files"]}
    assert rows["notes/bread.md"]["reason"].startswith("not downloaded on this machine"), rows
    assert not rows["notes/rye.md"].get("reason") and not rows["notes/tmux.md"].get("reason"), rows
    from ingest import cli
    assert cli.main(["files", "--sort", "path"]) == 0
    printed = capsys.readouterr().out
    assert re.search(r"notes/bread\.md .* indexed: not downloaded on this machine", printed), printed
    assert cli.main(["search", "sourdough starter rye", "--mode", "keyword"]) == 0
    searched = capsys.readouterr().out
    assert searched.count(said) == 1, searched


def _collection_id(name: str) -> int:
    from search.index import collection_reads
    from workers import runtime
    return next(c["id"] for c in collection_reads.collections(runtime.index()) if c["name"] == name)


def test_downloads_not_finished_are_no_files_and_their_rename_is_one_change(immediate, tmp_path):
    """A browser's or a sync client's download not finished (Chrome's .crdownload, Firefox's .part, Safari's
    .download folder, Resilio's .!sync) was counted as a file Sift does not read ('.crdownload 1'), and its coming
    asked for a scan; Safari's folder's partial PDF was read as a file of its own. Now none is a file, and the
    download renamed to its own name is one change of that file, in one generation."""
    from workers import runtime
    root = write_tree(tmp_path / "notes", {
        "tmux.md": OTHER, "a/x.md.crdownload": NOTE, "Unconfirmed 123456.crdownload": "x", "y.pdf.part": "x",
        "z.md.partial": NOTE, "q.md.download": NOTE, "s.md.!sync": NOTE, "n.md.sb-2a7c1f5e-Vx3kqP": NOTE,
        "b.pdf.download/b.pdf": "%PDF-1.4 partial", "b.pdf.download/Info.plist": "<plist/>"}).resolve()
    stats = ingest(root)
    collection = stats["id"]
    assert _indexed(collection) == {"tmux.md"}
    assert not stats["published"]["unread"], stats["published"]["unread"]
    before = runtime.index().execute("SELECT max(id) FROM generations").fetchone()[0]
    watcher = _watcher(root)
    partial = root / "bread.md.crdownload"
    partial.write_text(NOTE[:20])
    watcher.note([(Change.added, str(partial)), (Change.modified, str(partial))])
    assert not watcher.changed.get(collection), "a download under way asks for no scan"
    partial.write_text(NOTE)
    os.replace(partial, root / "bread.md")
    watcher.note([(Change.modified, str(partial)), (Change.deleted, str(partial)), (Change.added, str(root / "bread.md"))])
    assert watcher.changed.get(collection) == {"bread.md"}, watcher.changed
    watcher.flush()
    assert _indexed(collection) == {"tmux.md", "bread.md"}
    after = runtime.index().execute("SELECT max(id) FROM generations").fetchone()[0]
    assert after == before + 1, "one generation for the finished download"


def test_a_browsers_empty_file_beside_its_download_is_skipped_until_the_download_lands(immediate, tmp_path):
    """Firefox shows an empty file of the final name beside 'name.part' while it downloads: a scan read it as an empty
    note, and an empty PDF failed 'unreadable PDF: an empty file'. It is skipped while the partial file stands beside
    it (so are Chrome's '.crdownload' and Safari's '.download' folder), and read by the watcher's scan once the
    download is renamed over it; an empty PDF with no download beside it still fails as before."""
    from search.index import progress_reads
    from workers import runtime, tasks
    root = write_tree(tmp_path / "notes", {"tmux.md": OTHER, "report.pdf": "", "report.pdf.part": "%PDF-1.4 half",
                                           "bread.md": "", "bread.md.crdownload": NOTE[:20], "old.pdf": "",
                                           "s.md": "", "s.md.download/s.md": NOTE[:10]}).resolve()
    collection = ingest(root)["id"]

    def reasons():
        published = runtime.index().execute("SELECT published FROM collections WHERE id = ?",
                                            (collection,)).fetchone()[0]
        return {row["path"]: row["reason"] for row in progress_reads.troubled(runtime.index(), published)}
    found = reasons()
    assert "an empty file" in found.pop("old.pdf"), "an empty PDF alone fails as before"
    assert {path: why.split(" (")[0] for path, why in found.items()} == dict.fromkeys(
        ["bread.md", "report.pdf", "s.md"], "a download under way"), found
    assert "(report.pdf.part)" in found["report.pdf"]
    watcher = _watcher(root)
    (root / "bread.md.crdownload").write_text(NOTE)
    os.replace(root / "bread.md.crdownload", root / "bread.md")
    watcher.note([(Change.deleted, str(root / "bread.md.crdownload")), (Change.added, str(root / "bread.md"))])
    assert watcher.paths(collection) is not None, "a scan of the paths, not a walk"
    watcher.flush()
    assert "bread.md" not in reasons()
    from search.query.engine import Engine
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: None)
    assert "bread.md" in [hit.path for hit in engine.search("sourdough starter rye", mode="keyword").hits]
    (root / "tmux.md").write_text("")  # downloaded again over a note indexed: its version indexed answers meanwhile
    (root / "tmux.md.part").write_text(OTHER[:9])
    tasks.discover(collection)
    assert "tmux.md" in [hit.path for hit in engine.search("split pane percent", mode="keyword").hits]


def _as_on(info, **fields):
    """The fields of the real ``os.stat_result`` ``info``, with ``fields`` that another platform's stat carries
    (macOS' st_flags, Windows' st_file_attributes): Linux's has neither, and an os.stat_result cannot be given a field
    its platform lacks, nor subclassed."""
    from types import SimpleNamespace
    return SimpleNamespace(**{name: getattr(info, name) for name in dir(info) if name.startswith("st_")}, **fields)


def test_a_cloud_only_file_is_told_by_its_platforms_flag(tmp_path):
    """OneDrive's Files On-Demand and macOS' File Provider (iCloud Drive, Dropbox, Google Drive) keep a cloud-only
    note under its own name: only the stat's flag says its bytes are not here (ingest.discover.cloud_only)."""
    from ingest import discover
    note = tmp_path / "note.md"
    note.write_text(NOTE)
    real = os.stat(note)
    assert not discover.cloud_only(real), "a file on this disk"
    if not hasattr(real, "st_flags") and not hasattr(real, "st_file_attributes"):  # Linux: neither field
        with pytest.raises(TypeError):
            type("MacStat", (os.stat_result,), {})  # so the tests below give them to a stand-in of its values
    assert discover.cloud_only(_as_on(real, st_flags=0x40000000))  # macOS: SF_DATALESS
    assert not discover.cloud_only(_as_on(real, st_flags=0x8000 | 0x20))  # UF_HIDDEN, SF_ARCHIVED: on the disk
    for attribute in (0x400000, 0x40000, 0x1000):  # RECALL_ON_DATA_ACCESS, RECALL_ON_OPEN, OFFLINE
        assert discover.cloud_only(_as_on(real, st_file_attributes=0x20 | attribute)), hex(attribute)
    assert not discover.cloud_only(_as_on(real, st_file_attributes=0x20 | 0x80 | 0x400))  # ARCHIVE, NORMAL, PINNED


def test_a_cloud_only_note_is_kept_as_indexed_not_read_and_marked(immediate, tmp_path, monkeypatch):
    """A scan read a cloud-only note whose mtime the sync changed (to hash it) and every note of a first build (to
    parse it), and each read made the system download it. Now an indexed one is kept as indexed and not read, a new
    one is skipped until it is downloaded, and list_files' look (ingest.discover.away) says it is not downloaded.
    The platform's flag cannot be set on Linux: cloud_only is given the stat as macOS gives it for these files."""
    from ingest import discover
    from search.index import collection_reads, file_reads, progress_reads
    from workers import runtime, tasks
    root = write_tree(tmp_path / "notes", {"bread.md": NOTE, "tmux.md": OTHER}).resolve()
    collection = ingest(root)["id"]
    (root / "bread.md").write_text(NOTE.replace("rye", "spelt"))  # edited on the phone: its mtime and size came
    (root / "new.md").write_text(NOTE)
    freed = {os.stat(root / "bread.md").st_ino, os.stat(root / "new.md").st_ino}
    told = discover.cloud_only
    monkeypatch.setattr(discover, "cloud_only", lambda info: told(
        _as_on(info, st_flags=0x40000000 if info.st_ino in freed else 0)))
    tasks.discover(collection)
    assert _indexed(collection) == {"bread.md", "tmux.md"}, "kept, not deleted; the new one not indexed"
    conn = runtime.index()
    assert file_reads.current_files(conn, collection)["bread.md"]["size"] == len(NOTE), "the version indexed, unread"
    published = collection_reads.get_collection(conn, collection)["published"]
    reasons = {row["path"]: row["reason"] for row in progress_reads.troubled(conn, published)}
    assert reasons == {"new.md": discover.CLOUD_ONLY}, reasons
    assert discover.away(root, "bread.md") and not discover.away(root, "tmux.md")
    freed.clear()  # downloaded: read as any note
    tasks.discover(collection)
    assert _indexed(collection) == {"bread.md", "tmux.md", "new.md"}
    assert file_reads.current_files(conn, collection)["bread.md"]["size"] == len(NOTE.replace("rye", "spelt"))


def test_a_freed_note_read_again_for_a_new_model_says_why(immediate, tmp_path):
    """A new model reads every file again (a new chunk size does not read a freed note: its passages stand): a freed
    note failed 'file vanished before it could be read', as if deleted mid-scan. It says it is not downloaded."""
    from workers import tasks
    root = write_tree(tmp_path / "notes", {"bread.md": NOTE, "tmux.md": OTHER}).resolve()
    ingest(root)
    (root / "bread.md").unlink()
    assert tasks._read(root, "bread.md")[1] == "file vanished before it could be read"
    (root / ".bread.md.icloud").write_bytes(b"bplist00")
    assert tasks._read(root, "bread.md") == ("failed", tasks.FREED, False)


RYE = "# Rye bread\n\nA dense loaf of rye flour, caraway and a long proof.\n"


@pytest.mark.parametrize("scan", ["walk", "watcher"])
def test_a_freed_note_in_a_folder_renamed_elsewhere_moves_with_it(immediate, tmp_path, scan):
    """A folder renamed on the phone moves a freed note's placeholder with it (bread/.sourdough.md.icloud to
    baking/.sourdough.md.icloud): the scan kept a freed note only at its old path and found renames by reading the
    new file, which is not on this disk, so the note left the index (bench/synced_folder.py: 3 of 40 missing). Its
    passages move to the new path as indexed, nothing read nor embedded: search finds it there, read_file says it
    is not downloaded, and stats counts it, by the scan of the paths the watcher saw and by a walk alike."""
    from mcp_server.errors import Problem
    from mcp_server.read_target import refuse_deleted
    from search.index import collection_reads, file_reads, progress_reads, status
    from search.query.engine import Engine
    from workers import runtime, tasks
    root = write_tree(tmp_path / "notes", {"bread/sourdough.md": NOTE + "\nAs for [the rye](rye.md).\n",
                                           "bread/rye.md": RYE, "tmux.md": OTHER}).resolve()
    collection = ingest(root)["id"]
    (root / "bread/sourdough.md").unlink()
    (root / "bread/.sourdough.md.icloud").write_bytes(b"bplist00\x00")
    tasks.discover(collection)
    conn = runtime.index()
    assert "  1 file not downloaded on this machine, kept in the cloud by a sync client: it answers as indexed" \
        in _stats_text(conn).splitlines(), "stats counts it, from what the scan recorded"
    watcher = _watcher(root) if scan == "watcher" else None
    os.rename(root / "bread", root / "baking")
    if watcher:
        watcher.note([(Change.deleted, str(root / "bread")), (Change.added, str(root / "baking"))])
        assert watcher.paths(collection) is not None, "a scan of the paths, not a walk"
        watcher.flush()
    else:
        tasks.discover(collection)
    assert _indexed(collection) == {"baking/sourdough.md", "baking/rye.md", "tmux.md"}
    published = collection_reads.get_collection(conn, collection)["published"]
    row = conn.execute("SELECT change, stage, state, chunks, embedded FROM progress WHERE generation = ? AND path = ?",
                       (published, "baking/sourdough.md")).fetchone()
    assert tuple(row) == ("renamed", "write", "done", 1, 0), "moved as indexed: not read, nothing embedded"
    assert [dict(r) for r in progress_reads.troubled(conn, published)] == []
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: None)
    assert [hit.path for hit in engine.search("sourdough starter", mode="keyword").hits] == ["baking/sourdough.md"]
    with pytest.raises(Problem, match=r"^notes/baking/sourdough\.md is not downloaded to this disk"):
        refuse_deleted(conn, "notes/baking/sourdough.md", {"notes": str(root)})
    assert status.collect(conn)["collections"][0]["not_downloaded"] == 1, "counted at its new path, once"
    assert file_reads.away_paths(conn, collection) == {"baking/sourdough.md"}
    moved = file_reads.current_files(conn, collection)["baking/sourdough.md"]["id"]
    assert [r[0] for r in conn.execute("SELECT target FROM links WHERE file = ?", (moved,))] == ["baking/rye.md"], \
        "its link beside it, as reading it there would resolve it"
    tasks.discover(collection)  # the next walk keeps it there, as any freed note
    assert _indexed(collection) == {"baking/sourdough.md", "baking/rye.md", "tmux.md"}
    (root / "baking/.sourdough.md.icloud").unlink()
    (root / "baking/sourdough.md").write_text(NOTE)  # downloaded: a note as any other, no longer counted
    tasks.discover(collection)
    assert status.collect(conn)["collections"][0]["not_downloaded"] == 0
    assert "not downloaded" not in _stats_text(conn)


def _stats_text(conn) -> str:
    """``ingest stats`` as the CLI renders it."""
    from search.settings import load
    from workers import stats
    return stats.render(stats.gather(conn, load(), {}), stats.CLI)


def test_a_deleted_note_is_not_taken_for_a_freed_one_moved_unless_one_alone_matches(tmp_path):
    """ingest.freed_moves pairs a note gone with a placeholder of its name elsewhere; where several notes share
    the name, by the folders their paths end in alike (a folder renamed), and not where two are equally likely."""
    from ingest.freed_moves import moves
    assert moves(["old/a.md", "old/x/README.md", "old/y/README.md"],
                 ["new/a.md", "new/x/README.md", "new/y/README.md"]) == {
        "new/a.md": "old/a.md", "new/x/README.md": "old/x/README.md", "new/y/README.md": "old/y/README.md"}
    assert moves(["a/todo.md", "b/todo.md"], ["c/todo.md"]) == {}, "which of the two moved?"
    assert moves(["a/todo.md"], ["c/todo.md", "d/todo.md"]) == {}, "moved to which?"
    assert moves(["a/todo.md"], ["c/plan.md"]) == {}, "another note"


def test_a_note_deleted_on_the_phone_is_not_taken_for_another_of_its_name_come_freed(immediate, tmp_path):
    """todo.md deleted on the phone (its placeholder gone) while another todo.md, never downloaded here, came freed in
    another folder: the scan took it for moved, and search showed the deleted note's passages at the other's path.
    Paths sharing the file name alone are paired only where the old note's folder is gone too (a folder renamed)."""
    from ingest.freed_moves import moves
    from search.query.engine import Engine
    from workers import tasks
    root = write_tree(tmp_path / "notes", {"work/todo.md": "# Todo\n\nRenew the passport before March.\n",
                                           "work/plan.md": OTHER, "tmux.md": OTHER}).resolve()
    collection = ingest(root)["id"]
    (root / "work/todo.md").unlink()
    (root / "work/.todo.md.icloud").write_bytes(b"bplist00\x00")
    tasks.discover(collection)
    (root / "work/.todo.md.icloud").unlink()  # deleted on the phone
    (root / "home").mkdir()
    (root / "home/.todo.md.icloud").write_bytes(b"bplist00\x00")  # another todo.md, made on the phone
    tasks.discover(collection)
    assert _indexed(collection) == {"work/plan.md", "tmux.md"}, "the deleted note is gone, not moved to home/"
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: None)
    assert engine.search("passport", mode="keyword").hits == []
    assert moves(["work/todo.md"], ["home/todo.md"], lambda folder: folder == "work") == {}
    assert moves(["work/todo.md"], ["home/todo.md"], lambda folder: False) == {"home/todo.md": "work/todo.md"}, \
        "its folder went too: renamed"
    assert moves(["a/work/todo.md"], ["b/work/todo.md"], lambda folder: True) == {"b/work/todo.md": "a/work/todo.md"}


def test_many_placeholders_are_grouped_by_name_not_compared_each_with_each(monkeypatch):
    # a vault of notes freed before they were indexed: each scan with one indexed note gone looked at every other
    # placeholder for each one (20,000 placeholders: 236 s a scan)
    from ingest import freed_moves as moves_module
    calls = []
    name = moves_module._name
    monkeypatch.setattr(moves_module, "_name", lambda path: calls.append(path) or name(path))
    standing = [f"vault/d{i % 50}/note{i}.md" for i in range(2_000)] + ["new/gone.md"]
    assert moves_module.moves(["old/gone.md"], standing) == {"new/gone.md": "old/gone.md"}
    assert len(calls) < 5 * len(standing)


def test_a_scan_of_other_paths_keeps_the_count_of_notes_not_downloaded(immediate, tmp_path):
    """record_away replaces only the rows of the paths a watcher's scan read: a save of another note left stats
    counting no freed note, had it replaced them all (no test broke with the restriction removed)."""
    from search.index import status
    from workers import runtime, tasks
    root = write_tree(tmp_path / "notes", {"bread/sourdough.md": NOTE, "bread/rye.md": RYE, "tmux.md": OTHER}).resolve()
    collection = ingest(root)["id"]
    for name in ("sourdough", "rye"):
        (root / f"bread/{name}.md").unlink()
        (root / f"bread/.{name}.md.icloud").write_bytes(b"bplist00\x00")
    tasks.discover(collection)
    conn = runtime.index()
    assert status.collect(conn)["collections"][0]["not_downloaded"] == 2
    watcher = _watcher(root)
    (root / "tmux.md").write_text(OTHER + "\nResize with prefix and the arrows.\n")
    watcher.note([(Change.modified, str(root / "tmux.md"))])
    assert watcher.paths(collection) is not None, "a scan of the paths, not a walk"
    watcher.flush()
    assert status.collect(conn)["collections"][0]["not_downloaded"] == 2, "the freed notes outside it still counted"
