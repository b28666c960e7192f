"""A collection's folder unmounted or moved in the middle of a build. Measured through a real huey_consumer
(1,500 notes, each edited, the folder moved away 3 s into the rebuild): the build published 23 s later with
the 19 notes read before, the other 1,481 failed, and every note still searchable as it was indexed before.
Each of the 1,481 said 'file vanished before it could be read', as a note deleted under a build does: now
each says that the collection's folder is gone, and that its indexed version is kept."""
from __future__ import annotations

from workers.tasks import ROOT_GONE, _read


def test_a_file_of_a_folder_that_is_gone_says_so(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("# A\n\nthe okapi\n")
    assert _read(str(tmp_path / "notes"), "a.md")[0] == "parsed"
    (tmp_path / "notes").rename(tmp_path / "away")
    assert _read(str(tmp_path / "notes"), "a.md") == ("failed", ROOT_GONE, False)


def test_a_file_deleted_from_a_folder_that_is_there_still_vanished(tmp_path):
    assert _read(str(tmp_path), "gone.md") == ("failed", "file vanished before it could be read", False)
