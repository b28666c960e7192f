"""A word written of parts joined by marks, no space between: a host and port (``10.0.3.17:5432``, ``cache-01:6379``),
a host (``db-prod-02``), a version (``v1.24.3``), a path (``/etc/nginx/sites-enabled``). FTS5 holds its parts as
words of their own, and keyword search looked them up one by one: ``10``, ``0``, ``3``, ``17`` and ``5432`` ranked a
crontab's ``17 3 * * 1`` above the runbook naming the host. Keyword search looks such a word up whole too, its
parts as a phrase (as a DOI's: ``text.doi_phrases``)."""
from __future__ import annotations

import re
import unicodedata

from search.query.dates import only_date

# parts of letters and digits joined by '.', ':', '/', '-' or '@', and nothing between them; begun only where a word
# begins: tried from each of its letters, a long word with no mark (a pasted hash of 10,000 characters) took time
# quadratic in its length, 1.9 s of CPU each time a search read the query's pieces
JOINED = re.compile(r"(?<![^\W_])[^\W_]+(?:[.:/@-][^\W_]+)+")
PART = re.compile(r"[^\W_](?:[^\W_]|[\u0300-\u036f])*")  # a word, as search.query.text.WORD reads one
MOST = 8  # joined words looked up whole, the first of a query: a pasted log or trace writes dozens (each a phrase)


def joined_phrases(query: str) -> dict[str, str]:
    """{each joined word ``query`` writes, folded: its parts (as keyword search reads words) as a phrase}, of a word
    holding a digit, a '/' or a ':' (an address, a host, a version, a path). Not a name of code
    ('AccountStore.getUser', 'retry_upload_part': ``name_phrases`` and the code's own index form find those), nor
    prose's hyphenated words ('state-of-the-art': their words alone find them), nor a date ('2024-03-14', which
    ``dates.date_forms`` looks up)."""
    found = {}
    for match in JOINED.finditer(query):
        token = match.group()
        before = query[max(0, match.start() - 1):match.start()]
        if query[match.end():match.end() + 1] == "_" or before == "_":
            continue  # part of a snake_case name
        if before == "#":
            continue  # a nested tag ('#project/shed'), which the tag filter reads
        parts = PART.findall(unicodedata.normalize("NFKC", token).casefold())
        if len(parts) < 2 or only_date(token) or not any(c.isdigit() or c in "/:" for c in token):
            continue
        if len(parts) == 2 and not any(c in ".:/@" for c in token):
            continue  # a name and its number ('IL-6', 'GPT-4', 'COVID-19'): its two words alone find it, as before
        found.setdefault(token.casefold(), " ".join(parts))
        if len(found) == MOST:
            break
    return found

