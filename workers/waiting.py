"""The scans waiting in the home's queue, for stats: a collection whose scan is queued behind another
collection's build showed only 'published: nothing yet', as if nothing would happen.

A scan (``discover``) of a collection not published yet has the lowest priority: every job of a build under way
goes before it, and so do the scans queued earlier. A rescan of a published one goes ahead of them all but the
jobs of small builds (``workers.tasks.priority``). ``queued`` lists each waiting scan with the jobs a worker
takes before it and when it was queued (``workers.tasks._stamp_scan``; None for a scan queued before that was
recorded). Read the same way on SQLite and on Redis (``workers.app.jobs_at``).
"""
from __future__ import annotations


def queued() -> list[dict]:
    """The scans waiting, in the order a worker takes them: collection id, jobs ahead, when queued, whether
    it is a rescan that goes ahead of the builds under way (``urgent``)."""
    from workers import tasks
    from workers.app import jobs_at
    scans = []
    for ahead, job in ((ahead, _task(item)) for ahead, item in jobs_at(_scan_priorities())):
        if isinstance(job, tasks.discover.task_class):
            collection = job.args[0] if job.args else job.kwargs.get("collection_id")
            scans.append({"collection": collection, "jobs_ahead": ahead, "queued_at": job.kwargs.get("queued"),
                          "urgent": job.priority == tasks.priority(tasks.discover, True)})
    return scans


def _scan_priorities() -> tuple[int, int]:
    """A scan's priorities: a first build's, a rescan's."""
    from workers import tasks
    return tasks.priority(tasks.discover, False), tasks.priority(tasks.discover, True)


def _task(item: bytes):
    """The huey task of a queued job; None for one that cannot be read here (a task this version does not
    have): it keeps its place in the line, and a worker says what is wrong with it when it takes it."""
    from workers.app import huey
    try:
        return huey.deserialize_task(item)
    except Exception:  # noqa: BLE001 - one unreadable job must not hide the scans behind it
        return None


def attach(collections: list[dict], scans: list[dict]) -> None:
    """Give each collection its first waiting scan (``queued_scan``, None when none waits), with what goes
    before it: the collections being built and those whose scans were queued first."""
    names = {c["id"]: c["name"] for c in collections}
    for c in collections:
        c["queued_scan"] = None
    for i, scan in enumerate(scans):
        c = next((c for c in collections if c["id"] == scan["collection"]), None)
        if c is None or c["queued_scan"] is not None:
            continue
        building = [o["name"] for o in collections if o["building"] and (o is c or not scan.get("urgent") or urgent(o))]
        first = list(dict.fromkeys(names.get(s["collection"], "?") for s in scans[:i] if s["collection"] != c["id"]))
        c["queued_scan"] = {**scan, "building_ahead": building, "scans_ahead": first}


def urgent(c: dict) -> bool:
    """Whether the collection's build under way is small, so that its jobs go ahead of bigger builds' and of
    rescans (``workers.tasks.priority``): counted from its plan as ``workers.tasks.discover`` counts it."""
    from workers.queue_state import small  # not workers.tasks: its import is every parser's
    gen = c["building"]
    if not gen or not gen.get("discovered"):
        return False
    return small(sum((gen.get("stages", {}).get("parse") or {}).values()))
