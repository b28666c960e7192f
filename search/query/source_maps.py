"""A minified bundle's stack frame read through its source map, to the source file and line it was built from.

A frame such as ``at e (dist/main.js:1:48213)`` names a column of one long machine-written line: Sift skips such a
bundle (and its build folder), so the frame found nothing. Where a collection's folder holds the bundle's map
beside it (``dist/main.js.map``: a source map of version 3, with ``sources`` and ``mappings``), the frame's line
and column are looked up in it: its ``sources`` name the file and its mappings the line, which the trace's other
frames are then searched as.

A map may be tens of megabytes, most of it the sources' own text (``sourcesContent``): it is not parsed whole but
mapped into memory and read where its keys are, its mappings decoded as a stream up to the frame's place, without
keeping them. A map over MAX_MAP_BYTES, or whose mappings before the frame are over MAX_MAPPINGS_READ, is not
read (the answer says so); nor is an index map (``sections``), which names other maps.
"""
from __future__ import annotations

import json
import mmap
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from search.query.symbols import FRAME

MAX_MAP_BYTES = 64 * 2**20
MAX_MAPPINGS_READ = 32 * 2**20  # bytes of mappings decoded to reach a frame (about 4 s of Python's time)
SOURCES_READ = 8 * 2**20  # bytes read of the map for its "sources" list, past which it is taken as unreadable
BUNDLE = re.compile(r"\.[cm]?js$", re.IGNORECASE)
# the folders a bundle served from a URL's path ('https://shop.example.com/static/js/main.3f2a1b.js') is built in
BUILD_FOLDERS = ("", "build/", "dist/", "out/", "public/")
_KEY = r'(?<!\\)"{}"\s*:\s*'  # a key of the map (in a string's text a '"' is written '\"')
MAPPINGS = re.compile(_KEY.format("mappings").encode() + rb'"')
SOURCES = re.compile(_KEY.format("sources").encode() + rb"\[")
SOURCE_ROOT = re.compile(_KEY.format("sourceRoot").encode() + rb'"(?P<root>(?:[^"\\]|\\.)*)"')
SECTIONS = re.compile(_KEY.format("sections").encode())
TOKEN = re.compile(rb'[A-Za-z0-9+/]+|[;"]')  # a segment, a line's end, the mappings' end (',' between segments)
_DIGITS = {c: i for i, c in enumerate(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}
_SCHEME = re.compile(r"^[a-z][\w+.-]*://[^/]*", re.IGNORECASE)  # 'webpack://shop', 'file://'


@dataclass
class Mapped:
    """A frame read through its map: the paths the source may be indexed at, nearest first; its line (from 1)."""
    shown: str  # the frame as the trace writes it: 'main.js:1:48213'
    map_path: str  # the map, relative to its collection's root: 'dist/main.js.map'
    source: str  # the source as the map names it, cleaned: 'src/users/profile.ts'
    candidates: list[str]
    line: int


class Refused(Exception):
    """A map that is not read: too big, an index map, or not one Sift can read; str() says why."""


def columns(query: str) -> dict[tuple[str, int], int]:
    """{(a frame's path as ``symbols.frames`` gives it, its line): its column} of the frames that write one."""
    return {(m.group("path").replace("\\", "/"), int(m.group("at"))): int(m.group("column"))
            for m in FRAME.finditer(query) if m.group("path") and m.group("column")}


def find_map(roots: list[tuple[str, str]], path: str) -> tuple[str, Path, str] | None:
    """(collection, the map file, its path relative to the collection's root) of the bundle a frame's ``path``
    names: its longest tail with '.map' after it in a collection's folder, or in its build folders
    (``BUILD_FOLDERS``); None if none is there."""
    parts = [part for part in path.replace("\\", "/").split("/") if part not in ("", ".", "..")]
    if not parts or not BUNDLE.search(parts[-1]):
        return None
    for start in range(len(parts)):
        for folder in BUILD_FOLDERS:
            relative = folder + "/".join(parts[start:]) + ".map"
            for collection, root in roots:
                candidate = Path(root) / relative
                try:
                    if candidate.is_file() and candidate.resolve().is_relative_to(Path(root).resolve()):
                        return collection, candidate, relative
                except OSError:
                    continue
    return None


def original(roots: list[tuple[str, str]], path: str, line: int, column: int) -> Mapped | None:
    """The source file and line a bundle's frame (``path``, ``line``, ``column``, as a trace writes them, from 1)
    was built from, by the bundle's map; None where no map is found or it maps nothing there. Raises Refused for a
    map that is not read."""
    found = find_map(roots, path)
    if found is None:
        return None
    collection, map_file, relative = found
    at = _lookup(map_file, line, column, relative)
    if at is None:
        return None
    source, source_line = at
    return Mapped(f"{path.rsplit('/', 1)[-1]}:{line}:{column}", relative, _cleaned(source),
                  _candidates(collection, posixpath.dirname(relative), source), source_line)


def _lookup(map_file: Path, line: int, column: int, shown: str) -> tuple[str, int] | None:
    """(the source as the map names it, its line from 1) of the place (``line``, ``column``, from 1) in the bundle."""
    size = map_file.stat().st_size
    if size > MAX_MAP_BYTES:
        raise Refused(f"the source map {shown} is over {MAX_MAP_BYTES // 2**20} MB and was not read")
    if size == 0:
        return None
    with open(map_file, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        if SECTIONS.search(mapped):
            raise Refused(f"the source map {shown} is an index map of other maps, which Sift does not read")
        mappings, sources = MAPPINGS.search(mapped), SOURCES.search(mapped)
        if mappings is None or sources is None:
            raise Refused(f"the source map {shown} has no mappings or sources Sift can read")
        root = SOURCE_ROOT.search(mapped)
        root = root.group("root") if root else b""  # copied while the file is mapped
        names = _sources(mapped, sources.end() - 1, shown)
        place = _segment(mapped, mappings.end(), line - 1, column - 1, shown)
    if place is None or not 0 <= place[0] < len(names) or not isinstance(names[place[0]], str):
        return None
    prefix = json.loads(b'"' + root + b'"') if root else ""
    name = names[place[0]]
    if prefix and not _SCHEME.match(name) and not name.startswith("/"):
        name = prefix.rstrip("/") + "/" + name
    return name, place[1] + 1


def _sources(mapped: mmap.mmap, start: int, shown: str) -> list:
    """The map's "sources" list, its JSON read from ``start`` (its '[')."""
    text = mapped[start:start + SOURCES_READ].decode("utf-8", "replace")
    try:
        names, _ = json.JSONDecoder().raw_decode(text)
    except ValueError:
        raise Refused(f"the source map {shown}'s sources could not be read") from None
    return names if isinstance(names, list) else []


def _segment(mapped: mmap.mmap, start: int, line: int, column: int, shown: str) -> tuple[int, int] | None:
    """(source index, source line from 0) of the last segment of the bundle's ``line`` (from 0) at or before
    ``column`` (from 0), decoded from the mappings at ``start``. A segment's source, line and column are counted
    from the segment before it, across lines (its column in the bundle from the line's start): every segment up to
    the place is decoded, none kept."""
    at_line, generated, source, source_line, best = 0, 0, 0, 0, None
    for token in TOKEN.finditer(mapped, start):
        text = token.group()
        if text == b";" or text == b'"':
            if at_line == line or text == b'"':
                return best
            at_line, generated = at_line + 1, 0
            continue
        if token.end() - start > MAX_MAPPINGS_READ:
            raise Refused(f"the source map {shown}'s mappings before the frame are over "
                          f"{MAX_MAPPINGS_READ // 2**20} MB and were not read")
        values = _values(text)
        generated += values[0] if values else 0
        if len(values) >= 4:
            source, source_line = source + values[1], source_line + values[2]
        if at_line == line:
            if generated > column:
                return best
            if len(values) >= 4:
                best = (source, source_line)
    return best


def _values(segment: bytes) -> list[int]:
    """The numbers of a segment, in base-64 VLQ: five bits a digit, the sixth saying another follows, the
    lowest bit of the number its sign."""
    values, shift, value = [], 0, 0
    for byte in segment:
        digit = _DIGITS[byte]
        value += (digit & 31) << shift
        if digit & 32:
            shift += 5
        else:
            values.append(-(value >> 1) if value & 1 else value >> 1)
            value = shift = 0
    return values


def _cleaned(source: str) -> str:
    """A source as the map names it, without a bundler's scheme and './' ('webpack://shop/./src/x.ts': 'src/x.ts')."""
    path = posixpath.normpath(_SCHEME.sub("", source).split("?", 1)[0].lstrip("/"))
    while path.startswith("../"):
        path = path[3:]
    return path


def _candidates(collection: str, folder: str, source: str) -> list[str]:
    """The paths the ``source`` a map in ``folder`` (relative to the collection's root) names may be indexed at,
    nearest first, each with its collection before it for ``symbols.traced_files``: a relative source from the
    map's folder ('../src/x.ts' of dist/: src/x.ts); a bundler's from the project's folder, which is the map's or
    one above it (webpack's 'webpack://shop/./src/x.ts', from the folder holding dist/), nearest first; an
    absolute one as it is, by its tail."""
    found = []
    if not _SCHEME.match(source) and not source.startswith("/"):
        joined = posixpath.normpath(posixpath.join(folder, source))
        if not joined.startswith("../"):
            found.append(f"{collection}/{joined}")
    cleaned = _cleaned(source)
    if _SCHEME.match(source):
        above = folder
        while True:
            found.append(f"{collection}/{posixpath.join(above, cleaned)}" if above else f"{collection}/{cleaned}")
            if not above:
                break
            above = posixpath.dirname(above)
    found.append(source if source.startswith("/") else cleaned)
    return list(dict.fromkeys(found))
