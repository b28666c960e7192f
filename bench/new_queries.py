"""CPU time of a search whose query was not asked before, as an assistant's are: per query kind and mode.

An assistant calls search many times for one question, each time with other words. A search's steps that depend on
the query alone (its snippet pattern, its forms) are cached per query, so asking one query again measures only the
ranking; here each search asks a query this process has not seen. Kinds: a short English query, a long one (a
SciFact claim), a short and a long Chinese one (zh-retrieval's questions), a pasted Python stack trace (a name
and a path that change from one to the next). Modes keyword, semantic and hybrid; the small model (MiniLM).

The index holds ``--files`` notes of notes-en, as many SciFact abstracts and as many zh-retrieval answers, built
into ``--home`` once (reused after). Each side is served by a fresh process: its first search (cold, after
``warm()``), then ``--runs`` new queries per kind and mode (warm); the figures are the median CPU milliseconds of the
process (the machine is shared: CPU time is the steadier figure). ``--before REV`` serves the same from git
revision REV (a temporary worktree) and prints each figure with its ratio (after / before); the sides alternate
``--rounds`` times and each figure is the median of the rounds.

    SIFT_MODEL=<minilm.gguf> .venv/bin/python bench/new_queries.py --home DIR [--before REV] [--rounds 3]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import REPO, cpu_seconds, median, shared_data

MODES = ("keyword", "semantic", "hybrid")
TRACE = ('Traceback (most recent call last):\n  File "/srv/app/.venv/lib/python3.11/site-packages/{name}/core.py", '
         'line {line}, in {name}_handler\n    return session.{name}(request, timeout=30)\n'
         '  File "/srv/app/{name}/views.py", line {line2}, in dispatch\n'
         "TypeError: unsupported operand type(s) for +: 'NoneType' and 'int'")
TRACE_NAMES = ["upload", "render", "checkout", "login", "search", "export", "payment", "report", "sync", "cache",
               "invoice", "archive", "notify", "resize", "billing", "profile", "import", "backup", "stream", "queue"]


def queries(runs: int) -> dict[str, list[str]]:
    """``runs`` * 3 + 1 different queries of each kind (the first is the cold search's, then ``runs`` per mode)."""
    claims = [line.split("\t", 1)[1].strip() for line in (shared_data("scifact") / "queries.tsv").open(encoding="utf-8")]
    chinese = [line.split("\t", 1)[1].strip() for line in
               (shared_data("zh-retrieval") / "queries.tsv").open(encoding="utf-8")]
    titles = sorted(p.stem.replace("-", " ") for p in shared_data("notes-en").rglob("*.md"))
    n = runs * len(MODES) + 1
    return {"english short": [" ".join(t.split()[:3]) for t in titles[::len(titles) // n]][:n],
            "english long": claims[:n],
            "chinese short": [q for q in chinese if len(q) <= 8][:n],
            "chinese long": [q for q in chinese if len(q) >= 16][:n],
            "stack trace": [TRACE.format(name=name, line=10 + i, line2=200 + i)
                            for i, name in enumerate((TRACE_NAMES * 3)[:n])]}


def build(home: Path, files: int) -> None:
    if (home / "index.db").exists():
        return
    os.environ["SIFT_HOME"] = str(home)
    sys.path.insert(0, str(REPO))
    from search.index import store
    from workers import runtime, tasks
    from workers.app import huey
    huey.immediate = True
    runtime.reset()
    conn = runtime.index()
    picks = {"notes": sorted(shared_data("notes-en").rglob("*.md"))[:files],
             "scifact": sorted((shared_data("scifact") / "docs").glob("*.md"))[:files],
             "zh": sorted((shared_data("zh-retrieval") / "docs").glob("*.md"))[:files]}
    for name, paths in picks.items():
        root = home / "corpora" / name
        for i, path in enumerate(paths):
            target = root / f"{i // 100}" / path.name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, target)
        tasks.discover(store.ensure_collection(conn, name, str(root))["id"])


def serve(home: Path, runs: int, source: Path) -> None:
    """Print, as JSON, {kind/mode: [cpu ms of each new query]} and the cold search's, searching with the code at
    ``source`` (first on the path: common.py put this checkout's there)."""
    os.environ["SIFT_HOME"] = str(home)
    sys.path.insert(0, str(source))
    from search.query import engine as engine_module
    assert Path(engine_module.__file__).is_relative_to(source), engine_module.__file__
    from search.query.engine import from_settings
    from search.settings import load
    engine = from_settings(load())
    engine.warm()
    asked = queries(runs)
    figures = {}
    answers = hashlib.sha256()  # every answer's hits, scores, snippets and notes: the sides must give the same
    started = time.process_time()
    engine.search(asked["english short"][0], mode="hybrid")
    figures["cold hybrid"] = [(time.process_time() - started) * 1000]
    for kind, texts in asked.items():
        for at, mode in enumerate(MODES):
            times = []
            for text in texts[1 + at * runs:1 + (at + 1) * runs]:
                started = time.process_time()
                answer = engine.search(text, mode=mode)
                times.append((time.process_time() - started) * 1000)
                answers.update(hashlib.sha256(repr([(h.chunk_id, h.score, h.snippet) for h in answer.hits]
                                                   + answer.notes).encode()).digest())
            figures[f"{kind} / {mode}"] = times
    print(json.dumps({"figures": figures, "answers": answers.hexdigest()}))


def serve_over_mcp(home: Path, runs: int, source: Path) -> None:
    """``serve``'s figures through the real MCP stdio client, to a fresh ``sift-mcp --no-worker`` running the code
    at ``source``: the server process's CPU ms per search (its first search after the model is ready: cold)."""
    import anyio
    print(json.dumps(anyio.run(_over_mcp, home, runs, source)))


async def _over_mcp(home: Path, runs: int, source: Path) -> dict:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    env = {**os.environ, "SIFT_HOME": str(home), "PYTHONPATH": str(source)}
    params = StdioServerParameters(command=str(Path(sys.executable).parent / "sift-mcp"), args=["--no-worker"], env=env)
    asked, figures, answers = queries(runs), {}, hashlib.sha256()
    async with stdio_client(params, errlog=open(os.devnull, "w")) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        server = _child_server()
        for _ in range(600):
            if (await session.call_tool("stats", {})).structured_content["model"]["state"] in ("ready", "failed"):
                break
            await anyio.sleep(0.5)

        async def timed(text: str, mode: str) -> float:
            started = cpu_seconds(server)
            result = await session.call_tool("search", {"query": text, "mode": mode})
            answers.update(json.dumps(_untimed(result.structured_content), sort_keys=True, default=str).encode())
            return (cpu_seconds(server) - started) * 1000
        figures["cold hybrid"] = [await timed(asked["english short"][0], "hybrid")]
        for kind, texts in asked.items():
            for at, mode in enumerate(MODES):
                figures[f"{kind} / {mode}"] = [await timed(text, mode)
                                               for text in texts[1 + at * runs:1 + (at + 1) * runs]]
    return {"figures": figures, "answers": answers.hexdigest()}


def _untimed(value):
    """An answer without what differs from run to run: its timings (took_ms, published_age_seconds), and its scores'
    last digits (FTS5 answers until the postings are read, and their BM25 sums round the 6th decimal otherwise)."""
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if "took" not in k and "age_seconds" not in k}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return round(value, 4) if isinstance(value, float) else value


def _child_server() -> int:
    """The pid of this process's sift-mcp child."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)
        except OSError:
            continue
        if int(fields[1].split()[1]) == os.getpid() and "sift-mcp" in Path(stat.parent, "cmdline").read_text():
            return int(stat.parent.name)
    raise RuntimeError("no sift-mcp child found")


def run_side(code: Path, home: Path, runs: int, mcp: bool = False) -> tuple[dict[str, float], str]:
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--serve", "--home", str(home),
                          "--runs", str(runs), "--source", str(code), *(["--mcp"] if mcp else [])],
                         check=True, capture_output=True, text=True)
    served = json.loads(out.stdout.strip().splitlines()[-1])
    return {key: median(values) for key, values in served["figures"].items()}, served["answers"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before")
    parser.add_argument("--serve", action="store_true")
    parser.add_argument("--source", type=Path, default=REPO)
    parser.add_argument("--mcp", action="store_true", help="through sift-mcp over stdio")
    args = parser.parse_args()
    if args.serve:
        return (serve_over_mcp if args.mcp else serve)(args.home, args.runs, args.source.resolve())
    build(args.home, args.files)
    sides = {"after": REPO}
    worktree = None
    if args.before:
        worktree = (Path(tempfile.mkdtemp(prefix="sift-before-")) / "code").resolve()
        subprocess.run(["git", "worktree", "add", "-q", "--detach", str(worktree), args.before], cwd=REPO, check=True)
        sides["before"] = worktree
    try:
        rounds, answers = {side: [] for side in sides}, {side: set() for side in sides}
        for _ in range(args.rounds):
            for side, code in sides.items():
                figures, digest = run_side(code, args.home, args.runs, args.mcp)
                rounds[side].append(figures)
                answers[side].add(digest)
    finally:
        if worktree is not None:
            subprocess.run(["git", "worktree", "remove", "--force", str(worktree)], cwd=REPO, check=True)
    figures = {side: {key: median([r[key] for r in results]) for key in results[0]} for side, results in rounds.items()}
    print(f"CPU ms per search{' of the sift-mcp process' if args.mcp else ''}, median of {args.runs} new queries "
          f"(cold: the first search), {args.rounds} rounds")
    for key, after in figures["after"].items():
        line = f"{key:32} {after:8.1f}"
        if "before" in figures:
            before = figures["before"][key]
            line += f"   before {before:8.1f}   after/before {after / before:5.2f}"
        print(line, flush=True)
    same = len(set.union(*answers.values())) == 1
    print("answers (hits, scores, snippets, notes):", "the same on every side and round" if same else "DIFFER")


if __name__ == "__main__":
    main()
