"""The tools' inputSchema as a client reads it: pydantic's JSON schema of the tool's arguments without what says
nothing to the model that picks the tool and its arguments (tools/list goes with every conversation).
``minimum`` and ``maximum`` stay: a model reads them as the limit's range.

pydantic titles every argument with its own name ('start_line': {'title': 'Start Line'}), and writes an optional
argument as ``anyOf: [{type: string, maxLength: 200}, {type: null}]`` with ``default: null``: an argument not in
``required`` is already one a call may leave out, which is what null means to every tool here. They made some
3,000 of the 16,000 characters the six inputSchemas held. The server still takes an explicit null (pydantic
validates the call, not this schema).
"""
from __future__ import annotations


def lean(schema: dict) -> dict:
    """``schema`` (an object's, as pydantic gives a tool's arguments) without titles, and each optional
    argument's null option and null default dropped."""
    properties = {name: _argument(spec) for name, spec in schema.get("properties", {}).items()}
    kept = {key: value for key, value in schema.items() if key not in ("title", "properties")}
    return {**kept, "properties": properties} if "properties" in schema else kept


# Bounds kept for hostile input: the server enforces them (pydantic) and words the refusal; no model writes a
# 4,096-character path, and each said so in 20 characters of every tools/list.
UNSAID = ("title", "maxLength", "maxItems")


def _argument(spec: dict) -> dict:
    spec = _unsaid(spec)
    options = spec.get("anyOf")
    if options is not None and spec.get("default", ...) is None:
        others = [option for option in options if option != {"type": "null"}]
        del spec["default"]
        if len(others) == 1:  # 'string or null': the string's own schema, its description beside it
            spec = {**others[0], **{k: v for k, v in spec.items() if k != "anyOf"}}
        else:  # a list of tags or one tag: both kept, null dropped
            spec["anyOf"] = others
    return spec


def _unsaid(spec):
    """``spec`` without the keys of UNSAID, at any depth (a list of tags: its items' maxLength)."""
    if isinstance(spec, list):
        return [_unsaid(part) for part in spec]
    if not isinstance(spec, dict):
        return spec
    return {key: _unsaid(value) for key, value in spec.items() if key not in UNSAID}
