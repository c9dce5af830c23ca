"""A model reply the agent's parsers understand, shown structured: thought, actions, each argument.

The reply comes from the model (untrusted). It is read with qitos's own parsers (JSON decision,
ReAct text, XML; native tool calls first, as ``Parser.parse`` does), so what is shown structured is
what an agent would have acted on; a reply none of them reads is shown as the text it is. Every
piece becomes inert text; code is highlighted with the theme's tones, never with markup.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, NamedTuple

from rich.style import Style
from rich.text import Text

from tui.action_brief import PATH_KEYS
from tui.text import inert, inert_line

if TYPE_CHECKING:
    # rich.syntax pulls in pygments (~10 ms and a few MB): imported when code is first highlighted.
    from rich.syntax import ANSISyntaxTheme

MAX_PARSED_CHARS = 200_000  # a longer reply is shown as text: the JSON parser tries every "{" in it
BLOCK_CHARS = 60  # a string argument longer than this (or with a newline) is a text block
LINE_VALUE_CHARS = 24  # an argument's value in the one-line form is cut to this

Tone = Callable[[str], Style]
"""A widget's ``tone`` (tui.widgets.tones.Toned.tone): a tone's Rich style in the current theme."""


class Reply(NamedTuple):
    """What a parser read in a model reply: the thought, the actions (name, args), a final answer."""

    thought: str | None
    actions: tuple[tuple[str, Any], ...]
    final_answer: str | None
    parser: str  # which reading understood it: "tool calls" or a parser's name


def understood(text: str, tool_calls: Sequence[dict[str, Any]] = ()) -> Reply | None:
    """The reply ``text`` (with the response's native ``tool_calls``) as a parser reads it, or None."""
    if tool_calls:
        actions = tuple((inert_line(call.get("name", "?")), call.get("args")) for call in tool_calls)
        return Reply(text.strip() or None, actions, None, "tool calls")
    if not text.strip() or len(text) > MAX_PARSED_CHARS:
        return None
    # Imported here: only a reply in text needs them (a run that replies in tool calls never does).
    from qitos.kit.parser import JsonDecisionParser, ReActTextParser, XmlDecisionParser

    for parser in (JsonDecisionParser(), ReActTextParser(), XmlDecisionParser()):
        try:
            decision = parser.parse_text(text)
        except Exception:  # noqa: BLE001 - hostile text may break a parser in any way: then it is not read
            continue
        if decision.mode == "wait" or (not decision.actions and decision.final_answer is None):
            continue
        actions = tuple((a.name, a.args) for a in decision.actions)
        return Reply(decision.rationale, actions, decision.final_answer, parser.name)
    return None


def is_block(value: Any) -> bool:
    """Whether an argument value is shown as a text block (multi-line or long text)."""
    return isinstance(value, str) and ("\n" in value or len(value) > BLOCK_CHARS)


def value_text(value: Any) -> str:
    """A short argument value as text: a string as it is, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=repr)


def line_count(value: str) -> int:
    """How many lines a text block has (a trailing newline ends the last one, it adds none)."""
    return len(value.splitlines()) or 1


def action_line(action: Any) -> str:
    """An action on one line: ``write_file path=calc.py content=<12 lines>`` (inert)."""
    if not isinstance(action, dict):
        return inert_line(value_text(action))[:80]
    parts = [inert_line(value_text(action.get("name", "?")))]
    args = action.get("args")
    if isinstance(args, dict):
        for key, value in args.items():
            if isinstance(value, str) and "\n" in value:
                shown = f"<{line_count(value)} lines>"
            elif isinstance(value, str) and len(value) > LINE_VALUE_CHARS:
                shown = f"<{len(value)} chars>"
            else:
                shown = value_text(value)
                if len(shown) > LINE_VALUE_CHARS:
                    shown = shown[: LINE_VALUE_CHARS - 1] + "…"
            parts.append(f"{inert_line(key)}={inert_line(shown)}")
    elif args is not None:
        parts.append(inert_line(value_text(args))[:LINE_VALUE_CHARS])
    return " ".join(parts)


def lexer_name(args: Any) -> str | None:
    """The Pygments lexer for the file a ``path`` argument names (by its extension), if any."""
    if not isinstance(args, dict):
        return None
    path = next((args[k] for k in PATH_KEYS if isinstance(args.get(k), str)), None)
    if not path or len(path) > 4096:
        return None
    name = PurePosixPath(path.replace("\\", "/")).name
    if "." not in name:
        return None
    from tui.lexers import lexer_alias_for  # Pygments is loaded when a file name first asks for it

    return lexer_alias_for(name)


def syntax_theme(tone: Tone) -> ANSISyntaxTheme:
    """Token styles taken from the widget's tones, so code follows the theme like the rest."""
    from pygments.token import Comment, Keyword, Name, Number, Operator, String
    from rich.syntax import ANSISyntaxTheme

    return ANSISyntaxTheme(
        {
            Keyword: tone("info"),
            Name.Builtin: tone("info"),
            Name.Function: tone("system"),
            Name.Class: tone("system"),
            Name.Decorator: tone("system"),
            String: tone("good"),
            Number: tone("warn"),
            Operator: Style(),
            Comment: Style(dim=True, italic=True),
        }
    )


def code_text(code: str, lexer: str | None, tone: Tone) -> Text:
    """``code`` (untrusted) as inert text, highlighted by ``lexer`` when there is one."""
    text = inert(code.rstrip("\n"))
    if lexer is None:
        return text
    from rich.syntax import Syntax

    highlighted = Syntax(text.plain, lexer, theme=syntax_theme(tone)).highlight(text.plain)
    highlighted.rstrip()
    highlighted.no_wrap = None  # Syntax makes it unwrapped: long lines wrap like the text around them
    # The placeholders' reversed spans over the highlighting (same plain text: inert keeps lengths).
    highlighted.spans.extend(text.spans)
    highlighted.style = ""
    return highlighted
