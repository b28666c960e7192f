"""All of Sift's settings in one place.

Each setting has a default, an environment variable and (in the CLIs) a flag.
Flags win over the environment, the environment over the defaults.
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from search.model.info import KnownModel, known_model

# The model used when SIFT_MODEL is not set: a name in search.model.info.KNOWN_MODELS,
# built under <home>/models/ from its pip package on first need.
DEFAULT_MODEL = "multilingual-e5-small"  # Chinese, English and mixed notes; SIFT_MODEL=minilm: English only, faster


REDIS_SCHEMES = ("redis://", "rediss://", "unix://")  # what SIFT_QUEUE may name besides sqlite


ON, OFF = ("1", "on", "true", "yes"), ("0", "off", "false", "no")


class SettingError(ValueError):
    """A SIFT_* setting that cannot be used, and the variables it is about (the first is the one told): the MCP
    server serves with their defaults where that is safe (mcp_server.settings_problems), rather than stopping."""

    def __init__(self, message: str, *variables: str):
        super().__init__(message)
        self.variables = variables


def _env_bool(name: str, default: bool) -> bool:
    """SIFT_<name> as on or off. Anything else is refused in one line: SIFT_EMBEDDINGS=of (a typo for off)
    used to mean on, and built a full index with embeddings without a word."""
    value = (os.environ.get(name) or "").strip()
    if not value:
        return default
    if value.lower() in ON + OFF:
        return value.lower() in ON
    raise SettingError(f"{name}={value!r} is neither on nor off: give on or off (or 1/0, true/false, yes/no; "
                     f"the default is {'on' if default else 'off'})", name)


def _env_number(name: str, default, kind=int, least=None, above=None):
    """SIFT_<name> as ``kind`` (int or float), ``default`` when unset. A value that is not a finite number is
    refused in one line naming the variable (int() said only "invalid literal for int() with base 10"), and so
    is one under ``least`` or not over ``above`` (a 0 that a worker would divide or step by). A setting that has a
    flag is named with it, as the flag's value arrives here through the variable."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        number = kind(raw)
    except ValueError:
        number = math.nan
    flag = next((f" (--{key.replace('_', '-')})" for key, variable in FLAG_VARIABLES.items() if variable == name), "")
    said = f"{name}={raw!r}{flag}"
    if not math.isfinite(number):
        what = "a whole number" if kind is int else "a number"  # '2.5' is a number, but not a whole one
        raise SettingError(f"{said} is not {what}: give {what} (the default is {default})", name)
    if least is not None and number < least:
        raise SettingError(f"{said} must be at least {least} (the default is {default})", name)
    if above is not None and number <= above:
        raise SettingError(f"{said} must be more than {above} (the default is {default})", name)
    return number


def _env_list(name: str) -> list[str]:
    value = os.environ.get(name, "")
    return [part.strip() for part in value.split(",") if part.strip()]


@dataclass(frozen=True)
class Settings:
    home: Path = field(default_factory=lambda: Path.home() / ".sift")
    model: str | None = None  # SIFT_MODEL: a known model's name (e5, minilm, ...) or a GGUF path; None: the default
    embeddings: bool = True
    chunk_tokens: int = 256
    chunk_overlap: int = 32
    max_file_chunks: int = 10_000  # a file of more chunks is skipped: about 15 min of e5 on 2 cores
    background_chunks: int = 256  # a file with more chunks to embed is embedded outside its build; 0: never
    first_part: int = 100  # files a first build publishes first, then parts as big as all before; 0: all at once
    embed_batch: int = 32  # chunks per embedding call
    files_per_job: int = 256  # files carried by one pipeline job, at most workers.tasks.JOB_BYTES of them
    workers: int = 2
    nice: int = 10  # SIFT_NICE: the CPU priority a worker lowers itself to (0-19; 0: as started)
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    queue: str = "sqlite"  # SIFT_QUEUE: "sqlite" (<home>/queue.db) or redis://HOST:PORT/DB (huey's RedisHuey)
    embed_remote: bool = False  # SIFT_EMBED_REMOTE: embed jobs go to the Redis queue sift-embed (workers.embedder)
    embed_timeout: float = 120  # SIFT_EMBED_TIMEOUT: seconds an embedder may be silent before its job is re-sent
    rescan_minutes: float = 10  # the periodic rescan, and how long a missing root is kept
    lost_job_seconds: float = 60  # SIFT_LOST_JOB_SECONDS: a file no job carries for this long is queued again
    # SIFT_ATTACHMENT_CACHE_MB: mail attachments' readings kept (ingest.attachment_cache)
    attachment_cache_mb: int = 256
    periodic_seconds: float = 60  # SIFT_PERIODIC_SECONDS: how often a worker runs its periodic task (1 to 60 s);
    # also the server's wait before it starts again a worker or watcher that refused (mcp_server.worker)
    retries: int = 3  # tries after the first for a job or file that failed for a transient cause
    retry_delay: float = 2.0  # seconds before the first retry; each further wait is twice as long

    @property
    def index_path(self) -> Path:
        return self.home / "index.db"

    @property
    def queue_path(self) -> Path:
        return self.home / "queue.db"

    @property
    def models_dir(self) -> Path:
        return self.home / "models"

    @property
    def known_model(self) -> KnownModel | None:
        """The known model SIFT_MODEL names (the default when unset), or None for a GGUF path."""
        if not self.model:
            return known_model(DEFAULT_MODEL)
        if is_model_path(self.model):
            return None
        return known_model(self.model)

    @property
    def model_path(self) -> Path:
        known = self.known_model
        if known is not None:
            return self.models_dir / known.file_name
        return Path(str(self.model)).expanduser()

    @property
    def uses_default_model(self) -> bool:
        """True when the model is one Sift builds itself (by default or by name) under <home>/models/."""
        known = self.known_model
        return known is not None and known.build is not None

    def with_overrides(self, **changes) -> "Settings":
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def _buildable() -> list[KnownModel]:
    from search.model.info import KNOWN_MODELS
    return [m for m in KNOWN_MODELS if m.build]


def _nearest_model(given: str) -> str:
    """': did you mean e5?' for SIFT_MODEL=e-5 (the alias nearest what was typed), '' when none is near."""
    import difflib
    aliases = {alias.lower(): alias for m in _buildable() for alias in (*m.aliases, m.name)}
    near = difflib.get_close_matches(given.strip().lower(), list(aliases), n=1, cutoff=0.5)
    return f": did you mean {aliases[near[0]]}?" if near else ""


HOME_HELP = "where the index, queue and models live (SIFT_HOME, default ~/.sift)"
FLAG_VARIABLES = {"home": "SIFT_HOME", "model": "SIFT_MODEL", "embeddings": "SIFT_EMBEDDINGS",
                  "chunk_tokens": "SIFT_CHUNK_TOKENS", "chunk_overlap": "SIFT_CHUNK_OVERLAP",
                  "max_file_chunks": "SIFT_MAX_FILE_CHUNKS"}


def add_home_flag(parser) -> None:
    """``--home``, the same in every entry point (``ingest``, ``sift-mcp``, ``python -m workers.watch``)."""
    parser.add_argument("--home", help=HOME_HELP)


def use_flags(args) -> None:
    """Make the flags an entry point was given (``args``: its parsed arguments; the ones of FLAG_VARIABLES it
    has) win over the environment. They are written to their SIFT_* variables, because what the process starts
    or feeds (the server's worker and watcher, a consumer reading jobs this process queued) reads its settings
    from there; ``load()`` then sees them too. ``--home`` and a ``--model`` file become absolute real paths, so
    a child started in another folder finds the same ones."""
    for flag, variable in FLAG_VARIABLES.items():
        value = getattr(args, flag, None)
        if value is not None:
            is_path = flag == "home" or (flag == "model" and is_model_path(value))
            os.environ[variable] = os.path.realpath(os.path.expanduser(value)) if is_path else str(value)


def is_model_path(value: str | Path) -> bool:
    """SIFT_MODEL names a file (rather than a known model) when it looks like one or is not a known name."""
    text = str(value)
    return isinstance(value, Path) or "/" in text or text.lower().endswith(".gguf") or known_model(text) is None


def load(**overrides) -> Settings:
    """Settings from the environment, then the given overrides (None means 'not given')."""
    env = os.environ
    base = Settings(
        home=Path(env["SIFT_HOME"]).expanduser() if env.get("SIFT_HOME") else Path.home() / ".sift",
        model=env.get("SIFT_MODEL") or None,
        embeddings=_env_bool("SIFT_EMBEDDINGS", True),
        chunk_tokens=_env_number("SIFT_CHUNK_TOKENS", 256, least=1),
        chunk_overlap=_env_number("SIFT_CHUNK_OVERLAP", 32, least=0),
        max_file_chunks=_env_number("SIFT_MAX_FILE_CHUNKS", 10_000, least=1),
        background_chunks=_env_number("SIFT_BACKGROUND_CHUNKS", 256, least=0),
        first_part=_env_number("SIFT_FIRST_PART", 100, least=0),
        embed_batch=_env_number("SIFT_EMBED_BATCH", 32, least=1),
        files_per_job=_env_number("SIFT_FILES_PER_JOB", 256, least=1),
        workers=_env_number("SIFT_WORKERS", 2, least=1),
        nice=_env_number("SIFT_NICE", 10, least=0),
        include=tuple(_env_list("SIFT_INCLUDE")),
        exclude=tuple(_env_list("SIFT_EXCLUDE")),
        queue=(env.get("SIFT_QUEUE") or "sqlite").strip(),
        embed_remote=_env_bool("SIFT_EMBED_REMOTE", False),
        embed_timeout=_env_number("SIFT_EMBED_TIMEOUT", 120, float, above=0),
        rescan_minutes=_env_number("SIFT_RESCAN_MINUTES", 10, float, above=0),
        lost_job_seconds=_env_number("SIFT_LOST_JOB_SECONDS", 60, float, least=0),
        attachment_cache_mb=_env_number("SIFT_ATTACHMENT_CACHE_MB", 256, least=0),
        # at least huey's scheduler tick (1 s): it steps its next periodic time on by this until past the clock, and
        # 1e-12 added to the clock changes nothing (the scheduler looped for good)
        periodic_seconds=_env_number("SIFT_PERIODIC_SECONDS", 60, float, least=1),
        retries=_env_number("SIFT_RETRIES", 3, least=0),
        retry_delay=_env_number("SIFT_RETRY_DELAY", 2, float),
    )
    settings = base.with_overrides(**overrides)
    try:
        not_a_folder = settings.home.exists() and not settings.home.is_dir()
        unmakeable = None if not_a_folder else home_unmakeable(settings.home)
        system = None if not_a_folder or unmakeable or not settings.home.exists() else system_file_system(settings.home)
    except OSError as exc:  # a name too long, a folder above it this user cannot look in: a traceback (sift-mcp's exit)
        raise SettingError(f"SIFT_HOME={settings.home} cannot be looked at: {exc.strerror or exc}; point SIFT_HOME "
                           "(--home) at a folder you can write (it is made if missing)", "SIFT_HOME") from None
    if not_a_folder:  # a typo: every file under it would fail to open
        raise SettingError(f"SIFT_HOME={settings.home} is not a folder: point SIFT_HOME (--home) at a folder "
                           "(it is made if missing)", "SIFT_HOME")
    if system:  # SIFT_HOME=/proc: every write failed as 'read-only', and chmod was no fix
        raise SettingError(f"SIFT_HOME={settings.home} is {system}, which holds no files of yours: point SIFT_HOME "
                           "(--home) at a folder you can write (it is made if missing)", "SIFT_HOME")
    if unmakeable:
        raise SettingError(f"SIFT_HOME={settings.home} does not exist and cannot be made: {unmakeable}; point "
                           "SIFT_HOME (--home) at a folder you can write (it is made if missing)", "SIFT_HOME")
    if settings.model and is_model_path(settings.model) and not str(settings.model).lower().endswith(".gguf") \
            and not Path(str(settings.model)).expanduser().exists():
        names = ", ".join(f"{m.name} ({', '.join(m.aliases)})" for m in _buildable())
        raise SettingError(f"SIFT_MODEL={settings.model!r} is neither a known model ({names}) nor a GGUF file"
                           + _nearest_model(str(settings.model)), "SIFT_MODEL")
    if settings.chunk_overlap >= settings.chunk_tokens:
        raise SettingError(f"SIFT_CHUNK_OVERLAP={settings.chunk_overlap} (--chunk-overlap) must be smaller than "
                           f"SIFT_CHUNK_TOKENS={settings.chunk_tokens} (--chunk-tokens), the chunk size it overlaps "
                           "(the defaults are 32 and 256)", "SIFT_CHUNK_OVERLAP", "SIFT_CHUNK_TOKENS")
    if settings.queue != "sqlite" and not settings.queue.startswith(REDIS_SCHEMES):
        raise SettingError(f"SIFT_QUEUE={settings.queue!r}: use sqlite (the default) or redis://HOST:PORT/DB",
                           "SIFT_QUEUE")
    if settings.embed_remote and settings.queue == "sqlite":
        given = (os.environ.get("SIFT_EMBED_REMOTE") or "").strip() or "1"  # the user's word: yes, true, on
        raise SettingError(f"SIFT_EMBED_REMOTE={given} needs a Redis queue that embedding machines can reach: "
                           "set SIFT_QUEUE=redis://HOST:PORT/DB", "SIFT_EMBED_REMOTE")
    for name, patterns in (("SIFT_INCLUDE", settings.include), ("SIFT_EXCLUDE", settings.exclude)):
        for pattern in patterns:
            problem = glob_problem(pattern)
            if problem:
                raise SettingError(f"{name}={','.join(patterns)!r}: {pattern!r} is not a glob: {problem}", name)
    if settings.nice > 19:
        raise SettingError(f"SIFT_NICE={settings.nice} must be at most 19, the lowest CPU priority (the default "
                           "is 10; 0 keeps the priority the worker was started with)", "SIFT_NICE")
    if settings.periodic_seconds > 60:  # workers.app.MODEL_AT_WORK counts on a periodic job at least every minute
        raise SettingError(f"SIFT_PERIODIC_SECONDS={settings.periodic_seconds:g} must be at most 60: the worker's "
                           "periodic task (the lost-job check, the rescan) runs at least every minute (the default)",
                           "SIFT_PERIODIC_SECONDS")
    if settings.retry_delay < 0:  # SIFT_RETRIES is refused below 0 as it is read
        raise SettingError(f"SIFT_RETRY_DELAY={settings.retry_delay:g} must not be negative: give the seconds "
                           "before the first retry (the default is 2)", "SIFT_RETRY_DELAY")
    return settings


def home_unmakeable(home: Path) -> str | None:
    """Why a home that is not there could never be made, or None: the nearest folder above it that exists is a
    file, or one this user cannot write in. `ingest enqueue` said 'the index at /opt/sift/index.db is read-only
    (cannot create /opt/sift: Permission denied): make /opt/sift … writable (chmod u+w)', of a folder not there."""
    if home.exists():
        return None
    above = home.parent
    while not above.exists() and above != above.parent:
        above = above.parent
    if not above.is_dir():
        return f"{above} is a file, not a folder"
    system = system_file_system(above)
    if system:  # root may write anywhere, so os.access said yes, and the index's open then said 'read-only'
        return f"{above} is {system}, where no folder of yours can be made"
    mount = mount_of(above)
    if mount and mount[2]:
        return f"{above} is on a file system mounted read-only ({mount[0]})"
    if not os.access(above, os.W_OK | os.X_OK):
        return f"{above} is not writable for this user"
    return None


# The kernel's own file systems: their files are the kernel's view of itself, and no folder can be made in them
SYSTEM_FILE_SYSTEMS = frozenset({"proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "securityfs", "debugfs",
                                 "tracefs", "pstore", "bpf", "configfs", "efivarfs", "fusectl", "mqueue",
                                 "binfmt_misc", "hugetlbfs", "nsfs", "autofs"})
MOUNTS = Path("/proc/self/mounts")


def mount_of(path: Path) -> tuple[str, str, bool] | None:
    """(mount point, file system type, mounted read-only) of the mount that holds ``path``, from
    /proc/self/mounts; None where that cannot be read (not Linux)."""
    try:
        lines = MOUNTS.read_text(errors="replace").splitlines()
    except OSError:
        return None
    real = os.path.realpath(path)
    found = None
    for line in lines:  # the last mount of the longest point above the path is the one that holds it
        fields = line.split()
        if len(fields) < 4:
            continue
        point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[1])  # '\040': a space
        if real == point or real.startswith(point.rstrip("/") + "/"):
            if found is None or len(point) >= len(found[0]):
                found = (point, fields[2], "ro" in fields[3].split(","))
    return found


def system_file_system(path: Path) -> str | None:
    """'the kernel's proc file system (/proc)' when ``path`` lies on one of SYSTEM_FILE_SYSTEMS, else None."""
    mount = mount_of(path)
    if mount and mount[1] in SYSTEM_FILE_SYSTEMS:
        return f"on the kernel's {mount[1]} file system ({mount[0]})"
    return None


def glob_problem(pattern: str) -> str | None:
    """Why ``pattern`` (one of SIFT_INCLUDE's or SIFT_EXCLUDE's, in .gitignore's syntax) cannot be a glob, or
    None. SIFT_INCLUDE='[' matched no file, without a word: a scan indexed nothing and stats said '0 files seen'."""
    import pathspec
    body = pattern[1:] if pattern.startswith("!") else pattern
    at, opened = 0, None
    while at < len(body):  # a '[' that is never closed: git's matching takes it as matching nothing at all
        char = body[at]
        if char == "\\":
            at += 2
            continue
        if opened is None and char == "[":
            opened, at = at, at + 2 if body[at + 1:at + 2] in ("!", "^") else at + 1
            at += 1 if body[at:at + 1] == "]" else 0  # '[]a]' holds ']'
            continue
        if opened is not None and char == "]":
            opened = None
        at += 1
    if opened is not None:
        return ("the '[' that opens a set of characters (as in '*.[mM]d') is never closed with ']', so it matches "
                "no file; write '\\[' for the character itself")
    try:
        pathspec.GitIgnoreSpec.from_lines([pattern])
    except Exception as exc:  # noqa: BLE001 - pathspec raises its own error, re.error for '[z-a]' and the like
        return f"{exc}"
    return None
