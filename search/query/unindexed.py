"""Why a PDF a note links to, there in the collection's folder, is not in the index though no scan recorded it:
the scan leaves it out (SIFT_EXCLUDE, SIFT_INCLUDE or a .gitignore), or no scan has met it yet. Which one, when
the index knows: the collection's newest scan began after the file last changed (its ctime, which a copy that
keeps the mtime still moves) with nothing waiting for a scan, so that scan met it and left it out; or the file
changed after the newest scan began, so none has met it yet. Both were said as one ('leaves it out or has not
read it yet'), which sent a model to read_file to learn which.
"""
from __future__ import annotations

import os

from search.index import scan_reads
from search.index.status import CLOCK_SLACK_SECONDS, age

LEFT_OUT = ("in the folder, but the scan leaves it out (SIFT_EXCLUDE, SIFT_INCLUDE or a .gitignore) or has not "
            "read it yet: read_file on it says which")
SCAN_LEAVES_IT_OUT = ("in the folder, but the scan leaves it out (SIFT_EXCLUDE, SIFT_INCLUDE or a .gitignore): "
                      "read_file on it says why")
NOT_READ_YET = "in the folder, but no scan has read it yet (it changed after the last scan began, {ago} ago; " \
               "refresh queues one)"
# A file changed this long before a scan began was met by it: the watcher groups a burst of events for at most
# 5 s (workers.watch.MAX_MS) before asking for the scan that reads them, so one changed just before a scan of
# other paths began may be read by the next.
SETTLED_SECONDS = 10.0


def in_folder(conn, collection, path: str, now: float) -> str:
    """Why the file ``path`` of ``collection`` (its row), on disk and recorded by no scan, is not indexed."""
    try:
        info = os.stat(os.path.join(collection["root"], path))
    except OSError:
        return LEFT_OUT
    changed = max(info.st_ctime, info.st_mtime)
    began = scan_reads.last_scan(conn, collection["id"], now + CLOCK_SLACK_SECONDS)  # later: stamped before the clock was set back
    if changed >= began:
        return NOT_READ_YET.format(ago=age(now - began))
    keys = collection.keys()
    waiting = ("changes_noticed" in keys and collection["changes_noticed"]) or \
        ("scan_requested" in keys and collection["scan_requested"] is not None)
    if changed < began - SETTLED_SECONDS and not waiting:
        return SCAN_LEAVES_IT_OUT
    return LEFT_OUT
