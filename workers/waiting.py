"""The scans waiting in the home's queue, for stats: a collection whose scan is queued behind another
collection's build showed only 'published: nothing yet', as if nothing would happen.

A scan (``discover``) has the lowest priority: every job of a build under way goes before it, and so do the
scans queued earlier. ``queued`` lists each waiting scan with the jobs a worker takes before it and when it was
queued (``workers.tasks._stamp_scan``; None for a scan queued before that was recorded). Read the same way
on SQLite and on Redis (``workers.app.jobs_from``).
"""
from __future__ import annotations


def queued() -> list[dict]:
    """The scans waiting, in the order a worker takes them: collection id, jobs ahead, when queued."""
    from workers import tasks
    from workers.app import jobs_from
    ahead, items = jobs_from(tasks.discover.task_class.default_priority)
    scans = []
    for i, job in enumerate(_task(item) for item in items):
        if isinstance(job, tasks.discover.task_class):
            collection = job.args[0] if job.args else job.kwargs.get("collection_id")
            scans.append({"collection": collection, "jobs_ahead": ahead + i, "queued_at": job.kwargs.get("queued")})
    return scans


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
    building = [c["name"] for c in collections if c["building"]]
    names = {c["id"]: c["name"] for c in collections}
    for c in collections:
        c["queued_scan"] = None
    for i, scan in enumerate(scans):
        c = next((c for c in collections if c["id"] == scan["collection"]), None)
        if c is None or c["queued_scan"] is not None:
            continue
        first = list(dict.fromkeys(names.get(s["collection"], "?") for s in scans[:i] if s["collection"] != c["id"]))
        c["queued_scan"] = {**scan, "building_ahead": building, "scans_ahead": first}
