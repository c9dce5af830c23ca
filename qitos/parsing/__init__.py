"""Parsers from model text to Decision (JSON and ReAct style)."""

from __future__ import annotations

from collections.abc import Collection

from qitos.parsing.base import Parser, parse_failure
from qitos.parsing.call_syntax import CallSyntaxError, parse_call
from qitos.parsing.json_parser import JsonDecisionParser
from qitos.parsing.react import ReActTextParser

PARSERS: dict[str, type[Parser]] = {
    "json": JsonDecisionParser,
    "react": ReActTextParser,
    JsonDecisionParser.name: JsonDecisionParser,
    ReActTextParser.name: ReActTextParser,
}


def get_parser(name: str, *, tool_names: Collection[str] | None = None) -> Parser:
    """A parser by name ("json", "react" or a class name); ValueError naming the choices otherwise."""
    try:
        cls = PARSERS[name]
    except KeyError:
        raise ValueError(f"unknown parser {name!r}; choose one of {sorted(PARSERS)}") from None
    return cls(tool_names=tool_names)


__all__ = [
    "PARSERS",
    "CallSyntaxError",
    "JsonDecisionParser",
    "Parser",
    "ReActTextParser",
    "get_parser",
    "parse_call",
    "parse_failure",
]
