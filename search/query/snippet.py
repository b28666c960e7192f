"""A short passage of a chunk around the query's words, with the matches marked **like this**."""
from __future__ import annotations

import bisect
import functools
import re
import unicodedata
import weakref
from collections import Counter

from search.query.dates import date_patterns, without_dates
from search.query.inflection import without_elisions
from search.query.micro_units import micro_forms
from search.query.references import REFERENCE, phrases as reference_phrases
from search.query.text import (CJK_RANGES, CJK_RUN, KATAKANA, KATAKANA_PART, KATAKANA_WORD, WORD, katakana_form,
                               katakana_split, korean_stem, name_phrases, normalise, particle_after_name,
                               split_scripts, umlaut_forms, unwrapped, variant_pattern)

# Where a Latin (Cyrillic, ...) word starts and ends: as \b, except that a CJK character is a border too,
# since search splits '云仓WMS' into 云仓 and WMS, and so is '_', where the tokenizer splits 'wal_checkpoint'.
_LETTER = rf"[^\W_{CJK_RANGES}]"
_START, _END = rf"(?<!{_LETTER})", rf"(?!{_LETTER})"
_ALPHA = rf"[^\W\d_{CJK_RANGES}]"  # a letter: what a stem's ending may add ('index' + 'ed')
# A query's pattern whose only CJK is in those classes (its words Latin, Cyrillic, ...: ``_compiled``) is compiled
# with each class's CJK ranges written as one character and matched against the text with each CJK character
# written as it (``_masked``, a word character) or as '・' (one that is not): the same matches, as nothing else of
# the pattern tells a CJK character from another, and no 1.5 ms to compile each class (9 of them in a pasted
# trace's pattern, 13 of its 14 ms).
_MASK_WORD, _MASK_OTHER = "\u4e00", "\u30fb"
_MASKED_CLASSES = {_LETTER: rf"[^\W_{_MASK_WORD}]", _ALPHA: rf"[^\W\d_{_MASK_WORD}]"}
_CJK_CHARS = re.compile(f"[{CJK_RANGES}]+")
# What a pattern must not hold, its classes above aside, to be matched so: a character from the lowest CJK one on
# (a literal or a range's end), or an escape that could write one.
_UNMASKABLE = re.compile(r"[\u3040-\U0010ffff]|\\[uUNx]")
_MASKED: weakref.WeakSet = weakref.WeakSet()  # the compiled patterns that match masked text

POSSESSIVE = re.compile(r"(?<=[^\W\d_])['’]s\b")  # an English possessive's ending: "Mara's", "the captain’s"
LINE_BREAK = " ⏎ "  # between a log's lines in a snippet (snippet_window's ``lines``)
MARKED = 64  # query words a snippet marks at most
WIDTH = 240  # columns: a Chinese (Japanese, Korean, full-width) character takes two, as on a terminal
# Characters shown two columns wide (East Asian Wide and Fullwidth).
_WIDE = re.compile("[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf"
                   "\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\U00020000-\U0003fffd]")
# Where a snippet that does not start (end) with its passage may start (end): at a space, or after a Chinese
# (Japanese) mark that ends a sentence or clause, as text written without spaces has no other clean place; in a
# PDF's text, which NFKC leaves with ASCII marks (，to ,), after such a mark that follows a Chinese character.
_BREAK = re.compile(rf"[ 。，、；：！？]|(?<=[{CJK_RANGES}])[,;:!?]")
# A note's own bold (**重要**, **important**), which the marks would run into: '****重要****'. Not a power
# ('a**2 + b**2') or keyword arguments ('f(**a, **b)'): the opening pair follows no ASCII letter or digit, the
# closing pair is followed by none (Chinese has no spaces around bold), and what they hold neither starts nor
# ends with a space nor holds a '*'.
_BOLD = re.compile(r"(?<![A-Za-z0-9_)\]*])\*\*([^\s*](?:[^*\n]*[^\s*])?)\*\*(?![A-Za-z0-9_*])")
# A note's Markdown that says nothing in a one-line snippet: a heading's '#' marks (the heading is shown above the
# snippet anyway), a table's |---|:-:| rule and a code fence's ``` line. Notes only: in code '#' starts a comment.
_HEADING = re.compile(r"[ \t]{0,3}#{1,6}(?=[ \t]|$)")
_TABLE_RULE = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*")
_FENCE = re.compile(r"[ \t]{0,3}(?:```|~~~)")
# Obsidian's Markdown, shown as Obsidian's reading view shows it: a wiki link or embed, [[Note]], [[Note|label]],
# [[Note#Part]], ![[Note#^block]] (target, '#' parts, label); a block id at a line's end ('... ^goals'); a
# callout's opening line, '> [!warning]- Title'; a block quote's '>' marks.
_WIKI = re.compile(r"!?\[\[([^\[\]|#\n]*)((?:#[^\[\]|#\n]*)*)(?:\|([^\[\]\n]*))?\]\]")
_BLOCK_ID = re.compile(r"(?:^|[ \t]+)\^[A-Za-z0-9-]+[ \t]*$")
# A line that begins a block of its own (a list item, a heading, a fence, a table row): the line above ends its
# block, where an id may be. Obsidian reads one only at a block's end: 'm c ^2' ending a line inside a paragraph is text.
_NEW_BLOCK = re.compile(r"[ \t]*(?:[-*+][ \t]|\d{1,9}[.)][ \t]|#{1,6}(?:[ \t]|$)|```|~~~|\|)")
_QUOTE = re.compile(r"[ \t]{0,3}>(?:[ \t]?>)*[ \t]?")
_CALLOUT = re.compile(r"\[!([^\]\n]+)\][+-]?[ \t]*")
# A Markdown link or image to a note of the collection, '[Billing migration](Roadmap%203f2a…/Billing%20….md)', as a
# Notion or Joplin export writes every link: shown as its label, as a reading view shows it (the path and its ids
# filled a snippet). A link to a URL, a mail address or any other file is shown as written (_NOTE_TARGET): shown as
# its label, '[Alice](mailto:alice@example.com)' and '[the script](scripts/setup.sh)' lost the address and the
# name a search for them had found, and marked nothing.
# A Notion page's relation property, 'Billing migration (../Projects%20…/Billing%20migration%20<32-hex id>.md)': its
# title alone
_NOTION_RELATION = re.compile(r" \((?:\.\./)*[^()\s]*[0-9a-f]{32}(?:\.md|%2[eE]md)\)")
_FILE_LINK = re.compile(r"!?\[([^\[\]\n]*)\]\((?![a-zA-Z][\w+.-]*:[^/\s)]*//)(?:<[^<>\n]*>|[^()\s]+)"
                        r"(?:[ \t]+\"[^\"\n]*\")?\)")
_NOTE_TARGET = re.compile(r"<?(?:[^<>\n]*(?:\.md|%2[eE]md)(?:#[^<>\n]*)?|[^<>\n]*[0-9a-fA-F]{32}[^<>\n]*)>?")
_LINK_TITLE = re.compile(r"[ \t]+\"[^\"\n]*\"\)$")
# A table of contents' dot leaders ('2 LRS ........... 6', '. . . . .') and other rules of one character, which
# filled a PDF's snippet with 200 dots: shown as one '…'.
_LEADER = re.compile(r"([.·…_=\-])\1{5,}|(?:\. ){4,}\.?")


def snippet(text: str, query: str, width: int = WIDTH, skip=frozenset(), note: bool = False,
            code: bool = False, accept=None, above: tuple[str, ...] = ()) -> str:
    """``snippet_window``'s snippet alone."""
    return snippet_window(text, query, width, skip, note, code, accept, above)[0]


def snippet_window(text: str, query: str, width: int = WIDTH, skip=frozenset(), note: bool = False,
                   code: bool = False, accept=None, above: tuple[str, ...] = (),
                   lines: bool = False) -> tuple[str, tuple[int, int] | None]:
    """The snippet, and where in ``text`` as ``_shown`` gives it is the shortest stretch of it that holds all the
    words it marks (``_tightest``; ``snippet_pages`` reads a PDF passage's pages from it), or None when it marks
    none (a hit by meaning alone: the passage as a whole is what matched). About ``width`` columns of ``text`` from a little before the matches that show the most of the query's
    words (the first such place); ``skip``: words of the query not to mark (the common ones keyword search
    drops, search.query.keyword.common_words). Counted in columns, a Chinese snippet holds half as many
    characters as an English one: 240 Chinese characters were a wall of text, twice the lines of English.
    ``note``: the text is a note's Markdown, whose heading marks, table rules and code fences are left out;
    ``code``: the text is code, whose camelCase names search reads as their words too (getUserName holds user).
    ``accept(word)``: whether a word the query's stems match (as folded) is one keyword search matched ('time' is
    not 'timeout', which the stem 'time' marks): ``marked_words`` gives the candidates. ``above``: the headings
    shown above the snippet (the title and the heading path's parts); a note's heading line that is one of them
    is left out, as the snippet of a note's first passage began with its title again, under the title, a fifth of
    its 240 columns. ``lines``: the text is a log, whose lines are shown joined by LINE_BREAK, not by a space:
    '…217:20) 2026-05-02T10:15:01.130Z WARN …' ran one entry into the next, the traceback's last frame into the
    next entry's time."""
    text = _shown(text, note, above)
    pattern = _pattern(query, frozenset(skip))
    spans = _matches(pattern, text, code) if pattern else []
    spans = [span for span in spans if accept is None or accept(span[2])]
    columns = _Columns(text)
    if columns.at(len(text)) <= width:  # it all fits: cutting its start off to centre a match only hid text
        best = None
    else:
        best = _densest(spans, width - width // 3, columns)
    start = 0 if best is None else columns.index(columns.at(best[0]) - width // 3)
    if start:
        space = _BREAK.search(text, start, start + 20)
        start = space.end() if space else start
    end = columns.index(columns.at(start) + width)
    if end < len(text):  # not mid-word: back to the last place to stop among the last 20 characters
        stops = [m.end() for m in _BREAK.finditer(text, max(start, end - 20), end)]
        end = stops[-1] if stops else end
    start, end = _whole_cluster(text, start, 1), max(start, _whole_cluster(text, end, -1))
    window = text[start:end]
    shown = [(max(a, start) - start, min(b, end) - start) for a, b, _ in spans if a < end and b > start]
    marked = _mark(window, _whole_code_spans(window, shown) if note and "`" in window else shown)
    if lines:
        marked = LINE_BREAK.join(" ".join(line.split()) for line in marked.split("\n") if line.strip())
    else:
        marked = " ".join(marked.split())
    inside = [span for span in spans if span[0] >= start and span[1] <= end]
    return ("…" if start else "") + marked + ("…" if end < len(text) else ""), _tightest(inside)


# What continues the character before it (a combining mark, a variation selector, a skin tone, an emoji tag) and
# the joiner of an emoji sequence (👨‍👩‍👧, the family, is four emoji joined): a snippet cut before one of them, or
# after a joiner, began with a bare accent or half a family, and ended with a joiner.
_CONTINUES = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f\u200d\ufe00-\ufe0f"
                        "\u3099\u309a\uff9e\uff9f\U0001f3fb-\U0001f3ff\U000e0020-\U000e007f\U000e0100-\U000e01ef]")
_FLAG_LETTER = re.compile("[\U0001f1e6-\U0001f1ff]")  # two of them make a flag: 🇨🇳 is C + N


def _whole_cluster(text: str, at: int, step: int) -> int:
    """``at``, or the nearest place from it in the direction of ``step`` (1: on, -1: back) that cuts no character
    cluster of ``text`` in two: not before a mark that continues the character before it, not after an emoji
    joiner, not between the two letters of a flag."""
    while 0 < at < len(text):
        char, before = text[at], text[at - 1]
        if _CONTINUES.match(char) or unicodedata.category(char) in ("Mn", "Me", "Mc") or before == "\u200d":
            at += step
        elif _FLAG_LETTER.match(char) and _FLAG_LETTER.match(before) and _flag_letters_before(text, at) % 2:
            at += step
        else:
            break
    return at


def _flag_letters_before(text: str, at: int) -> int:
    count = 0
    while at - count > 0 and _FLAG_LETTER.match(text[at - count - 1]):
        count += 1
    return count


def snippet_pages(text: str, page_starts: list, window: tuple[int, int]) -> tuple[int, int]:
    """The first and last page of a PDF passage that its snippet's marked words are on:
    ``window`` as ``snippet_window`` gives it,
    ``page_starts`` as the chunk keeps them, [(offset in ``text``, page, offset in that page)]. A passage over a
    page break was shown as 'p.2-3' whichever of the two pages held the words: 16 of 20 quotes remembered from
    four papers came first so, to be looked for on both pages."""
    start, end = window
    shown = _shown(text, False)
    while start < end and shown[start].isspace():
        start += 1
    while end > start and shown[end - 1].isspace():
        end -= 1
    first = last = page_starts[0][1]
    for offset, page, *_ in page_starts[1:]:
        at = len(_shown(text[:offset], False))  # leaders and wrapped Chinese lines shorten the text shown
        if at <= start:
            first = page
        if at < end:
            last = page
    return first, max(first, last)


def _tightest(matches: list[tuple[int, int, str]]) -> tuple[int, int] | None:
    """The shortest stretch (start, end) that holds every different word of ``matches`` (in text order): the
    words a snippet marks, without a 'the' of the query's two pages before them."""
    want = len({word for _, _, word in matches})
    best, held, first = None, Counter(), 0
    for last, (_, end, word) in enumerate(matches):
        held[word] += 1
        while len(held) == want:
            if best is None or end - matches[first][0] < best[1] - best[0]:
                best = (matches[first][0], end)
            held[matches[first][2]] -= 1
            if not held[matches[first][2]]:
                del held[matches[first][2]]
            first += 1
    return best


@functools.lru_cache(maxsize=128)
def _shown(text: str, note: bool, above: tuple[str, ...] = ()) -> str:
    """``text`` as a snippet shows it: a note's Markdown plain (without the headings shown ``above`` it, unless
    they are all it holds), bold marks and leaders gone."""
    if note:
        plain = _plain(text, frozenset(h.strip() for h in above if h and h.strip()))
        text = plain if plain.strip() else _plain(text)
    text = _BOLD.sub(r"\1", text) if "**" in text else text
    return _LEADER.sub(" … ", unwrapped(text))  # '消息队\n列' was shown as '**消息队** 列', a word cut by a space


def marked_words(text: str, query: str, skip=frozenset(), note: bool = False, code: bool = False,
                 above: tuple[str, ...] = ()) -> set[str]:
    """The words (as folded) of ``text`` that ``snippet`` would mark for ``query`` without ``accept``; given the same
    ``above`` as the snippet, the text is the one it shows, and its matches are found once for both (``_matches``
    keeps the last few: finding them was half of a semantic search's 59 ms at 100,120 passages, once per hit for
    the words to accept and again for its snippet)."""
    pattern = _pattern(query, frozenset(skip))
    return {word for _, _, word in _matches(pattern, _shown(text, note, above), code)} if pattern else set()


def _plain(text: str, above: frozenset[str] = frozenset()) -> str:
    """A note's text without its heading marks, table rules and code fence lines, and without the heading lines
    whose text is in ``above``; a '#' comment inside a fence is kept."""
    lines, fenced = [], False
    raw = text.split("\n")
    for i, line in enumerate(raw):
        if _FENCE.match(line):
            fenced = not fenced
        elif fenced:
            lines.append(line)
        elif not (("-" in line and _TABLE_RULE.fullmatch(line))):
            heading = "#" in line and _HEADING.match(line)
            if heading and line[heading.end():].strip().rstrip("#").strip() in above:
                continue
            line = _obsidian(line, above, _ends_block(line, raw[i + 1] if i + 1 < len(raw) else None))
            if line is None:
                continue  # a bare block id, or a callout's title that the heading path shows
            # a heading's text ends with a space, which keeps it apart from the line below (``unwrapped``)
            lines.append(_HEADING.sub("", line, count=1) + (" " if heading else "") if "#" in line else line)
    return "\n".join(lines)


def _ends_block(line: str, after: str | None) -> bool:
    """Whether ``line`` is the last of its block, where Obsidian reads a block id: the passage ends there (its
    text may end mid-paragraph: the id read as it would be at the block's end), or the line ``after`` it is blank,
    in or out of a quote, or begins a block of its own."""
    if after is None or not after.strip():
        return True
    quoted, quoted_after = _QUOTE.match(line), _QUOTE.match(after)
    if bool(quoted) != bool(quoted_after):
        return True
    rest = after[quoted_after.end():] if quoted_after else after
    return not rest.strip() or bool(_NEW_BLOCK.match(rest))


def _obsidian(line: str, above: frozenset[str] = frozenset(), last: bool = True) -> str | None:
    """A note's line without the Obsidian syntax its snippet would show raw: '[[Local Models|local models]]' as
    'local models', '[[Ranking#BM25 tuning]]' as 'Ranking > BM25 tuning', '![[Sift#^decision]]' as 'Sift', a block
    id ('^goals') at the end of its block (``last``) left out, a callout's '> [!warning] Slow' as 'Slow' (its type where it has no title), a quote's
    '>' marks left out. None: nothing is left to show (a line holding only a block id or a comment's '%%', or a
    callout's title that is one of the headings shown ``above`` the snippet, as a note's callout heads a section:
    ingest.markdown)."""
    if "[[" in line:  # not inside inline code: `[[ -f x ]]` is shell
        cuts = [0, *(i for span in _CODE_SPAN.finditer(line) for i in span.span()), len(line)] if "`" in line \
            else [0, len(line)]
        line = "".join(_WIKI.sub(_link_text, line[a:b]) if n % 2 == 0 else line[a:b]
                       for n, (a, b) in enumerate(zip(cuts, cuts[1:])))
    if "](" in line and "`" not in line:
        line = _FILE_LINK.sub(_file_link_text, line)
    if ".md)" in line or "%2Emd)" in line or "%2emd)" in line:
        line = _NOTION_RELATION.sub("", line)
    if line.strip() == "%%":  # an Obsidian comment's opening or closing line
        return None
    if "^" in line and last:
        bare = _BLOCK_ID.sub("", line)
        if not bare.strip():
            return None
        line = bare
    if ">" in line and (quote := _QUOTE.match(line)):
        line = line[quote.end():]
        callout = _CALLOUT.match(line)
        if callout:
            line = line[callout.end():].strip() or callout.group(1).strip().capitalize()
            if line in above:
                return None
    return line


def _file_link_text(link: re.Match) -> str:
    """A Markdown link to a note (a path ending '.md', a Joplin or Notion id) as its label; any other as written."""
    whole = link.group(0)
    target = _LINK_TITLE.sub(")", whole)[whole.index("](") + 2:-1]
    return link.group(1).strip() if _NOTE_TARGET.fullmatch(target) else whole


def _link_text(link: re.Match) -> str:
    """What Obsidian shows for a wiki link or embed: its label, else its target and headings ('Note > Part'),
    a block reference ('#^id') left out."""
    target, parts, label = link.group(1), link.group(2), link.group(3)
    if label is not None and label.strip():
        return label.strip()
    names = [target.strip()] + [p.strip() for p in parts.split("#")[1:] if p.strip() and not p.startswith("^")]
    return " > ".join(name for name in names if name)


# A piece of text that folds on its own: a run of ASCII and CJK ideographs (which NFKC keeps and case folding
# changes letter for letter) not followed by a combining mark, or one character with the marks that follow it.
_PIECE = re.compile(r"([\x00-\x7f\u4e00-\u9fff]+)(?![\u0300-\u036f\u3099\u309a\uff9e\uff9f])"
                    r"|.[\u0300-\u036f\u1dc0-\u1dff\u20d0-\u20ff\u3099\u309a\uff9e\uff9f]*", re.S)


# Where a camelCase or PascalCase name's next word starts: getUser|Name, HTML|Parser, utf8|Decode.
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def _folded(text: str, camel: bool = False) -> tuple[str, list[int], list[int]]:
    """``text`` as search reads it (``normalise``: NFKC, case folded; ``_bare``: accents off), and for each of its
    characters where it comes from in ``text``: (start, end). The query is folded so; matching it against the text
    as written left full-width letters and digits (ＡＢＣ１２３, which search finds for ABC123) unmarked. ``camel``:
    an '_' (from nowhere in ``text``) between the words of a camelCase name, as code is indexed so."""
    out, starts, ends = [], [], []
    for piece in _PIECE.finditer(text):
        a, b = piece.span()
        if piece.group(1):
            folded = piece.group().casefold()  # ASCII and ideographs: one character each way
            if len(folded) == b - a:
                cuts = [m.start() for m in _CAMEL.finditer(text, a, b) if m.start() > a] if camel else []
                for x, y in zip([a, *cuts], [*cuts, b]):
                    if x > a:
                        out.append("_")
                        starts.append(x)
                        ends.append(x)
                    out.append(folded[x - a:y - a])
                    starts.extend(range(x, y))
                    ends.extend(range(x + 1, y + 1))
                continue
        folded = _bare(normalise(piece.group()))
        out.append(folded)
        starts.extend([a] * len(folded))
        ends.extend([b] * len(folded))
    return "".join(out), starts, ends


def _bare(text: str) -> str:
    """``text`` without the accents of its letters, as the keyword index reads it (unicode61's remove_diacritics):
    'ma' finds the pinyin mā má mǎ mà, and 'cafe' café, and the other way round."""
    if text.isascii():
        return text
    stripped = "".join(c for c in unicodedata.normalize("NFD", text) if not "\u0300" <= c <= "\u036f")
    return unicodedata.normalize("NFC", stripped)


@functools.lru_cache(maxsize=128)
def _matches(pattern: re.Pattern, text: str, camel: bool = False) -> tuple[tuple[int, int, str], ...]:
    """(start, end, the word as folded) of each match of ``pattern`` in the folded ``text``, placed in ``text``;
    matches may overlap: the bigrams 数据 and 据库 of a query both match in 数据库, where taking matches one after
    the other marked **数据**库 (and **デー**タ for データベース). ``camel``: camelCase names are words apart, and
    whole too: 'vectorindex' typed as one word was left unmarked in 'class VectorIndex', read as vector_index (the
    name typed as written, 'VectorIndex', is marked by its words in a row too: ``_pattern``'s name phrases)."""
    found = []
    for split in ((True, False) if camel else (False,)):
        folded, starts, ends = _folded(text, split)
        searched = _masked(folded) if pattern in _MASKED else folded
        at = 0
        while (match := pattern.search(searched, at)) is not None:
            if match.end() > match.start():
                found.append((starts[match.start()], ends[match.end() - 1], folded[match.start():match.end()]))
            at = match.start() + 1
    return tuple(sorted(set(found)) if camel else found)


class _Columns:
    """Where each character of a text is shown, in columns (``_WIDE`` ones take two)."""

    def __init__(self, text: str):
        self.length = len(text)
        self.wide = [] if text.isascii() else [m.start() for m in _WIDE.finditer(text)]

    def at(self, index: int) -> int:
        """The columns of the characters before ``index``."""
        return index + bisect.bisect_left(self.wide, index)

    def index(self, column: int) -> int:
        """The first index whose characters before it take ``column`` columns or more (the text's end at most)."""
        if not self.wide:
            return max(0, min(column, self.length))
        return bisect.bisect_left(range(self.length + 1), column, key=self.at)


def _densest(matches: list[tuple[int, int, str]], reach: int, columns: _Columns) -> tuple[int, int, str] | None:
    """The match that begins the stretch of ``reach`` columns holding the most different matched words: a
    phrase from a PDF page shows where it is, not where 'and' first occurs in the passage."""
    best, most, last = None, 0, 0
    for first, match in enumerate(matches):
        last = max(last, first)
        while last + 1 < len(matches) and columns.at(matches[last + 1][1]) <= columns.at(match[0]) + reach:
            last += 1
        words = len({m[2] for m in matches[first:last + 1]})
        if words > most:
            best, most = match, words
    return best


# A note's inline code: a run of backticks, what it holds, and a run of as many ('`git reset`', '``a`b``').
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)


def _whole_code_spans(text: str, matches: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``matches``, one inside a note's inline code grown to the whole span, backticks and all: a snippet shown as
    Markdown showed '`**git** reset`' as written, marks and all, as nothing is bold inside code. '**`git reset`**'
    is bold there and reads as well as plain text."""
    spans = [m.span() for m in _CODE_SPAN.finditer(text)]
    if not spans:
        return matches
    grown = []
    for start, end in matches:
        for a, b in spans:
            if start < b and end > a:
                start, end = min(start, a), max(end, b)
        grown.append((start, end))
    return sorted(grown)


def _mark(text: str, matches: list[tuple[int, int]]) -> str:
    """Each match **marked**, matches that touch ('云仓' then 'WMS') or overlap as one."""
    spans: list[list[int]] = []
    for start, end in matches:
        if spans and start <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], end)
        elif end > start:
            spans.append([start, end])
    out, last = [], 0
    for start, end in spans:
        out += [text[last:start], "**", text[start:end], "**"]
        last = end
    return "".join(out) + text[last:]


@functools.lru_cache(maxsize=64)
def _pattern(query: str, skip: frozenset = frozenset()) -> re.Pattern | None:
    """The query's words as a pattern: the first MARKED of them in the query's order (as keyword search takes its
    first terms), longest first in the alternation. Kept for the last queries: each of a search's hits asks."""
    words: dict[str, None] = {}  # in the query's order: a long query keeps its first words, not any 64 of them
    phrases = name_phrases(query)  # 'UserName' is searched as 'user name' too (keyword search)
    # a date is marked whole, in any of its forms (``date_patterns``), not word by word: the 日 of 3月13日の日報 marked
    # 今**日の**作業 (日 and the pair 日の of the run 日の日報), 明**日**
    # a possessive's 's is no word of its own: "the captain's eyes" marked every 's of a passage, father'**s**
    asked = POSSESSIVE.sub("", unicodedata.normalize("NFKC", query))
    for word in WORD.findall(without_elisions(normalise(without_dates(asked)))):
        pieces = split_scripts(word)
        for at, piece in enumerate(pieces):  # as search splits it: '曲美contract' is 曲美 and contract
            if piece in skip or particle_after_name(pieces, at):  # 'Docker를' marks Docker, not every 를
                continue
            if CJK_RUN.fullmatch(piece):  # the run where it is whole, else the bigrams search matched
                for part in katakana_split(piece):  # a katakana word whole, as search looks it up: not バ**ックオフ**
                    if KATAKANA_WORD.fullmatch(part):
                        words.setdefault(_katakana_word(part))
                        continue
                    # each character in either script, as search looks it up (``variant_pairs``): 资料 found
                    # 資料, and 台湾 台灣 (marked 台**灣出版社**: OpenCC writes 臺灣)
                    words.setdefault(variant_pattern(part))
                    words.update(dict.fromkeys(variant_pattern(part[i:i + 2]) for i in range(max(1, len(part) - 1))))
                    # 책을 found 책은 by its 책: marked where it is a word, alone or with its particle, not in 책상
                    # nor at the end of another (공책, notebook; 준비가: 가을's 가 is the particle there)
                    words.update(dict.fromkeys(_KOREAN_WORD_START + stem + _KOREAN_WORD_END
                                               for stem in korean_stem(part)))
                continue
            for form in [piece, *umlaut_forms(piece), *micro_forms(piece)]:  # 'ueberlagerung' found 'Überlagerung' too
                words.setdefault(_START + _word(_bare(form)))
            if piece in phrases:  # its words in a row, as search found them: get_user_name (getUserName split), 'read error'
                words.setdefault(_START + r"[\W_]+".join(_word(part) for part in phrases[piece].split()))
    # 3月14日 marks 2024-03-14, and the other way; 'March 14' in any case
    words.update(dict.fromkeys(f"(?i:{pattern})" for pattern in date_patterns(unicodedata.normalize("NFKC", query))))
    words.update(dict.fromkeys(_references(unicodedata.normalize("NFKC", query))))
    if not words:
        return None
    # Only a word's letters are matched in any case (``_word``'s (?i:…)), not the whole pattern: under IGNORECASE
    # each class of its CJK ranges (``_START``, ``_END``, ``_ALPHA``: three a word) was compiled with every one of
    # their 40,000 characters' cases looked up, about 6 ms each: a pasted stack trace's snippets took 0.5 s of CPU.
    ordered = sorted(list(words)[:MARKED], key=_unwrapped_length, reverse=True)
    return _compiled("|".join(_bounded_once(ordered)))


def _compiled(alternation: str) -> re.Pattern:
    """``alternation`` compiled, with its classes' CJK ranges written as one character (``_MASKED_CLASSES``) when
    nothing else of it names a CJK character: ``_matches`` then matches it against ``_masked`` text."""
    bare = alternation
    for full in _MASKED_CLASSES:
        bare = bare.replace(full, "")
    if _UNMASKABLE.search(bare):
        return re.compile(alternation)
    for full, one in _MASKED_CLASSES.items():
        alternation = alternation.replace(full, one)
    pattern = re.compile(alternation)
    _MASKED.add(pattern)
    return pattern


def _masked(text: str) -> str:
    """``text`` with each CJK character written as ``_MASK_WORD`` (one ``\\w`` matches) or ``_MASK_OTHER`` (one it
    does not: '・', and code points not yet assigned): the same length, the same places."""
    return text if text.isascii() else _CJK_CHARS.sub(_mask_run, text)


def _mask_run(run: re.Match) -> str:
    chars = run.group()
    if chars.isalnum():
        return _MASK_WORD * len(chars)
    return "".join(_MASK_WORD if char.isalnum() else _MASK_OTHER for char in chars)


def _bounded_once(ordered: list[str]) -> list[str]:
    """``ordered`` with each run of neighbouring words that start with ``_START`` and end with ``_END`` written as one
    alternative with those once around them (``_START(?:a|b)_END``): the same matches in the same order, as the
    bounds take no characters, and each class of theirs (about 1.5 ms to compile) once, not once a word."""
    runs: list[str | list[str]] = []
    for pattern in ordered:
        if not (pattern.startswith(_START) and pattern.endswith(_END)):
            runs.append(pattern)
        elif runs and isinstance(runs[-1], list):
            runs[-1].append(pattern[len(_START):-len(_END)])
        else:
            runs.append([pattern[len(_START):-len(_END)]])
    return [run if isinstance(run, str) else f"{_START}(?:{'|'.join(_stems_once(run))}){_END}" for run in runs]


def _stems_once(run: list[str]) -> list[str]:
    """A run of words between their bounds with the stems' ending (``_ALPHA``, a class of the CJK ranges) written once
    after them all, the words' name phrases first: the same matches. At one place of the text every word or stem
    that matches ends where its run of letters ends, so each gives the same match, and a name phrase, which reaches
    further, came before the words of its own anyway (its pattern is longer)."""
    stem_end = _ALPHA + "*"
    single = [inner.startswith("(?i:") and inner.count("(?i:") == 1 and _END not in inner for inner in run]
    stems = [inner[:-len(stem_end)] for inner, one in zip(run, single) if one and inner.endswith(stem_end)]
    wholes = [inner for inner, one in zip(run, single) if one and not inner.endswith(stem_end)]
    phrases = [inner for inner, one in zip(run, single) if not one]
    return phrases + ([f"(?:{'|'.join(stems)}){stem_end}"] if stems else []) + wholes


def _unwrapped_length(pattern: str) -> int:
    """The length of ``pattern`` without its (?i:…) wrappers: the order the alternation had before they were added."""
    return len(pattern) - 5 * pattern.count("(?i:")


def _references(query: str) -> list[str]:
    """Each reference ``query`` writes (search.query.references: 'Section 12.3(b)', '§ 5 Abs. 2') as a pattern of
    it as written, its words in a row (a statute's parts either way, as search finds them), marked whole even where
    its numbers are words keyword search drops as common: 'Section 12.3(b)' marked **Section** 12.3(**b**), the
    reference search ranked the passage by left unmarked."""
    found = []
    for match in REFERENCE.finditer(query):
        written = match.group()
        sign = r"(?:§§?\s*)?" if written.startswith("§") else ""
        end = r"[\W_]{0,2}\)" if written.endswith(")") else _END
        found += [_START + "(?i:" + sign + r"[\W_]{1,3}".join(re.escape(word) for word in phrase.split()) + ")" + end
                  for phrase in reference_phrases(written)]  # in any case ('section 12.3(b)'), as a word is
    return found


def _katakana_word(word: str) -> str:
    """A katakana word of the query as a pattern: with or without its long vowels (サーバ marks **サーバー**,
    サーバー **サーバ**, ユーザーインタビュー **ユーザインタビュー**), whole; one of KATAKANA_PART characters or more also as a part of a compound, as search
    finds it (ビッグ**データ**); a shorter one not (メモ is not marked in メモリ)."""
    form = katakana_form(word)
    pattern = "ー*".join(re.escape(char) for char in form) + "ー*"
    if len(form) >= KATAKANA_PART:
        return pattern
    return f"(?<![{KATAKANA}]){pattern}(?![{KATAKANA}])"


_KOREAN_WORD_START = "(?<![\uac00-\ud7a3])"
_KOREAN_WORD_END = "(?=(?:에서|에게|한테|으로|부터|까지|처럼|이랑|[은는을를에이가의도로와과만])?(?![\uac00-\ud7a3]))"


def _word(form: str) -> str:
    """A folded word as a pattern (its start aside): whole, or its stem, so 'indexing' marks 'indexed' too; a stem
    ends a word, as the index's tokens do: 'Müller' marked @**mueller**2021graph, a citekey search never matched."""
    if len(form) == 3 and form.isalpha():  # a short word and its plural, as keyword search finds it: 'eye', Eyes
        return f"(?i:{re.escape(form)}(?:e?s)?)" + _END
    if len(form) < 4 or not form.isalpha():  # 'topic3', 'sha256', '2024' are words, not stems
        return f"(?i:{re.escape(form)})" + _END
    return f"(?i:{re.escape(form[: max(4, len(form) - 3)])})" + _ALPHA + "*" + _END
