"""An address, a host or a path typed as one word (``~/.ssh/authorized_keys``, ``web-01``, ``10.0.3.17:5432``), or a
threshold (``p < 0.05``): search.query.identifiers puts the passages writing it as written first, in keyword and
hybrid search. Its parts apart (a note saying ssh, keys and authorized over and over, a Terraform file's
``private_ip`` and ``from_port``, a note of web pages and a '01', one of p < 0.01) ranked above them: by their
words, and by meaning, for which an address is its parts."""
from __future__ import annotations

import pytest

from search.query.joined_words import writing_pattern, written_whole
from tests.conftest import built_once, engine_in, ingest, write_tree

OPS = {
    "runbooks/access.md": "# Access\n\nAdd the new engineer's public key to ~/.ssh/authorized_keys on the bastion.\n",
    "notes/ssh.md": "# SSH keys\n\nSSH keys: authorized keys, host keys, ssh agent keys. Keys for ssh are authorized "
                    "by the server; ssh keys rotate yearly, and every authorized key is listed.\n",
    "runbooks/web.md": "# Web tier\n\nweb-01 serves the shop behind the load balancer; restart it with systemctl.\n",
    "notes/web.md": "# Web pages\n\nWeb pages, web fonts and the web shop's 01 release: 01 web pages, web "
                    "caching for release 01.\n",
    "runbooks/failover.md": "# Failover\n\nWhen the primary fails, promote the replica with pg_ctl promote, point "
                            "the app's DATABASE_URL at 10.0.3.17:5432, tell the on-call channel, then rebuild the old "
                            "primary from a base backup.\n",
    "infra/main.tf": 'resource "aws_db_instance" "primary" {\n  private_ip = "10.0.3.17"\n  engine = "postgres"\n'
                     '}\n\nresource "aws_security_group_rule" "db" {\n  from_port = 5432\n  to_port = 5432\n'
                     '  description = "primary database 10.0.3.17 port 5432"\n}\n',
    "notes/incident.md": "# Checkout outage\n\nCustomers saw spinning carts for twenty minutes on Black Friday; "
                         "marketing paused the campaign, support answered 300 tickets and finance refunded the "
                         "shipping. The cause: the app pointed at 10.0.3.17:5432 instead of the pooler.\n",
    "notes/ports.md": "# Ports\n\n10.0.3.17 is the database host; 5432 is its port. 10.0.3.18 port 5433, 10.0.3.17 "
                      "port 6432 for pgbouncer.\n",
    # a threshold: 'p < 0.05' was its words p, 0 and 05 and its meaning, near a note of p < 0.01s
    "stats/trial.md": "# Trial\n\nThe drop in blood pressure was significant (p < 0.05) at twelve weeks.\n",
    "stats/budget.md": "# Grant budget\n\nTravel to the two field sites each spring, two laptops for the "
                       "interviewers, the survey licence for three years, printing of the consent forms, a "
                       "translator for the southern villages and the fees of the ethics board; the reviewers asked "
                       "that every claim hold at p < 0.05 after correction, so the sample grows from 250 to 400 "
                       "households and the fieldwork from six weeks to ten.\n",
    "stats/cohort.md": "# Cohort p values\n\nSignificant results: p < 0.01 for age, p < 0.01 for weight, p < 0.001 "
                       "for smoking, p = 0.2 for sex; 05 of the sites dropped out, p < 0.01 for site.\n",
    # a label among other words: the passage writing it and holding them first, not another paper's 'Table 2'
    "papers/survey.md": "# Mail survey of farms\n\nWe mailed 2,000 farms in March and again in May, with a reminder "
                        "card, a pen and a prepaid envelope; the north answered more often than the south (Table 2 "
                        "has the response rates), and larger farms more than smaller ones.\n",
    "papers/rates.md": "# Response rates\n\nResponse rates of surveys: response rates by mode, response rates by "
                       "age, response rates of 2 in 3 for mail and 1 in 2 for web; a table of response rates.\n",
    "papers/adverse.md": "# Adverse events\n\nTable 2 lists the adverse events of each arm.\n",
}


@pytest.fixture(scope="module")
def ops(tmp_path_factory, model_path):
    return built_once(tmp_path_factory, model_path, lambda folder: ingest(write_tree(folder / "ops", OPS), "ops"),
                      key="joined words first")


# (keyword search alone already found only the passages writing an address whole: test_sysadmin_files)
@pytest.mark.parametrize("query, written, mode", [
    ("~/.ssh/authorized_keys", {"runbooks/access.md"}, "hybrid"), ("~/.ssh/authorized_keys", {"runbooks/access.md"},
                                                                   "keyword"),
    ("web-01", {"runbooks/web.md"}, "hybrid"), ("web-01", {"runbooks/web.md"}, "keyword"),
    ("10.0.3.17:5432", {"runbooks/failover.md", "notes/incident.md"}, "hybrid"),
    ("p < 0.05", {"stats/trial.md", "stats/budget.md"}, "hybrid"),
    ("Table 2 response rates", {"papers/survey.md"}, "hybrid")])
def test_an_address_host_or_path_finds_the_passages_writing_it_first(ops, model_path, embedder, monkeypatch, query,
                                                                      written, mode):
    engine = engine_in(ops, model_path, embedder, monkeypatch)
    found = engine.search(query, mode=mode)
    assert {h.path for h in found.hits[:len(written)]} == written, [(h.path, h.score) for h in found.hits]
    assert len(found.hits) > len(written)  # the others still found, after them
    shown = "Table 2" if query.startswith("Table 2") else query
    moved = [h.score for h in found.hits] != sorted((h.score for h in found.hits), reverse=True)  # scores kept
    assert any(f"the passages writing {shown} come first" in n for n in found.notes) == moved, found.notes


def test_which_typed_words_are_looked_for_as_written():
    assert written_whole("~/.ssh/authorized_keys") == ["~/.ssh/authorized_keys"]
    assert written_whole("why is cache-01:6379 refusing, and 10.0.3.17?") == ["cache-01:6379", "10.0.3.17"]
    assert written_whole("web-01") == ["web-01"] and written_whole("v1.24.3") == ["v1.24.3"]
    assert written_whole("was it P<.05 in table 2") == ["p < .05"]
    # a claim's or a question's words stay its words: a name and its number, a fold, a pathway, prose's slash
    for query in ("IL-6 raises CRP", "a 1.5-fold increase", "ERK1/2 signalling", "and/or", "1.5", "2024-03-14",
                  "#project/shed", "retry_upload_part", "10.1000/xyz123", "huey/api.py:Huey.enqueue",
                  "includes/*.pxd", 'File "/app/a.py", line 3\n  x()\n'):
        assert written_whole(query) == [], query
    home = writing_pattern("~/.ssh/authorized_keys")
    assert home.search("/home/deploy/.ssh/authorized_keys") and not home.search("~/.ssh/authorized_keys2")
    host = writing_pattern("web-01")
    assert host.search("(web-01).") and not host.search("web-012") and not host.search("web-01-old")
    assert not writing_pattern("10.0.3.17").search("10.0.3.170")
    threshold = writing_pattern("p < 0.05")
    assert all(threshold.search(text) for text in ("(p < 0.05).", "p<.05", "p <0.05"))
    assert not any(threshold.search(text) for text in ("p < 0.01", "p < 0.055", "p = 0.05", "lp < 0.05"))
    assert writing_pattern("p ≤ 0.05").search("p <= 0.05")


