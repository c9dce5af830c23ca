"""Parsers from model text to Decision: JSON, ReAct and XML formats (upstream's ``qitos.kit.parser``)."""

from __future__ import annotations

from collections.abc import Collection

from qitos.kit.parser.base import Parser, parse_failure
from qitos.kit.parser.call_syntax import CallSyntaxError, parse_call
from qitos.kit.parser.json_parser import JsonDecisionParser
from qitos.kit.parser.react_parser import ReActTextParser
from qitos.kit.parser.xml_parser import XmlDecisionParser

PARSERS: dict[str, type[Parser]] = {
    "json": JsonDecisionParser,
    "react": ReActTextParser,
    "xml": XmlDecisionParser,
    JsonDecisionParser.name: JsonDecisionParser,
    ReActTextParser.name: ReActTextParser,
    XmlDecisionParser.name: XmlDecisionParser,
}


def get_parser(name: str, *, tool_names: Collection[str] | None = None) -> Parser:
    """A parser by name ("json", "react", "xml" or a class name); ValueError naming the choices otherwise."""
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
    "XmlDecisionParser",
    "get_parser",
    "parse_call",
    "parse_failure",
]
