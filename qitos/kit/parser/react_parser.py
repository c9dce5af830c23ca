"""ReAct-style text parser: ``Thought: ... / Action: tool(arg=...)`` or ``Final Answer: ...``.

Reads upstream QitOS's ReActTextParser output format (see the ``raw_output`` of its traces) and
the classic ``Action: tool`` + ``Action Input: {json}`` form. Text after an ``Observation:`` the
model wrote itself is ignored: that observation is invented, and so is what follows it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from qitos.core.action import Action
from qitos.core.decision import Decision
from qitos.kit.parser.base import Parser, parse_failure
from qitos.kit.parser.call_syntax import CallSyntaxError, parse_call

_MARKER = re.compile(
    r"^[ \t>#*_]*(thought|action[ _]input|action|observation|final[ _]answer)[*_]*[ \t]*:[*_]*[ \t]*",
    re.IGNORECASE | re.MULTILINE,
)
_FENCE = re.compile(r"^```[\w-]*[ \t]*\n?(.*?)\n?```$", re.DOTALL)
_BARE_NAME = re.compile(r"^[A-Za-z_][\w.\-]*$")


def _sections(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The text before the first marker, and each ``(marker, content)`` in order."""
    matches = list(_MARKER.finditer(text))
    preamble = text[: matches[0].start()] if matches else text
    sections = []
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        kind = re.sub(r"[ _]+", " ", match.group(1).lower())
        sections.append((kind, text[match.end() : end].strip()))
    return preamble.strip(), sections


def _unwrap(code: str) -> str:
    """The code without the fences or backticks models like to put around it."""
    code = code.strip()
    fenced = _FENCE.match(code)
    if fenced:
        return fenced.group(1).strip()
    if len(code) >= 2 and code[0] == code[-1] == "`":
        return code.strip("`").strip()
    return code


class ReActTextParser(Parser):
    """Parses ReAct text: a Thought, then one or more Actions, or a Final Answer."""

    name = "ReActTextParser"

    def parse_text(self, text: str) -> Decision[Action]:
        """The Decision in a ReAct-formatted model output."""
        preamble, sections = _sections(text)
        thoughts = [content for kind, content in sections if kind == "thought" and content]
        rationale = "\n".join(thoughts) or preamble or None
        actions: list[Action] = []
        for index, (kind, content) in enumerate(sections):
            if kind == "observation":
                break
            if kind == "final answer":
                if actions:
                    break  # acting comes first; an answer written after an action is premature
                if not content:
                    raise parse_failure(self.name, "'Final Answer:' is empty", text)
                return Decision.final(content, rationale=rationale)
            if kind == "action":
                actions.append(self._parse_action(content, sections[index + 1 :], text))
        if not actions:
            raise parse_failure(
                self.name,
                "found no 'Action: tool(arg=value, ...)' and no 'Final Answer: ...' in the output",
                text,
            )
        return Decision.act(actions, rationale=rationale)

    def _parse_action(self, content: str, following: list[tuple[str, str]], text: str) -> Action:
        code = _unwrap(content)
        if not code:
            raise parse_failure(self.name, "'Action:' names no tool", text)
        first_line = code.splitlines()[0].strip()
        if _BARE_NAME.match(first_line) and "(" not in code:
            # Classic ReAct: "Action: tool" then "Action Input: {...}" (or nothing: no arguments).
            tool_input = following[0][1] if following and following[0][0] == "action input" else ""
            return self._action(first_line, self._action_input(first_line, tool_input, text), text)
        try:
            name, args = parse_call(code)
        except CallSyntaxError as exc:
            raise parse_failure(self.name, f"cannot read the action: {exc}", text) from exc
        return self._action(name, args, text)

    def _action_input(self, tool: str, raw: str, text: str) -> dict[str, Any]:
        raw = _unwrap(raw)
        if not raw:
            return {}
        try:
            value = json.loads(raw)
        except ValueError as exc:
            raise parse_failure(self.name, f"'Action Input' of {tool!r} is not JSON: {exc}", text) from exc
        if not isinstance(value, dict):
            raise parse_failure(self.name, f"'Action Input' of {tool!r} must be a JSON object", text)
        return value
