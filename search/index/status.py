"""What the index holds and how far the generations being built have got: the index's part of the one
stats report (``workers.stats`` adds the queues and the worker, and renders it for ``ingest stats`` and the
MCP ``stats`` tool). Reads in one snapshot.
"""
from __future__ import annotations

import json
import os
import shlex
import time
from datetime import datetime
from pathlib import Path

from search.index import (collection_reads, file_reads, generation_reads, mail_reads, progress_reads, scan_reads,
                          tag_reads, working)
from search.index.db import snapshot
from search.index.names import bad_name_fix
from search.index.progress_reads import STAGES, generation_progress


# A time stamped more than this after now was stamped before the system clock was set back (a wrong clock put
# right, a virtual machine restored from a snapshot): it is shown as of unknown age, and the periodic rescan and
# search.index.freshness take it as long ago. Short steps are left alone: another process may have stamped a time
# a little after this one read the clock.
CLOCK_SLACK_SECONDS = 60.0
# A scan or a build that has not moved for this long is taken as stalled (search.index.freshness says why).
STALLED_SECONDS = 600.0


def collect(conn, index_path: Path | str | None = None) -> dict:
    with snapshot(conn):
        collections = [_collection(conn, row) for row in collection_reads.collections(conn)]
    report = {"collections": collections}
    if index_path:
        report["index_bytes"] = sum(_size(f"{index_path}{suffix}") for suffix in ("", "-wal", "-shm"))
    return report


TAGS_SHOWN = 20  # the tags stats names per collection, the most held first


def _collection(conn, row) -> dict:
    published = generation_reads.generation(conn, row["published"]) if row["published"] else None
    # recorded at publish (schema V7): counting 200,000 files and their chunks took longer than stats may
    files, chunks = progress_reads.searchable(conn, row["id"], row["published"]) if row["published"] else (0, 0)
    building = generation_reads.building_generation(conn, row["id"])
    aside = working.in_background(conn, row["id"])
    held = tag_reads.tag_counts(conn, row["name"])  # all of them, counted: the list below may be a part
    return {
        # "collection" as search's freshness and list_files name it; "name" kept for the scripts that read it
        "id": row["id"], "name": row["name"], "collection": row["name"], "root": row["root"], "files": files, "chunks": chunks,
        "published": _aside(_generation(conn, published), aside) if published else None,
        "building": {**_aside(_generation(conn, building), aside), "progress": progress(conn, building)}
        if building else None,
        "freshness": _with_name_fix(freshness_state(conn, row), row),
        "background": aside,
        # the tags most held, for an assistant to choose search's and list_files' tags from, and how many there are
        "tags": [{"tag": tag, "files": n} for tag, n in held[:TAGS_SHOWN]], "tags_held": len(held),
        "mail_before_v24": len(mail_reads.before_people(conn, row["id"])),  # read again at its next scan
        # the notes its last scan found not downloaded on this machine (a sync client's placeholder, cloud-only):
        # they answer as indexed; counted from what the scans record, no look on disk
        "not_downloaded": file_reads.away_count(conn, row["id"]),
    }


def _aside(generation: dict, aside: list[dict]) -> dict:
    """``generation`` without the big files in the background among its failures: they are listed under
    ``background``, with how far their job has got or why it failed. The generation that handed one on records it
    skipped at chunk (``embedded in the background …``), and ``ingest stats --json`` listed it among the failures,
    where the text named it on its ``in the background`` line alone."""
    paths = {w["path"] for w in aside}
    if paths:
        generation["failures"] = [f for f in generation["failures"] if f["path"] not in paths or f["stage"] != "chunk"]
    return generation


def freshness_state(conn, collection) -> dict:
    """Freshness of one collection row (sqlite3.Row or dict): what stats and search's freshness line show.

    ``pending_files``: files changed since the last publish, noticed by the
    watcher or in the generation being built, that are not searchable yet.
    ``scanned_unchanged``: when the newest scan began, if it found nothing changed since the published
    generation (it made no generation of its own); else None.
    ``root_missing``: the root folder is not there now. A scan records since when (``root_missing_since``,
    shown only while it is still gone); before one has run, only this look at the disk says so.
    ``scanning``: when the scan walking the folder now began (it has not recorded what it found yet); None when
    none does, or its claim is older than a live walk takes (its worker was killed).
    """
    keys = collection.keys()
    get = lambda key, default=None: collection[key] if key in keys else default  # noqa: E731 (an index before V4)
    missing = root_missing(get("root"))
    building = generation_reads.building_generation(conn, collection["id"])
    total, done = progress_reads.generation_progress(conn, building["id"]) if building else (0, 0)
    return {
        "root_missing": missing,
        "root_missing_since": get("root_missing_since") if missing else None,
        "changes_noticed": get("changes_noticed", 0),
        "changes_noticed_at": get("changes_noticed_at"),
        "scan_requested": get("scan_requested"),
        "pending_files": get("changes_noticed", 0) + total - done,
        "scanned_unchanged": _scanned_unchanged(conn, collection, get("scanned_unchanged"), building),
        "scanning": _walking(conn, collection["id"]) if "scan_started" in keys else None,
    }


def walking_text(age_seconds: float | None, next_part: bool) -> str:
    """'its first scan is walking the folder (started 2 s ago)': search's freshness line and stats say it alike
    (``next_part``: a first build in parts has published a part, and this scan reads the next one)."""
    which = "the next part's scan" if next_part else "its first scan"
    return f"{which} is walking the folder (started {age(age_seconds)} ago)"


def _walking(conn, collection_id: int) -> float | None:
    """When the scan of the collection that is walking its folder began: claimed (``scan_started``), no plan
    recorded yet. Search said 'nothing being built' for the 1–7 s a first scan of notes-en walks the folder."""
    started = scan_reads.unplanned_scan(conn, collection_id)
    return started if started is not None and -CLOCK_SLACK_SECONDS <= time.time() - started < STALLED_SECONDS \
        else None


def root_missing(root: str | None) -> bool:
    """Whether a collection's root folder is gone from disk (moved, deleted, or its drive not mounted)."""
    return bool(root) and not os.path.isdir(root)


def _scanned_unchanged(conn, collection, scanned: float | None, building) -> float | None:
    """``scanned`` (schema V12) if that scan is newer than the published generation's and nothing is being built:
    a scan that finds changes makes a generation, whose own scan is then the newest."""
    if scanned is None or building is not None or collection["published"] is None:
        return None
    published = generation_reads.generation(conn, collection["published"])
    return scanned if published is not None and scanned > published["started"] else None


def _with_name_fix(fresh: dict, row) -> dict:
    """A collection registered before names with '/' and the like were refused says so, with the fix."""
    fix = bad_name_fix(row["name"], row["root"])
    return {**fresh, "name_problem": fix} if fix else fresh


NOT_READ_YET = "not read yet"  # a change line's count of the files a part of a first build leaves to later parts


def _generation(conn, gen) -> dict:
    groups, trouble = _progress(conn, gen["id"])
    changes: dict[str, int] = {}
    for row in groups:
        changes[row["change"]] = changes.get(row["change"], 0) + row["files"]
    finished = gen["finished"]
    later = sum(1 for r in trouble if r["reason"] == progress_reads.DEFERRED)
    stages = stage_counts(groups)
    stages["parse"]["skipped"] -= later  # on their way, not skipped: stats said 'parse … skipped 1,774' of a part
    if later:  # new files all: a part of 400 said '1,874 files seen, 1,475 added', the 1,075 left to later parts too
        # (once only: two branches each took them off, and a part of 5 of 23 said '-13 added')
        changes["added"] = changes.get("added", 0) - later
        changes = {change: n for change, n in changes.items() if n > 0}
        changes[NOT_READ_YET] = later
    for by, n in _left_out_now(gen).items():  # '30 deleted' of the files SIFT_EXCLUDE='til/' left out, still on disk
        changes["deleted"] = changes.get("deleted", 0) - n
        changes[LEFT_OUT_NOW_CHANGE.format(by)] = n
    changes = {change: n for change, n in changes.items() if n > 0}
    return {
        "id": gen["id"], "state": gen["state"], "model": gen["model"],
        "started": gen["started"], "finished": finished,
        "age_seconds": round(time.time() - finished, 1) if finished else None,
        "discovered": gen["discovered"] is not None,
        "seen": gen["seen"], "unchanged": gen["unchanged"], "changes": changes, "unread": _unread(gen),
        "not_included": _not_included(gen), "left_out": _left_out(gen),
        "stages": stages,
        "chunks_written": sum(r["chunks"] for r in groups if r["stage"] == "write"),
        "embedded": sum(r["embedded"] for r in groups),
        # the files a part of a first build leaves to the next parts (workers.tasks.first_part): a count, not
        # failures (1,774 lines of one reason)
        "not_read_yet": later,
        # error: the class of the error a file failed with, for a bug report (None: no error's, or before V30)
        "failures": [{"path": r["path"], "stage": r["stage"], "state": r["state"], "reason": r["reason"],
                      "error": r["error"]} for r in trouble if r["reason"] != progress_reads.DEFERRED],
    }


def _unread(gen) -> dict[str, int]:
    """Files of kinds Sift does not read, per extension (schema V8; {} for a generation scanned before, or
    in an index that a reader opened without migrating it)."""
    stored = gen["unread"] if "unread" in gen.keys() else None
    unread = json.loads(stored) if stored else {}
    return {ext: n for ext, n in unread.items() if ext != NOT_INCLUDED and not ext.startswith(LEFT_OUT_PREFIXES)
            and not ext.startswith(LEFT_OUT_NOW_PREFIX)}


# the keys under which ingest.discover counts, with the unread files, those SIFT_INCLUDE left out, and (when it
# found no file) the files and folders SIFT_EXCLUDE or a .gitignore left out (search/ does not import ingest/:
# tests/test_include_nothing.py checks they are one)
NOT_INCLUDED = "(not matched by SIFT_INCLUDE)"
LEFT_OUT = "(left out by {})"
FOLDERS_LEFT_OUT = "(folders left out by {})"
LEFT_OUT_PREFIXES = (LEFT_OUT.split("{")[0], FOLDERS_LEFT_OUT.split("{")[0])
# the files indexed before that a scan found still on disk, left out now by a setting (ingest.discover.left_out_now):
# counted apart from the files deleted, as the change LEFT_OUT_NOW_CHANGE
LEFT_OUT_NOW = "(indexed before, left out now by {})"
LEFT_OUT_NOW_PREFIX = LEFT_OUT_NOW.split("{")[0]
LEFT_OUT_NOW_CHANGE = "left out by {} (still on disk)"


def _left_out_now(gen) -> dict[str, int]:
    """The files the scan of ``gen`` took as deleted though still on disk, by what left them out ('SIFT_EXCLUDE')."""
    stored = gen["unread"] if "unread" in gen.keys() else None
    return {key[len(LEFT_OUT_NOW_PREFIX):-1]: n for key, n in (json.loads(stored) if stored else {}).items()
            if key.startswith(LEFT_OUT_NOW_PREFIX)}


def _left_out(gen) -> dict[str, dict[str, int]]:
    """What SIFT_EXCLUDE and each .gitignore left out of a scan that found no file, by what left it out
    ('SIFT_EXCLUDE', 'docs/.gitignore'): {'files': files of kinds Sift reads, 'folders': folders not entered}."""
    stored = gen["unread"] if "unread" in gen.keys() else None
    left: dict[str, dict[str, int]] = {}
    for key, n in (json.loads(stored) if stored else {}).items():
        for what, pattern in (("files", LEFT_OUT), ("folders", FOLDERS_LEFT_OUT)):
            head, tail = pattern.split("{}")
            if key.startswith(head) and key.endswith(tail):
                left.setdefault(key[len(head):-len(tail)], {"files": 0, "folders": 0})[what] += n
    return left


def _not_included(gen) -> int:
    """The files of kinds Sift reads that the scan's SIFT_INCLUDE left out."""
    stored = gen["unread"] if "unread" in gen.keys() else None
    return json.loads(stored).get(NOT_INCLUDED, 0) if stored else 0


def nothing_seen_text(gen: dict) -> str | None:
    """'0 files seen: SIFT_INCLUDE matched none of the 12 files of kinds Sift reads', 'SIFT_EXCLUDE left out 3
    files of kinds Sift reads', 'the .gitignore at the root left out 2 folders', with what to do, for a scan
    that found no file to index; None when it found some, or nothing left any out."""
    if gen.get("seen") or not gen.get("discovered", True):
        return None
    said = []
    not_included = gen.get("not_included") or 0
    if not_included:
        said.append(f"SIFT_INCLUDE matched none of the {count(not_included, 'file')} of kinds Sift reads; "
                    "fix or unset SIFT_INCLUDE (for the worker too) and scan again")
    for by, left in sorted((gen.get("left_out") or {}).items(), key=lambda item: item[0] != "SIFT_EXCLUDE"):
        parts = [f"{count(left['files'], 'file')} of kinds Sift reads"] if left["files"] else []
        parts += [count(left["folders"], "folder")] if left["folders"] else []
        what = " and ".join(parts)
        if by == "SIFT_EXCLUDE":
            said.append(f"SIFT_EXCLUDE left out {what}; fix or unset SIFT_EXCLUDE (for the worker too) and scan again")
        else:
            where = "the .gitignore at the root" if by == ".gitignore" else by
            said.append(f"{where} left out {what}; Sift honours every .gitignore: edit it, or index a folder it "
                        "does not cover, and scan again")
    return f"0 files seen: {'; '.join(said)}" if said else None


UNREAD_SHOWN = 4  # extensions named in the unread line; the rest are summed up


def unread_text(unread: dict[str, int]) -> str | None:
    """'12 files of kinds Sift does not read: .docx 10, .png 2' (the UNREAD_SHOWN commonest extensions, then
    'and 3 more extensions'); None when there are none."""
    if not unread:
        return None
    ranked = sorted(unread.items(), key=lambda item: (-item[1], item[0]))
    text = ", ".join(f"{ext} {n}" for ext, n in ranked[:UNREAD_SHOWN])
    if len(ranked) > UNREAD_SHOWN:
        text += f" and {count(len(ranked) - UNREAD_SHOWN, 'more extension')}"
    files = sum(unread.values())
    return f"{count(files, 'file')} of {'a kind' if files == 1 else 'kinds'} Sift does not read: {text}"


def _progress(conn, gen: int) -> tuple[list, list]:
    """(files, chunks, embedded per change/stage/state; the failed and skipped files). From the counts the
    index keeps (schema V7), so stats does not read 200,000 rows per generation; an older index is counted."""
    if progress_reads.has_counts(conn):
        return progress_reads.progress_counts(conn, gen), progress_reads.troubled(conn, gen)
    rows = progress_reads.progress_rows(conn, gen)
    groups = [{"change": r["change"], "stage": r["stage"], "state": r["state"], "files": 1,
               "chunks": r["chunks"] or 0, "embedded": r["embedded"] or 0} for r in rows]
    return groups, [{**dict(r), "error": None} for r in rows if r["state"] in ("failed", "skipped")]


def progress(conn, gen) -> dict:
    """How far a generation being built has got: its changed files, those done and pending, and the seconds
    left at the pace so far (``eta_seconds``: None until discovery is over and a file has finished or a job has embedded some
    chunks), and the work
    that has taken a worker more than a few seconds (``slow``: search.index.working)."""
    total, done, later = part_progress(conn, gen["id"])
    slow = working.slow(conn, gen["id"])
    return {"files": total, "done": done, "pending": total - done,
            "eta_seconds": eta(gen, total, done, slow, later, progress_reads.embedded_unwritten(conn, gen["id"])),
            "slow": slow}


def part_progress(conn, gen: int) -> tuple[int, int, int]:
    """(files, done, left to later parts) of a generation being built: a part of a first build counts the files it
    leaves to the next parts neither as its own nor as done at once (they were 'done' as it was planned, and the
    pace, and so the ETA, came out many times too fast); ``eta`` takes the third."""
    total, done = generation_progress(conn, gen)
    later = progress_reads.deferred(conn, gen)
    return total - later, done - later, later


def eta(gen, total: int, done: int, slow: list[dict], later: int = 0, embedded: int = 0) -> float | None:
    """Seconds left at the pace so far: of the files, and of each big file being embedded at its own pace
    (a 4 MB note of 3,540 chunks left last of two files was 'ETA 31 s' by files alone, for 15 minutes).
    ``embedded``: files whose chunks are embedded, their write to come (progress_reads.embedded_unwritten), counted
    as done: between an embedding job's end and its write no job is at work on them, and `--wait` went from 'ETA
    22 s; embedding … 96 of 116 chunks' to '2/35 files, ETA 31.5 min' (the pace of the 2 files written) just before
    it published."""
    if gen["discovered"] is None:
        return None
    done += embedded
    if done >= total:
        return 0.0
    left = [_work_left(w) for w in slow if w.get("total")]
    if None in left:
        return None  # a big file whose first chunks are not embedded yet: its pace is unknown
    # the files of a job being embedded count as far as its chunks are: a job embeds up to SIFT_FILES_PER_JOB files
    # and writes them at once, so a part of a first build had '1 of 101 changed files done; ETA 1.6 h' (a first
    # small job's file in 56 s) while the other 75 files' job was at 96 of its 122 chunks, 20 s from its end. Not a
    # file alone in its job (a big one: workers.tasks.JOB_BYTES) while other files wait: its chunks are no pace of
    # theirs, and a tenth of it done in 10 s made 'ETA 2.6 h' of 101 files (its own rest is in ``left``)
    at_work = [w for w in slow if w.get("total") and w.get("files")]
    alone = sum(w["files"] for w in at_work) >= total - done  # the files being embedded are all that is left
    counted = [w for w in at_work if w["files"] > 1 or alone]
    since, done_then = _paced_from(gen)
    done_then = max(0, done_then - later) if done_then else 0  # ``later``: files left to later parts, not done
    if done <= done_then:  # no file finished since the pace's start (a worker started again, or a first minute)
        return _jobs_eta(total - done, counted, left)
    done += sum(w["files"] * w["done"] / w["total"] for w in counted)
    elapsed = max(time.time() - since, 1e-3)
    return round(max([(total - done) * elapsed / (done - done_then)] + left), 1)


def _jobs_eta(files_left: int, jobs: list[dict], left: list[float]) -> float | None:
    """Seconds left before any file is finished, at the pace of the jobs being embedded on their own clocks (files'
    worth of chunks per second); None with no such job. The files' pace since discovery took its first minute's
    model load and chunking for embedding: a part's first job at 8 of its 300 chunks made '0 of 100 files done,
    ETA 1.0 h for this part', of a part that took 5 minutes."""
    rate = sum(w["files"] * w["done"] / w["total"] / w["seconds"] for w in jobs if w["done"] and w["seconds"] > 0)
    if rate <= 0:
        return None
    under_way = sum(w["files"] * w["done"] / w["total"] for w in jobs)
    return round(max([(files_left - under_way) / rate] + left), 1)


def _paced_from(gen) -> tuple[float, int]:
    """(when, files done then) that the pace is counted from: discovery's end, or a consumer's later start
    (store.mark_resumed), so that minutes with no worker running are not taken for slow work."""
    resumed = gen["resumed"] if "resumed" in gen.keys() else None
    if resumed is None or resumed <= gen["discovered"]:
        return gen["discovered"], 0
    return resumed, gen["resumed_done"] or 0


def _work_left(work: dict) -> float | None:
    """Seconds left of one file's embedding at its pace so far (None before its first batch is done)."""
    if not work.get("done"):
        return None
    return work["seconds"] * (work["total"] - work["done"]) / work["done"]


def stage_counts(groups) -> dict[str, dict[str, int]]:
    """queued / done / failed / skipped per stage, from each file's furthest point (``groups``: rows of
    change, stage, state and the number of ``files`` there)."""
    counts = {stage: {"queued": 0, "done": 0, "failed": 0, "skipped": 0} for stage in STAGES}
    for row in groups:
        if row["change"] == "deleted":
            continue
        n, reached = row["files"], STAGES.index(row["stage"])
        for stage in STAGES[:reached]:
            counts[stage]["done"] += n
        if row["state"] == "done":
            counts[row["stage"]]["done"] += n
            if reached + 1 < len(STAGES):
                counts[STAGES[reached + 1]]["queued"] += n
        else:
            counts[row["stage"]][row["state"]] += n
    return counts


def failures(conn, limit: int = 100) -> list[dict]:
    """Failed and skipped files of each collection's newest generation."""
    return [dict(row) for row in progress_reads.failures(conn, limit)]


PARTIAL = "partial results"
# The order a first build's parts read files in (workers.tasks.recent_first), for an assistant judging whether a
# note not found yet may still come: a note edited lately is in the first parts, an old one maybe not yet
ORDER = "the most recently modified files first"


def partial_text(name: str, searchable: int, seen: int, later: int, stats: str = "stats") -> str:
    """What a search of a collection whose published generation is a part of its first build says before its
    passages (workers.tasks.first_part): the MCP tool and ``ingest search`` (``stats``: the command that says how
    far, in each one's words): what was searched (the newest files), that the answer may be in a file not read yet,
    when to search again. ``searchable``: the files the part made searchable, as stats counts them; the files read
    that failed or were skipped (a PDF without text) are said apart: the note counted them as searched ('1,598 of
    its 1,879 files') where stats said '1,597 of 1,879 files searchable'."""
    # the same facts and when to search again in 236 characters where they took 297 (notes-en's first part, one
    # file failed), under every search while a first build comes in parts: 4,400 of an assistant's 74,000
    unread = f"one of the {later:,}" if later > 1 else "the one"
    unsearchable = seen - later - searchable
    why = f", and why {unsearchable:,} failed or {'was' if unsearchable == 1 else 'were'} skipped" \
        if unsearchable > 0 else ""
    return (f"{PARTIAL}: only {searchable:,} of {name}'s {count(seen, 'file')} searched so far, the newest first; "
            f"the answer may be in {unread} not read yet: search again after its first build's next part ({stats} "
            f"says when{why})")


def partial_again(name: str, searchable: int, seen: int, later: int) -> str:
    """The note of partial_text for a conversation told it already (mcp_server.partial_said): its counts and
    the point, not the rest again (some 100 characters where the note takes 220)."""
    return (f"{PARTIAL} as before: only {searchable:,} of {name}'s {count(seen, 'file')} searched, "
            f"{later:,} not read yet")


def partial_note(conn, name: str, collection_id: int, published: int, later: int, stats: str = "stats",
                 told=None) -> str:
    """``partial_text`` of the collection ``name`` (id ``collection_id``) whose published generation ``published``
    leaves ``later`` files to its next parts, its counts read as stats reads them. ``told``: given the collection's
    name and that note, whether the conversation asking was told it already (then partial_again says it)."""
    seen = generation_reads.generation(conn, published)["seen"]
    searchable = progress_reads.searchable(conn, collection_id, published)[0]
    full = partial_text(name, searchable, seen, later, stats)
    return partial_again(name, searchable, seen, later) if told is not None and told(name, full) else full


def count(n: int, noun: str) -> str:
    """'1 file', '3 files', '1,874 files': a number with its noun, singular for one."""
    return f"{n} {noun}" if n == 1 else f"{n:,} {noun}s"


def age(seconds: float | None) -> str:
    """'42 s', '3.5 min', '2.0 h', '1.5 d'; '?' when unknown, or ahead of the clock by more than a minute (a time
    stamped before the clock was set back: 'published 0 s ago' said a generation stamped a year ahead was new)."""
    if seconds is None or seconds < -CLOCK_SLACK_SECONDS:
        return "?"
    seconds = max(0.0, seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.0f} s"


def when(ts: float | None) -> str | None:
    """Local time, to the second, ISO-like: 2024-05-01 10:22:03; a time outside years 1-9999 (a file's time
    can be set anywhere, and tmpfs or btrfs keep it) as seconds since 1970."""
    if ts is None:
        return None
    try:
        return datetime.fromtimestamp(ts).isoformat(sep=" ", timespec="seconds")
    except (ValueError, OverflowError, OSError):
        return f"{ts:.0f} s since 1970"


def size(n: int | None) -> str:
    """'3 B', '1.2 KB', '4.5 MB'; '-' when unknown."""
    if n is None:
        return "-"
    for unit, step in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= step:
            return f"{n / step:.1f} {unit}"
    return f"{n} B"


def freshness_lines(fresh: dict, building: dict | None = None, name: str = "NAME",
                    files: int | None = None) -> list[str]:
    """'root folder missing since …' and 'pending: N changed files …' when there is something to say. ``files``:
    how many of the collection's are searchable; with none left, a missing root's files are not said to stay
    (they were removed, and stats went on saying that they stay searchable until they are removed).

    While a generation is being built (``building``), its own pending files are on its progress line, so this
    line counts only the files changed since its scan: one pending count with two different numbers in one
    block ('pending: 1,321 …' above '1,315 pending') read as a contradiction."""
    lines = [f"  warning: {fresh['name_problem']}"] if fresh.get("name_problem") else []
    if fresh.get("root_missing"):
        since = fresh.get("root_missing_since")
        head = (f"root folder missing since {age(time.time() - since)} ago" if since else
                "root folder missing (no scan has run since it went)")
        if files == 0 and since:
            lines.append(f"  {head}: nothing of it is searchable any more (its files are removed once it has been "
                         "gone for a whole rescan interval, SIFT_RESCAN_MINUTES); if it was moved, "
                         f"`ingest enqueue NEW_FOLDER --name {shlex.quote(name)}` indexes it there, and "
                         f"`ingest remove {shlex.quote(name)}` "
                         "forgets the collection")
        else:
            lines.append(f"  {head}: its files stay searchable as last indexed until it has been gone for a whole "
                         "rescan interval (SIFT_RESCAN_MINUTES), then they are removed; "
                         f"if it was moved, `ingest enqueue NEW_FOLDER --name {shlex.quote(name)}` follows it (nothing is embedded "
                         f"again), and `ingest remove {shlex.quote(name)}` forgets the collection")
    in_build = ((building or {}).get("progress") or {}).get("pending", 0)
    waiting = (fresh.get("pending_files") or 0) - in_build
    if waiting > 0 and building:
        lines.append(f"  pending: {count(waiting, 'more changed file')} not searchable yet, changed since this "
                     "build's scan (the next scan reads them)")
    elif waiting > 0:
        lines.append(f"  pending: {count(waiting, 'changed file')} not searchable yet")
    return lines


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def as_json(report: dict) -> str:
    return json.dumps(report, ensure_ascii=False, indent=2)
