"""list_files with a glob or a folder: narrowed in SQL by the pattern's literal text (or the folder's name) before
the Python match, with the same files found as the Python match alone finds (braces, '**/', a bare name, NFD
names, odd bytes)."""
from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest

from ingest.discover import kind_on_disk
from search.index import db, store
from search.query import filters, listing
from search.query.scope import CLI, Scope
from tests.conftest import write_tree


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


TRICKY = ["tech/a.md", "tech/deep/er/b.md", "tech.md", "technology/c.md", "x/tech/d.md", "tech/e.MD", "tech/f.mdx",
          "g.md", "src/app.ts", "src/app.tsx", "src/app.tsx.bak", "src/deep/w.ts", "note-1234-x.md", "n/note-1234.md",
          nfd("résumés/café.md"), "résumés/thé.md", nfd("tech/naïve.md"), "\u212aeys/k.md", "Keys/k.md",
          "odd[1].md", "odd?.md", "a b/c d.md", "new\nline.md", ".hidden/h.md", "tech/.md"]
PATTERNS = ["tech/**/*.md", "tech/*.md", "*.md", "*.{ts,tsx}", "src/**/*.{ts,tsx}", "**/note-*1234*.md",
            "note-*", "*é.md", "résumés/*.md", "Keys/*", "K*", "odd[[]1].md", "odd?.md", "*[]]*", "./tech/*.md",
            "tech*", "*", "**/*.md", "a b/*", "*line.md", "tech/.md", "{tech,src}/**/*.t*", "*.MD", "[!t]*/*.md"]


def pending(env, root, paths: list[str]) -> None:
    """``paths`` written under ``root`` and recorded as found by a scan (pending), collection 'many'."""
    write_tree(root, {p: "x\n" for p in paths})
    conn = db.connect(os.path.join(env["SIFT_HOME"], "index.db"))
    collection = store.ensure_collection(conn, "many", str(root))
    gen = store.begin_generation(conn, collection["id"], None)
    store.record_plan(conn, gen, collection["id"], dict.fromkeys(paths, "added"), {}, len(paths))
    conn.close()


def listed(env, root, glob: str | None, folder: str | None = None) -> list[str]:
    """The relative paths list_files' query gives for ``glob`` and ``folder`` (path_prefix) in collection 'many'."""
    conn = db.connect(os.path.join(env["SIFT_HOME"], "index.db"), readonly=True)
    try:
        data = listing.files(conn, Scope("many", folder), glob, "path", listing.MAX_LIMIT, {"many": str(root)}, CLI,
                             kind_on_disk)
    finally:
        conn.close()
    return [f["relative_path"] for f in data["files"]]


def test_a_glob_lists_what_the_python_match_alone_lists(sift_env, tmp_path):
    root = tmp_path / "many"
    pending(sift_env, root, TRICKY)
    for glob in PATTERNS:
        expected = sorted(p for p in TRICKY if filters.glob_matcher(glob)(p))
        assert sorted(listed(sift_env, root, glob)) == expected, glob


def four_hundred_notes(env, tmp_path) -> Path:
    """400 pending files: 385 in nine area folders, 10 in tech/ and 5 in folders named in NFD; their root."""
    root = tmp_path / "many"
    pending(env, root, [f"area-{i % 9}/note-{i:04d}.md" for i in range(385)] + [f"tech/t{i}.md" for i in range(10)]
            + [nfd(f"café-{i}/note.md") for i in range(5)])
    return root


def test_a_glob_is_matched_in_python_only_on_paths_its_folder_and_extension_allow(sift_env, tmp_path, monkeypatch):
    """'tech/**/*.md' over 400 files, 10 of them in tech/ and 5 named in NFD: the Python match was called on
    every path (476 ms at 200,000 files); now only on the ASCII paths under tech/ ending '.md' and on the
    others (which it reads in NFC)."""
    root = four_hundred_notes(sift_env, tmp_path)
    looked_at = []
    real = filters.glob_matcher

    def counting(glob):
        match = real(glob)
        return lambda path: looked_at.append(path) or match(path)
    monkeypatch.setattr(filters, "glob_matcher", counting)
    assert listed(sift_env, root, "tech/**/*.md") == [f"tech/t{i}.md" for i in range(10)]
    assert len(set(looked_at)) == 15, f"{len(set(looked_at))} paths matched in Python for 10 listed"


def test_a_folder_lists_what_the_python_comparison_alone_lists(sift_env, tmp_path):
    root = tmp_path / "many"
    pending(sift_env, root, TRICKY)
    for folder in ["tech", "tech/deep", "tec", "src", "Keys", "résumés", nfd("résumés"), "a b", ".hidden", "x"]:
        expected = sorted(p for p in TRICKY if filters.in_folder(p, folder))
        assert sorted(listed(sift_env, root, None, folder)) == expected, folder


def test_a_folder_is_compared_in_python_only_on_paths_that_begin_with_it(sift_env, tmp_path, monkeypatch):
    """path_prefix='tech' over 400 files, 10 of them in tech/ and 5 named in NFD: sift_in_folder was called on
    every path (182 ms at 200,000 files); now only on the ASCII paths beginning 'tech/' and on the others."""
    root = four_hundred_notes(sift_env, tmp_path)
    compared = []
    real = filters.in_folder

    def counting(path, folder):
        compared.append(path)
        return real(path, folder)
    monkeypatch.setattr(filters, "in_folder", counting)
    assert listed(sift_env, root, None, "tech") == [f"tech/t{i}.md" for i in range(10)]
    assert len(set(compared)) == 15, f"{len(set(compared))} paths compared in Python for 10 listed"
