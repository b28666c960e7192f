"""A developer's questions about real code: does the file (and the definition) that answers rank first?

Copies the source of packages installed in this venv (huey, mcp, pypdf, aiosqlite, tree_sitter_languages' Python
part, markupsafe's C speedups, lxml's libxslt headers and Cython sources) into a corpus, indexes it through the
real pipeline (huey's immediate mode; --home reuses an index built before), asks each question below in keyword,
semantic and hybrid search and prints its rank (99: not in the top 30), then per mode how many came first, how many
in the top five, and the mean reciprocal rank. A question's answer is a file, and where one definition answers it,
that definition: a passage of the file whose heading names it (or, for a line number, one holding that line).
The answers were found by reading the installed versions' code; a package that is not installed skips the run.

    SIFT_MODEL=minilm python bench/code_questions.py [--home DIR] [--corpus DIR] [--modes keyword,hybrid]
                                                     [--sample N [--seed S]]

With --sample N the index holds a subset of the corpus: every file holding an answer, and N of the other files
drawn at random (``random.Random(seed)``, the seed printed: the same N and seed draw the same files), so that
semantic and hybrid search can be measured where embedding the whole corpus takes hours. The other files are the
distractors a search must rank the answers above: fewer of them than in the whole corpus, so a subset's figures are
not the whole corpus's.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import random
import re
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from code_names import build  # noqa: E402  (an index through the real pipeline, huey immediate)

# package -> (files copied, by glob, under its folder); '' copies every file of the package
PACKAGES = {
    "huey": ("**/*.py",),
    "mcp": ("**/*.py",),
    "pypdf": ("**/*.py",),
    "aiosqlite": ("**/*.py",),
    "tree_sitter_languages": ("*.py",),
    "markupsafe": ("*.py", "*.c", "*.pyi"),
    "lxml": ("*.pyx", "parser.pxi", "xslt.pxi", "includes/*.pxd", "*.h", "includes/libxslt/*.h"),
}


def installed() -> dict[str, Path]:
    """Each package's folder; exits with a message when one is not installed."""
    folders = {}
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin:
            sys.exit(f"skipped: {name} is not installed in this Python ({sys.executable})")
        folders[name] = Path(spec.origin).parent
    return folders


def corpus(root: Path) -> Path:
    """The packages' files copied under ``root`` (made once: an existing one is kept)."""
    if root.exists():
        return root
    for name, folder in installed().items():
        for pattern in PACKAGES[name]:
            for path in folder.glob(pattern):
                if path.is_file() and "__pycache__" not in path.parts:
                    target = root / name / path.relative_to(folder)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(path, target)
    return root


def subset(root: Path, target: Path, others: int, seed: int) -> tuple[int, int]:
    """A copy under ``target`` of the files of the corpus at ``root`` that hold an answer, and ``others`` of its
    other files drawn with ``seed`` (made once: an existing one is kept); (answer files, other files) copied."""
    files = sorted(str(path.relative_to(root)) for path in root.rglob("*") if path.is_file())
    wanted = {one.partition(":")[0] for _, answer in QUESTIONS for one in answer.split()}
    answering = [path for path in files if path in wanted]
    missing = wanted - set(answering)
    if missing:
        sys.exit(f"the corpus at {root} holds none of {sorted(missing)}")
    rest = [path for path in files if path not in wanted]
    drawn = random.Random(seed).sample(rest, min(others, len(rest)))
    if not target.exists():
        for path in answering + drawn:
            (target / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / path, target / path)
    return len(answering), len(drawn)


# (question, answers): an answer is 'path' (the file), 'path:Name' or 'path:Owner.name' (a passage whose heading
# ends with those names), or 'path:LINE' (a passage holding that line); several, separated by spaces, when more than
# one place answers it
QUESTIONS = [
    # a symbol's name, as written or in words
    ("SqliteHuey", "huey/api.py:SqliteHuey"),
    ("sqlite huey", "huey/api.py:SqliteHuey"),
    ("enqueue", "huey/api.py:Huey.enqueue"),
    ("where is SqliteStorage defined", "huey/storage.py:SqliteStorage"),
    ("escape_unicode", "markupsafe/_speedups.c:escape_unicode"),
    ("xsltApplyStylesheet", "lxml/includes/libxslt/transform.h:60"),
    ("XSLTAccessControl", "lxml/xslt.pxi:XSLTAccessControl"),
    ("PathEscapeError", "mcp/shared/path_security.py:PathEscapeError"),
    ("safe join", "mcp/shared/path_security.py:safe_join"),
    ("aiosqlite connect", "aiosqlite/core.py:connect"),
    # a setting's name
    ("read_timeout", "huey/storage.py:RedisStorage.__init__ huey/contrib/valkey_glide.py:__init__"),
    ("strict_fifo", "huey/storage.py:SqliteStorage.__init__"),
    ("PROCESS_TERMINATION_TIMEOUT", "mcp/client/stdio.py:61"),
    ("resolve_entities", "lxml/parser.pxi:XMLParser"),
    # what calls it
    ("what calls notify_interrupted_tasks", "huey/consumer.py:Consumer.run"),
    ("what calls validate_and_warn_tool_name", "mcp/server/mcpserver/tools/base.py:Tool.from_function"),
    ("who calls _terminate_process_tree", "mcp/client/stdio.py:_stop_server_process"),
    # an error message, pasted
    ("The graceful signal must be INT or TERM.", "huey/consumer_options.py:ConsumerConfig.validate"),
    ("ValueError: schedule() missing required eta= or delay=", "huey/api.py:TaskWrapper.schedule"),
    ("Tool name contains invalid characters", "mcp/shared/tool_name_validation.py:validate_tool_name"),
    ("Invalid Host header", "mcp/server/transport_security.py:TransportSecurityMiddleware.validate_request "
     "mcp/server/transport_security.py:TransportSecurityMiddleware._validate_host"),
    ("pypdf.errors.PdfReadError: /Encrypt entry of the trailer is not a dictionary",
     "pypdf/_reader.py:PdfReader._handle_encryption"),
    # how does it do that
    ("how does the consumer handle a SIGTERM", "huey/consumer.py:Consumer._handle_signal huey/consumer.py:436 "
     "huey/consumer.py:Consumer.loop"),
    ("how does the consumer restart a worker process that died", "huey/consumer.py:Consumer.check_worker_health"),
    ("how do I make SqliteHuey strictly first in first out", "huey/storage.py:SqliteStorage.__init__"),
    ("how does aiosqlite run sqlite calls off the event loop", "aiosqlite/core.py:_connection_worker_thread"),
    ("how does the stdio client stop the server process on shutdown", "mcp/client/stdio.py:_stop_server_process"),
    ("how does the server protect against DNS rebinding",
     "mcp/server/transport_security.py:TransportSecurityMiddleware.validate_request"),
    ("where are tool names validated", "mcp/shared/tool_name_validation.py:validate_tool_name"),
    ("how does pypdf rebuild a broken xref table", "pypdf/_reader.py:PdfReader._rebuild_xref_table"),
]
MODES = ("keyword", "semantic", "hybrid")
# mode -> (first, top five, MRR) of base-47 on the same corpus (2026-12-06; keyword on an index built with
# SIFT_EMBEDDINGS=off, the machine too loaded that day to embed its 5,394 passages in time)
BEFORE = {"keyword": (16, 21, 0.616)}
DEPTH = 30  # hits looked at; a question answered lower ranks 99


def answers(hit, wanted: str) -> bool:
    """Whether ``hit`` is the place ``wanted`` ('path', 'path:Name', 'path:Owner.name' or 'path:LINE') names."""
    path, _, symbol = wanted.partition(":")
    if hit.path != path and not hit.path.endswith("/" + path):
        return False
    if not symbol:
        return True
    if symbol.isdigit():
        return hit.start_line <= int(symbol) <= hit.end_line
    heading = [part.strip() for part in hit.heading_path.split(" > ")]
    # a passage of joined definitions names each in its heading ('api > SqliteHuey, CySqliteHuey +3')
    last = [name.split(".")[-1] for name in re.sub(r" \+\d+$", "", heading[-1]).split(", ")]
    *owners, name = symbol.split(".")
    return name in last and heading[-1 - len(owners):-1] == owners if owners else name in last


def rank(engine, question: str, wanted: str, mode: str) -> int:
    hits = engine.search(question, limit=DEPTH, mode=mode).hits
    return next((i for i, hit in enumerate(hits, start=1) if any(answers(hit, one) for one in wanted.split())), 99)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, help="a Sift home to build the index in, or reuse")
    parser.add_argument("--corpus", type=Path, help="where to copy the packages' source (kept when it exists)")
    parser.add_argument("--modes", default=",".join(MODES), help="keyword only for an index without vectors")
    parser.add_argument("--quiet", action="store_true", help="only the questions not answered first, and the sums")
    parser.add_argument("--sample", type=int, metavar="N",
                        help="index only the files holding answers and N other files of the corpus, drawn at random")
    parser.add_argument("--seed", type=int, default=49, help="the seed --sample draws the other files with")
    args = parser.parse_args()
    installed()
    os.environ.setdefault("SIFT_MODEL", "minilm")
    os.environ.setdefault("SIFT_WORKERS", "1")
    root = corpus(args.corpus or Path(tempfile.mkdtemp(prefix="sift-code-questions-")) / "corpus")
    if args.sample is not None:
        whole, root = root, root.with_name(f"{root.name}-sample-{args.sample}-seed-{args.seed}")
        answering, drawn = subset(whole, root, args.sample, args.seed)
        print(f"subset: the {answering} files holding answers and {drawn} other files drawn with seed {args.seed} "
              f"(random.Random), at {root}")
    build(args.home or Path(tempfile.mkdtemp(prefix="sift-code-questions-home-")), lambda: {"code": root})
    from search.index.chunk_reads import chunk_count
    from workers import runtime
    print(f"index: {chunk_count(runtime.index())} passages of {sum(1 for p in root.rglob('*') if p.is_file())} files")
    from search.query.engine import from_settings
    from search.settings import load
    engine = from_settings(load())
    engine.warm()
    modes = args.modes.split(",")
    ranks = {mode: [] for mode in modes}
    print(" ".join(f"{m[:4]:>4}" for m in modes), " question")
    for question, wanted in QUESTIONS:
        row = [rank(engine, question, wanted, mode) for mode in modes]
        for mode, r in zip(modes, row):
            ranks[mode].append(r)
        if not args.quiet or max(row) > 1:
            print(" ".join(f"{r:>4}" for r in row), "", question)
    for mode, found in ranks.items():
        before = BEFORE.get(mode) if args.sample is None else None  # base-47's figures are the whole corpus's
        print(f"{mode:<9} top-1 {sum(r == 1 for r in found)}/{len(found)}, top-5 {sum(r <= 5 for r in found)}, "
              f"MRR {sum(1 / r for r in found) / len(found):.3f}"
              + (f"  (base-47: top-1 {before[0]}, top-5 {before[1]}, MRR {before[2]:.3f})" if before else ""))


if __name__ == "__main__":
    main()
