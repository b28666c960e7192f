"""A snippet cut out of a long passage begins and ends between whole characters as a reader sees them: not inside
an emoji sequence (👨‍👩‍👧‍👦 is four emoji and three joiners), a flag (🇨🇳 is two letters) or a letter with its
accent or skin tone. Chinese notes written on a phone hold such emoji between words, with no space to cut at."""
from __future__ import annotations

import re

import pytest

from tests.conftest import indexed_engine, write_tree

FAMILY, FLAG, THUMB, ACCENT = "👨\u200d👩\u200d👧\u200d👦", "🇨🇳", "👍🏽", "e\u0301"
UNITS = {"family": (FAMILY, 8), "flag": (FLAG, 3), "thumb": (THUMB, 3), "accent": (ACCENT, 3)}
# each cluster after a different number of characters, so that the snippet's cuts fall at each place inside one
NOTES = {f"日记/{name}-{shift}.md": "# 周末\n\n" + "周" * shift + (unit + "字") * 60 + "锚定效应" + ("字" + unit) * 60 + "\n"
         for name, (unit, shifts) in UNITS.items() for shift in range(shifts)}
BROKEN = re.compile("[\u200d\U0001f1e6-\U0001f1ff\U0001f3fb-\U0001f3ff\u0301]")


@pytest.fixture
def engine(immediate, tmp_path, embedder):
    return indexed_engine(write_tree(tmp_path / "vault", NOTES), "vault", embedder)


def test_a_snippet_cuts_no_emoji_flag_or_accent_in_two(engine):
    hits = engine.search("锚定效应", mode="keyword", limit=len(NOTES)).hits
    assert len(hits) == len(NOTES)
    for hit in hits:
        assert hit.snippet.startswith("…") and hit.snippet.endswith("…"), hit.snippet  # cut at both ends
        whole = hit.snippet.strip("…")
        for unit, _ in UNITS.values():
            whole = whole.replace(unit, "")
        assert not BROKEN.search(whole), (hit.path, hit.snippet[:12], hit.snippet[-12:])
