"""Model message history: the History adapter interface, its unit and the assembly policy."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any


@dataclass
class HistoryMessage:
    """One message kept in history."""

    role: str
    content: str
    step_id: int
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class HistoryPolicy:
    """How the Engine assembles history for model calls."""

    roles: list[str] = field(default_factory=lambda: ["user", "assistant"])
    max_messages: int = 24
    step_window: int | None = None
    max_tokens: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.max_messages, int) or self.max_messages < 0:
            raise ValueError(f"HistoryPolicy.max_messages must be an int >= 0, got {self.max_messages!r}")
        if self.step_window is not None and (not isinstance(self.step_window, int) or self.step_window < 1):
            raise ValueError(
                f"HistoryPolicy.step_window must be a positive int or None, got {self.step_window!r}"
            )
        if self.max_tokens is not None and (not isinstance(self.max_tokens, int) or self.max_tokens < 1):
            raise ValueError(
                f"HistoryPolicy.max_tokens must be a positive int or None, got {self.max_tokens!r}"
            )

    @property
    def policy_id(self) -> str:
        """A label naming this policy's limits, as request views report it."""
        return (
            f"history(roles={','.join(self.roles)};max_messages={self.max_messages};"
            f"step_window={self.step_window};max_tokens={self.max_tokens})"
        )

    def build_query(self, step_id: int) -> dict[str, Any]:
        """The ``History.retrieve`` query for a request at ``step_id`` (upstream's keys)."""
        query: dict[str, Any] = {"roles": list(self.roles), "max_items": self.max_messages}
        if self.step_window is not None:
            query["step_min"] = max(0, step_id - self.step_window + 1)
        return query

    def select(self, messages: list[HistoryMessage], current_step: int | None = None) -> list[HistoryMessage]:
        """Apply roles, step window, message cap and token cap (4 chars ~ 1 token), newest kept."""
        kept = [m for m in messages if m.role in self.roles]
        if self.step_window is not None and current_step is not None:
            kept = [m for m in kept if m.step_id > current_step - self.step_window]
        kept = kept[-self.max_messages :] if self.max_messages else []
        if self.max_tokens is not None:
            total = 0
            out: list[HistoryMessage] = []
            for message in reversed(kept):
                cost = max(1, len(message.content) // 4)
                if total + cost > self.max_tokens:
                    break
                total += cost
                out.append(message)
            kept = list(reversed(out))
        return kept


class History(ABC):
    """The abstract interface for model message history adapters."""

    @abstractmethod
    def append(self, message: HistoryMessage) -> None:
        """Store one message."""

    @abstractmethod
    def retrieve(
        self,
        query: dict[str, Any] | None = None,
        state: Any = None,
        observation: Any = None,
    ) -> Any:
        """Return messages (all of them for no query)."""

    @abstractmethod
    def summarize(self, max_items: int = 5) -> str:
        """Render at most ``max_items`` recent messages as text."""

    @abstractmethod
    def evict(self) -> int:
        """Drop stored messages; return how many."""

    @abstractmethod
    def reset(self, run_id: str | None = None) -> None:
        """Forget everything before a new run."""
