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
    php = write_tree(tmp_path / "php", {"composer.json": "{}", "src/App.php": "<?php", "vendor/acme/README.md": "x"})
    assert paths(walk(php)) == ["composer.json", "src/App.php"]
    assert why_not_indexed(php, "vendor/acme/README.md") == (
        "vendor/ holds vendored dependencies (other projects' code, by composer.json beside it), left out as "
        "node_modules/ is; SIFT_EXCLUDE='!vendor/' indexes it")
    nested = write_tree(tmp_path / "mono", {"Cargo.toml": "", "web/third_party/notes.md": "x"})
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
