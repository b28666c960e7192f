"""Opening the index database: WAL mode, a busy timeout, the newest schema; and saying plainly why an
index cannot be used (a read-only folder, a full disk, a damaged file) and what to do about it.

Readers open the file read-only, so they can never change it. Writers check it first (``PRAGMA
quick_check``, once per process and file) and refuse a damaged index: it is left as it is, to be restored
or deleted, never written over.

Nothing here opens the database file other than through SQLite: closing any other descriptor of it would
drop the POSIX locks SQLite holds on it in this process, and another process could then delete the WAL
under this one's connections.
"""
from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import struct
import threading
from pathlib import Path
from urllib.parse import quote

from search.index import schema

try:
    import fcntl
except ImportError:  # not POSIX
    fcntl = None

BUSY_TIMEOUT_MS = 30_000
# What a -wal file is cut back to once SQLite has copied it into the database and starts it again. Without it the
# file kept the size of the biggest write it ever held (an `ingest remove` of a big collection, a build while
# searches kept a snapshot open): 31 MB after one 30 MB transaction, for ever. Twice the autocheckpoint's 1,000 pages.
WAL_LIMIT_BYTES = 8 * 1024 * 1024
# SQLite primary result codes (the low byte of an extended code)
SQLITE_BUSY, SQLITE_LOCKED, SQLITE_READONLY, SQLITE_IOERR = 5, 6, 8, 10
SQLITE_CORRUPT, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_NOTADB = 11, 13, 14, 26
# Beside the index, which file its -wal was written for: (device, inode) of the index, then of the -wal, as the last
# writer to connect found them. SQLite's WAL names no database: one left beside an index renamed over (a restore, a
# rebuilt copy moved in) was read and then copied into the new file, whose tables came out mixed with the old one's.
WAL_OWNER = "-wal-of"
WAL_HEADER_BYTES = 32  # a -wal no longer than its header holds no page
REPLACED_WAIT_MS = 1_000  # how long close_replaced waits for readers of the replaced file to let its -wal go
# Where a -wal left by the replaced file is moved when no process reads through it any more (_set_aside_stale_wal)
WAL_SET_ASIDE = "-wal-replaced"
# The byte of a -shm that every SQLite connection reading through it holds a read lock on while it is open (the
# unix VFS's "dead man switch", UNIX_SHM_DMS: 120 + 8): a write lock there is refused while any connection is open
SHM_DMS_BYTE = 128

log = logging.getLogger("sift.index")
# Descriptors of -shm files found in use by _set_aside_stale_wal, kept open for good: closing any descriptor of a
# file drops every POSIX lock this process holds on it, its own SQLite connections' too (one per stale -shm)
_kept_open: dict[tuple[int, int], int] = {}

_checked: set[tuple] = set()  # (path, device, inode) of index files this process found intact
_checked_lock = threading.Lock()


class IndexUnavailable(Exception):
    """The index cannot be opened or used; the message says why and what to do."""


class NoIndex(IndexUnavailable):
    """Nothing has been indexed here yet."""


class IndexDamaged(IndexUnavailable):
    """The index file is damaged (SQLite says it is malformed or not a database, or quick_check finds faults):
    no writer may touch it, and no file is to blame for it."""


def connect(path: Path | str, readonly: bool = False) -> sqlite3.Connection:
    """A connection in autocommit mode; use ``transaction`` or ``snapshot`` around work."""
    path = Path(path)
    if readonly and not path.exists():
        raise NoIndex(f"no index at {path}: run `ingest enqueue PATH` first")
    if path.exists() and not path.is_file():  # a folder: SQLite says 'disk I/O error' or 'unable to open
        # database file'; a named pipe blocks every reader until something writes to it
        what = "a folder" if path.is_dir() else "a named pipe" if path.is_fifo() else "not a regular file"
        raise IndexUnavailable(f"the index at {path} is {what}, not a database file: move it out of the way, "
                               "or point SIFT_HOME (--home) at another folder")
    if not readonly:
        _check_writable(path)
    _refuse_stale_wal(path)
    try:
        conn = _open_reader(path) if readonly else _open(path)
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if not readonly:
            _check_intact(conn, path)
            _refuse_foreign(conn, path)
            if conn.execute("PRAGMA page_count").fetchone()[0] == 0:  # a new index: its free pages can be given
                conn.execute("PRAGMA auto_vacuum = INCREMENTAL")  # back (store.reclaim_free_pages)
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute(f"PRAGMA journal_size_limit = {WAL_LIMIT_BYTES}")
            schema.migrate(conn)
            _mark_wal_owner(path)
        elif schema.version(conn) == 0:
            _refuse_foreign(conn, path)
            raise NoIndex(f"{path} holds no Sift index yet: run `ingest enqueue PATH` first")
        conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.DatabaseError as exc:
        raise (IndexDamaged if is_damaged(exc) else IndexUnavailable)(explain(exc, path)) from exc
    except schema.SchemaTooNew as exc:
        raise IndexUnavailable(f"cannot open the index at {path}: {exc}") from exc
    return conn


def identity(path: Path | str) -> tuple[int, int] | None:
    """(device, inode) of the index file at ``path``, None when there is none. A connection stays on the file it
    opened: one opened before the index was deleted and made again read the deleted file for as long as it was
    kept (the server's stats and search went on naming the deleted index's collections). Its keeper compares this,
    taken before it connected, with the file there now."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def opened(path: Path | str) -> tuple:
    """identity() of the index and of its -wal, taken just before connecting: what ``replaced`` compares with."""
    return identity(path), identity(f"{path}-wal")


def replaced(path: Path | str, was: tuple) -> bool:
    """Whether the index at ``path`` is no longer what a connection was opened on (``was``: ``opened``): another
    file (deleted, restored, renamed over), or another -wal than the one there as it connected. A reader that opened
    a restored file while the replaced one's -wal was still beside it, empty (no page: not refused), shared it; a
    worker that then found the swap deleted it (close_replaced), and the reader went on reading through the deleted
    -wal and its -shm, missing every later change, until it happened to reconnect. While a connection is open
    SQLite deletes no -wal of its file, so another one there means that."""
    index, wal = opened(path)
    return index != was[0] or (was[1] is not None and wal != was[1])


def close_replaced(conn: sqlite3.Connection, path: Path | str, wal: tuple[int, int] | None) -> None:
    """Close a connection to the index file that was at ``path`` and was replaced since (renamed over, restored,
    deleted); ``wal``: identity() of the -wal it was opened with. SQLite leaves the -wal of a moved or unlinked file
    beside the new one when it closes: the new file is refused while that holds pages (_refuse_stale_wal), and one
    opened with it shares it (and its -shm) with the old file's connections, whose next checkpoint would copy the
    new file's pages into the old one. So its changes are first copied into the old file (kept whole if it was
    moved aside) and, while the -wal there is still that one, it and its -shm are deleted: connections of other
    processes still on the old file keep theirs, the new file gets its own."""
    with contextlib.suppress(sqlite3.Error):
        conn.execute(f"PRAGMA busy_timeout = {REPLACED_WAIT_MS}")  # not the 30 s a write waits
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # (busy while another connection reads: they keep them)
    if wal is not None and identity(f"{path}-wal") == wal:
        for end in ("-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.unlink(f"{path}{end}")
    conn.close()


def _wal_pair(path: Path) -> tuple[int, ...] | None:
    """(device, inode) of the index and of its -wal, None when either is missing."""
    index, wal = identity(path), identity(f"{path}-wal")
    return (*index, *wal) if index and wal else None


def _mark_wal_owner(path: Path) -> None:
    """Write down which index file the -wal beside it belongs to (WAL_OWNER). A -wal made since (the last
    connection to close deletes it) is another file, which the record does not speak of."""
    pair, owner = _wal_pair(path), Path(f"{path}{WAL_OWNER}")
    if pair is None:
        return
    text = " ".join(map(str, pair)) + "\n"
    temp = owner.with_name(f"{owner.name}.{os.getpid()}")
    try:
        if owner.exists() and owner.read_text() == text:
            return
        temp.write_text(text)
        os.replace(temp, owner)
    except OSError:  # only a guard (a full disk): the index works without it
        with contextlib.suppress(OSError):
            temp.unlink(missing_ok=True)


def _refuse_stale_wal(path: Path) -> None:
    """Refuse an index whose -wal holds pages written for another file: the same -wal as the last writer found
    beside it (WAL_OWNER), but the index is another file now (renamed over, restored). SQLite would read those
    pages as the index's and copy them into it. A -wal of another inode (copied with the index, made anew) or
    an index of no record is left to SQLite."""
    try:
        if os.stat(f"{path}-wal").st_size <= WAL_HEADER_BYTES:
            return
        owner = tuple(int(n) for n in Path(f"{path}{WAL_OWNER}").read_text().split())
    except (OSError, ValueError):
        return
    pair = _wal_pair(path)
    if pair is None or len(owner) != 4 or owner[2:] != pair[2:] or owner[:2] == pair[:2]:
        return
    if _set_aside_stale_wal(path, pair):
        return
    raise IndexUnavailable(
        f"the index at {path} was replaced (renamed over, restored) while {path.name}-wal beside it still holds "
        f"changes written to the file that was there before, and a Sift process (huey_consumer, sift-mcp) still "
        f"has that file open: SQLite would mix them into this one and damage it, so Sift leaves both as they are. "
        f"A worker lets go of it at its next job (within a minute: a periodic one runs every minute), sift-mcp at "
        f"its next search: then run this again, and Sift moves what is left aside by itself. Or stop those "
        f"processes and run this again. (By hand, with Sift's processes stopped: delete {path.name}-wal and "
        f"{path.name}-shm; to go back to the replaced file instead, put it back at {path})")


def _set_aside_stale_wal(path: Path, pair: tuple[int, ...]) -> bool:
    """Move the -wal of a replaced index file aside ({path}-wal-replaced) and delete its -shm, when no connection
    of any process reads through them any more: each holds a read lock on the -shm's SHM_DMS_BYTE while it is open,
    so a write lock taken there (an open-file-description lock: refused by this process's own SQLite locks too)
    says none is, and keeps one from starting while they are moved. A process still on the replaced file would copy
    the -wal's pages into it (close_replaced does) or read them: False, and it is left to that process. Without
    such a lock (not Linux), False. What the -wal holds is of the replaced file (the last changes of a process that
    was killed on it): kept beside it, never copied into this one."""
    wal, shm = Path(f"{path}-wal"), Path(f"{path}-shm")
    command = getattr(fcntl, "F_OFD_SETLK", None)
    if command is None:
        return False
    try:
        info = os.stat(shm)
        key = (info.st_dev, info.st_ino)
        fd = _kept_open.get(key)
        fd = os.open(shm, os.O_RDWR) if fd is None else fd
    except FileNotFoundError:  # no -shm: no connection can be reading through the -wal
        key, fd = None, None
    except OSError:
        return False
    try:
        if fd is not None:
            lock = struct.pack("hhqqi4x", fcntl.F_WRLCK, os.SEEK_SET, SHM_DMS_BYTE, 1, 0)
            try:
                fcntl.fcntl(fd, command, lock)
            except OSError:  # a connection is open on it (EAGAIN, EACCES), or no such lock here (EINVAL); perhaps
                _kept_open[key], fd = fd, None  # one of this process, whose locks stay only while none is closed
                return False
            _kept_open.pop(key, None)
        if _wal_pair(path) != pair:  # changed meanwhile: look again at the next connect
            return False
        os.replace(wal, Path(f"{path}{WAL_SET_ASIDE}"))
        shm.unlink(missing_ok=True)
    except OSError:
        return False
    finally:
        if fd is not None:
            os.close(fd)  # (the lock goes with it: this process holds no other lock on the file, or it was refused)
    log.warning("the index at %s was replaced while %s beside it held changes written to the file that was there "
                "before, and no process reads through it any more: moved it aside to %s%s (to go back to that file, "
                "put it back at %s and this back as %s)", path, wal.name, path.name, WAL_SET_ASIDE, path, wal.name)
    return True


def _open(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)


def _open_reader(path: Path) -> sqlite3.Connection:
    """A read-only connection. In a folder it cannot write to, SQLite cannot create the ``-shm`` file a
    WAL database is read through; when no ``-wal`` is left either (nothing unwritten), the file is read
    as immutable: nobody can change it while the folder stays read-only."""
    uri = f"file:{quote(str(path))}?mode=ro"
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000,
                           check_same_thread=False)
    try:
        conn.execute("PRAGMA user_version").fetchone()
        return conn
    except sqlite3.OperationalError as exc:
        conn.close()
        if (_code(exc) == SQLITE_IOERR or "disk I/O error" in str(exc)) and _disk_full(path.parent):
            raise IndexUnavailable(
                f"cannot read the index at {path}: the disk holding {path.parent} is full, and SQLite needs a "
                f"little room there ({path.name}-shm) to read it: free some space, then search again") from None
        refused = _code(exc) in (SQLITE_READONLY, SQLITE_CANTOPEN) or "readonly" in str(exc) \
            or "unable to open" in str(exc)
        if not refused or os.access(path.parent, os.W_OK):
            raise
        wal = Path(f"{path}-wal")
        if wal.exists() and wal.stat().st_size > 0:
            raise IndexUnavailable(
                f"cannot read the index at {path}: its folder {path.parent} is read-only and SQLite must create "
                f"{path.name}-shm there to read the changes still in {wal.name}: make the folder writable "
                f"(chmod u+w {path.parent}) and search again") from None
    return sqlite3.connect(f"{uri}&immutable=1", uri=True, isolation_level=None, check_same_thread=False)


def _disk_full(folder: Path) -> bool:
    """Whether the disk holding ``folder`` has no room left for SQLite's 32 KiB of -shm."""
    from search.index import space
    free = space.free_bytes(folder)
    return free is not None and free < 64 * 1024


def _check_writable(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise IndexUnavailable(read_only(path, f"cannot create {path.parent}: {exc.strerror}")) from None
    if not os.access(path.parent, os.W_OK):
        raise IndexUnavailable(read_only(path, f"cannot write in {path.parent}"))
    for file in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        if file.exists() and not os.access(file, os.W_OK):
            raise IndexUnavailable(read_only(path, f"{file} is not writable"))


def _check_intact(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse to write to a damaged index (once per process and file: it reads every page)."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return  # a new index
    key = (str(path), info.st_dev, info.st_ino)
    with _checked_lock:
        if key in _checked:
            return
    problems = [row[0] for row in conn.execute("PRAGMA quick_check(3)")]
    if problems != ["ok"]:
        conn.close()
        found = " ".join(" ".join(problems).replace("*** in database main ***", "").split())
        raise IndexDamaged(damaged(path, f"quick_check: {found[:200]}"))
    with _checked_lock:
        _checked.add(key)


def _refuse_foreign(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse an SQLite database of another program (no Sift schema version, tables of its own): Sift would
    add its tables to it. Sift's first migration makes its tables and sets the version in one transaction."""
    if schema.version(conn) != 0:
        return
    tables = [row[0] for row in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
        "ORDER BY name LIMIT 6")]
    # another process's first migration may have committed between the two reads (tables, and a version now):
    # a worker starting beside `ingest enqueue` on a new home had enqueue refuse Sift's own index as another's
    if tables and schema.version(conn) == 0:
        conn.close()
        shown = ", ".join(tables[:5]) + (", …" if len(tables) > 5 else "")
        raise IndexUnavailable(f"{path} is an SQLite database of another program (tables: {shown}), not a Sift "
                               "index: Sift leaves it as it is; point SIFT_HOME (--home) at a folder of Sift's own")


# --- what a failure means, in one line ---------------------------------------------------------

def damaged(path: Path | str, why: str) -> str:
    return (f"the index at {path} is damaged ({why}); Sift leaves it as it is. Restore it from a backup, or "
            f"delete it (with {Path(path).name}-wal and {Path(path).name}-shm beside it) and run "
            "`ingest enqueue FOLDER --name NAME` again for each collection to rebuild it (with its name, so that "
            "its paths read as before)")


def read_only(path: Path | str, why: str) -> str:
    folder = Path(path).parent
    from search.settings import mount_of
    mount = mount_of(folder)
    if mount and mount[2]:  # no chmod makes it writable: 'chmod u+w' sent the user the wrong way
        return (f"the index at {path} is read-only ({why}): its file system is mounted read-only ({mount[0]}): "
                f"mount it read-write, or point SIFT_HOME (--home) at a writable folder")
    return (f"the index at {path} is read-only ({why}): make {folder} and the files in it writable "
            f"(chmod u+w), or point SIFT_HOME (--home) at a writable folder")


def disk_full(path: Path | str, why: str = "database or disk is full") -> str:
    return (f"the disk holding {Path(path).parent} is full ({why}): free some space, then try again "
            "(`ingest retry-failed` queues the files that failed meanwhile)")


def explain(exc: BaseException, path: Path | str) -> str:
    """One line for an sqlite3 error met while using the index at ``path``."""
    if isinstance(exc, IndexUnavailable):
        return str(exc)
    code, text = _code(exc), str(exc)
    if code in (SQLITE_CORRUPT, SQLITE_NOTADB) or "malformed" in text or "not a database" in text:
        return damaged(path, text)
    if is_disk_full(exc) or ((code == SQLITE_IOERR or "disk I/O error" in text) and _disk_full(Path(path).parent)):
        return disk_full(path, text)  # (with no room for its -shm, SQLite only says 'disk I/O error')
    if code == SQLITE_READONLY or "readonly database" in text:
        return read_only(path, text)
    if code in (SQLITE_BUSY, SQLITE_LOCKED) or "locked" in text:
        return f"the index at {path} is busy ({text}): another process holds a long write; try again in a moment"
    return f"cannot use the index at {path}: {text}"


def is_disk_full(exc: BaseException) -> bool:
    """SQLite's 'database or disk is full', or an OS error saying there is no room."""
    import errno
    if isinstance(exc, sqlite3.Error):
        return _code(exc) == SQLITE_FULL or "disk is full" in str(exc)
    return isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def is_damaged(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.DatabaseError) and (
        _code(exc) in (SQLITE_CORRUPT, SQLITE_NOTADB) or "malformed" in str(exc) or "not a database" in str(exc))


def _code(exc: BaseException) -> int | None:
    """The primary result code (Python 3.11+ gives it; 3.10 only has the message)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else code & 0xFF


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection, immediate: bool = True):
    """A write transaction; IMMEDIATE takes the write lock up front so it cannot deadlock."""
    conn.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:  # SQLite may have rolled back already (a full disk, say): keep the real error
            conn.execute("ROLLBACK")
        raise
    else:
        conn.execute("COMMIT")


@contextlib.contextmanager
def snapshot(conn: sqlite3.Connection):
    """A read transaction: everything read inside sees one state of the database."""
    conn.execute("BEGIN")
    try:
        yield conn
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")
