"""Tests, groups of tests and hooks, headed by their titles as written."""
from __future__ import annotations

from ..chunk import listed
from .nodes import descendants, field_text, text, title

# Calls that define a test, a group of tests or a hook in jest, mocha (BDD and TDD) and vitest, ``.only``,
# ``.skip``, ``.each(table)`` and the like after them: ``describe("cart", () => { it("adds an item", …) })`` is
# ``cart.test > cart > adds an item``. A test file was one section under the module's name.
TEST_CALLS = {"describe", "context", "suite", "it", "test", "specify", "bench", "fdescribe", "fit", "xdescribe",
              "xcontext", "xit", "xtest", "xspecify", "beforeEach", "afterEach", "beforeAll", "afterAll", "before",
              "after", "setup", "teardown", "suiteSetup", "suiteTeardown"}


def test_call(node):
    """``it("adds an item", () => …)``, ``describe.each(table)("%s", …)``, ``beforeEach(async () => …)``: a test,
    group or hook named for its title (a hook without one for itself), its function's definitions its members."""
    function, arguments = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if function is not None and function.type == "call_expression":  # .each(table)(…), .each`table`(…)
        function = function.child_by_field_name("function")
    root = function
    while root is not None and root.type == "member_expression":
        root = root.child_by_field_name("object")
    if root is None or root.type != "identifier" or text(root) not in TEST_CALLS or arguments is None:
        return None
    values = arguments.named_children
    body = next((v for v in reversed(values) if v.type in ("arrow_function", "function", "function_expression")), None)
    if body is None:  # it.todo("…")
        return None
    named = values[0] if values[0].type in ("string", "template_string") else None
    return [title(text(named or root), "'\"`")], body, True


# Ruby's calls with a block that define what a spec or a Rakefile holds: RSpec's (and minitest/spec's)
# ``describe Cart do … it "adds an item" do … end end`` and its hooks, Rake's ``namespace :db do task seed: … do``.
# A spec file was one section under the module's name.
RUBY_BLOCKS = {"describe", "context", "it", "specify", "example", "feature", "scenario", "shared_examples",
               "shared_examples_for", "shared_context", "namespace", "task"}
RUBY_HOOKS = {"before", "after", "around"}


def ruby_block_call(node):
    """``describe "#add" do … end`` (#add), ``RSpec.describe Cart do`` (Cart), ``task seed: :environment do``
    (seed), ``before do`` (before): a call with a block, named for its first argument."""
    method, block = node.child_by_field_name("method"), node.child_by_field_name("block")
    receiver = node.child_by_field_name("receiver")
    if method is None or block is None or (receiver is not None and text(receiver) != "RSpec"):
        return None
    called = text(method)
    if called in RUBY_HOOKS:
        return [called], block, True
    arguments = node.child_by_field_name("arguments")
    first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
    if called not in RUBY_BLOCKS or first is None:
        return None
    if first.type == "pair":  # task seed: :environment
        first = first.child_by_field_name("key") or first
    name = title(text(first), ":'\"")
    return ([name] if name else []), block, True


# Go's subtests: ``t.Run("adds an item", func(t *testing.T) { … })`` in TestCart is ``cart_test > TestCart > adds
# an item`` (b.Run in a benchmark too); a test file's subtests all went under their test function. Only a name
# written as a string and a function written in place make one. A table's subtests, ``for _, tc := range tests {
# t.Run(tc.name, func …) }``, are the loop, headed by the names the table gives (``adds an item, removes an item
# +2``) when it is a literal in the same function (a slice of structs, keyed or not, or a map by name); they went
# under the test function.
def go_subtests(function):
    """The subtests run by the statements of ``function``'s body: (name, statement, the subtest's function)."""
    body = function.child_by_field_name("body")
    statements = body.named_children if body is not None else []
    for statement in statements:
        if statement.type == "for_statement":
            run = next(filter(None, map(_go_run, _named_field(statement, "body"))), None)
            names = _go_table_names(statement, run[0], statements) if run else []
            if names:
                yield listed(names), statement, run[1]
            continue
        run = _go_run(statement)
        if run and run[0].type in ("interpreted_string_literal", "raw_string_literal"):
            yield _go_string(run[0]), statement, run[1]


def _go_run(statement):
    """(name argument, function) of a statement ``x.Run(name, func(…) { … })``, or None."""
    call = statement.named_children[0] if statement.type == "expression_statement" else None
    function = call.child_by_field_name("function") if call is not None and call.type == "call_expression" else None
    if function is None or function.type != "selector_expression" or field_text(function, "field") != "Run":
        return None
    arguments = call.child_by_field_name("arguments").named_children
    return (arguments[0], arguments[1]) if len(arguments) == 2 and arguments[1].type == "func_literal" else None


def _go_string(node) -> str:
    return title(text(node), '"`')


def _go_table_names(loop, name, statements) -> list[str]:
    """The names ``loop`` (``for key, tc := range table``) gives its subtests (``name``: ``tc.name`` or ``key``),
    read from the table's literal; [] if the table is not one or a case's name is not written as a string."""
    clause = next((c for c in loop.named_children if c.type == "range_clause"), None)
    if clause is None:
        return []
    variables = [text(v) for v in _named_field(clause, "left")]
    table = _go_table(clause.child_by_field_name("right"), statements, loop)
    if table is None or not variables:
        return []
    kind, cases = table.child_by_field_name("type"), _named_field(table, "body")
    if name.type == "identifier" and getattr(kind, "type", None) == "map_type" and text(name) == variables[0]:  # range by key
        keys = [case.named_children[0].named_children[0] if case.type == "keyed_element" else None for case in cases]
        return _strings(keys)
    if name.type != "selector_expression" or len(variables) < 2 or field_text(name, "operand") != variables[1]:
        return []
    field = field_text(name, "field")
    values = [case.named_children[-1] if case.type == "keyed_element" else case for case in cases]
    return _strings([_go_field(value.named_children[0] if value.named_children else value, field, kind)
                     for value in values])


def _go_table(node, statements, loop):
    """The composite literal ``node`` names: itself, or the one a statement before ``loop`` binds it to."""
    if node is not None and node.type == "composite_literal":
        return node
    if node is None or node.type != "identifier":
        return None
    table = None
    for statement in statements:
        if statement.start_byte >= loop.start_byte:
            break
        if statement.type == "short_var_declaration":
            names, values = _named_field(statement, "left"), _named_field(statement, "right")
        elif statement.type == "var_declaration":
            specs = [s for s in statement.named_children if s.type == "var_spec"]
            names = [n for s in specs for n in s.children_by_field_name("name")]
            values = [v for s in specs for v in _named_field(s, "value")]
        else:
            continue
        for bound, value in zip(names, values):
            if text(bound) == text(node):
                table = value if value.type == "composite_literal" else None
    return table


def _go_field(case, field: str, kind):
    """The value of ``field`` in one case of a table (``{name: "adds", n: 1}`` or ``{"adds", 1}``), or None."""
    if case.type != "literal_value":
        return None
    elements = case.named_children
    keyed = {text(e.named_children[0]): e.named_children[-1] for e in elements if e.type == "keyed_element"}
    if keyed:
        found = keyed.get(field)
    else:  # written in the order of the struct's fields
        struct = next((n for n in descendants(kind) if n.type == "struct_type"), None) if kind is not None else None
        fields = [text(n) for d in descendants(struct) if d.type == "field_declaration"
                  for n in d.children_by_field_name("name")] if struct is not None else []
        found = elements[fields.index(field)] if field in fields and fields.index(field) < len(elements) else None
    return found.named_children[0] if found is not None and found.type == "literal_element" else found


def _strings(nodes) -> list[str]:
    """Each node's string, all of them or [] if one is not a string literal."""
    if not nodes or any(n is None or n.type not in ("interpreted_string_literal", "raw_string_literal")
                        for n in nodes):
        return []
    return [_go_string(n) for n in nodes]


def _named_field(node, field: str) -> list:
    """The named children of ``node``'s field (an expression list's expressions), or []."""
    child = node.child_by_field_name(field)
    return child.named_children if child is not None else []


# ScalaTest's tests and groups: FlatSpec's ``"a cart" should "add an item" in { … }`` (and ``it should …``),
# WordSpec's ``"a cart" when { … }`` / ``should { … }``, FreeSpec's ``"a cart" - { … }``, FunSuite's
# ``test("adds an item") { … }`` and FunSpec's ``describe("a cart") { it("adds an item") { … } }``, named for their
# words as written (quotes dropped). They went under the class.
SCALA_TEST_WORDS = {"in", "should", "must", "can", "when", "which", "ignore", "-"}
SCALA_TEST_CALLS = {"test", "ignore", "property", "describe", "it", "they"}


def scala_test(node):
    if node.type == "infix_expression":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        operator = field_text(node, "operator")
        if left is None or right is None or right.type != "block" or operator not in SCALA_TEST_WORDS \
                or not any(n.type == "string" for n in descendants(left)):
            return None
        said = text(left) if operator in ("in", "-", "ignore") else f"{text(left)} {operator}"
        return [title(said.replace('"', " "))], right, True
    call, block = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if call is None or call.type != "call_expression" or block is None or block.type != "block" \
            or field_text(call, "function") not in SCALA_TEST_CALLS:
        return None
    named = next((a for a in getattr(call.child_by_field_name("arguments"), "named_children", [])), None)
    if named is None or named.type != "string":
        return None
    return [title(text(named), '"')], block, True
