"""What search answers a model in two corners, through the real sift-mcp over stdio.

A query over the 10,000 characters searched was cut at the 10,000th character, inside a word: 'prisma prisma …
pris' searched for 'pris' and the answer said `no passage contains 'pris'`, a word the user never typed. Now it
ends before that word. And an empty answer before anything is published no longer says to try other words.
"""
from __future__ import annotations

from tests.conftest import ingest, write_tree
from tests.test_mcp_server import call, run, text


def test_a_long_query_is_cut_between_words(immediate, tmp_path, servers, sift_env, monkeypatch):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "notes", {"prisma.md": "# Prisma\n\nprisma schema location\n",
                                           "other.md": "# Other\n\nnothing here\n"})
    ingest(root, "notes")

    async def scenario():
        async with servers.session({**sift_env, "SIFT_EMBEDDINGS": "off"}, "--no-worker") as s:
            return await call(s, "search", query="prisma " * 3000, mode="keyword", limit=1)
    answer = run(scenario)
    assert not answer.is_error, text(answer)
    assert "no passage contains" not in text(answer) and "unmatched" not in answer.structured_content, text(answer)[:600]
    assert "the query was cut to its first 10,000 characters, before the word they end inside" in text(answer)
    assert answer.structured_content["query"].split()[-1] == "prisma"
    assert answer.structured_content["results"][0]["path"] == "notes/prisma.md"


def test_a_search_before_anything_is_published_does_not_say_to_try_other_words(tmp_path, servers, sift_env):
    """Before the first generation of a collection is published, an empty answer said 'try other words, mode
    'semantic', or fewer filters': a model did, call after call. It now says other words will not help."""
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nquokka\n"})
    from search.index import db, store
    from search.settings import load
    conn = db.connect(load().index_path)
    store.ensure_collection(conn, "notes", str(root))
    conn.close()

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return (await call(s, "search", query="quokka", mode="keyword"), await call(s, "search", query="quokka"),
                    await call(s, "search", query="quokka", mode="keyword", kind="pdf"))
    for answer in run(scenario):
        assert not answer.is_error and answer.structured_content["results"] == [], text(answer)
        assert "try other words" not in text(answer), text(answer)
        assert "no passage searched is in a file" not in text(answer), "not the filters: nothing is published"
        assert "other words will not help; search again once stats shows a published generation" in text(answer)
        # said once, not three ways: the engine's note, this line, and the freshness line's own clause
        assert "nothing is searchable yet" not in text(answer), text(answer)
        assert answer.structured_content["notes"][0].startswith("nothing is searchable yet"), "the data keeps it"


def test_passages_left_off_a_page_are_one_search_away(immediate, tmp_path, servers, sift_env, monkeypatch):
    """A long note matched by many passages shows two and says how many more ranked: the line said 'read_file
    shows the file', a dozen calls for a 500 KB note (a PDF: page by page). It now gives the search arguments
    that show them, and those arguments, copied, return that file's passages alone."""
    import re
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    sections = "".join(f"## Day {n}\n\nA kestrel hovered over field {n}, then dropped.\n\n" for n in range(12))
    root = write_tree(tmp_path / "notes", {"birds/log [2024].md": "# Bird log\n\n" + sections,
                                           **{f"other{n}.md": f"# Other {n}\n\nOne kestrel seen.\n" for n in range(3)}})
    ingest(root, "notes")

    async def scenario():
        async with servers.session({**sift_env, "SIFT_EMBEDDINGS": "off"}, "--no-worker") as s:
            page = await call(s, "search", query="kestrel field", mode="keyword", limit=5)
            said = re.search(r"search again with collection='notes', glob='([^']+)' to see them", text(page))
            assert said, text(page)
            return page, await call(s, "search", query="kestrel field", mode="keyword", limit=20,
                                    collection="notes", glob=said.group(1))
    page, alone = run(scenario)
    more = next(h["more_in_file"] for h in page.structured_content["results"] if h.get("more_in_file"))
    assert "read_file shows the file" not in text(page)
    paths = {h["path"] for h in alone.structured_content["results"]}
    assert paths == {"notes/birds/log [2024].md"}, text(alone)
    assert len(alone.structured_content["results"]) >= 2 + more


def test_a_pdf_s_citing_notes_are_listed_once_not_on_each_of_its_hits(immediate, tmp_path, servers, sift_env,
                                                                      monkeypatch):
    """Each hit of a PDF listed every note citing it (up to twenty paths), so two pages of one PDF on a page of
    results said them twice: later hits of the file refer to its first."""
    from tests.conftest import need_data
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    from pypdf import PdfReader, PdfWriter
    root = write_tree(tmp_path / "notes", {f"reading{n}.md": f"# Reading {n}\n\nSee [the model](geo.pdf).\n"
                                           for n in range(3)})
    # its first 3 of 19 pages (each of them about the hydro network), with its metadata (its created date): the
    # whole PDF's parse was most of the test's 15 s
    geo = need_data("pdf/en/GeoBase_NHNC1_Data_Model_UML_EN.pdf")
    writer = PdfWriter()
    writer.append(str(geo), pages=[0, 2, 3])
    writer.add_metadata(PdfReader(geo).metadata)
    with open(root / "geo.pdf", "wb") as out:
        writer.write(out)
    ingest(root, "notes")

    async def scenario():
        async with servers.session({**sift_env, "SIFT_EMBEDDINGS": "off"}, "--no-worker") as s:
            return await call(s, "search", query="hydro network", mode="keyword", kind="pdf", limit=2)
    found = run(scenario)
    hits = found.structured_content["results"]
    assert [h["path"] for h in hits] == ["notes/geo.pdf"] * 2, text(found)
    assert all(h["cited_by"] == [f"notes/reading{n}.md" for n in range(3)] for h in hits), "the data keeps them"
    listed = "cited by notes: notes/reading0.md, notes/reading1.md, notes/reading2.md"
    assert text(found).count(listed) == 1 and text(found).count("notes/reading1.md") == 1, text(found)
    # the PDF's created date likewise: said on its first hit, not again on the second (the data keeps both)
    dated = hits[0]["dated"]
    assert dated and hits[1]["dated"] == dated, hits
    assert text(found).count(f"dated {dated}") == 1, text(found)
    assert "   cited by notes: as for hit 1" in text(found).splitlines(), text(found)


def test_a_note_s_snippet_does_not_repeat_the_headings_shown_above_it(immediate, tmp_path, servers, sift_env,
                                                                     monkeypatch):
    """The snippet of a note's first passage began with its title (and a section's with its heading), just
    under the line that shows them: a fifth of its 240 columns said again (24 of 100 hits on 570 notes). Those
    heading lines are left out of the snippet, unless they are all the passage holds."""
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    body = "The quokka colony on the island grew this year. " * 3
    root = write_tree(tmp_path / "notes", {
        "quokka.md": f"# Quokka Colony Census\n\n## Island Counts\n\n{body}\n\n### Weather Notes\n\nquokka rain\n",
        "heading.md": "# Quokka\n"})
    ingest(root, "notes")

    async def scenario():
        async with servers.session({**sift_env, "SIFT_EMBEDDINGS": "off"}, "--no-worker") as s:
            return await call(s, "search", query="quokka colony", mode="keyword")
    found = run(scenario)
    hits = {h["path"]: h for h in found.structured_content["results"]}
    census = hits["notes/quokka.md"]
    assert census["heading_path"] == "Quokka Colony Census > Island Counts", census
    assert census["snippet"].startswith("The **quokka** **colony** on the island"), census["snippet"]
    assert "Census" not in census["snippet"] and "Island Counts" not in census["snippet"]
    assert "   Quokka Colony Census > Island Counts" in text(found).splitlines()
    assert hits["notes/heading.md"]["snippet"] == "**Quokka**", "a passage that is only its heading shows it"


def test_filters_that_leave_no_file_say_so_not_to_try_other_words(immediate, tmp_path, servers, sift_env,
                                                                   monkeypatch):
    """A date no file reaches, or a kind the folder does not hold, found nothing and the answer said 'try other
    words, mode 'semantic', or fewer filters': a model tried other words, call after call. The note names the
    filters that leave no file; a search that has files to look in and misses still says to try other words."""
    import os
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nquokka habitat\n", "b.py": "def quokka():\n    pass\n"})
    os.utime(root / "a.md", (1_700_000_000, 1_700_000_000))  # 2023-11-14
    ingest(root, "notes")

    async def scenario():
        async with servers.session({**sift_env, "SIFT_EMBEDDINGS": "off"}, "--no-worker") as s:
            return [await call(s, "search", query=query, mode="keyword", **filters) for query, filters in (
                ("quokka", {"modified_after": "2999-01-01"}), ("quokka", {"kind": "pdf"}),
                ("quokka", {"kind": "note", "modified_before": "2001-01-01"}),
                ("quokka", {"kind": "note", "modified_before": "2024-01-01"}), ("wombat", {"kind": "note"}))]
    future, pdf, both, matching, other_words = run(scenario)
    for answer, said in ((future, "in a file modified at or after 2999-01-01 00:00:00: other words will not help; "
                                  "widen or drop that filter"),
                         (pdf, "in a file of kind pdf: other words"),
                         (both, "in a file of kind note and modified before 2001-01-01 00:00:00: other words will "
                                "not help; widen or drop those filters")):
        assert answer.structured_content["results"] == [] and f"note: no passage searched is {said}" in text(answer)
        assert "try other words" not in text(answer) and "the filters leave no file to search" in text(answer)
    assert [h["path"] for h in matching.structured_content["results"]] == ["notes/a.md"]
    assert "try other words" in text(other_words) and "no passage searched is in a file" not in text(other_words)


def test_a_short_note_s_passages_left_off_point_to_read_file(immediate, tmp_path, servers, sift_env, monkeypatch):
    """A short note matched by three passages showed two and said 'search again with collection=…, glob=…' to
    see the third: some 180 characters under half the hits of a search of short notes, for one passage of a note
    that one read_file call shows whole. A file of a few passages now names read_file, and that call shows it
    all; a long one keeps the search (test_passages_left_off_a_page_are_one_search_away)."""
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    sections = "".join(f"## Day {n}\n\nA kestrel hovered over field {n}: the kestrel saw a mouse in the field, and "
                       "the kestrel dropped on the field.\n\n" for n in range(3))
    root = write_tree(tmp_path / "notes", {"birds/log.md": "# Bird log\n\n" + sections,
                                           **{f"other{n}.md": f"# Other {n}\n\nOne kestrel, one field.\n" for n in range(3)},
                                           **{f"misc{n}.md": f"# Misc {n}\n\nA heron.\n" for n in range(8)}})
    ingest(root, "notes")

    async def scenario():
        async with servers.session({**sift_env, "SIFT_EMBEDDINGS": "off"}, "--no-worker") as s:
            page = await call(s, "search", query="kestrel field", mode="keyword", limit=3)
            return page, await call(s, "read_file", path=page.structured_content["results"][0]["path"])
    page, whole = run(scenario)
    first = page.structured_content["results"][0]
    assert first["path"] == "notes/birds/log.md" and first.get("more_in_file") == 1, text(page)
    assert "file_passages" not in first, "the text's alone: not in the data (its outputSchema is closed)"
    # in 60 characters, where 'ranked among these, left off for other files (read_file shows the file)' took 100
    assert "\n   + 1 more passage of this file matched (read_file shows it)\n" in text(page), text(page)
    assert "search again with" not in text(page), text(page)
    assert all(f"field {n}:" in text(whole) for n in range(3)), text(whole)


def test_a_title_that_is_its_file_s_name_is_not_said_again_under_the_path(immediate, tmp_path, servers, sift_env,
                                                                           monkeypatch):
    """'notes-en/clojure/type-of-anything.md' and under it 'Type of Anything': the title line said the file's
    name again, some 30 characters a hit of a folder of such notes (most of notes-en). It is left out of the text
    (the data keeps it); a title that says something its name does not stays, and so does a heading under it."""
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "notes", {
        "clojure/type-of-anything.md": "# Type of Anything\n\nThe kestrel function gives the type.\n",
        "birds/log.md": "# Bird log\n\nA kestrel hovered.\n",
        "birds/hawks.md": "# Hawks\n\n## Kestrel\n\nThe kestrel hovers over the field and drops.\n"})
    ingest(root, "notes")

    async def scenario():
        async with servers.session({**sift_env, "SIFT_EMBEDDINGS": "off"}, "--no-worker") as s:
            return await call(s, "search", query="kestrel", mode="keyword")
    page = run(scenario)
    said = text(page)
    assert {h["path"]: h["title"] for h in page.structured_content["results"]} == {
        "notes/clojure/type-of-anything.md": "Type of Anything", "notes/birds/log.md": "Bird log",
        "notes/birds/hawks.md": "Hawks"}, said
    assert "\n   Type of Anything\n" not in said and "\n   Bird log\n" in said, said
    assert "\n   Hawks > Kestrel\n" in said, said


def test_the_kind_argument_says_what_each_kind_holds(servers, sift_env, tmp_path):
    """kind said 'note (Markdown), code, pdf or text': a question about a Word document or a mailbox could go to
    kind='text' and find nothing. Its description names what is read as a note, and what text holds (similar's
    points to it: tools/list explains a shared argument once)."""
    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return {t.name: t.input_schema["properties"] for t in (await s.list_tools()).tools}
    tools = run(scenario)
    said = tools["search"]["kind"]["description"]
    assert all(word in said for word in ("Markdown", "Word", "mail", "slide decks", "CSV", "spreadsheets")), said
    assert tools["similar"]["kind"]["description"] == "As search's.", "explained once, in tools/list's search"
