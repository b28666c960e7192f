"""The stats report: one model of the state and one rendering, for ``ingest stats`` and the MCP ``stats`` tool.

``gather`` puts together what the index holds (``search.index.status``), the model, the queues (the home's, and
with ``SIFT_EMBED_REMOTE`` the ``sift-embed`` queue of the embedding machines), the disk and, for the server,
its worker; ``render`` lays it out the same way for both. They differ only in what the caller knows (the CLI
reads the model's file, the server has it loaded and runs a worker) and in the hints (``CLI``, ``ASSISTANT``):
what to do next is said in the reader's own commands. ``--json`` and the tool's structured content are the
report itself.
"""
from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass

from search.index import space, status, working
from search.index.status import (NOT_READ_YET, ORDER, age, count, freshness_lines, nothing_seen_text, unread_text,
                                 walking_text)
from workers import queue_state  # the queue as stats reads it: through huey only where huey is needed

WORKER_COMMAND = "huey_consumer workers.app.huey -k process -w 2 -d 0.1 -m 2 -b 1.5"  # as the README starts it
WORKER_HINT = f"start one with: {WORKER_COMMAND}"
WORKER_QUIET = 120  # seconds without a worker seen, jobs waiting, before stats asks whether one runs
# (a running consumer takes its periodic job every minute, idle or not)
FAILURES_SHOWN = 20
# Characters a file name may hold that would split a line or steer the terminal (a newline, an escape
# sequence, bidirectional overrides): shown escaped, as \x1b or \u202e.
UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


@dataclass(frozen=True)
class Hints:
    """What the report suggests, in the reader's own commands."""
    no_collections: str
    more_failures: str


CLI = Hints(no_collections="ingest enqueue PATH", more_failures="ingest stats --json lists every one")
ASSISTANT = Hints(no_collections="start sift-mcp with --root FOLDER, or run `ingest enqueue FOLDER`",
                  more_failures="list_files shows each file's state")


# --- the model of the state --------------------------------------------------------------------------------

def worker_hint(home, settings: list[str] = ()) -> str:
    """'start one with: huey_consumer …', with 'SIFT_HOME=… ' before it for a home that is not the default
    (``ingest --home DIR``): a worker started as the hint said served ~/.sift, and the jobs queued here waited;
    ``settings`` ('SIFT_MODEL=minilm' …) go before it too."""
    import shlex
    from pathlib import Path
    home = None if home is None else Path(home).expanduser().resolve()  # a relative one means another folder there
    before = [] if home is None or home == (Path.home() / ".sift").resolve() else [f"SIFT_HOME={shlex.quote(str(home))}"]
    before += [f"{name}={shlex.quote(value)}" for name, value in (s.split("=", 1) for s in settings)]
    return f"start one with: {' '.join([*before, worker_command()])}"


def worker_command() -> str:
    """WORKER_COMMAND as a shell here finds it: with huey_consumer's path when this venv's is not on PATH (the
    venv not activated: `.venv/bin/ingest …`, as scripts/demo runs it), where 'huey_consumer' alone was 'command
    not found', or another Python's consumer that cannot import Sift."""
    import shlex
    import shutil
    import sys
    from pathlib import Path
    here = Path(sys.executable).parent / "huey_consumer"
    found = shutil.which("huey_consumer")
    if not here.exists() or (found is not None and Path(found).resolve() == here.resolve()):
        return WORKER_COMMAND
    return WORKER_COMMAND.replace("huey_consumer", shlex.quote(str(here)), 1)


def _home_of(report: dict):
    """The home whose report this is (its index's folder)."""
    from pathlib import Path
    return Path(report["index_path"]).parent if report.get("index_path") else None


def gather(conn, settings, model: dict, worker: dict | None = None, notices=None) -> dict:
    """The whole report. ``conn``: None when there is no index yet; ``model``: the model as the caller knows
    it; ``worker``/``notices``: the server's (left out for the CLI)."""
    report = status.collect(conn, settings.index_path) if conn is not None else {"collections": []}
    report["index_path"] = str(settings.index_path)
    index_models = sorted({c["published"]["model"] for c in report["collections"]
                           if c["published"] and c["published"]["model"]})
    report["model"] = {**model, "index_models": index_models, "reembedding": reembedding(report["collections"])}
    if worker is not None:
        report["worker"] = worker
    held = _queue_held(settings)
    report["queue_pending"], error = (None, held) if held else _count(lambda: queue_state.pending(settings),
                                                                      settings.queue)
    if error:
        report["queue_error"] = error
    # a build with files pending and no job in the queue is one whose jobs died with a killed worker: the next
    # worker to start queues them again (workers.recover); stats said only 'jobs in queue: 0' and an ETA
    # (not with the queue unreadable: what it holds of workers is unknown, and 'no worker has taken a job yet' said
    # of a Redis that is down sent the user after a worker rather than Redis)
    waits = report["queue_pending"] or any(c["building"] for c in report["collections"])
    if worker is None and error is None and waits and not _busy(report["collections"]):
        seen, unknown = _count(lambda: queue_state.worker_seen(settings))
        if unknown is None:
            report["worker_seen"] = seen
            if worker_quiet(seen):  # nothing moves: an ETA at the pace so far climbed while no worker ran
                for c in report["collections"]:
                    if (c["building"] or {}).get("progress"):
                        c["building"]["progress"]["eta_seconds"] = None
    if not held:  # each read would wait SQLite's 30 s
        _waiting_scans(report, settings)
    if error is None:
        stopped, _ = _count(lambda: queue_state.halted(settings))
        if stopped:
            report["worker_halted"] = stopped
        replaced, _ = _count(lambda: queue_state.replaced(settings))
        if replaced:
            report["queue_replaced"] = replaced
        at_work = queue_state.at_work(settings)
        if len(at_work) > 1:
            report["models_at_work"] = at_work
    if settings.embed_remote:
        report["embed_queue"] = embed_queue(settings)
        for c in report["collections"]:
            if c["building"] and c["building"].get("progress"):
                c["building"]["progress"]["slow"] = slow_work(conn, c["building"]["id"], settings)
    report["disk"] = space.low_space_line(settings.home)
    if notices is not None:
        report["notices"] = list(notices)
    return report


def reembedding(collections: list[dict]) -> list[str]:
    """'notes: re-embedding 15 chunks with M2; search answers with M1 until it is published', per collection
    whose generation being built has another model than its published one (``search.index.status`` reports).
    Here, not beside the model (search.model.embedding), whose import is numpy's."""
    lines = []
    for c in collections:
        old, new = (c.get("published") or {}).get("model"), (c.get("building") or {}).get("model")
        if c.get("published") and c.get("building") and old != new:
            if new is None:
                lines.append(f"{c['name']}: rebuilding without embeddings; search answers with {old} until "
                             "it is published")
            else:
                lines.append(f"{c['name']}: re-embedding {count(c['chunks'], 'chunk')} with {new}; "
                             f"search answers with {old or 'keyword search only'} until it is published")
    return lines


def _waiting_scans(report: dict, settings) -> None:
    """Each collection's scan waiting in the queue, and what goes before it (workers.waiting); when the queue
    cannot be read, why (``waiting_error``) rather than a guess."""
    from workers import waiting
    scans, error = _count(lambda: queue_state.scans_waiting(settings))
    if error:
        report["waiting_error"] = error
    waiting.attach(report["collections"], scans or [])


def _busy(collections: list[dict]) -> bool:
    """Whether a live worker is on slow work (a big file being cut or embedded): it takes no other job meanwhile,
    and with every worker process on one, 'no worker has taken a job for 3 min: is a worker running?' stood
    beside 'embedding big.log … for 3.7 min'."""
    return any(((c["building"] or {}).get("progress") or {}).get("slow") or
               any(w["state"] == "embedding" for w in c.get("background") or []) for c in collections)


def _queue_held(settings) -> str | None:
    """Why the home's SQLite queue cannot be read at all now (workers.queue_reader.held): stats then answers at
    once with what it can, where it waited 30 s for each of its reads of the queue."""
    if settings.queue != "sqlite":
        return None
    from workers.queue_reader import held
    # once imported, its huey reads the queue of the home it was made in; another thread (sift-mcp's worker) may be
    # importing it still, its huey not made yet: the settings' queue is the one it will read
    huey = getattr(sys.modules.get("workers.app"), "huey", None)
    path = getattr(getattr(huey, "storage", None), "filename", None)
    return held(path or str(settings.queue_path))


def worker_quiet(seen: float | None) -> str | None:
    """'no worker has taken a job for 5.0 min' when ``seen`` (workers.app.worker_seen) is long ago or never."""
    if seen is None:
        return "no worker has taken a job yet"
    if time.time() - seen > WORKER_QUIET:
        return f"no worker has taken a job for {age(time.time() - seen)}"
    return None


def embed_queue(settings) -> dict:
    """The jobs waiting on ``sift-embed`` for an embedding machine, and those sent and not yet written back
    (waiting, taken by a machine, or answered and waiting on the home's queue)."""
    waiting, error = _count(_embed_waiting)
    unanswered, error2 = _count(_embed_unanswered)
    found = {"queue": "sift-embed", "waiting": waiting, "unanswered": unanswered,
             "model_file": str(settings.model_path)}  # what an embedding machine needs: this file, copied over
    if error or error2:
        found["error"] = error or error2
    return found


def slow_work(conn, gen: int, settings) -> list[dict]:
    """The work of generation ``gen`` that has taken long, longest first: the home's (the index's ``working``
    rows) and, with SIFT_EMBED_REMOTE, the embedding machines' (their heartbeats in Redis, workers.remote)."""
    found = working.slow(conn, gen)
    if settings.embed_remote:
        from workers import remote
        from workers.working import AFTER
        away, _ = _count(lambda: remote.slow(gen, AFTER, settings.embed_timeout))
        found += away or []  # Redis out of reach: the embed queue's line says so
    return sorted(found, key=lambda w: -w["seconds"])


def _embed_waiting() -> int:
    from workers.embedder import huey as embed_huey
    return embed_huey.pending_count()


def _embed_unanswered() -> int:
    from workers import remote
    return remote.redis().hlen(remote.JOBS)


def _count(read, url: str = "sqlite") -> tuple[int | None, str | None]:
    """A queue count, or None and why it cannot be read (the report must not fail for the queue). ``url``: the
    queue's SIFT_QUEUE, whose Redis down or refusing is told with what to do, as the commands that queue tell it
    (the line said only 'ConnectionError: Error 111 connecting to …')."""
    from workers.queues import QueueUnavailable  # huey (and redis): imported when a queue is read
    try:
        return read(), None
    except QueueUnavailable as exc:  # says which file and what to do
        return None, str(exc)
    except Exception as exc:  # noqa: BLE001 - a missing or unreachable queue is shown, not raised
        from workers.queues import redis_unusable
        return None, (url != "sqlite" and redis_unusable(exc, url)) or f"{type(exc).__name__}: {exc}"


# --- the one rendering ----------------------------------------------------------------------------------------

def render(report: dict, hints: Hints, everyone: list[dict] | None = None) -> str:
    """The report as text; ``everyone``: every collection, where ``report`` holds only some (stats of one
    collection), to say whose build goes first."""
    lines = model_lines(report["model"])
    if "worker" in report:
        lines.append(worker_line(report["worker"], _home_of(report)))
        if report["worker"]["state"] == "running" and "queue_error" in report:  # it said 'running', no more
            lines[-1] += "; it takes no job while the queue cannot be read (next line)"
    lines.append(_queue_line(report))
    halted = report.get("worker_halted")
    if halted:  # until a worker starts on intact files (workers.halt)
        lines.append(f"a worker stopped {age(time.time() - halted['at'])} ago: {halted['why']}")
    if report.get("queue_replaced"):  # until a consumer starts (workers.app)
        lines.append(f"queue.db was deleted {age(time.time() - report['queue_replaced'])} ago under a running "
                     "worker, which now takes its jobs from the new one: the jobs the old one held are gone, and "
                     "its files in flight are queued again within two minutes (the check for lost jobs)")
    if report.get("models_at_work"):  # two workers with different SIFT_MODELs on one home (workers.tasks)
        lines.append(f"workers with different models are at work: {', '.join(sorted(report['models_at_work']))}; "
                     "each collection keeps the model it was published with while a worker of it runs: give "
                     "every worker (and every sift-mcp's env) the same SIFT_MODEL")
    quiet = worker_quiet(report["worker_seen"]) if "worker_seen" in report else None
    if quiet:
        lines.append(f"{quiet}: is a worker running? {worker_hint(_home_of(report))}")
    if report.get("embed_queue"):
        lines.append(_embed_line(report["embed_queue"]))
    lines += [report["disk"]] if report.get("disk") else []
    lines += [f"notice: {n}" for n in report.get("notices") or []]
    if not report["collections"]:
        lines.append(f"no collections yet: {hints.no_collections}")
    for c in report["collections"]:
        lines += [""] + collection_lines(c, hints, report["collections"] if everyone is None else everyone)
    return "\n".join(printable(line) for line in lines)


def printable(line: str) -> str:
    """``line`` with UNPRINTABLE characters escaped."""
    return UNPRINTABLE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), line)


def _queue_line(report: dict) -> str:
    pending = report.get("queue_pending")
    queue = (f"unknown (the queue cannot be read: {report.get('queue_error', 'no reason given')})"
             if pending is None else str(pending))
    text = f"index: {report.get('index_bytes', 0) / 1e6:.1f} MB at {report['index_path']}; jobs in queue: {queue}"
    if pending is not None and report.get("waiting_error"):
        text += f" (which scans wait behind them cannot be told: {report['waiting_error']})"
    return text


def _embed_line(q: dict) -> str:
    """'embedding machines (sift-embed): jobs waiting: 3, sent and not yet written: 5'."""
    if q.get("error"):
        return f"embedding machines ({q['queue']}): unknown (the queue cannot be read: {q['error']})"
    text = (f"embedding machines ({q['queue']}): jobs waiting: {q['waiting']}, "
            f"sent and not yet written: {q['unanswered']}")
    if q["waiting"]:
        text += (" — an embedding machine takes them: SIFT_QUEUE=<this home's> SIFT_MODEL=<a copy of "
                 f"{q.get('model_file', 'the home model file')}> huey_consumer workers.embedder.huey -k process -w N")
    return text


def model_lines(m: dict) -> list[str]:
    """The model's line, then one line per collection being re-embedded."""
    return [model_line(m)] + [f"  {line}" for line in m.get("reembedding") or []]


def model_line(m: dict) -> str:
    """The model: as the server has it loaded (``state``), or as the CLI reads its file; then which model the
    index was embedded with when that is another."""
    state = m.get("state")
    if state is None:
        unbuilt = f"{m.get('name')} (built at {m.get('path')} on first need)" if m.get("built") is False else None
        text = "model: " + (m.get("id") or unbuilt or m.get("error") or "keyword only (embeddings off)")
    elif state == "ready":
        text = "model: ready — " + ", ".join(f"{x['id']} ({x['dim']} dimensions, {x['max_tokens']} tokens)"
                                            for x in m.get("models") or [m] if x.get("dim"))
        if m.get("error"):  # a model that did not load (SIFT_MODEL's file, say) while another answers
            text += f"; not loaded: {m['error']}"
    elif state == "loading":
        text = (f"model: loading for {age(time.time() - m['since'])} — "
                "semantic and hybrid searches wait for it; keyword searches answer at once")
    elif state == "failed":
        text = f"model: failed — {m.get('error')}; keyword search still works"
    else:
        text = "model: not loaded — loads on the first semantic or hybrid search"
    if m.get("index_models") and _model_known(m) and m["index_models"] != [m.get("id")]:
        text += f"; index embedded with {', '.join(m['index_models'])} (searches use the index's model)"
    return text


def _model_known(m: dict) -> bool:
    """Whether the report knows the configured model's id, or knows it has none (off, unusable): a server
    still loading it does not, and would call the index's model another one."""
    return bool(m.get("id")) or m.get("state") in (None, "failed")


def worker_line(w: dict, home=None) -> str:
    """'worker: running (pid 812), restarted 2 times, last 14 s ago after it exited with code -9; …'; with
    --no-worker, the command that starts one for ``home``."""
    if w["state"] == "none":
        why = "a bad setting: see the problem above" if w.get("held") else "--no-worker"  # mcp_server.settings_problems
        return (f"worker: none started by this server ({why}); jobs run only if a worker runs elsewhere — "
                f"{worker_hint(home)}")
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
            text += f", last {age(last['seconds_ago'])} ago after it exited with code {last['returncode']}"
        return text
    if state == "restarting":
        wait = c["restart_in_seconds"]
        text = f"restarting in {age(wait)}" if wait >= 1 else "restarting now"
        if last:
            text += f" (it exited with code {last['returncode']} {age(last['seconds_ago'])} ago"
            text += f": {last['why']}" if last.get("why") else ""
            text += f"; restarted {_times(c['restarts'])} before)" if c.get("restarts") else ")"
        return text + " — queued jobs wait for it"
    if state in ("stopping", "stopped"):
        return f"{state} with the server"
    return state


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


def collection_lines(c: dict, hints: Hints, collections: list[dict] = ()) -> list[str]:
    """One collection: what is searchable, the published generation, freshness, the one being built, failures
    (``collections``: all of them, to say whose build goes first)."""
    lines = [f"{c['name']}  {c['root']}", f"  {count(c['files'], 'file')}, {count(c['chunks'], 'chunk')} searchable"]
    published = c["published"]
    unread = unread_text(latest_scan(c).get("unread") or {})
    lines += [f"  {unread}"] if unread else []
    nothing = nothing_seen_text(latest_scan(c))
    lines += [f"  {nothing}"] if nothing else []
    if c.get("not_downloaded"):  # freed to a placeholder or cloud-only: search marks each hit of them
        n = c["not_downloaded"]
        lines.append(f"  {count(n, 'file')} not downloaded on this machine, kept in the cloud by a sync client: "
                     f"{'it answers' if n == 1 else 'they answer'} as indexed")
    if published:
        lines.append(f"  published: generation {published['id']}, {age(published['age_seconds'])} ago; "
                     f"{_change_line(published)}")
    else:
        lines.append("  published: nothing yet")
    if published and published.get("not_read_yet"):
        lines.append(_partial_line(c))
    scanned = (c.get("freshness") or {}).get("scanned_unchanged")
    if published and scanned:  # it made no generation: the published one is still the one that read the edits
        lines.append(f"  last scanned {age(time.time() - scanned)} ago: no changes")
    walking = (c.get("freshness") or {}).get("scanning")
    if walking is not None and not c["building"] and (not published or published.get("not_read_yet")):
        # the scan has the folder, no plan yet: stats said nothing of it, search's freshness line did
        lines.append(f"  scanning: {walking_text(time.time() - walking, bool(published))}")
    if c.get("queued_scan"):
        lines.append(_waiting_line(c))
    elif (c.get("freshness") or {}).get("scan_requested") and (published or not c["building"]):
        # not during a first build: the watcher asks for a walk of a root it starts watching, which follows the
        # build (its line, once published, says so); 'waiting: a rescan was asked for 15 s ago' stood through it
        lines.append(_requested_line(c))
    lines += freshness_lines(c.get("freshness") or {}, c["building"], c["name"], c["files"])
    if c.get("mail_before_v24"):  # search.index.mail_reads.before_people
        lines.append(f"  {count(c['mail_before_v24'], 'mail file')} read before schema V24: a reply naming no parent "
                     "joins no other file's thread by its Subject until its next scan reads them again")
    if c.get("tags"):  # what search's and list_files' tags can be
        of = f" ({len(c['tags'])} of {c['tags_held']})" if c.get("tags_held", 0) > len(c["tags"]) else ""
        lines.append(f"  tags most held{of}: " + ", ".join(f"#{t['tag']} ({t['files']})" for t in c["tags"]))
    if c["building"]:
        lines += _building_lines(c["building"])
        lines += _behind_line(c, collections)
    lines += [f"  {working.background_text(w)}" for w in c.get("background") or []]
    # the big files in the background are said on the line above, not among the failures (status._aside)
    shown = (c["building"] or {}).get("failures") or (published or {}).get("failures") or []
    if shown:
        lines.append(f"  failed or skipped ({len(shown):,}):")
        lines += [f"    {f['path']}: {f['state']} at {f['stage']}: {f['reason']}" for f in shown[:FAILURES_SHOWN]]
        if len(shown) > FAILURES_SHOWN:
            lines.append(f"    … and {len(shown) - FAILURES_SHOWN:,} more ({hints.more_failures})")
    return lines


def _partial_line(c: dict) -> str:
    """'partial: the first build comes in parts (SIFT_FIRST_PART), the most recently modified files first: 100 of
    1,874 files searchable, 1,774 not read yet; the next part (100 files) is being built': a part of a first build
    is published (workers.tasks.first_part, which orders the parts by workers.tasks.recent_first)."""
    later = c["published"]["not_read_yet"]
    b = c["building"]
    part = (f"; the next part ({count(b['progress']['files'], 'file')}) is being built"
            if b and b.get("discovered") and b.get("progress") else "; the next part's scan comes next")
    seen = c["published"].get("seen") or c["files"] + later  # those that failed or were skipped too
    # said, as search's note says them (status.partial_text): '1,597 of 1,879 searchable, 281 not read yet' left one
    # file unaccounted for
    unsearchable = seen - c["files"] - later
    failed = f", {unsearchable:,} failed or skipped (listed below)" if unsearchable > 0 else ""
    return (f"  partial: the first build comes in parts (SIFT_FIRST_PART), {ORDER}: {c['files']:,} of "
            f"{count(seen, 'file')} searchable, {later:,} not read yet{failed}{part}")


def _waiting_line(c: dict) -> str:
    """'waiting: a scan is queued behind 3,412 jobs (notes is being built); it starts once they are done (queued
    2.0 min ago)': a queued scan that no worker has taken yet, and what goes before it."""
    q = c["queued_scan"]
    what = "a rescan" if c["published"] or c["building"] else "a scan"
    ahead = _ahead(q["building_ahead"], c["name"])
    if q["scans_ahead"]:
        scans = q["scans_ahead"]
        ahead.append(f"a scan of {scans[0]} goes first" if len(scans) == 1 else f"scans of {_and(scans)} go first")
    said = f" ({'; '.join(ahead)})" if ahead else ""
    if q["jobs_ahead"]:
        done = "it is" if q["jobs_ahead"] == 1 else "they are"
        text = f"  waiting: {what} is queued behind {count(q['jobs_ahead'], 'job')}{said}; it starts once {done} done"
    else:
        text = f"  waiting: {what} is queued, next in line{said}; it starts when a worker is free"
    if q.get("queued_at"):
        text += f" (queued {age(time.time() - q['queued_at'])} ago)"
    return text


def _behind_line(c: dict, collections: list[dict]) -> list[str]:
    """'waiting: its files are queued behind 1,062 files that the build of til (started first) has still to
    read': a worker takes files to read in the order they were queued, so a build started behind another's shows
    '0 of 6 changed files done; ETA unknown yet' until that one has read all of its own, minutes on end.
    Said only while nothing of its own has been read."""
    gen = c["building"]
    own = gen.get("stages", {}).get("parse") or {}
    if not gen.get("discovered") or own.get("done") or not own.get("queued"):
        return []
    first = [o for o in collections if o is not c and o["building"] and _to_read(o) and _goes_first(o, c)]
    if not first:
        return []
    builds = ("the build of " if len(first) == 1 else "the builds of ") + _and([o["name"] for o in first])
    have = "has" if len(first) == 1 else "have"
    why = "started first" if all(o["building"]["id"] < gen["id"] for o in first) else "a small build goes first"
    return [f"  waiting: its files are queued behind {count(sum(_to_read(o) for o in first), 'file')} that {builds} "
            f"({why}) {have} still to read"]


def _goes_first(other: dict, c: dict) -> bool:
    """Whether the jobs of ``other``'s build go before those of ``c``'s: a small build's go first
    (workers.tasks.priority), then those of the build started first."""
    from workers import waiting
    return (waiting.urgent(other), -other["building"]["id"]) > (waiting.urgent(c), -c["building"]["id"])


def _to_read(c: dict) -> int:
    return ((c["building"].get("stages") or {}).get("parse") or {}).get("queued", 0)


def _requested_line(c: dict) -> str:
    """A scan asked for (by the watcher, or by a scan that found a build under way) but not queued: the watcher
    and the periodic rescan queue a rescan of a published collection once its own scan or build is over,
    anything else only into an empty queue (workers.rescan.may_queue), so that scans do not pile up behind a
    build."""
    since = age(time.time() - c["freshness"]["scan_requested"])
    if c["published"] and (c["building"] or c["freshness"].get("scanning") is not None):
        return (f"  waiting: a rescan was asked for {since} ago; the watcher or a worker's periodic rescan queues "
                f"it once nothing of {c['name']} is under way")
    if c["published"]:  # the build it waited for is over: the line stood up to a minute more, as if still waiting
        return (f"  waiting: a rescan was asked for {since} ago; nothing of {c['name']} is under way now, so a "
                "worker's periodic check queues it within a minute (SIFT_PERIODIC_SECONDS)")
    return (f"  waiting: a scan was asked for {since} ago; the watcher or a worker's periodic rescan queues it "
            "once the queue is empty")


def _ahead(building: list[str], own: str) -> list[str]:
    """'notes is being built', 'notes and code are being built', 'its own build goes first'."""
    said = ["its own build goes first"] if own in building else []
    others = [name for name in building if name != own]
    if others:
        said.insert(0, f"{_and(others)} {'are' if len(others) > 1 else 'is'} being built")
    return said


def _and(names: list[str]) -> str:
    """'notes', 'notes and code', 'notes, code and docs'."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"


def latest_scan(c: dict) -> dict:
    """The collection's generation whose scan is the newest: the one being built once it has listed the
    files, else the published one ({} if neither)."""
    building = c["building"]
    return building if building and building["discovered"] else c["published"] or {}


def _building_lines(gen: dict) -> list[str]:
    head = f"  building: generation {gen['id']} (started {age(time.time() - gen['started'])} ago)"
    if not gen["discovered"]:
        return [head + "; looking for changed files"]
    p = gen.get("progress") or {}
    eta = p.get("eta_seconds")
    lines = [f"{head}; {_change_line(gen)}",
             f"    {p.get('done', 0):,} of {count(p.get('files', 0), 'changed file')} done, "
             f"{p.get('pending', 0):,} pending; "
             f"ETA {age(eta) if eta is not None else 'unknown yet'}",
             "    stage     queued    done  failed skipped"]
    lines[2:2] = [f"    {working.text(w)}" for w in p.get("slow") or []]
    if gen.get("not_read_yet"):  # '1,874 files seen, 1,874 added' then '3 of 100 changed files done': say why 100
        lines.insert(2, f"    a part of the first build (SIFT_FIRST_PART): {count(p.get('files', 0), 'file')} in this "
                        f"part, {gen['not_read_yet']:,} not read yet, left to the parts after it")
    for stage, n in gen["stages"].items():
        lines.append(f"    {stage:<8}{n['queued']:>8,}{n['done']:>8,}{n['failed']:>8,}{n['skipped']:>8,}")
    return lines


def _change_line(gen: dict) -> str:
    said = {"as before": "skipped or failed as before",  # workers.tasks.AS_BEFORE: not a change at all
            NOT_READ_YET: "not read yet (in later parts)"}  # a part of a first build: new files it leaves to later parts
    changes = ", ".join(f"{n:,} {said.get(kind, kind)}" for kind, n in sorted(
        gen["changes"].items(), key=lambda item: (item[0] in said, item[0]))) or "no changes"
    # a generation without a model (SIFT_EMBEDDINGS=off) embeds nothing: '0 chunks embedded' read as a build stuck
    keyword_only = "model" in gen and gen["model"] is None
    embedded = "keyword-only (no vectors)" if keyword_only else f"{count(gen['embedded'], 'chunk')} embedded"
    return f"{count(gen['seen'], 'file')} seen, {changes}; {embedded}"
