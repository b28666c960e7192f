"""A read_file answer of lines: its limits (MAX_LINES, MAX_BYTES), its header and numbered lines, where to go on and
how much is left, and the notes on how the file stands with the index (changed since, not indexed and why)."""
from __future__ import annotations

import os

from ingest.decode import Encoding
from mcp_server import base64_runs, lines as line_maps, paths, render
from search.index import progress_reads


MAX_LINES = 2000
MAX_BYTES = 40_000  # bytes of returned text (UTF-8), numbers included: about 10,000 tokens of English, 13,000
# Chinese characters, under the 25,000 tokens an MCP answer may hold in Claude Code (MAX_MCP_OUTPUT_TOKENS)
NUMBER = 8  # bytes each shown line adds: "{n:>6}\t" and its line break


def lines_answer(target, indexed, start, end, offset, shown, cut_at, total, complete,
                 unindexed=None, encoding: Encoding | None = None, rest: tuple[int, int] | None = None,
                 mail: bool = False) -> tuple[str, dict]:
    shown_to = shown[-1][0] if shown else start
    of = f"{total}" if complete else f"at least {total:,}"
    header = f"{render.shown(target.name)}  (lines {start}-{shown_to} of {of})"
    if encoding is not None and encoding.legacy:
        header += f"; {encoding.name} text, shown as the index reads it"
    if offset:
        header += f"; line {start} from byte {offset} of it"
    body = base64_runs.folded(shown) if mail else [f"{n:>6}\t{text}" for n, text in shown]
    if cut_at and cut_at[1]:
        body[-1] += " …[line cut here]"
    notes = _staleness(target, indexed, unindexed)
    if not complete:
        notes.append(f"[the file is long: lines counted so far: {total:,}; each call counts "
                     f"{mb(line_maps.SCAN_BUDGET)} more]")
    wanted_to = min(end or total, total) if complete else (end or shown_to + 1)
    next_line, next_offset = cut_at if cut_at else (shown_to + 1, 0)
    more = cut_at is not None or shown_to < wanted_to
    if more:
        why = f"the {MAX_BYTES // 1000} KB limit" if cut_at else f"the {MAX_LINES}-line limit"
        where = f"start_line={next_line}" + (f", start_offset={next_offset}" if next_offset else "")
        what = (f"the rest of line {next_line} not shown" if next_offset
                else f"lines {next_line}-{wanted_to} not shown" if complete else f"lines from {next_line} not shown")
        notes.append(f"[stopped at {why}: {what}{_how_much(rest)}; call read_file with {where} for more"
                     f"{_or_search(target, indexed, rest)}]")
    has_more = cut_at is not None or shown_to < total or not complete
    data = {"path": target.name, "absolute_path": target.absolute, "start_line": start, "end_line": shown_to,
            "total_lines": total if complete else None, "total_lines_at_least": total,
            "next_start_line": next_line if has_more else None,
            "next_start_offset": next_offset if has_more and next_offset else None,
            "indexed_generation": indexed["published"] if indexed is not None else None}
    if offset:
        data["start_offset"] = offset
    if encoding is not None and encoding.legacy:
        data["encoding"] = encoding.name
    return "\n".join([header, *body, *notes]), data


def _calls(rest: tuple[int, int]) -> int:
    """About how many more answers the rest of a file takes: its bytes and each line's number (its line break is
    among the bytes already), or its lines."""
    size, count = rest
    return max(-(-(size + (NUMBER - 1) * count) // MAX_BYTES), -(-count // MAX_LINES))


def _how_much(rest: tuple[int, int] | None) -> str:
    """' (492.0 KB, about 16 more calls like this one)' of a rest longer than one more answer: 'lines
    1125-17018 not shown' left a model to find out, call by call, that reading a 500 KB note to its end takes
    16 more, some 160,000 tokens."""
    if rest is None or _calls(rest) < 2:
        return ""
    return f" ({mb(rest[0])}, about {_calls(rest)} more calls like this one)"


def _or_search(target: paths.Target, indexed, rest: tuple[int, int] | None) -> str:
    """', or search with collection=…, glob=… for the part you need' when the rest takes more than one more
    answer and search finds the file."""
    args = render.search_args(target.collection, target.relative) if indexed is not None else None
    if rest is None or _calls(rest) < 2 or args is None:
        return ""
    return f", or search with {args} for the part you need"


def empty_answer(target: paths.Target, indexed) -> dict:
    """The data of an empty file, with the keys of any other read (it had ``lines``, which no other has)."""
    return {"path": target.name, "absolute_path": target.absolute, "start_line": 1, "end_line": 0,
            "total_lines": 0, "total_lines_at_least": 0, "next_start_line": None,
            "indexed_generation": indexed["published"] if indexed is not None else None}


def mb(size: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"


def _staleness(target: paths.Target, indexed, why: str | None = None) -> list[str]:
    if indexed is None:  # it said "(new, excluded, or failed) … not find it yet" of a file skipped for good
        until = "" if why and why.startswith("skipped") else " until it is indexed"  # the reason says what would
        return [f"[this file is not in the published index ({why or 'not indexed yet'}): search does not find it"
                f"{until}]"]
    st = os.stat(target.absolute)
    if st.st_size != indexed["size"] or abs(st.st_mtime - indexed["mtime"]) > 1e-3:
        return [f"[changed on disk since generation {indexed['published']} indexed it: "
                "line numbers from search results may be off]"]
    return []


def failure(conn, target: paths.Target) -> str:
    row = progress_reads.latest_progress(conn, target.collection, target.relative)
    if row is None:
        return "not indexed yet"
    if row["reason"] == progress_reads.DEFERRED:  # a later part of a first build reads it: not skipped for good
        return row["reason"]
    if row["state"] in ("failed", "skipped"):
        return f"{row['state']} at {row['stage']}: {row['reason']}"
    return "waiting to be indexed"
