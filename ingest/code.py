"""Source code -> Document with one section per definition.

tree-sitter (via ``tree_sitter_languages``) finds the classes, functions,
methods, structs, impls, interfaces ... of a file (ingest.code_forms: the
declarations of each grammar, and the tests, routes and values bound to a name
that a grammar sees as calls or assignments). Every line of the file is
given to exactly one owner: the innermost definition covering it, or the
module. Consecutive lines with the same owner form a section, so:

* a method is its own section, ``heading_path == [module, "Cart", "add"]``;
* a class's section holds its header and the body lines that are not methods
  (it may come back after a method, e.g. fields declared further down);
* imports, constants and other top-level code go to ``[module]`` sections;
* comment, decorator and attribute lines directly above a definition (same
  indentation, no blank line between) belong to it;
* lines that hold nothing but whitespace or closing brackets / ``end`` are
  attached to the section before them (to the next one at the top of a file).

The chunker joins a section of a few tokens (often the imports) to its neighbour
(ingest.chunk.SMALL_CODE_TOKENS).

Lines are split on "\\n" only (CRLF and CR are normalised first), so
``section.text == "\\n".join(lines[start_line - 1:end_line])`` and the
sections' texts joined by "\\n" give back the whole file.
Cython, which has no grammar, is outlined by its indentation (ingest.code_forms.cython).
Unknown extensions, missing grammars, parser failures (a parse over
OUTLINE_SECONDS too) and files over OUTLINE_BYTES give one section for the
whole file, which the chunker windows by lines.
"""
from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .code_forms import cython, form
from .code_forms.declarations import DEFS, NEEDS_BODY, TRANSPARENT, WRAPPERS, C, definition_name, has_body
from .code_forms.nodes import descendants, end_row, heading_safe
from .code_forms.tests import go_subtests
from .data_sets import DATA_SET_LINES, data_set_records, records_within
from .document import Document, Section, Skip, shortened

LANGUAGES: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    # .h is parsed as C++: that grammar reads C headers too, the C one loses C++ classes.
    ".h": "cpp", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp",
    ".hh": "cpp", ".hpp": "cpp", ".hxx": "cpp", ".h++": "cpp", ".ipp": "cpp",
    ".cs": "c_sharp",
    ".rb": "ruby", ".rake": "ruby", ".gemspec": "ruby",
    ".php": "php",
    ".kt": "kotlin", ".kts": "kotlin",
    ".swift": "swift",  # no grammar in tree-sitter-languages 1.10.2: line windows
    ".sh": "bash", ".bash": "bash", ".zsh": "bash",
    ".scala": "scala",
    # .lua stays windowed by lines: tree-sitter-languages 1.10.2's Lua grammar reads 'local x = 1' as an error
    ".jl": "julia",
    ".pl": "perl", ".pm": "perl",
    ".sql": "sql",
    # no grammar in tree-sitter-languages: outlined by indentation (ingest.code_forms.cython); they were not read
    ".pyx": "cython", ".pxd": "cython", ".pxi": "cython",
}

# Build and container files known by their name alone (they have no extension): code, windowed by lines, Ruby's
# outlined. They were counted among '(no extension)' files Sift does not read, in every repository.
NAMED_FILES = {"makefile": None, "gnumakefile": None, "dockerfile": None, "containerfile": None,
               "justfile": None, "jenkinsfile": None, "rakefile": "ruby", "gemfile": "ruby", "vagrantfile": "ruby"}


def code_file_name(path: str) -> bool:
    """Whether ``path`` names a build or container file (Makefile, Dockerfile, Dockerfile.dev …)."""
    name = Path(path).name.lower()
    return name in NAMED_FILES or name.startswith(("dockerfile.", "containerfile."))


# The interpreters a script's shebang line names (#!/bin/sh, #!/usr/bin/env python3) that have a grammar above:
# a file without an extension is read as code of that language (ingest.kinds.kind_of_script); other
# extensionless files stay unread.
INTERPRETERS = {"sh": "bash", "bash": "bash", "dash": "bash", "ksh": "bash", "zsh": "bash", "python": "python",
                "node": "javascript", "nodejs": "javascript", "ruby": "ruby", "php": "php",
                "perl": "perl"}
SHEBANG = re.compile(rb"#![ \t]*(\S+)[ \t]*([^\r\n]*)")
VERSIONED = re.compile(r"[\d.]+$")  # python3.11, node18: the interpreter without its version

LOCK_FILES = {
    "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "cargo.lock",
    "poetry.lock", "gemfile.lock", "composer.lock", "go.sum",
    # lock files of kinds Sift reads (JSON, HCL): npm's published lock, NuGet's, Terraform's provider hashes
    "npm-shrinkwrap.json", "packages.lock.json", ".terraform.lock.hcl",
}
MINIFIED_SUFFIXES = (".min.js", ".min.mjs", ".min.cjs", ".min.css")
# tree-sitter's tree and the walks over it take 170-340 bytes of memory per byte of source (an 8 MB .js of short
# statements: 2.7 GB, 46 s): larger files are windowed by lines. Hand-written source files are far smaller.
OUTLINE_BYTES = 1024 * 1024
# Error recovery in some grammars is quadratic (20,000 lines of '<<EOF' in a .sh: 27 s for 120 KB): tree-sitter
# stops after this and the file is windowed by lines. 1 MiB of ordinary code parses in about a second.
OUTLINE_SECONDS = 20.0
GENERATED_RE = re.compile(
    # a 'DO NOT EDIT banner' (or header, comment …) is one a generator's own header says it writes, not its marker
    r"@generated|do not edit(?! without|\W{0,2} (?:banner|header|comment|marker|notice)s?\b)"
    r"|^(this (file|code) (is|was|has been) )?"
    r"(auto-?generated|automatically generated|generated (by|from|with|using))\b"
    # Dart's build_runner ('// GENERATED CODE - DO NOT MODIFY BY HAND') and protoc ('// Generated code. Do not modify.')
    r"|^generated code\W+do not modify",
    re.IGNORECASE,
)
# Dart's generated parts by their names, whatever their header says: json_serializable's and Mockito's, freezed's,
# auto_route's and protoc's (Mockito's header says 'Do not manually edit this file', which no marker reads as one).
GENERATED_SUFFIXES = (".g.dart", ".freezed.dart", ".mocks.dart", ".gr.dart", ".pb.dart", ".pbenum.dart",
                      ".pbjson.dart", ".pbserver.dart")

# Generated once by a tool, then the project's own code, which it commits, reviews and edits: Django writes
# '# Generated by Django 4.2 on …' above every migration (the data migrations written by hand in them too) and
# "Generated by 'django-admin startproject'" into settings.py, asgi.py and wsgi.py. They were skipped as generated:
# 'the migration that added due_date' found nothing, nor did DATABASES or any setting (bench/monorepo.py).
# Rails writes 'This file is auto-generated from the current state of the database' above db/schema.rb, the one
# place that says which columns a table has now (its migrations say what changed): it was skipped as generated.
# Gradle's 'init' task heads the build.gradle(.kts) and settings.gradle it writes 'This file was generated by the
# Gradle 'init' task.', RSpec's spec_helper.rb 'This file was generated by the `rspec --init` command' (or `rails
# generate rspec:install`), webpack-cli's webpack.config.js 'Generated using webpack-cli': the project's build, test
# setup and bundling, edited for each dependency, were skipped (a search for one found nothing).
SCAFFOLDED_RE = re.compile(r"generated by ['\"]?django\b|auto-generated from the current state of the database"
                           r"|generated by the gradle 'init' task|generated by the `(?:rspec --init|rails generate "
                           r"rspec:install)` command|generated using webpack-cli\b", re.IGNORECASE)

PREFIX_TYPES = {"decorator", "attribute_item", "attribute_list", "annotation",
                "marker_annotation", "attribute"}
TRIVIAL_RE = re.compile(r"^\s*([\]\)\};,]+\s*(//.*|#.*|/\*.*)?|(end|fi|done|esac)\s*(#.*)?)?$")


@dataclass
class Definition:
    path: list[str]  # qualified, starting with the module name
    start: int  # 0-based rows, inclusive
    end: int
    column: int  # where the definition's node starts on its first row
    floor: int  # first row of the enclosing definition (-1 at top level)


def parse_code(path: str, text: str) -> Document:
    """Parse a source file into definition sections (see module docstring)."""
    name = Path(path).name
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    check_indexable(name, lines)
    module = Path(path).stem
    suffix = Path(path).suffix.lower()
    records = data_set_records(suffix, text)
    if records:  # its first records alone: the rest are more of the same
        whole = len(lines) <= DATA_SET_LINES
        lines = lines[:DATA_SET_LINES]
        text = "\n".join(lines)
    if suffix not in LANGUAGES and code_file_name(name):
        language = NAMED_FILES.get(name.lower())
    else:
        language = LANGUAGES.get(suffix) if suffix else shebang_language(text[:SHEBANG_BYTES].encode())
    defs, fallback = _outline(language, module, text)
    sections = _sections(lines, defs, module) if lines else []
    meta = {"language": language, "symbols": _symbols(sections)}
    if fallback:
        meta["fallback"] = fallback
    if records:
        meta["data_set"] = f"a data set of {records:,} records: its first {len(lines)} lines indexed"
        # as a data file's (ingest.table): list_files and a hit say how few of its records search finds
        meta.update(data=True, rows=records, rows_indexed=records_within(suffix, text, whole), more_rows=False)
    return Document(kind="code", title=name, sections=sections, meta=meta)


SHEBANG_BYTES = 256  # of a file's start read for its shebang line


def shebang_language(head: bytes) -> str | None:
    """The language of the interpreter ``head``'s first line names as a shebang ('#!/usr/bin/env -S python3 -u':
    python), if this module has its grammar; None for any other start."""
    found = SHEBANG.match(head)
    if not found:
        return None
    program, args = found.group(1).rsplit(b"/", 1)[-1], found.group(2).split()
    if program == b"env":  # the program is env's first argument that is neither an option nor NAME=value
        program = next((a for a in args if not a.startswith(b"-") and b"=" not in a), b"")
    return INTERPRETERS.get(VERSIONED.sub("", program.decode("utf-8", "replace")))


def check_indexable(name: str, lines: list[str]) -> None:
    """Raise Skip for lock files, minified and generated code."""
    lower = name.lower()
    if lower in LOCK_FILES or lower.endswith(MINIFIED_SUFFIXES):
        raise Skip(f"minified or generated: {name} is a lock or minified file")
    if lower.endswith(GENERATED_SUFFIXES):
        raise Skip(f"minified or generated: {name} is a generated Dart file")
    if lines and max(map(len, lines)) > 1000 and sum(map(len, lines)) / len(lines) > 300:
        raise Skip("minified or generated: very long lines")
    header = _header(lines)
    for line in header:
        text = line.strip(" \t#/*-;!<>\"'")
        marker = GENERATED_RE.search(text)
        if marker and not SCAFFOLDED_RE.search(line) and not _quoted(text, marker.start()) \
                and not CODE_THEN_COMMENT.match(line) and _says_generated(marker.group(0), header):
            raise Skip(f"minified or generated: marker {line.strip()[:80]!r}")


# 'Do not edit' is a generator's marker only where the header says a program wrote the file: a defaults file's
# '# Do not edit this file; override in local.yml' was skipped as generated, the settings it lists unfound
WRITTEN_BY_A_PROGRAM = re.compile(r"generat|auto-?gen|machine|automatically|(?:written|created|produced|emitted|"
                                  r"managed|maintained|updated) by\b", re.IGNORECASE)


def _says_generated(marker: str, header: list[str]) -> bool:
    return not marker.lower().startswith("do not edit") or any(WRITTEN_BY_A_PROGRAM.search(line) for line in header)


# a quote, not an apostrophe (file's): a marker inside quotes is one the file names, as a generator's docstring
# quotes the banner it writes ("each beginning with '# Code generated by gen.py. DO NOT EDIT.'"), which skipped it
QUOTE = re.compile(r"[\"`\u201c\u201d]|(?<!\w)'|'(?!\w)")


# a line of code with a comment after it: a marker there is said of that line ('__version__ = "1.2.0"  # DO NOT
# EDIT THIS LINE MANUALLY. LET bump2version …', tomli_w's whole API in its __init__.py, was skipped as generated)
CODE_THEN_COMMENT = re.compile(r"\s*[A-Za-z_$][^#]*?[^\s:/]\s+(?:#|//)\s")


def _quoted(text: str, at: int) -> bool:
    """Whether the marker at ``at`` in ``text`` stands inside quotes (an odd number of them before it)."""
    return len(QUOTE.findall(text, 0, at)) % 2 == 1


HEADER_LINES = 20  # of a comment or docstring a file begins with, read for a generator's marker
COMMENT_STARTS = ("#", "//", "/*", "*", "--", "<!--", ";")
DOCSTRING_QUOTES = ('"""', "'''")


def _header(lines: list[str]) -> list[str]:
    """The lines a file's generator marks it in: its first five, or the comments and docstring it begins with, up
    to HEADER_LINES. OpenAPI Generator's clients say 'auto generated by OpenAPI Generator … Do not edit the class
    manually' on lines 8-10 of their header: a client of generated models was read as the project's own code. A
    marker below code is a comment on that code."""
    end, quote = 0, None
    for line in lines[:HEADER_LINES]:
        text = line.strip()
        if quote:
            quote = None if quote in text else quote
        elif text.startswith(DOCSTRING_QUOTES):
            quote = None if text.count(text[:3]) > 1 else text[:3]
        elif text and not text.startswith(COMMENT_STARTS):
            break
        end += 1
    return lines[:max(5, end)]


def _outline(language: str | None, module: str, text: str) -> tuple[list[Definition], str | None]:
    """Definitions of the file in pre-order, or [] and the reason for a fallback."""
    if language is None:
        return [], "unknown extension"
    source = text.encode("utf-8")
    if len(source) > OUTLINE_BYTES:
        return [], f"too large to outline: {len(source):,} bytes (over {OUTLINE_BYTES:,})"
    if language == "cython":  # no grammar: outlined by indentation
        return [Definition([module] + parts, *rows) for parts, *rows in cython.outline(text)], None
    parser = _parser(language)
    if parser is None:
        return [], f"no tree-sitter grammar for {language}"
    if language == "sql" and (tag := _open_dollar_quote(text)):
        return [], f"a dollar quote ({tag}) is never closed"
    parser.set_timeout_micros(int(OUTLINE_SECONDS * 1_000_000))
    try:
        root = parser.parse(source).root_node
    except Exception as exc:  # a grammar bug must not lose the file
        parser.reset()  # a parse that timed out would otherwise be resumed by the next file's
        if OUTLINE_SECONDS and "Parsing failed" in str(exc):
            return [], f"parse failed: tree-sitter gave up after {OUTLINE_SECONDS:g} s"
        return [], f"parse failed: {exc}"
    defs: list[Definition] = []
    try:
        _scan(root, language, [module], defs)
    except RecursionError:  # _scan recurses into blocks: thousands nested (1,500 bare '{' in JS)
        return [], "parse failed: definitions nested too deeply"
    _attach_prefixes(defs, _prefix_rows(root, text.split("\n")))
    return defs, None


# SQL's comments and quoted strings and identifiers, which hide a '$$', and PostgreSQL's dollar quotes ($$, $body$)
_SQL_QUOTING = re.compile(r"--[^\n]*|/\*.*?(?:\*/|\Z)|'(?:[^']|'')*(?:'|\Z)|\"[^\"]*(?:\"|\Z)"
                          r"|(?<![\w$])\$(?:[A-Za-z_][\w]*)?\$", re.DOTALL)
# MySQL's DELIMITER statement sets a mark ('$$', '//', ';;'), not a word: a column named delimiter has its type after it
_DELIMITER = re.compile(r"^[ \t]*delimiter[ \t]+[^\w\s(,]\S*[ \t]*$", re.IGNORECASE | re.MULTILINE)


def _open_dollar_quote(text: str) -> str | None:
    """The tag of a dollar quote that ``text`` opens and never closes (a function's body saved mid-edit), else None.
    tree-sitter's SQL grammar recovers from one in time that grows with the square of the text after it: 9 s for
    38 KB, the whole OUTLINE_SECONDS from 62 KB, where the file was windowed by lines at once before. A MySQL
    script that ends its statements with '$$' (``DELIMITER $$``) has no dollar quotes."""
    if _DELIMITER.search(text):
        return None
    at = 0
    while found := _SQL_QUOTING.search(text, at):
        at = found.end()
        if found.group().startswith("$"):
            closing = text.find(found.group(), at)
            if closing < 0:
                return found.group()
            at = closing + len(found.group())
    return None


@lru_cache(maxsize=None)
def _parser(language: str):
    from tree_sitter_languages import get_parser

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tree_sitter 0.21 FutureWarning
            return get_parser(language)
    except Exception:
        return None


def _scan(node, language: str, path: list[str], out: list[Definition], floor: int = -1) -> None:
    """Append the definitions below ``node``; ``floor`` is the parent's first row."""
    outer, outer_floor = path, floor
    for child in node.named_children:
        if child.type in SCOPE_STATEMENTS.get(language, ()):
            if not _has_block(child):
                path, floor = _scope_statement(node, child, language, outer, out, outer_floor)
                continue
            path, floor = outer, outer_floor  # ``package Foo { … }`` is Foo, whatever package came before
        if child.type in GROUPS.get(language, ()):  # Go's ``type ( A struct{…}; B interface{…} )``
            before = len(out)
            _scan(child, language, path, out, floor)
            if len(out) > before:  # the first type takes the ``type (`` line and the comments above, the last ``)``
                out[before].start, out[before].column = max(child.start_point[0], floor + 1), child.start_point[1]
                out[-1].end = max(out[-1].end, end_row(child))
            continue
        found = _definition(child, language)
        if found is None:
            if child.type in TRANSPARENT:
                _scan(child, language, path, out, floor)
            continue
        parts, inner, container = found
        start = max(child.start_point[0], floor + 1)
        end = end_row(child)
        if start > end:  # shares its only line with the parent's header
            continue
        out.append(Definition(path + parts, start, end, child.start_point[1], floor))
        if container:
            _scan(inner, language, path + parts, out, start)
        elif language == "go" and child.type in ("function_declaration", "method_declaration"):
            _go_subtests(child, path + parts, out, start)


# Statements that open a scope running to the next such statement or the end of their block: Perl's ``package
# Foo::Bar;``, whose subs are Foo::Bar's (they were the module's alone, as if the package line were not there).
SCOPE_STATEMENTS = {"perl": {"package_statement"}}


def _scope_statement(parent, node, language: str, outer: list[str], out: list[Definition], floor: int):
    """A definition for the scope statement ``node`` of ``parent``, from it to the row before the next one (or
    the end of ``parent``); the (path, floor) of the definitions after it."""
    found = _definition(node, language)
    if found is None:
        return outer, floor
    start = max(node.start_point[0], floor + 1)
    later = [c.start_point[0] for c in parent.named_children
             if c.start_point[0] > node.start_point[0] and c.type == node.type and not _has_block(c)]
    end = later[0] - 1 if later else end_row(parent)
    out.append(Definition(outer + found[0], start, end, node.start_point[1], floor))
    return outer + found[0], start


def _has_block(node) -> bool:
    return any(child.type == "block" for child in node.named_children)


# Declarations grouped in parentheses whose members are each a definition of their own.
GROUPS = {"go": {"type_declaration"}}


def _definition(node, language: str):
    """(name parts, node to search for members, is container) or None."""
    kind = DEFS.get(language, {}).get(node.type)
    if kind:
        if node.type in NEEDS_BODY and not has_body(node):
            return None
        parts = [" ".join(p.split()).strip("'\"`") for p in definition_name(node, language) if p.strip("'\"` \t\n")]
        if node.type not in ("const_declaration", "var_declaration"):  # these are listed: ', ' between their names
            parts = [heading_safe(part) for part in parts]
        return (parts, node, kind == C) if parts else None
    if found := form(node, language):
        return found
    if node.type in WRAPPERS:
        inner = [d for c in node.named_children if (d := _definition(c, language))]
        return inner[0] if len(inner) == 1 else None
    return None


def _go_subtests(function, path: list[str], out: list[Definition], floor: int) -> None:
    """Append the subtests run by the statements of ``function``'s body, and theirs."""
    for title, statement, inner in go_subtests(function):
        start = max(statement.start_point[0], floor + 1)
        out.append(Definition(path + [title], start, end_row(statement), statement.start_point[1], floor))
        _go_subtests(inner, path + [title], out, start)


def _prefix_rows(root, lines: list[str]) -> dict[int, tuple[int, int]]:
    """Rows holding only a comment/decorator/attribute: row -> (first row, column)."""
    rows: dict[int, tuple[int, int]] = {}
    for node in descendants(root):
        if "comment" not in node.type and node.type not in PREFIX_TYPES:
            continue
        (r0, c0), (r1, c1) = node.start_point, node.end_point
        if c1 == 0 and r1 > r0:  # the node took the newline with it
            r1, c1 = r1 - 1, len(lines[r1 - 1].encode("utf-8"))
        if c0 != _indent(lines[r0]) or c1 < len(lines[r1].rstrip().encode("utf-8")):
            continue
        for row in range(r0, r1 + 1):
            rows[row] = (r0, c0)
    return rows


def _attach_prefixes(defs: list[Definition], rows: dict[int, tuple[int, int]]) -> None:
    """Move each definition's start up over the comments/decorators right above it."""
    for d in defs:
        while d.start - 1 > d.floor and rows.get(d.start - 1, (0, -1))[1] == d.column:
            d.start = max(rows[d.start - 1][0], d.floor + 1)


def _sections(lines: list[str], defs: list[Definition], module: str) -> list[Section]:
    """Give each line an owner, then cut runs of equal owners into sections."""
    owner: list[tuple[str, ...]] = [(module,)] * len(lines)
    for d in defs:  # pre-order: members overwrite their container
        for row in range(d.start, min(d.end, len(lines) - 1) + 1):
            owner[row] = tuple(d.path)
    runs = _runs(owner)
    runs = _merge_trivial(runs, lines)
    return [Section(text="\n".join(lines[a:b + 1]), heading_path=_shortened(list(o)),
                    start_line=a + 1, end_line=b + 1) for a, b, o in runs]


def _shortened(path: list[str]) -> list[str]:
    """The module and its definitions' names as ``shortened`` keeps them: 250 classes each nested in the one above
    gave the last a heading path of 251 names (a 2 KB heading on each passage, and 250 symbols of up to 250 names
    each, 300 KB), of which the outer names say where it is and the last what."""
    return path[:1] + shortened(path[1:])


def _runs(owner: list[tuple[str, ...]]) -> list[list]:
    runs: list[list] = []
    for row, o in enumerate(owner):
        if runs and runs[-1][2] == o:
            runs[-1][1] = row
        else:
            runs.append([row, row, o])
    return runs


def _merge_trivial(runs: list[list], lines: list[str]) -> list[list]:
    """Attach runs of blank/closing-bracket lines to a neighbour; join equal owners."""
    merged: list[list] = []
    for run in runs:
        if merged and (merged[-1][2] == run[2] or _is_trivial_run(run, lines)):
            merged[-1][1] = run[1]
        else:
            merged.append(run)
    if len(merged) > 1 and _is_trivial_run(merged[0], lines):
        merged[1][0] = merged[0][0]  # leading blank lines go to the next section
        del merged[0]
    return merged


def _is_trivial_run(run: list, lines: list[str]) -> bool:
    return all(TRIVIAL_RE.match(lines[r]) for r in range(run[0], run[1] + 1))


def _symbols(sections: list[Section]) -> list[str]:
    """Qualified names (without the module) of the definitions, in file order."""
    names = (".".join(s.heading_path[1:]) for s in sections if len(s.heading_path) > 1)
    return list(dict.fromkeys(names))


def _indent(line: str) -> int:
    return len(line.encode("utf-8")) - len(line.lstrip().encode("utf-8"))


