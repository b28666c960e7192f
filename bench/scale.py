"""`bench/scale.py`: many small Markdown files through the real pipeline (issue 15, item 1).

Generates (once, reused) a corpus of N small notes in nested folders whose bodies are 200 distinct texts, so
that after the first 200 chunks every embedding is a cache hit and what is measured is the pipeline's own cost.
Then, in a fresh home, runs what a user runs: a real `huey_consumer workers.app.huey -k process -w 2` and
`ingest enqueue`, and prints:

- files/s end to end (enqueue → published) and the wall time;
- time per stage: discover (walk + plan from the generation's timestamps; the whole task from huey's log),
  parse, chunk, embed, write (the sum of their jobs' durations in huey's log, i.e. worker-seconds, and the job
  count), publish (the last file written → the generation's `finished`);
- CPU seconds and peak RSS (VmHWM) of each process of the consumer (the consumer, its scheduler, each worker);
- `stats` latency during the build: the MCP `stats` tool's own code (`mcp_server.report.stats`: status.collect,
  freshness, the queue count, the text) on a read-only connection of this process, about once a second: median
  and max;
- with `--rebuild`: every file is rewritten (the same 200 texts, shifted) and built again over the published
  generation, while keyword searches run and must keep answering from the previous generation.

Load average at start and end: the machine is shared, so CPU seconds say more than wall time.

    .venv/bin/python bench/scale.py [--files 200000] [--corpus DIR] [--model e5|minilm|PATH] [--rebuild]
        [--warm] [--keep-home]

``--warm`` first embeds the 200 texts in a collection of their own, so the build embeds nothing and its
figures are the pipeline's own cost (what the optimisations were measured with).
"""
from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

from common import BIN, REPO, consumer as start_consumer, cpu_seconds, group_pids, stop

TEXTS = 200
CORPUS_VERSION = 1  # bump when the generator changes, so an old corpus is made again
WORDS = ("ledger invoice contract payment renewal warehouse inventory sync interface client meeting budget "
         "release schedule migration database index query cache worker queue latency throughput replica "
         "backup restore snapshot journal commit branch merge review deploy rollback monitor alert metric "
         "dashboard report summary quarter forecast supplier shipment order return refund customer ticket "
         "support escalation policy audit compliance security token session password vault secret rotate "
         "archive retention notebook draft outline chapter reference citation author editor publish").split()


# --- the corpus ---------------------------------------------------------------------------------------------

def texts() -> list[str]:
    """200 distinct Markdown bodies of a few hundred bytes: a title, a paragraph, a short list."""
    rng = random.Random(15)
    out = []
    for k in range(TEXTS):
        title = " ".join(rng.choice(WORDS) for _ in range(3)).capitalize()
        para = " ".join(rng.choice(WORDS) for _ in range(rng.randint(30, 60))).capitalize() + "."
        items = "\n".join(f"- {' '.join(rng.choice(WORDS) for _ in range(4))}" for _ in range(rng.randint(2, 4)))
        out.append(f"# {title} {k}\n\n{para}\n\n{items}\n")
    return out


def shifted(root: Path) -> Path:
    """Where the rebuild's corpus waits: the same paths, every text shifted by one."""
    return root.with_name(root.name + ".shifted")


def swap(root: Path) -> None:
    """Exchange the corpus and its shifted copy (three renames): the collection's root keeps its path and
    every file in it changes."""
    other, spare = shifted(root), root.with_name(root.name + ".swap")
    os.rename(root, spare)
    os.rename(other, root)
    os.rename(spare, other)


def variant_of(folder: Path) -> int | None:
    try:
        return int((folder / ".sift-scale").read_text().split()[2])
    except (OSError, IndexError, ValueError):
        return None


def rel_path(i: int) -> str:
    """note i's path: 1,000 files per top folder, 50 per sub-folder."""
    return f"area-{i // 1000:03d}/topic-{(i // 50) % 20:02d}/note-{i:06d}.md"


def ensure_corpus(folder: Path, files: int, variant: int) -> float:
    """Write the corpus, note i holding text (i + variant) % 200; returns the seconds it took (0: reused).
    Always into new files: rewriting 200,000 files in place took 513 s here against 7 s to create them (ext4
    flushes a file truncated and written again when it is closed)."""
    marker = folder / ".sift-scale"
    want = f"{CORPUS_VERSION} {files} {variant}"
    if marker.exists() and marker.read_text() == want:
        return 0.0
    if folder.exists():
        shutil.rmtree(folder)
    started = time.monotonic()
    bodies = [t.encode() for t in texts()]
    made = set()
    for i in range(files):
        path = folder / rel_path(i)
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        path.write_bytes(bodies[(i + variant) % TEXTS])
    marker.write_text(want)
    return time.monotonic() - started


# --- processes ----------------------------------------------------------------------------------------------

def memory(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) in kB; (0, 0) if the process is gone."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0, 0
    found = dict(re.findall(r"^(VmRSS|VmHWM):\s+(\d+)", text, re.M))
    return int(found.get("VmRSS", 0)), int(found.get("VmHWM", 0))


class Watch:
    """Per process of the consumer's group: CPU seconds and peak RSS, kept after the process ends."""

    def __init__(self, pgid: int):
        self.pgid = pgid
        self.cpu: dict[int, float] = {}
        self.hwm: dict[int, int] = {}

    def sample(self) -> None:
        for pid in group_pids(self.pgid):
            cpu, (_rss, hwm) = cpu_seconds(pid), memory(pid)
            if cpu:
                self.cpu[pid] = cpu
            if hwm:
                self.hwm[pid] = max(hwm, self.hwm.get(pid, 0))


# --- huey's log: how long each job took ---------------------------------------------------------------------

JOB = re.compile(r":(\d+):workers\.tasks\.(\w+): \S+(?: p=\d+)? executed in ([0-9.]+)s")


def job_times(log: Path, offset: int = 0) -> tuple[dict[str, list[float]], dict[str, int]]:
    """stage → durations of its jobs, and pid → jobs run, from the consumer's log after ``offset`` bytes."""
    stages: dict[str, list[float]] = {}
    by_pid: dict[str, int] = {}
    with open(log, "rb") as handle:
        handle.seek(offset)
        for line in handle.read().decode("utf-8", "replace").splitlines():
            m = JOB.search(line)
            if m:
                stages.setdefault(m.group(2), []).append(float(m.group(3)))
                by_pid[m.group(1)] = by_pid.get(m.group(1), 0) + 1
    return stages, by_pid


# --- stats and search from this process ---------------------------------------------------------------------

class Reader:
    """What a `sift-mcp` would do during the build: the stats tool's code and keyword searches."""

    def __init__(self, home: Path):
        from search.index import db
        from search.settings import load
        self.settings = load(home=home)
        self.db = db
        self._conn = None
        self.stats_ms: list[float] = []
        self.warm = False
        self.search_ms: list[float] = []
        self.searches: list[tuple[float, set[int]]] = []  # (when it began, generations its hits came from)
        self.empty_answers = 0
        self.errors: list[str] = []
        self.engine = None

    def conn(self):
        if self._conn is None and self.settings.index_path.exists():
            self._conn = self.db.connect(self.settings.index_path, readonly=True)
        return self._conn

    def stats(self) -> None:
        from mcp_server import report
        if self.conn() is None:
            return
        sift = SimpleNamespace(conn=self.conn, settings=self.settings, worker=None, notices=[],
                               model=SimpleNamespace(describe=lambda: {"state": "not loaded"}))
        started = time.perf_counter()
        report.stats(sift)
        if self.warm:  # the first call imports the report's modules
            self.stats_ms.append((time.perf_counter() - started) * 1000)
        self.warm = True

    def search(self, query: str) -> None:
        from search.query.engine import Engine
        if self.engine is None:
            self.engine = Engine(self.settings.index_path, keyword_postings=False)
        began, started = time.time(), time.perf_counter()
        try:
            answer = self.engine.search(query, limit=5, mode="keyword")
        except Exception as exc:  # noqa: BLE001 - counted and shown, the build goes on
            self.errors.append(f"{type(exc).__name__}: {exc}")
            return
        self.search_ms.append((time.perf_counter() - started) * 1000)
        if not answer.hits:
            self.empty_answers += 1
        self.searches.append((began, {h.generation for h in answer.hits}))


# --- one build ----------------------------------------------------------------------------------------------

def build(root: Path, env: dict, folder: Path, label: str, reader: Reader, searching: bool,
          name: str = "scale") -> dict:
    from search.index import db
    log = folder / "consumer.log"
    offset = log.stat().st_size if log.exists() else 0
    load_start = os.getloadavg()[0]
    consumer = start_consumer("workers.app.huey", env, log)
    watch = Watch(consumer.pid)
    index = Path(env["SIFT_HOME"]) / "index.db"
    before = None
    if index.exists():
        conn = db.connect(index, readonly=True)
        row = conn.execute("SELECT published FROM collections WHERE name = ?", (name,)).fetchone()
        before = row[0] if row else None
        conn.close()
    time.sleep(1.0)  # the consumer's own start (recovery, model) is not the pipeline's
    started = time.monotonic()
    subprocess.run([str(BIN / "ingest"), "enqueue", str(root), "--name", name], env=env, check=True, cwd=REPO,
                   capture_output=True)
    conn, published = None, None
    words = iter(WORDS * 1000)
    try:
        while True:
            watch.sample()
            reader.stats()
            if searching and before is not None:
                reader.search(f"{next(words)} {next(words)}")
            if conn is None and index.exists():
                conn = db.connect(index, readonly=True)
            if conn is not None:
                row = conn.execute("SELECT c.published, (SELECT count(*) FROM generations g WHERE g.collection "
                                   "= c.id AND g.state = 'building') FROM collections c WHERE name = ?",
                                   (name,)).fetchone()
                if row and row[0] is not None and row[0] != before and not row[1]:
                    published = row[0]
                    break
            if consumer.poll() is not None:
                sys.exit(f"the consumer died: see {log}")
            time.sleep(1.0)
        wall = time.monotonic() - started
        watch.sample()
    finally:
        stop(consumer)
    gen = conn.execute("SELECT * FROM generations WHERE id = ?", (published,)).fetchone()
    last_write = conn.execute("SELECT max(updated) FROM progress WHERE generation = ?", (published,)).fetchone()[0]
    files = conn.execute("SELECT count(*) FROM progress WHERE generation = ?", (published,)).fetchone()[0]
    chunks = conn.execute("SELECT count(*) FROM chunks ch JOIN files f ON f.id = ch.file WHERE f.gen_from = ?",
                          (published,)).fetchone()[0]
    conn.close()
    stages, by_pid = job_times(log, offset)
    return {"label": label, "wall": wall, "files": files, "chunks": chunks, "gen": published,
            "walk_plan": (gen["discovered"] or gen["started"]) - gen["started"],
            "publish": (gen["finished"] or 0) - (last_write or gen["finished"] or 0),
            "finished": gen["finished"], "stages": stages, "by_pid": by_pid, "consumer": consumer.pid, "cpu": watch.cpu, "hwm": watch.hwm,
            "load": (load_start, os.getloadavg()[0])}


def show(result: dict, reader: Reader) -> None:
    r = result
    print(f"\n== {r['label']}: generation {r['gen']}, {r['files']:,} files, {r['chunks']:,} chunks written")
    print(f"end to end: {r['wall']:.1f} s wall, {r['files'] / r['wall']:.0f} files/s "
          f"(load average {r['load'][0]:.1f} at start, {r['load'][1]:.1f} at end, {os.cpu_count()} cores)")
    print(f"{'stage':<10}{'jobs':>8}{'worker-s':>11}{'median ms':>11}{'max s':>8}")
    for stage in ("discover", "parse", "chunk", "embed", "write", "publish", "embedded"):
        times = r["stages"].get(stage)
        if times:
            print(f"{stage:<10}{len(times):>8}{sum(times):>11.1f}{statistics.median(times) * 1000:>11.1f}"
                  f"{max(times):>8.1f}")
    print(f"discover: walk + plan {r['walk_plan']:.1f} s (generation started → discovered); "
          f"publish: {r['publish']:.2f} s (last file written → published)")
    workers = set(r["by_pid"])
    print(f"{'process':<22}{'CPU s':>8}{'peak RSS MB':>13}")
    for pid in sorted(set(r["cpu"]) | set(r["hwm"])):
        role = "consumer" if pid == r["consumer"] else \
            f"worker ({r['by_pid'][str(pid)]} jobs)" if str(pid) in workers else "scheduler"
        print(f"{role + ' ' + str(pid):<22}{r['cpu'].get(pid, 0):>8.1f}{r['hwm'].get(pid, 0) / 1024:>13.0f}")
    print(f"{'all':<22}{sum(r['cpu'].values()):>8.1f}")
    if reader.stats_ms:
        print(f"stats (MCP tool's code) during the build: median {statistics.median(reader.stats_ms):.1f} ms, "
              f"max {max(reader.stats_ms):.1f} ms over {len(reader.stats_ms)} calls")
    if reader.errors:
        print(f"search FAILED {len(reader.errors)} times during the build, first: {reader.errors[0]}")
    if reader.search_ms:
        seen = sorted(set().union(*(g for t, g in reader.searches if t < r["finished"])))
        print(f"keyword search during the build: median {statistics.median(reader.search_ms):.1f} ms, "
              f"max {max(reader.search_ms):.0f} ms over {len(reader.search_ms)} calls; those begun before the "
              f"publish answered from generations {seen}; {reader.empty_answers} empty answers")


def model_path(name: str | None) -> Path:
    if name and Path(name).is_file():
        return Path(name).resolve()
    if name:
        os.environ["SIFT_MODEL"] = name
    from search.model.embedding import resolve
    from search.settings import load
    return Path(resolve(load(home=Path(os.environ.get("SIFT_BENCH_MODEL_HOME", Path.home() / ".sift")))).path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=200_000)
    parser.add_argument("--corpus", type=Path, help="default /tmp/sift-scale/notes-N")
    parser.add_argument("--model", help="e5 (default), minilm or a GGUF path")
    parser.add_argument("--rebuild", action="store_true", help="then rewrite every file and build again, "
                        "searching meanwhile")
    parser.add_argument("--keep-home", action="store_true")
    parser.add_argument("--warm", action="store_true", help="embed the 200 texts first, in a collection of their "
                        "own, so that the build measures the pipeline alone (nothing to embed)")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    root = (args.corpus or Path(f"/tmp/sift-scale/notes-{args.files}")).resolve()
    if variant_of(root) == 1 and variant_of(shifted(root)) == 0:
        swap(root)  # a run stopped during its rebuild
    took = ensure_corpus(root, args.files, 0)
    print(f"corpus {root}: {args.files:,} files, {TEXTS} distinct texts" +
          (f" (written in {took:.0f} s)" if took else " (reused)"), flush=True)
    model = model_path(args.model)
    home = Path(tempfile.mkdtemp(prefix="home-", dir=root.parent))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIFT_")}
    env.update(SIFT_HOME=str(home), SIFT_MODEL=str(model), SIFT_WORKERS="2", SIFT_RESCAN_MINUTES="100000")
    env.update({k: v for k, v in os.environ.items() if k in ("SIFT_FILES_PER_JOB", "SIFT_EMBED_BATCH")})
    print(f"model {model.name}; home {home}; SIFT_FILES_PER_JOB={env.get('SIFT_FILES_PER_JOB', 'default')}",
          flush=True)
    reader = Reader(home)
    try:
        if args.warm:  # the 200 texts embedded beforehand, in a collection of their own: what is left is the pipeline
            warm = ensure_corpus(root.parent / "warm-200", TEXTS, 0)
            build(root.parent / "warm-200", env, home, "warm-up", Reader(home), searching=False, name="warm")
            print(f"embedding cache warmed with the {TEXTS} texts{f' (written in {warm:.0f} s)' if warm else ''}")
        first = build(root, env, home, "first build", reader, searching=False)
        show(first, reader)
        if args.rebuild:
            took = ensure_corpus(shifted(root), args.files, 1)
            swap(root)
            try:
                print(f"\nevery file changed: the same paths, texts shifted by one"
                      + (f" (written in {took:.0f} s)" if took else ""), flush=True)
                reader = Reader(home)
                again = build(root, env, home, "rebuild over the published generation", reader, searching=True)
            finally:
                swap(root)
            show(again, reader)
            during = [g for t, g in reader.searches if t < again["finished"]]
            wrong = set().union(*during) - {first["gen"]}
            print(f"search during the rebuild: {len(during)} searches, {len(reader.errors)} failed; "
                  + ("every hit from the previous generation" if not wrong
                     else f"hits ALSO from generations {sorted(wrong)}"))
    finally:
        if not args.keep_home:
            shutil.rmtree(home, ignore_errors=True)
        else:
            print(f"home kept: {home}")


if __name__ == "__main__":
    main()
