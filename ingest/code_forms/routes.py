"""HTTP routes, headed by the method and the path (``GET /users``), and the groups that give them a prefix."""
from __future__ import annotations

from .nodes import field_text, heading_safe, text
from .values import CLOSURES

# Laravel's ``Route::get('/users', function () { … })`` and Slim's (or Lumen's) ``$app->post('/users/{id}',
# function (…) { … })``; in Laravel a controller's action too: ``Route::get('/users', [UserController::class,
# 'index'])``, ``Route::get('/users', 'UserController@index')``, ``Route::get('/me', ShowProfile::class)``, and
# ``->name('users.index')`` or other calls after any of them. A group's routes take its prefix:
# ``Route::prefix('admin')->group(function () { Route::get('/users', …) })`` (or ``Route::group(['prefix' =>
# 'admin'], …)``, Slim's ``$app->group('/admin', …)``) is ``GET /admin/users``; a group has no heading of its own.
# Routes in a group and routes to a controller went under the module's name alone.
PHP_CALLS = {"scoped_call_expression", "member_call_expression"}
HTTP_METHODS = {"get", "post", "put", "patch", "delete", "options", "any"}
STRINGS = ("string", "encapsed_string")


def php_route(node):
    """A route (its closure its members) or a group of routes (nameless: its routes are its members)."""
    closure = _group(node)
    if closure is not None:
        return [], closure, True
    call = node  # Route::get(…)->name(…): the route is the first call
    while call.type == "member_call_expression" and _method(call) not in HTTP_METHODS:
        call = call.child_by_field_name("object")
    if call.type not in PHP_CALLS or _method(call) not in HTTP_METHODS:
        return None
    values = _arguments(call)
    if len(values) != 2 or values[0].type not in STRINGS:
        return None
    route, handler = _string(values[0]), values[1]
    laravel = call.type == "scoped_call_expression" and field_text(call, "scope") == "Route"
    # a member call on any object is a route only with a path written as one: $cache->get('users', fn …) is not
    if not laravel and (call.type != "member_call_expression" or not route.startswith("/")):
        return None
    if handler.type not in CLOSURES and not _action(handler, laravel):
        return None
    heading = heading_safe(f"{_method(call).upper()} {_prefixed(route, node)}")
    return ([heading], handler, True) if handler.type in CLOSURES else ([heading], node, False)


def _action(node, laravel: bool) -> bool:
    """Whether ``node`` names a controller's action: ``[UserController::class, 'index']``, and in Laravel
    ``'UserController@index'`` or an invokable ``ShowProfile::class``."""
    if node.type == "array_creation_expression":
        items = [i.named_children[0] for i in node.named_children if i.named_children]
        return len(items) == 2 and _class_name(items[0]) and items[1].type in STRINGS
    return laravel and (_class_name(node) or (node.type in STRINGS and "@" in _string(node)))


def _class_name(node) -> bool:
    return node.type == "class_constant_access_expression" and text(node).endswith("::class")


def _group(node):
    """The closure of a group of routes ``node`` is a call to, or None."""
    if _method(node) != "group":
        return None
    values = _arguments(node)
    if not values or values[-1].type not in CLOSURES:
        return None
    if node.type == "member_call_expression" and _laravel_chain(node.child_by_field_name("object")):
        return values[-1]  # Route::prefix('admin')->middleware('auth')->group(function () { … })
    if node.type == "scoped_call_expression" and field_text(node, "scope") == "Route":
        return values[-1]  # Route::group(['prefix' => 'admin'], function () { … })
    if node.type == "member_call_expression" and len(values) == 2 and values[0].type in STRINGS \
            and _string(values[0]).startswith("/"):
        return values[-1]  # Slim: $app->group('/admin', function (RouteCollectorProxy $group) { … })
    return None


def _laravel_chain(node) -> bool:
    """Whether ``node`` is a chain of calls starting at ``Route::…(…)``."""
    while node is not None and node.type == "member_call_expression":
        node = node.child_by_field_name("object")
    return node is not None and node.type == "scoped_call_expression" and field_text(node, "scope") == "Route"


def _prefixed(route: str, node) -> str:
    """``route`` after the prefixes of the groups around ``node`` (as written where there are none)."""
    prefixes = []
    for outer in _ancestors(node):
        if outer.type in PHP_CALLS and _group(outer) is not None:
            prefixes[:0] = _prefixes(outer)
    if not prefixes:
        return route
    return "/" + "/".join(part for part in (p.strip("/") for p in prefixes + [route]) if part)


def _prefixes(group) -> list[str]:
    """The prefixes a group's call gives its routes: ``prefix('admin')`` in its chain, ``'prefix' => 'admin'`` in
    Laravel's array, Slim's path."""
    values = _arguments(group)
    if group.type == "member_call_expression" and not _laravel_chain(group.child_by_field_name("object")):
        return [_string(values[0])]
    found = []
    for item in (values[0].named_children if values[0].type == "array_creation_expression" else []):
        pair = item.named_children
        if len(pair) == 2 and pair[0].type in STRINGS and _string(pair[0]) == "prefix" and pair[1].type in STRINGS:
            found.append(_string(pair[1]))
    call = group.child_by_field_name("object")
    chain = []
    while call is not None and call.type in PHP_CALLS:
        if _method(call) == "prefix" and (given := _arguments(call)) and given[0].type in STRINGS:
            chain.insert(0, _string(given[0]))
        call = call.child_by_field_name("object") if call.type == "member_call_expression" else None
    return chain + found


def _ancestors(node):
    node = node.parent
    while node is not None:
        yield node
        node = node.parent


def _method(node) -> str:
    return field_text(node, "name").lower() if node is not None and node.type in PHP_CALLS else ""


def _arguments(node) -> list:
    arguments = getattr(node.child_by_field_name("arguments"), "named_children", [])
    return [a.named_children[0] if a.type == "argument" and a.named_children else a for a in arguments]


def _string(node) -> str:
    return text(node).strip("'\"")
