"""read_file on 1 GiB files through a real ``sift-mcp``: time per call and the server's peak memory.

Writes two 1 GiB text files in a temporary folder (real bytes: a sparse file is refused): one of
many lines (~100 bytes each) and one single line. Starts ``sift-mcp --root`` on that folder with the
real stdio client, with embeddings off (read_file needs no model; ``--with-model`` loads the default
model first, as a server an assistant uses does, and waits for it), then reads from each file the first
lines, a middle range and the last lines (inside the one line: by ``start_offset``), and prints each
call's time, the server's peak RSS (VmHWM from /proc) and how much reading added to it.
Targets: every call under 1 s, peak RSS under 300 MB.

    .venv/bin/python bench/read.py [--size-mib 1024] [--keep DIR] [--with-model]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import anyio

from common import REPO, fresh_home

LINE = b"%09d the quick brown fox jumps over the lazy dog; 0123456789 abcdefghij klmnopqrstuvwxyz\n"
BLOCK = 1 << 22


def write_files(folder: Path, size: int) -> dict[str, int]:
    """lines.txt (numbered lines) and one-line.txt, ``size`` bytes each; returns their line counts."""
    counts = {}
    with open(folder / "lines.txt", "wb") as out:
        written, n = 0, 0
        while written < size:
            block = b"".join(LINE % (n + i + 1) for i in range(BLOCK // len(LINE % 0)))
            block = block[:size - written]
            out.write(block)
            written += len(block)
            n += block.count(b"\n")
        counts["lines.txt"] = n + (0 if block.endswith(b"\n") else 1)
    piece = (b"onelinewithoutbreaks " * (BLOCK // 21 + 1))[:BLOCK]
    with open(folder / "one-line.txt", "wb") as out:
        for start in range(0, size, BLOCK):
            out.write(piece[:min(BLOCK, size - start)])
    counts["one-line.txt"] = 1
    return counts


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def server_pid(parent: int) -> int:
    """The sift-mcp process the stdio client started (a child of this process)."""
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
            cmdline = (status.parent / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = next(int(line.split()[1]) for line in text.splitlines() if line.startswith("PPid:"))
        if ppid == parent and b"sift-mcp" in cmdline:
            return int(status.parent.name)
    raise RuntimeError("sift-mcp process not found")


async def measure(folder: Path, counts: dict[str, int], size: int, with_model: bool) -> None:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    sift_mcp = str(Path(sys.executable).parent / "sift-mcp")
    params = StdioServerParameters(command=sift_mcp, args=["--root", str(folder), "--name", "big", "--no-worker"],
                                   env={**os.environ, **({} if with_model else {"SIFT_EMBEDDINGS": "off"})})
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                pid = server_pid(os.getpid())
                if with_model:
                    await wait_for_model(session)
                (folder / "small.txt").write_text("warm-up\n")
                began = time.perf_counter()
                await session.call_tool("read_file", {"path": "big/small.txt"})  # imports, the index opened
                print(f"warm-up: read_file of a one-line file {(time.perf_counter() - began) * 1000:.0f} ms")
                before = peak_rss_mb(pid)
                print(f"server pid {pid} ({'model loaded' if with_model else 'embeddings off'}): "
                      f"peak RSS before reading {before:.0f} MB")
                total = counts["lines.txt"]
                calls = [("lines.txt", "first lines", dict(start_line=1, end_line=3)),
                         ("lines.txt", "middle range", dict(start_line=total // 2, end_line=total // 2 + 2)),
                         ("lines.txt", "last lines", dict(start_line=total - 2)),
                         ("lines.txt", "first lines again", dict(start_line=1, end_line=3)),
                         ("one-line.txt", "start of the line", dict(start_line=1)),
                         ("one-line.txt", "middle of the line", dict(start_line=1, start_offset=size // 2)),
                         ("one-line.txt", "end of the line", dict(start_line=1, start_offset=size - 1000))]
                worst = 0.0
                for name, what, args in calls:
                    began = time.perf_counter()
                    result = await session.call_tool("read_file", {"path": f"big/{name}", **args})
                    took = time.perf_counter() - began
                    worst = max(worst, took)
                    data = result.structured_content or {}
                    header = result.content[0].text.splitlines()[0]
                    assert not result.is_error, header
                    print(f"{name:<13} {what:<20} {took * 1000:7.0f} ms  peak RSS {peak_rss_mb(pid):5.0f} MB  "
                          f"{header}  (next line {data.get('next_start_line')}, "
                          f"offset {data.get('next_start_offset')})")
                peak = peak_rss_mb(pid)
                print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
                print(f"\nslowest call {worst * 1000:.0f} ms (target < 1000 ms); server peak RSS {peak:.0f} MB "
                      f"(target < 300 MB), of which reading added {peak - before:.0f} MB")


async def wait_for_model(session, limit: float = 300) -> None:
    """Let the background model load finish first, so the timings are of reading alone."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        stats = await session.call_tool("stats", {})
        state = ((stats.structured_content or {}).get("model") or {}).get("state")
        if state not in ("loading", None) or stats.is_error:
            return
        await anyio.sleep(0.5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-mib", type=int, default=1024, help="size of each file (default 1024 = 1 GiB)")
    parser.add_argument("--keep", help="write the files here and keep them (default: a temporary folder)")
    parser.add_argument("--with-model", action="store_true", help="let the server load the embedding model first")
    args = parser.parse_args()
    home = fresh_home("read")
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="sift-read-"))
    folder.mkdir(parents=True, exist_ok=True)
    size = args.size_mib << 20
    try:
        began = time.perf_counter()
        counts = write_files(folder, size)
        print(f"wrote 2 files of {size / 2 ** 30:.2f} GiB in {time.perf_counter() - began:.1f} s "
              f"({counts['lines.txt']:,} lines and 1 line) in {folder}")
        os.chdir(REPO)
        anyio.run(measure, folder, counts, size, args.with_model)
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
