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


# A word of the query as typed, between spaces, quotes and brackets: '~/.ssh/authorized_keys', '10.0.3.17:5432'
TYPED = re.compile(r"[^\s\"'`“”‘’()\[\]{}<>,;]+")
IPV4 = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?")
HOST_PORT = re.compile(r"[^\W_][\w.-]*:\d{1,5}")
DOI_START = re.compile(r"(?:doi:)?10\.\d{4,9}/")  # a DOI's: search.query.identifiers reads it
# a statistic's comparison: 'p < 0.05', 'P<.001', 'n = 120', 'r ≥ 0.3' (a name of three letters at most)
COMPARISON = re.compile(r"(?<![\w.])([^\W\d_]{1,3})\s*(<=|>=|≤|≥|<|>|=)\s*(\d*\.?\d+)(?![\w%]|\.\d)")
SAME = {"<=": "≤", ">=": "≥"}
AMONG = 12  # words of a query at most, for its address or path to come first: a longer one is pasted text


def written_whole(query: str) -> list[str]:
    """The addresses, hosts and paths ``query`` types as one word, folded, that the passages writing them as written
    should come first for (``writing_pattern``; search.query.identifiers): of a query that is that word alone, a
    path ('~/.ssh/authorized_keys', 'src/app/main.py'), an address or host ('10.0.3.17:5432', 'db-prod-02.internal',
    'web-01') or a version ('v1.24.3'); among other words, only a path from a home or root ('~/.ssh/config', '/etc/
    hosts', './run.sh'), an IPv4 address or a host and port, which no claim or question of prose writes: 'IL-6',
    '1.5-fold' or 'ERK1/2' among a claim's words stay ranked as its words and meaning rank them; and a threshold
    anywhere ('p < 0.05', ``COMPARISON``), whose words p, 0 and 05 and meaning ranked a note of p < 0.01s near it."""
    typed = [t.rstrip(".,:;!?…") for t in TYPED.findall(unicodedata.normalize("NFKC", query).casefold())]
    typed = [t for t in typed if t]
    if "\n" in query.strip() or len(typed) > AMONG:
        return []  # a pasted trace or log: its frames' files are search.query.reordering.traced_first's
    alone = len(typed) == 1
    found = [" ".join(m.groups()) for m in COMPARISON.finditer(unicodedata.normalize("NFKC", query).casefold())]
    for token in typed:
        if _whole(token, alone) and token not in found:
            found.append(token)
    return found[:MOST]


def _whole(token: str, alone: bool) -> bool:
    parts = PART.findall(token)
    if len(parts) < 2 or token.startswith("#") or "://" in token or DOI_START.match(token) or only_date(token):
        return False  # a word, a tag ('#project/shed'), a link (the DOI's: search.query.identifiers), a date
    if token.startswith(("~/", "/", "./", "../", "$home/")) or IPV4.fullmatch(token) or HOST_PORT.fullmatch(token):
        return True
    if not alone or "*" in token:
        return False  # a glob ('includes/*.pxd') is no file's path as written
    if "/" in token:  # a path, not prose's 'and/or', 'input/output'; nor a file's place ('huey/api.py:Huey.enqueue',
        if ":" in token:  # 'transform.h:60'), which search.query.symbols reads
            return False
        return len(parts) > 2 or any(c.isdigit() or c in "._" for c in token)
    if "_" in token or not any(c.isdigit() for c in token):
        return False  # a name of code ('retry_upload_part', 'AccountStore.getUser'): search.query.symbols
    return any(c.isalpha() for c in token) or len(parts) > 2  # '1.5' is a number; '1.24.3' a version


def writing_pattern(token: str) -> re.Pattern:
    """What a passage's text (folded) writes ``token`` as: the word itself, not inside a longer one ('web-01' is not
    'web-012' nor 'web-01-old', '10.0.3.17' not '10.0.3.170'); a path from the home ('~/.ssh/authorized_keys') from
    anyone's home too ('/home/deploy/.ssh/authorized_keys', '$HOME/.ssh/…')."""
    compared = COMPARISON.fullmatch(token)
    if compared:  # 'p < 0.05' as 'p<0.05', 'P ≤ .05' … but not 'p < 0.01' nor 'p < 0.050'
        name, sign, number = compared.groups()
        same = {sign, SAME.get(sign, sign), *(k for k, v in SAME.items() if v == sign)}  # '<=' is '≤'
        signs = "|".join(map(re.escape, sorted(same)))
        digits = re.escape(number.lstrip("0")) if number.startswith("0.") or number.startswith(".") else None
        written = "0*" + digits if digits else re.escape(number)
        return re.compile(rf"(?<![\w.]){re.escape(name)}\s*(?:{signs})\s*{written}(?![\d]|\.\d)")
    home = token.startswith("~/")
    written = re.escape(token[1:] if home else token)
    before = "" if home or token[0] in "/." else r"(?<![\w./-])"
    return re.compile(before + written + r"(?![\w-]|[.:/@]\w)")
