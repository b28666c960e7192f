"""A folder inside a registered collection's root is not made a second collection: its files are indexed
already, and search showed each of their passages twice (`notes/tmux/pane-killer.md` and
`tmux/pane-killer.md`, same text, same score), half of every page of results. A folder that holds other
collections' roots is registered, with a note that their passages will show twice. `ingest` (ingest.cli.main) in
the test's process, in the test home's environment, on a real index (a process apiece took 3-4 s, 30 s for a
test); no worker is needed: the refusal comes before anything is queued."""
from __future__ import annotations

import json

from tests.conftest import run_ingest_here, write_tree


def ingest(capsys, env: dict, *args: str):
    """``ingest ARGS`` with ``env``, in this process (conftest's run_ingest_here)."""
    return run_ingest_here(capsys, *args, env=env)


def collections(capsys, env: dict) -> list[str]:
    return [c["name"] for c in json.loads(ingest(capsys, env, "stats", "--json").stdout)["collections"]]


def test_a_folder_inside_a_collection_is_refused_with_the_filter_to_use(sift_env, tmp_path, capsys):
    root = write_tree(tmp_path / "notes", {"tmux/pane-killer.md": "# Pane Killer\n\nprefix x kills the pane\n",
                                           "go/slices.md": "# Slices\n\nsort a slice\n"}).resolve()
    assert ingest(capsys, sift_env, "enqueue", str(root), "--name", "notes").returncode == 0
    inner = ingest(capsys, sift_env, "enqueue", str(root / "tmux"))
    assert inner.returncode == 2, inner
    assert inner.stderr.startswith(f"ingest: error: {root / 'tmux'} lies inside the collection 'notes' ({root})"), \
        inner.stderr
    assert "--collection notes --path-prefix tmux" in inner.stderr, "says how to search the folder instead"
    named = ingest(capsys, sift_env, "enqueue", str(root / "go"), "--name", "golang")
    assert named.returncode == 2 and "lies inside the collection 'notes'" in named.stderr, named
    assert collections(capsys, sift_env) == ["notes"], "nothing registered"
    again = ingest(capsys, sift_env, "enqueue", str(root))
    assert again.returncode == 0 and "note:" not in again.stderr, "the collection itself is scanned again"


def test_a_folder_holding_a_collection_is_registered_with_a_note(sift_env, tmp_path, capsys):
    inner = write_tree(tmp_path / "repo" / "examples" / "notes", {"a.md": "# A\n\nalpha\n"}).resolve()
    repo = inner.parent.parent
    assert ingest(capsys, sift_env, "enqueue", str(inner), "--name", "sample").returncode == 0
    outer = ingest(capsys, sift_env, "enqueue", str(repo), "--name", "code")
    assert outer.returncode == 0, outer
    assert f"ingest: note: {repo} holds the collection 'sample' ({inner})" in outer.stderr, outer.stderr
    assert collections(capsys, sift_env) == ["code", "sample"]
    assert "note:" not in ingest(capsys, sift_env, "enqueue", str(repo)).stderr, "said once, when it is registered"
    sibling = write_tree(tmp_path / "repo-notes", {"b.md": "# B\n"}).resolve()  # a name that begins the same
    beside = ingest(capsys, sift_env, "enqueue", str(sibling))
    assert beside.returncode == 0 and "note:" not in beside.stderr, beside.stderr


def test_sift_mcp_root_inside_a_collection_serves_that_collection(sift_env, tmp_path, capsys):
    """`sift-mcp --root ~/notes/tmux` (a client's configuration) with ~/notes registered made the second
    collection too. The server now starts, registers nothing, says why on stderr and rescans 'notes'."""
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from tests.conftest import VENV_BIN
    root = write_tree(tmp_path / "notes", {"tmux/pane-killer.md": "# Pane Killer\n\nprefix x\n"}).resolve()
    assert ingest(capsys, sift_env, "enqueue", str(root), "--name", "notes").returncode == 0
    log = tmp_path / "server-stderr.log"

    async def scenario():
        params = StdioServerParameters(command=str(VENV_BIN / "sift-mcp"),
                                       args=["--no-worker", "--root", str(root / "tmux")], env=sift_env)
        with open(log, "w") as errlog, anyio.fail_after(600):  # a safety net against a hang, not a speed test
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return await session.call_tool("stats", {})
    stats = anyio.run(scenario)
    assert not stats.is_error
    assert [c["name"] for c in stats.structured_content["collections"]] == ["notes"]
    said = log.read_text()
    assert f"sift-mcp: note: {root / 'tmux'} lies inside the collection 'notes' ({root})" in said, said
    assert "it is not registered again: its files are in 'notes', which is rescanned now" in said, said


def test_a_hidden_or_ignored_folder_inside_a_collection_is_its_own(sift_env, tmp_path, capsys):
    """A scan of a root leaves out its hidden and ignored folders, so a collection inside one shares no file with
    it: ~/.notes under a collection of ~ was refused as 'inside the collection home, which indexes its files
    already', and registering ~ over ~/.notes said search would show their passages twice."""
    home = write_tree(tmp_path / "home", {"todo.md": "# Todo\n", ".notes/a.md": "# A\n", "build/log/b.md": "# B\n",
                                          "gen/c/c.md": "# C\n", ".gitignore": "gen/\n"}).resolve()
    assert ingest(capsys, sift_env, "enqueue", str(home), "--name", "home").returncode == 0
    for inner, name in ((home / ".notes", "hidden"), (home / "build" / "log", "built"), (home / "gen" / "c", "gen")):
        result = ingest(capsys, sift_env, "enqueue", str(inner), "--name", name)
        assert result.returncode == 0 and "note:" not in result.stderr, result.stderr
    assert collections(capsys, sift_env) == ["built", "gen", "hidden", "home"]
    outer = write_tree(tmp_path / "top", {"x.md": "# X\n", ".cache2/y/y.md": "# Y\n"}).resolve()
    assert ingest(capsys, sift_env, "enqueue", str(outer / ".cache2" / "y"), "--name", "y").returncode == 0
    held = ingest(capsys, sift_env, "enqueue", str(outer), "--name", "top")
    assert held.returncode == 0 and "holds the collection" not in held.stderr, held.stderr
