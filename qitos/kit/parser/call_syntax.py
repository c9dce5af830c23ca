"""Reads a ReAct tool call written as ``tool(arg=value, ...)`` into a name and an argument dict.

Values are Python/JSON literals when they are literals (tuples become lists, as JSON has no
tuples); anything else is kept as its source text — upstream QitOS reads ``view_range=1-3`` as the
string ``"1-3"``, and so do we. Nothing is ever evaluated.
"""

from __future__ import annotations

import ast
import re
from typing import Any

_HEAD = re.compile(r"^([A-Za-z_][\w.\-]*)\s*\(")
_KEYWORD = re.compile(r"^\s*([A-Za-z_]\w*)\s*=(?!=)\s*(.*)$", re.DOTALL)
_BARE_LITERALS = {"true": True, "false": False, "null": None, "none": None}


class CallSyntaxError(ValueError):
    """The text is not a ``tool(arg=value, ...)`` call; the message says what is wrong."""


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((_jsonable(v) for v in value), key=repr)
    if isinstance(value, dict):
        return {k if isinstance(k, str) else str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, complex):
        return str(value)
    return value


def _literal(text: str) -> Any:
    """The literal value of ``text``, or the text itself when it is no literal."""
    stripped = text.strip()
    if stripped.lower() in _BARE_LITERALS:
        return _BARE_LITERALS[stripped.lower()]
    try:
        return _jsonable(ast.literal_eval(stripped))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return stripped


def parse_call(source: str) -> tuple[str, dict[str, Any]]:
    """``(name, args)`` of a call written as ``name(key=value, ...)``; CallSyntaxError otherwise."""
    source = source.strip().rstrip(";").strip()
    head = _HEAD.match(source)
    if head is None:
        raise CallSyntaxError(f"expected a call like tool(name=value, ...), got {source[:80]!r}")
    if not source.endswith(")"):
        raise CallSyntaxError(f"the call to {head.group(1)!r} is missing its closing ')'")
    name = head.group(1)
    body = source[head.end() : -1]
    try:
        return name, _parse_with_ast(body)
    except SyntaxError:
        # Not Python syntax (e.g. an unquoted path): fall back to splitting on top-level commas.
        return name, _parse_by_splitting(name, body)


def _parse_with_ast(body: str) -> dict[str, Any]:
    code = f"_({body})"
    tree = ast.parse(code, mode="eval")
    call = tree.body
    if not isinstance(call, ast.Call):
        raise SyntaxError("not a single call")  # e.g. "x) + (y": let the splitter judge it
    if call.args:
        raise CallSyntaxError("tool arguments must be given by name (key=value), not by position")
    args: dict[str, Any] = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            raise CallSyntaxError("'**' arguments are not supported in a tool call")
        if keyword.arg in args:
            raise CallSyntaxError(f"argument {keyword.arg!r} is given twice")
        node = keyword.value
        if isinstance(node, ast.Name) and node.id.lower() in _BARE_LITERALS:
            args[keyword.arg] = _BARE_LITERALS[node.id.lower()]
            continue
        try:
            args[keyword.arg] = _jsonable(ast.literal_eval(node))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            segment = ast.get_source_segment(code, node)
            args[keyword.arg] = segment if segment is not None else ast.unparse(node)
    return args


def _split_top_level(body: str) -> list[str]:
    """``body`` split on commas outside quotes and brackets."""
    parts: list[str] = []
    depth, quote, start, i = 0, "", 0, 0
    while i < len(body):
        ch = body[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
        i += 1
    if quote:
        raise CallSyntaxError(f"unterminated {quote} string in the tool call")
    parts.append(body[start:])
    return [p for p in parts if p.strip()]


def _parse_by_splitting(name: str, body: str) -> dict[str, Any]:
    args: dict[str, Any] = {}
    for part in _split_top_level(body):
        match = _KEYWORD.match(part)
        if match is None:
            raise CallSyntaxError(
                f"argument {part.strip()[:40]!r} of {name!r} is not key=value (arguments must be named)"
            )
        key, value = match.group(1), match.group(2)
        if key in args:
            raise CallSyntaxError(f"argument {key!r} is given twice")
        args[key] = _literal(value)
    return args
