"""A folder named vendor/ (third_party/, …) is left out as vendored code only where the collection looks like code
(ingest.discover.vendored_code): a consultant's notes on suppliers, vendor/acme.md, were left out unsaid, as if
they were a Go module's dependencies. Where it is left out, read_file and list_files say why, with what says code."""
from __future__ import annotations

from ingest.discover import Rules, walk, why_not_indexed
from tests.conftest import ingest, write_tree
from tests.test_mcp_server import call, run, text

CONSULTANT = {
    "clients/initech.md": "# Initech\n\nKick-off on Monday.\n",
    "vendor/acme.md": "# Acme\n\nThe anvil supplier: net 30, contract renewed in March.\n",
    "vendor/globex/contract.md": "# Globex\n\nThe catering contract.\n",
    "vendor/globex/prices.json": '{"lunch": 12}\n',  # data beside notes: no program
    "vendor/draft.tmp": "scratch",  # left out for its own sake still
}


def paths(found):
    return [f.path for f in found]


def test_a_notes_folder_named_vendor_is_read(tmp_path):
    root = write_tree(tmp_path / "notes", CONSULTANT)
    assert paths(walk(root)) == ["clients/initech.md", "vendor/acme.md", "vendor/globex/contract.md",
                                 "vendor/globex/prices.json"]
    assert why_not_indexed(root, "vendor/acme.md") is None
    assert why_not_indexed(root, "vendor/draft.tmp") == \
        "vendor/draft.tmp is in the ignore list (built-in or SIFT_EXCLUDE)"
    assert Rules().left_out(root, "vendor", True) is False and Rules().left_out(root, "vendor/draft.tmp", False)


def test_a_vendored_folder_of_a_project_is_left_out_saying_why(tmp_path):
    php = write_tree(tmp_path / "php", {"composer.json": "{}", "src/App.php": "<?php", "vendor/acme/README.md": "x",
                                        "vendor/acme/README-de.md": "x", "vendor/acme/src/Anvil.php": "<?php"})
    assert paths(walk(php)) == ["composer.json", "src/App.php"]
    assert why_not_indexed(php, "vendor/acme/README.md") == (
        "vendor/ holds vendored dependencies (other projects' code, by composer.json beside it), left out as "
        "node_modules/ is; SIFT_EXCLUDE='!vendor/' indexes it")
    nested = write_tree(tmp_path / "mono", {"Cargo.toml": "", "web/third_party/notes.md": "x",
                                            "web/third_party/x/lib.rs": "fn f() {}"})
    assert "by Cargo.toml at the collection's root" in why_not_indexed(nested, "web/third_party/notes.md")
    code = write_tree(tmp_path / "code", {"docs/a.md": "x", "vendor/autoload.php": "<?php", "vendor/x/README.md": "x"})
    assert paths(walk(code)) == ["docs/a.md"]
    assert "by a code file in it: autoload.php" in why_not_indexed(code, "vendor/x/README.md")
    assert paths(walk(code, Rules(exclude=("!vendor/",)))) == ["docs/a.md", "vendor/autoload.php", "vendor/x/README.md"]


def test_search_finds_the_vendor_notes_and_read_file_says_why_code_is_left_out(immediate, tmp_path, sift_env,
                                                                                servers):
    ingest(write_tree(tmp_path / "notes", CONSULTANT), "notes")
    ingest(write_tree(tmp_path / "shop", {"go.mod": "module shop\n", "main.go": "package main\n",
                                          "vendor/golang.org/x/rate.go": "package rate\n"}), "shop")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return (await call(s, "search", query="anvil supplier contract", mode="keyword"),
                    await call(s, "read_file", path="shop/vendor/golang.org/x/rate.go"),
                    await call(s, "list_files", collection="shop", path_prefix="vendor"))
    found, read, listed = run(scenario)
    assert "notes/vendor/acme.md" in text(found), text(found)
    assert "vendor/ holds vendored dependencies (other projects' code, by go.mod beside it)" in text(read), text(read)
    assert "go.mod beside it" in text(listed), text(listed)


def test_one_sign_of_code_alone_does_not_leave_a_vendor_folder_of_notes_out(tmp_path):
    """A notes vault's Makefile (its notes made into PDFs), or one script among the notes of its vendor/, left every
    note of the folder out as vendored code: two signs are asked for now, or programs as many as the other files."""
    notes = {"vendor/acme.md": "# Acme\n", "vendor/globex.md": "# Globex\n", "vendor/initech.md": "# Initech\n"}
    script = write_tree(tmp_path / "script", {**notes, "vendor/tools/prices.py": "print(1)\n"})
    assert paths(walk(script)) == ["vendor/acme.md", "vendor/globex.md", "vendor/initech.md", "vendor/tools/prices.py"]
    made = write_tree(tmp_path / "made", {**notes, "Makefile": "all:\n\tpandoc *.md\n"})
    assert paths(walk(made)) == ["Makefile", "vendor/acme.md", "vendor/globex.md", "vendor/initech.md"]
    both = write_tree(tmp_path / "both", {**notes, "Makefile": "all:\n", "vendor/tools/prices.py": "print(1)\n"})
    assert paths(walk(both)) == ["Makefile"], "a build file and a program: a project's vendored code"
    assert "by Makefile beside it" in why_not_indexed(both, "vendor/acme.md")
    c = write_tree(tmp_path / "c", {"main.c": "int main;", "third_party/z/zlib.c": "", "third_party/z/zlib.h": "",
                                    "third_party/z/README": "zlib"})
    assert paths(walk(c)) == ["main.c"]
    assert "by 2 code files of its 3 files looked at: z/zlib.c …" in why_not_indexed(c, "third_party/z/README")
    go = write_tree(tmp_path / "go", {"go.mod": "module m\n", "vendor/github.com/x/y/.keep": ""})
    assert "by go.mod beside it" in why_not_indexed(go, "vendor/github.com/x/y/y.go"), "nothing but folders seen"


def test_ingest_files_of_a_vendored_folder_says_why_nothing_of_it_is_indexed(immediate, sift_env, tmp_path):
    """list_files said why; `ingest files` said only 'no files match', as of a folder that is not there."""
    from tests.conftest import run_ingest
    ingest(write_tree(tmp_path / "shop", {"go.mod": "module shop\n", "main.go": "package main\n",
                                          "vendor/golang.org/x/rate.go": "package rate\n"}), "shop")
    result = run_ingest(sift_env, "files", "--collection", "shop", "--path-prefix", "vendor")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "note: nothing of shop/vendor/ is indexed: vendor/ holds vendored dependencies (other projects' code, by go.mod "
        "beside it), left out as node_modules/ is; SIFT_EXCLUDE='!vendor/' indexes it", "no files match"], result.stdout


def test_a_walk_right_after_a_build_file_is_added_judges_the_folder_again(tmp_path):
    """The answer of a walk was kept 10 s: `ingest enqueue` right after `go mod init` read the vendor/ as before."""
    root = write_tree(tmp_path / "p", {"vendor/a.md": "# A\n", "vendor/b.md": "# B\n", "vendor/x/x.go": "package x\n"})
    assert paths(walk(root)) == ["vendor/a.md", "vendor/b.md", "vendor/x/x.go"]
    (root / "go.mod").write_text("module p\n")
    assert paths(walk(root)) == []
