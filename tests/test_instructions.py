"""The server's instructions (the initialize result) name the registered collections: an assistant learnt them
only from stats or from an error naming them."""
from __future__ import annotations

import json

from tests.conftest import ingest, write_tree
from tests.test_mcp_server import call, run


def _initialize_result(servers) -> dict:
    for line in servers.wires[-1].read_bytes().splitlines():
        message = json.loads(line)
        if "instructions" in message.get("result", {}):
            return message["result"]
    raise AssertionError("no initialize result on the wire")


def test_a_client_sees_the_collections_in_the_initialize_result(immediate, sift_env, tmp_path, servers):
    ingest(write_tree(tmp_path / "Vault", {"a.md": "# A\nalpha", "b/c.md": "# C\ngamma"}), "notes")
    ingest(write_tree(tmp_path / "src" / "proj", {"x.py": "print(1)\n"}), "code")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            await call(s, "stats")
    run(scenario)
    said = _initialize_result(servers)["instructions"]
    assert said.startswith("Sift searches the user's own local notes"), said
    assert said.endswith(": code (proj, 1 file), notes (Vault, 2 files)."), said


def test_many_collections_are_named_up_to_ten_then_counted(immediate, sift_env, tmp_path, servers):
    for i in range(12):
        ingest(write_tree(tmp_path / f"f{i:02}", {"n.md": f"# N\nword{i}"}), f"c{i:02}")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            await call(s, "stats")
    run(scenario)
    said = _initialize_result(servers)["instructions"]
    assert "c09 (f09, 1 file); and 2 more: stats lists them." in said, said
    assert "c10" not in said and "c00 (f00, 1 file)" in said, said
