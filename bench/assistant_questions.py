"""An assistant's questions about notes-en notes, as it asks them: long, with framing, dates, quotes and typos.

Indexes ../shared/data/notes-en through the real pipeline (as bench/questions.py does; --home reuses an index), then
asks each question below in keyword, semantic and hybrid search and prints the rank of the note it is about (99: not
in the top 30), and per mode how many came first, how many in the top five, and the mean reciprocal rank, beside the
figures of base-42 (BEFORE, measured with all-MiniLM-L6-v2). Where bench/questions.py asks short how-to questions,
these are the ones an assistant writes for a user: what they remember of the note ("I remember a note about …",
"what did I decide about … last spring"), a year or a season of when, quoted flags, names, misspellings.

    SIFT_MODEL=minilm .venv/bin/python bench/assistant_questions.py [--home DIR] [--modes keyword,semantic,hybrid]

The figures of another checkout: copy this file into its bench/ and run it there (bench/common.py puts its own
checkout first on sys.path).
"""
from __future__ import annotations

import argparse
from pathlib import Path

from common import shared_data
from quality import build_index
from questions import MODES, rank

QUESTIONS = [
    ("I remember a note about keeping my Mac awake: which command prevents display sleep and idle sleep, and for "
     "how long?", "mac/prevent-sleep-with-the-caffeinate-command.md"),
    ("What did I write about why my SQLite writes from Python weren't saved until I called commit?",
     "python/commit-writes-from-executed-sqlite-statements.md"),
    ("Where did I note how to make postgres abort queries that run longer than one second?",
     "postgres/limit-execution-time-of-statements.md postgres/set-a-statement-timeout-threshold-for-a-session.md"),
    ("I got LoadError: cannot load such file -- rexml/document after upgrading Ruby in 2021, what was the fix?",
     "ruby/rexml-is-a-bundled-gem-as-of-ruby-3-0-0.md"),
    ("The note about git warning that the log for HEAD only goes back to December 2020: how did I get at commits "
     "from before that?", "git/reference-commits-earlier-than-reflog-remembers.md"),
    ("Does :root or html win when both set a background color in CSS?", "css/root-has-higher-specificity-than-html.md"),
    ("Why shouldn't I rely on Python's assert statement for checks in production code?",
     "python/assert-is-only-a-development-check.md"),
    ("How can I delete a file so that nobody can recover it from the hard drive?", "unix/securely-remove-files.md"),
    ("I airdropped a photo from my iPhone and it was an HEIC file; how did I turn it into a JPEG with Preview?",
     "mac/convert-an-heic-image-file-to-jpg.md"),
    ("In GitHub Actions, how do I pass the nodejs version read from .tool-versions on to a later step?",
     "github-actions/capture-an-output-value-for-use-in-a-later-step.md"),
    ("how do I get the exit status of a shell command I ran with backticks in ruby",
     "ruby/check-return-status-of-running-a-shell-command.md"),
    ("what's the flag to skip the pre-commit hooks when committing?", "git/skip-git-hooks-as-needed.md"),
    ("How do I keep a command containing a password out of my zsh history?",
     "unix/exclude-a-command-from-the-zsh-history-file.md"),
    ("How did I uninstall Logitech G Hub from my Mac last year?", "mac/uninstall-logitech-g-hub-from-mac.md"),
    ("If a React component gets both an explicit children prop and content between its tags, which one wins?",
     "react/who-is-your-favorite-child.md"),
    ("What did I conclude about doing a dry run of publishing a Python package to test.pypi.org with uv before the "
     "real release?", "python/publish-a-package-to-a-test-env-as-a-dry-run.md"),
    ("How do I make psql show NULL values as something other than blank whitespace?",
     "postgres/a-better-null-display-character.md"),
    ("ripgrep doesn't find files listed in .gitignore: how do I include them, and hidden files too?",
     "unix/include-ignore-files-in-ripgrep-search.md"),
    ("Can a submit button that sits outside the form element still submit it?",
     "html/submit-a-form-with-a-button-outside-the-form.md"),
    ("How did I list every TIL file I added in 2024 using git diff?", "git/list-all-files-added-during-span-of-time.md"),
    ("how do i prevnet my mac from going to sleep with caffiene", "mac/prevent-sleep-with-the-caffeinate-command.md"),
    ("how to remove the defualt value on a rails column", "rails/remove-the-default-value-on-a-column.md"),
    ('What does "--no-verify" skip when I run git push?', "git/skip-git-hooks-as-needed.md"),
    ('the note about "hist_ignore_space"', "unix/exclude-a-command-from-the-zsh-history-file.md"),
    ("how to test that an element does not render in a React component",
     "react/test-that-element-does-not-render-in-the-component.md"),
    ("Why is the Vim clipboard not synced with the system clipboard in VS Code, and how do I fix it?",
     "vscode/synchronize-vim-clipboard-with-system-clipboard.md"),
    ("What does $?.exitstatus return in Ruby?", "ruby/check-return-status-of-running-a-shell-command.md"),
    ("where did I write about set-output in a github workflow?",
     "github-actions/capture-an-output-value-for-use-in-a-later-step.md"),
    ("the note about \\pset null in my psqlrc", "postgres/a-better-null-display-character.md"),
    ("I have a huge JSON response printed in the terminal and I want to find one particular value in it and copy it "
     "to my clipboard without scrolling through everything, what was the approach I noted down?",
     "unix/find-and-copy-a-value-from-large-json-output.md"),
    ("Earlier this year I set up a new project on Heroku and kept having to pass the team and app names to every "
     "command; where did I write down how to set defaults for them?", "heroku/specify-default-team-and-app-for-project.md"),
    ("I'm writing a TypeScript function that should only accept arrays with at least one element; how did I define "
     "that type?", "typescript/create-a-non-empty-array-type.md"),
    ("What did I decide about reloading my zsh configuration without opening a new terminal, back in the spring?",
     "zsh/a-better-way-to-reload-zsh-configuration.md"),
    ("How can I see the description of every npm config option?", "javascript/show-description-of-all-npm-config-options.md"),
    ("How do I find out which commit a deleted file last appeared in?", "git/last-commit-a-file-appeared-in.md"),
    ("The note about making a pandas DataFrame with dummy data for tests", "python/create-a-dummy-dataframe-in-pandas.md"),
    ("How did I change the port of the create-react-app webpack dev server?",
     "webpack/specify-port-of-cra-webpack-dev-server.md"),
    ("What did I learn in 2023 about unique indexes with Ecto in an Elixir migration?", "elixir/unique-indexes-with-ecto.md"),
]
# mode -> (first, top five, MRR) of base-42 on the same index (2026-12-06; keyword measured on an index built with
# SIFT_EMBEDDINGS=off, the machine too loaded that day to embed notes-en in time for semantic and hybrid)
BEFORE = {"keyword": (33, 36, 0.912)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, help="a Sift home to build the index in, or reuse")
    parser.add_argument("--modes", default=",".join(MODES), help="keyword only for an index without vectors "
                        "(SIFT_EMBEDDINGS=off)")
    args = parser.parse_args()
    modes = args.modes.split(",")
    build_index(shared_data("notes-en"), args.home, "notes")
    from search.query.engine import from_settings
    from search.settings import load
    engine = from_settings(load())
    engine.warm()
    ranks = {mode: [] for mode in modes}
    print(" ".join(f"{m[:4]:>4}" for m in modes), " question")
    for question, wanted in QUESTIONS:
        row = [min(rank(engine, question, one, mode) for one in wanted.split()) for mode in modes]
        for mode, r in zip(modes, row):
            ranks[mode].append(r)
        print(" ".join(f"{r:>4}" for r in row), "", question)
    for mode, found in ranks.items():
        before = BEFORE.get(mode)
        print(f"{mode:<9} first {sum(r == 1 for r in found)}/{len(found)}, top five {sum(r <= 5 for r in found)}, "
              f"MRR {sum(1 / r for r in found) / len(found):.3f}"
              + (f"  (base-42: first {before[0]}, top five {before[1]}, MRR {before[2]:.3f})" if before else ""))


if __name__ == "__main__":
    main()
