"""LaTeX sources (a thesis' ``main.tex`` and its ``chapters/*.tex``) read as a note, in sections by their sectioning
commands: ``\\part``, ``\\chapter``, ``\\section``, ``\\subsection``, ``\\subsubsection`` and ``\\paragraph`` make the
heading path, as a Markdown note's ``#`` lines do (the ``abstract`` environment is a chapter 'Abstract'). Not read
before (counted among the kinds Sift does not read), a search for 'the related work section of my thesis' had
nothing to find.

What a reader does not see is left out: comments (``%`` to the end of the line, ``\\%`` or one in
``\\verb|%d|`` being a percent sign; a ``comment`` environment), the preamble before ``\\begin{document}`` (its
``\\title`` titles the file) and anything after ``\\end{document}``; the markup of what is seen is dropped, its text
kept (``\\emph{new}`` is 'new', ``{\\"u}`` is 'ü', ``--`` an en dash), and labels, figures' file names and
environment names go. A citation keeps its keys, any variant of the command written as ``\\cite``:
``\\citep[p.~4]{vaswani2017attention,smith2020}`` is
``\\cite{vaswani2017attention, smith2020}``, so that a search for a citekey (``@smith2020``) finds the lines citing it,
as it finds a Markdown note's ``[@key]``. Math is kept as written, its commands too (``$\\mathcal{L} = -\\log p$``):
its symbols are what a search for it would type; a lone Greek letter is the letter it typesets
(``TNF-$\\alpha$`` is TNF-α, as a search types it), in a title and a heading too. ``\\input{chapters/intro}``,
``\\include`` and ``\\bibliography{refs}`` are links to the files they name, as a note's links are. Each line of
the text stays the line of the file it came from, so a hit's lines are the file's.

``line_text`` (a line's math kept, LaTeX's accents and markup as text: ``unlatex``) is BibTeX's reading too
(``ingest.bibtex``).
"""
from __future__ import annotations

import posixpath
import re
import unicodedata

from ingest.document import Document, sections_at_headings as _sections, title_from_name

# the accents TeX writes with a mark, as the combining character each stands for
MARK_ACCENTS = {'"': "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303", "=": "\u0304",
                ".": "\u0307"}
LETTER_ACCENTS = {"u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "k": "\u0328", "r": "\u030a",
                  "d": "\u0323", "b": "\u0331"}
SPECIAL_LETTERS = {"ss": "ß", "o": "ø", "O": "Ø", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "aa": "å", "AA": "Å",
                   "l": "ł", "L": "Ł", "i": "ı", "j": "ȷ", "dh": "ð", "DH": "Ð", "th": "þ", "TH": "Þ", "ng": "ŋ",
                   "NG": "Ŋ"}
# the accented letter: a letter, or \i and \j (dotless, as '\'\i' writes í), braced or not
_LETTER = r"(?:\{\s*(\\[ij](?![A-Za-z])|[A-Za-z])\s*\}|(\\[ij](?![A-Za-z])|[A-Za-z]))"
MARK_ACCENT = re.compile(r"\\([\"'`^~=.])\s*" + _LETTER)
LETTER_ACCENT = re.compile(r"\\([uvHckrdb])(?:\s*\{\s*(\\[ij](?![A-Za-z])|[A-Za-z])\s*\}|\s+([A-Za-z]))")
SPECIAL_LETTER = re.compile(r"\\(ss|ae|AE|oe|OE|aa|AA|dh|DH|th|TH|ng|NG|o|O|l|L|i|j)(?![A-Za-z])(?:\s*\{\})?\s?")
ESCAPED = {"&": "&", "%": "%", "_": "_", "$": "$", "#": "#", "{": "{", "}": "}", " ": " ", ",": " ", ";": " ",
           "\\": " ", "/": ""}
ESCAPE = re.compile(r"\\([&%_$#{} ,;/\\])")
NAMED_SYMBOLS = {"LaTeX": "LaTeX", "TeX": "TeX", "BibTeX": "BibTeX", "textendash": "–", "textemdash": "—",
                 "ldots": "…", "dots": "…", "textasciitilde": "~", "textbackslash": "\\", "S": "§", "P": "¶",
                 "copyright": "©", "textregistered": "®", "texttrademark": "™", "euro": "€", "pounds": "£",
                 "textdegree": "°", "guillemotleft": "«", "guillemotright": "»", "quad": " ", "qquad": " ",
                 "newline": " ", "linebreak": " ", "par": " ", "and": ","}
# commands whose argument is no text a reader sees: it goes with them
DROPPED = ("label", "includegraphics", "bibliographystyle", "usepackage", "documentclass", "vspace", "hspace",
           "begin", "end", "setlength", "addtolength", "setcounter", "addcontentsline", "pagestyle",
           "thispagestyle", "hypersetup", "graphicspath", "pagenumbering", "newcommand", "renewcommand",
           "providecommand", "def", "input", "include", "subfile", "bibliography", "addbibresource", "cline",
           "resizebox", "scalebox", "color", "definecolor", "textcolor")
# a braced argument, braces inside it one deep ('{@{}lcc@{}}': a table's columns)
ARGUMENT = r"\{(?:[^{}\n]|\{[^{}\n]{0,500}\}){0,500}\}"
DROPPED_COMMAND = re.compile(r"\\(?:" + "|".join(DROPPED) + r")(?![A-Za-z])\*?(?:\s*\[[^\]\n]{0,200}\])*"
                             r"(?:\s*" + ARGUMENT + r")?(?:\s*\[[^\]\n]{0,200}\])?")
TABLE_COLUMNS = re.compile(r"(\\begin\s*\{(?:tabular|tabularx|tabulary|array|longtable)\*?\}(?:\s*\{[^{}\n]*\})?)"
                           r"(?:\s*\[[^\]\n]{0,200}\])?\s*" + ARGUMENT)
CITE = re.compile(r"\\(?:[A-Za-z]*cite[A-Za-z]*)\*?((?:\s*\[[^\]\n]{0,200}\])*)\s*\{([^{}\n]{0,2000})\}")
REF = re.compile(r"\\(?:[a-z]*ref|eqref|url|href)\*?\s*\{([^{}\n]{0,2000})\}")
COMMAND = re.compile(r"\\([A-Za-z]+)\*?(?:\[[^\]\n]{0,200}\])?")
QUOTES = (("``", "“"), ("''", "”"), ("---", "—"), ("--", "–"))
UNBREAKABLE = re.compile(r"(?<!\\)~")
SPACES = re.compile(r"[ \t]+")
# a comment: a '%' not escaped (after an even number of backslashes), to the end of its line
COMMENT = re.compile(r"(?<!\\)((?:\\\\)*)%.*")
INLINE_MATH = re.compile(r"(?<!\\)\$\$?[^$\n]{1,2000}\$\$?|\\\([^\n]{0,500}?\\\)|\\\[[^\n]{0,500}?\\\]")
# inline math, and citations as cited() writes them: kept from unlatex
KEPT = re.compile(INLINE_MATH.pattern + r"|\\cite\{[^{}\n]{0,2000}\}")
MATH_ENVIRONMENTS = ("equation", "align", "gather", "multline", "eqnarray", "displaymath", "math", "flalign",
                     "alignat")
VERBATIM_ENVIRONMENTS = ("verbatim", "lstlisting", "minted", "Verbatim", "comment")
UNSEEN_ENVIRONMENTS = ("comment",)  # the comment package's: what it holds is never typeset, no text of the file's
# inline verbatim, \verb|%d|, \verb+x_1+ or \lstinline[language=C]|%d|: its text as written, a '%' in it no comment
VERB = re.compile(r"\\(?:verb\*?|lstinline(?:\[[^\]\n]{0,200}\])?)([^A-Za-z\s*\[{])(.{0,2000}?)\1")
SHOWN_AS_WRITTEN = re.compile(VERB.pattern + "|" + KEPT.pattern)
# Greek letters, as a lone one in math typesets ('TNF-$\\alpha$' is TNF-α, the way a paper's title is searched)
GREEK = {name: chr(0x3B1 + at) for at, name in enumerate(
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho varsigma sigma tau "
    "upsilon phi chi psi omega".split())}
GREEK.update({name.capitalize(): chr(0x391 + at) for at, name in enumerate(
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho _ sigma tau upsilon "
    "phi chi psi omega".split()) if name in ("gamma", "delta", "theta", "lambda", "xi", "pi", "sigma", "upsilon",
                                            "phi", "psi", "omega")})
GREEK.update(varepsilon="ε", vartheta="ϑ", varphi="φ", varpi="ϖ", varrho="ϱ")
LONE_GREEK = re.compile(r"\$\s*\\(" + "|".join(GREEK) + r")\s*\$")
ENVIRONMENT = re.compile(r"\\(begin|end)\s*\{([A-Za-z]+)\*?\}")
SECTIONING = {"part": 1, "chapter": 2, "section": 3, "subsection": 4, "subsubsection": 5, "paragraph": 6}
HEADING = re.compile(r"\\(part|chapter|section|subsection|subsubsection|paragraph)\*?\s*(?:\[[^\]\n]{0,200}\])?\s*\{")
ABSTRACT = re.compile(r"\\begin\s*\{abstract\}")
TITLE = re.compile(r"\\title\s*(?:\[[^\]\n]{0,200}\])?\s*\{")
BEGIN_DOCUMENT = re.compile(r"^[^%\n]*\\begin\s*\{document\}", re.MULTILINE)
END_DOCUMENT = re.compile(r"^[^%\n]*\\end\s*\{document\}", re.MULTILINE)
LINKED = re.compile(r"\\(input|include|subfile|bibliography|addbibresource)\s*\{([^{}\n]{0,2000})\}")
# a macro of no argument: '\newcommand{\sift}{Sift}', '\newcommand\sift{\textsc{Sift}\xspace}', '\def\sift{Sift}'
# (one taking arguments, '\newcommand{\x}[1]{…}', is not expanded: its name goes as any command's does)
DEFINITION = re.compile(r"\\(?:(?:re|provide)?newcommand\*?\s*(?:\{\s*\\([A-Za-z]+)\s*\}|\\([A-Za-z]+))"
                        r"|def\s*\\([A-Za-z]+))\s*\{")
MACRO_CHARS = 500  # of a macro's text, at most
MACRO_GROWTH = 20_000  # characters a line's macros add to it, at most
HEADING_LINES = 4  # a heading's argument is read over this many lines at most ('\section{A long title that\n goes on}')


def unlatex(text: str) -> str:
    """LaTeX's markup in ``text`` as the text it typesets: accents as letters (``{\\"u}``, ``\\"{u}``, ``\\c{c}``,
    ``\\'\\i``, ``{\\L}``, ``\\ss``), escapes as their marks (``\\&``), dashes and quotes as theirs, a command's
    braced argument as its text (``\\emph{x}`` is 'x'), other commands and every brace left out. Math is not
    treated apart: parse_latex keeps it as written before calling this on the rest of a line."""
    if "\\" in text:  # a line of prose alone (most of a .bib's) is passed over by these
        text = MARK_ACCENT.sub(_mark_accent, text)
        text = LETTER_ACCENT.sub(_letter_accent, text)
        text = SPECIAL_LETTER.sub(lambda m: SPECIAL_LETTERS[m.group(1)], text)
        text = TABLE_COLUMNS.sub(r"\1", text)
        text = ESCAPE.sub(lambda m: ESCAPED[m.group(1)], text)
        text = DROPPED_COMMAND.sub("", text)
        text = REF.sub(lambda m: m.group(1), text)
        text = COMMAND.sub(lambda m: NAMED_SYMBOLS.get(m.group(1), ""), text)
    for written, shown in QUOTES:
        if written in text:
            text = text.replace(written, shown)
    if "~" in text:
        text = UNBREAKABLE.sub(" ", text)
    text = SPACES.sub(" ", text.replace("{", "").replace("}", ""))
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def _accented(letter: str, mark: str) -> str:
    base = {"\\i": "i", "\\j": "j"}.get(letter, letter)
    return unicodedata.normalize("NFC", base + mark)


def _mark_accent(found: re.Match) -> str:
    return _accented(found.group(2) or found.group(3), MARK_ACCENTS[found.group(1)])


def _letter_accent(found: re.Match) -> str:
    return _accented(found.group(2) or found.group(3), LETTER_ACCENTS[found.group(1)])


def cited(found: re.Match) -> str:
    """A citation command as its keys and the word cite: ``\\citep[see][p.~4]{a,b}`` → '\\cite{a, b}' (a search
    for 'where do I cite smith2020' has the word; the variant and page do not matter to one)."""
    keys = [key.strip() for key in found.group(2).split(",") if key.strip()]
    return "\\cite{" + ", ".join(keys) + "}" if keys else ""


def parse_latex(path: str, text: str) -> Document:
    links: list[str] = []
    title, first, last, shown, headings = _read(text, links)
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    if not title:
        title = next((name for _, level, name in headings if level <= SECTIONING["chapter"]), "") \
            or title_from_name(stem)
    choices = {tuple(_linked(folder, name, what) for folder in _folders(path)) for what, name in links}
    meta = {"links": sorted({choice[0] for choice in choices})}
    if any(len(choice) > 1 for choice in choices):  # ingest.files takes the one that is there
        meta["link_choices"] = sorted(list(choice) for choice in choices if len(choice) > 1)
    return Document(kind="note", title=title, sections=_sections(shown, headings, first, last), meta=meta)


def _folders(path: str) -> list[str]:
    """The folders a file this one names may be read from: its own (a main file's), then each above it up to the
    collection's (a chapter's ``\\input{sections/intro}`` is read from the main file's folder, which LaTeX runs in)."""
    folders = [posixpath.dirname(path)]
    while folders[-1] not in ("", "/"):
        folders.append(posixpath.dirname(folders[-1]))
    return folders


def latex_headings(text: str) -> list[tuple[int, int, str]]:
    """(line of the file, 0-based, level, name) of each heading of a LaTeX file as parse_latex reads them:
    read_file's ``heading`` reads a .tex file's section by them (mcp_server.headings: headings_by_kind)."""
    return _read(text, [])[4]


def _read(text: str, links: list) -> tuple[str, int, int, list[str], list]:
    """The title, the body's first and last line (0-based, the last excluded), each line as shown, the headings."""
    lines = text.split("\n")
    first, last = 0, len(lines)  # the lines of the document's body
    title = ""
    begin = BEGIN_DOCUMENT.search(text)
    if begin:
        first = text.count("\n", 0, begin.start()) + 1
        end = END_DOCUMENT.search(text, begin.end())
        if end:
            last = text.count("\n", 0, end.start())
    macros = _macros(COMMENT.sub(r"\1", text)) if "command" in text or "\\def" in text else {}
    expand = _expander(macros)
    if begin:
        title = _title(text[:begin.start()], expand)
    shown, headings = _read_lines(lines, first, last, links, expand)
    return title, first, last, shown, headings


def _title(preamble: str, expand) -> str:
    found = TITLE.search(COMMENT.sub(r"\1", preamble))
    if not found:
        return ""
    argument = _braced(COMMENT.sub(r"\1", preamble), found.end())
    return line_text(expand(argument.replace("\n", " ")))


def _macros(text: str) -> dict[str, str]:
    """The text of each macro of no argument the file defines (``\\newcommand{\\sift}{Sift}``: 'sift' → 'Sift'):
    'We present \\sift{}' read 'We present', the name of the thing the thesis is about gone from each line using it."""
    macros = {}
    for found in DEFINITION.finditer(text):
        name = found.group(1) or found.group(2) or found.group(3)
        end = _closing(text, found.end())
        if end is not None and end - found.end() <= MACRO_CHARS and name not in SECTIONING and name not in DROPPED:
            macros[name] = " ".join(text[found.end():end].split())
    return macros


def _expander(macros: dict[str, str]):
    """A function writing each macro of ``macros`` in a line as its text. A macro using another is written out
    first (three rounds, each text cut at MACRO_CHARS), so that a line grows by MACRO_CHARS a use at most, and
    by MACRO_GROWTH in all: '\\def\\a{\\a\\a\\a…}' is no memory bomb."""
    if not macros:
        return lambda line: line
    used = re.compile(r"\\(" + "|".join(sorted(macros, key=len, reverse=True)) + r")(?![A-Za-z])(?:\{\})?")
    for _ in range(3):
        macros = {name: used.sub(lambda m: macros[m.group(1)], text)[:MACRO_CHARS] for name, text in macros.items()}

    def expand(line: str) -> str:
        if "\\" not in line:
            return line
        room = [MACRO_GROWTH]

        def written(found: re.Match) -> str:
            text = macros[found.group(1)]
            room[0] -= len(text)
            return text if room[0] >= 0 else found.group(0)
        return used.sub(written, line)
    return expand


def _braced(text: str, start: int) -> str:
    """The text from ``start`` (just after an opening brace) to its closing brace, braces inside balanced."""
    end = _closing(text, start)
    return text[start:start + 2000] if end is None else text[start:end]


def _closing(text: str, start: int) -> int | None:
    """The offset of the brace closing the one just before ``start`` (within 2,000 characters), or None."""
    depth = 1
    for at in range(start, min(len(text), start + 2000)):
        if text[at] == "{" and text[at - 1] != "\\":
            depth += 1
        elif text[at] == "}" and text[at - 1] != "\\":
            depth -= 1
            if depth == 0:
                return at
    return None


def _read_lines(lines: list[str], first: int, last: int, links: list, expand) -> tuple[list[str], list]:
    """Each line of the body as shown (comments and markup out, math and citation keys kept, macros of no argument
    as their text: ``expand``), and the headings: (index of the line, level, name)."""
    shown = [""] * len(lines)
    headings = []
    keep_as_written = None  # the math or verbatim environment we are in
    for index in range(first, last):
        line = lines[index]
        if keep_as_written is not None:
            if keep_as_written in UNSEEN_ENVIRONMENTS:
                shown[index] = ""
            elif keep_as_written in VERBATIM_ENVIRONMENTS:
                shown[index] = line if not _ends(line, keep_as_written) else ""
            else:
                shown[index] = "" if _ends(line, keep_as_written) else COMMENT.sub(r"\1", line).strip()
            if _ends(line, keep_as_written):
                keep_as_written = None
            continue
        line = _prepared(line, expand)
        links.extend(LINKED.findall(line))
        opened = next((m.group(2) for m in ENVIRONMENT.finditer(line) if m.group(1) == "begin"
                       and m.group(2) in MATH_ENVIRONMENTS + VERBATIM_ENVIRONMENTS), None)
        if opened and not _ends(line, opened):
            keep_as_written = opened
        heading = HEADING.search(line)
        if ABSTRACT.search(line):  # a heading of its own, as a chapter's: 'the abstract of my thesis'
            headings.append((index, SECTIONING["chapter"], "Abstract"))
        elif heading:
            name = line_text(_heading_name(lines, index, last, heading.end(), expand))
            if name:
                headings.append((index, SECTIONING[heading.group(1)], name))
        shown[index] = line_text(line)
    return shown, headings


def _prepared(line: str, expand) -> str:
    """A line of the body without its comment, its macros written as their text and a macro's definition out
    (``\\newcommand\\tool{Toolname}`` showed 'Toolname')."""
    line = _uncommented(line)
    definition = DEFINITION.search(line)
    if definition:
        end = _closing(line, definition.end())
        return line if end is None else line[:definition.start()] + line[end + 1:]
    return expand(line)


def _heading_name(lines: list[str], index: int, last: int, start: int, expand) -> str:
    """A heading's argument from ``start`` in line ``index``, over the next lines if its brace stays open there
    ('\\section{Dense retrieval for verifying\n  scientific claims}' was named by its first line alone)."""
    line = _prepared(lines[index], expand)
    text = line
    for following in range(index + 1, min(last, index + HEADING_LINES)):
        end = _closing(text, start)
        if end is not None:
            return text[start:end].replace("\n", " ")
        text += "\n" + _prepared(lines[following], expand)
    end = _closing(text, start)
    return text[start:end].replace("\n", " ") if end is not None else line[start:start + 2000]


def _uncommented(line: str) -> str:
    """``line`` without its comment: from a '%' not escaped, nor in an inline ``\\verb|…|`` (``\\verb|%d|``
    cut the line there: the rest of its sentence was lost)."""
    if "\\verb" not in line and "\\lstinline" not in line:
        return COMMENT.sub(r"\1", line)
    kept, start = [], 0
    for verb in VERB.finditer(line):
        before = line[start:verb.start()]
        cut = COMMENT.sub(r"\1", before)
        if cut != before:  # a comment begins before this \verb: it is in the comment
            return "".join(kept) + cut
        kept.append(before + verb.group(0))
        start = verb.end()
    return "".join(kept) + COMMENT.sub(r"\1", line[start:])


def _ends(line: str, environment: str) -> bool:
    return any(m.group(1) == "end" and m.group(2) == environment for m in ENVIRONMENT.finditer(line))


def line_text(line: str) -> str:
    """A line's text: inline math kept as written (a lone Greek letter as the letter, ``$\\alpha$`` α), ``\\verb``'s
    text too, citations as ``cited`` writes them, the rest ``unlatex``. A title's, a heading's and a .bib field's
    too: ``unlatex`` alone dropped their math's commands (``TNF-$\\alpha$`` was 'TNF-$$')."""
    line = CITE.sub(cited, line)
    pieces, start = [], 0
    for kept in SHOWN_AS_WRITTEN.finditer(line):
        pieces.append(unlatex(line[start:kept.start()]))
        lone = LONE_GREEK.fullmatch(kept.group(0))
        pieces.append(kept.group(2) if kept.group(1) is not None else GREEK[lone.group(1)] if lone
                      else kept.group(0))
        start = kept.end()
    pieces.append(unlatex(line[start:]))
    return "".join(pieces).strip()


def _linked(folder: str, name: str, what: str) -> str:
    """The file an ``\\input``, ``\\include`` or ``\\bibliography`` names, read from ``folder``, as a link from the
    collection's folder (LaTeX reads them from the main file's folder: _folders). A name without an
    ending takes LaTeX's: '.tex', '.bib' for a bibliography (``\\bibliography{refs,more}`` names the first only)."""
    name = name.split(",")[0].strip()
    if "." not in name.rsplit("/", 1)[-1]:
        name += ".bib" if what in ("bibliography",) else ".tex"
    return name if name.startswith("/") else "/" + posixpath.normpath(posixpath.join(folder, name))
