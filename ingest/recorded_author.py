"""A document's author as its metadata records it: a PDF's, a Word document's core properties, an OpenDocument's
meta.xml, an EPUB's package document, a slide deck's. The title column holds it and search's ``author`` filter reads
it (search.query.authors), so a name a program writes for whoever runs it is none, and neither is a text of no name.
"""
from __future__ import annotations

import re

# Authors a program writes for whoever runs it, no person's name
PLACEHOLDER_AUTHORS = frozenset(["microsoft office user", "user", "admin", "administrator", "unknown", "author",
                                 "owner", "anonymous", "default", "none", "n/a", "python-docx", "python-pptx"])
MAX_CHARS = 300
# a Chinese, Japanese or Korean character: a name of two is a name (王伟), where two Latin letters are none
_CJK = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3\uf900-\ufaff]")


def recorded_author(*raw: str | None) -> str:
    """The authors given (several of an EPUB's ``dc:creator``) as one text, '; ' between them, each without a
    placeholder or a text of no name: fewer than three letters, two where Chinese, Japanese or Korean (a name of
    two characters, 王伟, was dropped); '' for none, or for over MAX_CHARS characters."""
    names = []
    for each in raw:
        name = " ".join(str(each or "").split())
        letters = sum(ch.isalpha() for ch in name) + len(_CJK.findall(name))  # a CJK character counts twice
        if letters >= 3 and name.casefold() not in PLACEHOLDER_AUTHORS:
            names.append(name)
    author = "; ".join(dict.fromkeys(names))
    return author if len(author) <= MAX_CHARS else ""
