"""VectorMemory: recall by similarity of a small deterministic embedding, in process memory."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from qitos.core.memory import Memory, MemoryRecord
from qitos.kit.memory.events import emit_append, emit_recall
from qitos.kit.memory.memdir_format import content_text
from qitos.kit.memory.window_memory import check_record, int_option

__all__ = ["VectorMemory", "bucket_embedding"]

_BUCKETS = 16


def bucket_embedding(text: str) -> list[float]:
    """A 16-dimension character-bucket vector: deterministic and offline, not semantic."""
    vector = [0.0] * _BUCKETS
    for index, char in enumerate(text):
        vector[index % _BUCKETS] += (ord(char) % 31) / 31.0
    return vector


class VectorMemory(Memory):
    """Ranks records by the dot product of their embedding with ``query["text"]``'s.

    ``embedder`` maps text to a vector (the default is :func:`bucket_embedding`; pass a real model's
    for semantic recall). ``query["top_k"]`` caps the results (``top_k`` by default); with no text
    the newest ``top_k`` records come back.
    """

    #: Recall events come from this memory itself.
    emits_recall_events = True

    def __init__(
        self,
        embedder: Callable[[str], list[float]] | None = None,
        top_k: int = 5,
        *,
        namespace: str = "vector",
    ) -> None:
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            raise ValueError(f"VectorMemory.top_k must be an int >= 1, got {top_k!r}")
        self.embedder = embedder or bucket_embedding
        self.top_k = top_k
        #: The label memory events carry.
        self.namespace = namespace
        self._records: list[MemoryRecord] = []
        self._vectors: list[list[float]] = []

    def append(self, record: MemoryRecord) -> None:
        """Keep one record with its embedding."""
        text = content_text(check_record(record).content)
        vector = [float(x) for x in self.embedder(text)]
        self._records.append(record)
        self._vectors.append(vector)
        emit_append(record, namespace=self.namespace, chars=len(text))

    def retrieve(
        self, query: dict[str, Any] | None = None, state: Any = None, observation: Any = None
    ) -> list[MemoryRecord]:
        """The ``top_k`` records most similar to ``query["text"]``, best first (ties: older first)."""
        options = dict(query or {})
        k = int_option(options, "top_k", self.top_k) or 0
        text = options.get("text")
        if k <= 0:
            items = []  # a negative cap must not become a slice that drops only the worst matches
        elif not isinstance(text, str) or not text:
            items = self._records[-k:]
        else:
            probe = self.embedder(text)
            scores = [sum(a * b for a, b in zip(probe, vec, strict=False)) for vec in self._vectors]
            order = sorted(range(len(self._records)), key=lambda i: (-scores[i], i))
            items = [self._records[i] for i in order[:k]]
        emit_recall(items, namespace=self.namespace, query=query)
        return items

    def summarize(self, max_items: int = 5) -> str:
        """The newest ``max_items`` records' contents, one line each (cut at 120 characters)."""
        shown = self._records[-max_items:] if max_items > 0 else []
        return "\n".join(content_text(r.content)[:120] for r in shown)

    def evict(self) -> int:
        """Nothing is evicted: every record stays searchable until :meth:`reset`."""
        return 0

    def reset(self, run_id: str | None = None) -> None:
        """Forget every record before a new run."""
        self._records.clear()
        self._vectors.clear()
