"""A real ``redis-server`` for the tests: installed from Debian when missing, started on a free loopback port
with its own folder, stopped after the session. Tests skip, saying why, only when it cannot be had.

tests/conftest.py registers its fixtures for every test module (``pytest_plugins``): a test asks for ``redis_url``.
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

INSTALL_TIMEOUT = 300  # seconds for each of apt-get update and install: two of them stay well inside a test's 1200 s


def find_or_install() -> str:
    """The path of redis-server, installing the Debian package when we may (root, apt-get); else skip."""
    found = shutil.which("redis-server") or (os.path.exists("/usr/bin/redis-server") and "/usr/bin/redis-server")
    if found:
        return found
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        pytest.skip("redis-server is not installed and cannot be installed here (needs root and apt-get): "
                    "apt-get install redis-server")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    try:
        for command in (["apt-get", "update"], ["apt-get", "install", "-y", "--no-install-recommends", "redis-server"]):
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
            if done.returncode != 0:
                pytest.skip(f"could not install redis-server ({' '.join(command)}): {done.stderr.strip()[-300:]}")
    except subprocess.TimeoutExpired:
        pytest.skip(f"installing redis-server took over {INSTALL_TIMEOUT} s")
    found = shutil.which("redis-server") or "/usr/bin/redis-server"
    if not os.path.exists(found):
        pytest.skip("redis-server was installed but is not on PATH")
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """One redis-server process on 127.0.0.1:<port>, with its data in ``folder``."""

    def __init__(self, folder: Path, appendonly: bool = False):
        self.binary = find_or_install()
        self.folder = folder
        self.port = free_port()
        self.appendonly = appendonly
        self.proc = None
        self.start(other_port_if_taken=True)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, other_port_if_taken: bool = False) -> None:
        """Start it on its port. The port was free when picked, but another test process (pytest-xdist's
        workers each start one) may have taken it since: a server that cannot have it exits, and with
        ``other_port_if_taken`` (its first start; a restart keeps its port, where its clients look) another
        free port is tried. The answer must come from this server: the tests would empty another process's
        server that answered on the port."""
        for _ in range(5):
            self._spawn()
            if self._answers():
                return
            if self.proc.poll() is None or not other_port_if_taken:
                break
            self.log.close()
            self.port = free_port()
        self.stop()
        pytest.skip(f"redis-server did not start: see {self.folder / 'redis.log'}")

    def _spawn(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.log = open(self.folder / "redis.log", "ab")
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.folder),
             "--save", "", "--appendonly", "yes" if self.appendonly else "no", "--protected-mode", "yes"],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)

    def _answers(self) -> bool:
        """Whether this process's server answers on the port (within 30 s); False once it has exited."""
        import redis
        client = redis.Redis.from_url(self.url, socket_connect_timeout=1)
        deadline = time.monotonic() + 30
        while self.proc.poll() is None and time.monotonic() < deadline:
            try:
                if client.info("server")["process_id"] == self.proc.pid:
                    return True
            except redis.ConnectionError:
                pass
            time.sleep(0.05)
        return False

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    pytest.importorskip("redis", reason="the redis client (pip install redis) is missing")
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server) -> str:
    """The server's URL, its database emptied for this test."""
    import redis
    redis.Redis.from_url(redis_server.url).flushall()
    return redis_server.url
