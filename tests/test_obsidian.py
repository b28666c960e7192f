"""An Obsidian vault through the real sift-mcp over stdio: what its syntax looks like in search results, and
the links and embeds a note holds followed by read_file.

Each test writes a small vault of the forms Obsidian writes: wiki links with labels, headings and block
references, embeds, block ids, callouts, front matter and inline tags, a .obsidian folder and a .trash.
"""
from __future__ import annotations

from tests.conftest import ingest, ingest_keyword_only, write_tree
from tests.test_mcp_server import call, run, text

SIFT = """---
aliases: [Sift search]
tags: [project/sift]
---
# Sift

Sift is my local search tool. See [[Architecture]] and [[Ranking#BM25 tuning|how BM25 is tuned]].

> [!warning] Embedding is slow on the laptop
> Indexing embeds about ten passages a second on two cores.

## Goals

- Find notes by exact words and by meaning ^goals-list
- Work offline with [[Local Models|local embedding models]]

Decided in [[2026-12-01]] that tags weigh as much as titles. ^tag-weight

![[Architecture#Data flow]]
"""
ARCHITECTURE = """# Architecture

The pipeline has six stages, each a queued job.

## Data flow

discover, parse, chunk, embed, write, publish: a generation is published atomically.

### Publishing

One transaction makes the generation visible.

## Storage

SQLite with FTS5.

| Option | Verdict |
|---|---|
| Postgres | too heavy |
^storage-table
"""
VAULT = {
    "Projects/Sift.md": SIFT,
    "Projects/Architecture.md": ARCHITECTURE,
    "Projects/Ranking.md": "# Ranking\n\n## BM25 tuning\n\nk1 = 1.2 and b = 0.75 work well.\n",
    "Daily/2026-12-01.md": "# 2026-12-01\n\nMet [[Alice]] about [[Sift#^tag-weight|the tag weight]].\n",
    "Knowledge/Shell.md": "# Shell\n\nTest for a file in bash with `[[ -f x ]]`, as [[Sift]] does.\n",
    ".obsidian/app.json": '{"attachmentFolderPath": "attachments"}',
    ".trash/Old.md": "# Old\n\nEmbedding everything twice, the laptop melted.\n",
}


def _vault(tmp_path):
    root = write_tree(tmp_path / "vault", VAULT)
    ingest_keyword_only(root, "vault")
    return root


def _session(servers, sift_env):
    return servers.session({**sift_env, "SIFT_EMBEDDINGS": "off"}, "--no-worker")


def test_snippets_show_obsidian_links_block_ids_and_callouts_as_obsidian_shows_them(immediate, tmp_path, servers,
                                                                                     sift_env):
    _vault(tmp_path)

    async def scenario():
        async with _session(servers, sift_env) as s:
            return [await call(s, "search", query=q, mode="keyword", limit=5)
                    for q in ("local embedding models", "tuned", "laptop", "tag weight", "bash")]
    offline, tuned, laptop, weight, bash = run(scenario)
    shell = bash.structured_content["results"][0]["snippet"]
    assert "**bash** with `[[ -f x ]]`, as Sift does." in shell, shell  # inline code is shown as written
    snippets = {r["path"]: r["snippet"] for answer in (offline, tuned, laptop, weight)
                for r in answer.structured_content["results"]}
    goals = offline.structured_content["results"][0]["snippet"]
    assert "Work offline with **local** **embedding** **models**" in goals, goals
    assert "^goals-list" not in goals and "Find notes by exact words and by meaning -" in goals, goals
    assert any("how BM25 is **tuned**" in r["snippet"] for r in tuned.structured_content["results"]), text(tuned)
    assert "Architecture > Data flow" in goals, goals  # the embed, as 'Note > Heading'
    daily = snippets["vault/Daily/2026-12-01.md"]
    assert "Met Alice about the **tag** **weight**." in daily, daily
    callout = laptop.structured_content["results"][0]["snippet"]
    assert "[!warning]" not in callout and ">" not in callout, callout
    for shown in snippets.values():
        assert "[[" not in shown and "]]" not in shown and "^tag-weight" not in shown, shown
    assert "vault/.trash/Old.md" not in snippets  # .trash stays out, as .obsidian does
    assert "[[" not in text(offline) and "^goals-list" not in text(offline)


def test_read_file_follows_a_wiki_link_to_the_section_or_block_it_names(immediate, tmp_path, servers, sift_env):
    _vault(tmp_path)
    forms = ["![[Architecture#Data flow]]", "[[Ranking#BM25 tuning|how BM25 is tuned]]", "Sift#^tag-weight",
             "[[Architecture#^storage-table]]", "Architecture#Data flow#Publishing", "[[Sift]]", "Ranking",
             "[[Architecture#No such part]]", "[[Nowhere#Data flow]]"]

    async def scenario():
        async with _session(servers, sift_env) as s:
            return [await call(s, "read_file", path=form) for form in forms]
    data_flow, tuning, block, table, nested, whole, bare, missing, nowhere = run(scenario)
    for answer in (data_flow, tuning, block, table, nested, whole, bare):
        assert not answer.is_error, text(answer)
    lines = lambda answer: (answer.structured_content["start_line"], answer.structured_content["end_line"])  # noqa: E731
    assert data_flow.structured_content["path"] == "vault/Projects/Architecture.md"
    assert lines(data_flow) == (5, 11), text(data_flow)  # the section with its subsection, not '## Storage'
    assert "### Publishing" in text(data_flow) and "## Storage" not in text(data_flow)
    assert lines(tuning) == (3, 5) and "k1 = 1.2" in text(tuning)
    assert lines(block) == (17, 17) and "^tag-weight" in text(block), text(block)
    assert lines(table) == (17, 20), text(table)  # the table above the id on a line of its own
    assert lines(nested) == (9, 11), text(nested)
    assert lines(whole) == (1, SIFT.count("\n")) and lines(bare) == (1, 5)
    assert missing.is_error and "no heading 'No such part'" in text(missing), text(missing)
    assert nowhere.is_error and "no file" in text(nowhere), text(nowhere)


ROOF = """# Roof

The roof of the garden shed needs a pitch of fifteen degrees.

> [!warning] Felt before rain
> Nail the roofing felt down before the autumn rain comes.

After the callout, the roof text goes on: ridge boards and gutters.

## Gutters

> [!tip]
> Gutters drain into the water butt.
"""


def test_a_callouts_title_heads_its_lines_as_a_heading_does(immediate, tmp_path, servers, sift_env):
    ingest_keyword_only(write_tree(tmp_path / "vault", {
        "Roof.md": ROOF, "Other.md": "# Other\n\nBefore the rain, bring in the felt.\n"}), "vault")

    async def scenario():
        async with _session(servers, sift_env) as s:
            return [await call(s, "search", query=q, mode="keyword", limit=3)
                    for q in ("felt rain", "ridge boards", "water butt")]
    felt, ridge, butt = run(scenario)
    first = felt.structured_content["results"][0]
    assert first["path"] == "vault/Roof.md" and first["heading_path"] == "Roof > Felt before rain", first
    assert first["lines"] == [5, 6] if "lines" in first else (first["start_line"], first["end_line"]) == (5, 6)
    assert "Felt before rain" not in first["snippet"] and "**felt**" in first["snippet"], first  # shown above it
    after = ridge.structured_content["results"][0]
    assert after.get("heading_path", after["title"]) == "Roof" and after["start_line"] == 8, after
    tip = butt.structured_content["results"][0]
    assert tip["heading_path"] == "Roof > Gutters > Tip", tip  # a callout without a title: its type


IDEAS = {
    # tagged inline only, in a passage about much else
    "Inbox/Idea.md": "# Idea\n\n" + "A long thought about sheds, gardens, timber, roofs, paint and weather. " * 6
    + "\n\n#idea #project/shed\n",
    # not tagged: says shed and project more often, in fewer words
    "Inbox/Plain.md": "# Plain\n\nShed project, shed project, a shed and a project.\n",
}


def test_a_notes_inline_tags_are_its_tags_so_a_tag_search_puts_it_first(immediate, tmp_path, servers, sift_env):
    others = {f"Other {n}.md": f"# Other {n}\n\nNothing to see in note {n}.\n" for n in range(8)}
    ingest_keyword_only(write_tree(tmp_path / "vault", {
        **IDEAS, **others, "Code.md": "# Code\n\n```\n#project/shed in a fence\n```\n\n`#project/shed`\n"}), "vault")

    async def scenario():
        async with _session(servers, sift_env) as s:
            return await call(s, "search", query="#project/shed", mode="keyword", limit=5)
    answer = run(scenario)
    paths = [r["path"] for r in answer.structured_content["results"]]
    assert paths[0] == "vault/Inbox/Idea.md", text(answer)
    assert "files whose title holds every word of the query come first" in text(answer), text(answer)


SHED_VAULT = {
    "Projects/Garden Shed.md": "# Garden Shed\n\nBuild it behind the house; see [[Garden Shed#Roof]] below.\n\n## Roof\n\nFelt.\n",
    "Daily/2026-11-01.md": "# 2026-11-01\n\nWorked on [[Garden Shed]].\n",
    "Daily/2026-11-02.md": "# 2026-11-02\n\nBought timber for [[Garden Shed|the shed]].\n",
    "People/Bob.md": "# Bob\n\nHelps with [[Projects/Garden Shed#Roof|the roof]].\n",
    "Inbox/Photo.md": "# Photo\n\n![[Garden Shed]]\n",
    "Inbox/Markdown link.md": "# Markdown link\n\n[the shed](../Projects/Garden%20Shed.md)\n",
    "Inbox/Mention.md": "# Mention\n\nThe Garden Shed needs paint.\n",  # names it, links nothing
    "Inbox/Other.md": "# Other\n\nSee [[Garden Shed Materials]] and [[Bob]].\n",
    ".trash/Old.md": "# Old\n\n[[Garden Shed]] in the bin.\n",
}


def test_read_file_of_a_note_lists_the_notes_that_link_to_it(immediate, tmp_path, servers, sift_env):
    ingest_keyword_only(write_tree(tmp_path / "vault", SHED_VAULT), "vault")

    async def scenario():
        async with _session(servers, sift_env) as s:
            return [await call(s, "read_file", path=p) for p in
                    ("vault/Projects/Garden Shed.md", "[[Garden Shed#Roof]]", "Inbox/Mention.md", "Bob")]
    shed, roof, mention, bob = run(scenario)
    linking = ["vault/Daily/2026-11-01.md", "vault/Daily/2026-11-02.md", "vault/Inbox/Markdown link.md",
               "vault/Inbox/Photo.md", "vault/People/Bob.md"]
    assert text(shed).endswith(f"\n[linked from 5 notes: {', '.join(linking)}]"), text(shed)
    assert "linked from" not in text(roof)  # a section further down: the note's own lines only
    assert "linked from" not in text(mention)  # named by others, linked by none
    assert "[linked from 1 note: vault/Inbox/Other.md]" in text(bob), text(bob)


def _drawing(seed: int) -> str:
    """An Excalidraw note as the plugin writes it: its text elements, then the drawing's data in a comment."""
    import base64
    import random
    data = base64.b64encode(random.Random(seed).randbytes(6000)).decode()
    rows = "\n".join(data[i:i + 200] for i in range(0, len(data), 200))
    return ("---\nexcalidraw-plugin: parsed\ntags: [excalidraw]\n---\n# Text Elements\nQueue worker ^aB3dE9f1\n\n"
            f"Index database ^Xy7Lm2Qp\n\n%%\n# Drawing\n```compressed-json\n{rows}\n```\n%%\n"), data


def test_an_excalidraw_drawings_data_makes_no_passages_its_text_elements_do(immediate, tmp_path, servers, sift_env):
    note, data = _drawing(7)
    report = ingest(write_tree(tmp_path / "vault", {"Excalidraw/Pipeline.excalidraw.md": note,
                                                    "Plain.md": "# Plain\n\nNothing drawn here.\n"}), "vault")
    # the text elements and Plain.md: not 40 passages of base64 to embed (nor, since chunker version 32, one of the
    # '# Drawing' heading inside the data's '%%' comment, which Obsidian hides)
    assert report["chunks"] == 2, report
    piece = max((p for p in data.replace("+", "/").split("/")), key=len)

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return [await call(s, "search", query=q, mode="keyword", limit=3) for q in ("queue worker", piece)]
    found, blob = run(scenario)
    drawing = found.structured_content["results"][0]
    assert drawing["path"] == "vault/Excalidraw/Pipeline.excalidraw.md" and drawing["title"] == "Pipeline", drawing
    assert drawing["snippet"] == "**Queue** **worker** Index database", drawing  # no block ids, no '%%'

    assert blob.structured_content["results"] == [], text(blob)


def test_a_note_linking_to_itself_is_not_counted_among_its_backlinks_past_the_first_shown(
        immediate, tmp_path, servers, sift_env):
    daily = {f"Daily/2026-11-{n:02}.md": f"# Day {n}\n\nWorked on [[Garden Shed]].\n" for n in range(1, 23)}
    ingest_keyword_only(write_tree(tmp_path / "vault", {  # the note links to its own #Roof, after the 22 daily notes
        **daily, "Projects/Garden Shed.md": SHED_VAULT["Projects/Garden Shed.md"]}), "vault")

    async def scenario():
        async with _session(servers, sift_env) as s:
            return await call(s, "read_file", path="vault/Projects/Garden Shed.md")
    shed = run(scenario)
    assert "[linked from 22 notes: vault/Daily/2026-11-01.md," in text(shed), text(shed)
    assert "and 2 more (a search" in text(shed), text(shed)
    assert "vault/Projects/Garden Shed.md," not in text(shed)


def test_a_wiki_links_name_is_read_in_any_case_as_obsidian_reads_it(immediate, tmp_path, servers, sift_env):
    ingest_keyword_only(write_tree(tmp_path / "vault", {
        "Projects/Garden Shed.md": "# Garden Shed\n\nBuild it behind the house.\n\n## Roof\n\nFelt.\n",
        "Projects/Ärger.md": "# Ärger\n\nThe neighbours complain.\n",
        "Daily/2026-11-01.md": "# 2026-11-01\n\nWorked on [[garden shed]] and [[ärger]].\n",
        "Daily/2026-11-02.md": "# 2026-11-02\n\nTimber for [[GARDEN SHED#roof|the roof]].\n",
        "Daily/2026-11-03.md": "# 2026-11-03\n\n[[projects/garden shed]] again.\n"}), "vault")

    async def scenario():
        async with _session(servers, sift_env) as s:
            return [await call(s, "read_file", path=p) for p in
                    ("[[garden shed]]", "[[GARDEN SHED#roof]]", "vault/Projects/Ärger.md", "[[ÄRGER]]")]
    shed, roof, anger, anger_link = run(scenario)
    linking = ["vault/Daily/2026-11-01.md", "vault/Daily/2026-11-02.md", "vault/Daily/2026-11-03.md"]
    assert text(shed).startswith("vault/Projects/Garden Shed.md"), text(shed)
    assert f"[linked from 3 notes: {', '.join(linking)}]" in text(shed), text(shed)
    assert "Felt." in text(roof) and "behind the house" not in text(roof), text(roof)
    assert "[linked from 1 note: vault/Daily/2026-11-01.md]" in text(anger), text(anger)
    assert "The neighbours complain." in text(anger_link), text(anger_link)


def test_a_note_whose_name_starts_with_a_letter_of_two_in_another_case_is_read_with_its_backlinks(
        immediate, tmp_path, servers, sift_env):
    # 'İ'.lower() is 'i̇' and 'ß'.upper() 'SS': two characters, where the look-up of the link targets starting
    # with a name's first letter in either case took one
    ingest_keyword_only(write_tree(tmp_path / "vault", {
        "Places/İzmir.md": "# İzmir\n\nFigs and the harbour.\n",
        "Places/ßeta.md": "# ßeta\n\nA made-up name.\n",
        "Daily/2026-11-01.md": "# 2026-11-01\n\nFlew to [[İzmir]], read [[ßeta]].\n"}), "vault")

    async def scenario():
        async with _session(servers, sift_env) as s:
            return [await call(s, "read_file", path=p) for p in ("vault/Places/İzmir.md", "vault/Places/ßeta.md")]
    izmir, beta = run(scenario)
    assert "Figs and the harbour." in text(izmir), text(izmir)
    assert "[linked from 1 note: vault/Daily/2026-11-01.md]" in text(izmir), text(izmir)
    assert "A made-up name." in text(beta), text(beta)
    assert "[linked from 1 note: vault/Daily/2026-11-01.md]" in text(beta), text(beta)


def test_a_wiki_link_in_another_case_is_followed_to_a_note_two_collections_hold(immediate, tmp_path, servers,
                                                                                sift_env):
    # a root inside another's: the note is personal/Garden Shed.md and all/personal/Garden Shed.md, one file
    home = tmp_path / "home"
    write_tree(home / "personal", {"Garden Shed.md": "# Garden Shed\n\nBuild it behind the house.\n",
                                   "Daily.md": "# Daily\n\nWorked on [[garden shed]].\n"})
    write_tree(home / "misc", {"Errands.md": "# Errands\n\nGroceries.\n"})
    ingest_keyword_only(home / "personal", "personal")
    ingest_keyword_only(home, "all")

    async def scenario():
        async with _session(servers, sift_env) as s:
            return await call(s, "read_file", path="[[garden shed]]")
    shed = run(scenario)
    assert text(shed).startswith("personal/Garden Shed.md"), text(shed)
    assert "Build it behind the house." in text(shed), text(shed)
    assert "as a link to the note personal/Garden Shed.md" in text(shed), text(shed)


def test_a_note_named_in_nfd_on_disk_lists_the_notes_linking_to_it_in_nfc(immediate, tmp_path, servers, sift_env):
    # macOS names files in NFD; a link is typed in NFC ([[Café]]), and Obsidian finds the note by it
    import unicodedata
    nfd = unicodedata.normalize("NFD", "Café.md")
    ingest_keyword_only(write_tree(tmp_path / "vault", {
        nfd: "# Café\n\nThe corner one.\n",
        "Daily.md": unicodedata.normalize("NFC", "# Daily\n\nCoffee at [[Café]].\n")}), "vault")

    async def scenario():
        async with _session(servers, sift_env) as s:
            return [await call(s, "read_file", path=p) for p in (f"vault/{nfd}", "[[café]]")]
    cafe, link = run(scenario)
    assert "The corner one." in text(cafe), text(cafe)
    assert "[linked from 1 note: vault/Daily.md]" in text(cafe), text(cafe)
    assert "The corner one." in text(link), text(link)  # in another case too


def test_the_backlinks_line_shows_a_newline_in_a_linking_notes_name_escaped(immediate, tmp_path, servers, sift_env):
    ingest_keyword_only(write_tree(tmp_path / "vault", {
        "Garden Shed.md": "# Garden Shed\n\nBuild it behind the house.\n",
        "odd\nday.md": "# Odd day\n\nWorked on [[Garden Shed]].\n"}), "vault")

    async def scenario():
        async with _session(servers, sift_env) as s:
            return await call(s, "read_file", path="vault/Garden Shed.md")
    shed = run(scenario)
    assert text(shed).splitlines()[-1] == "[linked from 1 note: vault/odd\\nday.md]", text(shed)


def test_read_file_follows_a_wiki_link_copied_from_a_table_with_its_bar_escaped(immediate, tmp_path, sift_env):
    """Obsidian escapes a labelled link's '|' in a table ('[[Garden Shed\\|the shed]]'); read_file given it looked
    for the note 'Garden Shed\\', which no note is (ingest.links.wiki_link)."""
    from mcp_server import reading
    from mcp_server.service import Sift
    from search.settings import load
    ingest_keyword_only(write_tree(tmp_path / "vault", {
        "Projects/Garden Shed.md": "# Garden Shed\n\nBuild it behind the house.\n\n## Roof\n\nFelt.\n"}), "vault")
    shed, _ = reading.read(Sift(load()), "[[Garden Shed\\|the shed]]", None, None, None)
    roof, _ = reading.read(Sift(load()), "[[Garden Shed\\#Roof\\|the roof]]", None, None, None)
    assert shed.startswith("vault/Projects/Garden Shed.md") and "behind the house" in shed, shed
    assert "Felt." in roof and "behind the house" not in roof, roof
