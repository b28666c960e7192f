"""`bench/ingest.py --remote`: the home machine's CPU for notes-en with embedding remote vs local.

Two builds of a copy of notes-en with real consumers (`huey_consumer -k process -w 2`):
- local: the SQLite queue, the home consumer does everything;
- remote: a real `redis-server` (tests/redis_server.py starts it on a free port), `SIFT_QUEUE=redis://…`
  and `SIFT_EMBED_REMOTE=1`; the home consumer does everything but embedding, a second consumer
  (`huey_consumer workers.embedder.huey`, its own home) embeds. Both run on this machine here, so the wall time
  says little; what counts is the CPU the home's processes used.

CPU seconds are utime + stime from /proc/<pid>/stat of every process in the home consumer's process group
(the consumer and its worker processes), read when the generation is published, while they still live.

    .venv/bin/python bench/ingest.py --remote [--model minilm] [--files N]
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import BIN, REPO, consumer, cpu_seconds, group_pids, shared_data, stop



def group_cpu(pgid: int) -> float:
    """CPU seconds (user + system) of the living processes of a process group."""
    return sum(cpu_seconds(pid) for pid in group_pids(pgid))


def build(root: Path, env: dict, embedder_env: dict | None, folder: Path) -> dict:
    """Index ``root`` with a home consumer (and an embedder); CPU seconds of each when it is published."""
    from search.index import db
    folder.mkdir(parents=True, exist_ok=True)
    home = consumer("workers.app.huey", env, folder / "home.log")
    embedder = consumer("workers.embedder.huey", embedder_env, folder / "embedder.log") if embedder_env else None
    started = time.monotonic()
    try:
        subprocess.run([str(BIN / "ingest"), "enqueue", str(root), "--name", "notes"], env=env, check=True,
                       cwd=REPO, capture_output=True)
        conn = db.connect(Path(env["SIFT_HOME"]) / "index.db")
        while True:
            row = conn.execute("SELECT published FROM collections WHERE name = 'notes'").fetchone()
            if row and row[0] is not None:
                break
            if home.poll() is not None:
                sys.exit(f"the home consumer died: see {folder / 'home.log'}")
            time.sleep(0.5)
        chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        return {"wall": time.monotonic() - started, "home": group_cpu(home.pid), "chunks": chunks,
                "embedder": group_cpu(embedder.pid) if embedder else 0.0}
    finally:
        stop(home)
        if embedder:
            stop(embedder)


def model_path(name: str | None) -> Path:
    """A GGUF path as it is, or a known model's name (e5, minilm; SIFT_MODEL or Sift's default when None) built
    in ~/.sift/models (SIFT_BENCH_MODEL_HOME)."""
    if name and Path(name).is_file():
        return Path(name)
    if name:
        os.environ["SIFT_MODEL"] = name
    from search.model.embedding import resolve
    from search.settings import load
    return Path(resolve(load(home=Path(os.environ.get("SIFT_BENCH_MODEL_HOME", Path.home() / ".sift")))).path)


def run(model_name: str | None, files: int | None) -> None:
    sys.path.insert(0, str(REPO))
    model = model_path(model_name)
    from tests.redis_server import RedisServer
    folder = Path(tempfile.mkdtemp(prefix="sift-bench-remote-"))
    source = shared_data("notes-en")
    root = folder / "notes-en"
    if files:
        for path in sorted(p for p in source.rglob("*") if p.is_file())[:files]:
            (root / path.relative_to(source).parent).mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, root / path.relative_to(source))
    else:
        shutil.copytree(source, root)
    base = {k: v for k, v in os.environ.items() if not k.startswith("SIFT_")}
    base.update(SIFT_MODEL=str(model), SIFT_WORKERS="2", SIFT_RESCAN_MINUTES="100000")
    print(f"model {model.name}; {sum(1 for p in root.rglob('*') if p.is_file())} files; machine load "
          f"{os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)", flush=True)

    local = build(root, {**base, "SIFT_HOME": str(folder / "local-home")}, None, folder / "local")
    print(f"local : home CPU {local['home']:.1f} s, wall {local['wall']:.0f} s, {local['chunks']} chunks", flush=True)

    try:
        server = RedisServer(folder / "redis")
    except BaseException as exc:  # pytest.skip outside pytest: redis-server cannot be had here
        sys.exit(f"skipped: no redis-server ({exc})")
    try:
        remote_env = {**base, "SIFT_HOME": str(folder / "remote-home"), "SIFT_QUEUE": server.url,
                      "SIFT_EMBED_REMOTE": "1"}
        embedder_env = {**base, "SIFT_HOME": str(folder / "embedder-home"), "SIFT_QUEUE": server.url}
        remote = build(root, remote_env, embedder_env, folder / "remote")
    finally:
        server.stop()
    print(f"remote: home CPU {remote['home']:.1f} s, embedder CPU {remote['embedder']:.1f} s, "
          f"wall {remote['wall']:.0f} s, {remote['chunks']} chunks")
    print(f"home CPU remote / local: {remote['home'] / local['home']:.2f} "
          f"(the home's share drops by {1 - remote['home'] / local['home']:.0%})")
    shutil.rmtree(folder, ignore_errors=True)
