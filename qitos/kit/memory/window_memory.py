"""WindowMemory: the newest ``window_size`` records, kept in process memory (no file, no service)."""

from __future__ import annotations

from typing import Any

from qitos.core.memory import Memory, MemoryRecord
from qitos.kit.memory.events import emit_append, emit_recall
from qitos.kit.memory.memdir_format import content_text

__all__ = ["WindowMemory", "check_record", "int_option"]


def check_record(record: Any) -> MemoryRecord:
    """``record`` if it is a MemoryRecord; a TypeError naming what it is otherwise."""
    if not isinstance(record, MemoryRecord):
        raise TypeError(f"append expects a MemoryRecord, got {type(record).__name__}")
    return record


def int_option(query: dict[str, Any], key: str, default: int | None = None) -> int | None:
    """``query[key]`` as an int (``default`` when absent); ValueError for anything but an int."""
    value = query.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"memory query {key!r} must be an int, got {value!r}")
    return value


class WindowMemory(Memory):
    """Recall over the newest ``window_size`` records (0 or less: every record).

    ``retrieve`` understands upstream's query keys: ``roles`` (roles to keep) and ``step_min``.
    Appends beyond the window stay until :meth:`evict`, as upstream does; recall never sees them.
    """

    #: Recall events come from this memory itself.
    emits_recall_events = True

    def __init__(self, window_size: int = 20, *, namespace: str = "window") -> None:
        if isinstance(window_size, bool) or not isinstance(window_size, int):
            raise ValueError(f"WindowMemory.window_size must be an int, got {window_size!r}")
        self.window_size = window_size
        #: The label memory events carry.
        self.namespace = namespace
        self._records: list[MemoryRecord] = []

    @property
    def records(self) -> list[MemoryRecord]:
        """A copy of every record kept now, oldest first."""
        return list(self._records)

    def append(self, record: MemoryRecord) -> None:
        """Keep one record."""
        self._records.append(check_record(record))
        emit_append(record, namespace=self.namespace, chars=len(content_text(record.content)))

    def retrieve(
        self, query: dict[str, Any] | None = None, state: Any = None, observation: Any = None
    ) -> list[MemoryRecord]:
        """The records in the window matching ``query``, oldest first."""
        options = dict(query or {})
        items = self._records[-self.window_size :] if self.window_size > 0 else list(self._records)
        roles = options.get("roles")
        if roles:
            wanted = set(roles)
            items = [r for r in items if r.role in wanted]
        step_min = int_option(options, "step_min")
        if step_min is not None:
            items = [r for r in items if r.step_id >= step_min]
        emit_recall(items, namespace=self.namespace, query=query)
        return items

    def summarize(self, max_items: int = 5) -> str:
        """The newest ``max_items`` records of the window, one ``[step] role: content`` line each."""
        window = self._records[-self.window_size :] if self.window_size > 0 else self._records
        shown = window[-max_items:] if max_items > 0 else []
        return "\n".join(f"[{r.step_id}] {r.role}: {content_text(r.content)[:120]}" for r in shown)

    def evict(self) -> int:
        """Drop the records older than the window; return how many."""
        extra = len(self._records) - self.window_size
        if self.window_size <= 0 or extra <= 0:
            return 0
        del self._records[:extra]
        return extra

    def reset(self, run_id: str | None = None) -> None:
        """Forget every record before a new run."""
        self._records.clear()
