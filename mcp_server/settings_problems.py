"""Bad SIFT_* settings at sift-mcp's start: served with what is safe, and said in every answer.

A typo'd SIFT_MODEL or SIFT_CHUNK_TOKENS=abc in a client's "env" ended the server with status 2: Claude Desktop
showed only 'disconnected', and the reason sat in a log file the user had to find. Now the server serves:

- a setting of how the worker runs (SIFT_WORKERS, SIFT_NICE, SIFT_RETRIES, …) is served with its default, for
  the server and the worker it starts, whose environment no longer has it;
- a setting of what the index holds (HOLDS_THE_INDEX) is left out too, but the server starts no worker: with
  the default it would index the folders again otherwise than the user set (another model, other chunks, other
  files). Search answers from what was indexed before;
- a SIFT_HOME that is not a folder leaves nothing to serve: every tool answers with the problem.

Each problem is the first line of the answers of stats, search, list_files, similar and refresh, and is in the
server's instructions (mcp_server.tools, mcp_server.server), as for a --root that is not there.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

# Settings whose default would change what the worker puts in the index (or where its jobs go).
HOLDS_THE_INDEX = ("SIFT_MODEL", "SIFT_EMBEDDINGS", "SIFT_CHUNK_TOKENS", "SIFT_CHUNK_OVERLAP", "SIFT_MAX_FILE_CHUNKS",
                   "SIFT_INCLUDE", "SIFT_EXCLUDE", "SIFT_QUEUE", "SIFT_EMBED_REMOTE")
WHERE = "in the \"env\" of the MCP client's configuration"
WHERE_ARGS = "in the \"args\" of the MCP client's configuration"  # --home is given there, not in its "env"
RESTART = "restart the client"
# sift-mcp --http is started by hand (or by a service), not by the client: the fix is in its own environment
WHERE_HTTP = "in the environment sift-mcp --http is started with"
RESTART_HTTP = "restart sift-mcp --http"


@dataclass
class Served:
    settings: object  # search.settings.Settings
    problems: list[str] = field(default_factory=list)  # each said first in the tools' answers
    no_worker: bool = False  # a setting of what the index holds was bad: the server's own worker is not started
    unusable: str | None = None  # nothing can be served: every tool answers with this


def load(http: bool = False, given_home: str | None = None, flag: bool = False) -> Served:
    """The settings of the environment; a bad one is left out of it (its default is used, here and in the
    children the server starts) and said, unless it is the home itself. ``http``: the server was started with
    --http, and what is said to fix is its own environment, not a client's configuration. ``given_home``: the
    home as the user wrote it (SIFT_HOME or --home, before --home was made absolute); ``flag``: given as --home."""
    where, restart = (WHERE_HTTP, RESTART_HTTP) if http else (WHERE, RESTART)
    from search.settings import SettingError
    from search.settings import load as load_settings
    served = Served(settings=None)
    told: list[tuple[str, SettingError]] = []
    while True:
        try:
            served.settings = load_settings()
            break
        except SettingError as exc:
            present = [variable for variable in exc.variables if variable in os.environ]
            if "SIFT_HOME" in exc.variables or not present:  # another home would be another index
                return _unusable(str(exc), where, restart)
            for variable in present:
                del os.environ[variable]
            # the one the user set: of SIFT_CHUNK_OVERLAP and SIFT_CHUNK_TOKENS, TOKENS=16 alone is what to fix
            told.append((present[0], exc))
        except ValueError as exc:  # not a setting of the environment's: nothing to fall back on
            return _unusable(str(exc), where, restart)
    served.no_worker = any(variable in HOLDS_THE_INDEX for variable, _ in told)
    served.problems = [_said(variable, exc, served.no_worker, where, restart) for variable, exc in told]
    from search.setting_names import misspelled, slip_text  # SIFT_EXCLUDE misspelt in "env": all in, unsaid
    served.problems += [_then(slip_text(name, meant), f"fix it {where} and {restart}") for name, meant in misspelled()]
    lost = None if http else _home_not_found(given_home, flag)
    if lost:  # --home sift-home is fixed in the client's "args": its "env" holds no SIFT_HOME to fix
        said = f"{lost} {WHERE_ARGS if flag else where} and {restart}"
        slip = os.path.isabs(os.path.expanduser(given_home))  # a relative home's 'held no index' stays true
        served.problems.append(UntilIndexed(said, os.path.join(os.path.expanduser(given_home), "index.db"))
                               if slip else said)
    return served


class UntilIndexed(str):
    """A problem that holds until the index it names has something published: 'SIFT_HOME=~/.sfit holds no index,
    but ~/.sift beside it does' headed every answer after the server's own worker had built that home's index."""

    def __new__(cls, said: str, index: str):
        problem = super().__new__(cls, said)
        problem.index, problem.seen, problem.gone = index, None, False
        return problem

    def holds(self) -> bool:
        """Whether nothing is published in its index yet: read again only when the index's files changed (a
        stat of two files an answer), and never again once something is."""
        if not self.gone:
            seen = tuple(_stamp(self.index + end) for end in ("", "-wal"))
            if seen != self.seen:
                self.seen, self.gone = seen, _published(self.index)
        return not self.gone


def standing(problems: list[str]) -> list[str]:
    """``problems`` without those that no longer hold (``UntilIndexed``)."""
    return [problem for problem in problems if not isinstance(problem, UntilIndexed) or problem.holds()]


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_mtime_ns, found.st_size


def _published(index: str) -> bool:
    """Whether the index at ``index`` has a collection with a generation published (one it cannot read: not yet)."""
    import sqlite3

    from search.index import collection_reads, db
    try:
        conn = db.connect(index, readonly=True)
    except (db.NoIndex, db.IndexUnavailable, OSError, sqlite3.Error):
        return False
    try:
        return bool(collection_reads.published(conn))
    except sqlite3.Error:
        return False
    finally:
        conn.close()


def _home_not_found(given: str | None, flag: bool = False) -> str | None:
    """Where a relative home that holds no index was read: a client starts sift-mcp in a folder of its own
    choosing (often /), so SIFT_HOME=sift-home was /sift-home, empty, and the answers said only 'nothing is indexed
    yet' (its worker building a new index there). Served all the same (run by hand in the folder meant, it is the
    home meant), and said. None for an absolute home, or a relative one that holds an index."""
    if not given:
        return None
    if os.path.isabs(os.path.expanduser(given)):  # a slip (~/.sfit): a new, empty home beside the one meant
        from search.setting_names import home_meant
        meant = home_meant(os.path.expanduser(given))
        empty = os.path.exists(os.path.join(os.path.expanduser(given), "index.db"))  # made by a start before
        return meant and (f"{'--home ' if flag else 'SIFT_HOME='}{given} holds "
                          f"{'nothing indexed' if empty else 'no index'}, but {meant} beside it does: if that home "
                          "was meant, give it")
    home = os.path.realpath(given)
    if os.path.exists(os.path.join(home, "index.db")):
        return None
    return (f"{'--home ' if flag else 'SIFT_HOME='}{given} is a relative path, read from the folder the server was started in ({os.getcwd()}) "
            f"as {home}, which held no index (a new one is made there): if another home was meant, give its absolute "
            "path, or one starting with ~,")


def _said(variable: str, exc, no_worker: bool, where: str = WHERE, restart: str = RESTART) -> str:
    exc = _without_flags(str(exc))
    if variable in HOLDS_THE_INDEX:
        return _then(exc, f"fix {variable} {where} and {restart}. Until then search answers from what was "
                          "indexed before, and sift-mcp starts no worker (with the default it would index the folders "
                          "again otherwise than set)")
    who = "sift-mcp runs" if no_worker else "sift-mcp and its worker run"
    return _then(exc, f"{who} with the default until {variable} is fixed {where} (then {restart})")


def _then(said: str, then: str) -> str:
    """``said``, then what to do: after a question it asks ('did you mean SIFT_EXCLUDE?') as a sentence of its own,
    'Fix it …' (it read '… SIFT_EXCLUDE? fix it …', and '… e5?; fix SIFT_MODEL …'), else after '; '."""
    if said.rstrip().endswith("?"):  # a program's name keeps its case: 'sift-mcp runs …'
        return f"{said.rstrip()} {then if then.startswith('sift-mcp') else then[:1].upper() + then[1:]}"
    return f"{said}; {then}"


def _without_flags(said: str) -> str:
    """The message without the `ingest` flags it names beside a variable ('SIFT_CHUNK_TOKENS=abc
    (--chunk-tokens)'): sift-mcp has none of them, and its user fixes the variable."""
    import re
    return re.sub(r" \(--(?!home\))[a-z-]+\)", "", said)


def _unusable(why: str, where: str = WHERE, restart: str = RESTART) -> Served:
    from pathlib import Path

    from search.settings import Settings
    home = os.environ.get("SIFT_HOME")
    settings = Settings(home=Path(home).expanduser()) if home else Settings()
    said = _then(f"sift-mcp cannot serve: {why}", f"fix it {where} (or --home in its args) and {restart}; until "
                 "then nothing can be searched")
    return Served(settings=settings, no_worker=True, unusable=said)
