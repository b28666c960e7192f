"""HTTP routes whose handler is written in place, headed by the method and the path (``GET /users``)."""
from __future__ import annotations

from .nodes import field_text, heading_safe, text
from .values import CLOSURES

# Laravel's ``Route::get('/users', function () { … })`` and Slim's (or Lumen's) ``$app->post('/users/{id}',
# function (…) { … })``. They went under the module's name alone.
PHP_CALLS = {"scoped_call_expression", "member_call_expression"}
HTTP_METHODS = {"get", "post", "put", "patch", "delete", "options", "any"}


def php_route(node):
    method = field_text(node, "name").lower()
    arguments = getattr(node.child_by_field_name("arguments"), "named_children", [])
    values = [a.named_children[0] if a.type == "argument" and a.named_children else a for a in arguments]
    if method not in HTTP_METHODS or len(values) != 2 or values[0].type not in ("string", "encapsed_string") \
            or values[1].type not in CLOSURES:
        return None
    route = text(values[0]).strip("'\"")
    # a member call on any object is a route only with a path written as one: $cache->get('users', fn …) is not
    if node.type == "member_call_expression" and not route.startswith("/"):
        return None
    if node.type == "scoped_call_expression" and field_text(node, "scope") != "Route":
        return None
    return [heading_safe(f"{method.upper()} {route}")], values[1], True
