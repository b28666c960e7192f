"""The forms a definition takes in code, beside the declarations each grammar has a node for.

ingest.code walks a file's syntax tree and asks, of each node, whether it is a definition: a declaration
(``declarations``: DEFS, the node types per language, and how each is named) or one of the forms below, which
a grammar sees as a call or an assignment but a reader sees as a definition:

* ``values``: a function, an object or a closure bound to a name (``const total = (cart) => …``,
  ``exports.stop = function …``, ``val onClick = { … }``, ``$format = function …``);
* ``tests``: tests, groups and hooks named by their titles (jest / mocha / vitest, RSpec and Rake, ScalaTest,
  Go's subtests, a table's too);
* ``r_functions``: R's ``fit <- function(df) …``;
* ``routes``: HTTP routes, headed by the method and the path after their groups' prefixes (Laravel's
  ``Route::get('/users', …)``, Slim's ``$app->post('/users', …)``).

A form is a function of a node that gives (name parts, node to search for members, is container), or None.
"""
from __future__ import annotations

from .r_functions import ASSIGNMENTS as R_ASSIGNMENTS, r_function
from .routes import PHP_CALLS, php_route
from .tests import ruby_block_call, scala_test, test_call
from .values import (assigned_function, called_at_once, default_export, function_variable, kotlin_value,
                     php_closure)

# Every language: ``const total = (cart) => …`` in JavaScript and TypeScript.
_ANY = [({"lexical_declaration", "variable_declaration"}, function_variable)]
_SCRIPTS = _ANY + [
    ({"assignment_expression", "pair"}, assigned_function),
    ({"call_expression"}, test_call),
    ({"call_expression", "parenthesized_expression"}, called_at_once),
    ({"export_statement"}, default_export),
]
# The forms of each language, tried in order: the first that gives a definition names the node.
FORMS = {
    "javascript": _SCRIPTS, "typescript": _SCRIPTS, "tsx": _SCRIPTS,
    "ruby": _ANY + [({"call"}, ruby_block_call)],
    "scala": _ANY + [({"infix_expression", "call_expression"}, scala_test)],
    "kotlin": _ANY + [({"property_declaration"}, kotlin_value)],
    "php": _ANY + [({"assignment_expression"}, php_closure), (PHP_CALLS, php_route)],
    "r": [(R_ASSIGNMENTS, r_function)],
}


def form(node, language: str):
    """(name parts, node to search for members, is container) if ``node`` is one of ``language``'s forms."""
    for types, found in FORMS.get(language, _ANY):
        if node.type in types and (definition := found(node)):
            return definition
    return None
