"""A newcomer following the README, as the `ingest` command tells it: each command's own `--help` says what the
command does (it gave the usage and flags alone), and a collection's folder given where its name is wanted
(`ingest remove ~/notes`) is told the name rather than taken for a collection that is not there.

Real SQLite (the collection registered as `ingest enqueue` does it), the CLI run in this process."""
from __future__ import annotations

import pytest


def _commands(parser):
    """(words, parser) of every command and subcommand of ``parser``."""
    import argparse
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield [name], sub
                for words, inner in _commands(sub):
                    yield [name, *words], inner


def test_each_commands_help_says_what_it_does():
    """`ingest stats --help`, `ingest search --help` … printed the usage, then the options: only `ingest --help`
    said what each command is for."""
    from ingest.cli import build_parser
    listed = " ".join(build_parser().format_help().split())
    commands = list(_commands(build_parser()))
    assert {" ".join(words) for words, _ in commands} >= {"enqueue", "stats", "search", "files", "remove",
                                                          "model info", "model prepare"}
    for words, parser in commands:
        shown = " ".join(parser.format_help().split())
        said = shown.split(" positional arguments:")[0].split(" options:")[0]
        assert said.count(".") and not said.endswith("]"), f"ingest {' '.join(words)} --help: {shown[:300]}"
    stats = " ".join(dict((" ".join(w), p) for w, p in commands)["stats"].format_help().split())
    assert "Collections, generations, per-stage progress, failures." in stats, stats
    assert "collections, generations, per-stage progress, failures" in listed, "the list keeps its own wording"


@pytest.mark.parametrize("given", ["{root}", "{root}/", "."])
def test_a_collections_folder_given_for_its_name_is_told_the_name(sift_env, tmp_path, monkeypatch, capsys, given):
    """`ingest remove ~/notes` said "no collection named '/home/me/notes'; collections: notes", as if the folder
    were not indexed; `--collection .` in the folder the same."""
    from ingest import cli
    from search.index import db, store
    from search.settings import load
    root = tmp_path / "notes"
    root.mkdir()
    conn = db.connect(load().index_path)
    store.ensure_collection(conn, "notes", str(root))
    conn.commit()
    conn.close()
    monkeypatch.chdir(root)
    given = given.format(root=root)

    assert cli.main(["remove", given]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (f"ingest: error: {given!r} is the folder of the collection 'notes': give the "
                           "collection's name, notes"), err
    assert cli.main(["files", "--collection", given]) == 2
    assert "is the folder of the collection 'notes'" in capsys.readouterr().err

    assert cli.main(["remove", str(tmp_path / "other")]) == 2  # no collection's folder: the known names, as before
    assert "no collection named" in capsys.readouterr().err
    assert cli.main(["remove", "notes"]) == 0, "the name still removes it"
    assert capsys.readouterr().out.startswith("removed collection 'notes'")


@pytest.mark.parametrize("command", ["search", "similar"])
def test_kind_says_which_files_each_kind_holds(command):
    """`--kind {note,code,pdf,text,mail}` said 'only files of this kind': where a Word document or a spreadsheet
    is, the MCP tool's `kind` said, the command did not. Each kind it names holds what the reader makes of it."""
    from ingest import kinds
    from ingest.cli import build_parser
    sub = next(a for a in build_parser()._actions if a.dest == "command").choices[command]
    said = " ".join(sub.format_help().split())
    kind = said[said.index("--kind {note,code,pdf,text,mail} "):said.index(" --glob")]
    assert "note is Markdown" in kind and "Word" in kind and "spreadsheets" in kind and ".eml" in kind, kind
    for name, shown in [("report.docx", "note"), ("book.epub", "note"), ("deck.pptx", "note"),
                        ("rows.csv", "text"), ("sheet.xlsx", "text"), ("paper.pdf", "pdf"), ("notes.md", "note")]:
        assert kinds.kind_of(name) == shown, name


def test_remove_and_similar_in_a_slip_of_the_home_name_the_home_meant(tmp_path, monkeypatch, capsys):
    """SIFT_HOME=~/.sfit: stats, search, files, retry-failed and compact named the home beside it that holds an
    index; `ingest remove notes` and `ingest similar FILE` said only 'no index yet at …/.sfit/index.db', as if the
    notes indexed into ~/.sift were gone."""
    from ingest import cli
    from search.index import db
    db.connect(tmp_path / ".sift" / "index.db").close()  # a real index, made as a worker makes it
    monkeypatch.setenv("SIFT_HOME", str(tmp_path / ".sfit"))
    meant = f"; did you mean the home {tmp_path / '.sift'}, which holds an index?\n"
    assert cli.main(["remove", "notes"]) == 2
    assert capsys.readouterr().err == (f"ingest: error: no collection named 'notes': no index yet at "
                                       f"{tmp_path / '.sfit' / 'index.db'}{meant}")
    assert cli.main(["similar", "notes/a.md"]) == 2
    assert capsys.readouterr().err == (f"ingest: error: no index at {tmp_path / '.sfit' / 'index.db'}: run `ingest "
                                       f"enqueue PATH` first{meant}")
    assert not (tmp_path / ".sfit").exists(), "a command that only reads makes no home"
    monkeypatch.setenv("SIFT_HOME", str(tmp_path / "elsewhere"))  # no home close to it: said as before
    assert cli.main(["remove", "notes"]) == 2 and "did you mean" not in capsys.readouterr().err
