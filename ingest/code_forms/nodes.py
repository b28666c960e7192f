"""Reading tree-sitter nodes: their text, their fields, what lies below them; a name made safe for a heading."""
from __future__ import annotations

import re


def text(node) -> str:
    return node.text.decode("utf-8", "replace")


def field_text(node, field: str) -> str:
    child = node.child_by_field_name(field)
    return text(child) if child is not None else ""


def descendants(node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def end_row(node) -> int:
    """Last row of a node; a node ending at column 0 ends on the row before."""
    row, col = node.end_point
    return row - 1 if col == 0 and row > node.start_point[0] else row


# A heading path is stored joined by ' > ', and a joined passage's last heading lists its definitions with ', ' and
# '+N' after them (ingest.chunk.joined_heading; search.query.symbols.defines splits them so): a test's title
# ('adds a, b', 'x > y', 'counts +1') read as two names or a count. The space after such a separator becomes a
# no-break space: the title reads as written, and no split finds it.
def heading_safe(part: str) -> str:
    """``part`` as one name of a heading path: no ', ', ' > ' or ending ' +N' that a split would take apart."""
    part = part.replace(", ", ",\u00a0").replace(" > ", " >\u00a0")
    return re.sub(r" (\+\d+)$", "\u00a0\\1", part)


def title(said: str, quotes: str = "") -> str:
    """A title as written (``said``), without the ``quotes`` around it, its runs of white space one space, safe
    for a heading."""
    return heading_safe(" ".join(said.strip(quotes).split()))
