"""Tests, groups of tests and hooks, headed by their titles as written."""
from __future__ import annotations

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
# written as a string and a function written in place make one (a table's ``t.Run(tc.name, …)`` stays the test's).
def go_subtests(function):
    """The subtests run by the statements of ``function``'s body: (name, statement, the subtest's function)."""
    body = function.child_by_field_name("body")
    for statement in body.named_children if body is not None else ():
        call = statement.named_children[0] if statement.type == "expression_statement" else None
        function_node = call.child_by_field_name("function") if call is not None and call.type == "call_expression" \
            else None
        if function_node is None or function_node.type != "selector_expression" \
                or field_text(function_node, "field") != "Run":
            continue
        arguments = call.child_by_field_name("arguments").named_children
        if len(arguments) != 2 or arguments[0].type not in ("interpreted_string_literal", "raw_string_literal") \
                or arguments[1].type != "func_literal":
            continue
        yield title(text(arguments[0]), '"`'), statement, arguments[1]


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
