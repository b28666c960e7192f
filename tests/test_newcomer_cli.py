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
