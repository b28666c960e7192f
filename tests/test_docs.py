"""The documentation and the code agree: every setting, command, flag, MCP tool and tool argument is documented in
the README or its docs/ pages, and they name none that does not exist (the idea of sqlite-utils'
tests/test_docs.py); every relative link among them leads to a file and heading that exist."""
from __future__ import annotations

import argparse
import functools
import re

import anyio
import pytest

from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
PAGES = sorted((REPO / "docs").glob("*.md"))
# The README and its docs/ pages, where the detail moved: what a setting, command or flag must be found in.
DOCS = "\n".join([README] + [page.read_text(encoding="utf-8") for page in PAGES])
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
    """``word`` appears in the README or docs/ as a whole word (``--root`` is not found inside ``--root-dir``)."""
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", DOCS) is not None


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


def test_the_docs_pages_are_there():
    names = {page.name for page in PAGES}
    assert {"tools.md", "configuration.md", "benchmarks.md", "known-limits.md", "architecture.md"} <= names, names


def test_every_setting_the_code_reads_is_in_the_docs():
    missing = sorted(variables_in(PACKAGES) - UNDOCUMENTED - {v for v in VARIABLE.findall(DOCS)})
    assert not missing, f"read by the code, absent from the README and docs/: {missing}"


def test_every_setting_in_the_docs_is_read_by_the_code():
    # tests/, bench/ and scripts/ count: SIFT_SHARED_DATA is where the tests and benches find their data
    known = variables_in(PACKAGES + ("tests", "bench", "scripts"))
    unknown = sorted(set(VARIABLE.findall(DOCS)) - known)
    assert not unknown, f"in the README or docs/, read nowhere: {unknown}"


def test_every_setting_is_in_the_readmes_settings_table():
    """The README's short table names each setting; docs/configuration.md (or docs/http.md, for the HTTP
    server's) explains it."""
    table = README.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    full = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    rows = {v for line in table.splitlines() if line.startswith("| ") for v in VARIABLE.findall(line)}
    explained = {v for line in full.splitlines() if line.startswith("| ") for v in VARIABLE.findall(line)}
    assert "SIFT_MODEL" in rows and rows == explained, (rows ^ explained)


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
    assert not [c for c in commands if c not in DOCS], "ingest commands missing from the README and docs/"
    assert not [f for f in flags(parser) if not mentioned(f)], "ingest flags missing from the README and docs/"


def test_every_sift_mcp_flag_is_in_the_readme():
    from mcp_server.server import build_parser
    options = flags(build_parser())
    assert "--root" in options
    missing = [f for f in options if not mentioned(f)]
    assert not missing, f"sift-mcp flags missing from the README and docs/: {missing}"


def test_the_no_worker_help_says_the_watcher_is_left_out_too():
    """`sift-mcp --help` said --no-worker means 'do not run a huey worker as a child process'; it leaves out the
    file watcher too (the README says so), and a user who ran only their own worker lost the updates on save."""
    from mcp_server.server import build_parser
    said = next(a.help for a in build_parser()._actions if "--no-worker" in a.option_strings)
    assert "huey worker" in said and "file watcher" in said, said


def readme_tools() -> dict[str, str]:
    """The table under the README's '### Tools': each tool's name and its row."""
    section = README.split("### Tools", 1)[1].split("\n#", 1)[0]
    return {m.group(1): m.group(0) for m in re.finditer(r"^\| `(\w+)` \|.*$", section, flags=re.M)}


def tool_sections() -> dict[str, str]:
    """docs/tools.md's section of each tool (a heading '## `name`'), its text up to the next heading."""
    text = (REPO / "docs" / "tools.md").read_text(encoding="utf-8")
    return {m.group(1): m.group(2) for m in re.finditer(r"^## `(\w+)`\n(.*?)(?=^#)", text, flags=re.M | re.S)}


@functools.cache
def registered_tools() -> dict[str, list[str]]:
    """Each tool the server registers, with its arguments."""
    from mcp.server.mcpserver import MCPServer
    from mcp_server import tools
    server = MCPServer("sift-docs")
    tools.register(server, sift=None)
    return {t.name: sorted(t.input_schema.get("properties", {})) for t in anyio.run(server.list_tools)}


def test_the_readme_tools_table_lists_exactly_the_registered_tools():
    registered = registered_tools()
    assert "search" in registered
    assert sorted(readme_tools()) == sorted(registered)
    assert sorted(tool_sections()) == sorted(registered), "docs/tools.md: a section per tool"


def test_every_argument_of_every_tool_is_documented():
    """Each argument a tool takes is in its README row and in its docs/tools.md section's list of arguments (an
    item's own name, not a mention inside another's explanation)."""
    rows, sections = readme_tools(), tool_sections()
    missing = []
    for name, arguments in registered_tools().items():
        listed = sections[name].split("\n\nReturns", 1)[0]
        missing += [f"{name}({a}): README" for a in arguments if f"`{a}`" not in rows[name]]
        items = [line[2:].split(" (", 1)[0] for line in listed.splitlines() if line.startswith("- ")]
        missing += [f"{name}({a}): docs/tools.md" for a in arguments if not any(f"`{a}`" in i for i in items)]
    assert sum(map(len, registered_tools().values())) >= 30
    assert not missing, missing


@pytest.mark.parametrize("command", ["scripts/test", "scripts/test --all", "scripts/demo", ".ci/run"])
def test_the_commands_the_readme_gives_exist(command):
    assert command in README and (REPO / command.split()[0]).is_file()


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, marks dropped (but - and _), spaces as hyphens."""
    text = re.sub(r"[`*]", "", heading.strip()).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def unfenced(text: str) -> str:
    """Markdown without its fenced code blocks (a '# comment' in a shell block is no heading)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)


def prose(text: str) -> str:
    """Markdown without its code (fenced blocks, then inline spans), where a link is no link. A span is closed by
    a run of as many backticks as opened it, within its paragraph; a run never closed is a literal backtick."""
    kept = []
    for block in re.split(r"\n\s*\n", unfenced(text)):
        at, out = 0, []
        for run in re.finditer(r"`+", block):
            if run.start() < at:
                continue
            close = re.compile(rf"(?<!`){run.group()}(?!`)").search(block, run.end())
            if close:
                out.append(block[at:run.start()])
                at = close.end()
        kept.append("".join(out) + block[at:])
    return "\n\n".join(kept)


def anchors(path) -> set[str]:
    seen, found = {}, set()
    for line in unfenced(path.read_text(encoding="utf-8")).splitlines():
        if m := re.match(r"#{1,6} (.+)", line):
            base = slug(m.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(files) -> list[str]:
    """Each relative link in ``files`` (Markdown) whose file, or heading in it, does not exist."""
    broken = []
    for path in files:
        for target in re.findall(r"\]\(([^)\s]+)\)", prose(path.read_text(encoding="utf-8"))):
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto:: not ours to check offline
            file, _, anchor = target.partition("#")
            goal = (path.parent / file).resolve() if file else path
            if not goal.exists():
                broken.append(f"{path.name}: {target} (no such file)")
            elif anchor and goal.suffix == ".md" and anchor not in anchors(goal):
                broken.append(f"{path.name}: {target} (no such heading)")
    return broken


def test_every_relative_link_leads_to_a_file_and_heading_that_exist():
    assert len(re.findall(r"\]\(docs/", README)) >= 12  # the README links its pages
    assert not broken_links([REPO / "README.md", *PAGES])


def test_a_broken_link_is_found(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A page\n\n## The `search` tool\n\n[back](../README.md)\n")
    (tmp_path / "README.md").write_text(
        "# R\n\n[fine](docs/a.md#the-search-tool) [no file](docs/b.md) [no heading](docs/a.md#nowhere)\n"
        "[own](#r) [own, missing](#s) `[in code](docs/c.md)` [web](https://example.com/x)\n")
    assert broken_links([tmp_path / "README.md", tmp_path / "docs" / "a.md"]) == [
        "README.md: docs/b.md (no such file)", "README.md: docs/a.md#nowhere (no such heading)",
        "README.md: #s (no such heading)"]


def unlinked_references(files) -> list[str]:
    """Each place in ``files``' prose that names a heading of the README or docs/ as a cross-reference in plain
    words (``see Freshness``, ``Configuration below``, ``(Benchmarks: a branch switch)``) where a link belongs:
    the docs/ pages hold the README's old text, whose references pointed at sections of one page."""
    titles = set()
    for path in files:
        for line in unfenced(path.read_text(encoding="utf-8")).splitlines():
            if m := re.match(r"#{1,3} (.+)", line):
                titles.add(re.sub(r"[`*]", "", m.group(1)).strip().rstrip(".:"))
    # capitalised, as a section is named: a tool's heading (`search`, `stats`) is also a plain word of the prose
    names = "|".join(sorted((re.escape(t) for t in titles if t[:1].isupper()), key=len, reverse=True))
    reference = re.compile(rf"\b[Ss]ee (?:the )?(?:{names})\b|(?<![\[\w])(?:{names}),? (?:below|above)\b"
                           rf"|\((?:{names}): ")
    found = []
    for path in files:
        for paragraph in prose(path.read_text(encoding="utf-8")).split("\n\n"):
            found += [f"{path.name}: {m.group()!r}" for m in reference.finditer(" ".join(paragraph.split()))]
    return found


def test_cross_references_are_links():
    assert not unlinked_references([REPO / "README.md", *PAGES])


def test_an_unlinked_reference_is_found(tmp_path):
    (tmp_path / "a.md").write_text("# Freshness\n\n## Which model\n\nText (see Which\nmodel), and see "
                                   "[Freshness](a.md#freshness); Freshness below. (Freshness: a big file) `see "
                                   "Freshness` see freshness.\n")
    assert unlinked_references([tmp_path / "a.md"]) == [
        "a.md: 'see Which model'", "a.md: 'Freshness below'", "a.md: '(Freshness: '"]


def headings(text: str) -> list[tuple[int, str]]:
    """Each ## and ### heading of a Markdown page, in order: its level and its anchor (``anchors``' naming)."""
    seen, found = {}, []
    for line in unfenced(text).splitlines():
        if m := re.match(r"(#{1,6}) (.+)", line):
            base = slug(m.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            if len(m.group(1)) in (2, 3):
                found.append((len(m.group(1)), base if count == 0 else f"{base}-{count}"))
    return found


# A page with this many sections or more starts with a list of them (a reader sees what it holds before scrolling).
LONG_PAGE = 8


def section_list_mismatches(path) -> list[str]:
    """Where the list of sections at the top of a docs page (its links to its own headings before the first ##
    heading, as a list or in a sentence) is not exactly its ## headings in order (and its ### headings too, for
    a list that names one): each is written by hand, and a section added without it was found by nobody."""
    text = path.read_text(encoding="utf-8")
    top = prose(text.split("\n## ", 1)[0])
    listed = [target[1:] for target in re.findall(r"\]\((#[^)\s]+)\)", top)]
    found = headings(text)
    levels = {2, 3} if any(level == 3 and anchor in listed for level, anchor in found) else {2}
    wanted = [anchor for level, anchor in found if level in levels]
    if not listed:
        return [f"{path.name}: {len(wanted)} sections and no list of them at the top"] \
            if len(wanted) >= LONG_PAGE else []
    # grouped by topic ('- Dates: [a passage's own date](#…), [a date in a query](#…)'): each section once, each
    # topic's in the page's order and the topics in the order of their first sections (known-limits.md's sections
    # follow the order they were written in, not its topics: a reader going down the list goes down the page)
    groups = [[wanted.index(target[1:]) for target in re.findall(r"\]\((#[^)\s]+)\)", line) if target[1:] in wanted]
              for line in re.findall(r"^- [^\[\n]+: \[.*$", top, flags=re.M)]
    if listed == wanted:
        return []
    if groups and sorted(listed) == sorted(wanted):
        if all(group == sorted(group) for group in groups) and [g[0] for g in groups] == sorted(g[0] for g in groups):
            return []
        return [f"{path.name}: a topic's sections out of the page's order, or topics not in the order of their "
                f"first sections: {[[wanted[n] for n in group] for group in groups]}"]
    missing = [a for a in wanted if a not in listed]
    unknown = [a for a in listed if a not in wanted]
    twice = sorted({a for a in listed if listed.count(a) > 1})
    said = [f"not listed: {missing}"] * bool(missing) + [f"listed, no such section: {unknown}"] * bool(unknown)
    said += [f"listed twice: {twice}"] * bool(twice)
    return [f"{path.name}: " + ("; ".join(said) or f"listed out of order: {listed} (the sections: {wanted})")]


def docs_table_mismatches(readme: str, pages) -> list[str]:
    """Where the README's table of docs pages (under '### Documentation') does not name each docs/ page once."""
    table = readme.split("### Documentation", 1)[1].split("\n#", 1)[0]
    listed = re.findall(r"^\| \[docs/([^\]]+)\]\(docs/\1\)", table, flags=re.M)
    names = sorted(page.name for page in pages)
    said = [f"not in the README's table of docs pages: {sorted(set(names) - set(listed))}"] * bool(
        set(names) - set(listed))
    said += [f"in the README's table, no such page: {sorted(set(listed) - set(names))}"] * bool(
        set(listed) - set(names))
    said += [f"twice in the README's table: {sorted({n for n in listed if listed.count(n) > 1})}"] * (
        len(set(listed)) < len(listed))
    return said


def test_each_pages_list_of_sections_names_its_sections_in_order():
    assert sum(bool(re.search(r"^- \[.*\]\(#", p.read_text(encoding="utf-8"), re.M)) for p in PAGES) >= 4
    assert not [m for page in PAGES for m in section_list_mismatches(page)]


def test_the_readmes_table_of_docs_pages_names_each_page():
    assert not docs_table_mismatches(README, PAGES)


def test_the_readmes_known_limits_name_the_pages_sections_in_order():
    """README's Known limits is a linked line for each section of docs/known-limits.md, in the page's order."""
    section = README.split("## Known limits", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^- \[.*\]\(docs/known-limits\.md#([^)\s]+)\)$", section, flags=re.M)
    page = [anchor for _, anchor in headings((REPO / "docs" / "known-limits.md").read_text(encoding="utf-8"))]
    assert len(page) >= 30, page
    assert listed == page, ([a for a in page if a not in listed], [a for a in listed if a not in page])


def test_a_section_left_out_of_the_list_is_found(tmp_path):
    page = tmp_path / "a.md"
    listed = "# A\n\n- [One](#one)\n- [Two](#two)\n  - [Two's part](#twos-part)\n\n"
    page.write_text(listed + "## One\n\n## Two\n\n### Two's part\n\n```\n## not a heading\n```\n")
    assert section_list_mismatches(page) == []
    page.write_text(listed + "## One\n\n## Two\n\n### Two's part\n\n## Three\n")
    assert section_list_mismatches(page) == ["a.md: not listed: ['three']"]
    page.write_text(listed + "## Two\n\n### Two's part\n\n## One\n")
    assert section_list_mismatches(page) == [
        "a.md: listed out of order: ['one', 'two', 'twos-part'] (the sections: ['two', 'twos-part', 'one'])"]
    page.write_text("# A\n\nIts [one](#one) and [two](#two).\n\n## One\n\n## Three\n")
    assert section_list_mismatches(page) == ["a.md: not listed: ['three']; listed, no such section: ['two']"]
    sections = "## One\n\n## Two\n\n## Three\n"
    page.write_text("# A\n\n- Sooner: [One](#one), [Three](#three)\n- Later: [Two](#two)\n\n" + sections)
    assert section_list_mismatches(page) == []  # a list by topic: each topic's in the page's order
    page.write_text("# A\n\n- Sooner: [Three](#three), [One](#one)\n- Later: [Two](#two)\n\n" + sections)
    assert section_list_mismatches(page) == [
        "a.md: a topic's sections out of the page's order, or topics not in the order of their first sections: "
        "[['three', 'one'], ['two']]"]
    page.write_text("# A\n\n- Later: [Two](#two)\n- Sooner: [One](#one), [Three](#three)\n\n" + sections)
    assert section_list_mismatches(page)  # a topic before one whose first section comes sooner
    page.write_text("# A\n\n- Later: [Two](#two)\n- Sooner: [One](#one)\n\n" + sections)
    assert section_list_mismatches(page) == ["a.md: not listed: ['three']"]
    page.write_text("# A\n\n- Later: [Two](#two), [One](#one)\n- Sooner: [One](#one)\n\n## One\n\n## Two\n")
    assert section_list_mismatches(page) == ["a.md: listed twice: ['one']"]
    page.write_text("# A\n\n" + "".join(f"## S{i}\n\n" for i in range(LONG_PAGE)))
    assert section_list_mismatches(page) == [f"a.md: {LONG_PAGE} sections and no list of them at the top"]
    readme = "# R\n\n### Documentation\n\n| page | what |\n|---|---|\n| [docs/a.md](docs/a.md) | a |\n\n## Next\n"
    assert docs_table_mismatches(readme, [page]) == []
    assert docs_table_mismatches(readme, [page, tmp_path / "b.md"]) == [
        "not in the README's table of docs pages: ['b.md']"]
