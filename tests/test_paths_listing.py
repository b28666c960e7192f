"""Collection names, Unicode normal forms, folder prefixes and list_files, against the real sift-mcp over stdio.

Issue 12, defects 4, 6, 7, 8 and 9: names that make 'collection/path' ambiguous are refused (and old
ones flagged with the fix); a path in NFC finds a file named in NFD; path_prefix means a folder; list_files
filters, sorts and limits in SQL and looks on disk only at what it shows; a refused link is described as
the link it is, and a symlinked folder is listed as skipped with its reason.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
import unicodedata

import pytest

from search.index import db, store
from tests.conftest import VENV_BIN, ingest, run_ingest, run_ingest_here, write_tree
from tests.test_mcp_server import call, run, text


def nfd(s: str) -> str:
    return unicodedata.normalize("NFD", s)


def index(env) -> "db.sqlite3.Connection":
    return db.connect(os.path.join(env["SIFT_HOME"], "index.db"))


# --- collection names -------------------------------------------------------------------------------

BAD_NAMES = ["my/notes", "", ".", "..", " notes", "notes ", "back\\slash", "new\nline", "nul\x00", "tab\tname"]


def test_names_that_make_collection_paths_ambiguous_are_refused(sift_env, tmp_path, capsys):
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nalpha\n"})
    for name in BAD_NAMES:
        if "\x00" in name:
            with pytest.raises(ValueError, match="cannot be used"):  # argv cannot carry a NUL: the API refuses it
                store.ensure_collection(index(sift_env), name, str(root))
            continue
        # the first as a real process; the others in this one (a process each took 3 s on a busy machine)
        result = run_ingest(sift_env, "enqueue", str(root), "--name", name) if name == BAD_NAMES[0] else \
            run_ingest_here(capsys, "enqueue", str(root), "--name", name)
        assert result.returncode == 2, (name, result.stderr)
        line = result.stderr.strip()
        assert line.startswith("ingest: error: collection name") and "cannot be used" in line, (name, line)
        assert "--name" in line and len(line.splitlines()) == 1 and "Traceback" not in line
    odd = write_tree(tmp_path / "odd\\folder", {"b.md": "# B\n\nbeta\n"})
    server = subprocess.run([str(VENV_BIN / "sift-mcp"), "--root", str(odd), "--no-worker"], env=sift_env,
                            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    assert server.returncode == 0 and server.stdout == "", "served all the same (test_mcp_server: every answer says so)"
    assert "cannot be used" in server.stderr and "--name" in server.stderr and "Traceback" not in server.stderr
    names = [r["name"] for r in index(sift_env).execute("SELECT name FROM collections")] \
        if os.path.exists(os.path.join(sift_env["SIFT_HOME"], "index.db")) else []
    assert names == [], "nothing was registered"


def test_an_existing_bad_name_is_flagged_with_the_fix_and_renamed(immediate, sift_env, tmp_path, servers):
    root = write_tree(tmp_path / "notes", {"x.md": "# X\n\nthe xylophone note\n"})
    ingest(root, "mynotes")
    conn = index(sift_env)
    with db.transaction(conn):  # as an index made before such names were refused holds it
        conn.execute("UPDATE collections SET name = 'my/notes'")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return (await call(s, "stats"), await call(s, "read_file", path="my/notes/x.md"),
                    await call(s, "search", query="xylophone", mode="keyword"))
    stats, read, search = run(scenario)
    cli = run_ingest(sift_env, "stats")
    for said in (text(stats), cli.stdout):
        assert "collection name 'my/notes' makes 'collection/path' ambiguous" in said
        assert f"ingest enqueue {root} --name NEWNAME" in said
    assert not read.is_error and "xylophone" in text(read), "the longest collection name wins meanwhile"
    assert search.structured_content["results"][0]["path"] == "my/notes/x.md"

    renamed = run_ingest(sift_env, "enqueue", str(root), "--name", "my-notes")
    assert renamed.returncode == 0, renamed.stderr
    assert [r["name"] for r in index(sift_env).execute("SELECT name FROM collections")] == ["my-notes"]
    assert "ambiguous" not in run_ingest(sift_env, "stats").stdout
    from search.query.engine import Engine
    assert Engine(os.path.join(sift_env["SIFT_HOME"], "index.db"), None).search(
        "xylophone", mode="keyword").hits[0].path == "x.md"


# --- Unicode normal forms and folder prefixes -------------------------------------------------------------

def test_paths_in_nfc_find_files_named_in_nfd(immediate, sift_env, tmp_path, servers):
    root = write_tree(tmp_path / "notes", {
        nfd("résumés/café.md"): "# Café\n\nThe espresso machine in the café needs descaling.\n",
        "résumés/thé.md": "# Thé\n\nGreen tea, steeped three minutes, tastes of the espresso's calmer cousin.\n",
        "other/plain.md": "# Plain\n\nnothing about coffee here\n"})
    assert nfd("résumés") in os.listdir(root) and "résumés" in os.listdir(root), "two folders, one per form"
    ingest(root, "notes")
    wanted = "notes/résumés/café.md"  # NFC, as a client types it

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return (await call(s, "read_file", path=wanted), await call(s, "read_file", path="café.md"),
                    await call(s, "similar", path=wanted, limit=2),
                    await call(s, "list_files", path_prefix="résumés", sort="path"),
                    await call(s, "list_files", glob="café*", sort="path"),
                    await call(s, "search", query="espresso", mode="keyword", path_prefix="résumés/"))
    read, bare, similar, prefix, glob, search = run(scenario)
    assert not read.is_error and "descaling" in text(read), text(read)
    assert read.structured_content["path"] == "notes/" + nfd("résumés/café.md"), "named as it is on disk"
    assert not bare.is_error and "descaling" in text(bare), text(bare)
    assert not similar.is_error and similar.structured_content["results"], text(similar)
    listed = {f["path"].split("/", 1)[1] for f in prefix.structured_content["files"]}
    assert listed == {nfd("résumés/café.md"), "résumés/thé.md"}, "a folder in either form"
    assert [f["path"].split("/", 1)[1] for f in glob.structured_content["files"]] == [nfd("résumés/café.md")]
    assert {r["path"] for r in search.structured_content["results"]} == {
        "notes/" + nfd("résumés/café.md"), "notes/résumés/thé.md"}


def test_a_collection_named_in_nfd_is_found_by_its_name_in_nfc(immediate, sift_env, tmp_path, servers):
    """A folder macOS named 'résumés' (NFD) gives its collection that name; a client types it in NFC, and
    search, list_files and refresh refused it as "no collection named 'résumés'; collections: résumés"."""
    root = write_tree(tmp_path / "cv", {"x/cv.md": "# CV\n\nmy curriculum vitae\n"})
    ingest(root, nfd("résumés"))
    wanted = "résumés"  # NFC

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return (await call(s, "search", query="curriculum", mode="keyword", collection=wanted),
                    await call(s, "list_files", collection=wanted, path_prefix="x"),
                    await call(s, "refresh", collection=wanted))
    search, listed, refresh = run(scenario)
    assert not search.is_error, text(search)
    assert [r["path"] for r in search.structured_content["results"]] == [nfd("résumés") + "/x/cv.md"]
    assert not listed.is_error and [f["path"] for f in listed.structured_content["files"]] == [
        nfd("résumés") + "/x/cv.md"], text(listed)
    assert not refresh.is_error and refresh.structured_content["queued"] == [nfd("résumés")], text(refresh)


def test_path_prefix_is_a_folder_not_a_string_prefix(immediate, sift_env, tmp_path, servers):
    root = write_tree(tmp_path / "notes", {"tech/sqlite.md": "# SQLite\n\nwal mode readers\n",
                                           "tech/deep/more.md": "# More\n\nwal checkpoints\n",
                                           "technology/history.md": "# History\n\nwal of the past\n",
                                           "tech.md": "# Tech\n\nwal notes index\n"})
    ingest(root, "notes")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            out = {}
            for prefix in ("tech", "tech/", "/tech/", "./tech"):
                out[prefix] = (await call(s, "search", query="wal", mode="keyword", path_prefix=prefix),
                               await call(s, "list_files", path_prefix=prefix, sort="path"))
            out["glob"] = await call(s, "list_files", glob="tech*", sort="path")
            return out
    out = run(scenario)
    folder = {"notes/tech/sqlite.md", "notes/tech/deep/more.md"}
    for prefix in ("tech", "tech/", "/tech/", "./tech"):
        search, listed = out[prefix]
        assert {r["path"] for r in search.structured_content["results"]} == folder, prefix
        assert {f["path"] for f in listed.structured_content["files"]} == folder, prefix
    assert [f["path"].split("/", 1)[1] for f in out["glob"].structured_content["files"]] == [
        "tech.md", "tech/deep/more.md", "tech/sqlite.md", "technology/history.md"], "glob is the name prefix"


def test_dot_and_empty_parts_of_path_prefix_mean_what_they_mean_on_disk(immediate, sift_env, tmp_path, servers):
    """'.' is the root and 'tech/.', 'tech//deep', 'tech/./deep' the folders they name on disk: they matched no
    indexed path, and as the folder exists, 0 results came with no note saying why."""
    root = write_tree(tmp_path / "notes", {"tech/sqlite.md": "# SQLite\n\nwal mode readers\n",
                                           "tech/deep/more.md": "# More\n\nwal checkpoints\n",
                                           "other.md": "# Other\n\nwal elsewhere\n"})
    ingest(root, "notes")
    everything = {"notes/tech/sqlite.md", "notes/tech/deep/more.md", "notes/other.md"}
    expected = {".": everything, "./.": everything, "tech/.": {"notes/tech/sqlite.md", "notes/tech/deep/more.md"},
                "tech//deep": {"notes/tech/deep/more.md"}, "./tech/./deep/": {"notes/tech/deep/more.md"},
                "notes/./tech/deep": {"notes/tech/deep/more.md"}}

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return {prefix: (await call(s, "search", query="wal", mode="keyword", path_prefix=prefix),
                             await call(s, "list_files", path_prefix=prefix, sort="path")) for prefix in expected}
    out = run(scenario)
    for prefix, paths in expected.items():
        search, listed = out[prefix]
        assert {r["path"] for r in search.structured_content["results"]} == paths, (prefix, text(search))
        assert {f["path"] for f in listed.structured_content["files"]} == paths, (prefix, text(listed))


# --- list_files: SQL first, disk last, links as links -----------------------------------------------------

def test_list_files_looks_on_disk_only_at_the_files_it_shows(sift_env, tmp_path, servers):
    """2,000 files pending (discovered, not yet parsed): limit=3 stats a handful, not 2,000. Counted with
    strace on the live server; skipped where strace is missing or may not attach."""
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed: cannot count the server's stat calls")
    root = write_tree(tmp_path / "many", {f"d{i % 20}/n{i:04d}.md": f"# N{i}\n\nnote {i}\n" for i in range(2000)})
    conn = index(sift_env)
    collection = store.ensure_collection(conn, "many", str(root))
    gen = store.begin_generation(conn, collection["id"], None)
    changes = {f"d{i % 20}/n{i:04d}.md": "added" for i in range(2000)}
    store.record_plan(conn, gen, collection["id"], changes, {}, len(changes))
    os.utime(root / "d7/n0007.md", (time.time() + 60, time.time() + 60))

    async def scenario():
        from tests.test_read_file import sift_mcp_pid
        async with servers.session(sift_env, "--no-worker") as s:
            await call(s, "list_files", limit=1)  # warm: the first call opens the index
            log = tmp_path / "strace.log"
            tracer = subprocess.Popen([strace, "-f", "-qq", "-e", "trace=newfstatat,statx,stat,lstat", "-o", str(log),
                                       "-p", str(sift_mcp_pid())], stderr=subprocess.DEVNULL)
            time.sleep(1.0)  # strace needs a moment to attach; not a speed measure
            if tracer.poll() is not None:
                pytest.skip("strace could not attach to the server (ptrace not permitted here)")
            by_path = await call(s, "list_files", sort="path", limit=3)
            by_time = await call(s, "list_files", limit=3)
            time.sleep(0.5)
            tracer.send_signal(signal.SIGINT)
            tracer.wait(timeout=30)
            return by_path, by_time, log.read_text()
    by_path, by_time, trace = run(scenario)
    stats_of_notes = [line for line in trace.splitlines() if "/many/" in line]
    assert len(stats_of_notes) <= 12, f"{len(stats_of_notes)} stat calls on the notes for 6 files shown"
    assert by_path.structured_content["total"] == 2000
    assert [f["path"] for f in by_path.structured_content["files"]] == ["many/d0/n0000.md", "many/d0/n0020.md",
                                                                        "many/d0/n0040.md"]
    for f in by_path.structured_content["files"]:
        assert f["state"] == "pending" and f["size"] == len(f"# N{int(f['path'][-7:-3])}\n\nnote "
                                                            f"{int(f['path'][-7:-3])}\n")
    assert all(f["state"] == "pending" for f in by_time.structured_content["files"])


def test_refused_links_are_described_as_links_and_linked_folders_are_skipped(immediate, sift_env, tmp_path,
                                                                             servers):
    outside = write_tree(tmp_path / "outside", {"big-secret.txt": "S" * 123_456, "dir/inner.md": "# In\n\nin\n"})
    root = write_tree(tmp_path / "notes", {"note.md": "# Note\n\nfine\n"})
    os.symlink(outside / "big-secret.txt", root / "leak.txt")
    os.symlink(outside / "dir", root / "leakdir")
    os.symlink(root, root / "loopdir")
    ingest(root, "notes")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return await call(s, "list_files", sort="path"), await call(s, "stats")
    listed, stats = run(scenario)
    files = {f["path"].split("/", 1)[1]: f for f in listed.structured_content["files"]}
    leak = files["leak.txt"]
    assert leak["state"] == "skipped" and "outside the collection root" in leak["reason"]
    assert leak["size"] == len(str(outside / "big-secret.txt")), "the link's own size (lstat), not its target's"
    assert leak["modified"] == time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(os.lstat(root / "leak.txt").st_mtime))
    assert files["leakdir"]["state"] == "skipped"
    assert "symbolic link to a folder outside the collection root" in files["leakdir"]["reason"]
    assert files["loopdir"]["state"] == "skipped" and "symbolic link to a folder" in files["loopdir"]["reason"]
    assert "leakdir/inner.md" not in files and "123.5 KB" not in text(listed)
    assert "leakdir: skipped" in text(stats)


def test_path_prefix_takes_paths_as_results_show_them(immediate, sift_env, tmp_path, servers):
    """Results show 'collection/relative/path': that form and an absolute path inside a root work as
    path_prefix; a folder named like the collection that exists as written is read as written (with a note
    on how to ask for the other); forms that match nothing say how to write them, glob too."""
    root = write_tree(tmp_path / "notes", {"tech/sqlite.md": "# SQLite\n\nwal mode readers\n",
                                           "tech/deep/more.md": "# More\n\nwal checkpoints\n",
                                           "home.md": "# Home\n\nwal paper\n"})
    work = write_tree(tmp_path / "work", {"notes/misc/meeting.md": "# Meeting\n\nwal minutes\n",
                                          "plan.md": "# Plan\n\nwal plan\n"})
    ingest(root, "notes")
    ingest(work, "work")
    tech = {"notes/tech/sqlite.md", "notes/tech/deep/more.md"}
    asked = {"collection form": dict(path_prefix="notes/tech/"),
             "collection form, collection given": dict(path_prefix="notes/tech", collection="notes"),
             "absolute": dict(path_prefix=str(root / "tech")),
             "absolute root": dict(path_prefix=str(root) + "/"),
             "as written": dict(path_prefix="notes/misc", collection="work"),
             "outside": dict(path_prefix=str(tmp_path / "elsewhere")),
             "other collection": dict(path_prefix="work/plan.md", collection="notes"),
             "absolute, other collection": dict(path_prefix=str(work / "plan.md"), collection="notes")}

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            out = {}
            for label, args in asked.items():
                out[label] = (await call(s, "search", query="wal", mode="keyword", limit=20, **args),
                              await call(s, "list_files", sort="path", **args))
            out["ambiguous"] = await call(s, "list_files", path_prefix="notes/misc", sort="path")
            out["glob"] = await call(s, "list_files", glob="notes/tech/*", collection="notes")
            return out
    out = run(scenario)

    def found(label):
        search, listed = out[label]
        paths = {r["path"] for r in search.structured_content["results"]}
        assert paths == {f["path"] for f in listed.structured_content["files"]}, label
        return paths
    for label in ("collection form", "collection form, collection given", "absolute"):
        assert found(label) == tech, label
    assert found("absolute root") == tech | {"notes/home.md"}
    assert "read as" not in text(out["collection form"][0]), "'notes/tech' is read as its paths show it"
    assert "read as collection 'notes', folder 'tech'" in text(out["absolute"][1])
    assert found("as written") == {"work/notes/misc/meeting.md"}, "collection work: its folder notes/misc"
    assert [f["path"] for f in out["ambiguous"].structured_content["files"]] == ["work/notes/misc/meeting.md"]
    assert "exists as written; for collection 'notes', folder 'misc', pass collection='notes' and " \
           "path_prefix='misc' instead" in text(out["ambiguous"])
    for label, hint in (("outside", "is not inside an indexed folder"),
                        ("other collection", "begins with the collection name 'work' but collection is 'notes'"),
                        ("absolute, other collection", "lies in collection 'work', folder 'plan.md', but collection is 'notes'")):
        assert found(label) == set(), label
        for result in out[label]:
            assert hint in text(result) and any(hint in n for n in result.structured_content["notes"]), label
    assert "collection='notes' and glob='tech/*'" in text(out["glob"])


def test_a_folder_that_is_in_no_root_is_said_so(immediate, sift_env, tmp_path, servers):
    """path_prefix='nothing/here' (or 'notes/tehc', or an absolute path to a missing folder) answered a bare 'no
    files match': nothing said the folder was not there at all. A folder that exists but holds no match, and one
    that matches, get no such note. A typo'd folder is told the nearest folder beside it, written as it was
    given ('notes/tech'): among 1,800 files, the listing the note points to showed the first 50, not the typo."""
    ingest(write_tree(tmp_path / "notes", {"tech/sqlite.md": "# SQLite\n\nwal mode readers\n",
                                          "empty/x.md": "# X\n\nnothing\n"}), "notes")
    ingest(write_tree(tmp_path / "work", {"plan.md": "# Plan\n\nwal\n"}), "work")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return {args: (await call(s, "search", query="wal", mode="keyword", path_prefix=args[0],
                                      collection=args[1]),
                           await call(s, "list_files", path_prefix=args[0], collection=args[1]))
                    for args in (("nothing/here", None), ("tech", "work"), ("empty", None), ("tech", None),
                                 ("notes/tehc", None), (str(tmp_path / "notes" / "tehc"), None))}
    out = run(scenario)
    for result in out[("nothing/here", None)]:
        assert "path_prefix 'nothing/here': there is no folder 'nothing/here' in any collection (notes, work); " \
               "list_files with sort='path' shows the folders there are" in text(result), text(result)
    for result in out[("tech", "work")]:
        assert "there is no folder 'tech' in collection 'work'" in text(result), text(result)
    assert "no folder" not in text(out[("empty", None)][0]) and "no folder" not in text(out[("tech", None)][0])
    for prefix in ("notes/tehc", str(tmp_path / "notes" / "tehc")):  # a typo in the collection form, or absolute
        for result in out[(prefix, None)]:
            # the absolute path's note says how it was read; 'notes/tehc' is read as written (the hint names both)
            assert ("read as collection 'notes', folder 'tehc'" in text(result)) == (prefix != "notes/tehc"), \
                text(result)
            assert "there is no folder 'tehc' in collection 'notes' (did you mean " \
                   f"'{prefix[:-len('tehc')]}tech'?)" in text(result), text(result)
    assert "did you mean" not in text(out[("nothing/here", None)][0]), "no folder 'nothing' to look in"


def test_a_folder_given_with_its_chinese_in_the_other_script_is_read_as_the_folder_there(immediate, sift_env,
                                                                                          tmp_path, servers):
    """path_prefix='論文' for the folder 论文/ (or 'notes/笔记' for 筆記/) found nothing, 'there is no folder': a
    researcher's folders are named in one script, the query in the other, as read_file reads a path so. Now read as
    the folder on disk, with a note saying so; a folder there as written is read as written."""
    ingest(write_tree(tmp_path / "notes", {"论文/综述.md": "# 综述\n\n实体链接错误占百分之四十一\n",
                                          "筆記/斷詞.md": "# 斷詞\n\n實體鏈接與斷詞\n",
                                          "论文集/别的.md": "# 别的\n\n实体链接\n"}), "notes")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return {prefix: (await call(s, "search", query="实体链接", mode="keyword", path_prefix=prefix),
                             await call(s, "list_files", path_prefix=prefix))
                    for prefix in ("論文", "notes/笔记", "笔记/", "论文")}
    out = run(scenario)
    for prefix, folder, path, note in (("論文", "论文", "notes/论文/综述.md", "read as the folder '论文'"),
                                       ("notes/笔记", "筆記", "notes/筆記/斷詞.md",
                                        "read as collection 'notes', folder '筆記'"),
                                       ("笔记/", "筆記", "notes/筆記/斷詞.md", "read as the folder '筆記'")):
        found, listed = out[prefix]
        assert [hit["path"] for hit in found.structured_content["results"]] == [path], text(found)
        assert [f["path"] for f in listed.structured_content["files"]] == [path], text(listed)
        for result in (found, listed):
            assert f"path_prefix {prefix!r} {note}" in text(result) and "its Chinese in the other script" \
                in text(result) and "no folder" not in text(result), text(result)
    assert "other script" not in text(out["论文"][0]), text(out["论文"][0])


def test_path_prefix_with_dot_dot_says_why_it_matches_nothing(immediate, sift_env, tmp_path, servers):
    """A relative path_prefix with a '..' part can match no indexed path (they have none): search and list_files
    say so and how to write it, instead of a bare 'no passages match'. An absolute one is resolved as before."""
    root = write_tree(tmp_path / "notes", {"tech/sqlite.md": "# SQLite\n\nwal mode readers\n"})
    ingest(root, "notes")
    prefixes = ["..", "../tech", "notes/../notes/tech", "tech/..", "../../etc"]

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            out = [(await call(s, "search", query="wal", mode="keyword", path_prefix=p),
                    await call(s, "list_files", path_prefix=p)) for p in prefixes]
            absolute = await call(s, "search", query="wal", mode="keyword", path_prefix=str(root / "x" / ".." / "tech"))
            return out, absolute
    out, absolute = run(scenario)
    for prefix, results in zip(prefixes, out):
        for result in results:
            assert not result.is_error
            assert f"path_prefix {prefix!r} has a '..' part" in text(result), text(result)
    assert [r["path"] for r in absolute.structured_content["results"]] == ["notes/tech/sqlite.md"]
