"""What the index holds and how far the generations being built have got: the index's part of the one
stats report (``workers.stats`` adds the queues and the worker, and renders it for ``ingest stats`` and the
MCP ``stats`` tool). Reads in one snapshot.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

from search import freshness
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
    files, chunks = conn.execute(
        "SELECT count(DISTINCT f.id), count(ch.id) FROM files f JOIN collections c ON c.id = f.collection "
        "LEFT JOIN chunks ch ON ch.file = f.id WHERE f.collection = ? AND f.gen_from <= c.published "
        "AND (f.gen_to IS NULL OR f.gen_to > c.published)", (row["id"],)).fetchone()
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
    rows = conn.execute("SELECT change, stage, state, reason, path, chunks, embedded FROM progress "
                        "WHERE generation = ?", (gen["id"],)).fetchall()
    changes: dict[str, int] = {}
    for row in rows:
        changes[row["change"]] = changes.get(row["change"], 0) + 1
    finished = gen["finished"]
    return {
        "id": gen["id"], "state": gen["state"], "model": gen["model"],
        "started": gen["started"], "finished": finished,
        "age_seconds": round(time.time() - finished, 1) if finished else None,
        "discovered": gen["discovered"] is not None,
        "seen": gen["seen"], "unchanged": gen["unchanged"], "changes": changes,
        "stages": stage_counts(rows),
        "chunks_written": sum(r["chunks"] or 0 for r in rows if r["stage"] == "write"),
        "embedded": sum(r["embedded"] or 0 for r in rows),
        "failures": [{"path": r["path"], "stage": r["stage"], "state": r["state"], "reason": r["reason"]}
                     for r in rows if r["state"] in ("failed", "skipped")],
    }


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


def stage_counts(rows) -> dict[str, dict[str, int]]:
    """queued / done / failed / skipped per stage, from each file's furthest point."""
    counts = {stage: {"queued": 0, "done": 0, "failed": 0, "skipped": 0} for stage in STAGES}
    for row in rows:
        if row["change"] == "deleted":
            continue
        reached = STAGES.index(row["stage"])
        for stage in STAGES[:reached]:
            counts[stage]["done"] += 1
        if row["state"] == "done":
            counts[row["stage"]]["done"] += 1
            if reached + 1 < len(STAGES):
                counts[STAGES[reached + 1]]["queued"] += 1
        else:
            counts[row["stage"]][row["state"]] += 1
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
