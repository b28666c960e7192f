"""similar and sync conflict copies (search.query.copies), over the real MCP stdio client: the note asked about
gave its own conflict copy first (score 1.0, its own text), useless as a similar note; another note and its copy
took two places. Now the copies of the file asked about are left out, saying so, and another note's copy is named
on that note's hit, as search does."""
from __future__ import annotations

from tests.conftest import ingest, write_tree
from tests.test_mcp_server import call, run, text

SOURDOUGH = "# Sourdough\n\nFeed the starter twice a day with rye flour; bake the loaf in a hot dutch oven.\n"
FOCACCIA = "# Focaccia\n\nA wet dough of flour, water and olive oil, left to rise overnight, baked in a tray.\n"
STANDUP = "# Standup\n\nThe quarterly invoices are late; Marta chases the supplier on Monday.\n"
RETRO = "# Retrospective\n\nThe release went out two days late because the staging database was full.\n"
NOTES = {
    "bread/sourdough.md": SOURDOUGH,
    "bread/sourdough (conflicted copy 2024-03-01).md": SOURDOUGH,
    "bread/focaccia.md": FOCACCIA,
    "bread/focaccia.sync-conflict-20240301-123456-ABCDEFG.md": FOCACCIA,
    "garden/tomatoes.md": "# Tomatoes\n\nWater the tomato plants each evening and tie them to their stakes.\n",
    "garden/plan.md": "# Plan\n\nSow the beans in April along the south fence.\n",
    "garden/plan (1).md": "# Plan for the shed\n\nPaint the shed green and fix its door hinge.\n",  # a note of its own
    "work/standup.md": STANDUP,
    "work/standup-DESKTOP-AB12CDE.md": STANDUP,  # OneDrive: the machine's name appended
    "work/retro.md": RETRO,
    "work/retro 2.md": RETRO,  # iCloud Drive
    "book/chapter.md": "# The storm\n\nThe ship left the harbour as the storm rose over the cliffs.\n",
    "book/chapter 2.md": "# The island\n\nThey woke on a beach of black sand, the wreck far out at sea.\n",
}


def paths(result) -> list[str]:
    return [hit["path"] for hit in result.structured_content["results"]]


def test_similar_leaves_out_the_notes_own_conflict_copy_and_folds_others(immediate, tmp_path, sift_env, servers):
    ingest(write_tree(tmp_path / "notes", NOTES), "notes")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return (await call(s, "similar", path="notes/bread/sourdough.md", limit=5),
                    await call(s, "similar", path="notes/bread/sourdough (conflicted copy 2024-03-01).md", limit=5),
                    await call(s, "similar", path="notes/garden/plan.md", limit=20),
                    await call(s, "search", query="quarterly invoices supplier", mode="keyword"),
                    await call(s, "similar", path="notes/work/retro.md", limit=20),
                    await call(s, "similar", path="notes/book/chapter.md", limit=20),
                    await call(s, "search", query="retrospective staging database", mode="keyword"))
    of_note, of_copy, of_plan, standup, of_retro, of_chapter, retro = run(scenario)
    said = text(of_note)
    assert paths(of_note)[0] == "notes/bread/focaccia.md" and "notes/garden/tomatoes.md" in paths(of_note), said
    assert not any("sourdough" in p or "sync-conflict" in p for p in paths(of_note)), said
    assert "left out notes/bread/sourdough (conflicted copy 2024-03-01).md: a sync conflict copy of the file " \
           "asked about, and its passage is one the file holds too (read_file reads it)" in said, said
    assert of_note.structured_content["results"][0]["conflict_copies"] == [
        "notes/bread/focaccia.sync-conflict-20240301-123456-ABCDEFG.md"], said
    assert paths(of_copy)[0] == "notes/bread/focaccia.md", text(of_copy)
    assert not any("sourdough" in p for p in paths(of_copy)), text(of_copy)
    assert "left out notes/bread/sourdough.md: the file asked about is a sync conflict copy of it" in text(of_copy)
    # a note named as a copy is, but holding none of the note's passages, stays: a false fold would hide it
    assert "notes/garden/plan (1).md" in paths(of_plan), text(of_plan)
    assert "notes/garden/plan (1).md is shown, though named as a sync conflict copy of the file asked about: its " \
           "passage is not one the file holds" in text(of_plan), text(of_plan)

    # OneDrive's copy (a Windows default machine name) is folded by search as the others are
    assert paths(standup) == ["notes/work/standup.md"], text(standup)
    assert standup.structured_content["results"][0]["conflict_copies"] == ["notes/work/standup-DESKTOP-AB12CDE.md"]
    # iCloud's 'retro 2.md' is left out of similar, its passage the note's own; search keeps it ('chapter 2.md'
    # beside 'chapter.md' may be a note of its own, and search compares no texts)
    assert "notes/work/retro 2.md" not in paths(of_retro), text(of_retro)
    assert "left out notes/work/retro 2.md: a sync conflict copy of the file asked about, and its passage is one " \
           "the file holds too" in text(of_retro), text(of_retro)
    assert sorted(paths(retro)) == ["notes/work/retro 2.md", "notes/work/retro.md"], text(retro)
    assert "notes/book/chapter 2.md" in paths(of_chapter), text(of_chapter)
    # and is not called a copy: its text is none of the chapter's, and its name is as likely a chapter's own
    assert "chapter 2.md is shown" not in text(of_chapter), text(of_chapter)


def test_onedrive_and_icloud_copy_names():
    from search.query.copies import maybe_original_of, original_of
    assert original_of("a/note-DESKTOP-AB12CDE.md") == "a/note.md" and original_of("note-LAPTOP-XYZ.md") == "note.md"
    assert original_of("note-desktop-ab12cde.md") is None, "Windows writes its default names in capitals"
    assert original_of("note-Anns-PC.md") is None and original_of("road-LAPTOP-reviews.md") is None
    assert original_of("note 2.md") is None and maybe_original_of("note 2.md") == "note.md"
    assert maybe_original_of("a/chapter 12.md") == "a/chapter.md"
    assert maybe_original_of("note 1.md") is None and maybe_original_of(".x 2.md") is None
    assert maybe_original_of("note (conflicted copy 2024-03-01).md") == "note.md"
