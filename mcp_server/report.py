"""How fresh the index is: the one-line freshness note of search, and the stats report."""
from __future__ import annotations

import sys
import time

from mcp_server import render
from search.model import reembedding
from search.status import freshness_lines

WORKER_HINT = "start one with: huey_consumer workers.app.huey -k process -w 2"


# --- freshness ------------------------------------------------------------------

def freshness(conn, collection: str | None = None) -> tuple[str, list[dict]]:
    """'freshness: notes: generation 3 published … ; 12 files pending …' and its data."""
    from search.db import snapshot
    sql = ("SELECT c.*, g.finished FROM collections c "
           "LEFT JOIN generations g ON g.id = c.published" + (" WHERE c.name = ?" if collection else "")
           + " ORDER BY c.name")
    with snapshot(conn):
        data = [_fresh(conn, row) for row in conn.execute(sql, (collection,) if collection else ())]
    parts = [_fresh_text(d) for d in data] or ["no collections registered yet"]
    return "freshness: " + "; ".join(parts), data


def _fresh(conn, row) -> dict:
    from search import freshness
    fresh = freshness.state(conn, row)
    entry = {"collection": row["name"], "published_generation": row["published"],
             "published_at": render.when(row["finished"]), "published_age_seconds": _since(row["finished"]),
             "pending_files": fresh["pending_files"], "root_missing_since": render.when(fresh["root_missing_since"])}
    building = _building(conn, row["id"])
    if building:
        entry["building"] = building
    return entry


def _building(conn, collection_id: int) -> dict | None:
    from search import store
    gen = conn.execute("SELECT id, started, discovered FROM generations WHERE collection = ? AND state = 'building'",
                       (collection_id,)).fetchone()
    if gen is None:
        return None
    total, done = store.generation_progress(conn, gen["id"])
    building = {"generation": gen["id"], "discovering": gen["discovered"] is None, "files": total,
                "done": done, "pending": total - done, "started": render.when(gen["started"])}
    building["eta_seconds"] = _eta(gen, total, done)
    return building


def _eta(gen, total: int, done: int) -> float | None:
    """Seconds left at the pace so far; None until discovery is over and a file has finished."""
    if gen["discovered"] is None:
        return None
    if done >= total:
        return 0.0
    if done == 0:
        return None
    elapsed = max(time.time() - gen["discovered"], 1e-3)
    return round((total - done) * elapsed / done, 1)


def _fresh_text(d: dict) -> str:
    if d["published_generation"] is None:
        text = f"{d['collection']}: nothing published yet"
    else:
        text = (f"{d['collection']}: generation {d['published_generation']} published "
                f"{d['published_at']} ({render.age(d['published_age_seconds'])} ago)")
    if d.get("root_missing_since"):
        text += f"; its folder is missing since {d['root_missing_since']} (files kept for a rescan interval)"
    b = d.get("building")
    waiting = d.get("pending_files", 0) - (b["pending"] if b else 0)
    if b is None:
        return text + (f"; {waiting} changed files waiting for a scan" if waiting > 0 else ", nothing being built")
    more = f"; {waiting} more changed files waiting for a scan" if waiting > 0 else ""
    if b["discovering"]:
        return text + f"; generation {b['generation']} is looking for changed files" + more
    return (text + f"; generation {b['generation']} being built: {b['pending']} of {b['files']} changed files "
            "pending" + more)


def _since(ts: float | None) -> float | None:
    return None if ts is None else round(time.time() - ts, 1)


# --- stats ------------------------------------------------------------------------

def stats(sift) -> tuple[str, dict]:
    from search import space, status
    conn = sift.conn()
    report = status.collect(conn, sift.settings.index_path)
    fresh = {d["collection"]: d for d in freshness(conn)[1]}
    for c in report["collections"]:
        if c["building"] and c["name"] in fresh:
            c["building"]["progress"] = fresh[c["name"]].get("building")
    report["index_path"] = str(sift.settings.index_path)
    report["model"] = sift.model.describe()
    report["model"]["index_models"] = sorted({c["published"]["model"] for c in report["collections"]
                                              if c["published"] and c["published"]["model"]})
    report["model"]["reembedding"] = reembedding(report["collections"])
    report["worker"] = sift.worker.describe() if sift.worker else {"state": "none", "note": "started with --no-worker"}
    report["queue_pending"] = queue_pending()
    report["disk"] = space.low_space_line(sift.settings.home)
    report["notices"] = list(sift.notices)
    return stats_text(report), report


def queue_pending() -> int | None:
    try:
        from workers.app import huey
        return huey.pending_count()
    except Exception as exc:  # the queue is optional for reading
        print(f"sift-mcp: cannot read the queue: {exc}", file=sys.stderr)
        return None


def stats_text(report: dict) -> str:
    lines = [_model_line(report["model"]), _worker_line(report["worker"]),
             f"queue: {report['queue_pending'] if report['queue_pending'] is not None else '?'} jobs waiting; "
             f"index: {render.size(report.get('index_bytes'))} at {report['index_path']}"]
    lines += [report["disk"]] if report.get("disk") else []
    lines += [f"notice: {n}" for n in report["notices"]]
    if not report["collections"]:
        lines.append("no collections yet: start sift-mcp with --root FOLDER, or run `ingest enqueue FOLDER`")
    for c in report["collections"]:
        lines += [""] + _collection_lines(c)
    return "\n".join(lines)


def _model_line(m: dict) -> str:
    state = m["state"]
    if state == "ready":
        text = "model: ready — " + ", ".join(f"{x['id']} ({x['dim']} dimensions, {x['max_tokens']} tokens)"
                                            for x in m.get("models") or [m] if x.get("dim"))
    elif state == "loading":
        text = (f"model: loading for {render.age(time.time() - m['since'])} — "
                "semantic and hybrid searches wait for it; keyword searches answer at once")
    elif state == "failed":
        text = f"model: failed — {m.get('error')}; keyword search still works"
    else:
        text = "model: not loaded — loads on the first semantic or hybrid search"
    if m.get("index_models"):
        text += f"; index embedded with {', '.join(m['index_models'])} (searches use the index's model)"
    for line in m.get("reembedding") or []:
        text += f"\n  {line}"
    return text


def _worker_line(w: dict) -> str:
    """'worker: running (pid 812), restarted 2 times, last 14 s ago after it exited with code -9; …'"""
    if w["state"] == "none":
        return (f"worker: none started by this server (--no-worker); jobs run only if a worker runs elsewhere — "
                f"{WORKER_HINT}")
    text = "worker: " + _child_text(w)
    watcher = w.get("watcher")
    if watcher:
        text += "; file watcher: " + _child_text(watcher)
    return text + ("; both started by this server" if watcher else "; started by this server")


def _child_text(c: dict) -> str:
    """One supervised child (the consumer or the watcher) as it is now."""
    state = c["state"]
    last = c.get("last_exit")
    if state == "running":
        text = f"running (pid {c['pid']})"
        if c.get("restarts"):
            text += f", restarted {_times(c['restarts'])}"
        if last:
            text += f", last {render.age(last['seconds_ago'])} ago after it exited with code {last['returncode']}"
        return text
    if state == "restarting":
        wait = c["restart_in_seconds"]
        text = f"restarting in {render.age(wait)}" if wait >= 1 else "restarting now"
        if last:
            text += f" (it exited with code {last['returncode']} {render.age(last['seconds_ago'])} ago"
            text += f"; restarted {_times(c['restarts'])} before)" if c.get("restarts") else ")"
        return text + " — queued jobs wait for it"
    if state in ("stopping", "stopped"):
        return f"{state} with the server"
    return state


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


def _collection_lines(c: dict) -> list[str]:
    lines = [f"{c['name']}  {c['root']}"]
    pub = c["published"]
    if pub:
        lines.append(f"  searchable: {c['files']} files, {c['chunks']} chunks — generation {pub['id']}, "
                     f"published {render.ago(pub['finished'])}")
    else:
        lines.append("  searchable: nothing published yet")
    lines += freshness_lines(c.get("freshness") or {})
    if c["building"]:
        lines += _building_lines(c["building"])
    shown = (c["building"] or {}).get("failures") or (pub or {}).get("failures") or []
    if shown:
        lines.append(f"  failed or skipped ({len(shown)}):")
        lines += [f"    {f['path']}: {f['state']} at {f['stage']}: {f['reason']}" for f in shown[:20]]
        if len(shown) > 20:
            lines.append(f"    … and {len(shown) - 20} more (list_files shows each file's state)")
    return lines


def _building_lines(b: dict) -> list[str]:
    p = b.get("progress") or {}
    head = f"  building: generation {b['id']}, started {render.ago(b['started'])}"
    if not b["discovered"]:
        return [head + "; looking for changed files"]
    eta = p.get("eta_seconds")
    head += (f"; {b['seen']} files seen, {p.get('files', 0)} changed, {p.get('done', 0)} done, "
             f"{p.get('pending', 0)} pending; ETA {render.age(eta) if eta is not None else 'unknown yet'}")
    lines = [head, "    stage     queued    done  failed skipped"]
    for stage, n in b["stages"].items():
        lines.append(f"    {stage:<8}{n['queued']:>8}{n['done']:>8}{n['failed']:>8}{n['skipped']:>8}")
    return lines
