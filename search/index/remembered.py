"""The outcome of each file a collection skips or fails for a reason of its own, kept with what it was decided on
(schema V9).

A scan plans every file without a current version as new, so without this a file that is skipped or fails (a
scanned PDF, a binary .txt, a log of too many chunks, a PDF whose text extraction ran out of time) would be
parsed again at every scan: minutes of CPU every SIFT_RESCAN_MINUTES, forever. The outcome is kept with the
file's size, mtime and ctime and a fingerprint of the settings it depends on; a scan that finds all of them the
same carries the outcome forward into its generation instead (``workers.tasks.discover``).

Only the files currently skipped or failed are held: each scan keeps the outcomes it carries forward and forgets
the rest (a file deleted, changed, indexed since), and ``ingest retry-failed`` forgets the failed ones it retries.
Besides them, of state AWAY, the notes the last scan found not downloaded on this machine (a sync client's
placeholder stands for each, or it is cloud-only): kept as indexed, not read, and counted by stats from here
(``file_reads.away_count``) without a look on disk; each scan replaces those of the paths it read.
The table is written by ``search.index.store`` and read by ``search.index.file_reads.remembered``, both for writers
only: readers (stats, the MCP server) never look at it, so they read an index from before V9 as before.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import metadata


# the state of a remembered row that is no outcome: a note not downloaded on this machine (store.record_away)
AWAY = "away"
AWAY_REASON = "not downloaded on this machine: kept as indexed, not read"


@dataclass(frozen=True)
class Outcome:
    stage: str
    state: str  # skipped | failed
    reason: str | None
    error: str | None = None  # the class of the error it failed with (schema V30), carried with it to stats --json


@dataclass(frozen=True)
class Basis:
    """What an outcome was decided on: the file as stat'ed before it was read, and the settings."""
    size: int
    mtime: float
    ctime: float  # a chmod that fixes "no permission" changes only this
    settings: str


def fingerprint(model: str | None, cut: str, max_file_chunks: int, parsers: str = "") -> str:
    """The settings an outcome depends on (parse outcomes depend on none; one fingerprint for both is simpler),
    and Sift's version: an upgrade may parse what an older one could not. ``cut``: how files are cut
    (ingest.chunk.chunking: the chunk size, the overlap and the chunker's version, which a chunker that cuts
    otherwise raises: a file over the chunk limit, or failed at chunk, is then chunked again like every other).
    ``parsers``: what parses files (ingest.parser_versions), so that a better parser reads what failed again."""
    return json.dumps([model, cut, max_file_chunks, _version(), *([parsers] if parsers else [])])


def _version() -> str:
    try:
        return metadata.version("sift")
    except metadata.PackageNotFoundError:
        return ""
