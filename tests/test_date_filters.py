"""modified_after / modified_before given a bare year ('2024') or month ('2024-03'): read as the first day of it,
by the MCP search tool and by `ingest search` alike. Both were refused as not an ISO date."""
from __future__ import annotations

import os
import re
from datetime import datetime

from tests.conftest import ingest, run_ingest, write_tree
from tests.test_mcp_server import call, run, text


def _dated(tmp_path):
    root = write_tree(tmp_path / "n", {"old.md": "# Old\nalpha", "march.md": "# March\nalpha",
                                       "may.md": "# May\nalpha"})
    for name, when in (("old.md", datetime(2023, 12, 31, 12)), ("march.md", datetime(2024, 3, 15)),
                       ("may.md", datetime(2024, 5, 2))):
        os.utime(root / name, (when.timestamp(),) * 2)
    ingest(root, "notes")
    return root


def test_mcp_search_reads_a_year_or_a_month_as_its_first_day(immediate, sift_env, tmp_path, servers):
    _dated(tmp_path)

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return [await call(s, "search", query="alpha", mode="keyword", **arguments) for arguments in (
                {"modified_after": "2024"}, {"modified_before": "2024"}, {"modified_after": "2024-04"},
                {"modified_after": "2024-03", "modified_before": "2024-04"})]
    answers = run(scenario)
    for answer in answers:
        assert not answer.is_error, text(answer)
    found = [{hit["path"] for hit in a.structured_content["results"]} for a in answers]
    assert found == [{"notes/march.md", "notes/may.md"}, {"notes/old.md"}, {"notes/may.md"}, {"notes/march.md"}]


def test_ingest_search_reads_a_year_or_a_month_as_its_first_day(immediate, sift_env, tmp_path):
    _dated(tmp_path)

    def found(*flags):
        result = run_ingest(sift_env, "search", "alpha", "--mode", "keyword", *flags)
        assert result.returncode == 0, result.stderr
        return set(re.findall(r"notes/(\w+\.md)", result.stdout))
    assert found("--modified-after", "2024") == {"march.md", "may.md"}
    assert found("--modified-before", "2024-04") == {"old.md", "march.md"}
    assert found("--modified-after", "2024-03", "--modified-before", "2024-04") == {"march.md"}
    assert run_ingest(sift_env, "search", "alpha", "--modified-after", "2024-3").returncode == 2  # not ISO
