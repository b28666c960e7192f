"""The README and the code agree: every setting, command, flag and MCP tool is documented, and the README
names none that does not exist (the idea of sqlite-utils' tests/test_docs.py)."""
from __future__ import annotations

import argparse
import re

import anyio
import pytest

from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
PACKAGES = ("ingest", "search", "workers", "mcp_server")
VARIABLE = re.compile(r"SIFT_[A-Z0-9_]+")
# Read by the code but deliberately not a user setting, so the README need not list them:
UNDOCUMENTED = {
    "SIFT_QUEUE_IMMEDIATE",  # test hook: huey's immediate mode, the queue runs jobs in the calling process
}


def variables_in(folders, suffixes=(".py",)) -> set[str]:
    found = set()
    for folder in folders:
        for path in (REPO / folder).rglob("*"):
            if path.suffix in suffixes or (not path.suffix and path.parent.name == "scripts"):
                found |= set(VARIABLE.findall(path.read_text(encoding="utf-8", errors="replace")))
    return {name for name in found if not name.endswith("_")}  # 'SIFT_HTTP_' alone is a settings prefix


def mentioned(word: str) -> bool:
    """``word`` appears in the README as a whole word (``--root`` is not found inside ``--root-dir``)."""
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", README) is not None


def subcommands(parser: argparse.ArgumentParser, prefix: str) -> list[str]:
    """'ingest enqueue', 'ingest model prepare', ...: every leaf command of an argparse parser."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += subcommands(sub, f"{prefix} {name}") or [f"{prefix} {name}"]
    return found


def flags(parser: argparse.ArgumentParser) -> list[str]:
    return [option for action in parser._actions for option in action.option_strings
            if option.startswith("--") and option != "--help"]


def test_every_setting_the_code_reads_is_in_the_readme():
    missing = sorted(variables_in(PACKAGES) - UNDOCUMENTED - {v for v in VARIABLE.findall(README)})
    assert not missing, f"read by the code, absent from the README: {missing}"


def test_every_setting_in_the_readme_is_read_by_the_code():
    # tests/, bench/ and scripts/ count: SIFT_SHARED_DATA is where the tests and benches find their data
    known = variables_in(PACKAGES + ("tests", "bench", "scripts"))
    unknown = sorted(set(VARIABLE.findall(README)) - known)
    assert not unknown, f"in the README, read nowhere: {unknown}"


def requirements(key: str) -> list[str]:
    """Package names of a list in pyproject.toml ('dependencies = [', 'test = ['), read without tomllib
    (Python 3.10 has none)."""
    text = re.sub(r"#.*", "", (REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return re.findall(r'"([A-Za-z0-9_.-]+)', re.search(rf"^{key} = \[(.*?)\]", text, re.M | re.S).group(1))


def test_every_dependency_is_in_the_readmes_list_with_a_reason():
    listed = README.split("### Dependencies, and why each", 1)[1].split("\n## ", 1)[0]
    installed = requirements("dependencies") + requirements("test")
    assert len(installed) >= 20, installed
    missing = [name for name in installed if f"`{name}`" not in listed]
    assert not missing, f"in pyproject.toml, not in the README's dependency list: {missing}"

def test_every_ingest_command_and_global_flag_is_in_the_readme():
    from ingest.cli import build_parser
    parser = build_parser()
    commands = subcommands(parser, "ingest")
    assert {"ingest enqueue", "ingest search", "ingest stats"} <= set(commands)
    assert not [c for c in commands if c not in README], "ingest commands missing from the README"
    assert not [f for f in flags(parser) if not mentioned(f)], "ingest flags missing from the README"


def test_every_sift_mcp_flag_is_in_the_readme():
    from mcp_server.server import build_parser
    options = flags(build_parser())
    assert "--root" in options
    missing = [f for f in options if not mentioned(f)]
    assert not missing, f"sift-mcp flags missing from the README: {missing}"


def test_the_no_worker_help_says_the_watcher_is_left_out_too():
    """`sift-mcp --help` said --no-worker means 'do not run a huey worker as a child process'; it leaves out the
    file watcher too (the README says so), and a user who ran only their own worker lost the updates on save."""
    from mcp_server.server import build_parser
    said = next(a.help for a in build_parser()._actions if "--no-worker" in a.option_strings)
    assert "huey worker" in said and "file watcher" in said, said


def readme_tools() -> list[str]:
    """The first column of the table under '### Tools'."""
    section = README.split("### Tools", 1)[1].split("\n#", 1)[0]
    return re.findall(r"^\| `(\w+)` \|", section, flags=re.M)


def test_the_readme_tools_table_lists_exactly_the_registered_tools():
    from mcp.server.mcpserver import MCPServer
    from mcp_server import tools
    server = MCPServer("sift-docs")
    tools.register(server, sift=None)
    registered = sorted(t.name for t in anyio.run(server.list_tools))
    assert "search" in registered
    assert sorted(readme_tools()) == registered


@pytest.mark.parametrize("command", ["scripts/test", "scripts/test --all", "scripts/demo", ".ci/run"])
def test_the_commands_the_readme_gives_exist(command):
    assert command in README and (REPO / command.split()[0]).is_file()
