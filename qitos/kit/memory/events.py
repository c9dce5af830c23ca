"""Memory run events: one place that shapes memory_append / memory_recall / memory_delete payloads.

A :class:`~qitos.kit.memory.adapter.MemorySourceAdapter` recalls under its own namespace label; it
sets :data:`recall_label` while calling the memory so the memory's own recall event carries that
label instead of the memory's default one (one event per recall, not two).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from qitos.core.memory import MemoryRecord
from qitos.kit.memory.query import jsonable_query
from qitos.trace import sink
from qitos.trace.events import EventKind

recall_label: ContextVar[str | None] = ContextVar("qitos_memory_recall_label", default=None)


@contextmanager
def labelled_recall(namespace: str) -> Iterator[None]:
    """Within this block, recall events name ``namespace`` (the adapter's label)."""
    token = recall_label.set(namespace)
    try:
        yield
    finally:
        recall_label.reset(token)


def emit_append(record: MemoryRecord, *, namespace: str, chars: int) -> bool:
    """Record a ``memory_append`` event in the active run (no-op outside a run)."""
    return sink.emit(
        EventKind.MEMORY_APPEND,
        {
            "record_id": record.record_id,
            "role": record.role,
            "step_id": record.step_id,
            "namespace": namespace,
            "chars": chars,
        },
    )


def emit_recall(records: Sequence[MemoryRecord], *, namespace: str, query: Mapping[str, Any] | None) -> bool:
    """Record a ``memory_recall`` event with the ids and contents returned."""
    if not sink.active():
        return False  # do not build a payload of every recalled record for nobody
    return sink.emit(
        EventKind.MEMORY_RECALL,
        {
            "namespace": recall_label.get() or namespace,
            "query": jsonable_query(query),
            "record_ids": [r.record_id for r in records],
            "records": [{"record_id": r.record_id, "role": r.role, "content": r.content} for r in records],
        },
    )


def emit_delete(record_id: str, *, namespace: str, removed: bool) -> bool:
    """Record a ``memory_delete`` event saying whether anything was removed."""
    return sink.emit(
        EventKind.MEMORY_DELETE, {"record_id": record_id, "namespace": namespace, "removed": removed}
    )
