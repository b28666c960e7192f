"""A minified bundle's stack frame read through its source map, to the source file and line it was built from.

A frame such as ``at e (dist/main.js:1:48213)`` names a column of one long machine-written line: Sift skips such a
bundle (and its build folder), so the frame found nothing. Where a collection's folder holds the bundle's map
beside it (``dist/main.js.map``: a source map of version 3, with ``sources`` and ``mappings``), or where the
bundle's last sourceMappingURL comment names it elsewhere in the collection (``//# sourceMappingURL=../maps/main.js.map``), the frame's
line and column are looked up in it: its ``sources`` name the file and its mappings the line, which the trace's
other frames are then searched as; a frame's minified function ('e') is read as the original name (its ``names``)
the map gives the frame's call, on the trace's next line (``callers``). A map written in that comment (``data:``,
base64 or percent-encoded) is read too. An index map (``sections``: maps each at an offset of the
bundle, written in it or named by a ``url``) is read section by section.

A map may be tens of megabytes, most of it the sources' own text (``sourcesContent``): it is not parsed whole but
mapped into memory and read where its keys are, its mappings decoded as a stream up to the frame's place, without
keeping them; a trace's frames in one map read it once, in one pass to the farthest (``originals``). A map over
MAX_MAP_BYTES, or whose mappings before the frame are over MAX_MAPPINGS_READ, is not read (the answer says so);
nor an index map over MAX_INDEX_MAP_BYTES (it is parsed whole), of over MAX_SECTIONS sections or maps nested over
MAX_DEPTH deep (one naming itself), nor an inline one over MAX_INLINE_MAP_BYTES (decoded in memory), nor a map
on a server or outside the collection (the answer says so).
"""
from __future__ import annotations

import bisect
import json
import mmap
import posixpath
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from search.query.backtrace import browser_function
from search.query.symbols import FRAME

MAX_MAP_BYTES = 64 * 2**20
MAX_MAPPINGS_READ = 32 * 2**20  # bytes of mappings read to reach a frame (about 3 s: bench/code_source_maps.py)
CHUNK = 256 * 2**10  # bytes of mappings read at a time
VLQ_DIGITS = 7  # base-64 digits of a number at most: 32 bits and its sign
DECODED_KEPT = 100_000  # distinct segments kept decoded
HALVED = 64  # segments of a line's piece holding a frame's place past which it is halved, not read one by one
_decoded: dict[bytes, list[int]] = {}
SOURCES_READ = 2 * 2**20  # bytes read of the map for its "sources" list, past which it is taken as unreadable
BUNDLE = re.compile(r"\.[cm]?js$", re.IGNORECASE)
# A map named by its bundle's comment ('//# sourceMappingURL=../maps/app.js.map'), or written in it
# ('//# sourceMappingURL=data:application/json;base64,eyJ2…'): the last such comment, where the spec allows it, not
# only alone on the last line: after code on its line (a minifier's '}();//# sourceMappingURL=…'), or followed by a
# blank line or others ('//# debugId=…', which Sentry's and esbuild's tools add after it). Its URL ends its line (one
# in a string, as a bundler's runtime writes it, has its quote after). Looked for in the bundle's last MAX_MAP_BYTES
# and URL_READ bytes; a map written inline is decoded in memory.
URL_READ = 4096
MAP_URL = re.compile(rb"//[#@][ \t]*sourceMappingURL=[ \t]*([^\s'\"]+)[ \t]*(?:\r?\n|\r|$)")
INLINE = "data:"
MAX_INLINE_MAP_BYTES = 16 * 2**20
# An index map ('sections': each a map's offset in the bundle and the map, written in it or named by its 'url')
MAX_INDEX_MAP_BYTES = 8 * 2**20  # an index map is parsed whole (its sections' maps are in it): about 0.1 s for 8 MB
MAX_SECTIONS = 10_000
MAX_DEPTH = 3  # index maps in index maps, and maps named by a section's url, a map's own or one naming it again
# the folders a bundle served from a URL's path ('https://shop.example.com/static/js/main.3f2a1b.js') is built in
BUILD_FOLDERS = ("", "build/", "dist/", "out/", "public/")
_COLON = re.compile(rb'\s*:\s*')
_DIGITS = {c: i for i, c in enumerate(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}
# between a frame and its caller's: the line break, and an anonymous caller's 'at' and scheme ('at https://…')
NEXT_LINE = re.compile(r"\)?[ \t]*\r?\n[ \t]*(?:at[ \t]+(?:[\w-]+:/*)?)?")
_SCHEME = re.compile(r"^[a-z][\w+.-]*://[^/]*", re.IGNORECASE)  # 'webpack://shop', 'file://'


@dataclass
class Mapped:
    """A frame read through its map: the paths the source may be indexed at, nearest first; its line (from 1)."""
    shown: str  # the frame as the trace writes it: 'main.js:1:48213'
    map_path: str  # the map, relative to its collection's root: 'dist/main.js.map'
    source: str  # the source as the map names it, cleaned: 'src/users/profile.ts'
    candidates: list[str]
    line: int
    name: str | None = None  # the original name the map gives the place (its 'names'): of what is called there


class Refused(Exception):
    """A map that is not read: too big, nested too deep, outside the collection, or not one Sift can read; str()
    says why."""


def columns(query: str) -> dict[tuple[str, int], list[int]]:
    """{(a frame's path as ``symbols.frames`` gives it, its line): its columns, each once, as the trace writes them}
    of the frames that write one: a one-line bundle's frames are one line at several columns, each its own place
    (kept once a line, they were read as one, at the last column)."""
    found: dict[tuple[str, int], list[int]] = {}
    for m in FRAME.finditer(query):
        if m.group("path") and m.group("column"):
            at = found.setdefault((m.group("path").replace("\\", "/"), int(m.group("at"))), [])
            if int(m.group("column")) not in at:
                at.append(int(m.group("column")))
    return found


def callers(query: str) -> dict[tuple[str, int, int], tuple[str, int, int]]:
    """{(path, line, column) of a frame naming its function ('at e (dist/main.js:1:48213)', Firefox's and Safari's
    'e@https://…/main.js:1:48213'): the frame on the next line's} of a browser's or Node's trace, the most recent
    call first: the next frame is the call of the function, and the name a map gives its place (the ``names`` of
    its fifth number) is the called function's original name, where the name the map gives a frame's own place is
    of what it calls (the callee, or a property read) there. Frames of two traces are not paired: the next frame
    is on the very next line, with nothing but its indent before it and the frame's ')' after it (not another
    trace's header: 'Caused by: …', 'During handling of the above exception…', an 'Error: …' glued to the line),
    and written by the same engine (V8's 'at …', or Firefox's and Safari's '…@')."""
    found: list = list(FRAME.finditer(query))
    return {_place_of(m): _place_of(after) for m, after in zip(found, found[1:])
            if (m.group("caller") or browser_function(m.group("named"))) and m.group("column")
            and after.group("path") and after.group("column")
            and NEXT_LINE.fullmatch(query, m.end(), after.start())
            and (m.group("named") is None) == (after.group("named") is None)}


def _place_of(m) -> tuple[str, int, int]:
    return m.group("path").replace("\\", "/"), int(m.group("at")), int(m.group("column"))


def find_map(roots: list[tuple[str, str]], path: str) -> tuple[str, Path, str, bool] | Refused | None:
    """(collection, the map file, its path relative to the collection's root, whether the map is written in that
    file: the bundle's, ``INLINE``) of the bundle a frame's ``path`` names: its longest tail with '.map' after it
    in a collection's folder, or in its build folders (``BUILD_FOLDERS``), or the map that bundle's
    ``sourceMappingURL`` names in the collection or in itself (``named_map``); where none is there, Refused for a
    bundle naming one that is not read (on a server, outside the collection), else None."""
    parts = [part for part in path.replace("\\", "/").split("/") if part not in ("", ".", "..")]
    if not parts or not BUNDLE.search(parts[-1]):
        return None
    refused = None
    for start in range(len(parts)):
        for folder in BUILD_FOLDERS:
            bundle = folder + "/".join(parts[start:])
            for collection, root in roots:
                for relative in (bundle + ".map", None):
                    try:
                        relative = relative or named_map(root, bundle)
                    except Refused as said:
                        refused = refused or said
                        continue
                    inline = relative == INLINE
                    relative = bundle if inline else relative
                    candidate = Path(root) / relative if relative else None
                    try:
                        if candidate and candidate.is_file() and _inside(root, candidate):
                            return collection, candidate, relative, inline
                    except OSError:
                        continue
    return refused


def named_map(root: str, bundle: str) -> str | None:
    """The path, relative to ``root``, of the map the bundle at ``bundle`` (relative to ``root``) names in its last
    sourceMappingURL comment ('//# sourceMappingURL=../maps/app.js.map': maps/app.js.map of dist/app.js;
    ``MAP_URL``), or ``INLINE`` for one written there (``data:``: ``_data_url``); None for no bundle or none named.
    Raises Refused for one on a server, from the server's root or outside the collection, which are not read."""
    try:
        if not (Path(root) / bundle).is_file():  # a named pipe of the bundle's name would block the search
            return None
        with open(Path(root) / bundle, "rb") as f:
            at = _comment(f)
            if at is None:
                return None
            f.seek(at[0])
            named = f.read(min(at[1] - at[0], 1024 + len(INLINE)))
    except OSError:
        return None
    from urllib.parse import unquote
    if named[:len(INLINE)].lower() == INLINE.encode():
        return INLINE
    if at[1] - at[0] > 1024:
        return None
    url = unquote(named.decode("utf-8", "replace")).split("?", 1)[0].split("#", 1)[0]
    if url.lower().startswith(INLINE):
        return INLINE
    if not url:
        return None
    said = f"the source map {bundle} names, {url[:200]},"
    if re.match(r"^[a-z][\w+.-]*://|^//", url, re.IGNORECASE):
        raise Refused(f"{said} is on a server and was not read: Sift reads maps in the collection only")
    if url.startswith("/"):
        raise Refused(f"{said} is a path on its server and was not read: Sift reads maps in the collection only")
    relative = posixpath.normpath(posixpath.join(posixpath.dirname(bundle), url))
    if re.match(r"^[a-z][\w+.-]*:", url, re.IGNORECASE) or relative.startswith("../") or relative == "..":
        raise Refused(f"{said} is outside the collection and was not read")
    return relative


def _comment(f) -> tuple[int, int] | None:
    """(start, end) in the open bundle ``f`` of the URL its last sourceMappingURL comment names (``MAP_URL``),
    looked for in its last MAX_MAP_BYTES and URL_READ bytes (an inline map past MAX_INLINE_MAP_BYTES is found, and
    said too big); None for none there."""
    size = f.seek(0, 2)
    if not size:
        return None
    with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as whole:
        floor, end = max(0, size - MAX_MAP_BYTES - URL_READ), size
        while (at := whole.rfind(b"sourceMappingURL=", floor, end)) >= 0:
            start = whole.rfind(b"//", max(floor, at - 8), at)
            found = MAP_URL.match(whole, start) if start >= 0 else None
            if found:
                return found.span(1)
            end = at
    return None


def _data_url(f) -> tuple[int, int] | None:
    """(start, end) in the open bundle ``f`` of the map written in its last sourceMappingURL comment ('//#
    sourceMappingURL=data:…', from 'data:'; ``_comment``), or None for a comment naming a file, or none."""
    at = _comment(f)
    if at is None:
        return None
    f.seek(at[0])
    return at if f.read(len(INLINE)).lower() == INLINE.encode() else None


def _inline(bundle: Path, shown: str) -> bytes:
    """The map written in the bundle's last line (a data: URL: base64, or JSON percent-encoded), decoded. Refused
    for a line over MAX_INLINE_MAP_BYTES or that does not decode."""
    import base64
    import binascii
    from urllib.parse import unquote_to_bytes
    with open(bundle, "rb") as f:
        at = _data_url(f)
        if at is None:
            raise Refused(f"the source map {shown} could not be read")
        if at[1] - at[0] > MAX_INLINE_MAP_BYTES:
            raise Refused(f"the source map {shown} is over {MAX_INLINE_MAP_BYTES // 2**20} MB and was not read")
        f.seek(at[0])
        header, _, data = f.read(at[1] - at[0]).partition(b",")
    try:
        return base64.b64decode(data) if b";base64" in header.lower() else unquote_to_bytes(data)
    except (binascii.Error, ValueError):
        raise Refused(f"the source map {shown} could not be read") from None


def _inside(root: str, path: Path) -> bool:
    """Whether ``path`` is within ``root`` once links are followed."""
    return path.resolve().is_relative_to(Path(root).resolve())


def original(roots: list[tuple[str, str]], path: str, line: int, column: int) -> Mapped | None:
    """The source file and line a bundle's frame (``path``, ``line``, ``column``, as a trace writes them, from 1)
    was built from, by the bundle's map; None where no map is found or it maps nothing there. Raises Refused for a
    map that is not read."""
    found = originals(roots, [(path, line, column)])[(path, line, column)]
    if isinstance(found, Refused):
        raise found
    return found


def originals(roots: list[tuple[str, str]], frames: list[tuple[str, int, int]]) -> dict:
    """{(path, line, column): Mapped, None or Refused} of a trace's bundle frames (as ``original``), each map read
    once for all its frames: a map's mappings are decoded as a stream to the farthest frame, and a trace of eight
    frames near the end of 15 MB of mappings read them eight times (14 s). A map unreadable (OSError): None."""
    results: dict = {}
    by_map: dict[Path, list] = {}
    found_at = {path: find_map(roots, path) for path in dict.fromkeys(path for path, _, _ in frames)}
    for frame in dict.fromkeys(frames):
        found = found_at[frame[0]]
        results[frame] = found if isinstance(found, Refused) else None
        if isinstance(found, tuple):
            by_map.setdefault(found[1], []).append((frame, found))
    for map_file, framed in by_map.items():
        collection, _, relative, inline = framed[0][1]
        root = next(root for name, root in roots if name == collection)
        shown = f"inline in {relative}" if inline else relative
        places: dict = {}
        try:
            _lookup(map_file, {(line - 1, column - 1) for (_, line, column), _ in framed}, shown, places,
                    (root, relative), inline=inline)
        except Refused as refused:
            places = {place: places.get(place, refused) for (_, line, column), _ in framed
                      for place in [(line - 1, column - 1)]}
        except (OSError, ValueError):  # a map unreadable or not JSON where it should be: its frames as before
            continue
        for (path, line, column), _ in framed:
            at = places.get((line - 1, column - 1))
            if isinstance(at, Refused):
                results[(path, line, column)] = at
            elif at is not None:
                source, source_line, folder, name = at
                results[(path, line, column)] = Mapped(
                    f"{path.rsplit('/', 1)[-1]}:{line}:{column}", shown, _cleaned(source),
                    _candidates(collection, folder, source), source_line, name)
    return results


def _lookup(map_file: Path, places: set[tuple[int, int]], shown: str, found: dict, where: tuple[str, str],
            depth: int = 0, inline: bool = False) -> None:
    """Fill ``found`` with {place: (the source as the map names it, its line from 1, the folder its map is in
    relative to the collection's root, the original name there or None), or None} of each place (line, column,
    from 0) in the bundle; ``where``: the collection's root and the map's path relative to it (with ``inline``,
    the bundle's, ``map_file`` holding the map in its last line). Raises Refused for a map not read, ``found``
    holding the places read before."""
    if inline:
        index = _plain_or_index(_inline(map_file, shown), places, shown, found, where)
    else:
        size = map_file.stat().st_size
        if size > MAX_MAP_BYTES:
            raise Refused(f"the source map {shown} is over {MAX_MAP_BYTES // 2**20} MB and was not read")
        if size == 0:
            return
        with open(map_file, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            index = _plain_or_index(mapped, places, shown, found, where)
    if index is not None:
        _sections(index, places, shown, found, where, depth)


def _plain_or_index(mapped, places: set[tuple[int, int]], shown: str, found: dict, where: tuple[str, str]):
    """The index map ``mapped`` (an mmap, bytes) holds, parsed; or None, its places read as a plain map's."""
    if _key(mapped, b"sections", b"[") is None:
        return _plain(mapped, places, shown, found, posixpath.dirname(where[1]))
    if len(mapped) > MAX_INDEX_MAP_BYTES:
        raise Refused(f"the source map {shown} is an index map over {MAX_INDEX_MAP_BYTES // 2**20} MB and was "
                      "not read")
    try:
        return json.loads(mapped[:])
    except (ValueError, RecursionError):
        raise Refused(f"the source map {shown} could not be read") from None


def _sections(index, places: set[tuple[int, int]], shown: str, found: dict, where: tuple[str, str],
              depth: int) -> None:
    """Fill ``found`` (as ``_lookup``) from an index map: each place read in the section it falls in (the last
    whose offset is at or before it), counted from that offset, through the section's map, written in it or named
    by its ``url`` (relative to the index map, in the collection). Bounded: MAX_SECTIONS sections, MAX_DEPTH maps
    deep (an index map's section naming the index map itself)."""
    sections = index.get("sections") if isinstance(index, dict) else None
    if depth >= MAX_DEPTH:
        raise Refused(f"the source map {shown} holds maps over {MAX_DEPTH} deep and was not read")
    if not isinstance(sections, list) or len(sections) > MAX_SECTIONS:
        raise Refused(f"the source map {shown}'s sections could not be read (at most {MAX_SECTIONS:,})")
    offsets = [_offset(section) for section in sections]
    if None in offsets or offsets != sorted(offsets):
        raise Refused(f"the source map {shown}'s sections could not be read")
    by_section: dict[int, dict] = {}
    for place in places:
        i = bisect.bisect_right(offsets, place) - 1
        if i < 0:
            found[place] = None
            continue
        line, column = offsets[i]
        by_section.setdefault(i, {})[(place[0] - line, place[1] - column if place[0] == line else place[1])] = place
    for i, local in by_section.items():
        within: dict = {}
        try:
            _section(sections[i], set(local), shown, within, where, depth)
        finally:
            found.update({local[place]: at for place, at in within.items()})


def _offset(section) -> tuple[int, int] | None:
    """A section's (line, column) in the bundle, or None for one no map writes."""
    offset = section.get("offset") if isinstance(section, dict) else None
    at = (offset.get("line"), offset.get("column")) if isinstance(offset, dict) else (None, None)
    return at if all(type(n) is int and n >= 0 for n in at) else None


def _section(section: dict, places: set, shown: str, found: dict, where: tuple[str, str], depth: int) -> None:
    """Fill ``found`` with the ``places`` (counted from the section's offset) read through the section's map."""
    inner, url = section.get("map"), section.get("url")
    if isinstance(inner, dict):
        if "sections" in inner:
            return _sections(inner, places, shown, found, where, depth + 1)
        return _plain(json.dumps(inner).encode(), places, shown, found, posixpath.dirname(where[1]))
    relative = None
    if isinstance(url, str) and url and not url.startswith("/") and not re.match(r"^[a-z][\w+.-]*:", url, re.I):
        relative = posixpath.normpath(posixpath.join(posixpath.dirname(where[1]), url))
    target = Path(where[0]) / relative if relative and not relative.startswith("..") else None
    if target is None or not target.is_file() or not _inside(where[0], target):
        raise Refused(f"the source map {shown}'s section {str(url)[:200]!r} names no map in the collection")
    _lookup(target, places, shown, found, (where[0], relative), depth + 1)


def _plain(mapped, places: set[tuple[int, int]], shown: str, found: dict, folder: str) -> None:
    """Fill ``found`` (as ``_lookup``) from a map of ``sources`` and ``mappings`` in ``mapped`` (an mmap, bytes)."""
    mappings, sources = _key(mapped, b"mappings", b'"'), _key(mapped, b"sources", b"[")
    if mappings is None or sources is None:
        raise Refused(f"the source map {shown} has no mappings or sources Sift can read")
    names = _json(mapped, sources, shown)
    root = _key(mapped, b"sourceRoot", b'"')
    prefix = _json(mapped, root, shown) if root is not None else ""
    try:  # the original names, of the segments writing a fifth number: read where they can be, not needed
        symbols = _json(mapped, _key(mapped, b"names", b"["), shown) if _key(mapped, b"names", b"[") else []
    except Refused:
        symbols = []
    at: dict = {}
    try:
        _segments(mapped, mappings + 1, sorted(places), shown, at)
    except ValueError:  # a character no VLQ digit, or a number no map writes: said, not a failed search
        raise Refused(f"the source map {shown}'s mappings could not be read") from None
    finally:
        found.update({place: _named(names, prefix, where, folder, symbols) for place, where in at.items()})


def _named(names, prefix, place: tuple[int, int, int | None] | None, folder: str,
           symbols=()) -> tuple[str, int, str, str | None] | None:
    """(the source, its line from 1, ``folder``: the map's, the original name or None) of ``place`` (source index,
    line from 0, name index or None), by the map's ``sources`` and ``names`` (``symbols``)."""
    if place is None or not isinstance(names, list) or not 0 <= place[0] < len(names) \
            or not isinstance(names[place[0]], str):
        return None
    prefix = prefix if isinstance(prefix, str) else ""
    name = names[place[0]]
    if prefix and not _SCHEME.match(name) and not name.startswith("/"):
        name = prefix.rstrip("/") + "/" + name
    symbol = symbols[place[2]] if place[2] is not None and isinstance(symbols, list) \
        and 0 <= place[2] < len(symbols) and isinstance(symbols[place[2]], str) else None
    return name, place[1] + 1, folder, symbol


def _key(mapped: mmap.mmap, name: bytes, opens: bytes) -> int | None:
    """Where the value of the map's key ``name`` starts (its first character, ``opens``), or None. Found by the
    key's text, found fast: inside a string's text a '"' is written '\\"', so a '"' after no '\\' is a string's
    own, and one followed by ':' a key's."""
    at = mapped.find(b'"' + name + b'"')
    while at >= 0:
        colon = _COLON.match(mapped, at + len(name) + 2)
        if (at == 0 or mapped[at - 1] != 0x5C) and colon and mapped[colon.end():colon.end() + 1] == opens:
            return colon.end()
        at = mapped.find(b'"' + name + b'"', at + 1)
    return None


def _json(mapped: mmap.mmap, start: int, shown: str):
    """The JSON value at ``start`` (a list of sources, a string), read from up to SOURCES_READ bytes."""
    text = mapped[start:start + SOURCES_READ].decode("utf-8", "replace")
    try:
        return json.JSONDecoder().raw_decode(text)[0]
    except ValueError:
        raise Refused(f"the source map {shown}'s sources could not be read") from None


def _pieces(mapped: mmap.mmap, start: int, end: int, shown: str):
    """(where, bytes) of the mappings from ``start`` to ``end``, CHUNK bytes at a time, each of whole segments: to
    its last ',' or ';' (kept), or the first after it. Refused past MAX_MAPPINGS_READ."""
    at = start
    while at < end:
        if at - start > MAX_MAPPINGS_READ:
            raise Refused(f"the source map {shown}'s mappings before the frame are over "
                          f"{MAX_MAPPINGS_READ // 2**20} MB and were not read")
        piece = mapped[at:min(end, at + CHUNK)]
        if at + len(piece) < end:
            cut = max(piece.rfind(b","), piece.rfind(b";"))
            if cut < 0:
                cut = min([found for found in (mapped.find(b",", at, end), mapped.find(b";", at, end)) if found >= 0]
                          or [end - 1]) - at
            piece = mapped[at:at + cut + 1]
        yield at, piece
        at += len(piece)


def _segments(mapped: mmap.mmap, start: int, places: list[tuple[int, int]], shown: str, found: dict) -> None:
    """Fill ``found`` with {place: (source index, source line from 0, name index or None) or None} of each of
    ``places`` (the bundle's
    line and column, from 0, in order): the last segment of the line at or before the column, decoded from the
    mappings at ``start`` in one pass. A segment's source, line and column are counted from the segment before it,
    across lines (its column in the bundle from the line's start): every segment up to the place counts. They are
    read a piece of CHUNK bytes at a time, each piece's segments counted (a minified bundle's mappings repeat a few
    hundred segments), each distinct one decoded once; a piece holding a place is halved down to HALVED segments
around it, which are read one by one."""
    end = mapped.find(b'"', start)
    pending = list(places)
    if end < 0:
        found.update(dict.fromkeys(pending))
        return
    line_at, state, best = 0, [0, 0, 0, 0], None  # the bundle's column (from its line's start), source, source
    # line, name
    for _, piece in _pieces(mapped, start, end, shown):
        parts, i = piece.split(b";"), 0  # parts[i] is of the bundle's line line_at + i
        while pending:
            gap = pending[0][0] - line_at
            if gap > len(parts) - 1 - i:  # the next place's line is further on: count these lines' segments
                _add(state, b",".join(parts[i:]), generated=False)
                line_at += len(parts) - 1 - i
                break
            if gap:  # its line starts in this piece: count the lines before it
                _add(state, b",".join(parts[i:i + gap]), generated=False)
                line_at, i, state[0], best = pending[0][0], i + gap, 0, None
            best = _along(parts[i], state, best, pending, found, line_at)
            if i == len(parts) - 1:  # the line goes on in the next piece
                break
            while pending and pending[0][0] == line_at:  # the line ends here: its places after its last segment
                found[pending.pop(0)] = best
            line_at, i, state[0], best = line_at + 1, i + 1, 0, None
        if not pending:
            return
    while pending:  # past the mappings' end: the last line's places after its last segment, none on lines beyond
        found[pending[0]] = best if pending[0][0] == line_at else None
        pending.pop(0)


def _along(part: bytes, state: list[int], best, pending: list, found: dict, line: int):
    """Read ``part`` (segments of the bundle's ``line``) into ``state``, filling ``found`` for the pending places of
    the line before each segment; the place of its last segment (or ``best`` before it)."""
    sums = _sums(part)
    if not pending or pending[0][0] != line or state[0] + sums[0] <= pending[0][1]:  # no place among them: counted
        state[:] = [held + added for held, added in zip(state, sums)]
        last = _values(part.rstrip(b",").rsplit(b",", 1)[-1]) if part.strip(b",") else []
        return _place(state, last) if len(last) >= 4 else best if not last else None
    segments = part.split(b",")
    if len(segments) > HALVED:  # halves: the one before the place counted, only the place's few read one by one
        best = _along(b",".join(segments[:len(segments) // 2]), state, best, pending, found, line)
        return _along(b",".join(segments[len(segments) // 2:]), state, best, pending, found, line)
    for n, segment in enumerate(segments):
        if not pending or pending[0][0] != line:  # the line's last place is passed: the rest counted
            return _along(b",".join(segments[n:]), state, best, pending, found, line)
        values = _values(segment)
        if not values:
            continue
        while pending and pending[0][0] == line and state[0] + values[0] > pending[0][1]:
            found[pending.pop(0)] = best
        state[0] += values[0]
        if len(values) >= 4:
            state[1], state[2] = state[1] + values[1], state[2] + values[2]
            state[3] += values[4] if len(values) >= 5 else 0
            best = _place(state, values)
        else:
            best = None
    return best


def _place(state: list[int], values: list[int]) -> tuple[int, int, int | None]:
    """(source, source line, name index or None) of a segment of ``values`` read into ``state``."""
    return state[1], state[2], state[3] if len(values) >= 5 else None


def _add(state: list[int], segments: bytes, generated: bool) -> None:
    """Add the sums of ``segments`` (joined by ','), to the bundle's column too with ``generated``."""
    sums = _sums(segments)
    if generated:
        state[0] += sums[0]
    state[1] += sums[1]
    state[2] += sums[2]
    state[3] += sums[3]


def _sums(segments: bytes) -> list[int]:
    """The sums of the first three numbers of ``segments`` (joined by ',') and of their fifth (the name's index),
    each distinct segment decoded once."""
    sums = [0, 0, 0, 0]
    for segment, times in Counter(segments.split(b",")).items():
        values = _decoded.get(segment)
        if values is None:
            values = _values(segment)
            values = values[:3] + values[4:5]
            if len(_decoded) < DECODED_KEPT:
                _decoded[segment] = values
        for i, value in enumerate(values):
            sums[i] += value * times
    return sums


def _values(segment: bytes) -> list[int]:
    """The numbers of a segment, in base-64 VLQ: five bits a digit, the sixth saying another follows, the
    lowest bit of the number its sign. ValueError for a byte no digit (a KeyError failed the search) or a number
    of more than VLQ_DIGITS digits (a map's are 32 bits: a run of '/' made one number of a megabyte, its shifts
    quadratic, 10 s for 200 KB)."""
    values, shift, value = [], 0, 0
    for byte in segment:
        digit = _DIGITS.get(byte)
        if digit is None:
            raise ValueError(f"no base64 digit: {chr(byte)!r}")
        value += (digit & 31) << shift
        if digit & 32:
            shift += 5
            if shift >= 5 * VLQ_DIGITS:
                raise ValueError("a number of more than 32 bits")
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
