"""The declarations each grammar has a node for (DEFS), the nodes around and between them, and their names."""
from __future__ import annotations

import re

from ..chunk import listed
from .nodes import descendants, field_text, text

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
    # a schema or migration: its tables, views, functions, types and triggers (an index is named after its table when
    # it has no name of its own, so it stays with the lines around it)
    "sql": {"create_table_statement": L, "create_view_statement": L, "create_materialized_view_statement": L,
            "create_function_statement": L, "create_type_statement": L, "create_trigger_statement": L,
            "create_domain_statement": L},
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
NAME_TYPES = {"identifier", "type_identifier", "simple_identifier", "constant", "name",
              "property_identifier", "field_identifier", "word", "namespace_identifier"}


def has_body(node) -> bool:
    if node.type == "type_definition":
        return any(has_body(c) for c in node.named_children if c.type.endswith("_specifier"))
    return node.child_by_field_name("body") is not None


def definition_name(node, language: str) -> list[str]:
    """The name of a definition as path parts (``Cart::add`` -> [Cart, add])."""
    t = node.type
    if language == "go" and t == "method_declaration":
        return [p for p in (_go_receiver(node), field_text(node, "name")) if p]
    if t in ("const_declaration", "var_declaration"):  # a block of them named by its names, if it has several
        names = [text(n) for spec in node.named_children for n in spec.children_by_field_name("name") if n.is_named]
        return [listed(names)] if len(names) > 1 else []
    if t == "package_statement" or t == "short_function_definition":  # Perl's Foo::Bar; Julia's Base.show(x) = …
        return [text(node.named_children[0])] if node.named_children else []
    if language == "sql":  # CREATE TABLE public.users, `users` (MySQL), "Users", [dbo].[users] (T-SQL)
        found = node.child_by_field_name("name") or node.child_by_field_name("type_name") or next(
            (c for c in node.named_children if c.type in ("identifier", "dotted_name")), None)
        return [re.sub(r'[`"\[\]]', "", text(found))] if found is not None else []
    if t == "impl_item":
        return [_rust_type_name(node.child_by_field_name("type"))]
    if t == "type_definition":
        return _split(field_text(node, "declarator"))
    if t == "function_definition" and language in ("c", "cpp"):
        return _split(_declarator_name(node))
    if t == "companion_object" and node.child_by_field_name("name") is None:
        return ["Companion"]
    found = node.child_by_field_name("name")
    if found is None:
        found = next((c for c in node.named_children if c.type in NAME_TYPES), None)
    return _split(text(found)) if found is not None else []


def _go_receiver(node) -> str:
    receiver = node.child_by_field_name("receiver")
    types = [n for n in descendants(receiver) if n.type == "type_identifier"] if receiver else []
    return text(types[0]) if types else ""


def _rust_type_name(node) -> str:
    while node is not None and node.type == "generic_type":
        node = node.child_by_field_name("type")
    if node is None:
        return ""
    found = node.child_by_field_name("name") if node.type == "scoped_type_identifier" else None
    return text(found or node)


def _declarator_name(node) -> str:
    """Follow C/C++ declarators (pointer, reference, function) to the name."""
    while node is not None and node.type not in NAME_TYPES | {
            "qualified_identifier", "destructor_name", "operator_name"}:
        nxt = node.child_by_field_name("declarator")
        if nxt is None:
            nxt = next((c for c in node.named_children if c.type.endswith("declarator")), None)
        node = nxt
    return text(node) if node is not None else ""


def _split(name: str) -> list[str]:
    return [p for p in re.split(r"::|\\", name) if p] if name else []
