"""A SIFT_* variable that is no setting but close to one's name (MODLE, EXCLUDES) changed nothing and nothing
said so. search.setting_names tells it; these tests keep its lists whole and check that `ingest` and a worker
say it (sift-mcp: tests/test_settings_served.py). They spell the slips in two pieces, or tests/test_docs.py would
take them for settings."""
from __future__ import annotations

import pytest

from tests.conftest import run_ingest_here
from tests.test_docs import PACKAGES, UNDOCUMENTED, variables_in

S = "SIFT" + "_"


def test_the_lists_hold_every_name_the_code_reads():
    """A setting added without its name here would be told as a slip of another's (HTTP_TOKENS …); a variable of
    the tests, benches or scripts would be told to whoever runs them."""
    from search.setting_names import OTHERS, SETTINGS, misspelled
    read = variables_in(PACKAGES)
    assert set(SETTINGS) | set(OTHERS) == read, ("add to search/setting_names.py", read ^ (set(SETTINGS) | set(OTHERS)))
    assert not set(SETTINGS) & (set(OTHERS) | UNDOCUMENTED)
    assert misspelled({name: "1" for name in variables_in(("tests", "bench", "scripts"))}) == []


def test_only_a_name_close_to_a_settings_is_told():
    from search.setting_names import misspelled
    env = {S + "MODLE": "minilm", S + "EXCLUDES": "drafts/", S + "THREADS": "4", "SIFT_SHARED_DATA": "/d",
           "SIFT_MODEL": "e5", "MODLE": "x"}
    assert misspelled(env) == [(S + "EXCLUDES", "SIFT_EXCLUDE"), (S + "MODLE", "SIFT_MODEL")]


def test_a_name_with_a_word_of_its_own_is_not_sent_to_another_setting():
    """Close as whole names, REDIS was told 'did you mean SIFT_RETRIES?', HTTP_PORT SIFT_HTTP_RATE and MODEL_PATH
    SIFT_MODEL_CACHE: a user who never meant those was sent to set them. A word more, or cut short, still is told."""
    from search.setting_names import misspelled
    env = {S + name: "1" for name in ("REDIS", "HTTP_PORT", "HTTP_HOST", "EMBED_MODEL", "MODEL_PATH", "RESCAN_MINS",
                                      "CHUNKTOKENS", "RETRIES_DELAY")}
    assert misspelled(env) == [(S + "CHUNKTOKENS", "SIFT_CHUNK_TOKENS"), (S + "MODEL_PATH", "SIFT_MODEL"),
                               (S + "RESCAN_MINS", "SIFT_RESCAN_MINUTES"), (S + "RETRIES_DELAY", "SIFT_RETRY_DELAY")]


def test_ingest_says_a_misspelled_setting_and_goes_on(sift_env, capsys, monkeypatch):
    monkeypatch.setenv(S + "MODLE", "minilm")
    result = run_ingest_here(capsys, "stats")
    assert result.returncode == 0 and "nothing indexed yet" in result.stdout, result
    assert result.stderr == (f"ingest: note: {S}MODLE is not a Sift setting, so it changes nothing: did you mean "
                             "SIFT_MODEL? (every setting: docs/configuration.md)\n"), result.stderr


@pytest.mark.timeout(300)
def test_a_worker_started_with_a_misspelled_setting_logs_it(sift_env, tmp_path):
    """The README has index settings set where the worker is started (`SIFT_EXCLUDE='drafts/' huey_consumer …`): a
    slip there reached no `ingest` command, and the worker indexed every draft, unsaid. It logs it as it starts."""
    import time
    from tests.conftest import Consumer
    log = tmp_path / "worker.log"
    worker = Consumer({**sift_env, S + "EXCLUDES": "drafts/"}, 1, log)
    try:  # huey's banner lists the tasks once the consumer is made, after it has said what it was started with
        while "workers.tasks.discover" not in log.read_text() and worker.proc.poll() is None:  # timeout: a hang
            time.sleep(0.2)
    finally:
        worker.stop()
    said = f"{S}EXCLUDES is not a Sift setting, so it changes nothing: did you mean SIFT_EXCLUDE?"
    assert said in log.read_text(), log.read_text()


def test_a_slipped_home_once_served_still_names_the_home_meant(tmp_path):
    """SIFT_HOME=~/.sfit: its first sift-mcp made it, a queue and an index of no collection (the worker's), and on
    every later start the home was 'there', so the home meant went unsaid (and was the slip itself, a close name)."""
    from search.index import db
    from search.setting_names import home_meant
    db.connect(tmp_path / ".sift" / "index.db").close()
    slip = tmp_path / ".sfit"
    assert home_meant(slip) == tmp_path / ".sift", "not made yet"
    db.connect(slip / "index.db").close()  # as the worker of the first sift-mcp started there leaves it
    (slip / "queue.db").write_bytes(b"")
    assert home_meant(slip) == tmp_path / ".sift", "made by its first start, holding no collection"
