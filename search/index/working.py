"""Slow work, named: what a worker has been chunking or embedding for more than a few seconds (written by
``workers.working``), for stats and ``ingest enqueue --wait``: ``chunking big.log (38.0 MB) for 1.2 min``.
Cutting a file of thousands of passages takes a minute or more and embedding them a quarter of an hour, while the
per-file counts do not move. A row whose worker is gone (killed mid-job) is not shown.
"""
from __future__ import annotations

import os
import time

from search.index import collection_reads, file_reads, work_reads

VERBS = {"chunk": "chunking", "embed": "embedding"}
NO_PROCESS = 0  # the pid of a background row whose job is lost (store.stop_background): no process has it


def slow(conn, gen: int) -> list[dict]:
    """The generation's slow work whose worker still runs, longest first: stage, path, files, bytes, seconds,
    done, total."""
    now = time.time()
    return [{"stage": r["stage"], "path": r["path"], "files": r["files"], "bytes": r["bytes"],
             "seconds": round(now - r["since"], 1), "done": r["done"], "total": r["total"]}
            for r in work_reads.working(conn, gen) if alive(r["pid"])]


def in_background(conn, collection_id: int) -> list[dict]:
    """The collection's big files embedded in the background (workers.tasks.embed_in_background), by path: path,
    bytes, seconds since handed on, done, total, and state: 'embedding' (its worker runs), 'waiting' (for a
    worker), 'done' (its build will read it), 'stopped' (its worker died: the next scan hands it on again),
    'failed' (its job failed for good: then also ``reason``); ``words``: whether its build wrote this version's
    passages (searchable by keyword); ``earlier``: whether an earlier version answers instead; and ``away``: whether
    its last scan found it not downloaded on this machine (a sync client freed it: no build reads it until it is
    downloaded again), as that scan recorded it, with no look on disk."""
    now, found, away = time.time(), [], None
    for r in work_reads.background(conn, collection_id):
        away = file_reads.away_paths(conn, collection_id) if away is None else away  # read once, if any row
        reason = failed(r)
        state = "failed" if reason else "done" if r["done"] >= r["total"] else "waiting" if r["pid"] is None \
            else "embedding" if alive(r["pid"]) else "stopped"
        found.append({"stage": "embed", "path": r["path"], "files": 1, "bytes": r["bytes"],
                      "seconds": round(now - r["since"], 1), "done": r["done"], "total": r["total"], "state": state,
                      **_indexed_as(conn, collection_id, r), "away": r["path"] in away})
        if reason:
            found[-1].update(reason=reason, error=failed_error(r))
    return found


def _indexed_as(conn, collection_id: int, row) -> dict:
    """``words``: the file's current version is the one its job embeds (its build wrote its passages without
    their vectors: searchable by keyword at once, by meaning once the job is done and its build reads it); else
    ``earlier``: whether an earlier version of it answers."""
    stat = file_reads.indexed_stat(conn, collection_id, row["path"])
    words = stat is not None and stat == (row["size"], row["mtime"])
    return {"words": words, "earlier": stat is not None and not words}


def failed(row) -> str | None:
    """Why a row of ``background`` (work_reads.background) failed for good, or None (also on an index before V18)."""
    return row["failed"] if "failed" in row.keys() else None


def failed_error(row) -> str | None:
    """The class of the error a row of ``background`` failed with (schema V31), or None (none, or before V31)."""
    return row["error"] if "error" in row.keys() else None


AGAIN = "tried again when the file changes, or by `ingest retry-failed`"


def background_text(work: dict) -> str:
    """'in the background: embedding big.md (4.0 MB) for 5.0 min: 1,200 of 3,540 chunks; searchable in a build
    of its own once done', or what the work waits for."""
    waiting = (f"the rest of its {work['total']:,} chunks ({work['done']:,} done)" if work["done"]
               else f"its {work['total']:,} chunks")
    said = {"embedding": f"{text(work)}; searchable in a build of its own once done",
            "waiting": f"{work['path']} waits for a worker to embed {waiting}",
            "done": f"{work['path']}: its {work['total']:,} chunks are embedded; its build reads it next",
            "stopped": f"{work['path']}: its worker stopped after {work['done']:,} of {work['total']:,} chunks; "
                       "the next scan hands it on again",
            "failed": f"{work['path']}: embedding its {work['total']:,} chunks failed: {work.get('reason')}; "
                      f"{'its earlier version answers; ' if work.get('earlier') else ''}{AGAIN}"}
    if work.get("words"):  # its passages are searchable by their words already
        said = {**said, **_by_words_text(work, waiting)}
    return f"in the background: {said[work['state']]}"


def _by_words_text(work: dict, waiting: str) -> dict[str, str]:
    """``background_text`` of a file whose passages are written already, their vectors to come. A freed one
    (``away``) is read by no build until it is downloaded again: stats said 'by meaning once its build reads it,
    next' of it, as of a file on this disk."""
    if work.get("away"):
        return {"embedding": f"{text(work)}; {BY_KEYWORD}; {BY_MEANING_AWAY}, once embedded",
                "waiting": f"{work['path']} waits for a worker to embed {waiting}; {BY_KEYWORD}; {BY_MEANING_AWAY}, "
                           "once embedded",
                "done": f"{work['path']}: its {work['total']:,} chunks are embedded; {BY_KEYWORD}; {BY_MEANING_AWAY}",
                "stopped": f"{work['path']}: its worker stopped after {work['done']:,} of {work['total']:,} chunks; "
                           f"{BY_KEYWORD}; {BY_MEANING_AWAY}, when a scan hands it on again",
                "failed": f"{work['path']}: embedding its {work['total']:,} chunks failed: {work.get('reason')}; "
                          f"{BY_KEYWORD}, not by meaning; {AGAIN}"}
    return {"embedding": f"{text(work)}; {BY_KEYWORD}; by meaning when embedded",
            "waiting": f"{work['path']} waits for a worker to embed {waiting}; {BY_KEYWORD}; by meaning when embedded",
            "done": f"{work['path']}: its {work['total']:,} chunks are embedded; {BY_KEYWORD}; by meaning once "
                    "the scan its job asked for has read it",
            "stopped": f"{work['path']}: its worker stopped after {work['done']:,} of {work['total']:,} chunks; "
                       f"{BY_KEYWORD}; by meaning once the next scan hands it on again",
            "failed": f"{work['path']}: embedding its {work['total']:,} chunks failed: {work.get('reason')}; "
                      f"{BY_KEYWORD}, not by meaning; {AGAIN}"}


BY_KEYWORD = "searchable by keyword"
# a freed big file with its words written: no build reads it again (for its vectors) until it is on this disk
BY_MEANING_AWAY = "by meaning once it is downloaded again (a sync client keeps it in the cloud)"


def background_state(work: dict) -> str:
    """Where a big file embedded in the background stands, as search's freshness line and list_files say it:
    'big.md being embedded in the background (1,200 of 3,540 chunks), searchable when done'. It was not counted
    there at all: the collection read 'up to date', and the file 'skipped', while it was on its way."""
    said = {"embedding": f"being embedded in the background ({work['done']:,} of {work['total']:,} chunks), "
                         "searchable when done",
            "waiting": f"waiting for a worker to embed it in the background ({work['done']:,} of "
                       f"{work['total']:,} chunks), searchable when done",
            "done": f"embedded in the background ({work['total']:,} chunks), searchable once its build reads it",
            "stopped": f"stopped being embedded in the background after {work['done']:,} of {work['total']:,} "
                       "chunks (its worker stopped before the end); the next scan hands it on again",
            "failed": f"failed to be embedded in the background ({work.get('reason')}); {AGAIN}"}
    if work.get("words"):  # 'big.md searchable by keyword; by meaning when embedded (1,200 of 3,540 chunks)'
        said = {state: f"{BY_KEYWORD}; by meaning when embedded ({work['done']:,} of {work['total']:,} chunks)"
                for state in ("embedding", "waiting", "done")}
        said["done"] = f"{BY_KEYWORD}; by meaning once its build reads its {work['total']:,} embedded chunks"
        said["stopped"] = (f"{BY_KEYWORD}; by meaning once the next scan hands it on again (its worker stopped "
                           f"after {work['done']:,} of {work['total']:,} chunks)")
        said["failed"] = f"{BY_KEYWORD}, not by meaning: embedding it failed ({work.get('reason')}); {AGAIN}"
        if work.get("away"):  # 'big.md searchable by keyword; by meaning once it is downloaded again (… 40 of 40 …)'
            said.update({state: f"{BY_KEYWORD}; {BY_MEANING_AWAY} ({work['done']:,} of {work['total']:,} chunks "
                                "embedded)" for state in ("embedding", "waiting", "done", "stopped")})
    return f"{work['path']} {said[work['state']]}"


def background_said(work: dict) -> str:
    """``background_state``, then '(its earlier version answers meanwhile)' when the collection has one."""
    return background_state(work) + (" (its earlier version answers meanwhile)" if work["earlier"] else "")


def background_notes(conn, collection: str | None = None) -> list[str]:
    """'notes: big.md being embedded in the background (1,200 of 3,540 chunks), searchable when done', a note per
    such file of the collections (or of ``collection``): what ``ingest search`` says of them."""
    return [f"{c['name']}: {background_said(w)}" for c in collection_reads.collections(conn, collection)
            for w in in_background(conn, c["id"])]


def text(work: dict) -> str:
    """'chunking big.log (38.0 MB) for 1.2 min'; 'embedding big.log and 3 more files (…) for 5.0 min: 3,200 of
    10,000 chunks'; work on an embedding machine (workers.remote.slow) says 'on host:pid' before 'for'."""
    from search.index.status import age, count
    what = work["path"] + (f" and {count(work['files'] - 1, 'more file')}" if work["files"] > 1 else "")
    where = f" on {work['worker']}" if work.get("worker") else ""  # an embedding machine (workers.remote)
    line = (f"{VERBS.get(work['stage'], work['stage'])} {what} ({_size(work['bytes'])}){where} "
            f"for {age(work['seconds'])}")
    if work.get("total"):
        line += f": {work['done'] or 0:,} of {work['total']:,} chunks"
    return line


def _size(size: int) -> str:
    return f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{max(1, round(size / 1e3))} KB"


def alive(pid: int) -> bool:
    """Whether the process ``pid`` (a worker of this machine) still runs; NO_PROCESS (or any pid under 1, which
    os.kill reads as a process group) is none."""
    if pid < 1:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: it exists
        return True
    return True
