"""A Word equation (OMML, ``<m:oMath>``: what Word's equation editor writes) read as a line of text in about the
linear form Word itself shows on request: ``P(A|B)=(P(B|A)P(A))/P(B)``, ``x^2``, ``x_i``, ``∑_(i=1)^n x_i``,
``√(b^2-4ac)``, a matrix ``[a b; c d]``. Its text was left out: a formula typed in a student's essay or a report
could not be found, and a paragraph of an equation alone was no passage at all.
"""
from __future__ import annotations

M = "{http://schemas.openxmlformats.org/officeDocument/2006/math}"
OMATH = M + "oMath"
# what a script's, a limit's or a fraction's part is written after; a part of more than one letter or digit is
# bracketed, as Word's linear form brackets it
AFTER = {"sup": "^", "sub": "_", "lim": "_"}


def linear(element) -> str:
    """The text of an ``m:oMath`` element (or any of its parts)."""
    name = _name(element)
    if name == "t":
        return element.text or ""
    if name is None or name.endswith("Pr"):  # Word's run properties, a part's properties: no text
        return ""
    if name == "f":
        return f"{_group(_part(element, 'num'))}/{_group(_part(element, 'den'))}"
    if name in ("sSup", "sSub", "sSubSup", "limLow", "limUpp"):
        marks = {**AFTER, "lim": "^" if name == "limUpp" else "_"}
        return _part(element, "e") + "".join(marks[_name(c)] + _group(linear(c)) for c in element
                                             if _name(c) in AFTER)
    if name == "sPre":
        return "".join(AFTER[_name(c)] + _group(linear(c)) for c in element if _name(c) in AFTER) + \
            _part(element, "e")
    if name == "nary":  # ∑, ∫, ∏ …: the operator, its limits, what it applies to
        sign = _setting(element, "naryPr", "chr", "∫")
        limits = "".join(AFTER[_name(c)] + _group(linear(c)) for c in element if _name(c) in ("sub", "sup"))
        return f"{sign}{limits} {_part(element, 'e')}"
    if name == "d":  # brackets: (a|b), [x], {…}
        begin, end = _setting(element, "dPr", "begChr", "("), _setting(element, "dPr", "endChr", ")")
        between = _setting(element, "dPr", "sepChr", "|")
        return begin + between.join(linear(c) for c in element if _name(c) == "e") + end
    if name == "rad":
        degree = _part(element, "deg")
        return f"{degree}√{_group(_part(element, 'e'), always=True)}"
    if name == "func":  # sin x, log n
        return f"{_part(element, 'fName')} {_part(element, 'e')}".strip()
    if name == "eqArr":  # equations one under another
        return "; ".join(linear(c) for c in element if _name(c) == "e")
    if name == "m":
        rows = [" ".join(linear(c) for c in row if _name(c) == "e") for row in element if _name(row) == "mr"]
        return "[" + "; ".join(rows) + "]"
    return "".join(linear(child) for child in element)


def _name(element) -> str | None:
    tag = element.tag
    return tag[len(M):] if isinstance(tag, str) and tag.startswith(M) else None


def _part(element, name: str) -> str:
    return "".join(linear(child) for child in element if _name(child) == name)


def _setting(element, properties: str, name: str, default: str) -> str:
    """A part's property (``<m:dPr><m:begChr m:val="["/></m:dPr>``), ``default`` where it is not written."""
    for child in element:
        if _name(child) == properties:
            for setting in child:
                if _name(setting) == name:
                    return setting.get(M + "val", "")
    return default


def _group(text: str, always: bool = False) -> str:
    if not always and (len(text) <= 1 or text.isalnum() or (text[0] in "([{" and text[-1] in ")]}")):
        return text
    return f"({text})"
