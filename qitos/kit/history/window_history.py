"""WindowHistory: the newest ``window_size`` model messages, kept in process memory."""

from __future__ import annotations

from typing import Any

from qitos.core.history import History, HistoryMessage

__all__ = ["WindowHistory"]


def _int_or_none(query: dict[str, Any], key: str) -> int | None:
    value = query.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"history query {key!r} must be an int, got {value!r}")
    return value


class WindowHistory(History):
    """A History that keeps the newest ``window_size`` messages (0 or less: keep every message).

    ``retrieve`` understands upstream's query keys: ``roles`` (a list of roles to keep),
    ``max_items`` (newest N), ``step_min`` and ``step_max`` (inclusive step range).
    """

    def __init__(self, window_size: int = 24) -> None:
        if isinstance(window_size, bool) or not isinstance(window_size, int):
            raise ValueError(f"WindowHistory.window_size must be an int, got {window_size!r}")
        self.window_size = window_size
        self._messages: list[HistoryMessage] = []

    @property
    def messages(self) -> list[HistoryMessage]:
        """A copy of the messages kept now, oldest first."""
        return list(self._messages)

    def append(self, message: HistoryMessage) -> None:
        """Store one message, dropping the oldest beyond the window."""
        if not isinstance(message, HistoryMessage):
            raise TypeError(f"History.append needs a HistoryMessage, got {type(message).__name__}")
        self._messages.append(message)
        self.evict()

    def retrieve(
        self, query: dict[str, Any] | None = None, state: Any = None, observation: Any = None
    ) -> list[HistoryMessage]:
        """The kept messages matching ``query``, oldest first (all of them for no query)."""
        query = dict(query or {})
        items = list(self._messages)
        roles = query.get("roles")
        if roles:
            wanted = set(roles)
            items = [m for m in items if m.role in wanted]
        step_min = _int_or_none(query, "step_min")
        if step_min is not None:
            items = [m for m in items if m.step_id >= step_min]
        step_max = _int_or_none(query, "step_max")
        if step_max is not None:
            items = [m for m in items if m.step_id <= step_max]
        max_items = _int_or_none(query, "max_items")
        if max_items is None and self.window_size > 0:
            max_items = self.window_size
        if max_items is not None and max_items > 0:
            items = items[-max_items:]
        return items

    def summarize(self, max_items: int = 5) -> str:
        """The newest ``max_items`` messages, one ``[step] role: content`` line each (content cut at 120)."""
        shown = self.retrieve({"max_items": max_items}) if max_items > 0 else []
        return "\n".join(f"[{m.step_id}] {m.role}: {m.content[:120]}" for m in shown)

    def evict(self) -> int:
        """Drop messages beyond the window; return how many were dropped."""
        extra = len(self._messages) - self.window_size
        if self.window_size <= 0 or extra <= 0:
            return 0
        del self._messages[:extra]
        return extra

    def reset(self, run_id: str | None = None) -> None:
        """Forget every message before a new run."""
        self._messages.clear()
