"""``sift-mcp``: Sift's MCP server over stdio.

    sift-mcp [--root FOLDER [--name NAME]] [--no-worker] [--home DIR]

Startup is kept light so ``initialize`` and ``tools/list`` answer at once:
the index, the engine and the model are opened on first use, the model loads
in a background thread, and queuing the first scan happens in another.

stdout is the protocol. From the start fd 1 points at stderr, and Sift's own
stdio transport (mcp_server/transport.py: it answers every line, even those
the mcp package's transport drops) writes the protocol to a private copy of
the real stdout. So llama.cpp, libraries and the worker child can never write
into the protocol stream.
"""
from __future__ import annotations

import argparse
import os
import signal
import sqlite3
import sys
import threading
from contextlib import asynccontextmanager

INSTRUCTIONS = """Sift searches the user's own local notes (Markdown, often Chinese and English), code and PDFs.
Start with `search`; then `read_file` a result's path (with its lines or page) for full context. `list_files`
browses folders and recent files, `similar` finds related passages, `stats` tells how fresh the index is, and
`refresh` queues a re-scan after the user changes files. Results name their file, lines or page, and the
index generation that answered; cite them."""


SHOWN_COLLECTIONS = 10  # named in the instructions at most; stats lists the rest


def instructions(settings) -> str:
    """INSTRUCTIONS and the collections registered at start (name, its root's last folder, the files its
    published generation holds): an assistant learnt their names only from stats or from an error naming them,
    so its first search could not be limited to one. The first SHOWN_COLLECTIONS by name, then how many more."""
    import os
    import sqlite3

    from search.index import collection_reads, db, progress_reads
    from search.index.status import ORDER, count
    try:
        conn = db.connect(settings.index_path, readonly=True)
    except (db.NoIndex, db.IndexUnavailable, sqlite3.Error):
        return INSTRUCTIONS  # nothing registered yet, or a damaged index stats tells of
    try:
        rows = collection_reads.collections(conn)
        named = [f"{row['name']} ({os.path.basename(row['root'].rstrip(os.sep)) or row['root']}, "
                 f"{count(progress_reads.searchable(conn, row['id'], row['published'])[0] if row['published'] else 0, 'file')}"
                 # a first build in parts: '100 files' read as all there is; the rest comes (stats: how far)
                 f"{' so far: its first build comes in parts, ' + ORDER if progress_reads.deferred(conn, row['published']) else ''})"
                 for row in rows[:SHOWN_COLLECTIONS]]
    except sqlite3.Error:
        return INSTRUCTIONS
    finally:
        conn.close()
    if not named:
        return INSTRUCTIONS
    more = f"; and {len(rows) - len(named):,} more: stats lists them" if len(rows) > len(named) else ""
    return (f"{INSTRUCTIONS}\nCollections (name (folder, files published)), for the tools' collection argument: "
            f"{', '.join(named)}{more}.")


class StartupError(Exception):
    """Bad flags or settings, or a root that cannot be registered (served_root serves all the same); printed as
    one line, exit status 2."""


# what --help said nothing of: who starts it, what it waits for, and where its settings come from
HELP_EPILOG = ("An MCP client (Claude Desktop, Claude Code) starts it and speaks to it over stdin and stdout; run by "
               "hand, it waits for a client (Ctrl-D stops it) and prints the `claude mcp add` command and the "
               "claude_desktop_config.json entry that give it to Claude Code and Claude Desktop. Settings are the SIFT_* environment variables (SIFT_HOME, SIFT_MODEL, …: "
               "docs/configuration.md), which the client's configuration must pass (its \"env\"); the tools: "
               "docs/tools.md.")


def build_parser() -> argparse.ArgumentParser:
    from search.arguments import Parser
    from search.settings import add_home_flag
    parser = Parser(prog="sift-mcp", description="Sift's MCP server (stdio): search your "
                                     "notes, code and PDFs from an AI assistant.", epilog=HELP_EPILOG)
    parser.add_argument("--root", metavar="FOLDER", help="a folder to index: registered as a collection if new, and "
                        "re-scanned at every start (give its absolute path: the client starts the server in a "
                        "folder of its own); one that is not there is said in every tool's answer")
    parser.add_argument("--name", help="the collection name for --root (default: the folder's name)")
    parser.add_argument("--no-worker", action="store_true", help="run neither the huey worker nor the file watcher "
                        "as child processes (use when a worker and a watcher already run elsewhere: without a "
                        "watcher, edits are read at the periodic rescan)")
    add_home_flag(parser)
    parser.add_argument("--http", metavar="[HOST:]PORT", help="serve MCP Streamable HTTP at http://HOST:PORT/mcp "
                        "instead of stdio (HOST defaults to 127.0.0.1; a token is required, see docs/http.md)")
    parser.add_argument("--read-only", action="store_true", help="with --http: do not offer the refresh tool")
    parser.add_argument("--log-queries", action="store_true", help="with --http: also log each tool call's "
                        "arguments (query text, paths); never logged otherwise")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.name is not None and args.root is None:  # it was ignored without a word: no collection got the name
        parser.error(f"--name {args.name} names the collection of --root: give --root FOLDER too")
    wire = _divert_stdout()
    children: list = []  # the worker, once started; stopped on every way out
    _stop_on_signals(children)
    try:
        if args.http is None and (args.read_only or args.log_queries):
            raise StartupError("--read-only and --log-queries go with --http [HOST:]PORT (over stdio the client "
                               "chooses the tools it allows)")
        served = _served_settings(args, http=args.http is not None)  # a bad SIFT_* setting: said in the answers, over HTTP as over stdio
        if args.http is not None:
            from mcp_server import http
            return http.main(args, served, children)  # serves until SIGTERM or SIGINT
        settings = served.settings
        collection, problem = (None, None) if served.unusable else served_root(settings, args.root, args.name)
        if not (args.no_worker or served.no_worker):
            from mcp_server.worker import Worker
            children.append(Worker(settings, queued=collection[0] if collection else None))
            children[0].start()
        server = build_server(settings, children[0] if children else None, collection,
                              [*served.problems, *([problem] if problem else [])], served.unusable,
                              held=served.no_worker)
        from mcp_server import transport
        _hint_on_a_terminal(args.root, args.name, ("--no-worker",) if args.no_worker else ())
        transport.run(server, wire)  # returns when the client closes stdin
        for child in children:
            child.stop()
        _exit_if_threads_linger()
        return 0
    except StartupError as exc:
        print(f"sift-mcp: error: {exc}", file=sys.stderr)
        return 2
    finally:
        if wire is not None:
            _restore_stdout(wire)
        for child in children:
            child.stop()


TERMINAL_HINT = ("sift-mcp: speaks MCP over stdio and waits for a client's messages on stdin; an assistant "
                 "starts it (see Client configuration in the README). Ctrl-D stops it.")


def _hint_on_a_terminal(root: str | None = None, name: str | None = None, flags: tuple[str, ...] = ()) -> None:
    """Started by hand, the server would wait in silence: say what it is waiting for, and how to give it to an
    assistant: Claude Code's command and Claude Desktop's configuration (the README's), this server as run here
    (``flags``: the others given, --no-worker: the line dropped it)."""
    if sys.stdin.isatty():
        print(TERMINAL_HINT, file=sys.stderr, flush=True)
        print(f"sift-mcp: to give it to Claude Code: {client_command(root, name, flags)}", file=sys.stderr, flush=True)
        print(f"sift-mcp: to give it to Claude Desktop, in claude_desktop_config.json:\n"
              f"{desktop_config(root, name, flags)}", file=sys.stderr, flush=True)


# The settings of this shell that the server (and its worker) would not have when a client starts it.
CLIENT_ENV = ("SIFT_HOME", "SIFT_MODEL", "SIFT_EMBEDDINGS", "SIFT_EXCLUDE", "SIFT_INCLUDE")


def client_command(root: str | None, name: str | None = None, flags: tuple[str, ...] = ()) -> str:
    """'claude mcp add sift -s user -e SIFT_HOME=/home/me/.sift -- /home/me/sift/.venv/bin/sift-mcp --root
    /home/me/notes': this server as run here, every path absolute. A newcomer wrote the README's
    '/path/to/sift/.venv/bin/sift-mcp' as given, or a relative --root that the client, starting the server in a
    folder of its own (often /), did not find; and the settings of this shell (SIFT_HOME …) reach no client."""
    import shlex
    command, args, env = _as_run_here(root, name, flags)
    settings = [part for variable, value in env.items() for part in ("-e", f"{variable}={value}")]
    return shlex.join(["claude", "mcp", "add", "sift", "-s", "user", *settings, "--", *command, *args])


def desktop_config(root: str | None, name: str | None = None, flags: tuple[str, ...] = ()) -> str:
    """The README's Claude Desktop configuration with this server's own absolute paths and settings:
    '{"mcpServers": {"sift": {"command": "/home/me/sift/.venv/bin/sift-mcp", "args": [...], "env": {...}}}}'."""
    import json
    command, args, env = _as_run_here(root, name, flags)
    server = {"command": command[0], "args": [*command[1:], *args]}
    if env:
        server["env"] = env
    return json.dumps({"mcpServers": {"sift": server}}, indent=2, ensure_ascii=False)


def _as_run_here(root: str | None, name: str | None, flags: tuple[str, ...]) -> tuple[list, list, dict]:
    """(program, its arguments, the settings a client must pass) of this server as run here."""
    program = os.path.abspath(sys.argv[0])  # not resolved: the venv's python is a link the venv needs as it is
    command = [program] if os.path.basename(program) == "sift-mcp" else [sys.executable, "-m", "mcp_server"]
    from search.settings import is_model_path
    env = {}
    for variable in (variable for variable in CLIENT_ENV if os.environ.get(variable)):
        value = os.environ[variable]
        if variable == "SIFT_HOME" or (variable == "SIFT_MODEL" and is_model_path(value)):
            value = os.path.abspath(os.path.expanduser(value))
        env[variable] = value
    args = ["--root", os.path.realpath(os.path.expanduser(root))] if root else []
    args += ["--name", name] if root and name else []
    return command, [*args, *flags], env


def _served_settings(args, http: bool = False):
    """The settings to serve with (mcp_server.settings_problems): a bad one is said in every answer rather than
    ending the server, which a client showed only as 'disconnected'. Said on stderr too."""
    from mcp_server import settings_problems
    from search.settings import use_flags
    given = args.home if args.home is not None else os.environ.get("SIFT_HOME")
    use_flags(args)  # --home, for this process and the worker and watcher it starts
    served = settings_problems.load(http, given, flag=args.home is not None)
    for said in [*served.problems, *([served.unusable] if served.unusable else [])]:
        print(f"sift-mcp: error: {said}", file=sys.stderr, flush=True)
    return served


def _relative_to(root: str) -> str:
    """Where a relative --root was looked for: an MCP client starts the server in a folder of its own choosing
    (often /), so '--root notes' in its configuration said only 'notes does not exist'."""
    if root.startswith("~") and os.path.expanduser(root) != root:  # the client's user's home: said which
        return f" (~ read as {os.path.expanduser('~' + root[1:].split('/', 1)[0])})"
    if os.path.isabs(os.path.expanduser(root)):
        return ""
    return (f" (a relative path is read from the folder the server was started in, {os.getcwd()}: "
            "give the folder's absolute path, or one starting with ~)")


def served_root(settings, root: str | None, name: str | None) -> tuple[tuple[int, str] | None, str | None]:
    """(the collection of --root, None) or, when it cannot be registered (a folder that is not there, a name
    refused), (None, the problem): the server serves all the same, and the tools' answers say the problem first.
    It exited with status 2, and Claude Desktop showed only 'disconnected', the reason in a log file the user
    had to find; the assistant can now tell it. Said on stderr too (a terminal, the client's log)."""
    if not root:
        return None, None
    try:
        return register_root(settings, root, name), None
    except StartupError as exc:
        problem = _root_problem(root, str(exc))
        print(f"sift-mcp: error: {exc}; serving all the same: each tool's answer says so", file=sys.stderr,
              flush=True)
        return None, problem


UNTIL_THEN = "restart the client; until then only what was indexed before is searched"


def _root_problem(root: str, why: str) -> str:
    """What to fix, and where, for a --root that could not be registered: its folder, or its collection's name (a
    second folder called 'notes' was told 'sift-mcp was started with collection 'notes' already indexes …; fix
    --root …', when the folder was right and it wanted a --name), or the index."""
    if why.startswith("--root "):  # the folder: not there, or a file
        return (f"sift-mcp was started with {why}; fix --root in the MCP client's configuration (the folder's "
                f"absolute path) and {UNTIL_THEN}")
    if "--name" in why:  # a name another collection has, or one refused
        return (f"sift-mcp could not register --root {root}: {why}; give --name NAME after --root in the MCP "
                f"client's configuration and {UNTIL_THEN}")
    return f"sift-mcp could not register --root {root}: {why}; then {UNTIL_THEN}"


def register_root(settings, root: str, name: str | None) -> tuple[int, str]:
    """Register ``root`` as a collection (if new); returns (id, name). The one write the server makes."""
    from search.index import collection_reads, db, names, store
    real = os.path.realpath(os.path.expanduser(root))
    if not os.path.isdir(real):
        from ingest.discover import not_a_folder
        why = not_a_folder(root, real)
        where = "" if "(did you mean " in why else _relative_to(root)  # the folder meant says where it looked
        raise StartupError(f"--root {root}: not a folder: {why}{where}")
    if (known := _registered(settings, real, name)) is not None:
        return known
    try:
        conn = db.connect(settings.index_path)
    except db.IndexUnavailable as exc:
        raise StartupError(str(exc)) from None
    try:
        existing = collection_reads.collection_for_root(conn, real)
        if existing is not None and name in (None, existing["name"]):
            return existing["id"], existing["name"]
        wanted = name or os.path.basename(real) or "root"
        moved = store.follow_move(conn, wanted, real) if existing is None else None
        if moved is not None:  # its folder was moved here: the collection follows it
            print(f"sift-mcp: note: {names.moved_note(wanted, moved, real)}", file=sys.stderr)
            followed = collection_reads.collection_for_root(conn, real)
            return followed["id"], followed["name"]
        if existing is None:
            from ingest.discover import home_note, left_out_by
            refusal, held = names.nesting(real, collection_reads.collections(conn), left_out_by(settings))
            if refusal:  # not a second collection of the same files: the one that holds them is served
                outer = names.container(real, collection_reads.collections(conn), left_out_by(settings))
                print(f"sift-mcp: note: {refusal}; it is not registered again: its files are in "
                      f"{outer['name']!r}, which is rescanned now", file=sys.stderr)
                return outer["id"], outer["name"]
            for note in held + [note for note in [home_note(real)] if note]:
                print(f"sift-mcp: note: {note}", file=sys.stderr)
        row = store.ensure_collection(conn, wanted, real)
        print(f"sift-mcp: collection {row['name']!r} is {real}", file=sys.stderr)
        return row["id"], row["name"]
    except ValueError as exc:
        raise StartupError(str(exc)) from None
    finally:
        conn.close()


def _registered(settings, real: str, name: str | None) -> tuple[int, str] | None:
    """(id, name) of the collection ``real`` is registered as (each start after the first), read by a reader: the
    writer's connection migrates an older index before it returns, which the worker does anyway (schema V26 reads
    every passage's pinyin: 7 s of a 10,000-passage index, all before initialize was answered)."""
    from search.index import collection_reads, db
    try:
        conn = db.connect(settings.index_path, readonly=True)
    except db.IndexUnavailable:  # none yet, or one the writer's connection says what is wrong with
        return None
    try:
        existing = collection_reads.collection_for_root(conn, real)
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    return (existing["id"], existing["name"]) if existing is not None and name in (None, existing["name"]) else None


def build_server(settings, worker=None, collection: tuple[int, str] | None = None, problems=None,
                 unusable: str | None = None, held: bool = False):
    """``problems``: what went wrong at startup (a str, or a list of them), said first in the tools' answers;
    ``unusable``: why nothing can be served, every tool's answer; ``held``: a bad setting of what the index holds
    kept the worker from starting (mcp_server.settings_problems), so no build will re-embed with the configured
    model: the index's own models answer, and the default one is not built for nothing."""
    from mcp_server import tools
    from mcp_server.service import Sift
    sift = Sift(settings, worker)
    sift.model.load_configured = not held
    if held:
        sift.worker_held = True
        sift.worker_note = "not started: a setting of what the index holds is wrong (the problem above says which)"
    sift.problems = [problems] if isinstance(problems, str) else list(problems or [])
    sift.unusable = unusable

    @asynccontextmanager
    async def lifespan(_server):
        if not unusable:
            _start_background(sift, collection)
        yield {}

    told = INSTRUCTIONS if unusable else instructions(settings)
    told += "".join(f"\nProblem at startup, to tell the user: {problem}." for problem in
                    [*([unusable] if unusable else []), *sift.problems])
    server = tools.Server(name="sift", instructions=told, version=_version(), lifespan=lifespan,
                          log_level="WARNING")
    tools.register(server, sift)
    return server


def _start_background(sift, collection) -> None:
    """Begin loading the model and the index into memory, and queue the first scan, beside the serving loop."""
    if sift.settings.embeddings:
        sift.model.start()
    threading.Thread(target=_warm, args=(sift,), name="sift-warm", daemon=True).start()
    if collection is not None:
        threading.Thread(target=_queue_scan, args=(sift, collection), name="sift-scan", daemon=True).start()


def _warm(sift) -> None:
    """Read the keyword postings and vectors now rather than on the first search (which would answer anyway)."""
    import sqlite3

    from search.index.db import IndexUnavailable
    try:
        sift.engine().warm()
    except IndexUnavailable:
        pass  # nothing indexed yet: the first search after the first publish loads it
    except sqlite3.DatabaseError as exc:  # a damaged index: the tools say so when asked
        print(f"sift-mcp: could not load the index into memory: {exc}", file=sys.stderr)


def _queue_scan(sift, collection: tuple[int, str]) -> None:
    collection_id, name = collection
    try:
        waiting = sift.queue_scan(collection_id)
        print(f"sift-mcp: queued a scan of {name!r}" if waiting is None else
              f"sift-mcp: a scan of {name!r} is already queued; no other was queued", file=sys.stderr)
    except Exception as exc:  # shown by stats; the server still serves what is published
        from workers.queues import redis_unusable  # Redis down: what to do (it said only "ConnectionError: …")
        said = (sift.settings.queue != "sqlite" and redis_unusable(exc, sift.settings.queue)) or \
            f"{type(exc).__name__}: {exc}"
        message = f"could not queue a scan of {name!r}: {said}"
        sift.unqueued[name] = said
        sift.notices.append(message)
        print(f"sift-mcp: {message}", file=sys.stderr)


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("sift")
    except Exception:
        return "0"


# --- process plumbing ----------------------------------------------------------------

def _divert_stdout() -> int | None:
    """Point fd 1 at stderr; returns a copy of the real stdout to restore before serving."""
    try:
        sys.stdout.flush()
        wire = os.dup(1)
        os.dup2(2, 1)
        return wire
    except (OSError, ValueError):
        return None


def _restore_stdout(wire: int | None) -> None:
    if wire is None:
        return
    sys.stdout.flush()
    os.dup2(wire, 1)
    os.close(wire)


STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def _stop_on_signals(children: list) -> None:
    """SIGTERM, SIGHUP or SIGINT: stop the worker's group, then exit at once (over stdio and over HTTP)."""
    def stop(signum, _frame):
        try:  # os.write: a print here could land inside another print of the main thread
            os.write(2, f"sift-mcp: {signal.Signals(signum).name}: stopping the worker, then exiting\n".encode())
        except OSError:
            pass
        for child in children:
            child.stop()
        os._exit(128 + signum)
    for sig in STOP_SIGNALS:
        signal.signal(sig, stop)


def _exit_if_threads_linger() -> None:
    """After stdin closed, leave even if a tool call is still running in a thread."""
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        sys.stderr.flush()
        os._exit(0)
