"""Discovery: ignore rules, include/exclude globs, symlinks; change detection."""
from __future__ import annotations

import json
import os
import time
from collections import Counter

import pytest

from ingest.changes import Known, plan_changes, sha256_file
from ingest.discover import NO_EXTENSION, NOT_INCLUDED, OTHER_EXTENSION, Rules, walk, why_not_indexed
from ingest.kinds import kind_of
from ingest.links import same_stem_pdf
from tests.conftest import write_tree


def paths(found):
    return [f.path for f in found]


def test_default_ignores_and_gitignore_files(tmp_path):
    write_tree(tmp_path, {
        "a.md": "a", "node_modules/x/readme.md": "x", ".git/notes.md": "g", ".venv/lib/site.py": "v",
        "build/out.md": "b", "docs/keep.md": "k", "docs/draft.md": "d", "docs/.gitignore": "draft.md\n",
        ".gitignore": "secret/\n*.log.md\n", "secret/s.md": "s", "x.log.md": "l", "deep/docs/draft.md": "nested",
        "image.png": "not text", "src/app.py": "print()",
    })
    assert paths(walk(tmp_path)) == ["a.md", "deep/docs/draft.md", "docs/keep.md", "src/app.py"]


def test_hidden_folders_are_skipped_unless_excluded_from_the_ignore_list(tmp_path):
    """A home folder given as a root indexed its hidden folders: here .rustup, .pyenv, .cargo were 116,731 files
    (1.4 GB of toolchain sources), and .ssh, .aws or .config hold keys and tokens that search would then serve to
    an assistant. Hidden folders are skipped; hidden files stay; SIFT_EXCLUDE='!.github/' brings one back."""
    write_tree(tmp_path, {
        "notes/plan.md": "p", ".rustup/toolchains/lib.rs": "fn f() {}", ".config/gh/hosts.yml": "token: x",
        "notes/.drafts/idea.md": "i", ".hiddenfile.md": "h", ".github/workflows/ci.yml": "on: push",
    })
    assert paths(walk(tmp_path)) == [".hiddenfile.md", "notes/plan.md"]
    assert why_not_indexed(tmp_path, ".config/gh/hosts.yml") == (
        ".config/ is a hidden folder: hidden folders are skipped (tools' state, caches and keys); "
        "SIFT_EXCLUDE='!.config/' indexes it")
    assert why_not_indexed(tmp_path, "notes/.drafts/idea.md").startswith("notes/.drafts/ is a hidden folder")
    assert paths(walk(tmp_path, Rules(exclude=("!.github/",)))) == [
        ".github/workflows/ci.yml", ".hiddenfile.md", "notes/plan.md"]


def test_installed_packages_are_ignored_outside_virtualenvs_too(tmp_path):
    """A home folder's miniconda3/lib/python3.11/site-packages (tens of thousands of .py files) and go/pkg/mod
    were indexed: only virtualenvs (.venv, venv, env) were in the ignore list."""
    write_tree(tmp_path, {
        "notes/a.md": "a", "miniconda3/lib/python3.11/site-packages/numpy/core.py": "x",
        "usr/lib/python3/dist-packages/apt/cache.py": "x", "go/pkg/mod/github.com/x/y@v1/y.go": "x",
        "app/bower_components/jq/jq.js": "x", "proj/__pypackages__/3.11/lib/r.py": "x",
        "go/src/mine/main.go": "package main", "pkg/mod.md": "a note on modules",
    })
    assert paths(walk(tmp_path)) == ["go/src/mine/main.go", "notes/a.md", "pkg/mod.md"]


def test_vendored_dependencies_are_ignored_unless_brought_back(tmp_path):
    """huey, pypdf and mcp copied into a monorepo's third_party/ and Go's vendor/ were most of its passages, and
    outranked the project's own code; a folder of notes on vendors (vendors/) is no vendored code."""
    write_tree(tmp_path, {
        "gateway/main.go": "package main", "gateway/vendor/golang.org/x/time/rate/rate.go": "package rate",
        "third_party/python/huey/api.py": "x", "web/third-party/lib.js": "x", "app/_vendor/six.py": "x",
        "notes/vendors/acme.md": "a contract",
    })
    assert paths(walk(tmp_path)) == ["gateway/main.go", "notes/vendors/acme.md"]
    assert why_not_indexed(tmp_path, "gateway/vendor/golang.org/x/time/rate/rate.go") == (
        "gateway/vendor/ holds vendored dependencies (other projects' code, by a code file in it: "
        "golang.org/x/time/rate/rate.go), left out as node_modules/ is; "
        "SIFT_EXCLUDE='!vendor/' indexes it")
    assert paths(walk(tmp_path, Rules(exclude=("!vendor/",)))) == [
        "gateway/main.go", "gateway/vendor/golang.org/x/time/rate/rate.go", "notes/vendors/acme.md"]


def test_why_not_indexed_agrees_with_the_walk_file_by_file(tmp_path):
    """read_file refuses what a scan leaves out, asked one path at a time: the two must never disagree."""
    tree = {
        "a.md": "a", "node_modules/x/readme.md": "x", ".git/notes.md": "g", ".venv/lib/site.py": "v",
        "docs/keep.md": "k", "docs/draft.md": "d", "docs/.gitignore": "draft.md\n/top.md\n!keep.md\n",
        ".gitignore": "secret/\n*.log.md\n", "secret/s.md": "s", "x.log.md": "l", "deep/docs/draft.md": "n",
        "docs/top.md": "t", "deep/docs/top.md": "t", "image.png": "p", "src/app.py": "print()", ".env": "e",
        "notes/private/p.md": "p", "notes/b.md": "b", "code/c.py": "c",
    }
    write_tree(tmp_path, tree)
    files = sorted(p for p in tree if not p.endswith(".gitignore"))
    for rules in (Rules(), Rules(include=("notes/", "*.py"), exclude=("private/",))):
        walked = paths(walk(tmp_path, rules))
        assert walked == [p for p in files if why_not_indexed(tmp_path, p, rules) is None]
        assert 0 < len(walked) < len(files)


def test_files_of_kinds_sift_does_not_read_are_counted_per_extension(tmp_path):
    """A folder of .doc files was passed over in silence. The walk counts what it would have indexed if Sift
    read the kind; not what the rules, a .gitignore or the include globs keep out, links or hidden files."""
    write_tree(tmp_path, {
        "a.md": "a", "report.doc": "d", "Plan.DOC": "d", "sub/photo.png": "p", "COPYING": "m", "LICENSE": "l",
        "node_modules/x.doc": "ignored", ".git/objects.pack": "ignored", "secret/s.doc": "gitignored",
        ".gitignore": "secret/\n*.bak\n", "old.bak": "gitignored", "private/p.doc": "excluded",
        ".editorconfig": "hidden", "build/b.png": "ignored",
    })
    os.symlink(tmp_path / "report.doc", tmp_path / "alias.doc")
    unread = Counter()
    assert paths(walk(tmp_path, Rules(exclude=("private/",)), unread=unread)) == ["a.md"]
    assert unread == {".doc": 2, ".png": 1, NO_EXTENSION: 2}

    only_sub = Counter()
    walk(tmp_path, Rules(include=("sub/",)), unread=only_sub)
    assert only_sub == {".png": 1, NOT_INCLUDED: 1, "(folders left out by .gitignore)": 1}, \
        "a.md, left out by the include globs, is counted apart; secret/, which the .gitignore leaves out, too, " \
        "as no file was found"



def test_an_extension_that_is_not_utf8_is_counted_with_one_replacement_character_per_bad_byte(tmp_path):
    """Its undecodable bytes arrive as lone surrogates; each became three U+FFFD ('.\\xff\\xfe' showed six)."""
    for name in (b"a.\xff\xfe", b"b.\xff\xfe", b"c.D\xc3\xa9OC"):
        (tmp_path / os.fsdecode(name)).write_bytes(b"x")
    unread = Counter()
    walk(tmp_path, unread=unread)
    assert unread == {".\ufffd\ufffd": 2, ".d\u00e9oc": 1}
    assert json.loads(json.dumps(unread, ensure_ascii=False)) == unread, "storable as JSON"


def test_endings_that_are_no_extension_are_counted_together(tmp_path):
    """Each scan stores the counts: Maildir names ('1700.host,S=2345:2,S') and hashes as
    endings made one entry each, so the stored counts grew with every such file."""
    for name in ("1700.host,S=2345:2,S", "1701.host,S=99:2,", "blob.7f3a9b2c1d4e5f6a", "x.tar.gz", "y.mobi"):
        (tmp_path / name).write_bytes(b"x")
    unread = Counter()
    walk(tmp_path, unread=unread)
    assert unread == {OTHER_EXTENSION: 3, ".gz": 1, ".mobi": 1}

SCRIPTS = {
    "scripts/setup": "#!/usr/bin/env bash\nset -e\necho setup\n", "scripts/check": "#!/bin/sh\ntrue\n",
    "scripts/report": "#!/usr/bin/env python3\nprint('report')\n", "scripts/tidy": "#!/usr/bin/perl\n1;\n",
    "scripts/notes": "#!/usr/bin/env lua\nprint('x')\n",
    "VERSION": "1.2\n", "LICENSE": "#! not a script\n", "notes.sh.bak": "#!/bin/sh\n",
}


def test_a_file_without_an_extension_is_code_when_its_shebang_names_an_interpreter_sift_parses(tmp_path):
    """scripts/setup ('#!/usr/bin/env bash') was counted as '(no extension)' and never read. A shebang naming
    bash, sh, python or perl makes such a file code; a lua one, a VERSION, a LICENSE and a '.bak' stay unread
    (perl was unread too: a ~/bin of Perl scripts was not searchable)."""
    write_tree(tmp_path, SCRIPTS)
    unread = Counter()
    found = walk(tmp_path, unread=unread)
    assert [(f.path, f.kind) for f in found] == [("scripts/check", "code"), ("scripts/report", "code"),
                                                  ("scripts/setup", "code"), ("scripts/tidy", "code")]
    from ingest.kinds import kind_of
    assert kind_of("bin/tidy.pl") == kind_of("lib/Tidy.pm") == "code", "and Perl's own extensions"
    assert unread == {NO_EXTENSION: 3, ".bak": 1}
    assert [p for p in sorted(SCRIPTS) if why_not_indexed(tmp_path, p) is None] == paths(found), \
        "read_file reads what the scan indexes"


def test_build_and_container_files_known_by_name_are_code(tmp_path):
    """Makefile, Dockerfile, Gemfile … have no extension: they were counted among '(no extension)' files Sift does
    not read, in every repository. They are code now (a note about them stays a note)."""
    from ingest.parse import parse_file
    tree = {"Makefile": "all:\n\tcc -o app main.c\n", "docker/Dockerfile.dev": "FROM python:3.11\nRUN make\n",
            "Gemfile": "source 'https://rubygems.org'\ngem 'rake'\n", "Dockerfile.md": "# About the image\n",
            "Gemfile.lock": "GEM\n", "LICENSE": "MIT\n"}
    write_tree(tmp_path, tree)
    unread = Counter()
    found = {f.path: f.kind for f in walk(tmp_path, unread=unread)}
    assert found == {"Makefile": "code", "docker/Dockerfile.dev": "code", "Gemfile": "code", "Dockerfile.md": "note"}
    assert unread == {NO_EXTENSION: 1, ".lock": 1}
    assert [p for p in sorted(tree) if why_not_indexed(tmp_path, p) is None] == sorted(found)
    make = parse_file("Makefile", tree["Makefile"].encode())
    assert make.kind == "code" and "cc -o app main.c" in make.sections[0].text
    assert parse_file("Gemfile", tree["Gemfile"].encode()).meta["language"] == "ruby"


def test_include_and_exclude_globs(tmp_path):
    write_tree(tmp_path, {"notes/a.md": "a", "notes/b.md": "b", "code/c.py": "c", "notes/private/p.md": "p"})
    assert paths(walk(tmp_path, Rules(include=("notes/",), exclude=("private/",)))) == ["notes/a.md", "notes/b.md"]
    assert paths(walk(tmp_path, Rules(include=("*.py",)))) == ["code/c.py"]


def test_an_include_glob_with_a_folder_left_out_means_those_files_but_not_in_that_folder(tmp_path):
    """SIFT_INCLUDE='*.md,!deep/' (Markdown, but not under deep/) indexed deep/c.md: read as a .gitignore, a
    folder's '!' re-includes the folder, never the files a file pattern matched. The last glob that matches a
    file decides, a folder's as well as a file's; stats counts the file left out, read_file says why."""
    write_tree(tmp_path, {"a.md": "a", "deep/c.md": "c", "deep/more/d.md": "d", "deep/keep.md": "k",
                          "x/deep/e.md": "e", "x/b.md": "b", "t.txt": "t"})
    unread = Counter()
    assert paths(walk(tmp_path, Rules(include=("*.md", "!deep/")), unread=unread)) == ["a.md", "x/b.md"]
    assert unread == {NOT_INCLUDED: 5}, "deep/'s three, x/deep/e.md and t.txt"
    assert why_not_indexed(tmp_path, "deep/c.md", Rules(include=("*.md", "!deep/"))) == \
        "not matched by SIFT_INCLUDE"
    assert paths(walk(tmp_path, Rules(include=("*.md", "!/deep/")))) == ["a.md", "x/b.md", "x/deep/e.md"]
    assert paths(walk(tmp_path, Rules(include=("*.md", "!deep/", "deep/keep.md")))) == \
        ["a.md", "deep/keep.md", "x/b.md"], "a later glob brings a file back"



@pytest.mark.timeout(120)
def test_a_hostile_gitignore_pattern_does_not_stall_the_scan(tmp_path):
    """'*a*a…*b' against a long name of a's backtracks exponentially in Python's re (10 stars: 32 s for one
    name; 14 would take days): a .gitignore, an exclude glob or an include glob must not hang the worker."""
    hostile = "*a" * 14 + "*b.md"
    long, matched = "a" * 40 + ".md", "a" * 14 + "b.md"
    write_tree(tmp_path, {"git/.gitignore": hostile + "\n", f"git/{long}": "kept", f"git/{matched}": "ignored",
                          f"globs/{long}": "long", f"globs/{matched}": "matched"})
    assert paths(walk(tmp_path / "git")) == [long]
    assert paths(walk(tmp_path / "globs", Rules(exclude=(hostile,)))) == [long]
    assert paths(walk(tmp_path / "globs", Rules(include=(hostile,)))) == [matched]


def test_names_that_are_not_utf8_are_matched_against_the_rules(tmp_path):
    """Such a name reaches Python with lone surrogates; RE2 (pathspec's backend) refused them, and one such
    file failed the whole scan ('surrogates not allowed')."""
    write_tree(tmp_path, {".gitignore": "drafts/\n*.tmp.md\n", "ok.md": "ok"})
    for name in (b"caf\xe9.md", b"drafts/caf\xe9.md", b"caf\xe9.tmp.md", b"sub/\xff\xfe.md"):
        path = os.path.join(os.fsencode(tmp_path), name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(b"text")
    assert paths(walk(tmp_path)) == ["caf\udce9.md", "ok.md", "sub/\udcff\udcfe.md"]
    assert paths(walk(tmp_path, Rules(exclude=("sub/",), include=("*.md",)))) == ["caf\udce9.md", "ok.md"]
    assert why_not_indexed(tmp_path, "drafts/caf\udce9.md") == "drafts/ is ignored by .gitignore"


def test_a_pdf_beside_a_note_of_its_stem_is_the_notes_attachment_whatever_the_suffixes_case(tmp_path):
    write_tree(tmp_path, {"Paper.MD": "# Paper", "Paper.pdf": "%PDF", "b/x.markdown": "# X", "b/x.PDF": "%PDF",
                          "alone.pdf": "%PDF", "other.md": "# Other", "Other.pdf": "%PDF"})
    assert paths(walk(tmp_path)) == ["Other.pdf", "Paper.MD", "alone.pdf", "b/x.markdown", "other.md"]
    assert same_stem_pdf(tmp_path, "Paper.MD") == "Paper.pdf"
    assert same_stem_pdf(tmp_path, "b/x.markdown") == "b/x.PDF"
    assert same_stem_pdf(tmp_path, "other.md") is None  # stems are case-sensitive, as the file system is

def test_symlinks_inside_count_outside_and_loops_do_not(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    write_tree(root, {"real.md": "r"})
    write_tree(outside, {"secret.md": "s"})
    os.symlink(root / "real.md", root / "alias.md")
    os.symlink(outside / "secret.md", root / "escape.md")
    os.symlink(outside, root / "outdir")
    os.symlink(root, root / "loop")
    assert paths(walk(root)) == ["alias.md", "real.md"]


def test_change_plan_uses_stat_then_hash_and_detects_renames(tmp_path):
    write_tree(tmp_path, {"same.md": "same", "touched.md": "t", "edited.md": "old", "moved.md": "moving", "gone.md": "g"})
    known = {f.path: Known(f.size, f.mtime, sha256_file(tmp_path / f.path)) for f in walk(tmp_path)}
    later = time.time() + 10
    os.utime(tmp_path / "touched.md", (later, later))
    (tmp_path / "edited.md").write_text("new text")
    (tmp_path / "moved.md").rename(tmp_path / "renamed.md")
    (tmp_path / "gone.md").unlink()
    (tmp_path / "fresh.md").write_text("fresh")
    plan = plan_changes(tmp_path, walk(tmp_path), known)
    assert plan.changes == {"edited.md": "changed", "moved.md": "deleted", "gone.md": "deleted",
                            "renamed.md": "renamed", "fresh.md": "added"}
    assert plan.renamed_from == {"renamed.md": "moved.md"}
    assert set(plan.touched) == {"touched.md"}
    assert plan.to_parse == ["edited.md", "fresh.md", "renamed.md"]
    assert plan_changes(tmp_path, walk(tmp_path), known, everything=True).changes["same.md"] == "changed"


def test_a_file_swapped_for_a_named_pipe_after_the_walk_is_not_hashed(tmp_path):
    """Files are walked first and hashed after: one replaced by a named pipe in between was opened like a file,
    and the scan blocked (forever, in a worker) until some process wrote to the pipe, whose stream was then
    hashed as the file. Here a writer stands by with the indexed content; the pipe must be passed over unread,
    so the file goes to parse, which says it is not a regular file."""
    import hashlib
    import threading
    from ingest.discover import FoundFile
    text = b"the indexed content"
    os.mkfifo(tmp_path / "note.md")

    def writer():
        try:
            with open(tmp_path / "note.md", "wb") as pipe:  # waits until a reader opens the pipe
                pipe.write(text)
        except BrokenPipeError:  # the reader opened the pipe and closed it unread
            pass
    threading.Thread(target=writer, daemon=True).start()
    found = [FoundFile("note.md", "note", len(text), 2.0)]
    plan = plan_changes(tmp_path, found, {"note.md": Known(len(text), 1.0, hashlib.sha256(text).hexdigest())})
    assert plan.changes == {"note.md": "changed"} and plan.touched == {}


@pytest.mark.parametrize("name", ["api/user.proto", "schema.graphql", "build.gradle", "Jenkins.groovy",
                                  "cmake/deps.cmake", "infra/main.tf", "default.nix", "tools/setup.ps1",
                                  "make.bat", "ftplugin/python.vim", "src/server.erl", "lib/Parser.fs",
                                  "Sources/AppDelegate.m", "styles/site.less"])
def test_schemas_build_scripts_and_infrastructure_are_read_as_code(tmp_path, name):
    """A repository's .proto, .gradle, .tf, .ps1 … files were counted among the kinds Sift does not read."""
    assert kind_of(name) == "code"
    write_tree(tmp_path, {name: "x = 1\n", "notes.doc": "d"})
    unread = Counter()
    assert paths(walk(tmp_path, unread=unread)) == [name]
    assert unread == {".doc": 1}
