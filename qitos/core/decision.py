"""The canonical output of the decide phase: act, final, wait or branch."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

ActionT = TypeVar("ActionT")

DecisionMode = Literal["act", "final", "wait", "branch"]
DECISION_MODES: tuple[str, ...] = ("act", "final", "wait", "branch")


@dataclass
class Decision(Generic[ActionT]):
    """What the agent wants to do next; build it with the factory class methods."""

    mode: DecisionMode
    actions: list[ActionT] = field(default_factory=list)
    final_answer: str | None = None
    rationale: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    candidates: list[Decision[ActionT]] = field(default_factory=list)

    @classmethod
    def act(
        cls, actions: list[ActionT], rationale: str | None = None, meta: dict[str, Any] | None = None
    ) -> Decision[ActionT]:
        """Execute one or more actions."""
        return cls(mode="act", actions=list(actions), rationale=rationale, meta=dict(meta or {}))

    @classmethod
    def final(
        cls, answer: str, rationale: str | None = None, meta: dict[str, Any] | None = None
    ) -> Decision[ActionT]:
        """Produce a final answer and stop."""
        return cls(mode="final", final_answer=answer, rationale=rationale, meta=dict(meta or {}))

    @classmethod
    def wait(cls, rationale: str | None = None, meta: dict[str, Any] | None = None) -> Decision[ActionT]:
        """Skip action execution this step."""
        return cls(mode="wait", rationale=rationale, meta=dict(meta or {}))

    @classmethod
    def branch(
        cls,
        candidates: list[Decision[ActionT]],
        rationale: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> Decision[ActionT]:
        """Propose candidate decisions for the branch selector."""
        return cls(mode="branch", candidates=list(candidates), rationale=rationale, meta=dict(meta or {}))

    def validate(self) -> None:
        """Raise ValueError when the decision is structurally invalid."""
        if self.mode not in DECISION_MODES:
            raise ValueError(f"Decision.mode must be one of {DECISION_MODES}, got {self.mode!r}")
        if self.mode == "act":
            if not self.actions:
                raise ValueError("an 'act' decision needs at least one action")
        elif self.actions:
            raise ValueError(f"a {self.mode!r} decision must not carry actions")
        if self.mode == "final" and (self.final_answer is None or not isinstance(self.final_answer, str)):
            raise ValueError("a 'final' decision needs a string final_answer")
        if self.mode != "final" and self.final_answer is not None:
            raise ValueError(f"a {self.mode!r} decision must not carry a final_answer")
        if self.mode == "branch":
            if not self.candidates:
                raise ValueError("a 'branch' decision needs at least one candidate")
            for index, candidate in enumerate(self.candidates):
                if not isinstance(candidate, Decision):
                    raise ValueError(f"branch candidate {index} is not a Decision: {candidate!r}")
                if candidate.mode == "branch":
                    raise ValueError(f"branch candidate {index} is itself a branch; nesting is not supported")
                candidate.validate()
        elif self.candidates:
            raise ValueError(f"a {self.mode!r} decision must not carry candidates")

    def to_dict(self) -> dict[str, Any]:
        """The decision as JSON data (actions as dicts), as upstream writes it to steps.jsonl."""
        return {
            "mode": self.mode,
            "actions": [_action_dict(a) for a in self.actions],
            "final_answer": self.final_answer,
            "rationale": self.rationale,
            "meta": dict(self.meta),
            "candidates": [c.to_dict() for c in self.candidates],
        }


def _action_dict(action: Any) -> Any:
    """An action as upstream's ``{name, args}`` dict when it has those, else as is."""
    name = getattr(action, "name", None)
    if name is not None and hasattr(action, "args"):
        return {"name": name, "args": dict(action.args)}
    return action
