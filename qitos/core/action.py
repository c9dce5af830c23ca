"""The normalized action contract: what a policy asks the executor to run."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any


class ActionKind(str, Enum):
    """What kind of thing an action invokes; only tools for now."""

    TOOL = "tool"


@dataclass
class Action:
    """One tool invocation requested by the agent."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    kind: ActionKind = ActionKind.TOOL
    action_id: str | None = None
    timeout_s: float | None = None
    max_retries: int = 0
    idempotent: bool = True
    classification: str = "default"
    metadata: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"Action.name must be a non-empty string, got {self.name!r}")
        if not isinstance(self.args, dict):
            raise ValueError(f"Action.args must be a dict, got {type(self.args).__name__}")
        try:
            self.kind = ActionKind(self.kind)
        except ValueError as exc:
            raise ValueError(
                f"unknown Action.kind {self.kind!r}; expected one of {[k.value for k in ActionKind]}"
            ) from exc
        if self.timeout_s is not None and (
            not isinstance(self.timeout_s, int | float) or self.timeout_s <= 0
        ):
            raise ValueError(f"Action.timeout_s must be a positive number or None, got {self.timeout_s!r}")
        if not isinstance(self.max_retries, int) or self.max_retries < 0:
            raise ValueError(f"Action.max_retries must be a non-negative int, got {self.max_retries!r}")

    @classmethod
    def from_dict(cls, payload: Mapping[str, Any]) -> Action:
        """Construct an action from a plain dict (``name`` required; ``arguments`` accepted for ``args``)."""
        if isinstance(payload, Action):
            return payload
        if not isinstance(payload, Mapping):
            raise ValueError(f"Action.from_dict needs a mapping, got {type(payload).__name__}")
        data = dict(payload)
        if "args" not in data and "arguments" in data:
            data["args"] = data.pop("arguments")
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"Action.from_dict: unknown field(s) {unknown}")
        if "name" not in data:
            raise ValueError("Action.from_dict: missing required field 'name'")
        data["args"] = dict(data.get("args") or {})
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        """The action as JSON data."""
        out = asdict(self)
        out["kind"] = self.kind.value
        return out
