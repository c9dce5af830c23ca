"""A tool call in a few words: its name and its most telling argument (``read_file calc.py``).

For the places that have one short line per action (a step row, the pause banner); the Exchanges
pane and the ``i`` dialog show every argument. Names and arguments come from the model (untrusted):
the brief is plain text, made inert where it is drawn.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

PATH_KEYS: Final = ("path", "file", "file_path", "filename")
"""Arguments that name the file a call touches (their extension also picks a lexer)."""

TELLING_KEYS: Final = (
    *PATH_KEYS,
    "query",
    "q",
    "command",
    "cmd",
    "url",
    "pattern",
)
"""Arguments that say what a call is about, most telling first: what it touches, asks or runs."""

VALUE_CHARS: Final = 40  # a telling value (path, query, command) longer than this is cut
OTHER_CHARS: Final = 24  # any other argument is only a hint: cut shorter
NAME_CHARS: Final = 40  # a tool name is the model's word too: a long one must not take the row


def _cut(text: str, width: int) -> str:
    """``text`` on one line (whitespace runs as one space), cut to ``width`` with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _scalar(value: Any) -> str | None:
    """A value that reads well in a few words: a one-line string, a number, a bool; else None."""
    if isinstance(value, str):
        return value if value.strip() and "\n" not in value.strip() else None
    if isinstance(value, bool | int | float):
        return json.dumps(value)
    return None


def telling_argument(args: Any) -> str | None:
    """The argument that tells most about a call: a path, query or command-like one, else the
    first one that reads on one line (cut short); None when none does."""
    if isinstance(args, dict):
        for key in TELLING_KEYS:
            shown = _scalar(args.get(key))
            if shown is not None:
                return _cut(shown, VALUE_CHARS)
        for value in args.values():
            shown = _scalar(value)
            if shown is not None:
                return _cut(shown, OTHER_CHARS)
        return None
    shown = _scalar(args)
    return None if shown is None else _cut(shown, VALUE_CHARS)


def action_brief(action: Any) -> str:
    """``name argument`` for an action ``{name, args}`` (just the name when no argument tells);
    anything else as a short line of text."""
    if not isinstance(action, dict) or "name" not in action:
        return _cut(action if isinstance(action, str) else repr(action), VALUE_CHARS)
    name = action["name"]
    name = _cut(name if isinstance(name, str) else repr(name), NAME_CHARS) or "?"
    argument = telling_argument(action.get("args"))
    return name if argument is None else f"{name} {argument}"


def actions_brief(actions: Sequence[Any]) -> str:
    """Several actions in brief: the first, and how many more (``write_file a.py +2 more``)."""
    if not actions:
        return ""
    first = action_brief(actions[0])
    return first if len(actions) == 1 else f"{first} +{len(actions) - 1} more"
