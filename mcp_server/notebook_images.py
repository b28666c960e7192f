"""A notebook's images as read_file shows its lines: each output's image data one short line naming it.

Jupyter writes a plot as one line of base64 (``"image/png": "iVBOR…",``), often 100 KB or more: read_file of a
notebook's section (``heading='Training'``) showed 40 KB of it and stopped, the code and text after it not shown,
each further call 40 KB more of the image. A line of image data longer than SHOWN is one line now, its type and
size; the lines after it follow in the same answer."""
from __future__ import annotations

import re

from ingest.kinds import suffix

IMAGE = re.compile(r'(\s*"image/([\w.+-]+)": ")[A-Za-z0-9+/=\\n]{64}')  # Jupyter's key, then base64
SHOWN = 200  # characters: an image line longer than this is folded


def is_notebook(relative: str) -> bool:
    return suffix(relative).lower() == ".ipynb"


def folded(text: str, size: int) -> str | None:
    """The line ``text`` (its start at least) of an image ``size`` bytes long as one short line naming it; None
    when it is no image line of more than SHOWN characters."""
    match = IMAGE.match(text)
    if match is None or size <= SHOWN:
        return None
    kind = match.group(2).upper().replace("SVG+XML", "SVG")
    return f'{match.group(1)}…" [a {kind} image, {_size(size)}, not shown]'


def _size(size: int) -> str:
    return f"{size / 1024:,.0f} KB" if size >= 1024 else f"{size} bytes"
