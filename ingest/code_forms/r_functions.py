"""R's functions: a function bound to a name (``fit_churn_curve <- function(df) { … }``, ``=`` and ``<<-`` too).

R has no function declaration; the grammar sees an assignment whose value is a ``function_definition``. A passage of
an R script was headed by the file's name alone (R was windowed by lines): now by the function it is in,
``survival > fit_churn_curve``; a function defined inside another is under it."""
from __future__ import annotations

from .nodes import text

ASSIGNMENTS = {"left_assignment", "equals_assignment", "super_assignment"}


def r_function(node):
    """(name parts, node to search for members, is container) of ``name <- function(…) …``; None for any other
    assignment (``x <- 5``)."""
    name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
    if name is None or value is None or value.type != "function_definition":
        return None
    named = text(name).strip("`'\"")
    return ([named], value, True) if named else None
