"""A contract's paragraphs headed by the reference a lawyer writes for them: '(2) …' under a heading '§ 5 Vergütung'
is '§ 5 Abs. 2', and '(b) …' under a clause '12.3 …' is '12.3(b)'.

A contract numbers its own paragraphs ('§ 5 Vergütung', then '(1) …', '(2) Überstunden …') and a clause's parts
('12.3 …', then '(a) …', '(b) …' on lines of their own): the reference is written nowhere, so '§ 5 Abs. 2' ranked
passages citing other paragraphs ('Art. 6 Abs. 1') above the contract's, and '12.3(b)' found the clause by its '12'
only. Each such paragraph is a heading of its own, one level below the heading it is under, named by its reference:
the passage is headed '§ 5 Vergütung > § 5 Abs. 2', whose words in a row are the phrase the reference is searched as
(search.query.references). A clause's parts end at the next clause of its depth or above ('12.4 …'), which is headed
by its number."""
from __future__ import annotations

import re

_STATUTE = re.compile(r"\s*(§|art\.?(?=\s*\d)|artikel)\s*(\d+[a-z]?)\b", re.IGNORECASE)  # '§ 5 Vergütung', 'Art. 3'
_PARAGRAPH = re.compile(r"\s*\((\d{1,3}[a-z]?)\)\s")  # '(2) Überstunden …'
_CLAUSE = re.compile(r"(\s*)(\d{1,3}(?:\.\d{1,3})+)\.?\s")  # '  12.3 The Supplier …'
_PART = re.compile(r"(\s*)\(([a-z]{1,3}|\d{1,3})\)\s")  # '    (b) the cap …'


def paragraph_headings(lines: list[str], headings: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """``headings`` ((line, level, name), by line; a level 0 heads the rest) with a heading at each numbered paragraph
    of a statute-like heading ('§ 5 Vergütung', 'Art. 3 …': '§ 5 Abs. 2') and at each lettered part of a numbered
    clause ('12.3(b)'), one level below the heading above; where a clause's parts end, its next clause is headed by
    its number ('12.4')."""
    starts = {line: (level, name) for line, level, name in headings}
    added: list[tuple[int, int, str]] = []
    level, statute, clause = 0, None, None  # clause: (its indent, its number, its parts' indent once one is headed)
    for n, line in enumerate(lines):
        if n in starts:
            level, name = starts[n]
            found = _STATUTE.match(name)
            statute = (found.group(1), found.group(2)) if found else None
            clause = None
            continue
        if statute and (paragraph := _PARAGRAPH.match(line)):
            sign = "§" if statute[0] == "§" else "Art."
            added.append((n, level + 1, f"{sign} {statute[1]} Abs. {paragraph.group(1)}"))
            continue
        if (found := _CLAUSE.match(line)) and (clause is None or len(found.group(1)) <= clause[0]):
            if clause and clause[2] is not None:  # the parts of the clause before end here
                added.append((n, level + 1, found.group(2)))
            clause = (len(found.group(1)), found.group(2), None)
            continue
        if clause and (part := _PART.match(line)) and len(part.group(1)) > clause[0] \
                and clause[2] in (None, len(part.group(1))):  # a part's own parts ('(i)') are in it
            added.append((n, level + 1, f"{clause[1]}({part.group(2)})"))
            clause = (clause[0], clause[1], len(part.group(1)))
    return sorted(headings + added) if added else headings
