"""Query speed at about 100,000 passages of mixed kinds: English notes, Chinese documents and code.

Builds (or reuses, with --home) an index of notes-en (English prose), zh-retrieval's documents (Chinese) and
code (a few modules of Python's asyncio and the installed aiosqlite and huey, copied into the home) through the real pipeline
(huey's immediate mode, in this process), then copies of those folders as further collections until it holds
about ``--target`` passages (the copies' vectors come from the embedding cache: nothing is embedded twice).
Only the first ``--zh-docs`` of zh-retrieval's documents are taken (embedding is slow on 2 shared cores).
``--seed INDEX`` first copies the vectors of another index (same model) into this one's embedding cache, so
texts it embedded are not embedded again.

Then, in a fresh process that only serves searches (``--serve``): per query group (English prose, Chinese, code
names, camelCase names with prose beside them) and mode (keyword, semantic, hybrid), p50 / p95 over ``--runs``
rounds of the group's queries (each round a median; semantic and hybrid embed every timed query); the same with a
folder (``path_prefix``) and a glob; ``similar``; keyword searches on an engine that never holds the postings
(FTS5's ``bm25()`` answers, as while they are read after a start); and, with ``--mcp``, a real
``sift-mcp --no-worker`` under the real stdio client: start to its first keyword answer, and its RSS.

    .venv/bin/python bench/queries_at_scale.py [--home DIR] [--target 100000] [--seed INDEX] [--runs 7] [--mcp]
        [--top10 FILE] [--profile GROUP]

``--top10 FILE`` writes the top 10 (chunk ids and scores) of every query, mode and filter as JSON, to compare the
ranking before and after a change (``--compare A B``).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from common import copy_until, fresh_home, percentile, published_chunks, shared_data, use_all_cores

GROUPS = {
    "english": ["undo the last commit", "rebase interactive", "docker compose volumes", "postgres index",
                "how do I list running containers", "vim macros", "tmux split pane", "jq filter arrays"],
    "chinese": ["高血压吃什么药", "孩子发烧怎么办", "糖尿病饮食注意什么", "失眠多梦", "胃痛", "颈椎病的治疗方法"],
    "code": ["StreamWriter", "create_task", "periodic_task", "Connection.execute", "open_connection",
             "CancelledError", "run_until_complete", "get_event_loop"],
    "camel+prose": ["how does StreamWriter write data to the stream", "readFile error handling",
                    "StreamReader readline limit", "when is TimeoutError raised by wait_for",
                    "BaseEventLoop create server on a socket", "how to close a StreamWriter cleanly"],
}
ASYNCIO = ("streams.py", "exceptions.py")
FOLDER = "asyncio"  # path_prefix in the code collections
GLOB = "**/*stream*.py"


def build(home: Path, target: int, seeds: list[Path], zh_docs: int) -> int:
    from search.index import store
    from workers import runtime, tasks
    from workers.app import huey
    huey.immediate = True
    runtime.reset()
    conn = runtime.index()

    def seeded() -> None:  # before each build: a publish's clean-up drops the vectors no passage uses
        for seed in seeds:
            conn.execute("ATTACH DATABASE ? AS seed", (f"file:{seed}?mode=ro",))
            conn.execute("INSERT OR IGNORE INTO vectors SELECT * FROM seed.vectors")
            conn.commit()
            conn.execute("DETACH DATABASE seed")
    code, zh = home / "corpus" / "code", home / "corpus" / "zh"
    if not code.exists():
        import asyncio

        import aiosqlite
        import huey as huey_package
        for package in (aiosqlite, huey_package):
            source = Path(package.__file__).parent
            shutil.copytree(source, code / source.name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        (code / "asyncio").mkdir()
        for name in ASYNCIO:
            shutil.copy(Path(asyncio.__file__).parent / name, code / "asyncio" / name)
    if not zh.exists():
        zh.mkdir(parents=True)
        for doc in sorted((shared_data("zh-retrieval") / "docs").glob("*.md"))[:zh_docs]:
            shutil.copy(doc, zh / doc.name)
    corpora = [("notes", shared_data("notes-en")), ("zh", zh), ("code", code)]

    def add(name: str, root: Path) -> None:
        collection = store.ensure_collection(conn, name, str(root))
        if collection["published"] is None:
            seeded()
            started = time.perf_counter()
            tasks.discover(collection["id"])
            print(f"indexed {name}: {published_chunks(conn)} passages in all ({time.perf_counter() - started:.0f} s)",
                  flush=True)

    for name, root in corpora:
        add(name, root)
    copy_until(conn, home, corpora, add, target)
    return published_chunks(conn)


def _timed(search, queries: list[str], runs: int) -> tuple[float, float, dict]:
    """(p50, p95) in ms over every query of every run, each query's time the median of its ``runs``; and each
    query's last answer's top 10."""
    per_query, tops = [], {}
    for query in queries:
        times = []
        for _ in range(runs):
            _forget_snippets()
            started = time.perf_counter()
            answer = search(query)
            times.append((time.perf_counter() - started) * 1000)
        per_query.append(statistics.median(times))
        tops[query] = [(h.chunk_id, h.score) for h in answer.hits]
    return percentile(per_query, 0.5), percentile(per_query, 0.95), tops


def _forget_snippets() -> None:
    """Empty the snippets' caches of matches (where the code has them): a query timed again is matched as a new one."""
    from search.query import snippet
    for kept in (getattr(snippet, "_matches", None), getattr(snippet, "_shown", None)):
        getattr(kept, "cache_clear", lambda: None)()


def serve(home: Path, runs: int, top10: Path | None, profile: str | None) -> None:
    """In a fresh process: only searching, so its peak memory is the server's."""
    os.environ["SIFT_HOME"] = str(home)
    from search.query.engine import Engine, from_settings
    from search.query.filters import Filters
    from search.settings import load
    engine = from_settings(load())
    started = time.perf_counter()
    engine.warm()
    print(f"engine.warm(): postings, catalog and vectors read in {time.perf_counter() - started:.1f} s", flush=True)
    tops: dict = {}
    if profile:
        _profile(engine, GROUPS[profile])
        return
    cases = [("-", Filters()), (f"path_prefix={FOLDER}", None), (f"glob={GLOB}", Filters(glob=GLOB))]
    print(f"{'group':<12}{'mode':<10}{'filter':<22}{'p50 ms':>9}{'p95 ms':>9}", flush=True)
    for group, queries in GROUPS.items():
        for mode in ("keyword", "semantic", "hybrid"):
            for label, filters in cases:
                if filters is None:  # the folder, in the first code collection
                    filters = Filters(collection="code", path_prefix=FOLDER)
                for query in queries:  # warm: model loaded, masks made, pages cached
                    engine.search(query, limit=10, mode=mode, filters=filters)
                engine.query_vectors_kept = 0  # every timed query is embedded

                def search(query, mode=mode, filters=filters):
                    return engine.search(query, limit=10, mode=mode, filters=filters)
                p50, p95, top = _timed(search, queries, runs)
                engine.query_vectors_kept = 256
                tops.update({f"{mode}|{label}|{q}": t for q, t in top.items()})
                print(f"{group:<12}{mode:<10}{label:<22}{p50:>9.1f}{p95:>9.1f}", flush=True)
    similar = []
    for chunk_id in sorted({t[0][0] for t in tops.values() if t})[:20]:
        t = time.perf_counter()
        answer = engine.similar(chunk_id=chunk_id)
        similar.append((time.perf_counter() - t) * 1000)
        tops[f"similar|{chunk_id}"] = [(h.chunk_id, h.score) for h in answer.hits]
    print(f"similar (20 passages)    p50 {percentile(similar, 0.5):7.1f} ms  p95 {percentile(similar, 0.95):7.1f} ms")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of the serving process: {peak:.0f} MB", flush=True)
    fts = Engine(engine.index_path, None, keyword_postings=False)
    for group, queries in GROUPS.items():
        for query in queries:
            fts.search(query, limit=10, mode="keyword")
        p50, p95, top = _timed(lambda q: fts.search(q, limit=10, mode="keyword"), queries, runs)
        tops.update({f"fts5|-|{q}": t for q, t in top.items()})
        print(f"{group:<12}{'fts5':<10}{'- (no postings)':<22}{p50:>9.1f}{p95:>9.1f}", flush=True)
    if top10:
        top10.write_text(json.dumps(tops, indent=1, ensure_ascii=False))


def _profile(engine, queries: list[str]) -> None:
    """cProfile of 5 rounds of ``queries`` in each mode (query vectors kept: embedding them is llama.cpp's)."""
    import cProfile
    import pstats
    for mode in ("keyword", "semantic", "hybrid"):
        for query in queries:
            engine.search(query, limit=10, mode=mode)
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(5):
            for query in queries:
                engine.search(query, limit=10, mode=mode)
        prof.disable()
        print(f"--- cProfile, 5 x {len(queries)} searches, {mode} ---")
        pstats.Stats(prof).sort_stats("cumulative").print_stats(35)


async def over_mcp(home: Path, runs: int) -> None:
    """A real ``sift-mcp --no-worker`` under the real stdio client: start to its first keyword answer (camelCase and
    prose, as the postings are still being read), then to the postings being read; its RSS."""
    import asyncio

    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from big_index import _rss_mb, _server_pid
    env = {**os.environ, "SIFT_HOME": str(home)}
    firsts, reads, rss = [], [], []
    for _ in range(runs):
        started = time.perf_counter()
        params = StdioServerParameters(command=str(Path(sys.executable).parent / "sift-mcp"), args=["--no-worker"],
                                       env=env)
        async with stdio_client(params, errlog=open(os.devnull, "w")) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            await session.call_tool("search", {"query": GROUPS["camel+prose"][0], "mode": "keyword"})
            firsts.append(time.perf_counter() - started)
            pid = _server_pid(os.getpid())
            for _ in range(600):
                stats = await session.call_tool("stats", {})
                if stats.structured_content["model"]["state"] in ("ready", "failed"):
                    break
                await asyncio.sleep(0.5)
            await session.call_tool("search", {"query": "warm", "mode": "hybrid"})
            for _ in range(120):  # FTS5 answers until the postings are read: 'the' is in most passages
                answer = await session.call_tool("search", {"query": "the", "mode": "keyword"})
                took = re.search(r"\(keyword, ([0-9.]+) ms", answer.content[0].text)
                if took and float(took.group(1)) < 30:
                    break
                await asyncio.sleep(0.5)
            reads.append(time.perf_counter() - started)
            rss.append(_rss_mb(pid))
    print(f"sift-mcp start → first keyword answer: median {statistics.median(firsts):.2f} s "
          f"({', '.join(f'{s:.2f}' for s in firsts)}); → postings read and model ready: median "
          f"{statistics.median(reads):.1f} s; RSS then {statistics.median(rss):.0f} MB", flush=True)


def compare(a: Path, b: Path) -> None:
    """Exit 1 unless two ``--top10`` files hold the same chunks in the same order, scores within 1e-6 of each
    other (the postings score in float32: FTS5's bm25() and they differ by up to about 3e-7)."""
    left, right = json.loads(a.read_text()), json.loads(b.read_text())
    keys = [key for key in left if key in right]
    differ = [key for key in keys if [c for c, _ in left[key]] != [c for c, _ in right[key]]
              or any(abs(x - y) > 1e-6 * max(1.0, abs(x)) for (_, x), (_, y) in zip(left[key], right[key]))]
    most = max((abs(x - y) / max(1.0, abs(x)) for key in keys for (_, x), (_, y) in zip(left[key], right[key])),
               default=0.0)
    print(f"{len(keys)} rankings compared, {len(differ)} differ; scores at most {most:.1e} apart (relative)"
          + "".join(f"\n  {k}" for k in differ))
    sys.exit(1 if differ else 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, help="build (or reuse) the index here")
    parser.add_argument("--target", type=int, default=100_000)
    parser.add_argument("--seed", type=Path, action="append", default=[],
                        help="an index.db whose vectors (same model) seed the embedding cache (may be repeated)")
    parser.add_argument("--zh-docs", type=int, default=600, help="zh-retrieval's first N documents (600)")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--mcp", action="store_true", help="also sift-mcp's start and RSS (--runs starts)")
    parser.add_argument("--mcp-only", action="store_true", help="only sift-mcp's start and RSS (--runs starts)")
    parser.add_argument("--top10", type=Path)
    parser.add_argument("--profile", choices=sorted(GROUPS), help="cProfile the group's keyword searches instead")
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("A", "B"))
    parser.add_argument("--build-only", action="store_true", help="only build (or complete) the index")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.compare:
        compare(*args.compare)
    if args.serve:
        serve(args.home, args.runs, args.top10, args.profile)
        return
    if args.home:
        args.home.mkdir(parents=True, exist_ok=True)
        if not os.environ.get("SIFT_MODEL"):
            fresh_home("unused")
        os.environ["SIFT_HOME"] = str(args.home)
        home = args.home.resolve()
    else:
        home = fresh_home("bench-queries-at-scale")
    use_all_cores()
    started = time.perf_counter()
    size = build(home, args.target, args.seed, args.zh_docs)
    print(f"\n{size} passages ({home}, {time.perf_counter() - started:.0f} s)\n", flush=True)
    if args.build_only:
        return
    if args.mcp_only:
        import asyncio
        asyncio.run(over_mcp(home, args.runs))
        return
    command = [sys.executable, __file__, "--serve", "--home", str(home), "--runs", str(args.runs)]
    command += ["--top10", str(args.top10)] if args.top10 else []
    command += ["--profile", args.profile] if args.profile else []
    subprocess.run(command, check=True, env=os.environ)
    if args.mcp:
        import asyncio
        asyncio.run(over_mcp(home, min(args.runs, 3)))


if __name__ == "__main__":
    main()
