"""Links into /proc in a collection: a folder link to /proc itself (whose walk would never end: /proc/self/root
leads back to /), a note linked to /proc/self/status. Neither is followed nor read; each is reported with why,
and the notes beside them are found."""
from __future__ import annotations

import os

import pytest

from ingest.discover import walk
from ingest.files import read_and_parse


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="no /proc on this system")
def test_links_into_proc_are_reported_and_not_followed(tmp_path):
    (tmp_path / "a.md").write_text("# A note\n\nthe okapi\n")
    os.symlink("/proc", tmp_path / "proc")
    os.symlink("/proc/self/status", tmp_path / "status.md")
    refused: dict[str, str] = {}
    assert [found.path for found in walk(tmp_path, refused=refused)] == ["a.md"]
    assert refused["proc"] == "symbolic link to a folder outside the collection root: not followed"
    assert refused["status.md"] == "symbolic link to a file outside the collection root: not followed"
    with pytest.raises(PermissionError, match="resolves outside the collection root"):
        read_and_parse(str(tmp_path), "status.md")  # asked for by name (a watcher's event), still not read
