"""A sysadmin's knowledge base: runbooks beside the configuration, units and logs they are about. nginx's and
Redis' .conf, INI files, systemd units and logs were counted among the kinds Sift does not read, so a search for a
setting or an error string found the runbook at best, never the file that holds it."""
from __future__ import annotations

from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest

from ingest.discover import walk
from ingest.document import Skip
from ingest.files import read_and_parse
from search.query.filters import Filters
from tests.conftest import built_once, engine_in, ingest, ingest_keyword_only, write_tree

FILES = {
    "runbooks/postgres.md": "# Postgres: too many connections\n\nRaise the pool in pgbouncer, then reload it.\n",
    "config/nginx/sites-enabled/admin.conf": "server {\n    listen 8443 ssl;\n    server_name admin.example.com;\n"
                                             "    location / { proxy_pass http://127.0.0.1:9000; }\n}\n",
    "config/pgbouncer.ini": "[pgbouncer]\nlisten_port = 6432\ndefault_pool_size = 40\nmax_client_conn = 1000\n",
    "config/api-server.service": "[Service]\nExecStart=/opt/api-server/bin/api-server\nMemoryMax=1G\n",
    "config/backup.timer": "[Timer]\nOnCalendar=*-*-* 02:30:00\n",
    "logs/payments-worker.log": "2026-05-02T10:15:01Z ERROR payments-worker redis: Error: read ECONNRESET\n"
                                "2026-05-02T10:16:44Z ERROR payments-worker pg: FATAL: sorry, too many clients\n",
    # rotated: not read before; a day a passage, dated by its lines' time
    "logs/api.log.1": "2026-03-13 23:58:10,004 INFO api deploy started\n"
                      "2026-03-14 02:11:09,120 ERROR api upstream timed out: wiki-backend\n"
                      "Traceback (most recent call last):\n  File \"api.py\", line 9\n"
                      "2026-03-15 08:00:00,000 ERROR api upstream timed out: wiki-backend\n",
    "thesis/main.tex": "\\documentclass{article}\n\\begin{document}\n\\section{Intro}\nHello.\n\\end{document}\n",
    "thesis/main.log": "This is pdfTeX, Version 3.141592653\nOverfull \\hbox (12.0pt too wide) in paragraph\n",
}


def _build(folder: Path) -> None:
    """Indexed without vectors (these tests search by keyword); the one file left out is LaTeX's log."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SIFT_EMBEDDINGS", "off")
        failures = ingest(write_tree(folder / "kb", FILES), "kb")["published"]["failures"]
    assert [(f["path"], "LaTeX's log" in str(f)) for f in failures] == [("thesis/main.log", True)], failures


@pytest.fixture(scope="module")
def home(tmp_path_factory, model_path):
    return built_once(tmp_path_factory, model_path, _build, key="sysadmin files")


def paths(answer) -> list[str]:
    return [hit.path for hit in answer.hits]


def test_configuration_units_and_logs_are_read(tmp_path):
    """Each was counted as a kind Sift does not read ('.conf 1, .ini 1, .log 1, .service 1 …')."""
    write_tree(tmp_path, FILES)
    unread = Counter()
    found = {f.path: f.kind for f in walk(tmp_path, unread=unread)}
    assert unread == {}, unread
    assert found["config/pgbouncer.ini"] == found["config/api-server.service"] == "code"
    assert found["config/nginx/sites-enabled/admin.conf"] == found["config/backup.timer"] == "code"
    assert found["logs/payments-worker.log"] == found["logs/api.log.1"] == "text"


def test_latex_build_log_beside_its_tex_is_skipped(tmp_path):
    """A thesis folder holds main.log beside main.tex after each build: LaTeX's output, not the user's notes."""
    root = write_tree(tmp_path, FILES)
    with pytest.raises(Skip, match="LaTeX's log of main.tex"):
        read_and_parse(root, "thesis/main.log")
    assert "ECONNRESET" in read_and_parse(root, "logs/payments-worker.log").doc.sections[0].text


@pytest.mark.parametrize("query, path", [
    ("listen 8443", "config/nginx/sites-enabled/admin.conf"),
    ("default_pool_size", "config/pgbouncer.ini"),
    ("MemoryMax", "config/api-server.service"),
    ("OnCalendar", "config/backup.timer"),
    ("ECONNRESET", "logs/payments-worker.log"),
])
def test_a_setting_or_an_error_string_finds_the_file_holding_it(home, model_path, embedder, monkeypatch, query, path):
    engine = engine_in(home, model_path, embedder, monkeypatch)
    found = paths(engine.search(query, mode="keyword"))
    assert found and found[0] == path, found
    assert "thesis/main.log" not in paths(engine.search("Overfull hbox", mode="keyword"))


def test_the_demo_workers_log_in_a_home_that_is_the_root_is_not_read(tmp_path, monkeypatch):
    """scripts/demo's worker writes worker.log in Sift's home: read as text, a home that is the collection's
    folder would have read it again at each line the worker wrote."""
    root = write_tree(tmp_path / "notes", {"worker.log": "published generation 1\n", "app.log": "ECONNRESET\n"})
    monkeypatch.setenv("SIFT_HOME", str(root.resolve()))
    assert [f.path for f in walk(root)] == ["app.log"]


ADDRESSES = {
    "runbooks/primary.md": "# Primary database\n\nThe primary is db-prod-02 at 10.0.3.17:5432; fail over by hand.\n",
    "runbooks/replicas.md": "# Replicas\n\nReplicas: 10.0.3.18:5432, 10.0.17.3:5432 and 10.3.0.17:5432, lag checked "
                            "every 3 minutes, 17 alerts in 2024 at 0 errors.\n",
    "notes/releases.md": "# Releases\n\nv1.24.2 shipped on day 24; v1.3.24 of the agent; v2.24.1 of the proxy.\n",
    "notes/deploy.md": "# Deploy\n\nWe run api-server v1.24.3 in production.\n",
}


@pytest.fixture(scope="module")
def addresses(tmp_path_factory, model_path):
    return built_once(tmp_path_factory, model_path,
                      lambda folder: ingest_keyword_only(write_tree(folder / "ops", ADDRESSES), "ops"),
                      key="sysadmin addresses")


@pytest.mark.parametrize("postings", [True, False])
@pytest.mark.parametrize("query, path", [("10.0.3.17:5432", "runbooks/primary.md"), ("v1.24.3", "notes/deploy.md")])
def test_a_host_and_port_or_a_version_finds_the_passage_writing_it_whole(addresses, model_path, embedder, monkeypatch,
                                                                        query, path, postings):
    """'10.0.3.17:5432' was looked up as 10, 0, 3, 17 and 5432 alone: the replicas' list, holding each of them more
    often, came first. Its parts are looked up as a phrase too, as a DOI's are."""
    engine = engine_in(addresses, model_path, embedder, monkeypatch, postings=postings)
    found = paths(engine.search(query, mode="keyword"))
    assert found[0] == path, found


def test_a_joined_word_is_read_from_a_words_start_only():
    """A joined word is begun only where a word begins: tried from each of a word's letters, a pasted hash of 10,000
    characters with no mark took time quadratic in its length (1.9 s of CPU each time a search read the query's
    pieces). The same joined words are found."""
    from search.query.joined_words import JOINED, joined_phrases
    assert JOINED.match("db-prod-02", 1) is None  # not from its second letter, where 'b-prod-02' was tried
    assert joined_phrases("f" * 9000 + " db-prod-02 at 10.0.3.17:5432 x_v1.2") == {
        "db-prod-02": "db prod 02", "10.0.3.17:5432": "10 0 3 17 5432"}



CONFIG_WITHOUT_EXTENSION = {
    "etc/ssh/sshd_config": "Port 2222\nPermitRootLogin no\nPasswordAuthentication no\n",
    "Caddyfile": "wiki.example.com {\n    reverse_proxy 127.0.0.1:8080\n}\n",
    "Procfile": "web: gunicorn app:wsgi --workers 4\nworker: huey_consumer tasks.huey\n",
    "crontab": "17 3 * * 1 /usr/local/bin/rotate-backups --keep 8\n",
    "Vagrantfile": "Vagrant.configure('2') do |config|\n  config.vm.box = 'debian/bookworm64'\nend\n",
    "Jenkinsfile": "pipeline { agent any\n stages { stage('deploy') { steps { sh 'make deploy' } } } }\n",
    "etc/cron.d/certbot": "0 */12 * * * root certbot renew --quiet\n",
    "etc/logrotate.d/nginx": "/var/log/nginx/*.log {\n    daily\n    rotate 14\n}\n",
    "etc/nginx/sites-enabled/default": "server {\n    listen 80 default_server;\n    return 444;\n}\n",
    "etc/nginx/sites-available/wiki.example.com": "server {\n    server_name wiki.example.com;\n}\n",
}


def test_configuration_without_an_extension_is_read_as_code_by_lines(tmp_path):
    """sshd_config, a Caddyfile, a Procfile, a crontab, cron.d's and logrotate.d's files and nginx's sites were
    counted among the '(no extension)' files Sift does not read: 'PermitRootLogin' never found sshd_config."""
    root = write_tree(tmp_path, {**CONFIG_WITHOUT_EXTENSION, "notes/README": "plain words\n", "a.d/b.png": "x"})
    unread = Counter()
    found = {f.path: f.kind for f in walk(root, unread=unread)}
    assert found == {path: "code" for path in CONFIG_WITHOUT_EXTENSION}, found
    assert sum(unread.values()) == 2, unread
    sshd = read_and_parse(root, "etc/ssh/sshd_config").doc
    assert "PermitRootLogin no" in sshd.sections[0].text and sshd.meta["language"] is None
    assert read_and_parse(root, "Vagrantfile").doc.meta["language"] == "ruby"


@pytest.mark.parametrize("query", ["/etc/nginx/sites-enabled", "/var/lib/redis/"])
def test_the_note_names_a_path_no_passage_holds_as_typed(home, model_path, embedder, monkeypatch, query):
    """'/etc/nginx/sites-enabled' was named 'etc/nginx/sites-enabled', its leading slash dropped: not what was
    typed, as if the search had read another path."""
    engine = engine_in(home, model_path, embedder, monkeypatch)
    notes = engine.search(query, mode="keyword").notes
    assert any(note.startswith(f"no passage contains '{query}'") for note in notes), notes


def test_a_logs_snippet_keeps_its_lines_apart(home, model_path, embedder, monkeypatch):
    """A log's lines were joined by a space into one run-on line ('… read ECONNRESET 2026-05-02T10:16:44Z ERROR …'):
    where one entry ends and the next begins was lost. They are joined by ' ⏎ '."""
    engine = engine_in(home, model_path, embedder, monkeypatch)
    hit = engine.search("ECONNRESET", mode="keyword").hits[0]
    assert hit.path == "logs/payments-worker.log" and "\n" not in hit.snippet, hit
    assert "ECONNRESET** ⏎ 2026-05-02T10:16:44Z ERROR payments-worker" in hit.snippet, hit.snippet
    runbook = engine.search("pgbouncer reload", mode="keyword").hits[0]
    assert runbook.path == "runbooks/postgres.md" and "⏎" not in runbook.snippet, runbook.snippet


@pytest.mark.parametrize("day, lines", [(13, (1, 1)), (14, (2, 4)), (15, (5, 5))])
def test_a_logs_lines_are_found_by_the_day_their_timestamps_say(home, model_path, embedder, monkeypatch, day, lines):
    """A log's passages took no date from its lines: a search for 14 March's errors went by the file's modified
    time, and found the log on no day of it (and syslog.1, app.log.2 were not read at all). Each day of a log is
    a passage of its own, dated by its first line's time; a traceback's lines are of the day above them."""
    engine = engine_in(home, model_path, embedder, monkeypatch)
    dated = Filters(date_after=datetime(2026, 3, day).timestamp(), date_before=datetime(2026, 3, day + 1).timestamp())
    hits = [h for h in engine.search("api", mode="keyword", filters=dated).hits if h.path == "logs/api.log.1"]
    assert [(h.start_line, h.end_line) for h in hits] == [lines], hits
    assert datetime.fromtimestamp(hits[0].dated).date() == datetime(2026, 3, day).date()


def test_rotated_logs_and_dotfiles_are_read(tmp_path):
    """syslog.1, app.log.2, logrotate's app.log-20260314 and a dotfiles repository's .bashrc and .gitconfig were
    counted among the files Sift does not read; a compressed log (app.log.3.gz) is no text, and stays unread."""
    files = {"log/syslog.1": "x\n", "log/app.log.2": "x\n", "log/app.log-20260314": "x\n", "log/syslog": "x\n",
             "dotfiles/.bashrc": "alias gs='git status'\n", "dotfiles/.gitconfig": "[user]\n  name = Ann\n",
             "log/app.log.3.gz": "x", "notes/chapter.1": "x\n"}
    root = write_tree(tmp_path, files)
    unread = Counter()
    found = {f.path: f.kind for f in walk(root, unread=unread)}
    assert found == {"log/syslog.1": "text", "log/app.log.2": "text", "log/app.log-20260314": "text",
                     "log/syslog": "text", "dotfiles/.bashrc": "code", "dotfiles/.gitconfig": "code"}, found
    assert unread == {".gz": 1, ".1": 1}, unread
    assert read_and_parse(root, "dotfiles/.bashrc").doc.meta["language"] == "bash"


LONG_SERVER = ("server {\n    listen 443 ssl;\n    server_name wiki.example.com;\n"
               + "".join(f"    location /space{i}/ {{\n        proxy_pass http://127.0.0.1:{9000 + i};\n"
                         f"        proxy_set_header X-Space space{i};\n    }}\n" for i in range(60))
               + "    client_max_body_size 64m;\n}\n")


def test_a_passage_deep_in_a_server_block_says_which_server_it_is(tmp_path):
    """A configuration was windowed by lines: a passage of a long nginx server block's end did not say which
    server it was in. A block heads its lines' passages, named by its server_name, as a function heads code's."""
    root = write_tree(tmp_path, {"etc/nginx/sites-enabled/wiki.conf": LONG_SERVER})
    sections = read_and_parse(root, "etc/nginx/sites-enabled/wiki.conf").doc.sections
    end = next(s for s in sections if "client_max_body_size" in s.text)
    assert end.heading_path == ["wiki", "server wiki.example.com"], end
    deep = next(s for s in sections if "space59" in s.text)
    assert deep.heading_path == ["wiki", "server wiki.example.com", "location /space59/"], deep
    assert deep.text.startswith("    location /space59/ {") and deep.end_line == end.start_line - 1


def test_a_logs_interleaved_days_make_no_passage_a_line():
    """Two clocks' lines interleaved (one UTC, one local, around midnight) alternate between two days: each line
    began a day's section of its own, a passage a line. A line of an earlier day stays in the day it is among."""
    from ingest.chunk import chunk_document
    from ingest.logs import parse_log
    lines = [f"2026-03-{14 + n % 2} 23:{n % 60:02d}:07 INFO worker {n} handled the request" for n in range(400)]
    doc = parse_log("\n".join(lines) + "\n2026-03-16 00:01:00 INFO next day\n", "app.log")
    assert [(s.start_line, s.end_line) for s in doc.sections] == [(1, 1), (2, 400), (401, 401)], doc.sections[:5]
    assert len(chunk_document(doc, lambda text: len(text.split()), 256, 32)) < 40
