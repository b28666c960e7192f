"""Outlook .msg files written for tests (tests/test_outlook_msg.py): there is no Outlook here, and olefile reads
compound files but cannot write new ones. ``compound_file`` writes an OLE2 compound file as [MS-CFB] lays it out
(version 3: 512-byte sectors; a stream under 4,096 bytes in the mini stream, 64-byte mini sectors, its chain in
the MiniFAT; each storage's children a binary search tree of black nodes, ordered by name length then upper-case
name, which [MS-CFB] 2.6.4 allows), and ``outlook_msg`` the streams of a message as [MS-OXMSG] names them. Such
files are made, not saved by Outlook: tests read them back with olefile (``test_the_writer_is_read_by_olefile``)."""
from __future__ import annotations

import struct
from datetime import datetime, timezone

SECTOR, MINI, CUTOFF = 512, 64, 4096
FREE, END, FAT_MARK, NONE = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFF


def compound_file(streams: dict[str, bytes]) -> bytes:
    """An OLE2 compound file of ``streams``, each named by its path ('__attach_version1.0_#00000000/__substg1.0_
    3707001F'); the storages on those paths are made."""
    entries = [{"name": "Root Entry", "type": 5, "children": [], "data": b""}]
    by_path = {"": 0}
    for path, data in streams.items():
        parts = path.split("/")
        parent = 0
        for depth, name in enumerate(parts):
            key = "/".join(parts[:depth + 1])
            if key not in by_path:
                leaf = depth == len(parts) - 1
                entries.append({"name": name, "type": 2 if leaf else 1, "children": [],
                                "data": data if leaf else b""})
                by_path[key] = len(entries) - 1
                entries[parent]["children"].append(len(entries) - 1)
            parent = by_path[key]
    for entry in entries:
        entry["left"] = entry["right"] = entry["child"] = NONE
    for entry in entries:
        if entry["children"]:
            entry["child"] = _tree(entries, sorted(entry["children"], key=lambda i: _order(entries[i]["name"])))

    sectors: list[bytes] = []
    fat: list[int] = []

    def chain(data: bytes, mark: int | None = None) -> int:
        """Put ``data`` in new sectors, chained in the FAT; the first sector's number (END for none)."""
        count = (len(data) + SECTOR - 1) // SECTOR
        if not count:
            return END
        first = len(sectors)
        for n in range(count):
            sectors.append(data[n * SECTOR:(n + 1) * SECTOR].ljust(SECTOR, b"\x00"))
            fat.append(mark if mark is not None else (first + n + 1 if n < count - 1 else END))
        return first

    mini_stream, minifat = b"", []
    for entry in entries[1:]:
        data = entry["data"]
        if entry["type"] != 2:
            entry["start"], entry["size"] = 0, 0
        elif len(data) < CUTOFF:
            count = (len(data) + MINI - 1) // MINI
            entry["start"] = len(mini_stream) // MINI if count else END
            entry["size"] = len(data)
            first = len(minifat)
            minifat += [first + n + 1 if n < count - 1 else END for n in range(count)]
            mini_stream += data.ljust(count * MINI, b"\x00")
        else:
            entry["start"], entry["size"] = chain(data), len(data)
    root = entries[0]
    root["start"], root["size"] = chain(mini_stream), len(mini_stream)
    minifat_first = chain(b"".join(struct.pack("<I", n) for n in minifat))
    minifat_sectors = (len(minifat) * 4 + SECTOR - 1) // SECTOR
    directory = b"".join(_entry(entry) for entry in entries)
    directory += _entry(None) * (-len(entries) % (SECTOR // 128))
    directory_first = chain(directory)
    fat_count = 0
    while fat_count * (SECTOR // 4) < len(sectors) + fat_count:
        fat_count += 1
    assert fat_count <= 109, "a file over the header's DIFAT: not written here"
    fat_first = len(sectors)
    for _ in range(fat_count):
        sectors.append(b"")
        fat.append(FAT_MARK)
    fat += [FREE] * (fat_count * (SECTOR // 4) - len(fat))
    table = b"".join(struct.pack("<I", n) for n in fat)
    for n in range(fat_count):
        sectors[fat_first + n] = table[n * SECTOR:(n + 1) * SECTOR]
    difat = [fat_first + n for n in range(fat_count)] + [FREE] * (109 - fat_count)
    header = (bytes.fromhex("D0CF11E0A1B11AE1") + b"\x00" * 16
              + struct.pack("<HHHHH", 0x003E, 0x0003, 0xFFFE, 9, 6) + b"\x00" * 6
              + struct.pack("<IIIIIIIII", 0, fat_count, directory_first, 0, CUTOFF,
                            minifat_first if minifat else END, minifat_sectors, END, 0)
              + b"".join(struct.pack("<I", n) for n in difat))
    assert len(header) == SECTOR
    return header + b"".join(sectors)


def _order(name: str) -> tuple[int, str]:
    """[MS-CFB]'s order of siblings: shorter names first, then by upper-case name."""
    return len(name.encode("utf-16-le")) // 2, name.upper()


def _tree(entries: list[dict], ordered: list[int]) -> int:
    """The root of a balanced search tree of ``ordered`` (its middle one), its sides set on each entry."""
    if not ordered:
        return NONE
    middle = len(ordered) // 2
    entries[ordered[middle]]["left"] = _tree(entries, ordered[:middle])
    entries[ordered[middle]]["right"] = _tree(entries, ordered[middle + 1:])
    return ordered[middle]


def _entry(entry: dict | None) -> bytes:
    """A 128-byte directory entry; an unused one for None."""
    if entry is None:
        return b"\x00" * 64 + struct.pack("<HBBIII", 0, 0, 0, NONE, NONE, NONE) + b"\x00" * 36 + b"\x00" * 12
    name = entry["name"].encode("utf-16-le") + b"\x00\x00"
    assert len(name) <= 64
    return (name.ljust(64, b"\x00") + struct.pack("<HBBIII", len(name), entry["type"], 1, entry["left"],
                                                   entry["right"], entry["child"])
            + b"\x00" * 16 + struct.pack("<IQQ", 0, 0, 0) + struct.pack("<IQ", entry["start"], entry["size"]))


# --- [MS-OXMSG] ----------------------------------------------------------------------------------------------------

def filetime(when: datetime) -> int:
    """``when`` as a FILETIME: 100-nanosecond ticks since 1601 (UTC)."""
    return int((when - datetime(1601, 1, 1, tzinfo=timezone.utc)).total_seconds() * 10_000_000)


def properties(fixed: dict[int, tuple[int, bytes]], variable: dict[int, tuple[int, int]], header: int) -> bytes:
    """A property stream: ``header`` bytes (a message's 32: recipients and attachments counted where they are
    given after 8 reserved bytes), then a 16-byte entry a property: fixed ones {tag: (type, value)}, variable ones
    {tag: (type, size)} (their streams beside it)."""
    out = b"\x00" * header
    for pid, (kind, value) in fixed.items():
        out += struct.pack("<II", pid << 16 | kind, 6) + value.ljust(8, b"\x00")
    for pid, (kind, size) in variable.items():
        out += struct.pack("<IIII", pid << 16 | kind, 6, size, 0)
    return out


def message_streams(prefix: str = "", header: int = 32, subject: str | None = None, body: str | None = None,
                    html: bytes | None = None, rtf: bytes | None = None, sender: tuple[str, str] | None = None,
                    to: list[tuple[str, str]] = (), cc: list[tuple[str, str]] = (), display_to: str | None = None,
                    sent: datetime | None = None, message_id: str | None = None, in_reply_to: str | None = None,
                    attachments: list[dict] = (), eight_bit: dict[int, bytes] | None = None,
                    code_page: int | None = None, transport_headers: str | None = None) -> dict[str, bytes]:
    """The streams of a message (at ``prefix``, an attached message's storage, or the file's root): string
    properties as 001F (UTF-16LE), ``eight_bit`` ones {id: bytes} as 001E in ``code_page``; ``attachments`` each
    {'name', 'data', 'mime'} or {'message': message_streams' keyword arguments} (attached as a message)."""
    streams: dict[str, bytes] = {}
    fixed: dict[int, tuple[int, bytes]] = {}
    variable: dict[int, tuple[int, int]] = {}

    def string(pid: int, value: str | None, at: str = prefix, into=variable) -> None:
        if value is not None:
            raw = value.encode("utf-16-le")
            streams[f"{at}__substg1.0_{pid:04X}001F"] = raw
            into[pid] = (0x001F, len(raw) + 2)

    def binary(pid: int, value: bytes | None, at: str = prefix, into=variable) -> None:
        if value is not None:
            streams[f"{at}__substg1.0_{pid:04X}0102"] = value
            into[pid] = (0x0102, len(value))

    string(0x0037, subject)
    string(0x1000, body)
    binary(0x1013, html)
    binary(0x1009, rtf)
    string(0x0E04, display_to)
    string(0x1035, message_id)
    string(0x1042, in_reply_to)
    string(0x007D, transport_headers)
    if sender:
        string(0x0C1A, sender[0])
        string(0x5D01, sender[1])
    for pid, raw in (eight_bit or {}).items():
        streams[f"{prefix}__substg1.0_{pid:04X}001E"] = raw
        variable[pid] = (0x001E, len(raw) + 1)
    if code_page is not None:
        fixed[0x3FFD] = (0x0003, struct.pack("<i", code_page))
    if sent is not None:
        fixed[0x0039] = (0x0040, struct.pack("<Q", filetime(sent)))
    for n, (kind, people) in enumerate([(1, p) for p in to] + [(2, p) for p in cc]):
        at = f"{prefix}__recip_version1.0_#{n:08X}/"
        own: dict[int, tuple[int, int]] = {}
        string(0x3001, people[0], at, own)
        string(0x39FE, people[1], at, own)
        streams[f"{at}__properties_version1.0"] = properties({0x0C15: (0x0003, struct.pack("<i", kind))}, own, 8)
    for n, attached in enumerate(attachments):
        at = f"{prefix}__attach_version1.0_#{n:08X}/"
        own = {}
        if "message" in attached:
            streams.update(message_streams(prefix=f"{at}__substg1.0_3701000D/", header=24, **attached["message"]))
            method = 5
        else:
            string(0x3707, attached["name"], at, own)
            binary(0x3701, attached["data"], at, own)
            if attached.get("mime"):
                string(0x370E, attached["mime"], at, own)
            method = 1
        streams[f"{at}__properties_version1.0"] = properties({0x3705: (0x0003, struct.pack("<i", method))}, own, 8)
    head = b"\x00" * 8 + struct.pack("<IIII", len(to) + len(cc), len(attachments), len(to) + len(cc),
                                     len(attachments)) + b"\x00" * 8 if header == 32 else b"\x00" * header
    streams[f"{prefix}__properties_version1.0"] = head + properties(fixed, variable, 0)
    return streams


def outlook_msg(**message) -> bytes:
    """A .msg file of one message (``message_streams``' keyword arguments)."""
    return compound_file(message_streams(**message))
