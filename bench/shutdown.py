"""How long ``sift-mcp --http`` takes to exit on SIGTERM, with and without a client, with and without its worker.

    .venv/bin/python bench/shutdown.py [--runs 5] [--model PATH] [--stdio] [--clients none,idle,busy,early] [--log]

Three notes are indexed once (huey's immediate mode); each run copies that home, starts a fresh server on it
with ``--root`` (with its worker, or ``--no-worker``), waits until it serves (1 s more, 3 s with the worker,
except for ``early``), opens the client the case asks for (the mcp package's own Streamable HTTP client,
which also opens the standalone GET stream), then sends SIGTERM to the server process alone (as systemd's
KillMode=mixed does) and times its exit. Prints per case the median, the exit statuses, and how many runs
left something of the server's process group running.
"""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BIN = REPO / ".venv" / "bin"
TOKEN = "bench-token-0123456789abcdef"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def group_alive(group: int) -> bool:
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                fields = Path(f"/proc/{entry.name}/stat").read_bytes().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[2]) == group and fields[0] != b"Z":
                return True
    return False


def hold_session(url: str, ready: threading.Event, done: threading.Event, kind: str) -> None:
    """A real client: initialize, list the tools, then keep the session (and its GET stream) open, idle or
    searching nonstop (``busy``); ``early``: ready as its first semantic search is sent."""
    import anyio
    import httpx2
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def run():
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60) as client:
            async with streamable_http_client(url, http_client=client) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    await session.list_tools()
                    if kind == "early":  # SIGTERM while this first semantic search waits for the model
                        ready.set()
                        await session.call_tool("search", {"query": "pasta words", "mode": "semantic"})
                    ready.set()
                    while not done.is_set():
                        if kind == "busy":
                            await session.call_tool("search", {"query": "pasta words", "mode": "hybrid"})
                        else:
                            await anyio.sleep(0.05)
    try:
        anyio.run(run)
    except BaseException:  # the server going away under the client is the point of the run
        pass
    ready.set()


def keep_log(stream, log: Path) -> None:
    """The server's stderr, each line stamped with the time it arrived (for --log)."""
    with open(log, "a") as f:
        for line in stream:
            f.write(f"{time.monotonic():.3f} {line.decode(errors='replace')}")
            f.flush()


def indexed_home(model: str, where: Path) -> tuple[Path, Path]:
    """A folder of notes and a home with them indexed (huey's immediate mode, in a child process)."""
    notes, home = where / "notes", where / "home"
    notes.mkdir()
    for n in range(3):
        (notes / f"note-{n}.md").write_text(f"# Note {n}\n\nSome words about pasta number {n}.\n")
    code = ("import sys; from pathlib import Path; from workers.app import huey; huey.immediate = True; "
            "from tests.conftest import ingest; ingest(Path(sys.argv[1]))")
    subprocess.run([str(BIN / "python"), "-c", code, str(notes)], cwd=REPO, check=True,
                   env={**os.environ, "SIFT_HOME": str(home), "SIFT_MODEL": model})
    return notes, home


def one_run(model: str, worker: bool, client: str, stdio: bool, template: tuple[Path, Path],
            show_log: bool = False) -> tuple:
    with tempfile.TemporaryDirectory(prefix="sift-shutdown-") as tmp:
        notes = template[0]
        shutil.copytree(template[1], Path(tmp, "home"))
        env = {**os.environ, "SIFT_HOME": str(Path(tmp, "home")), "SIFT_MODEL": model, "SIFT_HTTP_TOKEN": TOKEN}
        port = free_port()
        args = ["--root", str(notes)] + ([] if worker else ["--no-worker"])
        args += [] if stdio else ["--http", f"127.0.0.1:{port}"]
        log = Path(tmp, "server.log")
        log.touch()
        proc = subprocess.Popen([str(BIN / "sift-mcp"), *args], cwd=REPO, env=env, stderr=subprocess.PIPE,
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, start_new_session=True)
        threading.Thread(target=keep_log, args=(proc.stderr, log), daemon=True).start()
        wanted = ["serving MCP over HTTP"] if not stdio else []
        wanted += ["started a worker"] if worker else []
        deadline = time.monotonic() + 120
        while not all(w in log.read_text(errors="replace") for w in wanted) and time.monotonic() < deadline:
            time.sleep(0.1)
        if client != "early":
            time.sleep(3 if worker else 1)  # the worker takes the queued scan; the model loads
        done, ready = threading.Event(), threading.Event()
        if client and not stdio:
            threading.Thread(target=hold_session, args=(f"http://127.0.0.1:{port}/mcp", ready, done,
                                                        client), daemon=True).start()
            ready.wait(60)
            time.sleep(0.5 if client != "early" else 0.2)
        start = time.monotonic()
        with open(log, "a") as f:
            f.write(f"{start:.3f} ---- SIGTERM\n")
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(60)
        seconds = time.monotonic() - start
        done.set()
        time.sleep(0.3)
        left = group_alive(proc.pid)
        if show_log:
            print(log.read_text(errors="replace"))
        if left:
            os.killpg(proc.pid, signal.SIGKILL)
        return seconds, code, left


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--model", default=os.environ.get("SIFT_MODEL", ""))
    parser.add_argument("--stdio", action="store_true", help="also time the stdio server")
    parser.add_argument("--clients", default="none,idle,busy,early", help="which of: none (no client), idle "
                        "(a session held open), busy (searching nonstop), early (SIGTERM while the first "
                        "semantic search waits for the model to load)")
    parser.add_argument("--log", action="store_true", help="print each run's stderr, lines stamped in seconds")
    opts = parser.parse_args()
    clients = ["" if c == "none" else c for c in opts.clients.split(",")]
    cases = [(w, c, False) for w in (False, True) for c in clients]
    if opts.stdio:
        cases += [(w, "", True) for w in (False, True)]  # no client over stdio: stdin stays open
    with tempfile.TemporaryDirectory(prefix="sift-shutdown-template-") as tmp:
        template = indexed_home(opts.model, Path(tmp))
        for worker, client, stdio in cases:
            report(opts, worker, client, stdio, template)


def report(opts, worker: bool, client: str, stdio: bool, template) -> None:
    runs = [one_run(opts.model, worker, client, stdio, template, opts.log) for _ in range(opts.runs)]
    times = sorted(r[0] for r in runs)
    print(f"{'stdio' if stdio else 'http '} worker={'yes' if worker else 'no '} "
          f"client={client or 'none':4}: median {statistics.median(times):.2f} s "
          f"(min {times[0]:.2f}, max {times[-1]:.2f}); exit {sorted({r[1] for r in runs})}; "
          f"left running: {sum(r[2] for r in runs)}", flush=True)


if __name__ == "__main__":
    main()
