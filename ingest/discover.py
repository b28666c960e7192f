"""Walk a collection's root: which files are there, honouring ignore rules.

Ignored: Sift's own home where it lies inside the root (``own_entries``), hidden folders and the default list
below, every ``.gitignore`` on the way down (scoped to its folder, as git does), exclude globs from settings;
when include globs are given, only files matching one of them. Symbolic links to folders are not
followed (no loops), and are reported as refused with the reason, so that stats and list_files show them
as skipped instead of them vanishing; a symlinked file counts only if it resolves inside the root.
Symlinked files that are refused (a loop, a target outside the root or missing) are reported likewise, and
so are named pipes, sockets and devices named like files Sift reads (never opened: a pipe would block).
So is a folder that cannot be listed (no permission): what is in it is unknown, not gone, and the caller
keeps the files it indexed there (``unreadable``). Files the rules let through but of a kind Sift does not
read (.docx, .png …) are counted per extension (``unread``), so that a user is told they are not searchable.
"""
from __future__ import annotations

import errno
import functools
import os
import shlex
import stat
import string
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from ingest.code_languages import SHEBANG_BYTES
from ingest.kinds import CONFIG_EXTENSIONS, PAGE_EXTENSIONS, kind_of, kind_of_script, suffix
from ingest.links import PAGES, converted_pdfs, knitted_pages

# Vendored dependencies: other projects' code copied into a repository, as node_modules/ is (Go's and Composer's
# vendor/, a third_party/ tree, pip's _vendor/). Indexed, huey, pypdf and mcp copied into third_party/ and a Go vendor/
# were 5,317 of a monorepo's 6,722 passages to embed, and outranked the project's own code (pypdf's errors came first
# for 'where is the Invoice model defined'; bench/monorepo.py). SIFT_EXCLUDE='!vendor/' brings one back.
# Only where the collection looks like code, though (``vendored_code``): a consultant's notes on suppliers in a
# vendor/ folder (vendor/acme.md) were left out as vendored code, said nowhere.
VENDORED_FOLDERS = ["vendor/", "third_party/", "third-party/", "_vendor/"]
# A project's build or package file: beside a vendored folder, or at the collection's root, it says the folder is
# that project's dependencies.
PROJECT_MARKERS = ("go.mod", "composer.json", "Gemfile", "package.json", "Cargo.toml", "pyproject.toml", "setup.py",
                   "requirements.txt", "pom.xml", "build.gradle", "build.gradle.kts", "CMakeLists.txt", "Makefile",
                   "meson.build", "WORKSPACE", "MODULE.bazel", "BUILD.bazel", "mix.exs", "Package.swift",
                   "pubspec.yaml", "deno.json", "Podfile", "Cartfile", "conanfile.txt", "vcpkg.json")
# Files of kind code that a folder of notes holds as well (a page saved, a data export): no sign of a program.
NOT_PROGRAMS = {".json", ".jsonl", ".yaml", ".yml", ".toml", ".html", ".htm", ".xhtml", ".css", ".sql", ".svg",
                *CONFIG_EXTENSIONS}
VENDORED_LOOK = 500  # entries of a vendored folder looked at for a code file, at most

DEFAULT_IGNORES = [
    # Hidden folders hold tools' state, caches and secrets, not notes: a home folder's .rustup, .pyenv, .cargo,
    # .npm and .m2 were 116,731 files (1.4 GB of toolchain sources and docs) on this machine, and .ssh, .aws,
    # .docker and .config hold keys and tokens. SIFT_EXCLUDE='!.github/' brings one back. Hidden files stay.
    ".*/",
    ".git/", ".hg/", ".svn/", "node_modules/", ".venv/", "venv/", "env/", ".env/",
    "__pycache__/", ".mypy_cache/", ".pytest_cache/", ".ruff_cache/", ".tox/", ".nox/",
    ".hypothesis/", "build/", "dist/", "target/", "out/", ".next/", ".nuxt/", ".cache/",
    ".idea/", ".vscode/", ".obsidian/", ".trash/", ".Trash/", "*.egg-info/",
    "*.download/",  # Safari's download not finished: a folder of the partial file and an Info.plist
    # Logseq's copies of its pages (a page changed on disk as it was open, an older version synced): each was a
    # page again in a search, above the page itself (logseq/.recycle is hidden)
    "**/logseq/bak/", "**/logseq/version-files/",
    # installed packages, outside any virtualenv: a conda or system Python's, the Go module cache, bower's
    "site-packages/", "dist-packages/", "__pypackages__/", "**/go/pkg/mod/", "bower_components/",
    *VENDORED_FOLDERS,
]
# What editors and sync tools write beside a note for a moment while saving or syncing it: never a note, and each
# counted as a file of a kind Sift does not read (stats: '.vsctmp 1') and, coming and going, asked for a scan. The
# names above (Vim's .swp and backup~, Emacs' #autosave# and .#lock, Syncthing's .syncthing.*.tmp and
# ~syncthing~*.tmp) were there already; these were not.
EDITOR_AND_SYNC_TEMP = [
    "*.vsctmp",  # VS Code's atomic save: written, then renamed over the note
    "*.crswap",  # Chrome's and VS Code for the web's File System Access API swap file
    "*___jb_tmp___", "*___jb_old___",  # JetBrains' safe write
    "*.icloud",  # iCloud Drive's placeholder of a file not downloaded ('.note.md.icloud'): see PLACEHOLDERS
    "*.nextcloud", "*.owncloud",  # Nextcloud's and ownCloud's virtual file ('note.md.nextcloud'), likewise
    ".~lock.*#",  # LibreOffice's lock file
    "*.sb-????????-??????",  # macOS' safe save of a sandboxed app ('note.md.sb-2a7c1f5e-Vx3kqP'), renamed over the note
    # A download not finished, renamed to its own name once done: each was counted as a file Sift does not read
    # ('.crdownload 1') and, coming, asked for a scan of its own. (Syncthing's match '*.tmp', in TEMP_FILES.)
    "*.crdownload",  # Chrome's and Edge's ('report.pdf.crdownload', 'Unconfirmed 123456.crdownload')
    "*.part",  # Firefox's (beside an empty file of the final name, which the rename replaces)
    "*.partial",  # older Edge's and Internet Explorer's
    "*.download",  # a file so named by other browsers; Safari's is a folder (DEFAULT_IGNORES)
    "*.!sync",  # Resilio Sync's file being received
    "~$*",  # Word's (and Excel's, PowerPoint's) owner file beside an open document: '~$report.docx', 162 bytes: no document
]
# Names of files, matched against a file's own name only (Rules.ignored). Vim's probe, made and removed at each save
# to learn whether the folder can be written, is a file '4913' alone: as an ignore pattern '4913' left out a folder
# of that name, a ticket's or a client's number, and every note in it; so did '*.tmp' a folder 'Exports.tmp', '*~' one
# 'old~', '*.icloud' one 'Photos.icloud', unsaid. ('#*#' unescaped is a .gitignore comment: it matched nothing.)
# What Windows and macOS write into a folder for its icon and thumbnails, which sync tools carry to every machine:
# 'desktop.ini' in a OneDrive or Google Drive folder, macOS' 'Icon\r' (Dropbox's folders), 'Thumbs.db'. Each was
# counted as a file Sift does not read ('(no extension) 1, .db 1, .ini 1'), and while stats counted such files every
# watcher's scan of a folder walked the whole collection (workers.tasks._scope).
FOLDER_METADATA = ["desktop.ini", "Desktop.ini", "Thumbs.db", "ehthumbs.db",
                   "Icon[\r]"]  # [\r]: a pattern's line ending is stripped, and a note named Icon was left out
TEMP_FILES = [".DS_Store", "*.swp", "*.swo", "*~", r"\#*#", ".#*", "*.tmp", "4913", *EDITOR_AND_SYNC_TEMP,
              *FOLDER_METADATA]
# A sync client's placeholder of a file it has not downloaded, or has freed to save space (iCloud's 'Optimise Mac
# Storage', Nextcloud's and ownCloud's virtual files): (prefix, suffix) around the name of the file it stands for.
# The note is in the person's vault, only not on this disk: the scan keeps the version indexed before
# (workers.tasks), where it deleted it from the index as if the note had been deleted; the watcher takes a
# placeholder's event for its note's, so a note deleted on the phone (its placeholder goes) is deleted here too.
PLACEHOLDERS = ((".", ".icloud"), ("", ".nextcloud"), ("", ".owncloud"))
PLACEHOLDER_ENDINGS = tuple(ending for _, ending in PLACEHOLDERS)  # a walk's first test of each name: one call


def placeholder_for(rel: str) -> str | None:
    """The path of the file that ``rel`` is a sync client's placeholder of (PLACEHOLDERS), or None."""
    folder, slash, name = rel.rpartition("/")
    for prefix, ending in PLACEHOLDERS:
        if name.startswith(prefix) and name.endswith(ending) and len(name) > len(prefix) + len(ending):
            return folder + slash + name[len(prefix):-len(ending)]
    return None


def placeholders_of(rel: str) -> list[str]:
    """The paths a sync client's placeholder of the file ``rel`` would have (PLACEHOLDERS)."""
    folder, slash, name = rel.rpartition("/")
    return [folder + slash + prefix + name + ending for prefix, ending in PLACEHOLDERS]


def not_downloaded(root: Path | str, rel: str) -> bool:
    """Whether a placeholder stands on disk for the file ``rel`` (it is in the cloud, not on this disk)."""
    return any(os.path.lexists(os.path.join(root, path)) for path in placeholders_of(rel))


# A cloud-only file that keeps the note's own name, its bytes left in the cloud until something reads it: macOS'
# File Provider marks it dataless in st_flags (iCloud Drive, Dropbox, Google Drive, OneDrive on a Mac), Windows'
# cloud files in st_file_attributes (OneDrive's Files On-Demand: recalled on open or on data access; offline). Its
# name and stat are the note's, so a scan that read it (to hash it, to parse it) made the system download it: a
# first build of a folder of cloud-only notes downloaded every one. Linux has neither field.
SF_DATALESS = 0x40000000
FILE_ATTRIBUTE_OFFLINE = 0x1000
FILE_ATTRIBUTE_RECALL_ON_OPEN = 0x40000
FILE_ATTRIBUTE_RECALL_ON_DATA_ACCESS = 0x400000
CLOUD_ONLY_ATTRIBUTES = FILE_ATTRIBUTE_OFFLINE | FILE_ATTRIBUTE_RECALL_ON_OPEN | FILE_ATTRIBUTE_RECALL_ON_DATA_ACCESS
# why a scan does not read such a file the index holds no version of (one it holds is kept as indexed)
CLOUD_ONLY = ("not downloaded to this disk (a cloud-only file: reading it would make the sync client download "
              "it): read once it is downloaded")


# A browser's download under way shows an empty file of the final name beside the partial one (Firefox:
# 'report.pdf' and 'report.pdf.part'), until the finished download is renamed over it: read, it was an empty note
# (an empty PDF failed 'unreadable PDF: an empty file'). Such an empty file is skipped while a partial one stands
# beside it; the rename is a change of the file, read then. An empty file alone is read (and fails) as before.
DOWNLOAD_ENDINGS = (".part", ".crdownload", ".download")  # Firefox's; Chrome's and Edge's; Safari's folder
DOWNLOADING = "a download under way ({}): read once it is done"


def download_beside(path: Path | str, info) -> str | None:
    """The partial download beside the empty file at ``path`` (its name and one of DOWNLOAD_ENDINGS), or None:
    asked of an empty file alone, so a walk stats nothing more for other files."""
    if info.st_size:
        return None
    for ending in DOWNLOAD_ENDINGS:
        if os.path.lexists(f"{path}{ending}"):
            return os.path.basename(f"{path}{ending}")
    return None


def cloud_only(info) -> bool:
    """Whether ``info`` (an ``os.stat_result``) is of a cloud-only file, by the platform's flag (see SF_DATALESS)."""
    return bool((getattr(info, "st_flags", 0) or 0) & SF_DATALESS
                or (getattr(info, "st_file_attributes", 0) or 0) & CLOUD_ONLY_ATTRIBUTES)


def away(root: Path | str, rel: str) -> bool:
    """Whether the file ``rel`` is not downloaded on this machine: gone with a sync client's placeholder standing for
    it (``not_downloaded``), or there but cloud-only (``cloud_only``). Search and list_files mark such a file."""
    try:
        return cloud_only(os.stat(os.path.join(root, rel)))
    except OSError:
        return not_downloaded(root, rel)
    except ValueError:  # a NUL in a path given
        return False


@dataclass(frozen=True)
class FoundFile:
    path: str  # relative to the root, '/' separated
    kind: str
    size: int
    mtime: float
    ctime: float = 0.0  # a chmod changes only this: what a remembered outcome is checked against
    attachment: str | None = None  # of a note: the same-stem PDF beside it, which the note stands for


@dataclass
class Rules:
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    # Sift's home (SIFT_HOME, set from --home in every entry point), left out of every collection it lies in
    home: str | None = field(default_factory=lambda: own_home())

    def __post_init__(self):
        self._own: dict[str, tuple[str, ...]] = {}  # a root → what of Sift's home lies in it (own_entries)
        self._own_last: tuple = (None, ())  # the root asked last, and its entries
        import pathspec  # here and in _gitignore: sift-mcp starts without it
        self._ignore = pathspec.GitIgnoreSpec.from_lines(map(matchable, DEFAULT_IGNORES + list(self.exclude)))
        self._temp = pathspec.PathSpec.from_lines("gitignore", map(matchable, TEMP_FILES))
        self._plain = pathspec.GitIgnoreSpec.from_lines(map(matchable, [p for p in DEFAULT_IGNORES if p not in
                                                                        VENDORED_FOLDERS] + list(self.exclude)))
        # The include globs pick files, and the last that matches a file decides, whether it names the file or a
        # folder above it: SIFT_INCLUDE='*.md,!deep/' is the Markdown outside deep/. Read as a .gitignore (a
        # folder's pattern never undoes a file's: git re-includes the folder, not the files in it), it left
        # deep/c.md in.
        self._include = pathspec.PathSpec.from_lines("gitignore", map(matchable, self.include)) \
            if self.include else None

    def ignored(self, rel: str, is_dir: bool) -> bool:
        return self._temp_file(rel, is_dir) or self._ignore.match_file(matchable(rel + "/" if is_dir else rel))

    def _temp_file(self, rel: str, is_dir: bool) -> bool:
        """An editor's or sync tool's temp file (TEMP_FILES), by the file's own name."""
        return not is_dir and self._temp.match_file(matchable(rel.rsplit("/", 1)[-1]))

    def left_out(self, root: Path | str, rel: str, is_dir: bool) -> bool:
        """``ignored``, but for a vendored folder (VENDORED_FOLDERS), and what is in it, where the collection does
        not look like code (``vendored_code``): a folder of notes named vendor/ is read. Sift's own home, and
        what is in it, is left out too (``own``)."""
        if self.own(root, rel):
            return True
        if not self.ignored(rel, is_dir):
            return False
        if self._temp_file(rel, is_dir) or self._plain.match_file(matchable(rel + "/" if is_dir else rel)):
            return True  # left out for another reason too
        folder = vendored_folder(rel, is_dir)
        return folder is None or _vendored_code_lately(str(root), folder) is not None

    def own(self, root: Path | str, rel: str) -> bool:
        """Whether ``rel`` under ``root`` is Sift's home or one of its files (``own_entries``)."""
        last_root, entries = self._own_last  # one attribute, read at once: another thread may ask of another root
        if root is not last_root:  # the walk asks with one root object for every entry: no pathlib call a file
            key = str(root)
            entries = self._own.get(key)
            if entries is None:
                entries = self._own[key] = own_entries(root, self.home)
            self._own_last = (root, entries)
        return any(not entry or rel == entry or rel.startswith(entry + "/") for entry in entries)

    def excluded(self, rel: str, is_dir: bool) -> bool:
        """Whether what leaves ``rel`` out is one of the exclude globs (SIFT_EXCLUDE), not the built-in list."""
        index = self._ignore.check_file(matchable(rel + "/" if is_dir else rel)).index
        return index is not None and index >= len(DEFAULT_IGNORES)

    def included(self, rel: str) -> bool:
        return self._include is None or self._include.match_file(matchable(rel))


def vendored_folder(rel: str, is_dir: bool) -> str | None:
    """The outermost folder named as a vendored one (VENDORED_FOLDERS) that ``rel`` is or is in, or None."""
    parts = rel.split("/")
    for i, part in enumerate(parts if is_dir else parts[:-1]):
        if f"{part}/" in VENDORED_FOLDERS:
            return "/".join(parts[:i + 1])
    return None


_judged: dict[tuple[str, str], tuple[float, str | None]] = {}  # (root, folder): (when, vendored_code's answer)
JUDGED_SECONDS = 10.0  # how long an answer stands: a walk asks it of every file inside a folder of notes


def _vendored_code_lately(root: str, folder: str) -> str | None:
    """``vendored_code``, answered once for a walk (or a watcher's burst of events), not for each file inside."""
    now = time.monotonic()
    known = _judged.get((root, folder))
    if known is None or now - known[0] > JUDGED_SECONDS:
        if len(_judged) > 1000:
            _judged.clear()
        known = _judged[(root, folder)] = (now, vendored_code(root, folder))
    return known[1]


def vendored_code(root: Path | str, folder: str) -> str | None:
    """Why the vendored-named ``folder`` (relative to ``root``) is taken for other projects' code, on two signs or
    one strong one: a project's build or package file beside it or at the root ('go.mod at the collection's root')
    and a program's file inside it, or nothing but folders among the entries looked at (a Go vendor/ of many
    modules); or, with no such file, programs as many as its other files at least ('a code file in it: …'); None when
    nothing says so (a folder of notes). Inside, its first VENDORED_LOOK entries are looked at, breadth first. One
    sign alone was taken: a notes vault's Makefile (its notes made into PDFs) or one script among the notes of its
    vendor/ left every note of it out."""
    marker = _project_marker(Path(root), folder)
    programs, others, first = _programs_in(Path(root), folder)
    if marker is not None and (programs or not others):
        return marker
    if programs and programs >= others:
        return f"a code file in it: {first}" if programs == 1 else \
            f"{programs} code files of its {programs + others} files looked at: {first} …"
    return None


def _project_marker(root: Path, folder: str) -> str | None:
    """A project's build or package file beside ``folder`` or at the root, and where ('go.mod beside it')."""
    parent = folder.rpartition("/")[0]
    for where, said in ((parent, "beside it"), ("", "at the collection's root")):
        for marker in PROJECT_MARKERS:
            if os.path.isfile(root / where / marker):
                return f"{marker} {said}"
        if where == "":
            break
    return None


def _programs_in(root: Path, folder: str) -> tuple[int, int, str]:
    """(programs, other files, the first program's path in ``folder``) among its first VENDORED_LOOK entries."""
    folders, seen, programs, others, first = [folder], 0, 0, 0, ""
    while folders and seen < VENDORED_LOOK:
        current = folders.pop(0)
        try:
            entries = sorted(os.scandir(root / current), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries[:VENDORED_LOOK - seen]:
            seen += 1
            try:
                if entry.is_dir(follow_symlinks=False):
                    folders.append(f"{current}/{entry.name}")
                elif kind_of(entry.name) == "code" and suffix(entry.name).lower() not in NOT_PROGRAMS:
                    programs += 1
                    first = first or f"{current[len(folder) + 1:]}/{entry.name}".lstrip("/")
                elif not entry.name.startswith("."):
                    others += 1
            except OSError:
                continue
    return programs, others, first


# What Sift keeps in its home (search.settings, search.index.db, space, ingest.attachment_cache,
# mcp_server.http_settings): left out of a collection whose root is the home itself.
# worker.log: scripts/demo's worker writes its log in the home; a .log is read as text, and a home that is the root
# would have read it again at each line the worker wrote
HOME_FILES = ("index.db", "queue.db", "models", "cache", "space-reserve", "http-token", "worker.log")
HOME_FILE_ENDINGS = ("-wal", "-shm", "-journal", "-wal-of")


def own_home() -> str | None:
    """Sift's home as this process uses it: SIFT_HOME (every entry point puts --home there), or ~/.sift."""
    home = os.environ.get("SIFT_HOME") or os.path.join("~", ".sift")
    try:
        return os.path.realpath(os.path.expanduser(home))
    except (OSError, RuntimeError):  # no home folder to expand ~ in: nothing of Sift's can be told apart
        return None


def own_entries(root: Path | str, home: str | None) -> tuple[str, ...]:
    """What of Sift's ``home`` lies under ``root``, relative to it: the home folder whole when it is inside the
    root (``--home ~/notes/sift``, or ~/.sift while ~ is indexed); Sift's own files (HOME_FILES, with SQLite's
    -wal, -shm and -journal beside them) when the root is the home itself; all of it ('') for a root inside one
    of them (models/, cache/). Another root inside the home is read as any folder: none of Sift's files are in
    it. Before, its index, queue and models were counted as files Sift does not read, and each -wal or -shm that
    came made the watcher queue a scan."""
    if not home:
        return ()
    real_root = os.path.realpath(root)
    if real_root == home:
        return tuple(name + ending for name in HOME_FILES for ending in ("", *HOME_FILE_ENDINGS))
    if home.startswith(real_root.rstrip(os.sep) + os.sep):
        return (os.path.relpath(home, real_root).replace(os.sep, "/"),)
    if any(real_root == os.path.join(home, name) or real_root.startswith(os.path.join(home, name) + os.sep)
           for name in HOME_FILES):
        return ("",)  # a root inside the home's models/ or cache/: all of it is Sift's
    return ()


def home_note(root: Path | str) -> str | None:
    """What registering ``root`` says of Sift's home in it (``own_entries``), or None when none of it is there."""
    home = own_home()
    entries = own_entries(root, home)
    if not entries:
        return None
    if entries == ("",):
        return f"{root} is inside Sift's home ({home}), in a folder of Sift's own: nothing in it will be indexed"
    if len(entries) == 1:
        return f"Sift's home ({home}) lies inside {root}: it is left out of the collection (its index, queue, models)"
    return (f"{root} is Sift's home: its own files (index.db, queue.db, models/ …) are left out of the collection, "
            "the rest is read")


def matchable(rel: str) -> str:
    """``rel`` as RE2 can take it: a name that is not UTF-8 reaches Python with lone surrogates, which RE2
    (pathspec's backend) cannot encode; they become U+FFFD, as the .gitignore's own bad bytes do."""
    if rel.isascii():
        return rel
    return rel.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


GITIGNORE_BYTES = 1024 * 1024  # read of a .gitignore: a longer one is no list of patterns
UNREADABLE = "folder cannot be read ({}): the files indexed under it are kept as they were"


def walk(root: Path | str, rules: Rules | None = None, refused: dict[str, str] | None = None,
         unreadable: list[str] | None = None, unread: Counter | None = None,
         placeholders: list[str] | None = None) -> list[FoundFile]:
    """Every indexable file under ``root``, sorted by path. ``refused``, if given, receives the symlinked
    files and folders that are not followed and the folders that cannot be read: path → reason (the root
    is '.'). ``unreadable``, if given, receives the folders that cannot be read as path prefixes
    ('private/'; '' for the root). ``unread``, if given, counts per extension ('.docx', NO_EXTENSION) the
    files that would be indexed if Sift read their kind, under NOT_INCLUDED those of kinds it reads that
    the include globs leave out, and, when no file is found, what SIFT_EXCLUDE and each .gitignore left out
    (LEFT_OUT, FOLDERS_LEFT_OUT). ``placeholders``, if given, receives the paths of the sync clients' placeholders
    passed (PLACEHOLDERS), which are no files to index: a freed note moved is found by them (ingest.freed_moves)."""
    root = Path(root)
    real_root = root.resolve()
    if not real_root.is_dir():
        raise FileNotFoundError(f"collection root is not a folder: {root}")
    _judged.clear()  # judged afresh by each walk: one right after a go.mod was added had the answer of before
    rules = rules or Rules()
    found: list[FoundFile] = []
    refused = {} if refused is None else refused
    unreadable = [] if unreadable is None else unreadable
    unread = Counter() if unread is None else unread
    folders = [(real_root, "", [])]  # to walk: a stack, not recursion, so any depth of folders is walked
    while folders:
        folders += _walk_dir(*folders.pop(), rules, real_root, found, refused, unreadable, unread, placeholders)
    _without_left_out(unread, found)
    attached = converted_pdfs({f.path for f in found})  # their notes stand for them
    converted = set(attached.values()) | knitted_pages({f.path for f in found})  # a knitted report's page
    found = [replace(f, attachment=attached[f.path]) if f.path in attached else f
             for f in found if f.path not in converted]
    found.sort(key=lambda f: f.path)
    return found


def not_a_folder(given: str, real: Path | str) -> str:
    """Why the root ``given`` (``real`` once resolved) cannot be a collection's: 'not a folder' alone was said of
    a path that does not exist and of a note given for its folder alike."""
    real = Path(real)
    if not real.exists():
        return f"{given} does not exist{_near_miss(real)}"
    if real.is_file():
        return f"{given} is a file: give the folder that holds the notes (this file's: {shlex.quote(str(real.parent))})"
    return f"{given} is neither a file nor a folder"


NEAR_MISS_SCANNED = 10_000  # entries of the parent folder looked at for the one meant, at most


def _near_miss(real: Path) -> str:
    """' (did you mean /home/me/notes?)': the folder beside a missing one whose name differs only in case or by
    a slip of the keyboard. '--root ~/Notes' in a client's configuration said only that it did not exist."""
    import difflib
    import itertools
    try:
        with os.scandir(real.parent) as entries:
            names = [e.name for e in itertools.islice(entries, NEAR_MISS_SCANNED)
                     if not e.name.startswith(".") and e.is_dir()]
    except OSError:  # its parent is missing too, or not readable: nothing to offer
        return ""
    close = [n for n in names if n.casefold() == real.name.casefold()] or \
        difflib.get_close_matches(real.name, names, n=1, cutoff=0.75)
    return f" (did you mean {real.parent / close[0]}?)" if close else ""


def folder_left_out(root: Path | str, rel: str, rules: Rules | None = None) -> bool:
    """Whether a scan of ``root`` leaves out the folder ``rel`` ('/'-separated) and all under it: a hidden or
    ignored folder on the way down (the ignore list, SIFT_EXCLUDE, every .gitignore)."""
    rules = rules or Rules()
    gitignores, folder = [], ""
    for part in rel.split("/"):
        gitignores += _gitignore(Path(root) / folder, folder)
        child = folder + part
        if rules.left_out(root, child, True) or _git_ignored(gitignores, child, True):
            return True
        folder = child + "/"
    return False


def rules_of(include: tuple[str, ...], exclude: tuple[str, ...]) -> Rules:
    """The Rules of these globs, made once: the built-in list and the globs are compiled anew for each Rules."""
    return _rules_of(include, exclude, own_home())


@functools.lru_cache(maxsize=8)
def _rules_of(include: tuple[str, ...], exclude: tuple[str, ...], home: str | None) -> Rules:
    return Rules(include, exclude, home)


def left_out_by(settings):
    """``folder_left_out`` with the ignore rules of ``settings`` (SIFT_INCLUDE, SIFT_EXCLUDE), as
    search.index.names.nesting takes it."""
    rules = Rules(settings.include, settings.exclude)
    return lambda root, rel: folder_left_out(root, rel, rules)


def why_not_indexed(root: Path | str, rel: str, rules: Rules | None = None) -> str | None:
    """Why a scan of ``root`` would leave out the file ``rel`` ('/'-separated, inside root), or None if it
    would index it: the ignore list and exclude globs, every .gitignore on the way down, the include globs
    and the kinds of file Sift reads, as ``walk`` applies them."""
    rules = rules or Rules()
    parts = rel.split("/")
    gitignores, folder = [], ""
    for depth, part in enumerate(parts):
        gitignores += _gitignore(Path(root) / folder, folder)
        child, is_dir = folder + part, depth < len(parts) - 1
        shown = child + "/" if is_dir else child
        if rules.own(root, child):
            return f"{shown} is Sift's own (its home, SIFT_HOME: the index, the queue, the models), never indexed"
        if rules.left_out(root, child, is_dir):
            if is_dir and part.startswith(".") and f"{part}/" not in DEFAULT_IGNORES:
                return (f"{shown} is a hidden folder: hidden folders are skipped (tools' state, caches and keys); "
                        f"SIFT_EXCLUDE='!{part}/' indexes it")
            if is_dir and f"{part}/" in VENDORED_FOLDERS and not rules.excluded(child, is_dir):
                return (f"{shown} holds vendored dependencies (other projects' code, by {vendored_code(root, child)}), "
                        f"left out as node_modules/ is; SIFT_EXCLUDE='!{part}/' indexes it")
            return f"{shown} is in the ignore list (built-in or SIFT_EXCLUDE)"
        base = _gitignored_by(gitignores, child, is_dir)
        if base is not None:
            return f"{shown} is ignored by {base}.gitignore"
        folder = child + "/"
    if kind_on_disk(Path(root) / rel, rel) is None:
        return "a kind Sift does not read: it reads notes, text, code and PDFs"
    if not rules.included(rel):
        return "not matched by SIFT_INCLUDE"
    return None


def _walk_dir(folder: Path, rel: str, gitignores, rules: Rules, real_root: Path, found, refused, unreadable,
              unread: Counter, placeholders: list[str] | None = None):
    """Add the folder's files to ``found``; returns its subfolders to walk, as (folder, rel, gitignores)."""
    gitignores = gitignores + _gitignore(folder, rel)
    subfolders = []
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:  # nothing under it can be indexed now, and nothing under it is known to be gone
        refused[rel.rstrip("/") or "."] = UNREADABLE.format(exc.strerror or exc)
        unreadable.append(rel)
        return subfolders
    for entry in entries:
        if placeholders is not None and entry.name.endswith(PLACEHOLDER_ENDINGS) and placeholder_for(entry.name):
            placeholders.append(f"{rel}{entry.name}")
        subfolder = _take(entry, f"{rel}{entry.name}", gitignores, rules, real_root, found, refused, unread)
        if subfolder:
            subfolders.append(subfolder)
    return subfolders


def _take(entry, child: str, gitignores, rules: Rules, real_root: Path, found, refused, unread: Counter):
    """Add the entry ``child`` to ``found`` (or ``refused``, ``unread``) as the walk sees it; a folder to walk
    is returned as (folder, rel, gitignores), anything else gives None."""
    try:
        is_dir = entry.is_dir(follow_symlinks=False)
        is_link = entry.is_symlink()
    except OSError:
        return None
    if rules.left_out(real_root, child, is_dir):
        if rules.excluded(child, is_dir):
            _count_left_out(entry, child, is_dir, is_link, EXCLUDE_SETTING, unread)
        return None
    base = _gitignored_by(gitignores, child, is_dir)
    if base is not None:
        _count_left_out(entry, child, is_dir, is_link, f"{base}.gitignore", unread)
        return None
    if is_dir:
        return (Path(entry.path), child + "/", gitignores)
    if is_link and _links_to_folder(entry):
        if not rules.left_out(real_root, child, True) and not _git_ignored(gitignores, child, True):
            refused[child] = _refused_folder(Path(entry.path), real_root)
        return None
    # a link's kind is its name's: a script is found where it lies, its target is not read to be sniffed
    included = rules.included(child)
    kind = kind_on_disk(entry.path, child) if included and not is_link else kind_of(child)
    if kind is None:
        _count_unread(entry, child, is_link, rules, unread)
        return None
    if not included:
        if not is_link and not entry.name.startswith("."):
            unread[NOT_INCLUDED] += 1  # told when SIFT_INCLUDE leaves out every file: '0 files seen' said nothing
        return None
    file = _found_file(entry, child, kind, is_link, rules, real_root, refused)
    if file:
        found.append(file)
    return None


def walk_paths(root: Path | str, paths, rules: Rules | None = None, refused: dict[str, str] | None = None,
               unreadable: list[str] | None = None, unread: Counter | None = None,
               placeholders: list[str] | None = None) -> list[FoundFile]:
    """What ``walk`` finds at ``paths`` (relative, '/'-separated) and nowhere else: a file is taken as the walk
    would take it in its folder, a folder is walked whole, a path that is gone gives nothing. Only the named
    paths are stat'ed or opened (and the .gitignore of each folder on the way down): a save in a collection of
    200,000 notes costs the files saved, not a walk of all of them. ``refused``, ``unreadable`` and ``unread``
    receive what the walk would put there from those paths, and ``placeholders`` too. A same-stem note and PDF are
    paired as ``walk`` pairs them when both are among ``paths`` (``with_partners`` adds them)."""
    real_root = Path(root).resolve()
    _judged.clear()  # judged afresh by each walk: one right after a go.mod was added had the answer of before
    rules = rules or Rules()
    refused = {} if refused is None else refused
    unreadable = [] if unreadable is None else unreadable
    unread = Counter() if unread is None else unread
    found: list[FoundFile] = []
    chains: dict[str, list | None] = {"": _gitignore(real_root, "")}
    folders = []
    named = set(paths)
    for rel in sorted(named):
        parent, _, name = rel.rpartition("/")
        if _within(parent, named):
            continue  # a folder named too is walked whole: taken twice, a file was counted twice in 'seen'
        gitignores = _chain(real_root, parent, rules, chains)
        if gitignores is None or not name:
            continue  # under a folder the walk leaves out (or does not enter: a symlink)
        entry = _Entry(real_root / rel, name)
        if entry.exists():
            if placeholders is not None and placeholder_for(name):
                placeholders.append(rel)
            subfolder = _take(entry, rel, gitignores, rules, real_root, found, refused, unread)
            if subfolder:
                folders.append(subfolder)
    while folders:
        folders += _walk_dir(*folders.pop(), rules, real_root, found, refused, unreadable, unread, placeholders)
    _without_left_out(unread, True)  # counted by a walk alone: the published generation's are kept (workers.tasks)
    attached = converted_pdfs({f.path for f in found})
    converted = set(attached.values()) | knitted_pages({f.path for f in found})  # a knitted report's page
    found = [replace(f, attachment=attached[f.path]) if f.path in attached else f
             for f in found if f.path not in converted]
    found.sort(key=lambda f: f.path)
    return found


def _within(folder: str, named: set[str]) -> bool:
    """Whether ``folder`` or a folder above it is among ``named``."""
    while folder:
        if folder in named:
            return True
        folder = folder.rpartition("/")[0]
    return False


def _chain(real_root: Path, folder: str, rules: Rules, chains: dict):
    """The .gitignores that apply inside ``folder`` ('' for the root), as the walk gathers them on its way
    down; None when the walk never enters it (an ignored or hidden folder, a symlink, no folder)."""
    if folder in chains:
        return chains[folder]
    parent, _, name = folder.rpartition("/")
    above = _chain(real_root, parent, rules, chains)
    ok = above is not None and not rules.left_out(real_root, folder, True) and not _git_ignored(above, folder, True)
    if ok:
        try:
            ok = stat.S_ISDIR(os.lstat(real_root / folder).st_mode)
        except OSError:
            ok = False
    chains[folder] = above + _gitignore(real_root / folder, folder + "/") if ok else None
    return chains[folder]


class _Entry:
    """One path, answering what ``os.scandir``'s entries answer, for ``_take``."""

    def __init__(self, path: Path, name: str):
        self.path, self.name = str(path), name
        try:
            self._lstat = os.lstat(path)
        except OSError:
            self._lstat = None

    def exists(self) -> bool:
        return self._lstat is not None

    def is_symlink(self) -> bool:
        return stat.S_ISLNK(self._lstat.st_mode)

    def is_dir(self, follow_symlinks: bool = True) -> bool:
        return stat.S_ISDIR(self.stat(follow_symlinks).st_mode)

    def is_file(self, follow_symlinks: bool = True) -> bool:
        return stat.S_ISREG(self.stat(follow_symlinks).st_mode)

    def stat(self, follow_symlinks: bool = True) -> os.stat_result:
        return os.stat(self.path) if follow_symlinks and self.is_symlink() else self._lstat


def with_partners(root: Path | str, paths) -> set[str]:
    """``paths`` and, for each, the same-stem notes and PDFs beside it (found by listing its folder, without a
    stat): a note stands for the PDF beside it, so a PDF that comes, goes or changes changes its note (an .Rmd's or
    .qmd's for the HTML page it was knitted to as well: links.knitted_pages). A page of
    Telegram's HTML export's pages beside it too (ingest.chat.pages_to_mark_again: their headings name it)."""
    listed: dict[str, list[str]] = {}
    more = set(paths)
    for rel in paths:
        parent, _, name = rel.rpartition("/")
        if name.lower().startswith("messages"):
            from ingest.chat import telegram_pages_beside
            more.update(page for page in telegram_pages_beside(rel) if os.path.isfile(Path(root) / page))
        if kind_of(name) not in ("note", "pdf") and not name.lower().endswith(PAGES):  # PAGES: a knitted report's
            continue
        if parent not in listed:
            try:
                listed[parent] = os.listdir(Path(root) / parent) if parent else os.listdir(root)
            except OSError:
                listed[parent] = []
        stem = PurePosixPath(name).with_suffix("").as_posix()
        more.update(f"{parent}/{other}" if parent else other for other in listed[parent]
                    if other != name and (kind_of(other) in ("note", "pdf") or other.lower().endswith(PAGES))
                    and PurePosixPath(other).with_suffix("").as_posix() == stem)
    return more


PAGE_SAMPLE = 256 * 1024  # bytes of an HTML file not read yet that list_files looks at for what it will be read as


def kind_on_disk(path: Path | str, rel: str) -> str | None:
    """The kind of the file ``rel`` at ``path``: the one its name gives, else for a name without an extension
    the one its shebang line gives (a script: its first SHEBANG_BYTES bytes are read, nothing for other
    files); None when Sift does not read it."""
    kind = kind_of(rel)
    if kind is None and suffix(rel).lower() == ".zip":  # a chat export zipped under another name (ingest.chat)
        from ingest.kinds import chat_zip
        return "note" if chat_zip(rel, path) else None
    if kind is not None or suffix(rel):
        return kind
    return kind_of_script(rel, _read_small(path, SHEBANG_BYTES) or b"")


def listed_kind(path: Path | str, rel: str) -> str | None:
    """``kind_on_disk``, and for an HTML file the kind it is read as (ingest.parse.is_page on its first PAGE_SAMPLE
    bytes): 'note' for a whole page, 'code' for a fragment or a template. list_files asks it of a file the index
    holds no version of: an export's pages waiting to be read were listed as code, the kind their name gives."""
    kind = kind_on_disk(path, rel)
    if kind != "code" or suffix(rel).lower() not in PAGE_EXTENSIONS:
        return kind
    head = _read_small(Path(path), PAGE_SAMPLE)
    if not head:
        return kind
    from ingest.decode import decode
    from ingest.document import Skip
    from ingest.parse import is_page
    try:
        text = decode(head)
    except Skip:  # cut inside a character, or not text: what is there of it read as UTF-8
        text = head.decode("utf-8", "replace")
    return "note" if is_page(text) else "code"


def _found_file(entry, rel, kind, is_link, rules, real_root, refused) -> FoundFile | None:
    if is_link:
        why = _refused_link(Path(entry.path), real_root)
        if why:
            refused[rel] = why
            return None
    try:
        info = entry.stat(follow_symlinks=True)
    except (OSError, RuntimeError):
        return None
    if not stat.S_ISREG(info.st_mode):  # a named pipe would block whoever reads it: said, never read
        refused[rel] = not_a_file(info.st_mode)
        return None
    if cloud_only(info):  # its bytes are in the cloud: a version indexed is kept (workers.tasks), none is read
        refused[rel] = CLOUD_ONLY
        return None
    partial = download_beside(entry.path, info)
    if partial:  # its own bytes are still coming: kept as indexed if it was (workers.tasks), else skipped
        refused[rel] = DOWNLOADING.format(partial)
        return None
    return FoundFile(path=rel, kind=kind, size=info.st_size, mtime=info.st_mtime, ctime=info.st_ctime)


def not_a_file(mode: int) -> str:
    """Why a name Sift would read is not read: it is no regular file (it was left out without a word)."""
    what = ("a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else None)
    return f"{what}, not a regular file: not read" if what else "not a regular file: not read"


NO_EXTENSION = "(no extension)"
# counted with ``unread``, though no extension: the files of kinds Sift reads that SIFT_INCLUDE leaves out
NOT_INCLUDED = "(not matched by SIFT_INCLUDE)"
# counted with ``unread`` too, and kept only by a walk that found no file to index: what SIFT_EXCLUDE or a .gitignore
# left out, the files of kinds Sift reads and the folders (not entered), under LEFT_OUT.format(by) and
# FOLDERS_LEFT_OUT.format(by), ``by`` being EXCLUDE_SETTING or the .gitignore's path ('docs/.gitignore')
LEFT_OUT = "(left out by {})"
FOLDERS_LEFT_OUT = "(folders left out by {})"
EXCLUDE_SETTING = "SIFT_EXCLUDE"
# a name's ending that is no extension: each scan stores the counts, so one entry per unique ending would grow them
OTHER_EXTENSION = "(other endings)"
EXTENSION_CHARS = 11  # the dot and ten characters


def extension(rel: str) -> str:
    """The extension a file is counted under when Sift does not read it: '.docx', or NO_EXTENSION. Lower case,
    as ``kind_of`` reads it; a name that is not UTF-8 has each bad byte as U+FFFD, so the count can be stored
    (``matchable`` would make each three: it decodes the surrogates' own UTF-8 encoding)."""
    suffix = os.fsencode(PurePosixPath(rel).suffix.lower()).decode("utf-8", "replace")
    if not suffix:
        return NO_EXTENSION
    if len(suffix) > EXTENSION_CHARS or any(c in string.punctuation or c.isspace() for c in suffix[1:]):
        return OTHER_EXTENSION  # not an extension: Maildir's '.host,S=2345:2,S', a hash as ending
    return suffix


def _count_left_out(entry, rel: str, is_dir: bool, is_link: bool, by: str, unread: Counter) -> None:
    """Count a file of a kind Sift reads, or a folder, that SIFT_EXCLUDE or a .gitignore (``by``) leaves out:
    '0 files seen' said nothing of a .gitignore of '*.md'. From the name alone, as ``_count_unread`` counts; hidden
    names and symlinks are not counted."""
    if entry.name.startswith(".") or is_link:
        return
    if is_dir:
        unread[FOLDERS_LEFT_OUT.format(by)] += 1
    elif kind_of(rel) is not None:
        unread[LEFT_OUT.format(by)] += 1


def _without_left_out(unread: Counter, found) -> None:
    """Drop the counts of what SIFT_EXCLUDE and the .gitignores left out once a file is found: they are said only
    when no file is (a .gitignore leaving out build output is no news), and a scan of named paths could not
    count them as the walk does."""
    if found:
        for key in [k for k in unread if k.startswith(LEFT_OUT_PREFIXES)]:
            del unread[key]


LEFT_OUT_PREFIXES = (LEFT_OUT.split("{")[0], FOLDERS_LEFT_OUT.split("{")[0])


# counted with ``unread`` too: files indexed before that a scan did not find though they are still on disk, left out
# now by what follows (SIFT_EXCLUDE, SIFT_INCLUDE, else IGNORED_NOW): stats said '30 deleted' of the files
# SIFT_EXCLUDE='til/' left out, as if gone from disk (search.index.status says them apart)
LEFT_OUT_NOW = "(indexed before, left out now by {})"
IGNORED_NOW = "a .gitignore or the ignore list"


def left_out_now(root, paths: list[str], rules: Rules) -> Counter:
    """Of ``paths`` (indexed before, not found by this scan), those still on disk, counted under LEFT_OUT_NOW by
    what leaves them out. A stat each, of the files the scan takes as deleted only."""
    counts: Counter = Counter()
    if not paths or not os.path.isdir(root):  # a root gone: nothing of it is on disk
        return counts
    for rel in paths:
        if os.path.isfile(os.path.join(root, rel)):
            by = EXCLUDE_SETTING if rules.excluded(rel, False) else "SIFT_INCLUDE" if not rules.included(rel) \
                else IGNORED_NOW
            counts[LEFT_OUT_NOW.format(by)] += 1
    return counts


def _count_unread(entry, rel: str, is_link: bool, rules: Rules, unread: Counter) -> None:
    """Count a file of a kind Sift does not read, if the rules let it through. Cheap: the type comes from
    the folder listing, the file is neither read nor stat'ed. Left out: a symlinked one (following it would
    cost a stat, and a target inside the root is counted where it lies) and hidden ones (.gitignore,
    .editorconfig: settings of tools, which nobody expects to search; they would be named in every report)."""
    if is_link or entry.name.startswith(".") or not rules.included(rel):
        return
    try:
        regular = entry.is_file(follow_symlinks=False)
    except OSError:
        return
    if regular:
        unread[extension(rel)] += 1


def refused_link(root: Path | str, rel: str) -> str | None:
    """Why the walk does not follow the file ``rel`` if it is a symbolic link (``_refused_link``), else None."""
    path = Path(root) / rel
    return _refused_link(path, Path(root).resolve()) if path.is_symlink() else None


def _refused_link(path: Path, real_root: Path) -> str | None:
    """Why a symlinked file is not followed, or None if it is a file inside the root."""
    try:
        target = path.resolve(strict=True)
    except FileNotFoundError:
        return "symbolic link whose target does not exist"
    except (RuntimeError, OSError) as exc:  # RuntimeError: Python < 3.13 on a loop; OSError: ELOOP
        if isinstance(exc, RuntimeError) or getattr(exc, "errno", None) == errno.ELOOP:
            return "symbolic link loop: not followed"
        return f"symbolic link that cannot be followed: {getattr(exc, 'strerror', None) or exc}"
    if not target.is_relative_to(real_root):
        return "symbolic link to a file outside the collection root: not followed"
    if target.is_dir():
        return "symbolic link to a folder: not followed"
    return None


def _links_to_folder(entry) -> bool:
    try:
        return entry.is_dir(follow_symlinks=True)
    except OSError:
        return False


def _refused_folder(path: Path, real_root: Path) -> str:
    """Why a symlinked folder is not followed (it never is: a link back up would loop)."""
    try:
        target = path.resolve(strict=True)
    except (RuntimeError, OSError):
        return "symbolic link loop: not followed"
    if not target.is_relative_to(real_root):
        return "symbolic link to a folder outside the collection root: not followed"
    return "symbolic link to a folder: not followed (its files are indexed where they are)"


def _gitignore(folder: Path, rel: str):
    data = _read_small(folder / ".gitignore", GITIGNORE_BYTES)
    if data is None:
        return []
    import pathspec
    lines = data.decode("utf-8", errors="replace").splitlines()
    return [(rel, pathspec.GitIgnoreSpec.from_lines(lines))]


def _read_small(path: Path, most: int) -> bytes | None:
    """The first ``most`` bytes of a regular file; None for anything else. Opened without blocking and
    checked before it is read: a named pipe would block the scan, a link to /dev/zero would never end."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with open(fd, "rb", closefd=False) as handle:
            return handle.read(most)
    except OSError:
        return None
    finally:
        os.close(fd)


def _git_ignored(gitignores, child: str, is_dir: bool) -> bool:
    return _gitignored_by(gitignores, child, is_dir) is not None


def _gitignored_by(gitignores, child: str, is_dir: bool) -> str | None:
    """The folder ('' for the root) whose .gitignore ignores ``child``, or None."""
    for base, spec in gitignores:
        inner = child[len(base):]
        if spec.match_file(matchable(inner + "/" if is_dir else inner)):
            return base
    return None
