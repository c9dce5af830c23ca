"""Check a tool call's arguments against the tool's JSON schema (the subset QitOS tools declare).

Tool schemas here come from :func:`qitos.core.tool.schema_from_signature` (or a tool's own
``parameters_schema``): ``type``, ``properties``, ``required``, ``enum``, ``anyOf``, ``items`` and
``additionalProperties``. Anything else in a schema is accepted as unconstrained rather than guessed.
"""

from __future__ import annotations

from typing import Any

_TYPE_CHECKS: dict[str, Any] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def schema_errors(schema: Any, args: Any) -> list[str]:
    """Every way ``args`` breaks the tool's argument ``schema`` (empty when they fit)."""
    if not isinstance(args, dict):
        return [f"the arguments must be a JSON object, got {_kind(args)}"]
    if not isinstance(schema, dict):
        return []
    errors = _value_errors(schema, args, "arguments")
    properties = schema.get("properties")
    extra = schema.get("additionalProperties")
    if isinstance(properties, dict) and extra is not True and not isinstance(extra, dict):
        # A function tool with no **kwargs rejects an unknown argument; say so before it runs.
        errors += [f"unknown argument {key!r}" for key in args if key not in properties]
    return errors


def _value_errors(schema: dict[str, Any], value: Any, where: str) -> list[str]:
    """What is wrong with ``value`` under ``schema`` at ``where``."""
    if "enum" in schema and isinstance(schema["enum"], list) and value not in schema["enum"]:
        return [f"{where} must be one of {schema['enum']!r}, got {value!r}"]
    options = schema.get("anyOf")
    if isinstance(options, list) and options:
        if not any(not _value_errors(o, value, where) for o in options if isinstance(o, dict)):
            return [f"{where} matches none of the allowed types, got {_kind(value)}"]
        return []
    wanted = schema.get("type")
    check = _TYPE_CHECKS.get(wanted) if isinstance(wanted, str) else None
    if check is not None and not check(value):
        return [f"{where} must be {wanted}, got {_kind(value)}"]
    errors: list[str] = []
    if isinstance(value, dict):
        required = schema.get("required")
        for name in required if isinstance(required, list) else []:
            if name not in value:
                errors.append(f"missing required argument {name!r}")
        properties = schema.get("properties")
        if isinstance(properties, dict):
            for name, sub in properties.items():
                if name in value and isinstance(sub, dict):
                    errors += _value_errors(sub, value[name], repr(name))
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            errors += _value_errors(schema["items"], item, f"{where}[{index}]")
    return errors


def _kind(value: Any) -> str:
    """A JSON type name for a Python value, for messages."""
    for name, check in _TYPE_CHECKS.items():
        if name != "number" and check(value):
            return name
    return "number" if isinstance(value, float) else type(value).__name__
