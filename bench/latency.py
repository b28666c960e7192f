"""Search latency and memory at about 10k and about 100k chunks.

Builds an index of scifact (and, with --with-notes, notes-en) through the
real pipeline (huey's immediate mode), measures, then adds copies of those
corpora as further collections until the index holds about 100k chunks and
measures again. The
copies are symlinked folders: their chunks are new rows, but the embedding
cache means nothing is embedded twice.

Each measurement runs in a fresh process that only serves searches: 200
queries per mode, after a warm-up pass, printing p50 and p95 (the hybrid and
semantic figures include embedding the query) and the process's peak RSS.

    .venv/bin/python bench/latency.py [--home DIR] [--target 100000]

With --http, only the 10k index is built (or reused with --home) and the same searches go through the
real MCP clients instead, each to a real server process: `sift-mcp` over stdio and `sift-mcp --http`
(Streamable HTTP on a loopback port), timed from the client (keyword and hybrid, p50 and p95), plus
the plain reads (stats, list_files, read_file).

    .venv/bin/python bench/latency.py --http [--home DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from common import copy_until, fresh_home, percentile, published_chunks, shared_data, use_all_cores

QUERIES = 200
NOTE_QUERIES = ["undo the last commit", "rebase interactive", "docker compose volumes", "postgres index",
                "vim macros", "react hooks state", "tmux split pane", "ruby hash default", "jq filter arrays",
                "rails migration rollback"]


def add_collection(conn, name: str, root: Path) -> None:
    from search.index import store
    from workers import tasks
    collection = store.ensure_collection(conn, name, str(root))
    if collection["published"] is None:
        tasks.discover(collection["id"])


def build(home: Path, target: int, with_notes: bool, http: bool = False) -> list[int]:
    """Index the corpora, then copies; returns the chunk counts measured at."""
    from workers import runtime
    from workers.app import huey
    huey.immediate = True
    runtime.reset()
    conn = runtime.index()
    corpora = [("scifact", shared_data("scifact") / "docs")]
    if with_notes:
        corpora.append(("notes", shared_data("notes-en")))
    for name, root in corpora:
        add_collection(conn, name, root)
    sizes = [published_chunks(conn)]
    if http:
        print(f"\n--- {sizes[-1]} chunks, over MCP ---", flush=True)
        measure_transports(home)
        measure_reads(home)
        return sizes
    measure(home, sizes[-1])
    copy_until(conn, home, corpora, lambda name, root: add_collection(conn, name, root), target)
    sizes.append(published_chunks(conn))
    measure(home, sizes[-1])
    return sizes


def measure(home: Path, size: int) -> None:
    print(f"\n--- {size} chunks ---", flush=True)
    subprocess.run([sys.executable, __file__, "--serve", "--home", str(home)], check=True, env=os.environ)


def serve(home: Path) -> None:
    """Run in a fresh process: only searching, so its peak memory is the server's."""
    os.environ["SIFT_HOME"] = str(home)
    from search.query.engine import from_settings
    from search.settings import load
    base = shared_data("scifact")
    claims = [line.split("\t", 1)[1].strip() for line in open(base / "queries.tsv", encoding="utf-8")]
    queries = (claims + NOTE_QUERIES * 20)[:QUERIES]
    engine = from_settings(load())
    engine.query_vectors_kept = 0  # every timed query is embedded
    started = time.perf_counter()
    engine.warm()
    print(f"loaded the keyword postings and vectors in {time.perf_counter() - started:.1f} s", flush=True)
    results = {}
    for mode in ("keyword", "semantic", "hybrid"):
        for query in queries[:20]:  # warm: model loaded, matrix in memory, pages cached
            engine.search(query, limit=10, mode=mode)
        times = []
        for query in queries:
            started = time.perf_counter()
            engine.search(query, limit=10, mode=mode)
            times.append((time.perf_counter() - started) * 1000)
        results[mode] = (percentile(times, 0.5), percentile(times, 0.95))
        print(f"{mode:<9} p50 {results[mode][0]:7.1f} ms   p95 {results[mode][1]:7.1f} ms", flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of the serving process: {peak:.0f} MB", flush=True)
    baseline = fts5_baseline(engine, queries)
    print(f"baseline, keyword ranked by FTS5's bm25() itself: p50 {baseline[0]:7.1f} ms   p95 {baseline[1]:7.1f} ms"
          f"   (postings in memory: {baseline[0] / results['keyword'][0]:.0f}x faster at p50)", flush=True)
    after = after_publish(engine, home, queries[0])
    print(f"first hybrid search after a publish: median {after[0]:.1f} ms, worst {after[1]:.1f} ms "
          f"(catalog, new postings and vectors read)", flush=True)
    print(json.dumps({"modes": results, "peak_mb": peak, "after_publish_ms": after}), file=sys.stderr)


def fts5_baseline(engine, queries: list[str]) -> tuple[float, float]:
    """Keyword search as it was before the postings were held in memory: FTS5 ranks every match."""
    from search.query.engine import Engine
    plain = Engine(engine.index_path, keyword_postings=False)
    for query in queries[:20]:
        plain.search(query, limit=10, mode="keyword")
    times = []
    for query in queries:
        started = time.perf_counter()
        plain.search(query, limit=10, mode="keyword")
        times.append((time.perf_counter() - started) * 1000)
    return percentile(times, 0.5), percentile(times, 0.95)


def after_publish(engine, home: Path, query: str, rounds: int = 5) -> tuple[float, float]:
    """Edit a note in a small collection of its own, publish it, and time the next search (median, worst).

    Runs after the peak memory is taken: the pipeline runs in this process (huey's immediate mode).
    """
    from search.index import store
    from workers import runtime, tasks
    from workers.app import huey
    huey.immediate = True
    runtime.reset()
    root = home / "scratch"
    root.mkdir(exist_ok=True)
    collection = store.ensure_collection(runtime.index(), "scratch", str(root))
    times = []
    for n in range(rounds + 1):
        (root / "note.md").write_text(f"# Scratch\n\nEdit number {n} at {time.time()}.\n", encoding="utf-8")
        tasks.discover(collection["id"])
        started = time.perf_counter()
        engine.search(query, limit=10, mode="hybrid")
        times.append((time.perf_counter() - started) * 1000)
    times = times[1:]  # the first round adds the collection itself
    return percentile(times, 0.5), max(times)


# --- the HTTP server's plain SQL reads: worker threads or aiosqlite ------------------------------

def measure_reads(home: Path) -> None:
    """The plain reads of read_file, list_files and stats, by 1 and by 20 concurrent callers, done as the
    server does them (the whole tool's reads in one worker thread, with that thread's own connection) and
    through aiosqlite (each query awaited on the event loop; one connection, and a pool of 4)."""
    import asyncio
    from search.index.collection_reads import VISIBLE
    index = home / "index.db"
    conn = sqlite3_reader(index)
    collection, path = conn.execute(f"SELECT c.name, f.path FROM files f JOIN collections c ON c.id = f.collection "
                                    f"WHERE {VISIBLE} ORDER BY f.id LIMIT 1").fetchone()
    reads = {
        "read_file lookups": [("SELECT name, root FROM collections", ()),
                              (f"SELECT f.*, c.published FROM files f JOIN collections c ON c.id = f.collection "
                               f"WHERE c.name = ? AND f.path = ? AND {VISIBLE}", (collection, path))],
        "list_files (one collection)": [(f"SELECT c.name, c.root, f.path, f.kind, f.size, f.mtime FROM files f "
                                         f"JOIN collections c ON c.id = f.collection WHERE {VISIBLE} AND c.name = ?",
                                         (collection,))],
        "stats counts": [("SELECT count(DISTINCT f.id), count(ch.id) FROM files f JOIN collections c ON "
                          "c.id = f.collection LEFT JOIN chunks ch ON ch.file = f.id WHERE c.name = ? AND "
                          "f.gen_from <= c.published AND (f.gen_to IS NULL OR f.gen_to > c.published)", (collection,)),
                         ("SELECT * FROM collections ORDER BY name", ())],
    }
    print(f"{'plain reads, ms per tool call':<30} {'callers':>7} {'threads p50/p95':>17} {'aiosqlite x1':>15} "
          f"{'aiosqlite x4':>15}", flush=True)
    figures = {}
    for name, queries in reads.items():
        for callers in (1, 20):
            row = asyncio.run(_compare_reads(index, queries, callers))
            figures[f"{name}/{callers}"] = row
            print(f"{name:<30} {callers:>7} " + " ".join(f"{p50:7.2f} / {p95:6.2f}" for p50, p95 in row), flush=True)
    print(json.dumps({"plain_reads": figures}), file=sys.stderr)


def sqlite3_reader(index: Path):
    from search.index import db
    return db.connect(index, readonly=True)


async def _compare_reads(index: Path, queries, callers: int, calls: int = 40) -> list[tuple[float, float]]:
    import threading

    import aiosqlite
    import anyio.to_thread

    from search.index import db
    local = threading.local()

    def in_thread():
        conn = getattr(local, "conn", None) or sqlite3_reader(index)
        local.conn = conn
        with db.snapshot(conn):
            return [conn.execute(sql, args).fetchall() for sql, args in queries]

    async def threads():
        return await anyio.to_thread.run_sync(in_thread)

    pools = []
    for size in (1, 4):
        pool = [aiosqlite.Connection(lambda: sqlite3_reader(index), 64) for _ in range(size)]
        for conn in pool:
            await conn
        pools.append(pool)

    def through(pool):
        turn = iter(range(10**9))

        async def read():
            conn = pool[next(turn) % len(pool)]
            out = []
            for sql, args in queries:  # no snapshot: a BEGIN would hold the shared connection across awaits
                async with conn.execute(sql, args) as cursor:
                    out.append(await cursor.fetchall())
            return out
        return read

    row = []
    for call in (threads, through(pools[0]), through(pools[1])):
        for _ in range(5):
            await call()  # warm: connections open, pages cached
        times: list[float] = []

        async def caller():
            for _ in range(calls):
                started = time.perf_counter()
                await call()
                times.append((time.perf_counter() - started) * 1000)
        import asyncio
        await asyncio.gather(*(caller() for _ in range(callers)))
        row.append((percentile(times, 0.5), percentile(times, 0.95)))
    for pool in pools:
        for conn in pool:
            await conn.close()
    return row


# --- over MCP: stdio and Streamable HTTP ------------------------------------------------------

def measure_transports(home: Path) -> None:
    """The same searches through the real stdio and Streamable HTTP clients, each to its own server."""
    import anyio
    base = shared_data("scifact")
    claims = [line.split("\t", 1)[1].strip() for line in open(base / "queries.tsv", encoding="utf-8")]
    timed, warm = claims[:QUERIES], claims[QUERIES:QUERIES + 20]  # all distinct: every timed query is embedded
    rows = {}
    for transport in ("stdio", "http"):
        rows[transport] = anyio.run(_measure_over, transport, home, timed, warm)
    print(f"{'':<6} {'keyword p50 / p95':>20} {'hybrid p50 / p95':>20}   stats, list_files, read_file p50 (ms)")
    for transport, r in rows.items():
        print(f"{transport:<6} {r['keyword'][0]:8.1f} / {r['keyword'][1]:5.1f} ms {r['hybrid'][0]:8.1f} / "
              f"{r['hybrid'][1]:5.1f} ms   {r['stats'][0]:.1f}, {r['list_files'][0]:.1f}, {r['read_file'][0]:.1f}",
              flush=True)
    print(json.dumps(rows), file=sys.stderr)


async def _measure_over(transport: str, home: Path, timed: list[str], warm: list[str]) -> dict:
    async with _session(transport, home) as session:
        await _wait_ready(session)
        results = {}
        for mode in ("keyword", "hybrid"):
            for query in warm:
                await session.call_tool("search", {"query": query, "mode": mode})
            results[mode] = await _timed(session, [("search", {"query": q, "mode": mode}) for q in timed])
        listed = await session.call_tool("list_files", {"limit": 20})
        path = listed.structured_content["files"][0]["path"]
        for name, arguments in (("stats", {}), ("list_files", {"limit": 50}), ("read_file", {"path": path})):
            results[name] = await _timed(session, [(name, arguments)] * 50)
        return results


async def _timed(session, calls) -> tuple[float, float]:
    times = []
    for name, arguments in calls:
        started = time.perf_counter()
        result = await session.call_tool(name, arguments)
        times.append((time.perf_counter() - started) * 1000)
        if result.is_error:
            raise RuntimeError(f"{name} failed: {result.content[0].text}")
    return percentile(times, 0.5), percentile(times, 0.95)


async def _wait_ready(session) -> None:
    """Until the model is loaded (the server loads it and the postings in the background at start)."""
    for _ in range(600):
        stats = await session.call_tool("stats", {})
        if stats.structured_content["model"]["state"] in ("ready", "failed"):
            await session.call_tool("search", {"query": "warm", "mode": "hybrid"})
            return
        await _sleep(0.5)


async def _sleep(seconds: float) -> None:
    import anyio
    await anyio.sleep(seconds)


def _session(transport: str, home: Path):
    """A context manager giving an initialized MCP client session to a fresh server process."""
    import secrets
    import socket
    from contextlib import asynccontextmanager

    from mcp.client.session import ClientSession
    env = {**os.environ, "SIFT_HOME": str(home), "SIFT_HTTP_TOKEN": secrets.token_urlsafe(24),
           "SIFT_HTTP_RATE": "100000", "SIFT_HTTP_BURST": "100000"}  # the bench, not the limits, is measured
    command = str(Path(sys.executable).parent / "sift-mcp")

    @asynccontextmanager
    async def stdio():
        from mcp.client.stdio import StdioServerParameters, stdio_client
        params = StdioServerParameters(command=command, args=["--no-worker"], env=env)
        async with stdio_client(params, errlog=open(os.devnull, "w")) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            yield session

    @asynccontextmanager
    async def http():
        import httpx2
        from mcp.client.streamable_http import streamable_http_client
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = subprocess.Popen([command, "--http", f"127.0.0.1:{port}", "--no-worker"], env=env,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            await _wait_port(port, server)
            headers = {"Authorization": f"Bearer {env['SIFT_HTTP_TOKEN']}"}
            async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60, read=300)) as client, \
                    streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=client) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                yield session
        finally:
            server.terminate()
            server.wait(timeout=30)

    return stdio() if transport == "stdio" else http()


async def _wait_port(port: int, server) -> None:
    import socket
    for _ in range(1200):
        if server.poll() is not None:
            sys.exit(f"sift-mcp --http exited with {server.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            await _sleep(0.1)
    sys.exit("sift-mcp --http did not start listening")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, help="build (or reuse) the index here")
    parser.add_argument("--target", type=int, default=100_000)
    parser.add_argument("--with-notes", action="store_true", help="also index notes-en (3.5k chunks to embed)")
    parser.add_argument("--http", action="store_true", help="10k chunks only: search over the real MCP clients, "
                        "stdio and Streamable HTTP")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.home)
        return
    if args.home:
        args.home.mkdir(parents=True, exist_ok=True)
        os.environ["SIFT_HOME"] = str(args.home)
        home = args.home
        if not os.environ.get("SIFT_MODEL"):
            fresh_home("unused")
            os.environ["SIFT_HOME"] = str(home)
    else:
        home = fresh_home("bench-latency")
    use_all_cores()
    started = time.perf_counter()
    sizes = build(home, args.target, args.with_notes, http=args.http)
    print(f"\nbuilt {sizes} chunks in {time.perf_counter() - started:.0f} s ({home})")


if __name__ == "__main__":
    main()
