"""Messages the browsers' workers post to their widgets (results of disk reads and writes)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from textual.message import Message

from tui.browsers.memory_files import Batch
from tui.browsers.memory_model import MemoryRow


@dataclass
class MemoryLoaded(Message):
    """A batch of a load of the memory root(s) (``generation`` counts loads); ``error`` if unreadable."""

    batch: Batch | None
    generation: int
    error: str | None = None
    painted: threading.Event | None = None  # set once this batch's rows have been drawn


@dataclass
class MemoryPatched(Message):
    """Changed files re-read on their own: (scope, file name) and its row now (None: gone or ignored).

    ``rescan`` asks for a full load: a change the per-file path cannot describe (a records/ folder
    itself appeared, vanished or was replaced).
    """

    changes: list[tuple[tuple[str, str], MemoryRow | None]]
    rescan: bool
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
class SkillVersionsLoaded(Message):
    """The versions of one skill (newest first), read on their own when the selection moves."""

    name: str
    versions: list[Any]
    error: str | None = None
    ahead: dict[str, list[Any]] | None = None  # the versions of the skills next to it, read ahead
    revision: int = 0  # the catalogue load they were read under (older ones are dropped)


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
