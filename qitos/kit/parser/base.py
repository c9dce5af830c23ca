"""What every parser shares: the parse interface, native tool calls first, and the parse failure."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

from qitos.core.action import Action
from qitos.core.decision import Decision
from qitos.core.errors import ParseExecutionError

if TYPE_CHECKING:  # only named in annotations; the models package is a few ms to import
    from qitos.models.base import ToolCall

_EXCERPT = 500  # characters of the offending output kept in the error, enough to see what went wrong


def parse_failure(parser: str, message: str, text: str) -> ParseExecutionError:
    """A recoverable ParseExecutionError naming the parser, with an excerpt of the model output."""
    excerpt = text if len(text) <= _EXCERPT else text[:_EXCERPT] + "…"
    error = ParseExecutionError.make(
        f"{parser}: {message}", phase="DECIDE", recoverable=True, parser=parser, raw_output=excerpt
    )
    assert isinstance(error, ParseExecutionError)
    return error


class Parser(ABC):
    """Turns a model's output into a Decision; raises ParseExecutionError (recoverable) when it cannot."""

    name: str = "parser"

    def __init__(self, *, tool_names: Collection[str] | None = None) -> None:
        # When the agent's tool names are known, an unknown one is a parse failure the model can
        # correct on retry, rather than a tool error later.
        self.tool_names: frozenset[str] | None = None if tool_names is None else frozenset(tool_names)

    def parse(self, text: str, *, tool_calls: Sequence[ToolCall] = ()) -> Decision[Action]:
        """The Decision in ``text``; native ``tool_calls`` from the model response take precedence."""
        if not isinstance(text, str):
            raise parse_failure(
                self.name, f"model output must be text, not {type(text).__name__}", repr(text)
            )
        if tool_calls:
            decision = Decision.act(
                [self._action(c.name, dict(c.args), text, action_id=c.call_id) for c in tool_calls],
                rationale=text.strip() or None,
            )
        else:
            decision = self.parse_text(text)
        try:
            decision.validate()
        except ValueError as exc:
            raise parse_failure(self.name, f"invalid decision: {exc}", text) from exc
        return decision

    def __call__(self, text: str) -> Decision[Action]:
        """Plain-callable form, for code that treats a parser as ``fn(raw_output) -> Decision``."""
        return self.parse(text)

    @abstractmethod
    def parse_text(self, text: str) -> Decision[Action]:
        """The Decision written in ``text`` (no native tool calls); raise via :func:`parse_failure`."""

    def _action(self, name: Any, args: Any, text: str, *, action_id: str | None = None) -> Action:
        """A checked Action: a known tool name (when names are known) and dict arguments."""
        if not isinstance(name, str) or not name.strip():
            raise parse_failure(self.name, f"tool name must be a non-empty string, not {name!r}", text)
        name = name.strip()
        if self.tool_names is not None and name not in self.tool_names:
            known = ", ".join(sorted(self.tool_names)) or "none"
            raise parse_failure(self.name, f"unknown tool {name!r}; available tools: {known}", text)
        if not isinstance(args, dict):
            raise parse_failure(self.name, f"arguments of {name!r} must be an object, not {args!r}", text)
        try:
            return Action(name=name, args=args, action_id=action_id)
        except ValueError as exc:
            raise parse_failure(self.name, str(exc), text) from exc
