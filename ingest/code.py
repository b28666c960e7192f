"""Source code -> Document with one section per definition.

tree-sitter (via ``tree_sitter_languages``) finds the classes, functions,
methods, structs, impls, interfaces ... of a file. Every line of the file is
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

from .chunk import listed
from .document import Document, Section, Skip

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
}
MINIFIED_SUFFIXES = (".min.js", ".min.css")
# tree-sitter's tree and the walks over it take 170-340 bytes of memory per byte of source (an 8 MB .js of short
# statements: 2.7 GB, 46 s): larger files are windowed by lines. Hand-written source files are far smaller.
OUTLINE_BYTES = 1024 * 1024
# Error recovery in some grammars is quadratic (20,000 lines of '<<EOF' in a .sh: 27 s for 120 KB): tree-sitter
# stops after this and the file is windowed by lines. 1 MiB of ordinary code parses in about a second.
OUTLINE_SECONDS = 20.0
GENERATED_RE = re.compile(
    r"@generated|do not edit(?! without)|^(this (file|code) (is|was|has been) )?"
    r"(auto-?generated|automatically generated|generated (by|from|with|using))\b",
    re.IGNORECASE,
)

C, L = "container", "leaf"  # containers are split further, leaves are not
_JS = {"class_declaration": C, "class": C, "function_declaration": L,
       "generator_function_declaration": L, "method_definition": L}
_TS = {**_JS, "abstract_class_declaration": C, "interface_declaration": C,
       "enum_declaration": L, "type_alias_declaration": L, "internal_module": C, "module": C}
_C = {"function_definition": L, "struct_specifier": L, "union_specifier": L,
      "enum_specifier": L, "type_definition": L}
DEFS: dict[str, dict[str, str]] = {
    "python": {"class_definition": C, "function_definition": L},
    "javascript": _JS,
    "typescript": _TS,
    "tsx": _TS,
    "go": {"function_declaration": L, "method_declaration": L, "type_spec": L, "type_alias": L,
           "const_declaration": L, "var_declaration": L},
    "rust": {"function_item": L, "struct_item": L, "enum_item": L, "union_item": L,
             "trait_item": C, "impl_item": C, "mod_item": C, "macro_definition": L},
    "java": {"class_declaration": C, "interface_declaration": C, "enum_declaration": C,
             "record_declaration": C, "annotation_type_declaration": L,
             "method_declaration": L, "constructor_declaration": L},
    "c": _C,
    "cpp": {**_C, "class_specifier": C, "struct_specifier": C, "union_specifier": C,
            "namespace_definition": C},
    "c_sharp": {"namespace_declaration": C, "file_scoped_namespace_declaration": C,
                "class_declaration": C, "struct_declaration": C, "interface_declaration": C,
                "record_declaration": C, "enum_declaration": L, "method_declaration": L,
                "constructor_declaration": L, "destructor_declaration": L,
                "operator_declaration": L, "property_declaration": L},
    "ruby": {"module": C, "class": C, "method": L, "singleton_method": L},
    "php": {"namespace_definition": C, "class_declaration": C, "interface_declaration": C,
            "trait_declaration": C, "enum_declaration": C, "function_definition": L,
            "method_declaration": L},
    "kotlin": {"class_declaration": C, "object_declaration": C, "companion_object": C,
               "function_declaration": L, "type_alias": L},
    "bash": {"function_definition": L},
    "scala": {"object_definition": C, "class_definition": C, "trait_definition": C, "function_definition": L,
              "function_declaration": L},
    "julia": {"module_definition": C, "function_definition": L, "macro_definition": L, "struct_definition": L,
              "short_function_definition": L},
    "perl": {"function_definition": L, "package_statement": C},
}
# Definitions that are only declarations without a body (``struct foo;``).
NEEDS_BODY = {"struct_specifier", "union_specifier", "enum_specifier", "class_specifier",
              "namespace_definition", "type_definition"}
# Nodes that wrap one definition and lend it their span (export, decorators, templates).
WRAPPERS = {"export_statement", "decorated_definition", "template_declaration",
            "ambient_declaration", "expression_statement", "declaration"}
# Nodes searched for nested definitions without adding to the path.
TRANSPARENT = {"block", "class_body", "declaration_list", "field_declaration_list",
               "body_statement", "enum_body", "enum_class_body", "interface_body",
               "object_type", "enum_member_declaration_list", "enum_declaration_list",
               "compound_statement", "statement_block", "singleton_class",
               "linkage_specification", "preproc_if", "preproc_ifdef", "preproc_else",
               "preproc_elif", "template_body", "block_body"}
FUNCTION_VALUES = {"arrow_function", "function", "function_expression",
                   "generator_function", "class"}
PREFIX_TYPES = {"decorator", "attribute_item", "attribute_list", "annotation",
                "marker_annotation", "attribute"}
NAME_TYPES = {"identifier", "type_identifier", "simple_identifier", "constant", "name",
              "property_identifier", "field_identifier", "word", "namespace_identifier"}
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
    if suffix not in LANGUAGES and code_file_name(name):
        language = NAMED_FILES.get(name.lower())
    else:
        language = LANGUAGES.get(suffix) if suffix else shebang_language(text[:SHEBANG_BYTES].encode())
    defs, fallback = _outline(language, module, text)
    sections = _sections(lines, defs, module) if lines else []
    meta = {"language": language, "symbols": _symbols(sections)}
    if fallback:
        meta["fallback"] = fallback
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
    if lines and max(map(len, lines)) > 1000 and sum(map(len, lines)) / len(lines) > 300:
        raise Skip("minified or generated: very long lines")
    for line in lines[:5]:
        if GENERATED_RE.search(line.strip(" \t#/*-;!<>\"'")):
            raise Skip(f"minified or generated: marker {line.strip()[:80]!r}")


def _outline(language: str | None, module: str, text: str) -> tuple[list[Definition], str | None]:
    """Definitions of the file in pre-order, or [] and the reason for a fallback."""
    if language is None:
        return [], "unknown extension"
    parser = _parser(language)
    if parser is None:
        return [], f"no tree-sitter grammar for {language}"
    source = text.encode("utf-8")
    if len(source) > OUTLINE_BYTES:
        return [], f"too large to outline: {len(source):,} bytes (over {OUTLINE_BYTES:,})"
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
                out[-1].end = max(out[-1].end, _end_row(child))
            continue
        found = _definition(child, language)
        if found is None:
            if child.type in TRANSPARENT:
                _scan(child, language, path, out, floor)
            continue
        parts, inner, container = found
        start = max(child.start_point[0], floor + 1)
        end = _end_row(child)
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
    end = later[0] - 1 if later else _end_row(parent)
    out.append(Definition(outer + found[0], start, end, node.start_point[1], floor))
    return outer + found[0], start


def _has_block(node) -> bool:
    return any(child.type == "block" for child in node.named_children)


# Declarations grouped in parentheses whose members are each a definition of their own.
GROUPS = {"go": {"type_declaration"}}


def _end_row(node) -> int:
    """Last row of a node; a node ending at column 0 ends on the row before."""
    row, col = node.end_point
    return row - 1 if col == 0 and row > node.start_point[0] else row


def _definition(node, language: str):
    """(name parts, node to search for members, is container) or None."""
    kind = DEFS.get(language, {}).get(node.type)
    if kind:
        if node.type in NEEDS_BODY and not _has_body(node):
            return None
        parts = [" ".join(p.split()).strip("'\"`") for p in _name(node, language) if p.strip("'\"` \t\n")]
        if node.type not in ("const_declaration", "var_declaration"):  # these are listed: ', ' between their names
            parts = [heading_safe(part) for part in parts]
        return (parts, node, kind == C) if parts else None
    if node.type in ("lexical_declaration", "variable_declaration"):
        return _function_variable(node)
    if language in SCRIPTS and node.type in ("assignment_expression", "pair"):
        return _assigned_function(node)
    if language in SCRIPTS and node.type == "call_expression" and (test := _test_call(node)):
        return test
    if language == "ruby" and node.type == "call" and (block := _ruby_block_call(node)):
        return block
    if language == "scala" and node.type in ("infix_expression", "call_expression") and (test := _scala_test(node)):
        return test
    if language == "kotlin" and node.type == "property_declaration":
        return _kotlin_object(node)
    if language == "php" and node.type in PHP_CALLS | {"assignment_expression"}:
        return _php_closure(node)
    if language in SCRIPTS and node.type in ("call_expression", "parenthesized_expression"):
        return _called_at_once(node)
    if language in SCRIPTS and node.type == "export_statement" and (nameless := _default_export(node)):
        return nameless
    if node.type in WRAPPERS:
        inner = [d for c in node.named_children if (d := _definition(c, language))]
        return inner[0] if len(inner) == 1 else None
    return None


def _has_body(node) -> bool:
    if node.type == "type_definition":
        return any(_has_body(c) for c in node.named_children if c.type.endswith("_specifier"))
    return node.child_by_field_name("body") is not None


def _function_variable(node):
    """``const total = (cart) => ...``: a function bound to a name; ``const api = { fetchUser: … }``: an object of
    functions, named for the functions in it."""
    declarators = [c for c in node.named_children if c.type == "variable_declarator"]
    if len(declarators) != 1:
        return None
    value = declarators[0].child_by_field_name("value")
    name = declarators[0].child_by_field_name("name")
    if value is None or name is None or not (value.type in FUNCTION_VALUES or _holds_functions(value)):
        return None
    return [_text(name)], value, value.type in ("class", "object")


# JavaScript and TypeScript: a file's functions are as often assigned (CommonJS's ``exports.stop = function …``,
# ``module.exports = { start(server) { … } }``), put in an object or exported without a name as declared; all of
# them went under the module's name, a whole file one section.
SCRIPTS = {"javascript", "typescript", "tsx"}
EXPORTS = {"module", "exports", "prototype"}  # ``module.exports.x``, ``Cart.prototype.add``: not part of the name


def _assigned_function(node):
    """``exports.stop = function …`` (stop), ``Cart.prototype.add = …`` (Cart.add), ``{ fetchUser: async () => … }``
    (fetchUser): a function assigned to a name; ``module.exports = { … }``: an object of functions, whose functions
    are the module's own."""
    if node.type == "pair":
        key, value = node.child_by_field_name("key"), node.child_by_field_name("value")
        if key is None or key.type not in ("property_identifier", "string"):
            return None
        parts = [_text(key).strip("'\"`")]
    else:
        target, value = node.child_by_field_name("left"), node.child_by_field_name("right")
        if target is None or target.type not in ("member_expression", "identifier"):
            return None
        parts = [part for part in _text(target).split(".") if part not in EXPORTS]
    if value is None or (value.type not in FUNCTION_VALUES and not _holds_functions(value)):
        return None
    if not parts:  # module.exports = …: its functions are the module's (one function alone is the module's code)
        return ([], value, True) if value.type == "object" else None
    return parts, value, value.type in ("class", "object")


def _holds_functions(node) -> bool:
    """Whether ``node`` is an object literal holding a method or a function bound to a key."""
    return node.type == "object" and any(
        child.type == "method_definition" or (child.type == "pair" and getattr(
            child.child_by_field_name("value"), "type", None) in FUNCTION_VALUES) for child in node.named_children)


def _called_at_once(node):
    """``(function sidebar() { … })();``: a function called where it is written, a browser script's way to keep its
    names to itself, named for the function (none for an anonymous one); the functions in it are its members."""
    while node is not None and node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    if node is None or node.type != "call_expression":
        return None
    function = node.child_by_field_name("function")
    while function is not None and function.type == "parenthesized_expression" and function.named_child_count == 1:
        function = function.named_children[0]
    if function is None or function.type not in ("function", "function_expression", "arrow_function"):
        return None
    name = function.child_by_field_name("name")
    return ([_text(name)] if name is not None else []), function, True


# Calls that define a test, a group of tests or a hook in jest, mocha (BDD and TDD) and vitest, ``.only``,
# ``.skip``, ``.each(table)`` and the like after them: ``describe("cart", () => { it("adds an item", …) })`` is
# ``cart.test > cart > adds an item``. A test file was one section under the module's name.
TEST_CALLS = {"describe", "context", "suite", "it", "test", "specify", "bench", "fdescribe", "fit", "xdescribe",
              "xcontext", "xit", "xtest", "xspecify", "beforeEach", "afterEach", "beforeAll", "afterAll", "before",
              "after", "setup", "teardown", "suiteSetup", "suiteTeardown"}


def _test_call(node):
    """``it("adds an item", () => …)``, ``describe.each(table)("%s", …)``, ``beforeEach(async () => …)``: a test,
    group or hook named for its title (a hook without one for itself), its function's definitions its members."""
    function, arguments = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if function is not None and function.type == "call_expression":  # .each(table)(…), .each`table`(…)
        function = function.child_by_field_name("function")
    root = function
    while root is not None and root.type == "member_expression":
        root = root.child_by_field_name("object")
    if root is None or root.type != "identifier" or _text(root) not in TEST_CALLS or arguments is None:
        return None
    values = arguments.named_children
    body = next((v for v in reversed(values) if v.type in ("arrow_function", "function", "function_expression")), None)
    if body is None:  # it.todo("…")
        return None
    title = values[0] if values[0].type in ("string", "template_string") else None
    return [heading_safe(" ".join(_text(title or root).strip("'\"`").split()))], body, True


# Ruby's calls with a block that define what a spec or a Rakefile holds: RSpec's (and minitest/spec's)
# ``describe Cart do … it "adds an item" do … end end`` and its hooks, Rake's ``namespace :db do task seed: … do``.
# A spec file was one section under the module's name.
RUBY_BLOCKS = {"describe", "context", "it", "specify", "example", "feature", "scenario", "shared_examples",
               "shared_examples_for", "shared_context", "namespace", "task"}
RUBY_HOOKS = {"before", "after", "around"}


def _ruby_block_call(node):
    """``describe "#add" do … end`` (#add), ``RSpec.describe Cart do`` (Cart), ``task seed: :environment do``
    (seed), ``before do`` (before): a call with a block, named for its first argument."""
    method, block = node.child_by_field_name("method"), node.child_by_field_name("block")
    receiver = node.child_by_field_name("receiver")
    if method is None or block is None or (receiver is not None and _text(receiver) != "RSpec"):
        return None
    called = _text(method)
    if called in RUBY_HOOKS:
        return [called], block, True
    arguments = node.child_by_field_name("arguments")
    first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
    if called not in RUBY_BLOCKS or first is None:
        return None
    if first.type == "pair":  # task seed: :environment
        first = first.child_by_field_name("key") or first
    name = heading_safe(" ".join(_text(first).strip(":'\"").split()))
    return ([name] if name else []), block, True


# Go's subtests: ``t.Run("adds an item", func(t *testing.T) { … })`` in TestCart is ``cart_test > TestCart > adds
# an item`` (b.Run in a benchmark too); a test file's subtests all went under their test function. Only a name
# written as a string and a function written in place make one (a table's ``t.Run(tc.name, …)`` stays the test's).
def _go_subtests(function, path: list[str], out: list[Definition], floor: int) -> None:
    """Append the subtests run by the statements of ``function``'s body, and theirs."""
    body = function.child_by_field_name("body")
    for statement in body.named_children if body is not None else ():
        call = statement.named_children[0] if statement.type == "expression_statement" else None
        function_node = call.child_by_field_name("function") if call is not None and call.type == "call_expression" \
            else None
        if function_node is None or function_node.type != "selector_expression" \
                or _field_text(function_node, "field") != "Run":
            continue
        arguments = call.child_by_field_name("arguments").named_children
        if len(arguments) != 2 or arguments[0].type not in ("interpreted_string_literal", "raw_string_literal") \
                or arguments[1].type != "func_literal":
            continue
        name = heading_safe(" ".join(_text(arguments[0]).strip('"`').split()))
        start = max(statement.start_point[0], floor + 1)
        out.append(Definition(path + [name], start, _end_row(statement), statement.start_point[1], floor))
        _go_subtests(arguments[1], path + [name], out, start)


# ScalaTest's tests and groups: FlatSpec's ``"a cart" should "add an item" in { … }`` (and ``it should …``),
# WordSpec's ``"a cart" when { … }`` / ``should { … }``, FreeSpec's ``"a cart" - { … }``, FunSuite's
# ``test("adds an item") { … }`` and FunSpec's ``describe("a cart") { it("adds an item") { … } }``, named for their
# words as written (quotes dropped). They went under the class.
SCALA_TEST_WORDS = {"in", "should", "must", "can", "when", "which", "ignore", "-"}
SCALA_TEST_CALLS = {"test", "ignore", "property", "describe", "it", "they"}


def _scala_test(node):
    if node.type == "infix_expression":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        operator = _field_text(node, "operator")
        if left is None or right is None or right.type != "block" or operator not in SCALA_TEST_WORDS \
                or not any(n.type == "string" for n in _descendants(left)):
            return None
        words = _text(left) if operator in ("in", "-", "ignore") else f"{_text(left)} {operator}"
        return [heading_safe(" ".join(words.replace('"', " ").split()))], right, True
    call, block = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if call is None or call.type != "call_expression" or block is None or block.type != "block" \
            or _field_text(call, "function") not in SCALA_TEST_CALLS:
        return None
    title = next((a for a in getattr(call.child_by_field_name("arguments"), "named_children", [])), None)
    if title is None or title.type != "string":
        return None
    return [heading_safe(" ".join(_text(title).strip('"').split()))], block, True


def _kotlin_object(node):
    """``val comparator = object : Comparator<Int> { … }``: an object bound to a name, its functions its members."""
    value, variable = node.child_by_field_name("expression"), node.child_by_field_name("variable")
    if value is None or value.type != "object_literal" or variable is None:
        return None
    return [_text(variable).split(":")[0].strip()], value, True


# PHP's closures bound to a variable (``$handler = function ($request) { … };``) and routes whose handler is a
# closure: Laravel's ``Route::get('/users', function () { … })`` and Slim's (or Lumen's) ``$app->post('/users/{id}',
# function (…) { … })``, headed by the method and the path (``GET /users``). Both went under the module's name alone.
PHP_CALLS = {"scoped_call_expression", "member_call_expression"}
HTTP_METHODS = {"get", "post", "put", "patch", "delete", "options", "any"}
CLOSURES = {"anonymous_function_creation_expression", "arrow_function"}


def _php_closure(node):
    if node.type == "assignment_expression":
        target, value = node.child_by_field_name("left"), node.child_by_field_name("right")
        if target is None or target.type != "variable_name" or value is None or value.type not in CLOSURES:
            return None
        return [_text(target).lstrip("$")], value, True
    method = _field_text(node, "name").lower()
    arguments = getattr(node.child_by_field_name("arguments"), "named_children", [])
    values = [a.named_children[0] if a.type == "argument" and a.named_children else a for a in arguments]
    if method not in HTTP_METHODS or len(values) != 2 or values[0].type not in ("string", "encapsed_string") \
            or values[1].type not in CLOSURES:
        return None
    route = _text(values[0]).strip("'\"")
    # a member call on any object is a route only with a path written as one: $cache->get('users', fn …) is not
    if node.type == "member_call_expression" and not route.startswith("/"):
        return None
    if node.type == "scoped_call_expression" and _field_text(node, "scope") != "Route":
        return None
    return [heading_safe(f"{method.upper()} {route}")], values[1], True


# A heading path is stored joined by ' > ', and a joined passage's last heading lists its definitions with ', ' and
# '+N' after them (ingest.chunk.joined_heading; search.query.symbols.defines splits them so): a test's title
# ('adds a, b', 'x > y', 'counts +1') read as two names or a count. The space after such a separator becomes a
# no-break space: the title reads as written, and no split finds it.
def heading_safe(part: str) -> str:
    """``part`` as one name of a heading path: no ', ', ' > ' or ending ' +N' that a split would take apart."""
    part = part.replace(", ", ",\u00a0").replace(" > ", " >\u00a0")
    return re.sub(r" (\+\d+)$", "\u00a0\\1", part)


def _default_export(node):
    """``export default function () { … }``, ``export default class extends Base { … }``: a definition without a
    name, named 'default', as it is imported."""
    if not any(child.type == "default" for child in node.children):
        return None
    value = next((c for c in node.named_children if c.type in FUNCTION_VALUES), None)
    if value is None or value.child_by_field_name("name") is not None:
        return None
    return ["default"], value, value.type == "class"


def _name(node, language: str) -> list[str]:
    """The name of a definition as path parts (``Cart::add`` -> [Cart, add])."""
    t = node.type
    if language == "go" and t == "method_declaration":
        return [p for p in (_go_receiver(node), _field_text(node, "name")) if p]
    if t in ("const_declaration", "var_declaration"):  # a block of them named by its names, if it has several
        names = [_text(n) for spec in node.named_children for n in spec.children_by_field_name("name") if n.is_named]
        return [listed(names)] if len(names) > 1 else []
    if t == "package_statement" or t == "short_function_definition":  # Perl's Foo::Bar; Julia's Base.show(x) = …
        return [_text(node.named_children[0])] if node.named_children else []
    if t == "impl_item":
        return [_rust_type_name(node.child_by_field_name("type"))]
    if t == "type_definition":
        return _split(_field_text(node, "declarator"))
    if t == "function_definition" and language in ("c", "cpp"):
        return _split(_declarator_name(node))
    if t == "companion_object" and node.child_by_field_name("name") is None:
        return ["Companion"]
    name = node.child_by_field_name("name")
    if name is None:
        name = next((c for c in node.named_children if c.type in NAME_TYPES), None)
    return _split(_text(name)) if name is not None else []


def _go_receiver(node) -> str:
    receiver = node.child_by_field_name("receiver")
    types = [n for n in _descendants(receiver) if n.type == "type_identifier"] if receiver else []
    return _text(types[0]) if types else ""


def _rust_type_name(node) -> str:
    while node is not None and node.type == "generic_type":
        node = node.child_by_field_name("type")
    if node is None:
        return ""
    name = node.child_by_field_name("name") if node.type == "scoped_type_identifier" else None
    return _text(name or node)


def _declarator_name(node) -> str:
    """Follow C/C++ declarators (pointer, reference, function) to the name."""
    while node is not None and node.type not in NAME_TYPES | {
            "qualified_identifier", "destructor_name", "operator_name"}:
        nxt = node.child_by_field_name("declarator")
        if nxt is None:
            nxt = next((c for c in node.named_children if c.type.endswith("declarator")), None)
        node = nxt
    return _text(node) if node is not None else ""


def _prefix_rows(root, lines: list[str]) -> dict[int, tuple[int, int]]:
    """Rows holding only a comment/decorator/attribute: row -> (first row, column)."""
    rows: dict[int, tuple[int, int]] = {}
    for node in _descendants(root):
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
    return [Section(text="\n".join(lines[a:b + 1]), heading_path=list(o),
                    start_line=a + 1, end_line=b + 1) for a, b, o in runs]


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


def _split(name: str) -> list[str]:
    return [p for p in re.split(r"::|\\", name) if p] if name else []


def _field_text(node, field: str) -> str:
    child = node.child_by_field_name(field)
    return _text(child) if child is not None else ""


def _text(node) -> str:
    return node.text.decode("utf-8", "replace")


def _indent(line: str) -> int:
    return len(line.encode("utf-8")) - len(line.lstrip().encode("utf-8"))


def _descendants(node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))
