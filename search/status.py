"""What the index holds and how far the generations being built have got: the index's part of the one
stats report (``workers.stats`` adds the queues and the worker, and renders it for ``ingest stats`` and the
MCP ``stats`` tool). Reads in one snapshot.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

from search import freshness, store
from search.db import snapshot
from search.store import STAGES, generation_progress


def collect(conn, index_path: Path | str | None = None) -> dict:
    with snapshot(conn):
        collections = [_collection(conn, row) for row in conn.execute("SELECT * FROM collections ORDER BY name")]
    report = {"collections": collections}
    if index_path:
        report["index_bytes"] = sum(_size(f"{index_path}{suffix}") for suffix in ("", "-wal", "-shm"))
    return report


def _collection(conn, row) -> dict:
    published = conn.execute("SELECT * FROM generations WHERE id = ?", (row["published"],)).fetchone() \
        if row["published"] else None
    # recorded at publish (schema V7): counting 200,000 files and their chunks took longer than stats may
    files, chunks = store.searchable(conn, row["id"], row["published"]) if row["published"] else (0, 0)
    building = conn.execute("SELECT * FROM generations WHERE collection = ? AND state = 'building'",
                            (row["id"],)).fetchone()
    return {
        "name": row["name"], "root": row["root"], "files": files, "chunks": chunks,
        "published": _generation(conn, published) if published else None,
        "building": {**_generation(conn, building), "progress": progress(conn, building)} if building else None,
        "freshness": _with_name_fix(freshness.state(conn, row), row),
    }


def _with_name_fix(fresh: dict, row) -> dict:
    """A collection registered before names with '/' and the like were refused says so, with the fix."""
    from search.store import bad_name_fix
    fix = bad_name_fix(row["name"], row["root"])
    return {**fresh, "name_problem": fix} if fix else fresh


def _generation(conn, gen) -> dict:
    groups, trouble = _progress(conn, gen["id"])
    changes: dict[str, int] = {}
    for row in groups:
        changes[row["change"]] = changes.get(row["change"], 0) + row["files"]
    finished = gen["finished"]
    return {
        "id": gen["id"], "state": gen["state"], "model": gen["model"],
        "started": gen["started"], "finished": finished,
        "age_seconds": round(time.time() - finished, 1) if finished else None,
        "discovered": gen["discovered"] is not None,
        "seen": gen["seen"], "unchanged": gen["unchanged"], "changes": changes,
        "stages": stage_counts(groups),
        "chunks_written": sum(r["chunks"] for r in groups if r["stage"] == "write"),
        "embedded": sum(r["embedded"] for r in groups),
        "failures": [{"path": r["path"], "stage": r["stage"], "state": r["state"], "reason": r["reason"]}
                     for r in trouble],
    }


def _progress(conn, gen: int) -> tuple[list, list]:
    """(files, chunks, embedded per change/stage/state; the failed and skipped files). From the counts the
    index keeps (schema V7), so stats does not read 200,000 rows per generation; an older index is counted."""
    if store.has_counts(conn):
        return store.progress_counts(conn, gen), store.troubled(conn, gen)
    rows = conn.execute("SELECT change, stage, state, reason, path, chunks, embedded FROM progress "
                        "WHERE generation = ?", (gen,)).fetchall()
    groups = [{"change": r["change"], "stage": r["stage"], "state": r["state"], "files": 1,
               "chunks": r["chunks"] or 0, "embedded": r["embedded"] or 0} for r in rows]
    return groups, [r for r in rows if r["state"] in ("failed", "skipped")]


def progress(conn, gen) -> dict:
    """How far a generation being built has got: its changed files, those done and pending, and the seconds
    left at the pace so far (``eta_seconds``: None until discovery is over and a file has finished)."""
    total, done = generation_progress(conn, gen["id"])
    return {"files": total, "done": done, "pending": total - done, "eta_seconds": _eta(gen, total, done)}


def _eta(gen, total: int, done: int) -> float | None:
    if gen["discovered"] is None:
        return None
    if done >= total:
        return 0.0
    if done == 0:
        return None
    elapsed = max(time.time() - gen["discovered"], 1e-3)
    return round((total - done) * elapsed / done, 1)


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
    rows = conn.execute(
        "SELECT c.name AS collection, p.path, p.stage, p.state, p.reason, p.generation FROM progress p "
        "JOIN generations g ON g.id = p.generation JOIN collections c ON c.id = g.collection "
        "WHERE p.state IN ('failed', 'skipped') AND g.id = (SELECT max(id) FROM generations WHERE collection = c.id) "
        "ORDER BY c.name, p.path LIMIT ?", (limit,))
    return [dict(row) for row in rows]


def age(seconds: float | None) -> str:
    """'42 s', '3.5 min', '2.0 h', '1.5 d'; '?' when unknown."""
    if seconds is None:
        return "?"
    seconds = max(0.0, seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.0f} s"


def freshness_lines(fresh: dict) -> list[str]:
    """'root folder missing since …' and 'pending: N changed files …' when there is something to say."""
    lines = [f"  warning: {fresh['name_problem']}"] if fresh.get("name_problem") else []
    if fresh.get("root_missing_since"):
        lines.append(f"  root folder missing since {age(time.time() - fresh['root_missing_since'])} ago: its files "
                     "are kept until it has been gone for a whole rescan interval (SIFT_RESCAN_MINUTES), then removed")
    if fresh.get("pending_files"):
        lines.append(f"  pending: {fresh['pending_files']} changed files not searchable yet")
    return lines


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def as_json(report: dict) -> str:
    return json.dumps(report, ensure_ascii=False, indent=2)
