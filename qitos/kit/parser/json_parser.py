"""JSON decision parser: ``{"action": {...}}``, ``{"actions": [...]}``, ``{"final": ...}``, tool-call lists.

Accepted shapes (an optional ``thought`` / ``rationale`` / ``reasoning`` string becomes the rationale):

- ``{"final": "answer"}`` or ``{"final_answer": "answer"}``
- ``{"action": {"name": "tool", "args": {...}}}`` or ``{"action": "tool", "args": {...}}``
  (``action_input`` / ``arguments`` accepted for ``args``)
- ``{"actions": [{"name": ..., "args": ...}, ...]}`` or ``{"tool_calls": [...]}``, entries in either
  that form or the chat-completions form ``{"function": {"name": ..., "arguments": "<json>"}}``
- a bare list of such entries
- ``{"mode": "act" | "final" | "wait", ...}``: a Decision written as JSON (``Decision.to_dict``)

The JSON may sit inside a ```json fence or after some prose; the first JSON value found is used.
"""

from __future__ import annotations

import json
import re
from typing import Any

from qitos.core.action import Action
from qitos.core.decision import Decision
from qitos.kit.parser.base import Parser, parse_failure

_FENCED = re.compile(r"```[ \t]*(?:json|JSON|json5)?[ \t]*\n(.*?)```", re.DOTALL)
_RATIONALE_KEYS = ("thought", "rationale", "reasoning")
_SHAPES = (
    'expected {"action": {"name": ..., "args": {...}}}, {"actions": [...]}, {"tool_calls": [...]}, '
    '{"final": "..."} or {"mode": ...}'
)


def _first_json(text: str) -> Any:
    """The first JSON value in ``text``: a fenced block's content, the whole text, or the first {...}/[...]."""
    candidates = [m.group(1) for m in _FENCED.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        stripped = candidate.strip()
        try:
            return json.loads(stripped)
        except ValueError:
            pass
        for i, ch in enumerate(stripped):
            if ch in "{[":
                try:
                    return decoder.raw_decode(stripped, i)[0]
                except ValueError:
                    continue
    raise ValueError("no JSON object found")


class JsonDecisionParser(Parser):
    """Parses a JSON decision object (or a list of tool calls) from the model's text."""

    name = "JsonDecisionParser"

    def parse_text(self, text: str) -> Decision[Action]:
        """The Decision in a JSON model output."""
        try:
            data = _first_json(text)
        except ValueError as exc:
            raise parse_failure(self.name, f"{exc}; {_SHAPES}", text) from exc
        if isinstance(data, list):
            return Decision.act(self._actions(data, text))
        if not isinstance(data, dict):
            raise parse_failure(self.name, f"a JSON {type(data).__name__} is no decision; {_SHAPES}", text)
        rationale = next((data[k] for k in _RATIONALE_KEYS if isinstance(data.get(k), str)), None)
        if "mode" in data:
            return self._from_mode(data, rationale, text)
        for key in ("final", "final_answer"):
            if key in data:
                return Decision.final(self._answer(data[key], text), rationale=rationale)
        if "action" in data:
            action = data["action"]
            if isinstance(action, str):
                args: object = next((data[k] for k in ("args", "action_input", "arguments") if k in data), {})
                return Decision.act([self._entry({"name": action, "args": args}, text)], rationale=rationale)
            return Decision.act([self._entry(action, text)], rationale=rationale)
        for key in ("actions", "tool_calls"):
            if key in data:
                return Decision.act(self._actions(data[key], text), rationale=rationale)
        if "name" in data and ("args" in data or "arguments" in data):
            return Decision.act([self._entry(data, text)], rationale=rationale)
        raise parse_failure(self.name, f"unrecognised keys {sorted(data)[:8]}; {_SHAPES}", text)

    def _from_mode(self, data: dict[str, Any], rationale: str | None, text: str) -> Decision[Action]:
        mode = data["mode"]
        if mode == "final":
            return Decision.final(self._answer(data.get("final_answer"), text), rationale=rationale)
        if mode == "act":
            return Decision.act(self._actions(data.get("actions"), text), rationale=rationale)
        if mode == "wait":
            return Decision.wait(rationale=rationale)
        raise parse_failure(self.name, f"mode {mode!r} is not one of act, final, wait", text)

    def _answer(self, value: Any, text: str) -> str:
        if value is None:
            raise parse_failure(self.name, "the final answer is missing (null)", text)
        # A structured answer stays readable as JSON rather than being rejected.
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)

    def _actions(self, entries: Any, text: str) -> list[Action]:
        if not isinstance(entries, list) or not entries:
            raise parse_failure(self.name, "actions must be a non-empty list", text)
        return [self._entry(entry, text) for entry in entries]

    def _entry(self, entry: Any, text: str) -> Action:
        if not isinstance(entry, dict):
            raise parse_failure(self.name, f"an action must be an object, not {entry!r}", text)
        call_id = entry.get("id", entry.get("action_id", entry.get("call_id")))
        if isinstance(entry.get("function"), dict):  # chat-completions tool call
            entry = entry["function"]
        args: Any = next((entry[k] for k in ("args", "arguments", "action_input") if k in entry), {})
        if isinstance(args, str):
            try:
                args = json.loads(args) if args.strip() else {}
            except ValueError as exc:
                raise parse_failure(
                    self.name, f"arguments of {entry.get('name')!r} are not JSON: {exc}", text
                ) from exc
        if args is None:
            args = {}
        return self._action(
            entry.get("name"), args, text, action_id=None if call_id is None else str(call_id)
        )
