"""How fresh the index is: the one-line freshness note of search; and the stats report as the server knows it
(gathered and rendered by ``workers.stats``, the same report as ``ingest stats``)."""
from __future__ import annotations

import time

from mcp_server import render
from search.index import collection_reads, generation_reads, progress_reads, status, working
from workers import stats as stats_report


# --- freshness ------------------------------------------------------------------

def freshness(conn, collection: str | None = None, unqueued: dict[str, str] | None = None) -> tuple[str, list[dict]]:
    """'freshness: up to date (last published: notes 2 min ago, code 1 h ago)' and its data; a collection with
    something going on (a build, changed files waiting, a missing folder, nothing published) has its own clause
    first: 'papers: generation 3 published 5 s ago, 12 changed files waiting for a scan; the others …'. A
    scan since that found nothing changed published nothing: '… code 1 h ago; last scanned, no changes: code 5 s
    ago)'. ``unqueued``: the collections whose scan the server could not queue at its start, and why
    (mcp_server.server): not up to date, for all the index knows (it said 'up to date' with SIFT_QUEUE's Redis down)."""
    from search.index.db import snapshot
    with snapshot(conn):
        data = [_fresh(conn, row) for row in collection_reads.collections_published(conn, collection)]
    for d in data:
        if d["collection"] in (unqueued or {}):
            d["scan_not_queued"] = unqueued[d["collection"]]
    return freshness_line(data), data


def freshness_line(data: list[dict], noted=frozenset()) -> str:
    """The freshness line of ``data`` (freshness'). ``noted``: the collections whose partial note (partial_noted)
    stands above a search's passages: their clause says 'partial (the note above)', not the note's counts again."""
    if not data:
        return "freshness: no collections registered yet"
    parts = _at_most([_fresh_text(d, d["collection"] in noted) for d in data if not _up_to_date(d)], "busy")
    quiet = [f"{d['collection']} {render.age(d['published_age_seconds'])} ago" for d in data if _up_to_date(d)]
    scanned = [f"{d['collection']} {render.age(d['scanned_age_seconds'])} ago" for d in data
               if _up_to_date(d) and "scanned_age_seconds" in d]
    if quiet:
        said = f"; last scanned, no changes: {', '.join(_at_most(scanned, 'more'))}" if scanned else ""
        parts.append(f"{'the others ' if parts else ''}up to date (last published: "
                     f"{', '.join(_at_most(quiet, 'more'))}{said})")
    return "freshness: " + "; ".join(parts)


# Collections named in the freshness line, of each kind: with 1,000 collections the line that ends every search
# answer was 40 KB (a clause each, or every name among those up to date); stats lists them all.
FRESHNESS_SHOWN = 10


def _at_most(said: list[str], what: str) -> list[str]:
    """The first FRESHNESS_SHOWN of ``said``, then 'and 990 more' (``what`` 'more'), or 'and 990 more collections
    not up to date: stats lists them' (the clauses of collections with something going on)."""
    if len(said) <= FRESHNESS_SHOWN:
        return said
    left = len(said) - FRESHNESS_SHOWN
    tail = f"and {left:,} more" if what == "more" else \
        f"and {render.count(left, 'more collection')} not up to date: stats lists them"
    return said[:FRESHNESS_SHOWN] + [tail]


def _up_to_date(d: dict) -> bool:
    """Published, its folder there, nothing being built, no changed file waiting and no big file embedded in the
    background."""
    return (d["published_generation"] is not None and not d.get("root_missing") and "building" not in d
            and not d["pending_files"] and not d.get("background") and not d.get("not_read_yet")
            and not d.get("scan_not_queued"))


def _fresh(conn, row) -> dict:
    from search.index.status import freshness_state
    fresh = freshness_state(conn, row)
    entry = {"collection": row["name"], "published_generation": row["published"],
             "published_at": render.when(row["finished"]), "published_age_seconds": _since(row["finished"]),
             "pending_files": fresh["pending_files"], "root_missing_since": render.when(fresh["root_missing_since"])}
    if fresh["root_missing"]:
        entry["root_missing"] = True
    if fresh["scanned_unchanged"] is not None:  # a later scan found nothing changed: it published nothing
        entry["scanned_at"], entry["scanned_age_seconds"] = (render.when(fresh["scanned_unchanged"]),
                                                              _since(fresh["scanned_unchanged"]))
    aside = working.in_background(conn, row["id"])
    if aside:  # a big file on its way: the collection is not up to date (its earlier version, if any, answers)
        entry["background"] = [{"path": w["path"], "state": w["state"], "done": w["done"], "total": w["total"],
                                "text": working.background_said(w), "earlier_version": w["earlier"],
                                "by_keyword": w["words"],
                                **({"reason": w["reason"]} if "reason" in w else {})} for w in aside]
    later = progress_reads.deferred(conn, row["published"])
    if later:  # a part of a first build (workers.tasks.first_part): the rest come in its next parts
        entry["not_read_yet"] = later
    building = _building(conn, row["id"])
    if building:
        entry["building"] = building
    elif fresh.get("scanning") is not None and (row["published"] is None or later):
        entry["scanning"] = {"started": render.when(fresh["scanning"]), "age_seconds": _since(fresh["scanning"])}
    elif row["published"] is None:
        queued = _first_scan_queued(row["id"])
        if queued is not None:
            entry["first_scan_queued"] = queued
    return entry


def _first_scan_queued(collection_id: int) -> dict | None:
    """The scan of a collection with nothing published or built that waits in the queue: when it was queued
    (empty when a scan does not say), None when none waits or the queue cannot be read. Its clause said
    'nothing being built' while that first scan waited for a worker, as if nothing would happen."""
    from workers import waiting
    try:
        scan = next((s for s in waiting.queued() if s["collection"] == collection_id), None)
    except Exception:  # noqa: BLE001 - the queue unreadable (Redis down): the clause says what the index knows
        return None
    if scan is None:
        return None
    queued = scan.get("queued_at")
    return {"queued_at": render.when(queued), "age_seconds": _since(queued)} if queued else {}


def _building(conn, collection_id: int) -> dict | None:
    gen = generation_reads.building_generation(conn, collection_id)
    if gen is None:
        return None
    p = status.progress(conn, gen)
    return {"generation": gen["id"], "discovering": gen["discovered"] is None, "files": p["files"],
            "done": p["done"], "pending": p["pending"], "started": render.when(gen["started"]),
            "eta_seconds": p["eta_seconds"]}


def _fresh_text(d: dict, noted: bool = False) -> str:
    """One collection's clause, its parts separated by commas ('; ' separates collections). ``noted``: a search's
    partial note said the counts of a first build in parts above the passages; the clause said them again in 65
    characters, under every search of such a collection."""
    if d["published_generation"] is None:
        text = f"{d['collection']}: nothing published yet"
    else:
        # the age alone: '2026-12-07 01:08:32 (3.0 h ago)' said the time too, 23 characters under every search of
        # a busy collection, where an assistant acts on how old the answer is (published_at has the time)
        text = (f"{d['collection']}: generation {d['published_generation']} published "
                f"{render.age(d['published_age_seconds'])} ago")
    if d.get("root_missing"):
        since = f" since {d['root_missing_since']}" if d.get("root_missing_since") else ""
        text += f", its folder is missing{since} (files kept for a rescan interval)"
    if d.get("scan_not_queued"):  # nothing new is indexed until a scan can be queued
        text += f", its scan could not be queued at the server's start: {d['scan_not_queued']}"
    if d.get("not_read_yet") and noted:
        text += ", partial (the note above)"
    elif d.get("not_read_yet"):
        text += f", partial: its first build comes in parts, {render.count(d['not_read_yet'], 'file')} not read yet"
    b = d.get("building")
    waiting = d.get("pending_files", 0) - (b["pending"] if b else 0)
    queued = d.get("first_scan_queued")
    aside = "".join(f", {w['text']}" for w in d.get("background") or [])
    walking = d.get("scanning")
    if b is None and walking is not None:  # the scan has the folder, no plan yet: not 'nothing being built'
        return text + f", {status.walking_text(walking['age_seconds'], bool(d.get('not_read_yet')))}" + aside
    if b is None and queued is not None:
        since = f" (queued {render.age(queued['age_seconds'])} ago)" if queued else ""
        return text + f", its first scan waits in the queue for a worker{since}"
    if b is None:  # between two parts of a first build, its next part's scan is queued: not 'nothing being built'
        idle = ", the next part's scan comes next" if d.get("not_read_yet") else ", nothing being built"
        return text + (f", {render.count(waiting, 'changed file')} waiting for a scan" if waiting > 0
                       else "" if aside else idle) + aside
    more = f", {render.count(waiting, 'more changed file')} waiting for a scan" if waiting > 0 else ""
    if b["discovering"]:
        return text + f", generation {b['generation']} is looking for changed files" + more + aside
    return (text + f", generation {b['generation']} being built ({b['pending']:,} of "
            f"{render.count(b['files'], 'changed file')} pending)" + more + aside)


PARTIAL = status.PARTIAL


def partial_notes(conn, fresh: list[dict], kind: str | None = None) -> list[str]:
    """A note per collection searched whose published generation is a part of its first build
    (workers.tasks.first_part), for search to put before its passages. Only the freshness line, after the last
    passage, said the index was partial; an answer from the first 100 of 1,874 files read as the whole folder's,
    and 'no passages match: try other words' sent a model to rephrase a question answered in a file not read
    yet. ``kind``: the search's kind filter; a collection none of whose files not read yet is of that kind (by
    its name, as the scan tells kinds) says nothing: a search with kind='pdf' was told 'the answer may be in one
    of them' of notes-en's 1,674 Markdown notes, in 330 characters."""
    return list(partial_noted(conn, fresh, kind).values())


def partial_noted(conn, fresh: list[dict], kind: str | None = None, told=None) -> dict[str, str]:
    """partial_notes' notes by the collection each is of; ``told``: status.partial_note's, a note the conversation
    was told already said short (mcp_server.partial_said)."""
    ids = {row["name"]: row["id"] for row in collection_reads.collections_published(conn)}
    return {d["collection"]: status.partial_note(conn, d["collection"], ids[d["collection"]],
                                                 d["published_generation"], d["not_read_yet"], told=told)
            for d in fresh if d.get("not_read_yet") and d["collection"] in ids
            and (kind is None or _may_hold(conn, d["published_generation"], kind))}


def _may_hold(conn, generation: int, kind: str) -> bool:
    """Whether a file the published part ``generation`` left to a later part may be of ``kind``: one whose name
    tells no kind (a script known by its first line) may be; a saved web page (code by its name) and a text file (a
    WhatsApp chat's .txt, a Slack day's .json) may be a note by what it holds, as ingest.files keeps its kind."""
    from ingest.kinds import PAGE_EXTENSIONS, kind_of
    from search.query.filters import MAIL, is_mail_file
    if kind == MAIL:  # mail is notes of a mail file's name, or a mailbox of no extension
        return any(is_mail_file(path, kind_of(path) or "note")
                   for path in progress_reads.deferred_paths(conn, generation))
    return any(kind_of(path) in (kind, None) or (kind == "note" and (
        kind_of(path) == "text" or path.lower().endswith(tuple(PAGE_EXTENSIONS))))
        for path in progress_reads.deferred_paths(conn, generation))


def _since(ts: float | None) -> float | None:
    return None if ts is None else round(time.time() - ts, 1)


# --- stats ------------------------------------------------------------------------

def stats(sift, collection: str | None = None) -> tuple[str, dict]:
    """The one stats report (workers.stats), as the server knows it: the model it has loaded, its worker,
    its notices; the text's hints name the tools an assistant has. ``collection``: of the collections, that one
    alone (the model, the worker and the queue as ever)."""
    worker = sift.worker.describe() if sift.worker else {"state": "none", "note": sift.worker_note}
    if sift.worker_held:
        worker["held"] = True
    from mcp_server.errors import NoIndexYet
    from mcp_server.service import NO_INDEX
    try:
        conn = sift.conn()
    except NoIndexYet as exc:  # none, or one a worker is making: its tables not there yet (it was an error)
        path = sift.settings.index_path
        where = (f"{path} is there, its tables not written yet: a worker is making it" if path.exists() else
                 f"no index yet at {path}")
        return _nothing_yet(sift, worker, f"{NO_INDEX} ({where})")
    report = stats_report.gather(conn, sift.settings, sift.model.describe(), worker, sift.notices)
    everyone = report["collections"]
    if collection is not None:
        report["collections"] = [c for c in everyone if c["name"] == collection]
    return stats_report.render(report, stats_report.ASSISTANT, everyone), report


def _nothing_yet(sift, worker: dict, nothing: str) -> tuple[str, dict]:
    """The report of a fresh install (no index yet, or one being made), ``nothing`` saying which: the model, the
    worker and what to do, as an answer. It was a tool error, as if something had failed. The queue is not opened:
    that would make the home (ingest stats likewise), and no job can wait for an index not made yet."""
    model = {**sift.model.describe(), "index_models": [], "reembedding": []}
    report = {"collections": [], "index_path": str(sift.settings.index_path), "model": model, "worker": worker,
              "notices": list(sift.notices), "nothing": nothing}
    lines = stats_report.model_lines(model) + [stats_report.worker_line(worker, sift.settings.home)]
    lines += [f"notice: {n}" for n in sift.notices] + [nothing]
    return "\n".join(stats_report.printable(line) for line in lines), report


_model_lines = stats_report.model_lines  # the model's lines of the report (tests/test_model_switch.py reads them)
