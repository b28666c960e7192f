"""A folder synced by Dropbox, iCloud, Syncthing or OneDrive and edited in Vim, Emacs, VS Code or Obsidian.

What editors and sync tools write for a moment beside a note (VS Code's atomic-save temp, Vim's 4913 probe, Emacs'
#autosave#, iCloud's placeholders …) is never indexed, counted or worth a scan; a sync conflict copy is a file of
its own, listed and searchable, whose passages are folded into its note's hit when both match."""
from __future__ import annotations

from collections import Counter

from watchfiles import Change

from tests.conftest import indexed_engine, ingest, write_tree

NOTE = ("# Sourdough starter\n\nFeed the sourdough starter twice a day with rye flour and water at 24 degrees; "
        "discard half before each feeding so the jar does not overflow.\n")
TEMPS = ["4913", "note.md.vsctmp", "note.md.crswap", "note.md___jb_tmp___", "note.md___jb_old___",
         ".note.md.icloud", "#note.md#", ".#note.md", ".note.md.swp", "note.md~", ".syncthing.note.md.tmp",
         "~syncthing~note.md.tmp", ".~lock.budget.ods#"]


def test_editor_and_sync_temp_files_are_neither_indexed_nor_counted_nor_scanned(immediate, tmp_path):
    """'#note.md#' (Emacs' autosave) was in the ignore list as '#*#', which a .gitignore reads as a comment: it
    matched nothing, and stats said '1 file of kinds Sift does not read: (other endings) 1'; VS Code's
    'note.md.vsctmp', Chrome's '.crswap', Vim's '4913' were counted likewise, and each coming and going was
    asked for a scan."""
    from ingest.discover import Rules, walk, why_not_indexed
    from workers import runtime
    from workers.watch import Watcher
    root = write_tree(tmp_path / "notes", {"note.md": NOTE, **{name: "x\n" for name in TEMPS}})
    unread = Counter()
    assert [f.path for f in walk(root, unread=unread)] == ["note.md"]
    assert unread == Counter(), unread
    for name in TEMPS:
        assert "ignore list" in why_not_indexed(root, name), name
    ingest(root)
    watcher = Watcher(runtime.index(), Rules())
    for name in TEMPS:
        for change in (Change.added, Change.modified, Change.deleted):
            assert not watcher.relevant(1, str(root), change, name), (change, name)


def test_a_folder_named_like_vims_probe_file_is_read(immediate, tmp_path):
    """Vim's probe is a file named 4913; the ignore list's '4913' left out a folder so named (a ticket's number) and
    every note in it: 'tickets/4913/ is in the ignore list'. The file alone is left out, and what the list leaves
    out inside such a folder still is."""
    from ingest.discover import walk, why_not_indexed
    root = write_tree(tmp_path / "notes", {"tickets/4913/notes.md": NOTE, "tickets/4913/4913": "x\n",
                                           "tickets/4913/save.tmp": "x\n", "4913": "x\n", "note.md": NOTE})
    assert sorted(f.path for f in walk(root)) == ["note.md", "tickets/4913/notes.md"]
    assert why_not_indexed(root, "tickets/4913/notes.md") is None
    assert "ignore list" in why_not_indexed(root, "tickets/4913/4913")


def test_original_of_names_the_note_a_conflict_copy_copies():
    from search.query.copies import original_of
    assert original_of("a/note (conflicted copy 2024-03-01).md") == "a/note.md"
    assert original_of("note (Ann's conflicted copy 2024-03-01 (1)).md") == "note.md"
    assert original_of("note (conflicted copy 2024-03-01 123456).md") == "note.md"
    assert original_of("note.sync-conflict-20240301-123456-ABCDEFG.md") == "note.md"
    assert original_of("note_conflict-20240301-123456.md") == "note.md"
    assert original_of("x/note (1).md") == "x/note.md"
    assert original_of("note.md") is None and original_of("chapter 1.md") is None
    assert original_of("(1).md") is None


def test_dropboxs_copy_of_a_folder_is_a_conflict_copy_of_each_note_in_it(immediate, tmp_path, embedder):
    """Dropbox makes 'Notes (Selective Sync Conflict)/' when a folder left out by selective sync is made again on
    this machine: its notes showed as notes of their own, each passage beside its note's. Each is now the copy of the
    note at the same path in the original folder: folded into its hit when both match, named as its copy when
    alone; a folder named so whose original folder the index does not hold is shown as any."""
    from mcp_server.render import hit_data, hits_text
    from search.query.copies import original_of
    root = write_tree(tmp_path / "notes", {
        "Notes/bread/sourdough.md": NOTE,
        "Notes (Selective Sync Conflict)/bread/sourdough.md": NOTE + "\nOn the laptop: try spelt flour instead.\n",
        "Notes (Selective Sync Conflict 2)/bread/sourdough.md": NOTE,
        "Notes/bread/rye.md": "# Rye bread\n\nRye flour makes a dense loaf; a sourdough starter makes it sour.\n",
        "Old (Selective Sync Conflict)/kumquat.md": "# Kumquat\n\nKumquats in syrup, kept in a jar.\n",
    })
    engine = indexed_engine(root, "notes", embedder)
    for mode in ("keyword", "hybrid"):
        answer = engine.search("feed the sourdough starter rye flour", mode=mode)
        paths = [hit.path for hit in answer.hits]
        assert "Notes/bread/sourdough.md" in paths and not any(p.startswith("Notes (") for p in paths), (mode, paths)
        first = next(hit for hit in answer.hits if hit.path == "Notes/bread/sourdough.md")
        assert sorted(first.conflict_copies) == [
            "notes/Notes (Selective Sync Conflict 2)/bread/sourdough.md",
            "notes/Notes (Selective Sync Conflict)/bread/sourdough.md"], mode
    only = engine.search("spelt", mode="keyword")
    assert [hit.path for hit in only.hits] == ["Notes (Selective Sync Conflict)/bread/sourdough.md"]
    assert only.hits[0].conflict_copy_of == "notes/Notes/bread/sourdough.md"
    assert "(a sync conflict copy of notes/Notes/bread/sourdough.md, which did not match)" in "\n".join(
        hits_text([hit_data(h) for h in only.hits]))
    alone = engine.search("kumquats syrup", mode="keyword").hits
    assert [hit.path for hit in alone] == ["Old (Selective Sync Conflict)/kumquat.md"]
    assert alone[0].conflict_copy_of is None, "Old/kumquat.md is not indexed: nothing to name"
    assert original_of("Notes (Selective Sync Conflict)/bread/a.md") == "Notes/bread/a.md"
    assert original_of("w/Notes (Selective Sync Conflict 2)/a.md") == "w/Notes/a.md"
    assert original_of("Notes (conflict)/a.md") is None and original_of("(Selective Sync Conflict)/a.md") is None


def test_a_copy_inside_dropboxs_copy_of_a_folder_folds_into_the_original_folders_note(immediate, tmp_path, embedder):
    """'Notes (Selective Sync Conflict)/plan (1).md' was taken for the copy of 'Notes (Selective Sync Conflict)/
    plan.md', itself a copy: its passages went on the page (that note's were folded into 'Notes/plan.md') or were
    named on a copy's hit. It is folded into 'Notes/plan.md' where the index holds it, into the copied folder's
    'plan.md' where it does not."""
    from search.query import copies
    plan = "# Plan\n\nMove the greenhouse seedlings outside after the last frost in May.\n"
    root = write_tree(tmp_path / "notes", {
        "Notes/plan.md": plan,
        "Notes (Selective Sync Conflict)/plan.md": plan,
        "Notes (Selective Sync Conflict)/plan (1).md": plan,
        "Old (Selective Sync Conflict)/plan.md": plan,  # Old/plan.md is not indexed
        "Old (Selective Sync Conflict)/plan (1).md": plan,
    })
    engine = indexed_engine(root, "notes", embedder)
    hits = engine.search("greenhouse seedlings frost", mode="keyword").hits
    assert sorted(hit.path for hit in hits) == ["Notes/plan.md", "Old (Selective Sync Conflict)/plan.md"], hits
    by_path = {hit.path: hit for hit in hits}
    assert sorted(by_path["Notes/plan.md"].conflict_copies) == [
        "notes/Notes (Selective Sync Conflict)/plan (1).md", "notes/Notes (Selective Sync Conflict)/plan.md"]
    assert by_path["Old (Selective Sync Conflict)/plan.md"].conflict_copies == [
        "notes/Old (Selective Sync Conflict)/plan (1).md"]
    assert copies.original_of("Notes (Selective Sync Conflict)/plan (1).md") == "Notes/plan.md"
    assert copies.originals("Notes (Selective Sync Conflict)/plan (1).md") == [
        "Notes/plan.md", "Notes (Selective Sync Conflict)/plan.md"]
    assert copies.originals("Notes/plan (1).md") == ["Notes/plan.md"] and copies.originals("Notes/plan.md") == []


def test_a_conflict_copy_is_searchable_but_folded_into_its_notes_hit(immediate, tmp_path, embedder):
    """Dropbox's copy of a note holds its text: a search gave both, at the same score, two of the page's places for
    one note. The copy's passages are now left off when the note ranks too, and the note's hit names the copy; a
    word only the copy holds still finds it, named as the copy of the note."""
    from mcp_server.render import hit_data, hits_text
    root = write_tree(tmp_path / "notes", {
        "bread/sourdough.md": NOTE,
        "bread/sourdough (conflicted copy 2024-03-01).md": NOTE + "\nOn the laptop: try spelt flour instead.\n",
        "bread/sourdough.sync-conflict-20240301-123456-ABCDEFG.md": NOTE,
        "bread/rye.md": "# Rye bread\n\nRye flour makes a dense loaf; a sourdough starter gives it its sour taste.\n",
        "todo (1).md": "# Todo\n\nBuy rye flour.\n",  # a '(1)' without its original: a file like any other
    })
    engine = indexed_engine(root, "notes", embedder)
    for mode in ("keyword", "hybrid"):
        answer = engine.search("feed the sourdough starter rye flour", mode=mode)
        paths = [hit.path for hit in answer.hits]
        assert "bread/sourdough.md" in paths and "bread/rye.md" in paths, (mode, paths)
        assert not any("conflict" in p for p in paths), (mode, paths)
        first = next(hit for hit in answer.hits if hit.path == "bread/sourdough.md")
        assert sorted(first.conflict_copies) == [
            "notes/bread/sourdough (conflicted copy 2024-03-01).md",
            "notes/bread/sourdough.sync-conflict-20240301-123456-ABCDEFG.md"], mode
        todo = [hit for hit in answer.hits if hit.path == "todo (1).md"]
        assert todo and todo[0].conflict_copy_of is None, (mode, paths)
    shown = "\n".join(hits_text([hit_data(h) for h in answer.hits]))
    assert "(its sync conflict copies notes/bread/sourdough" in shown and "matched too: left off the page" in shown, \
        shown

    only = engine.search("spelt", mode="keyword")
    assert [hit.path for hit in only.hits] == ["bread/sourdough (conflicted copy 2024-03-01).md"]
    assert only.hits[0].conflict_copy_of == "notes/bread/sourdough.md"
    assert "(a sync conflict copy of notes/bread/sourdough.md, which did not match)" in "\n".join(hits_text([hit_data(h) for h in only.hits]))


def test_a_copys_passage_holding_words_its_note_does_not_stays_on_the_page(immediate, tmp_path, embedder):
    """A conflict copy is the other machine's edit (and 'chapter (1).md' may be a note of its own): a search for
    'sourdough starter spelt' found the copy's passage, the one that says spelt, and left it off the page for the
    note's, which does not: 'spelt' was nowhere on the page. A copy's passage the note's passages cover is still
    folded."""
    from mcp_server.render import hit_data, hits_text
    root = write_tree(tmp_path / "notes", {
        "bread/sourdough.md": NOTE,
        "bread/sourdough (conflicted copy 2024-03-01).md": NOTE + "\nOn the laptop: try spelt flour instead.\n",
        "bread/rye.md": "# Rye bread\n\nRye flour makes a dense loaf; a sourdough starter gives it its sour taste.\n",
    })
    engine = indexed_engine(root, "notes", embedder)
    for mode in ("keyword", "hybrid"):
        answer = engine.search("sourdough starter spelt", mode=mode)
        paths = [hit.path for hit in answer.hits]
        assert "bread/sourdough (conflicted copy 2024-03-01).md" in paths, (mode, paths)
        copy = next(hit for hit in answer.hits if "conflicted" in hit.path)
        assert copy.conflict_copy_of == "notes/bread/sourdough.md" and copy.conflict_original_matched, mode
        shown = "\n".join(hits_text([hit_data(h) for h in answer.hits]))
        assert "which matched too: this copy holds words of the search it does not" in shown, shown
        assert "which did not match" not in shown, shown
    folded = engine.search("sourdough starter rye flour", mode="keyword")
    assert not any("conflicted" in hit.path for hit in folded.hits), [hit.path for hit in folded.hits]


def test_a_copy_holding_only_a_questions_framing_words_is_still_folded(immediate, tmp_path, embedder):
    """'how do I feed the sourdough starter?': the copy's edit ('I do it before work') held 'i' and 'do', which the
    note's passage does not, and the copy took a place of its own on the page, said to hold 'words of the search'
    the note does not. A question's framing (how, do, I), which search does not look up, keeps no copy."""
    root = write_tree(tmp_path / "notes", {
        "bread/sourdough.md": NOTE,
        "bread/sourdough (conflicted copy 2024-03-01).md": NOTE + "\nI do it before work.\n",
        "bread/rye.md": "# Rye bread\n\nRye flour makes a dense loaf; a sourdough starter gives it its sour taste.\n",
    })
    engine = indexed_engine(root, "notes", embedder)
    for mode in ("keyword", "hybrid"):
        answer = engine.search("how do I feed the sourdough starter?", mode=mode)
        paths = [hit.path for hit in answer.hits]
        assert "bread/sourdough.md" in paths and not any("conflicted" in p for p in paths), (mode, paths)
        first = next(hit for hit in answer.hits if hit.path == "bread/sourdough.md")
        assert first.conflict_copies == ["notes/bread/sourdough (conflicted copy 2024-03-01).md"], mode
