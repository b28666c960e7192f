"""Notes written by other tools than Obsidian, as those tools write them: a Logseq graph (pages/, journals/, an
outline of '- ' blocks, 'key:: value' properties, block ids and references, namespaces), a Notion export (a
32-hex id in every file and folder name, percent-encoded links), Bear's export ('#multi word#' tags) and Joplin's
(front matter, ':/id' links).
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from ingest.discover import Rules
from ingest.document import Skip
from ingest.links import resolve_links
from ingest.logseq import journal_name
from ingest.markdown import parse_markdown
from search.query.snippet import snippet
from search.query.tags import query_tags
from tests.conftest import ingest, write_tree
from tests.test_mcp_server import call, run, text

UUID = "6500a1b2-1c2d-4e5f-8a9b-0c1d2e3f4a5b"
NOTION = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d"
SIFT_PAGE = f"""title:: Sift Project
alias:: sift, local search
tags:: project, [[search engines]]
type:: software

- Sift is a local search engine for my notes
  id:: {UUID}
\t- It indexes [[Markdown]] and PDFs
\t  collapsed:: true
\t\t- Ranking uses BM25 and embeddings #ranking
- TODO Write the README section about Logseq
  SCHEDULED: <2024-03-14 Thu>
- As said above: (({UUID}))
- DONE Benchmark the chunker #[[performance work]]
- {{{{embed [[Reading list]]}}}}
"""
JOURNAL = f"""- Met Alice about [[Sift Project]]
\t- She wants (({UUID})) to be faster
- Reading notes on [[projects/gardening]] #meeting
- Asked Bob about the compost heap
"""
HEATER, SEEDS = "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"


def joplin_item(title: str, body: str, kind: int = 1, id_: str = HEATER) -> str:
    """An item as Joplin's raw export and file-system sync target write it: title, body, properties."""
    return (f"{title}\n\n{body}\n\nid: {id_}\nparent_id: 9a1b0123456789abcdef0123456789ab\n"
            "created_time: 2024-03-01T09:00:00.000Z\nupdated_time: 2024-03-14T10:00:00.000Z\nis_conflict: 0\n"
            "latitude: 0.00000000\nauthor: \nsource_url: \nis_todo: 0\nmarkup_language: 1\nuser_data: \n"
            f"type_: {kind}").replace("\n\n\n\n", "\n\n")


VAULTS = {
    "logseq/pages/Sift Project.md": SIFT_PAGE,
    "logseq/journals/2024_03_14.md": JOURNAL,
    "logseq/journals/2024_03_15.md": "- Tried [[local search]] on the laptop, as planned on [[Mar 14th, 2024]]\n",
    "logseq/pages/projects___gardening.md": "- The compost heap needs turning every two weeks\n",
    "logseq/pages/books%2Fdune.md": "- The spice must flow, said the Baron\n",
    "logseq/logseq/bak/pages/Sift Project/2024-03-14T10_00_00.000Z.Desktop.md": "- Sift is a local search engine\n",
    f"notion/Roadmap {NOTION}.md": f"# Roadmap\n\nThe quarterly roadmap: see [Billing migration](Roadmap%20{NOTION}/"
                                   f"Billing%20migration%20{NOTION[::-1]}.md).\n",
    f"notion/Roadmap {NOTION}/Billing migration {NOTION[::-1]}.md": "# Billing migration\n\nMove the invoices.\n",
    f"notion/Tasks {NOTION}/Draft the cohort list {NOTION}.md": (  # a database's row: its properties, a relation
        f"# Draft the cohort list\n\nAssignee: Lin Wei\nProject: Billing migration (../Roadmap%20{NOTION}/"
        f"Billing%20migration%20{NOTION[::-1]}.md)\n\nList the customers to move first.\n"),
    f"joplin/{HEATER}.md": joplin_item("Greenhouse heater", f"The paraffin heater. See [seeds](:/{SEEDS})."),
    f"joplin/{SEEDS}.md": joplin_item("Seed list", "Tomatoes and beans.", id_=SEEDS),
    "joplin/9a1b0123456789abcdef0123456789ab.md": joplin_item("Garden", "", kind=2,
                                                              id_="9a1b0123456789abcdef0123456789ab"),
    "bear/Weekly review.md": "# Weekly review\n\nThe greenhouse heater.\n\n#work/meetings# #home office# #plants\n",
}


def test_a_logseq_pages_properties_are_its_title_aliases_and_tags_and_no_text_of_its_passages():
    note = parse_markdown("pages/Sift Project.md", SIFT_PAGE)
    assert note.title == "Sift Project"
    assert note.meta["aliases"] == ["sift", "local search"]
    assert note.meta["tags"] == ["project", "search engines", "ranking", "performance work"]
    passage = "\n".join(section.text for section in note.sections)
    for noise in ("title::", "alias::", "tags::", "id::", UUID, "collapsed::"):
        assert noise not in passage, (noise, passage)
    assert "type:: software" in passage  # another property is the page's text, as a Dataview field is
    assert "As said above: Sift is a local search engine for my notes" in passage  # the reference, read
    assert "- [[Reading list]]" in passage and "{{embed" not in passage
    assert note.sections[0].start_line == 4  # the lines keep their numbers
    assert note.sections[-1].end_line == SIFT_PAGE.count("\n")


def test_a_logseq_pdf_highlights_properties_are_no_text():
    page = ("file:: [paper.pdf](../assets/paper_1699.pdf)\nfile-path:: ../assets/paper_1699.pdf\n\n"
            f"- Attention is all you need\n  ls-type:: annotation\n  hl-page:: 3\n  hl-color:: yellow\n  id:: {UUID}\n"
            "- ## Method\n  heading:: true\n")
    text = "\n".join(section.text for section in parse_markdown("pages/hls__paper_1699_0.md", page).sections)
    assert "Attention is all you need" in text and "Method" in text
    for noise in ("ls-type", "hl-page", "hl-color", "heading::", UUID):
        assert noise not in text, (noise, text)


def test_a_logseq_reference_to_another_pages_block_shows_no_uuid_and_a_namespace_page_is_named_by_it():
    journal = parse_markdown("journals/2024_03_14.md", JOURNAL)
    assert "She wants  to be faster" in journal.sections[0].text and UUID not in journal.sections[0].text
    assert parse_markdown("pages/projects___gardening.md", "- compost\n").title == "projects/gardening"
    assert parse_markdown("pages/books%2Fdune.md", "- spice\n").title == "books/dune"
    assert [journal_name(f"journals/2024_{m}.md") for m in ("03_01", "03_02", "03_03", "03_11", "12_22", "13_01")] == [
        "Mar 1st, 2024", "Mar 2nd, 2024", "Mar 3rd, 2024", "Mar 11th, 2024", "Dec 22nd, 2024", None]
    # a note that has front matter keeps it: its 'key:: value' lines are text (Dataview's fields)
    note = parse_markdown("a.md", "---\ntags: [a]\n---\ntags:: b\n\ntext\n")
    assert note.meta["tags"] == ["a"] and "tags:: b" in note.sections[0].text


def test_bear_and_logseq_tags_of_several_words_are_read_whole_in_notes_and_queries():
    note = parse_markdown("Weekly review.md", VAULTS["bear/Weekly review.md"])
    assert note.meta["tags"] == ["work/meetings", "home office", "plants"]
    assert query_tags("#home office# tips") == ["home office"]
    assert query_tags("#[[performance work]] and #x") == ["performance work", "x"]
    assert parse_markdown("a.md", "#a #b and C# code\n").meta["tags"] == ["a", "b"]


def test_tags_written_as_a_dataview_field_are_each_a_tag_and_a_closed_number_is_none():
    note = parse_markdown("a.md", "tags:: #project #work\nalias:: Foo, [[Bar, baz]]\n\nbody\n")
    assert note.meta["tags"] == ["project", "work"] and note.meta["aliases"] == ["Foo", "Bar, baz"]
    assert parse_markdown("b.md", "tags:: [[a b]] [[c]]\n").meta["tags"] == ["a b", "c"]
    assert parse_markdown("c.md", "Fixes #12 and #13# today, #home office#\n").meta["tags"] == ["home office"]


def test_a_logseq_id_or_reference_inside_a_code_block_is_code_shown_as_written():
    code = f"```\n- a block\n  id:: {UUID}\n(({UUID}))\n```"
    note = parse_markdown("How to reference blocks.md", f"# Tips\n\n{code}\n\n- real\n  id:: {UUID}\n")
    passage = "\n".join(section.text for section in note.sections)
    assert code in passage and passage.count("id::") == 1, passage


def test_a_joplin_link_by_id_names_the_note_of_that_id_and_logseq_backups_are_left_out():
    assert resolve_links("Garden/Heater.md", [":/0123456789ABCDEF0123456789abcdef", "../Seed%20list.md"]) == [
        "0123456789abcdef0123456789abcdef", "Seed list.md"]  # not 'Garden/:/0123…'
    rules = Rules()
    assert rules.ignored("logseq/bak/pages/Sift/2024-03-14T10_00_00.000Z.Desktop.md", False)
    assert rules.ignored("graph/logseq/version-files/x.md", False)
    assert not rules.ignored("pages/bak/x.md", False) and not rules.ignored("logseq/custom.css", False)


def test_a_joplin_raw_note_is_titled_by_its_first_line_and_its_properties_are_no_text():
    note = parse_markdown(f"{HEATER}.md", VAULTS[f"joplin/{HEATER}.md"])
    assert note.title == "Greenhouse heater"
    assert note.meta["created"] == "2024-03-01T09:00:00.000Z" and note.meta["updated"] == "2024-03-14T10:00:00.000Z"
    assert [(s.start_line, s.end_line) for s in note.sections] == [(1, 3)], note.sections
    assert "parent_id" not in note.sections[0].text and "type_" not in note.sections[0].text
    with pytest.raises(Skip, match="a Joplin notebook's record \\('Garden'\\), not a note"):
        parse_markdown("9a1b0123456789abcdef0123456789ab.md", VAULTS["joplin/9a1b0123456789abcdef0123456789ab.md"])
    # a note of another name that ends so is a note as written
    assert parse_markdown("Heater.md", VAULTS[f"joplin/{HEATER}.md"]).sections[0].end_line == 16


def test_a_snippet_shows_a_link_to_a_file_by_its_label_not_its_path_and_id():
    line = (f"See [Billing migration](Roadmap%20{NOTION}/Billing%20migration%20{NOTION}.md) "
            "and [the site](https://x.org/a).")
    shown = snippet(line, "billing", note=True)
    assert NOTION not in shown and "See **Billing** migration and [the site](https://x.org/a)." in shown, shown


def test_a_snippet_keeps_a_link_to_a_mail_address_or_another_file_as_written():
    # only a link to a note is shown by its label: an address or a file's name a search found stays in the snippet
    shown = snippet("Ask [Alice](mailto:alice@example.com) or run [the script](scripts/setup.sh).", "alice setup.sh",
                    note=True)
    assert "mailto:**alice**@example.com" in shown and "scripts/**setup**.**sh**" in shown, shown
    assert snippet("[Notes](<Billing plan.md> \"t\") and [J](:/0123456789abcdef0123456789abcdef)", "notes",
                   note=True) == "**Notes** and J"


def test_the_vaults_through_sift_mcp(immediate, tmp_path, servers, sift_env, monkeypatch):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "vaults", VAULTS)
    for name in ("logseq", "notion", "bear", "joplin"):
        ingest(root / name, name)

    async def scenario():
        async with servers.session({**sift_env, "SIFT_EMBEDDINGS": "off"}, "--no-worker") as s:
            return [await call(s, "search", query="local search engine", mode="keyword"),
                    await call(s, "search", query="faster", mode="keyword"),
                    await call(s, "search", query="#project", mode="keyword"),
                    await call(s, "search", query="quarterly billing", mode="keyword"),
                    await call(s, "read_file", path="logseq/pages/projects___gardening.md"),
                    await call(s, "read_file", path="logseq/pages/Sift Project.md"),
                    await call(s, "search", query="paraffin heater", mode="keyword"),
                    await call(s, "read_file", path=f"joplin/{SEEDS}.md"),
                    await call(s, "list_files", collection="joplin"),
                    await call(s, "read_file", path="[[Projects/Gardening]]"),
                    await call(s, "read_file", path="[[Mar 14th, 2024]]"),
                    await call(s, "search", query="cohort list billing", mode="keyword"),
                    await call(s, "read_file", path=f"notion/Roadmap {NOTION}/Billing migration {NOTION[::-1]}.md")]
    engine, faster, tagged, notion, garden, page, heater, seeds, listed, linked, day, cohort, billing = run(scenario)
    hits = engine.structured_content["results"]
    sift = [hit["path"] for hit in hits if "Sift" in hit["path"]]
    assert sift == ["logseq/pages/Sift Project.md"], text(engine)  # no copy of it from logseq/bak
    assert "id::" not in hits[0]["snippet"] and "title::" not in hits[0]["snippet"], hits[0]["snippet"]
    assert UUID not in text(faster) and "She wants to be **faster**" in text(faster), text(faster)
    assert tagged.structured_content["results"][0]["path"] == "logseq/pages/Sift Project.md", text(tagged)
    assert NOTION not in notion.structured_content["results"][0]["snippet"], text(notion)
    assert "[linked from 1 note: logseq/journals/2024_03_14.md]" in text(garden), text(garden)  # [[projects/gardening]]
    assert "[linked from 2 notes: logseq/journals/2024_03_14.md, logseq/journals/2024_03_15.md]" in text(page), \
        text(page)
    hit = heater.structured_content["results"][0]
    assert hit["title"] == "Greenhouse heater" and "parent_id" not in hit["snippet"], text(heater)
    assert f"[linked from 1 note: joplin/{HEATER}.md]" in text(seeds), text(seeds)  # by '(:/fedc…)'
    assert "a Joplin notebook's record ('Garden'), not a note" in text(listed), text(listed)
    assert not linked.is_error and linked.structured_content["path"] == "logseq/pages/projects___gardening.md", \
        text(linked)  # the namespace page a journal's link names, in any case
    assert day.structured_content["path"] == "logseq/journals/2024_03_14.md", text(day)  # a journal by its date
    assert "[linked from 1 note: logseq/journals/2024_03_15.md]" in text(day), text(day)
    row = next(hit for hit in cohort.structured_content["results"] if "Draft" in hit["path"])
    shown = row["snippet"].replace("**", "")
    assert "Project: Billing migration List the" in shown and NOTION not in shown, text(cohort)
    row_path = f"notion/Tasks {NOTION}/Draft the cohort list {NOTION}.md"
    assert f"[linked from 2 notes: notion/Roadmap {NOTION}.md, {row_path}]" in text(billing), text(billing)  # by the row's relation, beside the roadmap's link


def test_an_alias_another_note_is_named_by_links_to_that_note_not_the_aliased_one(immediate, tmp_path):
    from mcp_server.backlinks import linked_from
    from search.index import file_reads
    from workers import runtime
    ingest(write_tree(tmp_path / "notes", {
        "Artificial Intelligence.md": "alias:: AI, machine minds\n\n- the field\n",
        "AI.md": "# AI\n\nThe game's AI opponent.\n", "Game.md": "The [[AI]] cheats.\n",
        "Essay.md": "On [[machine minds]].\n"}))
    conn = runtime.index()
    aliased = file_reads.visible_file(conn, "notes", "Artificial Intelligence.md")
    assert linked_from(conn, "notes", "Artificial Intelligence.md", aliased) == (["notes/Essay.md"], 1)
    assert linked_from(conn, "notes", "AI.md", file_reads.visible_file(conn, "notes", "AI.md")) == (["notes/Game.md"], 1)


def test_read_file_opens_a_page_by_its_alias_as_its_backlinks_read_one(immediate, tmp_path, monkeypatch):
    """read_file('[[machine minds]]') said no file matched, though '[[machine minds]]' is listed among the page's
    backlinks ('alias:: machine minds'): it reads the page aliased so now; a note named so still comes first, and an
    alias two pages share names neither."""
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    ingest(write_tree(tmp_path / "notes", {
        "Artificial Intelligence.md": "alias:: AI, machine minds, shared\n\n- the field\n",
        "AI.md": "# AI\n\nThe game's AI opponent.\n", "Essay.md": "On [[machine minds]].\n",
        "Other.md": "---\naliases: [Shared]\n---\nAnother page.\n"}))
    tools = Tools(Sift(load()))
    read = tools.read_file(path="[[Machine Minds]]")
    assert not read.is_error and read.structured_content["path"] == "notes/Artificial Intelligence.md", \
        read.content[0].text
    assert "the field" in read.content[0].text and "[linked from 1 note: notes/Essay.md]" in read.content[0].text
    assert tools.read_file(path="[[AI]]").structured_content["path"] == "notes/AI.md"
    with pytest.raises(Exception, match="shared"):
        tools.read_file(path="[[shared]]")


def test_a_notion_rows_tags_property_is_its_tags():
    """A Notion database row's page holds its multi-select as 'Tags: design, backend' under its title: it was text
    only, no tag (a search for #design did not find the row by its tag); its options are its tags now. The same line
    in another note (no Notion id in its name) stays text."""
    row = (f"# Draft the cohort list\n\nAssignee: Lin Wei\nTags: design, performance work\nStatus: Done\n\n"
           "List the customers. #billing\n")
    doc = parse_markdown(f"notion/Tasks {NOTION}/Draft the cohort list {NOTION}.md", row)
    assert doc.meta["tags"] == ["billing", "design", "performance work"], doc.meta
    assert "Tags: design, performance work" in doc.sections[0].text  # its text too, as a Dataview field's
    assert parse_markdown("notes/Draft.md", row).meta["tags"] == ["billing"]
    later = row.replace("Tags:", "Owner: Ana\n\nTags:")  # not the block under the title: a line of its text
    assert parse_markdown(f"notion/Draft {NOTION}.md", later).meta["tags"] == ["billing"]


def joplin_record(first: str, properties: dict, kind: int) -> str:
    """A tag's (type_ 5: its name, then its properties) or a note's tag's record (type_ 6: properties alone), as
    Joplin's raw export writes them."""
    lines = [f"{key}: {value}" for key, value in properties.items()] + [
        "created_time: 2024-03-01T09:00:00.000Z", "updated_time: 2024-03-01T09:00:00.000Z",
        "user_created_time: 2024-03-01T09:00:00.000Z", "user_updated_time: 2024-03-01T09:00:00.000Z",
        "encryption_cipher_text: ", "encryption_applied: 0", "is_shared: 0", f"type_: {kind}"]
    return (f"{first}\n\n" if first else "") + "\n".join(lines)


def test_a_joplin_raw_notes_tags_are_the_records_beside_it(immediate, tmp_path, monkeypatch):
    """A raw export keeps a note's tags apart: a tag record and a note-tag record naming both ids. They were
    skipped and the note had no tags: a search for its tag 'horticulture' found nothing."""
    from ingest.files import read_and_parse
    tag, other, link, link2 = "11" * 16, "22" * 16, "33" * 16, "44" * 16
    root = write_tree(tmp_path / "export", {
        f"{HEATER}.md": joplin_item("Greenhouse heater", "The paraffin heater."),
        f"{SEEDS}.md": joplin_item("Seed list", "Tomatoes and beans.", id_=SEEDS),
        f"{tag}.md": joplin_record("Horticulture", {"id": tag, "parent_id": ""}, 5),
        f"{other}.md": joplin_record("winter", {"id": other, "parent_id": ""}, 5),
        f"{link}.md": joplin_record("", {"id": link, "note_id": HEATER, "tag_id": tag}, 6),
        f"{link2}.md": joplin_record("", {"id": link2, "note_id": HEATER, "tag_id": other}, 6)})
    assert read_and_parse(root, f"{HEATER}.md").doc.meta["tags"] == ["Horticulture", "winter"]
    assert "tags" not in read_and_parse(root, f"{SEEDS}.md").doc.meta
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    published = ingest(root, "joplin")["published"]
    assert sorted(f["reason"] for f in published["failures"]) == [
        "a Joplin note's tag's record, not a note", "a Joplin note's tag's record, not a note",
        "a Joplin tag's record ('Horticulture'), not a note", "a Joplin tag's record ('winter'), not a note"]
    from search.query.engine import Engine
    hits = Engine(Path(os.environ["SIFT_HOME"]) / "index.db").search("horticulture", mode="keyword").hits
    assert [h.path for h in hits] == [f"{HEATER}.md"], hits


def test_a_logseq_tasks_time_log_is_no_text():
    """Logseq writes a task's clock under it once it is NOW or DOING, and shows it folded: ':LOGBOOK:', 'CLOCK:'
    lines, ':END:' were its passage's text. A note writing ':LOGBOOK:' as text (no CLOCK lines and :END:) keeps it."""
    page = ("- DONE Write the grant report\n  :LOGBOOK:\n  CLOCK: [2024-03-14 Thu 10:21:30]--[2024-03-14 Thu 11:02:10]"
            " =>  00:40:40\n  CLOCK: [2024-03-15 Fri 09:00:00]--[2024-03-15 Fri 09:30:00] =>  00:30:00\n  :END:\n"
            "\t- Sent to Ana\n- Logseq's :LOGBOOK: drawer holds clock lines\n")
    note = parse_markdown("pages/Grants.md", page)
    text = "\n".join(s.text for s in note.sections)
    assert "CLOCK" not in text and "00:40:40" not in text and ":END:" not in text, text
    assert "Write the grant report" in text and "Sent to Ana" in text and "Logseq's :LOGBOOK: drawer" in text
    assert [s.end_line for s in note.sections][-1] == 7  # the lines keep their numbers


def test_a_logseq_pages_filters_property_is_no_text():
    """'filters::' is what Logseq writes when its linked references are filtered: it was the page's first line."""
    note = parse_markdown("pages/Garden.md", 'filters:: {"project" false, "done" true}\ntype:: place\n\n- Beds\n')
    text = note.sections[0].text
    assert "filters" not in text and '"project" false' not in text and "type:: place" in text, text


def test_a_joplin_note_in_the_trash_or_encrypted_is_skipped_saying_so():
    """Joplin 3 keeps a deleted note in its sync target with 'deleted_time:' set, and an end-to-end encrypted one
    as ciphertext: both were indexed, the first found by search, the second a note of nothing."""
    trashed = joplin_item("Old heater", "The broken heater.").replace("is_todo: 0", "is_todo: 0\ndeleted_time: "
                                                                     "2024-03-14T10:00:00.000Z")
    with pytest.raises(Skip, match="a Joplin note in the trash \\('Old heater'\\)"):
        parse_markdown(f"{HEATER}.md", trashed)
    encrypted = joplin_item("", "").replace("is_todo: 0", "is_todo: 0\nencryption_cipher_text: "
                                            "JED0100002201f4b4\nencryption_applied: 1")
    with pytest.raises(Skip, match="encrypted"):
        parse_markdown(f"{HEATER}.md", encrypted)
    kept = joplin_item("Heater", "Works.").replace("is_todo: 0", "is_todo: 0\ndeleted_time: 0\nencryption_applied: 0")
    assert parse_markdown(f"{HEATER}.md", kept).title == "Heater"
