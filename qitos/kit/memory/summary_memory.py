"""SummaryMemory: the newest ``keep_last`` records verbatim, older ones folded into one-line summaries."""

from __future__ import annotations

from typing import Any

from qitos.core.memory import Memory, MemoryRecord
from qitos.kit.memory.events import emit_append, emit_recall
from qitos.kit.memory.memdir_format import content_text
from qitos.kit.memory.window_memory import check_record, int_option

__all__ = ["SummaryMemory"]


class SummaryMemory(Memory):
    """Keeps records in process memory; :meth:`evict` folds all but ``keep_last`` into summaries.

    ``retrieve`` returns the newest ``query["max_items"]`` records (``keep_last`` by default);
    :attr:`summaries` holds what eviction folded away, one ``role:content | ...`` line per batch.
    """

    #: Recall events come from this memory itself.
    emits_recall_events = True

    def __init__(self, keep_last: int = 10, *, namespace: str = "summary") -> None:
        if isinstance(keep_last, bool) or not isinstance(keep_last, int) or keep_last < 0:
            raise ValueError(f"SummaryMemory.keep_last must be an int >= 0, got {keep_last!r}")
        self.keep_last = keep_last
        #: The label memory events carry.
        self.namespace = namespace
        self._records: list[MemoryRecord] = []
        self._summaries: list[str] = []

    @property
    def summaries(self) -> list[str]:
        """The summary lines eviction produced, oldest first."""
        return list(self._summaries)

    def append(self, record: MemoryRecord) -> None:
        """Keep one record."""
        self._records.append(check_record(record))
        emit_append(record, namespace=self.namespace, chars=len(content_text(record.content)))

    def retrieve(
        self, query: dict[str, Any] | None = None, state: Any = None, observation: Any = None
    ) -> list[MemoryRecord]:
        """The newest ``max_items`` records (``keep_last`` when not given), oldest first."""
        limit = int_option(dict(query or {}), "max_items", self.keep_last) or 0
        items = self._records[-limit:] if limit > 0 else []
        emit_recall(items, namespace=self.namespace, query=query)
        return items

    def summarize(self, max_items: int = 5) -> str:
        """One line summarising the newest ``max_items`` records; it is also kept in :attr:`summaries`."""
        chunk = self._records[-max_items:] if max_items > 0 else []
        if not chunk:
            return ""
        line = self._fold(chunk)
        self._summaries.append(line)
        return line

    def evict(self) -> int:
        """Fold every record but the newest ``keep_last`` into one summary line; return how many."""
        extra = len(self._records) - self.keep_last
        if extra <= 0:
            return 0
        # Fold exactly the records being dropped (upstream summarised the newest ones instead).
        self._summaries.append(self._fold(self._records[:extra]))
        del self._records[:extra]
        return extra

    def reset(self, run_id: str | None = None) -> None:
        """Forget every record and summary before a new run."""
        self._records.clear()
        self._summaries.clear()

    @staticmethod
    def _fold(records: list[MemoryRecord]) -> str:
        return " | ".join(f"{r.role}:{content_text(r.content)[:80]}" for r in records)
