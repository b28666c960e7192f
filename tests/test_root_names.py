"""read_file of a bare name a collection's root holds ('todo.md'), where folders hold others of that name: the
root's file, as a path relative to a root, saying how many others there are and the list_files call showing them.
It returned the candidates, the root's among them."""
from __future__ import annotations

from tests.conftest import ingest, write_tree
from tests.test_mcp_server import call, run, text


def test_a_bare_name_at_a_root_reads_that_file_and_names_the_others(immediate, tmp_path, sift_env, servers):
    ingest(write_tree(tmp_path / "notes", {"todo.md": "# Todo\n\nRenew the passport.\n",
                                           "a/todo.md": "# Todo A\n\nBuy stamps.\n",
                                           "b/todo.md": "# Todo B\n\nCall the plumber.\n",
                                           "a/only.md": "# Only\n\nOne of a kind.\n"}), "notes")
    ingest(write_tree(tmp_path / "code", {"lib/todo.md": "# Code todo\n\nFix the parser.\n"}), "code")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return (await call(s, "read_file", path="todo.md"), await call(s, "read_file", path="only.md"))
    root, unique = run(scenario)
    assert not root.is_error and root.structured_content["path"] == "notes/todo.md", text(root)
    assert "Renew the passport." in text(root)
    assert text(root).endswith("[read notes/todo.md, at its collection's root; 3 other files called 'todo.md': "
                               "list_files(glob='todo.md') shows them]"), text(root)
    assert "One of a kind." in text(unique) and "other file" not in text(unique), text(unique)


def test_a_bare_name_at_two_roots_still_gives_the_candidates(immediate, tmp_path, sift_env, servers):
    ingest(write_tree(tmp_path / "notes", {"todo.md": "# Todo\n\nRenew the passport.\n"}), "notes")
    ingest(write_tree(tmp_path / "work", {"todo.md": "# Work todo\n\nFile the report.\n"}), "work")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return await call(s, "read_file", path="todo.md")
    both = run(scenario)
    assert both.structured_content["candidates"] == ["notes/todo.md", "work/todo.md"], text(both)


def test_a_bare_name_under_a_root_inside_another_counts_no_file_twice(immediate, tmp_path, sift_env, servers):
    # personal/todo.md and all/personal/todo.md are one file; only.md and sub/deep.md have no other of their name
    home = tmp_path / "home"
    write_tree(home / "personal", {"todo.md": "# Todo\n\nRenew the passport.\n",
                                   "only.md": "# Only\n\nOne of a kind.\n",
                                   "sub/deep.md": "# Deep\n\nDown below.\n"})
    write_tree(home / "projects", {"todo.md": "# Project todo\n\nShip it.\n"})
    ingest(home / "personal", "personal")
    ingest(home, "all")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return [await call(s, "read_file", path=p) for p in ("todo.md", "only.md", "deep.md")]
    todo, only, deep = run(scenario)
    assert todo.structured_content["path"] == "personal/todo.md", text(todo)
    assert text(todo).endswith("[read personal/todo.md, at its collection's root; 1 other file called 'todo.md': "
                               "list_files(glob='todo.md') shows them]"), text(todo)
    assert "One of a kind." in text(only) and "other file" not in text(only), text(only)
    assert "Down below." in text(deep) and "other file" not in text(deep), text(deep)


def test_the_list_files_call_named_for_a_bare_name_with_brackets_lists_the_files_of_that_name(
        immediate, tmp_path, sift_env, servers):
    import re
    ingest(write_tree(tmp_path / "web", {"[id].md": "# Root id\n\nThe root page.\n",
                                         "posts/[id].md": "# Post id\n\nA post page.\n",
                                         "users/[id].md": "# User id\n\nA user page.\n",
                                         "i.md": "# I\n\nThe letter i.\n", "d.md": "# D\n\nThe letter d.\n"}), "web")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            read = await call(s, "read_file", path="[id].md")
            glob = re.search(r"list_files\(glob='([^']*)'\) shows them\]$", text(read))
            return read, glob and await call(s, "list_files", glob=glob.group(1), sort="path")
    read, listed = run(scenario)
    assert "The root page." in text(read) and "2 other files called '[id].md'" in text(read), text(read)
    assert listed is not None, text(read)
    assert [f["path"] for f in listed.structured_content["files"]] == [
        "web/[id].md", "web/posts/[id].md", "web/users/[id].md"], text(listed)


def test_a_bare_name_at_a_root_counts_the_others_in_the_other_normal_form(immediate, tmp_path, sift_env, servers):
    # the files are named in NFD on disk (as macOS writes them), the name asked for is in NFC
    import unicodedata
    nfd = unicodedata.normalize("NFD", "café.md")
    ingest(write_tree(tmp_path / "notes", {nfd: "# Café\n\nThe corner one.\n",
                                           f"paris/{nfd}": "# Café Paris\n\nBy the river.\n"}), "notes")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return await call(s, "read_file", path=unicodedata.normalize("NFC", "café.md"))
    read = run(scenario)
    assert "The corner one." in text(read), text(read)
    assert "; 1 other file called 'café.md'" in text(read), text(read)


def test_the_line_on_other_files_of_a_bare_name_shows_a_newline_in_it_escaped(immediate, tmp_path, sift_env, servers):
    ingest(write_tree(tmp_path / "notes", {"odd\nname.md": "# Odd\n\nAt the root.\n",
                                           "a/odd\nname.md": "# Odd A\n\nIn a folder.\n"}), "notes")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return await call(s, "read_file", path="odd\nname.md")
    read = run(scenario)
    assert "At the root." in text(read), text(read)
    assert text(read).splitlines()[-1] == ("[read notes/odd\\nname.md, at its collection's root; 1 other file called "
                                           "'odd\\nname.md': list_files(glob='odd\\nname.md') shows them]"), text(read)
