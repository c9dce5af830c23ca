"""Messages the browsers' workers post to their widgets (results of disk reads and writes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message

from tui.browsers.memory_model import MemoryRow, MemoryView


@dataclass
class MemoryScanned(Message):
    """A fresh scan of the memory root(s) finished; ``error`` says why it could not be read."""

    view: MemoryView | None
    error: str | None = None
    requested_at: float = 0.0  # perf_counter when the change that caused it was seen (benchmarks)


@dataclass
class MemoryPatched(Message):
    """Changed local record files re-read on their own (fast path before the full scan confirms).

    ``upserts`` is None when the change needs the full scan to be understood (see read_local_changes).
    """

    upserts: list[MemoryRow] | None
    gone: set[str]
    requested_at: float


@dataclass
class MemoryDeleted(Message):
    """``MemdirMemory.delete`` returned (``removed``) or refused (``error``) for one record."""

    record_id: str
    removed: bool
    error: str | None = None


@dataclass
class SkillsLoaded(Message):
    """A fresh read of the skill database: skill rows, the selected skill's versions, or an error."""

    skills: list[dict[str, Any]]
    versions: dict[str, list[Any]]
    error: str | None = None
    requested_at: float = 0.0


@dataclass
class SearchFinished(Message):
    """Catalog search results (skill names ranked by relevance) for ``query``."""

    query: str
    names: list[str]
    error: str | None = None


@dataclass
class WatchStopped(Message):
    """The file watcher ended (its root vanished or failed); the view is no longer live."""

    reason: str
