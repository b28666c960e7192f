"""Questions, as an assistant asks them, about notes-en notes: where the note asked about ranks, per mode.

Indexes ../shared/data/notes-en through the real pipeline (as bench/quality.py does; --home reuses an index),
then asks each question below in keyword, semantic and hybrid search and prints the rank of the note it is
about (99: not in the top 30), and per mode how many came first, how many in the top five, and the mean
reciprocal rank. The model is the configured one (SIFT_MODEL; the README's figures are with minilm).

    SIFT_MODEL=minilm .venv/bin/python bench/questions.py [--home DIR]
"""
from __future__ import annotations

import argparse
from pathlib import Path

from common import shared_data
from quality import build_index

QUESTIONS = [
    ("how do I find which branches contain a commit?", "git/check-what-branches-contain-a-specific-commit.md"),
    ("how can I get the name of the current branch", "git/get-the-name-of-the-current-branch.md"),
    ("how do I view a file on another branch?", "git/viewing-a-file-on-another-branch.md"),
    ("how do I filter lines through an external program in vim", "vim/filter-lines-through-an-external-program.md"),
    ("how do I set a statement timeout for a session?", "postgres/set-a-statement-timeout-threshold-for-a-session.md"),
    ("how can I change the owner of a sequence", "postgres/change-the-owner-of-a-sequence.md"),
    ("how do I list the connections to a database?", "postgres/list-connections-to-a-database.md"),
    ("how do I mark a migration as irreversible?", "rails/mark-a-migration-as-irreversible.md"),
    ("how can I change the log level in production?", "rails/adjust-the-production-log-level.md"),
    ("how do I list running containers?", "docker/list-running-docker-containers.md"),
    ("how do I stop containers from starting on boot?", "docker/prevent-containers-from-running-on-startup.md"),
    ("how do I write an object to a JSON file?", "javascript/write-a-javascript-object-to-a-json-file.md"),
    ("how do I install a package with pip for a specific python version?",
     "python/install-with-pip-for-specific-interpreter.md"),
    ("how can I check if a package is installed?", "python/check-if-package-is-installed-with-pip.md"),
    ("can I pass a function to the useState updater?", "react/pass-a-function-to-a-usestate-updater.md"),
    ("how do I edit the current command in the prompt?", "bash/edit-the-current-command-prompt.md"),
    ("how do I add blank lines above and below?", "vim/blank-lines-above-and-below.md"),
    ("what is the default schema in postgres?", "postgres/default-schema.md"),
    ("how do I list the most recently committed branches?", "git/show-list-of-most-recently-committed-branches.md"),
    ("how can I parse relative time into a datetime?", "python/parse-relative-time-to-datetime-object.md"),
    ("what are computed property names?", "javascript/computed-property-names-in-es6.md"),
    ("how do I run a sql script against a postgres container?", "docker/run-sql-script-against-postgres-container.md"),
]
MODES = ("keyword", "semantic", "hybrid")


def rank(engine, question: str, wanted: str, mode: str) -> int:
    paths = list(dict.fromkeys(hit.path for hit in engine.search(question, limit=30, mode=mode).hits))
    return next((i + 1 for i, path in enumerate(paths) if path == wanted or path.endswith("/" + wanted)), 99)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, help="a Sift home to build the index in, or reuse")
    args = parser.parse_args()
    build_index(shared_data("notes-en"), args.home, "notes")
    from search.query.engine import from_settings
    from search.settings import load
    engine = from_settings(load())
    engine.warm()
    ranks = {mode: [] for mode in MODES}
    print(" ".join(f"{m[:4]:>4}" for m in MODES), " question")
    for question, wanted in QUESTIONS:
        row = [rank(engine, question, wanted, mode) for mode in MODES]
        for mode, r in zip(MODES, row):
            ranks[mode].append(r)
        print(" ".join(f"{r:>4}" for r in row), "", question)
    for mode, found in ranks.items():
        print(f"{mode:<9} first {sum(r == 1 for r in found)}/{len(found)}, top five {sum(r <= 5 for r in found)}, "
              f"MRR {sum(1 / r for r in found) / len(found):.3f}")


if __name__ == "__main__":
    main()
