"""Functions, objects and closures bound to a name, which a grammar sees as assignments or expressions."""
from __future__ import annotations

from .nodes import text

FUNCTION_VALUES = {"arrow_function", "function", "function_expression",
                   "generator_function", "class"}


def function_variable(node):
    """``const total = (cart) => ...``: a function bound to a name; ``const api = { fetchUser: … }``: an object of
    functions, named for the functions in it."""
    declarators = [c for c in node.named_children if c.type == "variable_declarator"]
    if len(declarators) != 1:
        return None
    value = declarators[0].child_by_field_name("value")
    name = declarators[0].child_by_field_name("name")
    if value is None or name is None or not (value.type in FUNCTION_VALUES or _holds_functions(value)):
        return None
    return [text(name)], value, value.type in ("class", "object")


# JavaScript and TypeScript: a file's functions are as often assigned (CommonJS's ``exports.stop = function …``,
# ``module.exports = { start(server) { … } }``), put in an object or exported without a name as declared; all of
# them went under the module's name, a whole file one section.
EXPORTS = {"module", "exports", "prototype"}  # ``module.exports.x``, ``Cart.prototype.add``: not part of the name


def assigned_function(node):
    """``exports.stop = function …`` (stop), ``Cart.prototype.add = …`` (Cart.add), ``{ fetchUser: async () => … }``
    (fetchUser): a function assigned to a name; ``module.exports = { … }``: an object of functions, whose functions
    are the module's own."""
    if node.type == "pair":
        key, value = node.child_by_field_name("key"), node.child_by_field_name("value")
        if key is None or key.type not in ("property_identifier", "string"):
            return None
        parts = [text(key).strip("'\"`")]
    else:
        target, value = node.child_by_field_name("left"), node.child_by_field_name("right")
        if target is None or target.type not in ("member_expression", "identifier"):
            return None
        parts = [part for part in text(target).split(".") if part not in EXPORTS]
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


def called_at_once(node):
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
    return ([text(name)] if name is not None else []), function, True


def default_export(node):
    """``export default function () { … }``, ``export default class extends Base { … }``: a definition without a
    name, named 'default', as it is imported."""
    if not any(child.type == "default" for child in node.children):
        return None
    value = next((c for c in node.named_children if c.type in FUNCTION_VALUES), None)
    if value is None or value.child_by_field_name("name") is not None:
        return None
    return ["default"], value, value.type == "class"


# Kotlin's values bound to a name: an object (``val byPrice = object : Comparator<Item> { … }``, its functions its
# members) and a function, as a lambda (``val onClick = { … }``, ``val handler: (Int) -> Unit = { x -> … }``) or an
# anonymous function (``val parse = fun(s: String): Int { … }``). A lambda went under what held it.
KOTLIN_VALUES = {"object_literal": True, "lambda_literal": False, "anonymous_function": False}  # is container


def kotlin_value(node):
    value, variable = node.child_by_field_name("expression"), node.child_by_field_name("variable")
    if value is None or value.type not in KOTLIN_VALUES or variable is None:
        return None
    return [text(variable).split(":")[0].strip()], value, KOTLIN_VALUES[value.type]


# PHP's closures bound to a variable: ``$handler = function ($request) { … };`` went under the module's name alone.
CLOSURES = {"anonymous_function_creation_expression", "arrow_function"}


def php_closure(node):
    target, value = node.child_by_field_name("left"), node.child_by_field_name("right")
    if target is None or target.type != "variable_name" or value is None or value.type not in CLOSURES:
        return None
    return [text(target).lstrip("$")], value, True
