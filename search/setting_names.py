"""The SIFT_* names Sift reads, so that a misspelled one is said rather than ignored.

SIFT_MODEL misspelt MODLE in a shell, or SIFT_EXCLUDE as EXCLUDES in Claude Desktop's "env", changed nothing
and nothing said so: the setting meant kept its default, and the user saw the index built otherwise than set. A
SIFT_* variable of the environment that is no name below but close to a setting's is told, with the setting
meant (`ingest` on stderr, `sift-mcp` at the head of its answers: mcp_server.settings_problems). A name close to
none (a script's own variable) is left alone. tests/test_setting_names.py keeps the lists whole.
"""
from __future__ import annotations

import difflib
import itertools
import os
import sqlite3
from pathlib import Path

# A user's settings (docs/configuration.md, docs/http.md).
SETTINGS = (
    "SIFT_HOME", "SIFT_MODEL", "SIFT_MODEL_CACHE", "SIFT_EMBEDDINGS", "SIFT_CHUNK_TOKENS", "SIFT_CHUNK_OVERLAP",
    "SIFT_MAX_FILE_CHUNKS", "SIFT_BACKGROUND_CHUNKS", "SIFT_FIRST_PART", "SIFT_EMBED_BATCH", "SIFT_FILES_PER_JOB",
    "SIFT_WORKERS", "SIFT_NICE", "SIFT_INCLUDE", "SIFT_EXCLUDE", "SIFT_RESCAN_MINUTES", "SIFT_RETRIES",
    "SIFT_RETRY_DELAY", "SIFT_QUEUE", "SIFT_EMBED_REMOTE", "SIFT_EMBED_TIMEOUT", "SIFT_ATTACHMENT_CACHE_MB",
    "SIFT_LOST_JOB_SECONDS", "SIFT_PERIODIC_SECONDS", "SIFT_HTTP_TOKEN", "SIFT_HTTP_ALLOWED_HOSTS",
    "SIFT_HTTP_ALLOWED_ORIGINS", "SIFT_HTTP_RATE", "SIFT_HTTP_BURST", "SIFT_HTTP_IDLE_MINUTES",
    "SIFT_HTTP_MAX_BODY", "SIFT_HTTP_MAX_SESSIONS", "SIFT_HTTP_READ_SECONDS",
)
# Read too, but not a user's setting: the tests' hooks, and what sift-mcp passes to its children. Never told as
# a slip; nor are the variables of the tests, benches and scripts (where the test data is …), close to no setting's.
OTHERS = (
    "SIFT_QUEUE_IMMEDIATE", "SIFT_REPORT_FD", "SIFT_FAULT_HOLD_RESTART", "SIFT_FAULT_HOLD_FOR_STOP",
    "SIFT_FAULT_PAUSE_DISCOVER", "SIFT_FAULT_PAUSE_PUBLISH", "SIFT_FAULT_RELEASE_DISCOVER",
    "SIFT_FAULT_RELEASE_PUBLISH", "SIFT_FAULT_QUEUE_WAIT", "SIFT_FAULT_WATCH_QUIET_MS", "SIFT_FAULT_WRITE",
)
CLOSE = 0.8  # difflib's ratio: MODLE, EXCLUDES, CHUNK_TOKEN (after SIFT_) are slips; THREADS is no setting's


def misspelled(environ=None) -> list[tuple[str, str]]:
    """(name, the setting meant) for each SIFT_* variable of ``environ`` (os.environ) that is no name Sift reads
    but close to a setting's, in the order of the names."""
    environ = os.environ if environ is None else environ
    known = set(SETTINGS) | set(OTHERS)
    found = []
    for name in sorted(environ):
        if name.startswith("SIFT_") and name not in known:
            meant = [setting for setting in difflib.get_close_matches(name, SETTINGS, n=len(SETTINGS), cutoff=CLOSE)
                     if _words_slipped(name, setting)]
            if meant:
                found.append((name, meant[0]))
    return found


WORD_CLOSE = 0.75  # difflib's ratio of a word misspelt (MODLE for MODEL, EXCLUDES for EXCLUDE), not another word


def _words_slipped(name: str, setting: str) -> bool:
    """Whether ``name`` is ``setting`` with its words misspelt, run together, cut short (MINS for MINUTES), or one
    word more or fewer (MODEL_PATH for MODEL, TIMEOUT for EMBED_TIMEOUT, after SIFT_), not with a word of its own in
    place of one of the setting's: close as whole names, REDIS was told 'did you mean SIFT_RETRIES?', HTTP_PORT
    SIFT_HTTP_RATE and MODEL_PATH SIFT_MODEL_CACHE, sending the user to set what they never meant."""
    typed, words = name.split("_")[1:], setting.split("_")[1:]
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, typed, words, autojunk=False).get_opcodes():
        pairs = zip(typed[i1:i2], words[j1:j2]) if i2 - i1 == j2 - j1 else \
            [("".join(typed[i1:i2]), "".join(words[j1:j2]))]  # CHUNKTOKENS for CHUNK_TOKENS
        if op == "replace" and not all(difflib.SequenceMatcher(None, a, b).ratio() >= WORD_CLOSE
                                       or a[:3] == b[:3] for a, b in pairs):  # RETRIES, MINS: the word's start
            return False
    return True


def slip_text(name: str, meant: str) -> str:
    """'… is not a Sift setting, so it changes nothing: did you mean SIFT_MODEL?'"""
    return f"{name} is not a Sift setting, so it changes nothing: did you mean {meant}?"


def home_meant(home: Path | str) -> Path | None:
    """The home beside ``home`` whose name is close and that holds an index, when ``home`` does not exist or holds no
    collection: a slip in SIFT_HOME (~/.sfit) said only 'nothing indexed yet', as if the notes indexed into
    ~/.sift were gone (and from its second start on, the slip's own new, empty index hid the hint)."""
    home = Path(home)
    if _holds_collections(home / "index.db"):  # not home.exists(): its first sift-mcp's worker makes the slip's home
        return None                             # (a queue, an index of no collection), unsaid on every later start
    try:
        with os.scandir(home.parent) as entries:
            names = [e.name for e in itertools.islice(entries, 10_000)
                     if e.name != home.name and e.is_dir() and (Path(e.path) / "index.db").is_file()]
    except OSError:  # its folder is missing too, or not readable: nothing to offer
        return None
    close = difflib.get_close_matches(home.name, names, n=1, cutoff=0.75)
    return home.parent / close[0] if close else None


def _holds_collections(index: Path) -> bool:
    """Whether ``index`` is there and registers a collection (one it cannot read counts as one: not ours to judge)."""
    if not index.is_file():
        return False
    from search.index import collection_reads, db
    try:
        conn = db.connect(index, readonly=True)
    except db.NoIndex:  # a file of no schema yet
        return False
    except (db.IndexUnavailable, OSError):
        return True
    try:
        return bool(collection_reads.collections(conn))
    except sqlite3.Error:
        return True
    finally:
        conn.close()
